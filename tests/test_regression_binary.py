"""The 0/1 regression search (search/regression/binary.py) and depth 4 (issue #43).

The oracle is written here from the definition: a leaf costs the weighted sum of squared
deviations of its rows from their weighted mean, a tree the sum over its leaves plus
``lam * W * var(y)`` per leaf; every tree of depth <= D whose splits each leave a side of at
least ``m`` rows (and at most ``L`` leaves) is enumerated.  The estimator reports that
divided by ``W * var(y)``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from oracles import enumerate_best, sse

from optrees import OptimalTreeRegressor
from optrees.solvers.deadline import Deadline
from optrees.trees.solve.regression import solve_regression_tree

pytest.importorskip("numba")  # the 0/1 search is compiled


@pytest.fixture(autouse=True, scope="module")
def _kernels_loaded():
    """Small fits take the 0/1 search only once its kernels are loaded in the process."""
    from optrees.trees.search.regression import binary_kernels

    binary_kernels.compile_kernels()


def optimum(X, y, w, depth, lam, min_leaf, max_leaves=None) -> float:
    scale = sse(y, w) or float(np.sum(w))
    leaves = 2 ** depth if max_leaves is None else max_leaves
    return enumerate_best(X, y, w, depth, lam * scale, min_leaf, leaves) / scale


def zero_one(seed: int, n: int = 14, F: int = 3, weights: bool = True):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, F)).astype(float)
    X[n - 2] = X[0]  # identical rows with different targets
    y = rng.normal(size=n) + 2 * X[:, 0] - X[:, 1] * X[:, 2]
    w = rng.integers(1, 4, size=n).astype(float) if weights else np.ones(n)
    return X, y, w


def objective_of(model, X, y, w, lam) -> float:
    return sse_of(y, model.predict(X), w) / (sse(y, w) or w.sum()) \
        + lam * model.tree_.n_leaves


def sse_of(y, pred, w) -> float:
    return float(np.sum(w * (y - pred) ** 2))


CASES = [(seed, depth, lam, min_leaf) for seed in range(3) for depth in (1, 2, 3)
         for lam, min_leaf in ((0.0, 1), (0.02, 1), (0.0, 3))]


@pytest.mark.parametrize("seed,depth,lam,min_leaf", CASES)
def test_the_zero_one_search_finds_the_enumerated_optimum(seed, depth, lam, min_leaf):
    X, y, w = zero_one(seed)
    model = OptimalTreeRegressor(depth=depth, lam=lam, min_samples_leaf=min_leaf,
                                 time_limit=None).fit(pd.DataFrame(X), y, sample_weight=w)
    assert model.stats_["search"] == "binary"
    assert model.status_ == "optimal"
    expected = optimum(X, y, w, depth, lam, min_leaf)
    assert model.objective_ == pytest.approx(expected, abs=1e-9)
    assert objective_of(model, X, y, w, lam) == pytest.approx(expected, abs=1e-9)
    assert model.bound_ == pytest.approx(model.objective_)


@pytest.mark.parametrize("seed,lam", [(0, 0.0), (1, 0.01), (2, 0.0)])
def test_depth_four_on_zero_one_columns_is_the_enumerated_optimum(seed, lam):
    X, y, w = zero_one(seed, n=24, F=4)
    model = OptimalTreeRegressor(depth=4, lam=lam, time_limit=None).fit(
        pd.DataFrame(X), y, sample_weight=w)
    assert model.stats_["search"] == "binary" and model.status_ == "optimal"
    assert model.objective_ == pytest.approx(optimum(X, y, w, 4, lam, 1), abs=1e-9)


def test_two_valued_columns_other_than_zero_one_take_the_zero_one_search():
    X, y, w = zero_one(5, n=20, F=3)
    Z = X * np.array([3.0, -1.0, 0.5]) + np.array([1.0, 2.0, -4.0])  # two values a column
    model = OptimalTreeRegressor(depth=3, time_limit=None).fit(pd.DataFrame(Z), y,
                                                                sample_weight=w)
    assert model.stats_["search"] == "binary"
    assert model.objective_ == pytest.approx(optimum(Z, y, w, 3, 0.0, 1), abs=1e-9)
    assert objective_of(model, Z, y, w, 0.0) == pytest.approx(model.objective_, abs=1e-9)


@pytest.mark.parametrize("depth,max_leaves", [(2, 3), (3, 3), (3, 5)])
def test_a_leaf_budget_on_zero_one_columns_is_the_enumerated_optimum(depth, max_leaves):
    X, y, w = zero_one(depth + max_leaves)
    model = OptimalTreeRegressor(depth=depth, max_leaves=max_leaves, time_limit=None).fit(
        pd.DataFrame(X), y, sample_weight=w)
    assert model.status_ == "optimal" and model.tree_.n_leaves <= max_leaves
    assert model.objective_ == pytest.approx(optimum(X, y, w, depth, 0.0, 1, max_leaves),
                                             abs=1e-9)


def test_numeric_depth_four_is_the_enumerated_optimum():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(12, 2)).astype(float)
    y = rng.normal(size=12) + X[:, 0]
    w = np.ones(12)
    model = OptimalTreeRegressor(depth=4, time_limit=None).fit(pd.DataFrame(X), y)
    assert model.stats_["search"] == "intervals" and model.status_ == "optimal"
    assert model.objective_ == pytest.approx(optimum(X, y, w, 4, 0.0, 1), abs=1e-9)


@pytest.mark.parametrize("numeric", [False, True])
def test_a_stopped_depth_four_search_keeps_cart_and_a_bound_below_the_optimum(numeric):
    from sklearn.tree import DecisionTreeRegressor

    X, y, w = zero_one(7, n=24, F=4)
    if numeric:
        X = X + np.random.default_rng(0).integers(0, 3, size=X.shape)
    expired = Deadline(at=0.0)
    result = solve_regression_tree(X, y, w, 4, 0.0, 1, expired)
    # stopped at once; proved all the same where its bound meets CART's tree (depth 4 can
    # isolate every group of identical rows: the equivalent-points bound is the optimum)
    assert result.status == ("optimal" if result.bound >= result.objective - 1e-12
                             else "time_limit")
    assert result.stats["search"] == ("intervals" if numeric else "binary")
    assert result.stats["search_nodes"] == 0  # no split solved after the deadline
    scale = sse(y, w)
    cart = DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, y, sample_weight=w)
    assert result.objective <= sse_of(y, cart.predict(X), w) / scale + 1e-9
    assert result.bound <= result.objective + 1e-12
    if not numeric:
        assert result.bound <= optimum(X, y, w, 4, 0.0, 1) + 1e-9


@pytest.mark.parametrize("depth,lam,min_leaf", [(2, 0.0, 1), (3, 0.001, 1), (3, 0.0, 5),
                                                (4, 0.005, 1), (4, 0.0, 3)])
def test_pystreed_finds_the_same_optimum_on_zero_one_data(depth, lam, min_leaf):
    streed = pytest.importorskip("pystreed")
    rng = np.random.default_rng(depth + 7 * min_leaf)
    X = rng.integers(0, 2, size=(150, 8))
    y = 2.0 * X[:, 0] - X[:, 1] * X[:, 2] + X[:, 3] * X[:, 4] * X[:, 5] + rng.normal(size=150)
    theirs = streed.STreeDRegressor(max_depth=depth, cost_complexity=lam,
                                    min_leaf_node_size=min_leaf, time_limit=60).fit(X, y)
    ours = OptimalTreeRegressor(depth=depth, lam=lam, min_samples_leaf=min_leaf,
                                time_limit=None).fit(pd.DataFrame(X), y)
    assert theirs.fit_result.is_optimal() and ours.status_ == "optimal"
    assert ours.stats_["search"] == "binary"
    w = np.ones(len(y))
    their_objective = (sse_of(y, theirs.predict(X), w) / sse(y, w)
                       + lam * theirs.get_n_leaves())
    assert ours.objective_ == pytest.approx(their_objective, abs=1e-9)


@pytest.mark.parametrize("depth", [2, 3, 4])
def test_integer_weights_equal_duplicated_rows_on_zero_one_columns(depth):
    X, y, w = zero_one(11, n=20, F=4)
    repeated = np.repeat(np.arange(len(y)), w.astype(int))
    weighted = OptimalTreeRegressor(depth=depth, lam=0.01, time_limit=None).fit(
        pd.DataFrame(X), y, sample_weight=w)
    duplicated = OptimalTreeRegressor(depth=depth, lam=0.01, time_limit=None).fit(
        pd.DataFrame(X[repeated]), y[repeated])
    assert weighted.stats_["search"] == duplicated.stats_["search"] == "binary"
    assert weighted.objective_ == pytest.approx(duplicated.objective_, abs=1e-12)
    np.testing.assert_allclose(weighted.predict(X), duplicated.predict(X), atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_the_interruptible_depth_three_loop_finds_the_same_optimum(seed, monkeypatch):
    """Large children of the depth-4 root loop in Python (here every child)."""
    from optrees.trees.search.regression import binary

    monkeypatch.setattr(binary, "INTERRUPTIBLE_WORK", 0)
    X, y, w = zero_one(seed, n=24, F=4)
    model = OptimalTreeRegressor(depth=4, lam=0.005, time_limit=1000).fit(
        pd.DataFrame(X), y, sample_weight=w)
    assert model.status_ == "optimal"
    assert model.objective_ == pytest.approx(optimum(X, y, w, 4, 0.005, 1), abs=1e-9)


def test_cart_before_a_large_search_is_kept_when_it_stops(monkeypatch):
    from sklearn.tree import DecisionTreeRegressor

    from optrees.trees.solve import regression

    monkeypatch.setattr(regression, "LARGE_CART_CELLS", 0)
    X, y, w = zero_one(9, n=24, F=4)
    result = solve_regression_tree(X, y, w, 4, 0.0, 1, Deadline(at=0.0))
    assert result.stats["search_nodes"] == 0
    cart = DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, y, sample_weight=w)
    assert result.objective <= sse_of(y, cart.predict(X), w) / sse(y, w) + 1e-9
    best = optimum(X, y, w, 4, 0.0, 1)
    assert result.objective > best - 1e-12
    assert (result.status == "optimal") == (result.bound >= result.objective - 1e-12)
    assert result.status != "optimal" or result.objective <= best + 1e-12


@pytest.mark.parametrize("seed,lam,min_leaf", [(0, 0.0, 1), (1, 0.01, 1), (2, 0.0, 3)])
def test_the_interruptible_depth_three_loop_costs_the_enumerated_optimum(seed, lam,
                                                                         min_leaf,
                                                                         monkeypatch):
    from optrees.trees.search.regression import binary

    monkeypatch.setattr(binary, "INTERRUPTIBLE_WORK", 0)
    X, y, w = zero_one(seed, n=30, F=5)
    scale = sse(y, w)
    stats = np.stack([w / scale, w * y / scale, w * y * y / scale], axis=1)
    data = binary.BinaryRegression(X > 0.5, stats, lam, min_leaf)
    rows = np.arange(len(y), dtype=np.int64)
    cost, _ = data.solve3(rows, np.inf, Deadline())
    assert cost == pytest.approx(optimum(X, y, w, 3, lam, min_leaf), abs=1e-9)
