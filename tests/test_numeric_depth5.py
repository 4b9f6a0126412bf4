"""Depth 5 over every threshold of numeric columns (issue #47, item 3): the exact numeric
search against an enumeration written here from the definition, a stopped search's bound and
tree, and the estimators' path (depth 5 searched over every threshold, depth 6 binarized)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from deadlines import StopAfter
from sklearn.tree import DecisionTreeClassifier

from optrees import BendOCTClassifier
from optrees.estimators import TimeLimitWarning
from optrees.solvers.deadline import Deadline
from optrees.trees.search.numeric import numba_available, solve_numeric

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.skipif(
    not numba_available(), reason="numba not installed"))]


def enumerate_optimum(X, y, w, n_classes, depth, pen, min_leaf=1, max_leaves=None):
    """Best weighted correct − ``pen`` · leaves over every tree of depth ≤ ``depth`` (and at
    most ``max_leaves`` leaves), straight from the definition: a node is a leaf predicting
    its class of largest weight, or a split ``x_f <= t`` at a midpoint between two
    consecutive distinct values of ``x_f`` among the node's rows (both sides non-empty).
    Every leaf holds ``min_leaf`` rows or more, except a tree that is one leaf."""
    memo: dict = {}

    def best(rows: np.ndarray, d: int, budget: int | None) -> float:
        budget = budget if budget is None else min(budget, 2 ** d)
        key = (rows.tobytes(), d, budget)
        if key in memo:
            return memo[key]
        value = (np.bincount(y[rows], weights=w[rows], minlength=n_classes).max() - pen
                 if len(rows) >= min_leaf else -np.inf)
        if d > 0 and (budget is None or budget >= 2):
            for f in range(X.shape[1]):
                values = np.unique(X[rows, f])
                for t in (values[:-1] + values[1:]) / 2:
                    left, right = rows[X[rows, f] <= t], rows[X[rows, f] > t]
                    if budget is None:
                        value = max(value, best(left, d - 1, None) + best(right, d - 1, None))
                    # the budget shared by the two sides; a side of depth d - 1 has at most
                    # 2^(d-1) leaves, so a larger share adds nothing
                    half = 2 ** (d - 1)
                    for k in range(max(1, (budget or 1) - half), min((budget or 1) - 1, half) + 1):
                        value = max(value, best(left, d - 1, k) + best(right, d - 1, budget - k))
        memo[key] = value
        return value

    value = best(np.arange(len(y)), depth, max_leaves)
    if value == -np.inf:                             # a single leaf always qualifies
        value = np.bincount(y, weights=w, minlength=n_classes).max() - pen
    return float(value)


def tiny_problem(seed: int):
    """7-9 rows, two numeric columns of few (repeated) values, 2-3 classes, weights 0-3."""
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(7, 10)), int(rng.integers(2, 4))
    X = rng.integers(0, 4, size=(n, 2)) * 0.5 - 0.25
    return X, rng.integers(0, k, n), rng.integers(0, 4, n).astype(float), k


def grid_problem(size: int, seed: int):
    """Random labels (3 classes) and weights on a ``size`` × ``size`` grid: a checkerboard-
    like pattern that a depth-5 tree fits better than a depth-4 one (checked in the test)."""
    rng = np.random.default_rng(seed)
    X = np.array([(i, j) for i in range(size) for j in range(size)], dtype=float)
    return X, rng.integers(0, 3, len(X)), rng.integers(1, 4, len(X)).astype(float), 3


def rescore(res, X, y, w, pen) -> float:
    """The returned tree's objective recomputed from its predictions and its leaves."""
    pred = res.predict(X)
    return float(w[pred == y].sum()) - pen * res.n_leaves


@pytest.mark.parametrize("backend", BACKENDS)
def test_depth5_matches_enumeration_on_tiny_data(backend):
    for seed in range(12):
        X, y, w, k = tiny_problem(seed)
        pen = (0.0, 0.4, 1.0)[seed % 3]
        res = solve_numeric(X, y, n_classes=k, sample_weight=w, leaf_penalty=pen,
                            max_depth=5, backend=backend)
        assert res.optimal and len(res.feature) == 31       # a heap of depth 5
        assert res.score == pytest.approx(enumerate_optimum(X, y, w, k, 5, pen)), seed
        assert res.score == pytest.approx(rescore(res, X, y, w, pen))
        assert res.upper_bound == pytest.approx(res.score)


@pytest.mark.parametrize("seed", [0, 2, 4])
def test_depth5_matches_enumeration_where_depth_matters(seed):
    """On a 5 × 5 grid the depth-5 optimum is above the depth-4 one, and the search finds it."""
    X, y, w, k = grid_problem(5, seed)
    pen = 0.5 if seed == 2 else 0.0
    expect = enumerate_optimum(X, y, w, k, 5, pen)
    assert expect > enumerate_optimum(X, y, w, k, 4, pen) + 0.25
    res = solve_numeric(X, y, n_classes=k, sample_weight=w, leaf_penalty=pen, max_depth=5)
    assert res.optimal and res.score == pytest.approx(expect)
    assert res.score == pytest.approx(rescore(res, X, y, w, pen))


def test_depth5_min_leaf_and_leaf_budget_match_enumeration():
    """The estimators pass ``min_samples_leaf`` and ``max_leaves`` on to depth 5 too."""
    for seed in range(12):
        X, y, w, k = tiny_problem(100 + seed)
        min_leaf, budget = (1, 2)[seed % 2], (None, 3, 5, 7)[seed % 4]
        pen = (0.0, 0.5)[seed % 2]
        res = solve_numeric(X, y, n_classes=k, sample_weight=w, leaf_penalty=pen,
                            max_depth=5, min_leaf=min_leaf, max_leaves=budget)
        expect = enumerate_optimum(X, y, w, k, 5, pen, min_leaf, budget)
        assert res.optimal and res.score == pytest.approx(expect), (seed, min_leaf, budget)
    X, y, w, k = grid_problem(5, 1)
    res = solve_numeric(X, y, n_classes=k, sample_weight=w, max_depth=5, min_leaf=2,
                        max_leaves=10)
    assert res.optimal and res.n_leaves <= 10
    assert res.score == pytest.approx(enumerate_optimum(X, y, w, k, 5, 0.0, 2, 10))


def cart_score(X, y, w, pen) -> float:
    """Objective of sklearn's CART of depth 5 (same weights): correct weight − pen · leaves."""
    cart = DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, y, sample_weight=w)
    return float(w[cart.predict(X) == y].sum()) - pen * cart.get_n_leaves()


def test_stopped_depth5_search_is_honest():
    """Stopped after a growing number of deadline checks (a countdown, not the clock): no
    check after the one that expired, a tree never worse than CART's, a bound at least the
    enumerated optimum that never rises, and the optimum once the search is let finish
    (numpy: the count of checks differs between backends)."""
    X, y, w, k = grid_problem(6, 0)
    pen = 0.5
    expect = enumerate_optimum(X, y, w, k, 5, pen)
    cart = cart_score(X, y, w, pen)
    bounds = []
    for checks in (1, 10, 100, 1000, 5000, 10**6):
        deadline = StopAfter(checks)
        res = solve_numeric(X, y, n_classes=k, sample_weight=w, leaf_penalty=pen,
                            max_depth=5, deadline=deadline, backend="numpy")
        assert res.score == pytest.approx(rescore(res, X, y, w, pen))
        assert cart - 1e-9 <= res.score <= expect + 1e-9 <= res.upper_bound + 2e-9
        if deadline.left >= 0:              # finished before the countdown ran out
            assert res.optimal and res.score == pytest.approx(expect)
        else:
            assert deadline.left == -1      # stopped at its first expired check
            assert not res.optimal
            bounds.append(res.upper_bound)
    assert len(bounds) >= 3
    assert all(b <= a + 1e-9 for a, b in zip(bounds, bounds[1:], strict=False))
    assert bounds[-1] < bounds[0]           # the bound fell while the search ran
    assert res.optimal                      # the last countdown let it finish


def test_expired_deadline_gives_cart_or_better():
    """A deadline already passed (the coarse incumbent's turn included): a tree at least
    CART's, flagged not optimal, with a bound at least its score."""
    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(300, 4)), 2)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(scale=0.8, size=300) > 0).astype(int)
    w = np.ones(300)
    res = solve_numeric(X, y, max_depth=5, deadline=Deadline(0))
    assert not res.optimal and res.upper_bound >= res.score
    assert res.score == pytest.approx(rescore(res, X, y, w, 0.0))
    assert res.score >= cart_score(X, y, w, 0.0) - 1e-9


def _frame(X: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])


def test_estimator_depth5_searches_every_threshold():
    """BendOCT at depth 5 on a numeric table: every threshold, the enumerated optimum."""
    X, y, w, k = grid_problem(5, 0)
    est = BendOCTClassifier(depth=5, lam=0.0, time_limit=60).fit(_frame(X), y, sample_weight=w)
    assert est.thresholds_ == "all" and est.status_ == "optimal"
    correct = float(w[est.predict(_frame(X)) == y].sum())
    assert correct == pytest.approx(enumerate_optimum(X, y, w, k, 5, 0.0))


def test_estimator_depth5_stopped_is_honest():
    """A depth-5 fit stopped by its limit long before it could finish: status "time_limit",
    every threshold, a bound above the tree, training accuracy at least CART's."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 8))
    y = (np.sin(3 * X[:, 0]) + X[:, 1] * X[:, 2] + rng.normal(scale=0.8, size=3000) > 0)
    y = y.astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TimeLimitWarning)
        est = BendOCTClassifier(depth=5, lam=0.0, time_limit=2.0).fit(_frame(X), y)
    assert est.status_ == "time_limit" and est.thresholds_ == "all"
    assert est.bound_ > est.objective_
    cart = DecisionTreeClassifier(max_depth=5, random_state=0).fit(X, y).score(X, y)
    assert est.score(_frame(X), y) >= cart - 1e-12


@pytest.mark.parametrize("params", [{"depth": 6}, {"depth": 5, "max_leaves": 12}])
def test_estimator_depth6_and_budgets_at_depth5_stay_binarized(params):
    """Depth 6, and a leaf budget at depth 5, take quantile cuts (with CART's): many
    distinct values, so some are lost."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    est = BendOCTClassifier(lam=0.0, time_limit=30, **params).fit(_frame(X), y)
    assert est.thresholds_ == "binarized"
    assert est.binarizer_ is not None


def test_misclassification_costs_at_depth5_search_every_threshold():
    """A cost matrix at depth 5 takes the same numeric search (its pseudo-rows): every
    threshold, and the least total cost sum_i w_i C[y_i, prediction_i] of an enumeration
    (two classes: accuracy with class-0 rows weighing C[0, 1] and class-1 rows C[1, 0])."""
    X, y, w, k = grid_problem(5, 1)
    y = (y > 0).astype(int)
    C = np.array([[0.0, 3.0], [1.0, 0.0]])
    est = BendOCTClassifier(depth=5, lam=0.0, time_limit=60,
                            misclassification_costs=C).fit(_frame(X), y, sample_weight=w)
    assert est.thresholds_ == "all" and est.status_ == "optimal"
    cost = float((w * C[y, est.predict(_frame(X))]).sum())
    w2 = w * np.where(y == 0, C[0, 1], C[1, 0])
    assert cost == pytest.approx(w2.sum() - enumerate_optimum(X, y, w2, 2, 5, 0.0))


def test_misclassification_costs_at_depth5_are_not_binarized():
    """Many distinct values (quantile cuts would lose some): a cost matrix at depth 5 is
    still searched over every threshold."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    est = BendOCTClassifier(depth=5, lam=0.0, time_limit=30,
                            misclassification_costs=[[0.0, 3.0], [1.0, 0.0]]).fit(_frame(X), y)
    assert est.thresholds_ == "all"
    assert est.binarizer_ is None
