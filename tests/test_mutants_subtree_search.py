"""Tests that kill mutants of the 0/1 subtree search's bounds and pruning, of its depth-2
kernel and of its root loop (search/binary/search.py, counts.py, roots.py; ``bench/mutation.py
subtree-search`` and ``subtree-roots``, docs/testing.md) which test_subtrees.py and
test_parallel_search.py let live.  Oracles: the leaf-support bound and the
best leaf written from their definitions in numpy, and the enumeration of every tree
(``oracles.py``; the split-penalty optimum at lam = L / (1 + L), rescaled).  Some instances
were found by trying seeds under a mutant (docs/testing.md)."""

from __future__ import annotations

import numpy as np
import pytest
from oracles import exhaustive_objective

from optrees.trees.search.binary import solve_subtree
from optrees.trees.search.binary.data import BinaryData
from optrees.trees.search.binary.search import Search


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
@pytest.mark.parametrize("L", [0.0, 1.0, 3.0])
def test_a_search_that_cannot_beat_its_lower_bound_returns_the_leaf_support_bound(depth, L):
    """A subtree's value is at most its best leaf or the weight of its rows minus two leaf
    penalties (OSDT's leaf-support bound, the module's docstring): when the caller's lower
    bound is above that, the search stops at once with the best leaf and exactly that bound
    (a looser or tighter number would be a wrong certificate)."""
    rng = np.random.default_rng(depth)
    X, y = rng.integers(0, 2, (30, 4)), rng.integers(0, 3, 30)
    w = rng.integers(1, 4, 30).astype(float)
    leaf = np.bincount(y, weights=w).max() - L
    support = max(leaf, w.sum() - 2 * L)
    sol = solve_subtree(X, y, depth, L, sample_weight=w, lower_bound=support + 1.0)
    assert not sol.optimal
    assert sol.score == pytest.approx(leaf) and sol.bound == pytest.approx(support)
    capped = solve_subtree(X, y, depth, L, sample_weight=w, lower_bound=support + 1.0,
                           upper_bound=support - 0.5)
    assert capped.bound == pytest.approx(max(leaf, support - 0.5))


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_data_without_features_gives_the_best_leaf(backend):
    """No column to split on: the best leaf, optimal (the depth-2 kernel's ``F == 0`` exit;
    ``F < 0`` reaches an argmax over no feature)."""
    X = np.zeros((5, 0), dtype=int)
    y = np.array([0, 1, 1, 0, 1])
    for depth in (1, 2, 3):
        sol = solve_subtree(X, y, depth, 0.5, backend=backend)
        assert sol.optimal and sol.score == pytest.approx(3 - 0.5)
        assert np.all(sol.tree.split == -1)


def _instance(seed: int, n=(10, 40)):
    """Random 0/1 data (y = x0 xor x1, or 1 with probability 0.3), depth 3 or 4, a leaf
    budget on even seeds, a leaf penalty L; and the enumeration's optimum."""
    rng = np.random.default_rng(seed)
    rows, F = int(rng.integers(*n)), int(rng.integers(3, 7))
    X = rng.integers(0, 2, (rows, F))
    y = ((X[:, 0] ^ X[:, 1]) | (rng.random(rows) < 0.3)).astype(int)
    depth = int(rng.integers(3, 5))
    budget = None if seed % 2 else int(rng.integers(2, 2**depth))
    return rng, X, y, depth, budget


def _best(X, y, depth, L, budget):
    lam = L / (1.0 + L)  # correct - L * leaves = split-penalty optimum / (1 - lam) - L
    return exhaustive_objective(X, y, 2, depth, lam, max_leaves=budget) / (1.0 - lam) - L


def test_a_budgeted_search_certifies_its_optimum():
    """A leaf budget at depth 4 (found by trying seeds): the best tree and a bound equal to
    it.  Kills ``r0.upper + u1`` -> ``r0.upper * u1`` in the budgeted branch's pruning
    (it drops a split of the budget it had to keep, and the bound stays open)."""
    rng, X, y, depth, budget = _instance(14)
    L = float(rng.choice([0.0, 0.5, 1.5, 3.0]))
    best = _best(X, y, depth, L, budget)
    sol = solve_subtree(X, y, depth, L, max_leaves=budget)
    assert sol.optimal and sol.score == pytest.approx(best) and sol.bound == pytest.approx(best)


@pytest.mark.parametrize("seed", range(8))
def test_searches_sharing_a_cache_end_at_the_optimum(seed):
    """Three searches that give up early (lower bounds 95 %, 85 %, 70 % of the rows) fill one
    cache with bounds; the full search then returns the enumeration's optimum with an equal
    bound.  Kills the budgeted branch storing an open bound as exact (``bound <= best`` ->
    ``>=``) and a cache-pruned feature ending the loop (``continue`` -> ``break``)."""
    rng, X, y, depth, budget = _instance(seed, n=(15, 50))
    L = float(rng.choice([0.0, 0.5, 1.5]))
    search = Search(BinaryData.make(X, y), L)
    rows = np.arange(len(y))
    for share in (0.95, 0.85, 0.7):
        search.solve(rows, depth, lower=share * len(y), budget=budget)
    res = search.solve(rows, depth, budget=budget)
    best = _best(X, y, depth, L, budget)
    assert res.value == pytest.approx(best) and res.upper == pytest.approx(best)


@pytest.mark.parametrize("seed", [11, 53])
def test_nested_columns_keep_the_similarity_bound_valid(seed):
    """Columns 1 and 2 nested in column 0 (x1 = x0 and x1', x2 = x1 and x2'): a feature's
    side is then a subset of an earlier one's, with no weight in their difference.  The
    similarity bound (a side's value is at most the earlier side's bound plus the weight of
    the difference, MurTree 4.6) must add that weight: ``ub + A`` -> ``ub * A`` makes it 0
    and prunes the optimum (instances found by trying seeds)."""
    rng = np.random.default_rng(seed)
    n, F = int(rng.integers(10, 40)), int(rng.integers(4, 7))
    X = rng.integers(0, 2, (n, F))
    X[:, 1] = X[:, 0] & X[:, 1]
    X[:, 2] = X[:, 1] & X[:, 2]
    y = ((X[:, 2] ^ X[:, 3]) | (rng.random(n) < 0.2)).astype(int)
    depth = int(rng.integers(3, 5))
    L = float(rng.choice([0.0, 0.5, 1.5, 3.0]))
    best = _best(X, y, depth, L, None)
    sol = solve_subtree(X, y, depth, L)
    assert sol.optimal and sol.score == pytest.approx(best)


def _weighted_best(X, y, w, K, depth, L, budget=None):
    """Max of weighted correct - L * leaves (the enumeration's accuracy objective scaled by
    the total weight)."""
    W = float(w.sum())
    return exhaustive_objective(X, y, K, depth, L / W, penalty="leaves", sample_weight=w,
                                max_leaves=budget) * W


@pytest.mark.parametrize("seed", [743, 895])
def test_a_pruned_features_side_bounds_stay_on_their_sides(seed):
    """Skewed columns copied with a few rows flipped, depth 3 in Python (``_branch``): a
    feature pruned after its side 0 leaves side 1 a bound that a near copy's side 1 reads
    through the similarity bound.  Kills ``ub[0, j] = r0.upper`` -> ``ub[-1, j]`` (side 0's
    value as side 1's bound prunes the optimum; seeds found by trying seeds under it)."""
    rng = np.random.default_rng(seed)
    n, nb = int(rng.integers(10, 30)), int(rng.integers(2, 4))
    base = (rng.random((n, nb)) < rng.uniform(0.5, 0.9, nb)).astype(int)
    F = int(rng.integers(3, 7))
    cols = []
    for j in range(F):
        col = base[:, j % nb].copy()
        col[rng.choice(n, int(rng.integers(0, 4)), replace=False)] ^= 1
        cols.append(col)
    X = np.stack(cols, 1)[:, rng.permutation(F)]
    K = int(rng.integers(2, 4))
    y = (base @ rng.integers(0, 3, nb) + (rng.random(n) < 0.3) * rng.integers(0, K, n)) % K
    w = np.ones(n) if seed % 2 else rng.uniform(0.2, 2, n)
    L = float(rng.choice([0.0, 0.3, 1.0]))
    res = Search(BinaryData.make(X, y, w, K), L, "numpy").solve(np.arange(n), 3)
    best = _weighted_best(X, y, w, K, 3, L)
    assert res.value == pytest.approx(best) and res.upper == pytest.approx(best)


def _negative_leaf(seed: int):
    """Skewed 0/1 columns, 4-8 balanced classes and a leaf penalty above the largest class
    weight ``top``: the leaf's value ``top - L`` is negative."""
    rng = np.random.default_rng(seed)
    n, F, K = int(rng.integers(16, 36)), int(rng.integers(3, 6)), int(rng.integers(4, 9))
    X = (rng.random((n, F)) < rng.uniform(0.6, 0.95, F)).astype(int)
    y = rng.integers(0, K, n)
    w = np.ones(n) if seed % 2 else rng.uniform(0.2, 2, n)
    top = np.bincount(y, weights=w, minlength=K).max()
    L = top + float(rng.random()) * max(w.sum() - 2 * top, 0.0)
    depth = int(rng.integers(3, 5))
    return rng, X, y, w, K, L, depth, top


@pytest.mark.parametrize("seed", [7, 32, 77])
def test_a_search_proves_a_leaf_of_negative_value(seed):
    """As below without a leaf budget: a tree of b leaves scores at most b (top - L), below
    the leaf.  The root loop must prune a feature at the incumbent (``floor``), not at 0:
    kills the cheap test read as ``u0 + u1 <= floor * tol`` in ``Roots.step``, which prunes a
    feature whose a priori bound lies in (leaf, 0] and keeps that bound, so the optimal leaf
    is returned with ``optimal`` False (seeds found by trying seeds under it: 20 of 300)."""
    _, X, y, w, K, L, depth, top = _negative_leaf(seed)
    assert top - L < 0
    assert _weighted_best(X, y, w, K, depth, L) == pytest.approx(top - L)
    sol = solve_subtree(X, y, depth, L, sample_weight=w, n_classes=K, backend="numpy")
    assert sol.optimal and sol.score == pytest.approx(top - L)
    assert sol.bound == pytest.approx(top - L)


@pytest.mark.parametrize("seed", [51, 63, 71, 82])
def test_a_budgeted_search_proves_a_leaf_of_negative_value(seed):
    """Many balanced classes and a leaf penalty above the largest class weight: the leaf's
    value is negative, and no tree beats it (each leaf scores at most that class weight).
    Skewed columns give a side whose weight bound stays above the leaf.  The budgeted
    branch must prune a split of the budget at the incumbent (``floor``), not at 0: kills
    ``r0.upper + u1 <= floor + tol`` -> ``floor * tol``, which leaves the bound open
    (``optimal`` False) though the leaf is optimal (seeds found by trying seeds under it)."""
    rng, X, y, w, K, L, depth, top = _negative_leaf(seed)
    budget = int(rng.integers(2, 2**depth))
    assert top - L < 0
    assert _weighted_best(X, y, w, K, depth, L, budget) == pytest.approx(top - L)
    sol = solve_subtree(X, y, depth, L, sample_weight=w, n_classes=K, backend="numpy",
                        max_leaves=budget)
    assert sol.optimal and sol.score == pytest.approx(top - L)
    assert sol.bound == pytest.approx(top - L)


@pytest.mark.parametrize(("depth", "budgets"), [(3, (6, 7)), (4, (13, 14, 15))])
def test_a_budget_just_below_the_full_tree_binds_on_parity_labels(depth, budgets):
    """Labels the parity of the first ``depth`` columns (5 % flipped) need every leaf of the
    full tree, so a budget of 1-3 leaves fewer binds: the search equals the enumeration with
    that budget and keeps it.  Kills ``budget >= 2 * depth`` for ``2 ** depth`` in ``solve``
    (depth 3 with 6 or 7 leaves taken as unbudgeted: 8 leaves) and ``half = 2 * (depth -
    1)`` for ``2 ** (depth - 1)`` in ``_branch_budget`` (depth 4: no division of 13-15
    leaves between two children of at most 6 is tried, the leaf is returned)."""
    rng = np.random.default_rng(depth)
    X = rng.integers(0, 2, (64, 4))
    y = (np.bitwise_xor.reduce(X[:, :depth], axis=1) ^ (rng.random(64) < 0.05)).astype(int)
    for budget in budgets:
        best = exhaustive_objective(X, y, 2, depth, 0.0, max_leaves=budget)
        sol = solve_subtree(X, y, depth, 0.0, max_leaves=budget)
        assert sol.optimal and sol.score == pytest.approx(best)
        assert sol.stats["leaves"] <= budget
        assert len(np.unique(sol.tree.terminal(X))) <= budget


@pytest.mark.parametrize("depth", [2, 3])
def test_a_node_of_one_class_is_answered_without_a_search(depth):
    """Work: with one class the leaf reaches the leaf-support bound, so the search stops at
    the root: one node, no kernel, no counters.  Kills ``leaf >= upper / tol`` for
    ``upper - tol`` in ``solve`` (the shortcut lost above 0: the same leaf, after a search)."""
    X = np.random.default_rng(0).integers(0, 2, (30, 4))
    sol = solve_subtree(X, np.zeros(30, dtype=int), depth, 0.0, n_classes=2, merge=False)
    assert sol.optimal and sol.score == 30.0
    assert (sol.stats["nodes"], sol.stats["kernels"], sol.stats["grams"]) == (1, 0, 0)


@pytest.mark.parametrize("budget", [3, 4, 5])
def test_under_a_leaf_budget_a_split_that_ties_the_leaf_leaves_the_leaf(budget):
    """``solve_subtree``: "ties go to the leaf over a split".  Four scattered rows of class
    1 among 30: with no leaf penalty every split whose sides keep class 0 ties the leaf, and
    no tree of depth 3 with at most ``budget`` leaves beats it (the enumeration).  Kills
    ``r0.value + r1.value > best - tol`` in the budgeted branch (a tied split replaces the
    leaf)."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (30, 4))
    y = np.zeros(30, dtype=int)
    y[rng.choice(30, 4, replace=False)] = 1
    assert exhaustive_objective(X, y, 2, 3, 0.0, max_leaves=budget) == 26.0
    sol = solve_subtree(X, y, 3, 0.0, max_leaves=budget, merge=False)
    assert sol.optimal and sol.score == 26.0 and sol.stats["leaves"] == 1


@pytest.mark.parametrize("budget", [None, 4])
def test_a_solved_subproblem_is_answered_from_the_cache(budget):
    """Work: the same search run twice on the same rows is answered by the first run's
    exact cache entry, one node.  Kills the budgeted branch storing its exact result as a
    bound (``bound <= best - tol``: the second run searches again, 6 nodes)."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (30, 4))
    y = ((X[:, 0] ^ X[:, 1]) ^ (rng.random(30) < 0.2)).astype(int)
    search = Search(BinaryData.make(X, y, None, 2), 0.0, "numpy")
    first = search.solve(np.arange(30), 3, budget=budget)
    nodes = search.stats.nodes
    again = search.solve(np.arange(30), 3, budget=budget)
    assert again.value == first.value == first.upper
    assert search.stats.nodes - nodes == 1


@pytest.mark.parametrize("budget", [None, 3])
def test_a_depth2_subtree_is_one_kernel_call(budget):
    """Work: "subtrees of depth <= 2 are solved by the frequency-count kernel" (the
    module's docstring): a depth-2 search that is not a leaf costs one node, one kernel
    call and one pair count.  Kills ``depth <= 1`` for ``depth <= 2`` in ``solve`` (the
    depth-2 root branched over features: the same tree, more nodes)."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (30, 4))
    y = ((X[:, 0] ^ X[:, 1]) ^ (rng.random(30) < 0.2)).astype(int)
    sol = solve_subtree(X, y, 2, 0.0, max_leaves=budget, merge=False)
    assert sol.optimal
    assert sol.score == exhaustive_objective(X, y, 2, 2, 0.0, max_leaves=budget)
    assert (sol.stats["nodes"], sol.stats["kernels"], sol.stats["grams"]) == (1, 1, 1)


@pytest.mark.parametrize("budget", [2, 3])
def test_a_budgeted_search_stops_at_a_tree_that_reaches_its_bound(budget):
    """Work: the label is column 0, so the first feature's split classifies every row, which
    is the node's bound (its weight); no other feature is then tried: at most the root and
    two children per division of the budget.  Kills the stop ``floor >= upper - tol`` read
    as ``==`` in the budgeted branch (every feature tried: 6 and 10 nodes)."""
    X = np.random.default_rng(0).integers(0, 2, (30, 4))
    sol = solve_subtree(X, X[:, 0].copy(), 3, 0.0, max_leaves=budget, merge=False)
    assert sol.optimal and sol.score == 30.0
    assert sol.stats["nodes"] <= 1 + 2 * (budget - 1)


@pytest.mark.parametrize("seed", [0, 4])
def test_a_depth2_kernel_with_three_leaves_may_split_its_right_child(seed):
    """Random labels, depth 2, at most 3 leaves (the numpy kernel): the enumeration's
    optimum, and a tree that scores it.  Kills ``budget > 3`` for ``budget == 3`` where the
    kernel reports the right child's feature (the tree loses the split its value counts)."""
    rng = np.random.default_rng(seed)
    X, y = rng.integers(0, 2, (40, 4)), rng.integers(0, 2, 40)
    sol = solve_subtree(X, y, 2, 0.0, max_leaves=3, merge=False, backend="numpy")
    assert sol.score == exhaustive_objective(X, y, 2, 2, 0.0, max_leaves=3)
    assert sol.stats["leaves"] <= 3


def _best_depth1(X: np.ndarray, y: np.ndarray, K: int, L: float) -> float:
    """Best ``correct - L * leaves`` of a leaf or a one-split tree on the rows (X, y)."""
    best = np.bincount(y, minlength=K).max() - L
    for f in range(X.shape[1]):
        side = X[:, f] == 1
        if side.any() and (~side).any():
            best = max(best, np.bincount(y[side], minlength=K).max()
                       + np.bincount(y[~side], minlength=K).max() - 2 * L)
    return float(best)


def test_feature_bounds_are_the_optima_of_negative_subtrees():
    """``Search.feature_bounds`` at height 2: for each root feature the best depth-1
    subtrees of its two sides, summed (the enumeration).  Three balanced classes and a leaf
    penalty of 7 against 12 rows a side make every subtree negative, with the two-leaf bound
    (weight - 2L = -2) above the leaf (-3).  Kills ``lower = not math.inf`` (0) as
    ``solve``'s default: each side is then cut at its bound -2, not solved to -3."""
    rng = np.random.default_rng(0)
    X = np.c_[np.repeat([0, 1], 12), rng.integers(0, 2, (24, 3))]
    y = np.tile(np.arange(3), 8)
    search = Search(BinaryData.make(X, y, None, 3), 7.0, "numpy")
    U, u_leaf = search.feature_bounds(np.arange(24), 2)
    assert u_leaf == 8.0 - 7.0
    for f in range(X.shape[1]):
        side = X[:, f] == 1
        want = _best_depth1(X[~side], y[~side], 3, 7.0) + _best_depth1(X[side], y[side], 3, 7.0)
        assert U[f] == pytest.approx(want)


# ---------------------------------------------------------------- the root loop (roots.py)
def _forking(monkeypatch):
    """Threads that start after the first root feature, however light the search."""
    from optrees.trees.search.binary import roots as roots_module

    monkeypatch.setattr(roots_module, "PROBE_NODES", 1)
    monkeypatch.setattr(roots_module, "FORK_NODE_SECONDS", 0.0)


@pytest.mark.parametrize(("backend", "depth", "threads"),
                         [("numpy", 3, 1), ("numpy", 3, 2), ("numba", 4, 1), ("numba", 4, 2)])
def test_a_split_that_reaches_the_bound_ends_the_root_loop(backend, depth, threads,
                                                           monkeypatch):
    """Work: the label is column 0, whose split classifies every row: the node's bound
    (its weight, no leaf penalty).  The loop tries the best stump first, so it meets that
    tree first and stops there, on one thread or two: the root and its two pure children,
    nothing pruned.  The other columns are skewed (most rows on one side).  Kills the
    loop's order reversed (``argsort(stump)``: other features first, more nodes) or by the
    difference of the stump's leaves (``-`` for ``+``: the skewed columns first), and the
    threads' stop read as ``floor >= upper / tol`` (every other feature is stepped and
    pruned)."""
    _forking(monkeypatch)
    X = (np.random.default_rng(0).random((30, 5)) < [0.5, 0.9, 0.9, 0.1, 0.9]).astype(int)
    y = X[:, 0].copy()
    search = Search(BinaryData.make(X, y, None, 2), 0.0, backend, threads=threads)
    res = search.solve(np.arange(30), depth)
    assert res.value == res.upper == 30.0 and res.node[0] == 0
    assert (search.stats.nodes, search.stats.pruned) == (3, 0)


def _one_row_columns(n: int = 30, F: int = 4):
    """Column f is 1 on row f only; rows 0-19 of class 0, 20-29 of class 1."""
    X = np.zeros((n, F), dtype=int)
    X[np.arange(F), np.arange(F)] = 1
    y = (np.arange(n) >= 20).astype(int)
    return X, y


@pytest.mark.parametrize(("backend", "depth", "threads"),
                         [("numpy", 3, 1), ("numba", 4, 1), ("numba", 4, 2)])
def test_root_features_pruned_by_their_weight_bounds_cost_no_node(backend, depth, threads,
                                                                  monkeypatch):
    """Work: with a leaf penalty of 5 every column leaves one row on its 1 side, whose
    subtree is at most its leaf (1 - 5), and 29 rows on its 0 side, at most 29 - 2 * 5: each
    split's a priori bound, written here from the leaf-support bound, is at most the leaf's
    value (20 - 5), which is therefore optimal.  The loop prunes every feature on those
    bounds before looking at its sides: one node.  Kills the cheap test read as ``u0 + u1
    <= floor * tol`` (each feature's 0 side is then solved, and pruned there)."""
    _forking(monkeypatch)
    X, y = _one_row_columns()
    L = 5.0
    leaf = np.bincount(y).max() - L
    for f in range(X.shape[1]):
        one = X[:, f] == 1
        side = [max(np.bincount(y[s], minlength=2).max() - L, s.sum() - 2 * L)
                for s in (~one, one)]
        assert sum(side) <= leaf
    search = Search(BinaryData.make(X, y, None, 2), L, backend, threads=threads)
    res = search.solve(np.arange(30), depth)
    assert res.value == res.upper == leaf and res.node is None
    assert search.stats.nodes == 1 and search.stats.kernels == 0
    assert search.stats.pruned == X.shape[1]


def test_the_root_loop_runs_on_threads_only_when_asked(monkeypatch):
    """One thread runs the serial loop, two the threaded one (:mod:`.roots`), and a Dask
    client its driver (:mod:`.distributed`, replaced here by the threaded loop), each only
    when the node has two root features or more (one feature: nothing to share).  Kills
    ``threads >= 1`` and the client's test read as ``len(feats) < 1``, ``> 0`` and ``> 2``
    in ``_branch_roots``."""
    from optrees.trees.search.binary import search as search_module

    calls = []

    def spy(name, real):
        def run(*args):
            calls.append((name, len(args[1].feats)))
            return real(*args)
        return run

    real = search_module.parallel_roots
    monkeypatch.setattr(search_module, "parallel_roots", spy("threads", real))
    monkeypatch.setattr(search_module, "distributed_roots", spy("client", real))
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, (30, 4))
    y = ((X[:, 0] ^ X[:, 1]) ^ (rng.random(30) < 0.2)).astype(int)
    for F in (4, 2, 1):  # root features
        best = _best(X[:, :F], y, 3, 0.5, None)
        many = F > 1
        for threads, client, want in ((1, None, []), (2, None, [("threads", F)] * many),
                                      (1, object(), [("client", F)] * many)):
            calls.clear()
            search = Search(BinaryData.make(X[:, :F], y, None, 2), 0.5, "numpy",
                            threads=threads, client=client)
            res = search.solve(np.arange(30), 3)
            assert res.value == pytest.approx(best) and res.upper == pytest.approx(best)
            assert calls == want


def test_the_probe_runs_the_first_root_feature_on_the_calling_thread(monkeypatch):
    """The threaded loop first solves root features on the calling thread until it has
    spent :data:`.roots.PROBE_NODES` nodes (here 1: one feature), and only then starts the
    other threads (:func:`.roots.parallel_roots`).  Kills the probe's end read as ``nodes !=
    PROBE_NODES`` (true at once: the threads start before any feature is solved, and with
    the default threshold never, the probe having timed nothing)."""
    import threading

    from optrees.trees.search.binary import roots as roots_module

    _forking(monkeypatch)
    started, steps = [], []
    start, step = threading.Thread.start, roots_module.Roots.step

    def record_start(self):
        started.append(self)
        start(self)

    def record_step(self, search, j, floor, stop):
        steps.append((j, len(started)))
        return step(self, search, j, floor, stop)

    monkeypatch.setattr(threading.Thread, "start", record_start)
    monkeypatch.setattr(roots_module.Roots, "step", record_step)
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, (30, 4))
    y = ((X[:, 0] ^ X[:, 1]) ^ (rng.random(30) < 0.2)).astype(int)
    res = Search(BinaryData.make(X, y, None, 2), 0.5, "numpy", threads=2).solve(
        np.arange(30), 3)
    assert res.value == pytest.approx(_best(X, y, 3, 0.5, None))
    assert len(started) == 1 and steps[0] == (0, 0)  # the probe: feature 0, no thread yet
    assert all(n == 1 for _, n in steps[1:]) and sorted(j for j, _ in steps) == [0, 1, 2, 3]


def test_the_probe_also_ends_at_its_time_limit(monkeypatch):
    """The probe ends after :data:`.roots.PROBE_NODES` nodes *or* :data:`.roots.PROBE_SECONDS`
    seconds: with no time for it the threads start before any feature is solved, however
    many nodes it may take.  Kills the time test read as ``== PROBE_SECONDS`` (never true:
    no thread starts) and ``time * started`` (the probe ends at once whatever the limit)."""
    import threading

    from optrees.trees.search.binary import roots as roots_module

    started = []
    start = threading.Thread.start

    def record_start(self):
        started.append(self)
        start(self)

    monkeypatch.setattr(threading.Thread, "start", record_start)
    monkeypatch.setattr(roots_module, "FORK_NODE_SECONDS", 0.0)
    monkeypatch.setattr(roots_module, "PROBE_NODES", 10**9)
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, (30, 4))
    y = ((X[:, 0] ^ X[:, 1]) ^ (rng.random(30) < 0.2)).astype(int)
    best = _best(X, y, 3, 0.5, None)
    for seconds, threads in ((0.0, 1), (60.0, 0)):
        started.clear()
        monkeypatch.setattr(roots_module, "PROBE_SECONDS", seconds)
        res = Search(BinaryData.make(X, y, None, 2), 0.5, "numpy", threads=2).solve(
            np.arange(30), 3)
        assert res.value == pytest.approx(best)
        assert len(started) == threads


def _exact_side_optima(X, y, L, depth):
    """Best ``correct - L * leaves`` of a tree of depth <= ``depth`` on the rows (X, y)."""
    if len(y) == 0:
        return -L
    return _best(X, y, depth, L, None) if depth else np.bincount(y, minlength=2).max() - L


def test_a_cached_optimum_of_a_side_prunes_its_feature():
    """Work: every side of every root feature first solved at depth 2 in the same search
    (the cache then holds their optima); with a leaf penalty of 2 on random labels no split
    beats the leaf at depth 3 (the enumeration of each side, written here), though the
    weight bounds do not show it.  The root loop then prunes every feature on the cached
    optima of its sides without solving a side again: one node.  Kills the cache read one
    level deeper for a side (``_prior(keys[0], depth * 1)``: no entry there, a side solved
    again from the cache, more nodes)."""
    rng = np.random.default_rng(3)
    X, y = rng.integers(0, 2, (30, 4)), (rng.random(30) < 0.3).astype(int)
    L = 2.0
    leaf = np.bincount(y).max() - L
    search = Search(BinaryData.make(X, y, None, 2), L, "numpy")
    for f in range(4):
        one = X[:, f] == 1
        values, prior = [], 0.0
        for s in (~one, one):
            values.append(search.solve(np.flatnonzero(s), 2).value)
            assert values[-1] == pytest.approx(_exact_side_optima(X[s], y[s], L, 2))
            prior += max(np.bincount(y[s], minlength=2).max() - L, s.sum() - 2 * L)
        assert sum(values) <= leaf < prior  # the weight bounds alone leave it open
    nodes = search.stats.nodes
    res = search.solve(np.arange(30), 3)
    assert res.value == res.upper == leaf and res.node is None
    assert search.stats.nodes - nodes == 1


def test_the_larger_sides_counters_are_the_parents_minus_the_smallers():
    """Work (MurTree 4.4's incremental frequency counts): at a depth-3 node the counters of
    a feature's larger side are the node's minus its smaller side's, so a step that solves
    both depth-2 sides by the kernel counts pairs once.  Labels the parity of 3 columns (each
    combination 4 times, depth 3): the first feature's split into two depth-2 parity trees
    classifies every row (the node's bound) and ends the loop: 3 nodes, 2 kernel calls, 2
    pair counts (the node's and one side's).  Kills ``if not depth == 3`` for the
    children's counters in ``Roots.step`` (each side counted: 3)."""
    X = np.tile(np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)]), (4, 1))
    y = X.sum(axis=1) % 2
    search = Search(BinaryData.make(X, y, None, 2), 0.0, "numpy")
    res = search.solve(np.arange(32), 3)
    assert res.value == res.upper == 32.0
    assert (search.stats.nodes, search.stats.kernels, search.stats.grams) == (3, 2, 2)


def _compiled_node(monkeypatch) -> None:
    """Let the searches call the compiled depth-3 node (:mod:`.node3`, numba), the owner of
    the memo of depth-2 sides; the later searches of this process as they were."""
    pytest.importorskip("numba")
    from optrees.trees.search.binary import node3
    from optrees.trees.search.binary.warmup import compile_node3

    monkeypatch.setattr(node3, "_ready", [])
    compile_node3()  # compiles it once (~30 s), then loads it from numba's cache


@pytest.mark.parametrize("seed", [6, 7, 8, 10])
def test_the_memo_of_depth2_sides_keys_each_side_by_its_own_literal(seed, monkeypatch):
    """Under a root of depth >= 4 the compiled depth-3 nodes share their depth-2 sides in a
    memo keyed by the literals on the way down (``Search._step``: ``2 f`` for ``x_f = 0``,
    ``2 f + 1`` for ``x_f = 1``); a side keyed by another side's literal is read for rows it
    does not hold.  Depth 4 with the compiled node against the enumeration, on one thread
    and two.  Kills the side-1 literal ``2 f + 1`` read as ``2 f``, ``2 f + 2``, ``3 f + 1``
    or ``f + 1`` in ``Roots.step`` (each on all four seeds, found by trying 16 under them:
    a value above the enumeration's optimum)."""
    _compiled_node(monkeypatch)
    _forking(monkeypatch)
    rng, X, y, _, _ = _instance(seed, n=(30, 60))
    L = float(rng.choice([0.0, 0.5, 1.0]))
    best = _best(X, y, 4, L, None)
    for threads in (1, 2):
        search = Search(BinaryData.make(X, y, None, 2), L, "numba", threads=threads)
        assert search._node3 is not None
        res = search.solve(np.arange(len(y)), 4)
        assert res.value == pytest.approx(best) and res.upper == pytest.approx(best)


@pytest.mark.parametrize(("depth", "backend", "xor"),
                         [(2, "numpy", False), (3, "numpy", False), (3, "numpy", True),
                          (4, "numba", True)])
def test_no_split_of_the_tree_leaves_a_side_empty(depth, backend, xor):
    """A tree's test splits its rows (both sides non-empty: the enumeration's definition).
    Columns 0 and 1 are constant (all 0, all 1).  With no leaf penalty a split on a
    constant column, its other side the best tree one level shallower, ties that tree, and
    comes first: when the label is column 2 (a stump) in the depth-2 kernel; when it is
    column 2 xor column 3 (every column's stump ties the leaf, so the loop keeps the
    columns' order) in the root loop.  Kills ``bad = (w1 <= 0) * (w1 >= total)`` for ``|``
    in ``depth2_numpy`` and ``weight1 <= total`` for ``<`` in ``_feasible_splits`` (a tree
    with an empty leaf, splitting on a constant column)."""
    rng = np.random.default_rng(0)
    if xor:
        pairs = np.tile([[0, 0], [0, 1], [1, 0], [1, 1]], (5, 1))
        X = np.c_[np.zeros(20, int), np.ones(20, int), pairs]
        y = pairs[:, 0] ^ pairs[:, 1]
    else:
        X = np.c_[np.zeros(20, int), np.ones(20, int), rng.integers(0, 2, (20, 2))]
        y = X[:, 2].copy()
    sol = solve_subtree(X, y, depth, 0.0, backend=backend, merge=False)
    assert sol.optimal and sol.score == 20.0
    split = sol.tree.split
    for node in np.flatnonzero(split >= 0) + 1:  # heap numbering: children 2i, 2i + 1
        rows = np.ones(20, bool)  # the rows that reach ``node``
        path, i = [], node
        while i > 1:
            path.append((i // 2, i % 2))
            i //= 2
        for parent, side in path:
            rows &= X[:, split[parent - 1]] == side
        assert 0 < (X[rows, split[node - 1]] == 1).sum() < rows.sum()
    assert sol.stats["leaves"] == 2 + 2 * xor


def test_one_search_solves_other_rows_after_a_deep_node(monkeypatch):
    """The memo belongs to the node of depth >= 4 that opened it (its rows, its path) and
    closes with it: the same search then solves other rows, with other sides under the same
    literals.  Depth 4, the compiled node, the rows of each half of the data and then all of
    them, against the enumeration.  Kills ``if not opened`` in ``_branch`` (the first
    memo stays open and answers the next node's sides)."""
    _compiled_node(monkeypatch)
    rng, X, y, _, _ = _instance(6, n=(50, 60))
    L = float(rng.choice([0.0, 0.5, 1.0]))
    search = Search(BinaryData.make(X, y, None, 2), L, "numba")
    half = len(y) // 2
    for rows in (np.arange(half), np.arange(half, len(y)), np.arange(len(y))):
        best = _best(X[rows], y[rows], 4, L, None)
        res = search.solve(rows, 4)
        assert res.value == pytest.approx(best) and res.upper == pytest.approx(best)


def test_the_memo_answers_a_side_met_again_without_a_kernel(monkeypatch):
    """Work: under a root of depth 4 the side ``x_f = a, x_g = b`` is met under ``f`` and
    again under ``g``; the memo answers it the second time without a kernel call, so the
    search costs fewer kernel calls than the same search with no memo (``open_memo``
    refusing), for the same optimum.  Labels the parity of 4 columns (noisy): no pruning
    stops the loop early.  Kills ``opened = self._memo is None or self.open_memo(depth)``
    in ``_branch`` (the memo never opens)."""
    _compiled_node(monkeypatch)
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (80, 5))
    y = (np.bitwise_xor.reduce(X[:, :4], axis=1) ^ (rng.random(80) < 0.1)).astype(int)
    kernels = []
    for memo in (True, False):
        if not memo:
            monkeypatch.setattr(Search, "open_memo", lambda self, depth: False)
        search = Search(BinaryData.make(X, y, None, 2), 0.5, "numba")
        res = search.solve(np.arange(80), 4)
        assert res.value == res.upper == pytest.approx(_best(X, y, 4, 0.5, None))
        kernels.append(search.stats.kernels)
    assert kernels[0] < kernels[1]


@pytest.mark.parametrize("seed", [6, 30, 36])
def test_a_root_split_needs_min_leaf_rows_on_each_side(seed):
    """``min_leaf`` = m: a split needs m rows on each side.  Depth 3 in Python (numpy
    backend: the root loop's ``_feasible_splits``) against the enumeration with that
    constraint, and every reached leaf holds at least m rows (counted here).  Kills ``n1 !=
    m`` for ``n1 >= m`` (a side of fewer rows allowed, one of exactly m refused; seeds found
    by trying 60 under it)."""
    rng = np.random.default_rng(seed)
    n, F = int(rng.integers(16, 36)), int(rng.integers(3, 6))
    X = (rng.random((n, F)) < rng.uniform(0.1, 0.9, F)).astype(int)
    y = ((X[:, 0] ^ X[:, 1]) | (rng.random(n) < 0.3)).astype(int)
    m = int(rng.integers(2, 6))
    L = float(rng.choice([0.0, 0.5, 1.5]))
    lam = L / (1.0 + L)
    best = exhaustive_objective(X, y, 2, 3, lam, min_leaf=m) / (1.0 - lam) - L
    search = Search(BinaryData.make(X, y, None, 2), L, "numpy", min_leaf=m)
    res = search.solve(np.arange(n), 3)
    assert res.value == pytest.approx(best) and res.upper == pytest.approx(best)
    sol = solve_subtree(X, y, 3, L, min_leaf=m, backend="numpy", merge=False)
    leaves = sol.tree.terminal(X)
    assert np.bincount(leaves)[np.unique(leaves)].min() >= m


def test_the_similarity_bound_prunes_near_copies_of_a_solved_feature():
    """Work: columns 3-5 copy columns 0-2 with one row flipped, so each copy's sides differ
    from an earlier feature's by one row: the similarity bound (MurTree 4.6: the earlier
    side's bound plus the weight of the difference, ``A``) bounds the copy by the earlier
    feature's value plus 1, which the incumbent beats here.  The correct code solves 7
    nodes and prunes 3 features on it (nothing else prunes them: without the bound, 13
    nodes and none pruned).  Kills ``A = diag(P) + P`` for ``-`` in ``Roots.prepare`` (a
    looser, still valid bound: the same tree, more nodes)."""
    rng = np.random.default_rng(8)
    n = int(rng.integers(16, 30))
    base = rng.integers(0, 2, (n, 3))
    cols = [base[:, j % 3].copy() for j in range(6)]
    for c in cols[3:]:
        c[rng.choice(n, 1)] ^= 1
    X = np.stack(cols, 1)
    y = ((base[:, 0] ^ base[:, 1]) | (rng.random(n) < 0.2)).astype(int)
    L = float(rng.choice([0.0, 0.5, 1.0]))
    search = Search(BinaryData.make(X, y, None, 2), L, "numpy")
    res = search.solve(np.arange(n), 3)
    best = _best(X, y, 3, L, None)
    assert res.value == pytest.approx(best) and res.upper == pytest.approx(best)
    assert search.stats.nodes <= 7 and search.stats.pruned >= 3


def test_a_deep_search_after_searches_with_lower_bounds_ends_at_the_optimum():
    """Depth 4 in Python (numpy backend): two searches with the caller's lower bounds 90 %
    and 70 % of the rows fill the cache with their nodes' bounds, then the full search
    returns the enumeration's optimum with an equal bound.  A node's bound is the most any
    of its root features' steps allows; a step's bound is the sum of its sides' bounds.
    Kills ``r0.upper - r1.upper`` for ``+`` in ``Roots.step`` (a step's bound too low: a node
    solved under a lower bound is cached with a bound below its optimum; the seed found by
    trying 360 under it, the only one)."""
    rng = np.random.default_rng(130)
    n, F = int(rng.integers(20, 50)), int(rng.integers(4, 7))
    X = (rng.random((n, F)) < rng.uniform(0.2, 0.8, F)).astype(int)
    y = ((X[:, 0] & X[:, 1]) | (X[:, 2] ^ X[:, 3]) ^ (rng.random(n) < 0.25)).astype(int)
    L = float(rng.choice([0.0, 0.5, 1.0, 2.0]))
    search = Search(BinaryData.make(X, y), L, "numpy")
    rows = np.arange(n)
    for share in (0.9, 0.7):
        search.solve(rows, 4, lower=share * n)
    res = search.solve(rows, 4)
    best = _best(X, y, 4, L, None)
    assert res.value == pytest.approx(best) and res.upper == pytest.approx(best)
