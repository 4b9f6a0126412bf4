"""Targeted tests of the λ-path's front search (front.py, leaf_fronts.py, front_bounds.py),
written to kill the mutants of ``bench/mutation.py path-fronts``: each budget's value, tree
and leaf count against an enumeration of every tree in plain numpy, on both backends, in
chunked and batched layouts, under weights, zero weights and ``min_leaf``, and the bounds of
stopped searches and of :class:`RootBounds` against the same enumeration."""

from __future__ import annotations

import numpy as np
import pytest
from deadlines import StopAfter

from optrees.trees.search.binary import front as front_module
from optrees.trees.search.binary import leaf_fronts
from optrees.trees.search.binary.cache import row_key
from optrees.trees.search.binary.front import accuracy_front
from optrees.trees.search.binary.front_bounds import RootBounds, convolve
from optrees.trees.search.binary.leaf_fronts import FrontSearch


def enumerate_fronts(X, y, w, depth, min_leaf=1):
    """{leaves: largest weighted correct} of every tree of depth <= ``depth`` on all rows
    (each leaf predicts its weighted majority; a split keeps ``min_leaf`` rows and some
    weight on each side), memoised on the row set."""
    classes = np.unique(y)
    memo = {}

    def best(rows, d):
        key = (rows.tobytes(), d)
        if key in memo:
            return memo[key]
        out = {1: max(w[rows][y[rows] == k].sum() for k in classes)}
        for f in range(X.shape[1]) if d else ():
            sides = rows[X[rows, f] == 0], rows[X[rows, f] == 1]
            if min(len(s) for s in sides) < min_leaf or min(w[s].sum() for s in sides) <= 0:
                continue
            a, b = best(sides[0], d - 1), best(sides[1], d - 1)
            for ka, va in a.items():
                for kb, vb in b.items():
                    out[ka + kb] = max(out.get(ka + kb, -np.inf), va + vb)
        memo[key] = out
        return out

    return best(np.arange(len(y)), depth)


def budget_optima(by_leaves, depth):
    return [max(v for k, v in by_leaves.items() if k <= b) for b in range(1, 2**depth + 1)]


def leaves_and_score(tree, X, y, w):
    """The reachable leaves of a heap tree, the rows of each, and the weighted correct of
    each leaf's own labels (computed here from the tree's splits)."""
    stops, stack = [], [1]
    while stack:
        n = stack.pop()
        if n <= len(tree.split) and tree.split[n - 1] >= 0:
            stack += [2 * n, 2 * n + 1]
        else:
            stops.append(n)
    node = np.ones(len(y), dtype=int)
    for _ in range(tree.depth):
        f = np.array([tree.split[n - 1] if n <= len(tree.split) else -1 for n in node])
        go = f >= 0
        node[go] = 2 * node[go] + X[np.flatnonzero(go), f[go]]
    rows = {n: np.flatnonzero(node == n) for n in stops}
    score = sum(w[r][y[r] == tree.label[n - 1]].sum() for n, r in rows.items())
    return rows, score


def check_points(points, X, y, w, depth, min_leaf=1):
    """Every budget: optimal, the enumerated optimum, a tree of at most that many leaves
    that scores it (its own labels, every leaf with ``min_leaf`` rows and some weight) and
    the fewest leaves of the trees reaching it."""
    best = enumerate_fronts(X, y, w, depth, min_leaf)
    want = budget_optima(best, depth)
    assert [p.budget for p in points] == list(range(1, 2**depth + 1))
    assert all(p.optimal for p in points)
    assert [p.correct for p in points] == pytest.approx(want)
    assert [p.bound for p in points] == pytest.approx(want)
    for p in points:
        rows, score = leaves_and_score(p.tree, X, y, w)
        assert score == pytest.approx(p.correct)
        assert len(rows) == p.leaves <= p.budget
        assert p.leaves == min(k for k, v in best.items() if v >= p.correct - 1e-9)
        assert all(len(r) >= min_leaf and w[r].sum() > 0 for r in rows.values())


def xor_data(seed, n=28, F=5, K=2):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, F))
    y = (X[:, 0] ^ X[:, 1] ^ (rng.random(n) < 0.15)).astype(int)
    if K == 3:
        y = y + X[:, 2] * (1 - X[:, 3])
    return X, y


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("depth, seed", [(3, 0), (4, 1), (4, 2)])
def test_each_budget_under_weights_and_three_classes(depth, seed, backend):
    X, y = xor_data(seed, K=3)
    w = np.random.default_rng(seed + 10).integers(1, 4, size=len(y)).astype(float)
    points = accuracy_front(X, y, depth, w, 3, backend=backend)
    check_points(points, X, y, w, depth)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("min_leaf", [2, 4])
def test_min_leaf_at_depth_four_in_small_chunks(min_leaf, backend, monkeypatch):
    """Temporaries cut to a few entries: the batched depth-2 fronts, the row chunks of the
    triple counts and the depth-4 node's groups of root features are all split up."""
    monkeypatch.setattr(leaf_fronts, "_CHUNK", 50)
    batches = []
    fronts = leaf_fronts.depth2_fronts

    def spy(S, *args):
        batches.append(S.shape)
        return fronts(S, *args)

    monkeypatch.setattr(leaf_fronts, "depth2_fronts", spy)
    X, y = xor_data(3 + min_leaf, n=30)
    w = np.random.default_rng(min_leaf).integers(1, 3, size=len(y)).astype(float)
    points = accuracy_front(X, y, 4, w, 2, min_leaf, backend=backend)
    check_points(points, X, y, w, 4, min_leaf)
    if backend == "numpy":  # each batch of subsets within the limit: K F^2 = 50 a subset
        assert len(batches) > 2 and all(K * B * F * F <= 50 for K, B, F, _ in batches)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_unit_weights_with_min_leaf_count_rows(backend):
    X, y = xor_data(7, n=26)
    for depth, min_leaf in ((2, 3), (3, 3), (4, 2)):
        points = accuracy_front(X, y, depth, None, 2, min_leaf, backend=backend)
        check_points(points, X, y, np.ones(len(y)), depth, min_leaf)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_zero_weight_rows_never_make_a_side(backend):
    """Rows of weight 0 alone on one side of a feature: that split would leave a leaf of no
    weight, so no tree uses it (every leaf of every tree carries weight)."""
    X, y = xor_data(5, n=24, F=4)
    w = np.ones(len(y))
    w[:3] = 0.0
    X[:, 3] = 0
    X[:3, 3] = 1  # feature 3 is 1 only on the weightless rows
    y[:3] = 1 - y[:3]
    for depth in (1, 2, 3, 4):
        check_points(accuracy_front(X, y, depth, w, 2, backend=backend), X, y, w, depth)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_pure_label_needs_one_split_at_every_budget(backend):
    """Ties everywhere: every budget from 2 up scores all rows with one split."""
    X, _ = xor_data(9, n=20)
    y = X[:, 2].copy()
    for depth in (2, 3, 4):
        points = accuracy_front(X, y, depth, backend=backend)
        assert [p.leaves for p in points] == [1] + [2] * (2**depth - 1)
        assert [p.correct for p in points[1:]] == [20.0] * (2**depth - 1)
        assert all(p.tree.split[0] == 2 for p in points[1:])


def test_depth_zero_no_features_and_a_negative_depth():
    X, y = xor_data(1, n=10)
    (p,) = accuracy_front(X, y, 0)
    assert (p.budget, p.leaves, p.correct, p.optimal) == (1, 1, max(np.bincount(y)), True)
    points = accuracy_front(np.zeros((10, 0), dtype=int), y, 3)
    assert [p.correct for p in points] == [max(np.bincount(y))] * 8
    assert all(p.leaves == 1 and p.optimal for p in points)
    with pytest.raises(ValueError, match="depth"):
        accuracy_front(X, y, -1)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_constant_columns_only_leave_the_leaf(backend):
    y = np.array([0, 1, 1, 0, 1, 1, 1])
    X = np.zeros((7, 3), dtype=int)
    X[:, 1] = 1
    for depth in (2, 3, 4):
        points = accuracy_front(X, y, depth, backend=backend)
        assert [(p.correct, p.leaves, p.optimal) for p in points] == [(5.0, 1, True)] * 2**depth


@pytest.mark.parametrize("min_leaf", [1, 3])
def test_per_budget_searches_give_the_same_trees(min_leaf, monkeypatch):
    """Wide data (every set counted as wide): one budgeted search per leaf count, with the
    same trees, leaf counts and ties as the front."""
    monkeypatch.setattr(front_module, "TRIPLE_CELLS", 0)
    X, y = xor_data(4, n=26, K=3)
    w = np.random.default_rng(4).integers(1, 3, size=len(y)).astype(float)
    for depth in (3, 4):
        check_points(accuracy_front(X, y, depth, w, 3, min_leaf), X, y, w, depth, min_leaf)


def test_the_triple_counts_limit_is_the_largest_front_search(monkeypatch):
    """``K F^3`` equal to ``TRIPLE_CELLS`` takes the front search, one above it the budgeted
    searches; depth 2 always the front search."""
    X, y = xor_data(2, n=20, F=4)
    calls = []
    search = front_module.Search

    def spy(*args, **kw):
        calls.append(1)
        return search(*args, **kw)

    monkeypatch.setattr(front_module, "Search", spy)
    monkeypatch.setattr(front_module, "TRIPLE_CELLS", 2 * 4.0**3)
    accuracy_front(X, y, 3)
    assert not calls
    monkeypatch.setattr(front_module, "TRIPLE_CELLS", 2 * 4.0**3 - 1)
    accuracy_front(X, y, 2)
    assert not calls
    check_points(accuracy_front(X, y, 3), X, y, np.ones(20), 3)
    assert calls


@pytest.mark.parametrize("wide", [False, True])
@pytest.mark.parametrize("depth, calls", [(3, 0), (4, 0), (4, 1), (5, 1), (5, 2), (5, 6)])
def test_stopped_searches_bound_the_enumerated_optimum(depth, calls, wide, monkeypatch):
    """A stopped front: each budget's tree scores its ``correct``, ``correct`` <= the
    enumerated optimum <= ``bound``, and a point said optimal is the optimum."""
    if wide:
        monkeypatch.setattr(front_module, "TRIPLE_CELLS", 0)
    X, y = xor_data(depth + calls, n=24, F=4)
    w = np.random.default_rng(calls).integers(1, 3, size=len(y)).astype(float)
    want = budget_optima(enumerate_fronts(X, y, w, depth), depth)
    points = accuracy_front(X, y, depth, w, 2, backend="numpy",
                            deadline=StopAfter(calls))
    assert not all(p.optimal for p in points)
    for p, opt in zip(points, want, strict=True):
        _, score = leaves_and_score(p.tree, X, y, w)
        assert score == pytest.approx(p.correct)
        assert p.correct <= opt + 1e-9 <= p.bound + 2e-9
        assert p.bound <= w.sum() + 1e-9
        if p.optimal:
            assert p.correct == pytest.approx(opt) and p.bound == p.correct


def test_a_search_stopped_at_once_proves_the_leaf_and_the_rows_weight():
    X, y = xor_data(6, n=20)
    w = np.arange(1, 21, dtype=float)
    for depth in (2, 3, 4):
        points = accuracy_front(X, y, depth, w, 2, backend="numpy", deadline=StopAfter(0))
        leaf = max(w[y == 0].sum(), w[y == 1].sum())
        # (nothing is said optimal once the deadline has passed)
        assert points[0].correct == points[0].bound == leaf
        assert not points[0].optimal
        assert all(not p.optimal and p.correct == leaf and p.bound == w.sum()
                   for p in points[1:])


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_subtree_front_is_cached_only_when_exact(backend):
    X, y = xor_data(8, n=24)
    search = FrontSearch(leaf_fronts.BinaryData.make(X, y), backend=backend)
    rows = np.arange(24)
    first = search.front(rows, 4)
    assert first.exact and (row_key(rows), 4) in search.cache
    search.cache[(row_key(rows), 4)] = marker = leaf_fronts.SubFront(
        first.vals, first.upper, first.trees)
    assert search.front(rows, 4) is marker
    want = budget_optima(enumerate_fronts(X, y, np.ones(24), 4), 4)
    assert first.vals == pytest.approx(want)
    stopped = FrontSearch(leaf_fronts.BinaryData.make(X, y), deadline=StopAfter(1),
                          backend=backend)
    got = stopped.front(rows, 4)
    assert not got.exact and not stopped.cache


def test_the_trees_of_a_front_are_a_sequence_by_budget():
    X, y = xor_data(3, n=24)
    front = FrontSearch(leaf_fronts.BinaryData.make(X, y), backend="numpy").front(
        np.arange(24), 4)
    trees = front.trees
    assert len(trees) == 16
    assert trees[-1] is trees[15] and trees[-16] is trees[0]
    assert trees[2:5] == [trees[2], trees[3], trees[4]]
    with pytest.raises(IndexError):
        trees[16]
    with pytest.raises(IndexError):
        trees[-17]


def test_convolution_is_the_max_plus_product_with_the_first_split():
    rng = np.random.default_rng(0)
    for p, q in ((1, 1), (2, 3), (4, 4), (3, 1)):
        a = rng.integers(0, 4, size=(5, p)).astype(float)
        b = rng.integers(0, 4, size=(5, q)).astype(float)
        vals, arg = convolve(a, b)
        assert vals.shape == arg.shape == (5, p + q - 1)
        for r in range(5):
            for s in range(p + q - 1):
                cells = [(a[r, i] + b[r, s - i], i) for i in range(p) if 0 <= s - i < q]
                top = max(c for c, _ in cells)
                assert vals[r, s] == top
                assert arg[r, s] == min(i for c, i in cells if c == top)


def side_fronts(X, y, w, h, min_leaf=1):
    """Each root feature's side fronts (h leaf counts) by enumeration: (2, F, h)."""
    F = X.shape[1]
    depth = int(np.log2(h))
    true = np.empty((2, F, h))
    for f in range(F):
        for s in (0, 1):
            rows = np.flatnonzero(X[:, f] == s)
            best = enumerate_fronts(X[rows], y[rows], w[rows], depth, min_leaf)
            true[s, f] = budget_optima(best, depth)
    return true


@pytest.mark.parametrize("similar", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_root_bounds_are_valid_and_tighten(seed, similar):
    """Near copies and a negated one.  Before any feature: one leaf exact, more leaves the
    side's weight.  After one feature's enumerated side fronts: the similarity bound of the
    module's docstring, computed here; after all: still >= each side's front, a feature's
    own fronts bounding it exactly; without the similarity terms nothing changes."""
    rng = np.random.default_rng(seed)
    n = 30
    base = rng.integers(0, 2, size=(n, 3))
    X = np.concatenate([base, base[:, :2] ^ (rng.random((n, 2)) < 0.2),
                        1 - base[:, :1] ^ (rng.random((n, 1)) < 0.1)], axis=1)  # negated
    y = (base[:, 0] ^ (rng.random(n) < 0.1)).astype(int) + base[:, 2] * (seed == 1)
    w = rng.integers(1, 4, size=n).astype(float)
    K, h, F = int(y.max()) + 1, 4, X.shape[1]
    true = side_fronts(X, y, w, h)
    D = np.stack([X.T.astype(float) @ np.where(y == k, w, 0.0) for k in range(K)])
    t = np.bincount(y, weights=w, minlength=K)
    bounds = RootBounds(X.T.astype(bool), w, t, D, h, similar=similar)
    weight = np.stack([(X == s).T.astype(float) @ w for s in (0, 1)])
    assert bounds.ub[:, :, 0] == pytest.approx(true[:, :, 0])
    assert bounds.ub[:, :, 1:] == pytest.approx(np.repeat(weight[:, :, None], h - 1, axis=2))
    for g in range(F):
        bounds.add(g, true[0, g], true[1, g])
        assert np.all(bounds.ub >= true - 1e-9)
    for g in range(F) if similar else ():  # F_A(j) <= F_A'(j) + w(A \\ A'), A' a side of g
        one = RootBounds(X.T.astype(bool), w, t, D, h, similar=True)
        one.add(g, true[0, g], true[1, g])
        want = np.repeat(weight[:, :, None], h - 1, axis=2)
        for s in (0, 1):
            for f in range(F):
                for s2 in (0, 1):
                    outside = w[(X[:, f] == s) & (X[:, g] != s2)].sum()
                    want[s, f] = np.minimum(want[s, f], true[s2, g, 1:] + outside)
        assert one.ub[:, :, 1:] == pytest.approx(want)
    if similar:  # a feature's sides compared with themselves: no rows outside
        assert bounds.ub[:, :, 1:] == pytest.approx(true[:, :, 1:])
    else:
        assert bounds.ub[:, :, 1:] == pytest.approx(np.repeat(weight[:, :, None], h - 1, 2))
    # each feature's best split front, enumerated, against the node's front so far
    conv = np.array([[max(true[0, f, i] + true[1, f, k - i] for i in range(max(0, k - h + 1),
                                                                          min(h - 1, k) + 1))
                      for k in range(2 * h - 1)] for f in range(F)])
    if similar:
        assert bounds.can_improve(np.arange(F), np.full(2 * h, -1.0), 1e-9).all()
        for f in range(F):
            best = np.concatenate([[0.0], conv[f]])
            assert not bounds.can_improve(np.array([f]), best, 1e-9)[0]
            best[1 + np.argmax(conv[f])] -= 0.5
            assert bounds.can_improve(np.array([f]), best, 1e-9)[0]
    assert bounds.can_improve(np.array([], dtype=np.int64), np.zeros(2 * h), 0.0).shape == (0,)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_near_copies_are_skipped_by_their_bounds_and_lose_no_budget(backend, monkeypatch):
    """Depth 4 and 5 on near copies of the columns: some root features are skipped by
    their similarity bounds, every budget is still the enumerated optimum."""
    from optrees.trees.search.binary import front_bounds

    rng = np.random.default_rng(2)
    n = 30
    base = rng.integers(0, 2, size=(n, 2))
    X = np.concatenate([base, base ^ (rng.random((n, 2)) < 0.1)], axis=1)
    y = (base[:, 0] | (rng.random(n) < 0.05)).astype(int)
    skipped = []
    improve = front_bounds.RootBounds.can_improve

    def counting(self, feats, best, tol, known=1):
        keep = improve(self, feats, best, tol, known)
        skipped.append(int((~keep).sum()))
        return keep

    monkeypatch.setattr(front_bounds.RootBounds, "can_improve", counting)
    for depth in (4, 5):
        check_points(accuracy_front(X, y, depth, backend=backend), X, y, np.ones(n), depth)
    assert sum(skipped) > 0


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_depth4_node_counts_the_triples_of_each_features_smaller_side(backend, monkeypatch):
    """MurTree's incremental counts: the triples of a depth-4 node's rows are counted once,
    and under each root feature only those of its smaller side (the larger side's are the
    difference)."""
    X, y = xor_data(12, n=30)
    X[:, 4] = np.arange(30) < 8  # a feature with a small side 1
    X[:, 3] = np.arange(30) >= 9  # ... and one with a small side 0
    sizes = []
    products = FrontSearch._products

    def spy(self, rows, triples):
        if triples:
            sizes.append(len(rows))
        return products(self, rows, triples)

    monkeypatch.setattr(FrontSearch, "_products", spy)
    from optrees.trees.search.binary import root_share

    count = root_share.count_bits

    def spy_shared(indptr, indices, y, rows, *args):  # the compiled children's counts
        sizes.append(len(rows))
        return count(indptr, indices, y, rows, *args)

    monkeypatch.setattr(root_share, "count_bits", spy_shared)
    check_points(accuracy_front(X, y, 4, backend=backend), X, y, np.ones(30), 4)
    assert sizes[0] == 30 and 0 < len(sizes) - 1 <= X.shape[1]
    assert all(s <= 15 for s in sizes[1:])


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("m", [2, 3])
def test_a_deep_nodes_root_split_needs_min_leaf_rows_on_each_side(m, backend):
    """min_leaf = m: feature 0 is 0 on m - 1 rows of the minority class only, feature 2 is
    1 on them only (both too small to split off); feature 1 is 0 on exactly m other rows of
    it, feature 3 is 1 on exactly m more, of weight 2 (just enough); depth 4 and 5 search
    their roots in Python, below in the kernels."""
    rng = np.random.default_rng(m)
    n = 24
    y = np.zeros(n, dtype=int)
    y[:3 * m - 1] = 1
    X = np.ones((n, 5), dtype=int)
    X[:m - 1, 0] = 0
    X[m - 1:2 * m - 1, 1] = 0
    X[:, 2] = 1 - X[:, 0]
    X[:, 3] = 0
    X[2 * m - 1:3 * m - 1, 3] = 1
    X[:, 4] = rng.integers(0, 2, size=n)
    w = np.ones(n)
    w[2 * m - 1:3 * m - 1] = 2.0
    for depth in (4, 5):
        check_points(accuracy_front(X, y, depth, w, 2, m, backend=backend), X, y, w, depth, m)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_min_leaf_that_forbids_every_second_split_or_every_split(backend):
    """Ten rows: with min_leaf 3 a root split leaves a side of at most 5 rows, which cannot
    split again (the 4-leaf trees of depth 2 do not exist); with 6 no split exists."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(10, 4))
    y = X[:, 0] ^ X[:, 1]
    for m in (3, 6):
        for depth in (1, 2, 3, 4):
            check_points(accuracy_front(X, y, depth, None, 2, m, backend=backend), X, y,
                         np.ones(10), depth, m)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_a_split_may_isolate_one_row_of_the_smallest_weight(backend):
    """Each minority row alone on one side of its own feature (of the smallest weight, 1):
    every budget is the enumerated optimum, at every depth."""
    n = 12
    y = np.zeros(n, dtype=int)
    y[[0, 5, 9]] = 1
    X = np.zeros((n, 4), dtype=int)
    X[0, 0] = X[5, 1] = 1
    X[:, 2] = 1
    X[9, 2] = 0
    X[:, 3] = np.arange(n) % 2
    w = np.ones(n) + (np.arange(n) % 3 == 1)
    for depth in (1, 2, 3, 4):
        check_points(accuracy_front(X, y, depth, w, 2, backend=backend), X, y, w, depth)
