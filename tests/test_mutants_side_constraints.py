"""Tests that kill mutants of the MIPs' side constraints (trees/side_constraints.py: the leaf
budget row, the features fixed up front and the lazy no-good rows of ``min_samples_leaf``)
which test_side_constraints.py lets live (``bench/mutation.py side-constraints``,
docs/testing.md).  Oracles: the enumeration of every tree in ``oracles.py`` (a split needs
``min_leaf`` rows on each side, at most ``max_leaves`` leaves) and leaf sizes counted in
numpy from ``apply``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from oracles import exhaustive_fair_score, exhaustive_objective

from optrees import BendersOCTClassifier, BendOCTClassifier, FlowOCTClassifier


def _mips(**params):
    """The three MIPs without the front search or a start tree (so the MIP and its side
    rows decide: a start tree would hide a row that cuts off the optimum)."""
    common = dict(binarizer=None, subtree_search=False, warm_start=False, time_limit=60,
                  **params)
    return [BendOCTClassifier(**common), FlowOCTClassifier(**common),
            BendersOCTClassifier(polishing=False, **common)]


def _check(est, X, y, m, budget, best, penalty):
    """Optimal, the enumeration's value, and the tree meets both constraints on X."""
    sizes = np.unique(est.apply(X), return_counts=True)[1]
    assert est.status_ == "optimal", est
    assert est.objective_ == pytest.approx(best, abs=1e-9), (est, penalty)
    assert sizes.min() >= m or len(sizes) == 1, (est, sizes)
    assert len(sizes) <= (budget or len(X)), est


def _penalty(est) -> str:
    return "leaves" if isinstance(est, BendOCTClassifier) else "splits"


# column 0 puts exactly 3 of 12 rows on its right; the labels follow it but for one row
EDGE_X = np.array([[1, 0, 1], [1, 1, 0], [1, 0, 0], [0, 1, 1], [0, 0, 1], [0, 1, 0],
                   [0, 0, 0], [0, 1, 1], [0, 0, 1], [0, 1, 0], [0, 0, 0], [0, 1, 1]])
EDGE_Y = np.array([1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1])


@pytest.mark.parametrize("flip", [False, True])
@pytest.mark.parametrize("m", [2, 3, 4])
def test_a_side_of_exactly_min_leaf_rows_is_allowed_and_one_fewer_is_not(m, flip):
    """The best split leaves 3 rows on one side (its right side; with ``flip`` its left
    side): allowed at ``min_samples_leaf`` 2 and 3, not at 4.  Kills ``ones < min_leaf`` ->
    ``<=`` and ``n - ones < min_leaf`` -> ``<=`` (fixing a feature with exactly m rows on a
    side), ``counts < min_leaf`` -> ``<=`` in the lazy rows, ``min_leaf <= 1`` -> ``<= 2``
    (no constraint at m = 2) and the zero-iteration loops of the fixing rows.

    At depth 1 no lazy row is ever needed: the root's sides are the whole data's, and a
    feature short of rows there (column 0 at m = 4) is fixed to 0 up front, so
    ``stats_['min_leaf_cuts']`` is 0 (``if never.size`` -> ``if not never.size`` leaves it
    to a lazy row; the counter starting at 1)."""
    X = EDGE_X.copy()
    if flip:
        X[:, 0] = 1 - X[:, 0]
    for depth in (1,) if flip else (1, 2):
        for est in _mips(depth=depth, lam=0.01, min_samples_leaf=m):
            est.fit(X, EDGE_Y)
            best = exhaustive_objective(X, EDGE_Y, 2, depth, 0.01, _penalty(est), min_leaf=m)
            _check(est, X, EDGE_Y, m, None, best, _penalty(est))
            if depth == 1:
                assert est.stats_["min_leaf_cuts"] == 0, est


def _deep_instance(seed: int):
    """XOR-like labels whose best unconstrained depth-2 tree has small leaves below a root
    split that keeps many rows on each side (so the short nodes are deep ones)."""
    rng = np.random.default_rng(seed)
    n = 30
    X = rng.integers(0, 2, (n, 4))
    X[:, 1] = (rng.random(n) < 0.15).astype(int)   # a rare column: small leaves below
    y = (X[:, 0] ^ X[:, 1]).astype(int)
    y[rng.random(n) < 0.1] ^= 1
    return X, y


@pytest.mark.parametrize("seed", range(2))
def test_short_nodes_below_the_root_are_cut_and_counted(seed):
    """Depth 2 with ``min_samples_leaf`` 3 / 4 and a leaf budget of 3: the enumeration's
    value, a tree meeting both, and ``stats_['min_leaf_cuts']`` the number of lazy rows
    added (>= 0; at least one over the instances, whose unconstrained optimum has a short
    leaf).  Kills the mutants of the bottom-up counts (reach_counts), the walk to the
    shallowest short nodes, the rows' right-hand side and the cut counter."""
    X, y = _deep_instance(seed)
    cuts = 0
    for m, budget in ((3, None), (4, 3)):
        for est in _mips(depth=2, lam=0.0, min_samples_leaf=m, max_leaves=budget):
            est.fit(X, y)
            best = exhaustive_objective(X, y, 2, 2, 0.0, _penalty(est), min_leaf=m,
                                        max_leaves=budget)
            _check(est, X, y, m, budget, best, _penalty(est))
            assert est.stats_["min_leaf_cuts"] >= 0
            cuts += est.stats_["min_leaf_cuts"]
    assert cuts > 0


def test_a_short_leftmost_leaf_under_two_split_children_is_cut():
    """The unconstrained optimum splits the root on column 0 and both children (column 1
    left, column 2 right), and only its leftmost leaf (heap node 4) is short: 2 rows, for
    ``min_samples_leaf`` 3.  The bottom-up counts must add each node's own two children
    only (``counts[n - 1]`` -> ``counts[n]`` adds nodes 6 and 7 into node 4 and hides it)."""
    x0 = np.repeat([0, 1], 10)
    x1 = np.r_[0, 0, np.ones(8), np.tile([0, 1], 5)]
    x2 = np.r_[np.tile([0, 1], 5), np.zeros(5), np.ones(5)]
    X = np.column_stack([x0, x1, x2]).astype(int)
    y = np.r_[1, 1, np.zeros(8), np.zeros(5), np.ones(5)].astype(int)
    assert exhaustive_objective(X, y, 2, 2, 0.0) == len(y)        # the short tree is perfect
    for est in _mips(depth=2, lam=0.0, min_samples_leaf=3):
        est.fit(X, y)
        best = exhaustive_objective(X, y, 2, 2, 0.0, _penalty(est), min_leaf=3)
        _check(est, X, y, 3, None, best, _penalty(est))


def _xor_and(seed: int):
    """y = x0 xor (x1 and x2), 10 % flipped, 20 rows."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (20, 3))
    y = (X[:, 0] ^ (X[:, 1] & X[:, 2])).astype(int)
    y[rng.random(20) < 0.1] ^= 1
    return X, y


def _skewed(seed: int):
    """Columns of uneven frequency, y = 0 where x0 = 0, else mostly not x2; 24 rows."""
    rng = np.random.default_rng(seed)
    X = (rng.random((24, 3)) < rng.uniform(0.2, 0.8, 3)).astype(int)
    y = np.where(X[:, 0] == 0, 0, 1 - X[:, 2] * (rng.random(24) < 0.9)).astype(int)
    y[rng.random(24) < 0.08] ^= 1
    return X, y


@pytest.mark.parametrize("make, seed, m", [(_xor_and, 7, 4), (_skewed, 67, 2),
                                            (_xor_and, 10, 4)])
def test_a_miscounted_child_would_cut_off_the_optimum(make, seed, m):
    """Instances (found by trying seeds) whose constrained optimum a wrong bottom-up count
    cuts off: ``counts[2 * n]`` -> ``counts[2 - n]`` (node 2 counts node 4 only, looks short
    and forbids the root's feature) and ``2 * n - 1`` -> ``2 * n - 2`` (node 3 counts
    nodes 5 and 7); or whose short node a wrong walk misses (``split[n - 1]`` ->
    ``split[n - 2]`` decides whether to descend from the root by node 3's split)."""
    X, y = make(seed)
    for est in _mips(depth=2, lam=0.0, min_samples_leaf=m):
        est.fit(X, y)
        best = exhaustive_objective(X, y, 2, 2, 0.0, _penalty(est), min_leaf=m)
        _check(est, X, y, m, None, best, _penalty(est))


def test_more_rows_per_leaf_than_rows_gives_the_root_leaf():
    """``min_samples_leaf`` above the number of rows: no split, the majority leaf, optimal
    (the root is never a short node: ``n > 1`` -> ``n >= 1`` makes every tree violate)."""
    for est in _mips(depth=2, lam=0.0, min_samples_leaf=len(EDGE_Y) + 1):
        est.fit(EDGE_X, EDGE_Y)
        assert est.status_ == "optimal" and est.tree_.n_leaves == 1
        assert np.all(est.predict(EDGE_X) == 0)


@pytest.mark.parametrize("budget", [2, 3])
def test_the_leaf_budget_row_allows_exactly_that_many_leaves(budget):
    """An instance whose best tree without budget has 4 leaves; with 2 or 3 leaves allowed
    each MIP finds the enumeration's best tree with that many leaves (no fewer, which the
    budget's ``L - 1`` -> ``L - 2`` would force; no more, which ``L`` would allow).  With
    ``min_samples_leaf`` 1 there are no lazy leaf-size rows to report (``min_leaf <= 1`` ->
    ``<= 0`` adds them, cutting only empty nodes, which no optimum needs)."""
    rng = np.random.default_rng(7)
    X = rng.integers(0, 2, (32, 3))
    y = (2 * X[:, 0] + X[:, 1]) % 3
    for est in _mips(depth=2, lam=0.0, max_leaves=budget):
        est.fit(X, y)
        best = exhaustive_objective(X, y, 3, 2, 0.0, _penalty(est), max_leaves=budget)
        _check(est, X, y, 1, budget, best, _penalty(est))
        assert est.tree_.n_leaves == budget
        assert "min_leaf_cuts" not in est.stats_
    assert exhaustive_objective(X, y, 3, 2, 0.0, max_leaves=budget) < exhaustive_objective(
        X, y, 3, 2, 0.0, max_leaves=budget + 1)


@pytest.mark.parametrize("seed", range(2))
def test_min_leaf_and_fairness_rows_act_together(seed):
    """Statistical parity (``|P(pred = 1 | g=1) - P(pred = 1 | g=0)| <= eps``, coefficients
    written here) and ``min_samples_leaf`` in one MIP: each lazy family sees its own
    violations (``any`` -> ``all`` in AllLazy.violated lets a tree break one of them), and
    stats_ reports both families' cut counts."""
    rng = np.random.default_rng(seed + 20)
    n, eps, m = 24, 0.15, 3
    groups = rng.integers(0, 2, n)
    X = rng.integers(0, 2, (n, 3))
    X[:, 0] |= (groups == 1) & (rng.random(n) < 0.6)
    y = (X[:, 0] ^ (rng.random(n) < 0.2)).astype(int)
    coef = np.where(groups == 1, 1.0 / (groups == 1).sum(), -1.0 / (groups == 0).sum())
    best = exhaustive_fair_score(X, y, 2, coef, eps, min_leaf=m)
    df = pd.DataFrame(X, columns=["a", "b", "c"]).assign(s=groups)
    for est in (BendOCTClassifier(), FlowOCTClassifier()):
        est.set_params(subtree_search=False, warm_start=False, depth=2, lam=0.0,
                       fairness="statistical_parity", epsilon=eps, sensitive="s",
                       drop_sensitive=True, binarizer=None, time_limit=60,
                       min_samples_leaf=m).fit(df, y)
        pred = est.predict(df)
        sizes = np.unique(est.apply(df), return_counts=True)[1]
        assert est.status_ == "optimal"
        assert float((pred == y).sum()) == pytest.approx(best), type(est).__name__
        assert abs(coef @ (pred == 1)) <= eps + 1e-9
        assert sizes.min() >= m or len(sizes) == 1
        assert {"min_leaf_cuts", "correctness_cuts"} <= set(est.stats_)
