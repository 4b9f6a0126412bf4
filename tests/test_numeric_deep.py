"""Exact numeric trees of depth ≥ 3 (optrees.trees.search.numeric deep search, issue #18)."""

from __future__ import annotations

import numpy as np
import pytest
from deadlines import StopAfter
from numeric_cases import check_tree, random_problem
from oracles import best_tree_over_tests
from sklearn.tree import DecisionTreeClassifier

from optrees.solvers.deadline import Deadline
from optrees.trees.search.numeric import NumericData, numba_available, solve_numeric

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.skipif(
    not numba_available(), reason="numba not installed"))]


def _brute_force(X, y, w, n_classes, pen, depth, min_leaf=1, max_leaves=None):
    """Best score over every threshold tree of depth ≤ ``depth`` and at most ``max_leaves``
    leaves whose splits leave ``min_leaf`` rows or more on each side (memoized
    enumeration)."""
    onehot_w = np.zeros((len(y), n_classes))
    onehot_w[np.arange(len(y)), y] = w
    cuts = [X[:, f] <= (a + b) / 2 for f in range(X.shape[1])
            for a, b in zip(np.unique(X[:, f])[:-1], np.unique(X[:, f])[1:], strict=True)]
    if not cuts:
        return float(onehot_w.sum(axis=0).max()) - pen
    return best_tree_over_tests(
        cuts, lambda m: float((onehot_w * m[:, None]).sum(axis=0).max()) - pen, depth, min_leaf,
        max_leaves)


def _random_problem(seed: int, n_classes: int, weighted: bool, n_max: int = 24, p_max: int = 3):
    return random_problem(seed, n_classes, weighted, n=(6, n_max + 1), p=(1, p_max + 1))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_depth3_matches_brute_force(backend, n_classes):
    """Depth 3 equals plain enumeration: ties, weights (zeros too) and penalties incl. 0."""
    for seed in range(8):
        X, y, w = _random_problem(seed + 50 * n_classes, n_classes, weighted=seed % 2 == 1)
        for pen in (0.0, 0.5, 1.5):
            res = solve_numeric(X, y, n_classes=n_classes, sample_weight=w, leaf_penalty=pen,
                                max_depth=3, backend=backend)
            assert res.score == pytest.approx(_brute_force(X, y, w, n_classes, pen, 3)), \
                (seed, pen)
            assert res.optimal and res.upper_bound == pytest.approx(res.score)
            check_tree(res, X, y, w, pen)



def _leaf_sizes(res, X) -> np.ndarray:
    """Rows reaching each leaf of a returned tree."""
    return np.unique(res.terminal(X), return_counts=True)[1]


def _min_leaf_problem(seed: int):
    """Integer columns of 12 levels on 8-25 rows: fine enough that a minimum leaf size
    decides between neighbouring thresholds (seeds 17, 55, 80, 92 at depth 2 and 7, 50 at
    depth 3 caught searches that kept the similarity bound under min_leaf)."""
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(8, 26)), int(rng.integers(1, 3))
    X = rng.integers(0, 12, size=(n, p)).astype(float)
    n_classes = 2 + seed % 2
    y = rng.integers(0, n_classes, n)
    w = rng.integers(1, 4, n).astype(float) if seed % 3 == 1 else np.ones(n)
    return X, y, w, n_classes


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_min_leaf_matches_brute_force(backend, depth):
    """With a minimum leaf size the optimum equals the enumeration of the trees whose leaves
    all keep that many rows, and the returned tree's leaves do; with and without a deadline
    (the deadline takes the depth-2 path of the deep search), weights and penalties."""
    seeds = (7, 17, 50, 55, 80, 92, 1, 2, 3, 4)
    if depth == 3 and backend == "numpy":  # 0.2 s a fit; the numba twin runs all ten
        seeds = seeds[:5]
    for seed in seeds:
        X, y, w, n_classes = _min_leaf_problem(seed)
        for min_leaf, pen in ((2, 0.0), (3, 0.0), (4, 0.0), (4, 0.5), (7, 1.0)):
            expect = _brute_force(X, y, w, n_classes, pen, depth, min_leaf)
            for deadline in (None, Deadline(60)) if depth == 2 else (None,):
                res = solve_numeric(X, y, n_classes=n_classes, sample_weight=w,
                                    leaf_penalty=pen, max_depth=depth, backend=backend,
                                    min_leaf=min_leaf, deadline=deadline)
                assert res.score == pytest.approx(expect), (seed, min_leaf, pen, deadline)
                assert res.optimal
                check_tree(res, X, y, w, pen)
                if res.n_leaves > 1:
                    assert _leaf_sizes(res, X).min() >= min_leaf, (seed, min_leaf)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_max_leaves_matches_brute_force(backend, depth):
    """With a leaf budget the optimum equals the enumeration of the trees with that many
    leaves or fewer, and the returned tree keeps to it: every budget below 2^depth, with
    penalties, weights (zeros too), two and three classes, a minimum leaf size and a
    deadline (which takes the same search)."""
    cases = 0
    for seed in range(8 if depth < 3 else 5):
        n_classes = 2 + seed % 2
        X, y, w = _random_problem(seed + 300, n_classes, weighted=seed % 3 == 1,
                                  n_max=18 if depth == 3 else 24)
        for budget in range(1, 2**depth):
            for pen, min_leaf in ((0.0, 1), (0.5, 1), (0.0, 2)):
                expect = _brute_force(X, y, w, n_classes, pen, depth, min_leaf, budget)
                res = solve_numeric(X, y, n_classes=n_classes, sample_weight=w,
                                    leaf_penalty=pen, max_depth=depth, backend=backend,
                                    min_leaf=min_leaf, max_leaves=budget,
                                    deadline=Deadline(60) if seed % 2 else None)
                assert res.score == pytest.approx(expect), (seed, budget, pen, min_leaf)
                assert res.optimal and res.upper_bound == pytest.approx(res.score)
                assert res.n_leaves <= budget
                check_tree(res, X, y, w, pen)
                if res.n_leaves > 1:
                    assert _leaf_sizes(res, X).min() >= min_leaf
                cases += 1
    assert cases > 0


def test_max_leaves_is_binding():
    """The budget cases above are not trivially unconstrained: on their data a budget of 3
    lowers the depth-2 optimum for 3 of 8 seeds, and budgets 2-7 lower the depth-3 optimum
    in 12 of the 30 (seed, budget) pairs of the depth-3 cases."""
    lowered2 = lowered3 = 0
    for seed in range(8):
        n_classes = 2 + seed % 2
        X, y, w = _random_problem(seed + 300, n_classes, weighted=seed % 3 == 1)
        lowered2 += _brute_force(X, y, w, n_classes, 0.0, 2, 1, 3) < \
            _brute_force(X, y, w, n_classes, 0.0, 2) - 1e-9
        if seed < 5:
            X, y, w = _random_problem(seed + 300, n_classes, weighted=seed % 3 == 1, n_max=18)
            free = _brute_force(X, y, w, n_classes, 0.0, 3)
            lowered3 += sum(_brute_force(X, y, w, n_classes, 0.0, 3, 1, budget) < free - 1e-9
                            for budget in range(2, 8))
    assert lowered2 >= 3 and lowered3 >= 10


def _threshold_columns(X: np.ndarray) -> np.ndarray:
    """0/1 columns ``x_f <= t`` for every midpoint ``t`` between consecutive distinct values."""
    cols = [X[:, f] <= (a + b) / 2 for f in range(X.shape[1])
            for a, b in zip(np.unique(X[:, f])[:-1], np.unique(X[:, f])[1:], strict=True)]
    return np.column_stack(cols).astype(np.int32)


def test_max_leaves_pystreed_witness():
    """pystreed's max_num_nodes on every threshold as a 0/1 column (an independent exact
    solver) gives the same optimal accuracy as the budgeted numeric search, on iris (three
    classes) and on a rounded sample of banknote, depth 3; both at least CART's with
    max_leaf_nodes."""
    pystreed = pytest.importorskip("pystreed")
    from sklearn.datasets import load_iris

    X_iris, y_iris = load_iris(return_X_y=True)
    rng = np.random.default_rng(0)
    X_bank = np.round(rng.normal(size=(200, 3)), 1)
    y_bank = (X_bank[:, 0] + X_bank[:, 1] * X_bank[:, 2] + rng.normal(scale=0.5, size=200)
              > 0).astype(int)
    for X, y in ((X_iris, y_iris), (X_bank, y_bank)):
        B = _threshold_columns(X)
        for leaves in (3, 4, 5):
            ours = solve_numeric(X, y, max_depth=3, max_leaves=leaves)
            ref = pystreed.STreeDClassifier(max_depth=3, max_num_nodes=leaves - 1,
                                            time_limit=60).fit(B, y)
            assert ours.optimal and ours.n_leaves <= leaves
            assert (ours.predict(X) == y).sum() == (ref.predict(B) == y).sum(), leaves
            cart = DecisionTreeClassifier(max_depth=3, max_leaf_nodes=leaves, random_state=0)
            assert (ours.predict(X) == y).sum() >= (cart.fit(X, y).predict(X) == y).sum()


def test_max_leaves_is_checked():
    """A budget that is not a positive integer is one clear error."""
    X, y, w = _random_problem(1, 2, weighted=False)
    for bad in (0, -1, 2.5, "3"):
        with pytest.raises(ValueError, match="max_leaves"):
            solve_numeric(X, y, max_depth=2, max_leaves=bad)


def test_min_leaf_is_binding():
    """The cases above are not trivially unconstrained: the minimum leaf size lowers the
    optimum on most of them."""
    lowered = 0
    for seed in (7, 17, 50, 55, 80, 92, 1, 2, 3, 4):
        X, y, w, n_classes = _min_leaf_problem(seed)
        free = _brute_force(X, y, w, n_classes, 0.0, 2)
        lowered += _brute_force(X, y, w, n_classes, 0.0, 2, 4) < free - 1e-9
    assert lowered >= 5


def test_depth4_matches_brute_force():
    """The same recursion one level deeper, on very small data."""
    for seed in range(4):
        X, y, w = _random_problem(seed + 7, 2 + seed % 2, weighted=seed % 2 == 0, n_max=14,
                                  p_max=2)
        for pen in (0.0, 1.0):
            res = solve_numeric(X, y, sample_weight=w, leaf_penalty=pen, max_depth=4,
                                n_classes=3)
            assert res.score == pytest.approx(_brute_force(X, y, w, 3, pen, 4)), (seed, pen)
            check_tree(res, X, y, w, pen)


def test_depth3_row_subset_equals_slicing():
    """``rows`` on presorted data gives the result of slicing the matrix first."""
    rng = np.random.default_rng(11)
    X = np.round(rng.normal(size=(90, 3)), 1)
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.5)).astype(int)
    y[rng.random(90) < 0.15] ^= 1
    data = NumericData(X)
    mask = rng.random(90) < 0.6
    sliced = solve_numeric(X[mask], y[mask], max_depth=3, leaf_penalty=0.5)
    sub = solve_numeric(data, y, max_depth=3, leaf_penalty=0.5, rows=np.flatnonzero(mask))
    assert sub.score == pytest.approx(sliced.score)
    assert np.array_equal(sub.correct, sub.predict(X[mask]) == y[mask])


def _cart_correct(X, y, depth):
    """Number of training rows sklearn's CART of the given depth classifies correctly."""
    cart = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y)
    return int((cart.predict(X) == y).sum())


@pytest.mark.parametrize("depth", [2, 3, 4])
def test_never_worse_than_cart(depth):
    """Training accuracy at least CART's, exact search or stopped at once."""
    for seed in range(3):
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(150, 4))
        y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(scale=0.7, size=150) > 0).astype(int)
        cart = _cart_correct(X, y, depth)
        stopped = solve_numeric(X, y, max_depth=depth, deadline=Deadline(0))
        assert (stopped.predict(X) == y).sum() >= cart
        if depth == 3:
            exact = solve_numeric(X, y, max_depth=depth)
            assert exact.optimal and (exact.predict(X) == y).sum() >= cart


def test_expired_deadline_is_honest():
    """An expired deadline returns a valid tree, flagged not optimal, whose bound holds."""
    X, y, w = _random_problem(5, 3, weighted=True, n_max=30, p_max=3)
    X = X + np.random.default_rng(0).normal(scale=0.01, size=X.shape)   # more thresholds
    best = _brute_force(X, y, w, 3, 0.5, 3)
    res = solve_numeric(X, y, sample_weight=w, leaf_penalty=0.5, max_depth=3,
                        deadline=Deadline(0), n_classes=3)
    check_tree(res, X, y, w, 0.5)
    assert res.score <= best + 1e-9 <= res.upper_bound + 2e-9
    assert not res.optimal and res.upper_bound > res.score


def test_short_deadline_stops_in_time():
    """A search that needs long stops near its deadline with a bound above its score."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(1500, 8))
    y = (np.sin(3 * X[:, 0]) + X[:, 1] * X[:, 2] + rng.normal(scale=0.8, size=1500) > 0)
    deadline = Deadline(1.0)
    res = solve_numeric(X, y.astype(int), max_depth=4, deadline=deadline)
    assert deadline.elapsed() < 4.0
    assert res.upper_bound >= res.score
    assert (res.predict(X) == y).sum() >= _cart_correct(X, y.astype(int), 4)


def _load_banknote():
    """Banknote from $OPTREES_DATA (skipped when the file is not there)."""
    from optrees import load_dataset

    try:
        X, y = load_dataset("banknote")
    except FileNotFoundError:
        pytest.skip("banknote needs OPTREES_DATA")
    return X.to_numpy(dtype=float), np.unique(y, return_inverse=True)[1]


def _load_breast_cancer_subsample():
    """Every third row and the first ten columns of sklearn's breast-cancer."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    return X[::3, :10], y[::3]


@pytest.mark.parametrize("loader", [_load_breast_cancer_subsample, _load_banknote])
def test_contree_witness_depth3(loader):
    """Same training accuracy as ConTree (an independent exact solver) at depth 3."""
    pycontree = pytest.importorskip("pycontree")
    X, y = loader()
    model = pycontree.ConTree(max_depth=3, time_limit=60).fit(X, y)
    expect = int((model.predict(X) == y).sum())
    res = solve_numeric(X, y, max_depth=3)
    assert res.optimal
    assert int((res.predict(X) == y).sum()) == expect


def test_depth3_degenerate_inputs():
    """Constant columns, one class and an empty subset give a single leaf at depth 3."""
    X, y = np.ones((5, 2)), np.array([0, 1, 1, 0, 1])
    res = solve_numeric(X, y, max_depth=3)
    assert res.n_leaves == 1 and res.score == 3.0 and res.optimal
    res = solve_numeric(np.arange(10.0)[:, None], np.ones(10, int), n_classes=2, max_depth=3)
    assert res.n_leaves == 1 and res.score == 10.0
    res = solve_numeric(X, y, rows=np.zeros(5, dtype=bool), leaf_penalty=1.0, max_depth=3)
    assert res.n_leaves == 1 and res.score == -1.0 and res.correct.size == 0
    assert len(res.feature) == 7 and len(res.label) == 15


@pytest.mark.parametrize(("depth", "budget"), [(3, None), (4, None), (3, 5)])
def test_stopped_bound_holds_and_falls(depth, budget):
    """Stopped at a growing number of deadline checks, the search (with a leaf budget too)
    reports a bound that is never below the optimum and never rises; at depth 3 it falls
    below the trivial bound (every row correct with two leaves) before the search ends, as
    the root takes its intervals best first (feature by feature it stays trivial at the same
    stops)."""
    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(120, 4)), 1)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(scale=0.8, size=120) > 0).astype(int)
    pen = 0.5
    exact = solve_numeric(X, y, max_depth=depth, leaf_penalty=pen, max_leaves=budget)
    assert exact.optimal
    bounds, open_bounds = [], []
    stops = (2, 8, 32, 128, 512, 2048, 8192) if depth == 3 else (2, 32, 512, 8192)
    for checks in stops:
        res = solve_numeric(X, y, max_depth=depth, leaf_penalty=pen, max_leaves=budget,
                            deadline=StopAfter(checks))
        check_tree(res, X, y, np.ones(len(y)), pen)
        assert res.score <= exact.score + 1e-9 <= res.upper_bound + 2e-9
        bounds.append(res.upper_bound)
        if res.optimal:
            assert res.score == pytest.approx(exact.score)
        else:
            open_bounds.append(res.upper_bound)
    assert all(b2 <= b1 + 1e-9 for b1, b2 in zip(bounds, bounds[1:], strict=False))
    assert bounds[-1] == pytest.approx(exact.score)
    if depth == 3:
        assert min(open_bounds) < len(y) - 2 * pen - 1.0


def test_intervals_order():
    """Feature by feature inside the search; highest bound first at the root, where at depth
    4 the first feature goes first."""
    from optrees.trees.search.numeric.search import Intervals

    def order(queue):
        for place, bound in [(0, 5.0), (1, 9.0), (0, 7.0), (2, 8.0)]:
            queue.push(place, place, 0, 1, -1, -1, bound)
        return [queue.pop()[-1] for _ in range(4)]

    assert order(Intervals()) == [5.0, 7.0, 9.0, 8.0]
    assert order(Intervals(True, 3)) == [9.0, 8.0, 7.0, 5.0]
    assert order(Intervals(True, 4)) == [5.0, 7.0, 9.0, 8.0]


def _context(X, y, w, n_classes, pen, min_leaf=1):
    """The deep search's context and its subset of all rows."""
    from optrees.trees.search.numeric.context import Context

    ctx = Context(NumericData(X), y, w, n_classes, pen, 1e-9, "numpy", min_leaf=min_leaf)
    return ctx, ctx.subset(np.ones(len(y), dtype=bool))


def test_coarse_cuts_sit_between_distinct_values():
    """The coarse incumbent's cuts: at most QUANTILE_CUTS per column plus the extra tree's,
    each strictly between two distinct values of its column, none repeated; every cut of a
    column with few values."""
    from optrees.trees.search.numeric.coarse import QUANTILE_CUTS, _cuts
    from optrees.trees.search.numeric.tree import Node

    rng = np.random.default_rng(3)
    X = np.column_stack([rng.normal(size=200), rng.integers(0, 4, 200), np.full(200, 2.0)])
    data = NumericData(X)
    extra = Node(0, 0, 0.123, Node(0), Node(1, 1, 1.5, Node(1), Node(0)))
    feats, cuts = _cuts(X, data.order, extra, 256)
    pairs = list(zip(feats.tolist(), cuts.tolist(), strict=True))
    assert len(set(pairs)) == len(pairs)
    assert (0, 0.123) in pairs and (1, 1.5) in pairs
    assert not any(f == 2 for f in feats)                      # a constant column: no cut
    assert sum(f == 0 for f in feats) <= QUANTILE_CUTS + 1
    assert sorted(t for f, t in pairs if f == 1) == [0.5, 1.5, 2.5]  # every cut of 4 values
    for f, t in pairs:
        assert (X[:, f] <= t).any() and (X[:, f] > t).any()
        assert not np.isin(t, X[:, f])
    feats, _ = _cuts(X, data.order, None, 4)                   # 4 // 3 columns: one cut each
    assert np.bincount(feats).tolist() == [1, 1]


@pytest.mark.parametrize("depth", [3, 4])
def test_coarse_incumbent_is_optimal_over_few_values(depth):
    """With at most QUANTILE_CUTS + 1 values per column the coarse cuts are every threshold,
    so the coarse incumbent is the optimum of the enumeration; its score re-scores."""
    from optrees.trees.search.numeric.coarse import coarse_incumbent
    from optrees.trees.search.numeric.tree import to_heap

    for seed in range(4):
        X, y, w = _random_problem(seed + 30, 2 + seed % 2, weighted=seed % 2 == 1,
                                  n_max=16 if depth == 4 else 24, p_max=2)
        for pen in (0.0, 1.0):
            ctx, sub = _context(X, y, w, 3, pen)
            score, tree = coarse_incumbent(ctx, sub, depth, None)
            assert score == pytest.approx(_brute_force(X, y, w, 3, pen, depth)), (seed, pen)
            feature, threshold, _ = to_heap(tree, depth)
            node = np.ones(len(y), dtype=np.int64)
            for _ in range(depth):
                inner = node <= len(feature)
                f = np.where(inner, feature[np.minimum(node, len(feature)) - 1], -1)
                go = f >= 0
                rows = np.flatnonzero(go)
                node[go] = 2 * node[go] + (X[rows, f[go]] > threshold[node[go] - 1])
            leaves = np.unique(node)
            correct = sum(np.bincount(y[node == k], weights=w[node == k], minlength=3).max()
                          for k in leaves)
            assert score == pytest.approx(correct - pen * len(leaves))


@pytest.mark.parametrize("depth", [3, 4])
def test_stopped_search_keeps_the_late_coarse_incumbent(monkeypatch, depth):
    """A deep search stopped right after the coarse incumbent was computed returns it (CART
    removed here, so nothing else scores as high), with a bound above it.  At depth 3 it is
    computed in the root's depth-2 search and adopted by the loop; at depth 4 in the first
    step, and adopted after the stop."""
    import optrees.trees.search.numeric.entry as numeric_solver
    from optrees.trees.search.numeric.coarse import coarse_incumbent
    from optrees.trees.search.numeric.context import Interrupted

    rng = np.random.default_rng(4)
    X = rng.random((300, 3))
    y = ((X[:, 0] > 0.5) ^ (X[:, 1] > 0.5) ^ (X[:, 2] > 0.5)).astype(int)   # parity of 3
    ctx, sub = _context(X, y, np.ones(300), 2, 0.0)
    expect = coarse_incumbent(ctx, sub, depth, None)[0]
    # above the depth-2 optimum, which the depth-3 search computes first
    assert expect > solve_numeric(X, y, max_depth=2).score + 30

    def stop(self, *args):
        self.ctx.check()                                        # the late incumbent fires
        raise Interrupted

    monkeypatch.setattr(numeric_solver, "COARSE_AFTER", 0.0)
    monkeypatch.setattr(numeric_solver, "cart_incumbent", lambda *a, **k: None)
    monkeypatch.setattr(numeric_solver.NodeSearch, "_step", stop)
    res = solve_numeric(X, y, max_depth=depth, deadline=Deadline(60), backend="numpy")
    assert res.score == pytest.approx(expect)
    assert res.upper_bound >= res.score and not res.optimal


@pytest.mark.parametrize("depth", [3, 4])
def test_late_coarse_incumbent_keeps_the_optimum(monkeypatch, depth):
    """Adopted in the middle of a search (at its first check), the coarse incumbent changes
    no optimum: weights, penalties, values finer than the coarse cuts."""
    import optrees.trees.search.numeric.entry as numeric_solver

    monkeypatch.setattr(numeric_solver, "COARSE_AFTER", 0.0)
    for seed in range(6 if depth == 3 else 3):
        X, y, w = _random_problem(seed + 70, 2 + seed % 2, weighted=seed % 2 == 0,
                                  n_max=24 if depth == 3 else 13, p_max=2)
        X = X + np.random.default_rng(seed).integers(0, 4, X.shape) * 0.1   # 20+ values
        for pen in (0.0, 1.0):
            res = solve_numeric(X, y, sample_weight=w, leaf_penalty=pen, max_depth=depth,
                                n_classes=3, deadline=Deadline(60))
            assert res.optimal
            assert res.score == pytest.approx(_brute_force(X, y, w, 3, pen, depth)), (seed, pen)
            check_tree(res, X, y, w, pen)


@pytest.mark.parametrize(("depth", "budget", "min_leaf"), [(3, 5, 5), (4, 5, 8), (3, None, 5)])
def test_stopped_bound_is_never_above_every_row_correct(depth, budget, min_leaf):
    """A stopped search's bound is at most what any split tree can score (every row correct,
    at least two leaves) unless its own tree is a leaf, and never below the optimum: with a
    leaf budget and a minimum leaf size it once reported twice the rows (the children's
    bounds each took the parent's weight)."""
    rng = np.random.default_rng(5)
    n = 150 if depth == 3 else 70
    X = np.round(rng.normal(size=(n, 4)), 1)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(scale=0.8, size=n) > 0).astype(int)
    pen = 0.5
    exact = solve_numeric(X, y, max_depth=depth, leaf_penalty=pen, max_leaves=budget,
                          min_leaf=min_leaf)
    for checks in (1, 4, 16, 64, 256):
        res = solve_numeric(X, y, max_depth=depth, leaf_penalty=pen, max_leaves=budget,
                            min_leaf=min_leaf, deadline=StopAfter(checks))
        assert res.upper_bound <= max(res.score, len(y) - 2 * pen) + 1e-9
        assert res.upper_bound >= exact.score - 1e-9
