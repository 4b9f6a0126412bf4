"""The regression search over every threshold against its definitions (the
``regression-search`` mutation group, ``bench/mutation.py``).

A leaf costs the weighted sum of squared deviations of its rows from their weighted mean
(plus the leaf penalty); a tree of depth <= d costs the sum of its leaves.  Every oracle here
is plain numpy: the leaf cost, the enumeration of every tree over every midpoint threshold of
tiny data, the least SSE of 1-D groups (k-means) from the sorted targets, and the deadline
checks counted from the blocks the modules document.  Each test names the mutants it kills.
"""

from __future__ import annotations

import numpy as np
import pytest
from deadlines import CountedDeadline, until_after
from oracles import enumerate_best, leaf_sizes, sse

from optrees.solvers.deadline import Deadline
from optrees.trees.search.regression import RegressionData, kernels, search_tree
from optrees.trees.search.regression import dense as dense_module
from optrees.trees.search.regression import depth2_front as depth2_front_module
from optrees.trees.search.regression import search as search_module
from optrees.trees.search.regression.segments import NUMPY_LIMIT, segment_costs


# ---------------------------------------------------------------------------- the oracle
def stats(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    return np.stack([w, w * y, w * y * y], axis=1)


def leaf_cost(S: np.ndarray) -> np.ndarray:
    """SSE of leaves with summed ``(w, w y, w y^2)``: ``S_wy2 - S_wy^2 / S_w``."""
    w = S[..., 0]
    explained = np.divide(S[..., 1] ** 2, w, out=np.zeros(w.shape), where=w > 0)
    return np.maximum(S[..., 2] - explained, 0.0)


def nested_cost(tree, X, y, w, pen) -> float:
    """``SSE + pen`` summed over the leaves of a nested tree (as the search returns it)."""
    if tree is None:
        return sse(y, w) + pen
    f, t, left, right = tree
    go = X[:, f] <= t
    return (nested_cost(left, X[go], y[go], w[go], pen)
            + nested_cost(right, X[~go], y[~go], w[~go], pen))


def uses(tree, feature: int) -> bool:
    return tree is not None and (tree[0] == feature or uses(tree[2], feature)
                                 or uses(tree[3], feature))


def kmeans(y: np.ndarray, w: np.ndarray, k: int) -> float:
    """Least SSE of the rows in at most ``k`` groups: in one dimension some optimal groups
    are runs of the sorted targets, so every choice of ``k - 1`` cuts is tried."""
    from itertools import combinations

    order = np.argsort(y, kind="stable")
    y, w = y[order], w[order]
    n = len(y)
    best = sse(y, w)
    for g in range(2, k + 1):
        for cuts in combinations(range(1, n), g - 1):
            edges = (0, *cuts, n)
            best = min(best, sum(sse(y[a:b], w[a:b]) for a, b in zip(edges, edges[1:],
                                                                      strict=False)))
    return best


def data_of(X, y, w, pen=0.0, min_leaf=1, kernel=None, segments=None) -> RegressionData:
    return RegressionData(X, stats(y, w), leaf_cost, pen, min_leaf, kernel, segments)


# ------------------------------------------------------------------ the k-means floors
def test_a_subset_of_segment_rows_gets_its_floors_priced_per_leaf():
    """``floors``: none below ``SEGMENT_ROWS`` rows, from ``SEGMENT_ROWS`` on the least SSE
    of the rows in at most k groups plus ``penalty * k``.  Kills ``< SEGMENT_ROWS`` -> ``<=``
    and the penalty subtracted (``costs - penalty * k``)."""
    n = search_module.SEGMENT_ROWS
    rng = np.random.default_rng(4)
    y = np.repeat([0.0, 1.0, 3.0, 7.0], n // 4) + rng.normal(size=n) * 0.3
    w = rng.integers(1, 4, n).astype(float)
    X = rng.normal(size=(n, 2))
    pen = 0.25
    data = data_of(X, y, w, pen, segments=segment_costs)
    search = search_module.RegressionSearch(data)
    floors = search.floors(data.root(), 2)
    assert floors is not None and floors.shape == (4,)
    want = [kmeans(y, w, k) + pen * k for k in range(1, 5)]
    np.testing.assert_allclose(floors, want, atol=1e-8)
    assert search.floors(data.root()[:, :n - 1], 2) is None  # one row fewer: none


def test_a_row_of_weight_zero_does_not_count_against_the_numpy_limit():
    """A row of weight 0 is not a row of the k-means programme: ``NUMPY_LIMIT`` rows of
    weight and a few of none still get the bound.  Kills ``S[:, 0] > 0`` -> ``>= 0``."""
    y = np.repeat([0.0, 1.0], NUMPY_LIMIT // 2).astype(float)
    w = np.ones(len(y))
    y = np.concatenate([y, [5.0, 9.0]])
    w = np.concatenate([w, [0.0, 0.0]])
    got = segment_costs(stats(y, w), 2, compiled=False)
    assert got is not None
    np.testing.assert_allclose(got, [NUMPY_LIMIT / 4, 0.0], atol=1e-8)


def test_a_search_stopped_at_once_reports_the_priced_floors_as_its_bound():
    """Stopped before it starts, the search returns its start and the least of
    ``floors[k - 1] + penalty * k`` (no tree of k leaves is cheaper) as the bound.  Kills the
    floors priced with ``penalty / k``."""

    class Expired(Deadline):
        def expired(self) -> bool:
            return True

    rng = np.random.default_rng(9)
    n = 9
    X = rng.integers(0, 3, size=(n, 2)).astype(float)
    y = np.array([0, 0, 0, 5, 5, 5, 9, 9, 9.0]) + rng.normal(size=n) * 0.1
    w = np.ones(n)
    pen = 0.5
    floors = np.array([kmeans(y, w, k) for k in range(1, 5)])
    start = (sse(y, w) + pen, None)  # the single leaf
    found = search_tree(data_of(X, y, w, pen), 2, Expired(), start, floors=floors)
    want = min(start[0], float(np.min(floors + pen * np.arange(1, 5))))
    assert not found.optimal and found.tree is None and found.cost == start[0]
    assert found.bound == pytest.approx(want, abs=1e-12)
    assert want > pen * 2  # above what the floors without penalties would give


# ----------------------------------------------------------------- the start (CART's)
def swapped(tree):
    """The same tree with columns 0 and 1 exchanged."""
    if tree is None:
        return None
    f, t, left, right = tree
    return (1 - f, t, swapped(left), swapped(right))


@pytest.mark.parametrize("depth", [2, 3])
def test_the_tree_returned_does_not_depend_on_the_start_among_ties(depth):
    """Two copies of a column: every tree on the second copy ties with one on the first.
    The search looks a little above its start's cost (``TIE_SLACK``), so it returns the
    tree its own order finds, whichever copy the start used.  Kills the slack subtracted
    (the start is then returned as it came)."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, 12).astype(float)
    X = np.column_stack([x, x])
    y = 2 * x + rng.normal(size=12) * 0.3
    w = rng.integers(1, 3, 12).astype(float)
    pen = 0.1
    first = search_tree(data_of(X, y, w, pen), depth)
    assert not uses(first.tree, 1)
    for start in (first.tree, swapped(first.tree)):
        cost = nested_cost(start, X, y, w, pen)
        found = search_tree(data_of(X, y, w, pen), depth, incumbent=(cost, start))
        assert found.optimal and found.cost == pytest.approx(cost, abs=1e-12)
        assert found.tree == first.tree


@pytest.mark.parametrize("seed,checks", [(1, 2), (28, 2), (108, 1), (119, 1)])
def test_a_stopped_search_never_returns_a_tree_worse_than_its_start(seed, checks):
    """Near ties (a row of weight 1e-11..1e-9 moves a tree's cost by less than
    ``TIE_SLACK``): the search, started from the optimum and stopped after a few splits,
    may have found a tree within the slack above the start; it must return the start.
    Kills ``cost > start + GAIN`` -> ``cost > start / GAIN``."""
    rng = np.random.default_rng(seed)
    n = 8
    X = rng.integers(0, 4, size=(n, 2)).astype(float)
    y = rng.normal(size=n)
    w = rng.integers(1, 3, n).astype(float)
    w[rng.integers(n)] = 10 ** rng.uniform(-11, -9)
    pen = 0.05
    best = search_tree(data_of(X, y, w, pen), 2)
    assert best.optimal
    assert best.cost == pytest.approx(enumerate_best(X, y, w, 2, pen), abs=1e-12)
    for stop in range(checks + 2):
        found = search_tree(data_of(X, y, w, pen), 2, CountedDeadline(stop),
                            (best.cost, best.tree))
        assert found.cost <= best.cost + 1e-12
        assert nested_cost(found.tree, X, y, w, pen) == pytest.approx(found.cost, abs=1e-12)


# ------------------------------------------------------------- blocks and the deadline
@pytest.mark.skipif(not kernels.available(), reason="numba is not installed")
@pytest.mark.parametrize("per_call", [1, 2, 3])
def test_a_depth2_front_checks_the_deadline_once_per_block_of_features(per_call,
                                                                      monkeypatch):
    """``BLOCK_WORK`` inner steps (``F m^2`` per root feature) per compiled call, the
    deadline checked before each: ``ceil(F / per_call)`` checks for blocks of ``per_call``
    features.  Kills ``BLOCK_WORK // (F m m)`` -> ``BLOCK_WORK - (F m m)``."""
    rng = np.random.default_rng(3)
    n, F = 12, 5
    X = rng.integers(0, 4, size=(n, F)).astype(float)
    y = rng.normal(size=n)
    w = np.ones(n)
    monkeypatch.setattr(kernels, "BLOCK_WORK", per_call * F * n * n)
    deadline = CountedDeadline(100)
    data = data_of(X, y, w, kernel=kernels)
    front = depth2_front_module.depth2_front(data, data.root(), 1, deadline)
    assert 100 - deadline.left == -(-F // per_call)
    assert front.limited[3] == pytest.approx(enumerate_best(X, y, w, 2, 0.0), abs=1e-9)


def test_the_dense_kernel_takes_root_positions_in_blocks_of_block_numbers(monkeypatch):
    """At most ``BLOCK // (F m (k+1))`` root positions per block (``k+1`` statistics with
    the row count), so memory stays a few times ``BLOCK``; the answer is the enumerated
    optimum.  Kills ``BLOCK // (...)`` -> ``BLOCK - (...)`` (one block of every position)."""
    rng = np.random.default_rng(5)
    n, F = 14, 3
    X = rng.integers(0, 6, size=(n, F)).astype(float)
    y = X[:, 0] * X[:, 1] + rng.normal(size=n) * 0.2
    w = rng.integers(1, 3, n).astype(float)
    per_block = 2
    monkeypatch.setattr(dense_module, "BLOCK", per_block * F * n * 4)
    seen = []
    real = dense_module._best_stump

    def spy(data, prefix, total, between, min_leaf):
        seen.append(prefix.shape[0])
        return real(data, prefix, total, between, min_leaf)

    monkeypatch.setattr(dense_module, "_best_stump", spy)
    data = data_of(X, y, w, 0.05)
    cost, _, tree = dense_module.depth2(data, data.root(), 1)
    assert seen and max(seen) <= per_block
    assert cost == pytest.approx(enumerate_best(X, y, w, 2, 0.05), abs=1e-9)
    assert nested_cost(tree, X, y, w, 0.05) == pytest.approx(cost, abs=1e-9)


@pytest.mark.skipif(not kernels.available(), reason="numba is not installed")
@pytest.mark.parametrize("per_call", [1, 2, 3])
def test_a_single_fits_depth2_checks_the_deadline_once_per_block_of_features(per_call,
                                                                          monkeypatch):
    """The pruned single-penalty kernel takes ``BLOCK_WORK // (F m^2)`` root features a
    call, the deadline checked before each: ``ceil(F / per_call)`` checks, and the blocks
    together give the enumerated optimum (the start, made in the first block, carried
    through the rest).  Kills ``BLOCK_WORK // (F m m)`` -> ``BLOCK_WORK - (F m m)``, the
    blocks' ends swapped and the start remade in every block."""
    rng = np.random.default_rng(13)
    n, F = 12, 5
    X = rng.integers(0, 4, size=(n, F)).astype(float)
    y = 3 * X[:, 0] + X[:, 1] + rng.normal(size=n) * 0.3  # the root on the first block's
    w = rng.integers(1, 3, n).astype(float)
    monkeypatch.setattr(kernels, "BLOCK_WORK", per_call * F * n * n)
    deadline = CountedDeadline(100)
    data = data_of(X, y, w, 0.1, 1, kernels)
    cost, _, tree = kernels.depth2_bounded(data, data.root(), 1, deadline)
    assert 100 - deadline.left == -(-F // per_call)
    assert cost == pytest.approx(enumerate_best(X, y, w, 2, 0.1), abs=1e-9)
    assert nested_cost(tree, X, y, w, 0.1) == pytest.approx(cost, abs=1e-9)


# ------------------------------------------------------------- the fronts' memo (λ-path)
@pytest.mark.skipif(not kernels.available(), reason="numba is not installed")
def test_compiled_depth2_subproblems_are_fronts_shared_by_every_penalty(monkeypatch):
    """With the compiled kernels a depth-2 subproblem is a front of leaf counts, kept per
    row subset in ``data.memo``: a second search over the same rows at another penalty
    (a λ-path) computes no front again here, and both give the enumerated optimum.  Kills the
    front's size test ``(m F)^2 <= KERNEL_LIMIT`` -> ``==`` (no front ever computed)."""
    rng = np.random.default_rng(12)
    n = 11
    X = rng.integers(0, 4, size=(n, 2)).astype(float)
    y = X[:, 0] - X[:, 1] ** 2 + rng.normal(size=n) * 0.3
    w = rng.integers(1, 3, n).astype(float)
    computed = []
    real = depth2_front_module._compute

    def spy(data, order, min_leaf, deadline):
        computed.append(order.shape[1])
        return real(data, order, min_leaf, deadline)

    monkeypatch.setattr(depth2_front_module, "_compute", spy)
    memo: dict = {}
    for pen, fronts in ((0.1, True), (0.6, False)):
        data = RegressionData(X, stats(y, w), leaf_cost, pen, 1, kernels, None, memo,
                              fronts=True)
        found = search_tree(data, 3)
        assert found.optimal
        assert found.cost == pytest.approx(enumerate_best(X, y, w, 3, pen), abs=1e-9)
        assert nested_cost(found.tree, X, y, w, pen) == pytest.approx(found.cost, abs=1e-9)
        assert bool(computed) == fronts  # the second search reads the first one's fronts
        computed.clear()
    assert memo


# ------------------------------------------------------------ the k-means programme
@pytest.mark.parametrize("seed", range(6))
def test_the_divide_and_conquer_layers_run_as_plain_python_are_the_best_runs(seed):
    """``segments._layers`` (the compiled programme's source) run by Python, so that every
    index is checked: ``D_k(m)`` for ``k = 1..k_max`` is the least SSE of the sorted rows in
    ``k`` runs (inf for more runs than rows), from prefix sums of ``(w, w y, w y^2)`` built
    here.  Kills ``range(m + 1)`` -> ``range(m + 2)`` for the first layer (compiled, a read
    and a write past the arrays' ends that happened to change nothing)."""
    from optrees.trees.search.regression import segments

    layers = getattr(segments._layers, "py_func", segments._layers)
    rng = np.random.default_rng(seed)
    n = 2 + seed
    y = np.sort(rng.integers(0, 5, n).astype(float) + rng.normal(size=n) * 0.1)
    w = rng.integers(1, 4, n).astype(float)
    prefix = np.vstack([np.zeros(3), np.cumsum(stats(y, w), axis=0)])
    k_max = 4
    got = layers(*(np.ascontiguousarray(prefix[:, c]) for c in range(3)), k_max)
    want = [kmeans(y, w, k) if k <= n else np.inf for k in range(1, k_max + 1)]
    np.testing.assert_allclose(got, want, atol=1e-9)


# ------------------------------------------------------------------ one interval step
def test_an_interval_whose_bound_reaches_the_incumbent_is_closed_unsolved():
    """``step`` pops the last open interval; when its bound (``max(free_left + free_right,
    floor)``) is at least the incumbent's cost it closes it without solving a split, else
    it solves the middle split and pushes the two halves.  Kills ``cost - TOLERANCE`` ->
    ``cost / TOLERANCE`` (no interval of a subproblem was ever closed by its bound: the
    same answers, every split solved)."""
    rng = np.random.default_rng(2)
    n = 10
    X = rng.integers(0, 5, size=(n, 2)).astype(float)
    y = rng.normal(size=n)
    w = np.ones(n)
    pen = 0.1
    data = data_of(X, y, w, pen)
    search = search_module.RegressionSearch(data)
    order = data.root()
    leaf = sse(y, w) + pen
    box = search.intervals(order, 0, 1)
    positions = len(box.positions)
    assert box.stack == [(0, positions - 1)] and positions >= 3
    # a floor above the incumbent: closed, nothing solved
    cost, tree = search.step(order, 2, 1, box, leaf, None, leaf + 1.0)
    assert (cost, tree) == (leaf, None) and box.stack == [] and search.evaluations == 0
    assert box.done == []
    # the floor below it: the middle split is solved and the two halves pushed
    box = search.intervals(order, 0, 1)
    cost, tree = search.step(order, 2, 1, box, leaf, None, 2 * pen)
    k = (positions - 1) // 2
    assert search.evaluations == 1 and box.done == [int(box.positions[k])]
    assert sorted(box.stack) == sorted([(0, k - 1), (k + 1, positions - 1)])
    assert cost <= leaf and nested_cost(tree, X, y, w, pen) == pytest.approx(cost)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_limited_search_first_searches_its_start_s_root_subtrees(seed, monkeypatch):
    """Under a time limit the start's root split gets its subtrees searched first (in a
    share of the time, here ample): stopped right after, the search returns the
    definition's least of the best stump and that root with each side's best depth-2 tree,
    enumerated here over every midpoint, which beats the start and the stump here."""
    rng = np.random.default_rng(seed)
    n, pen = 18, 0.05
    X = rng.integers(0, 6, size=(n, 2)).astype(float)
    y = np.sin(X[:, 0]) + X[:, 1] % 3 + rng.normal(size=n) * 0.2
    w = rng.integers(1, 3, n).astype(float)
    t = 3.5  # not the middle position, which the search would solve first anyway
    start = (0, t, None, None)
    left = X[:, 0] <= t
    rooted = (enumerate_best(X[left], y[left], w[left], 2, pen)
              + enumerate_best(X[~left], y[~left], w[~left], 2, pen))
    expected = min(enumerate_best(X, y, w, 1, pen), rooted)
    assert rooted < enumerate_best(X, y, w, 1, pen) - 1e-9  # the root's subtrees matter
    stop = until_after(monkeypatch, search_module, "_improved_root")
    found = search_tree(data_of(X, y, w, pen), 3, stop,
                        incumbent=(nested_cost(start, X, y, w, pen), start))
    assert not found.optimal
    assert found.cost == pytest.approx(expected, abs=1e-9)
    assert nested_cost(found.tree, X, y, w, pen) == pytest.approx(found.cost, abs=1e-9)
    assert found.bound <= enumerate_best(X, y, w, 3, pen) + 1e-9


# ------------------------------------------------- the pruned compiled depth-2 search
@pytest.mark.skipif(not kernels.available(), reason="numba is not installed")
@pytest.mark.parametrize("seed", range(8))
def test_the_pruned_depth2_kernel_is_the_enumerated_optimum_and_its_free_one(seed):
    """A single fit's depth-2 subproblem (``depth2_bounded``): the least ``SSE + pen *
    leaves`` with ``min_leaf`` rows per leaf, its tree costing that and keeping the limit,
    and the free cost, the optimum without the limit (the bound for supersets).  Repeated
    values and integer weights make ties.  Kills the interval bounds swapped or taken from
    the wrong neighbour, the start (leaf or stump) dropped, and the free cost taken from
    the limited children."""
    kernels.jit()  # the machine code users run
    rng = np.random.default_rng(40 + seed)
    n, F = int(rng.integers(8, 15)), int(rng.integers(1, 4))
    X = rng.integers(0, 5, size=(n, F)).astype(float)
    y = X[:, 0] * rng.normal() + rng.normal(size=n) * np.where(rng.random(n) < 0.2, 4, 1)
    y *= (1.0, 0.01)[seed % 2]  # small costs: the free optimum just below the limited one
    w = rng.integers(1, 4, n).astype(float)
    for pen in (0.0, 0.4 * np.var(y), 50 * np.var(y) * n):  # the last: one leaf is best
        for min_leaf in (1, 2, 3):
            data = data_of(X, y, w, pen, min_leaf, kernels)
            cost, free, tree = kernels.depth2_bounded(data, data.root(), min_leaf)
            assert cost == pytest.approx(enumerate_best(X, y, w, 2, pen, min_leaf), abs=1e-9)
            assert free == pytest.approx(enumerate_best(X, y, w, 2, pen, 1), abs=1e-9)
            assert nested_cost(tree, X, y, w, pen) == pytest.approx(cost, abs=1e-9)
            assert min(leaf_sizes(tree, X)) >= min_leaf


@pytest.mark.skipif(not kernels.available(), reason="numba is not installed")
def test_the_pruned_depth2_kernel_skips_most_root_positions(monkeypatch):
    """On 80 rows with one clear structure the interval bounds close most root positions:
    the children are costed at fewer than a tenth of the ``F (m - 1)`` root splits (18 of
    237 from the greedy start, 27 without it), and the answer is the enumerated optimum.
    Kills the pruning test dropped (``continue`` never reached), the bounds not passed on
    to the halves (``penalty`` kept) and the greedy start left out."""
    rng = np.random.default_rng(9)
    n, F = 80, 3
    X = rng.normal(size=(n, F))
    y = np.where(X[:, 0] > 0.3, 3.0, 0.0) + np.where(X[:, 1] > -0.2, 1.0, 0.0) \
        + rng.normal(size=n) * 0.05
    w = np.ones(n)
    kernels.jit()
    calls = []
    real = kernels._sides

    def counted(*args):
        calls.append(args[5])
        return real(*args)

    monkeypatch.setattr(kernels, "_sides", counted)
    data = data_of(X, y, w, kernel=kernels)
    best = np.empty(6)
    kernels._depth2_bounded.py_func(data.X, data.stats, data.root(), data._rank, 1, 0.0,
                                    1e-12, 0, F, best)
    assert best[0] == pytest.approx(enumerate_best(X, y, w, 2, 0.0), abs=1e-9)
    assert 0 < len(calls) < F * (n - 1) / 10


@pytest.mark.skipif(not kernels.available(), reason="numba is not installed")
def test_a_single_fit_solves_each_depth2_subset_once_per_penalty(monkeypatch):
    """At depth 4 the same depth-2 subset is met along several paths: the pruned kernel runs
    once per subset and leaf size, the rest read ``data.memo``; a memo shared with another
    penalty answers for that penalty (the key holds it).  Both at the enumerated optimum.
    Kills the memo dropped and the penalty left out of its key."""
    kernels.jit()
    rng = np.random.default_rng(6)
    n = 10
    X = rng.integers(0, 3, size=(n, 2)).astype(float)
    y = X[:, 0] * 2 - X[:, 1] + rng.normal(size=n) * 0.5
    w = np.ones(n)
    keys = []
    real = depth2_front_module.depth2_bounded

    def spy(data, order, min_leaf, deadline):
        keys.append((order[0].tobytes(), min_leaf, data.penalty))
        return real(data, order, min_leaf, deadline)

    monkeypatch.setattr(depth2_front_module, "depth2_bounded", spy)
    memo: dict = {}
    for pen in (0.05, 0.8):
        data = RegressionData(X, stats(y, w), leaf_cost, pen, 1, kernels, None, memo)
        found = search_tree(data, 4)
        assert found.cost == pytest.approx(enumerate_best(X, y, w, 4, pen), abs=1e-9)
        assert nested_cost(found.tree, X, y, w, pen) == pytest.approx(found.cost, abs=1e-9)
    assert keys and len(keys) == len(set(keys))
    assert {k[2] for k in keys} == {0.05, 0.8}
