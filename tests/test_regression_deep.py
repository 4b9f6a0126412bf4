"""Regression trees deeper than the exact search (depths 5-8): the stacked tree, whose value
the test computes from the definition (weighted means in the leaves, every tree of each
piece enumerated), CART as its floor, a bound below the enumerated optimum, and the honest
status."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from oracles import (
    binary_regression_best,
    enumerate_best,
    polished_stacked_cost,
    stacked_tree,
)
from sklearn.tree import DecisionTreeRegressor

from optrees import OptimalTreeRegressor, OptimalTreeRegressorCV, TimeLimitWarning, load_dataset
from optrees._validation import OptreesInputError


def _instance(seed: int, n: int = 60, F: int = 7):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, F)) < 0.5).astype(np.int8)
    y = X @ rng.normal(size=F) + X[:, 0] * X[:, 1] * 2 + rng.normal(scale=0.5, size=n)
    w = rng.uniform(0.5, 1.5, n)  # real weights and targets: every optimum unique
    return X, y, w


def _normalised(X, y, w, lam):
    var = np.sum(w * (y - np.sum(w * y) / np.sum(w)) ** 2)  # = W var(y)
    return var, lam * var


def _objective_of(model, X, y, w, lam) -> float:
    """SSE / (W var y) + lam * leaves of a fitted tree, from its predictions."""
    var, _ = _normalised(X, y, w, lam)
    return float(np.sum(w * (y - model.predict(X)) ** 2) / var + lam * _leaves(model))


def _leaves(model) -> int:
    return model.get_n_leaves() if hasattr(model, "get_n_leaves") else model.tree_.n_leaves


@pytest.mark.parametrize("seed,depth,lam,min_leaf,n",
                         [(0, 5, 0.01, 1, 60), (2, 5, 0.002, 1, 60), (2, 6, 0.005, 1, 60),
                          (4, 5, 0.01, 3, 60), (4, 7, 0.001, 1, 60), (5, 8, 0.0, 2, 60),
                          (6, 5, 0.002, 1, 150), (7, 6, 0.001, 1, 150),
                          (8, 7, 0.002, 2, 150), (9, 8, 0.001, 1, 150)])
def test_a_deep_tree_is_the_stacked_tree_of_the_definition(seed, depth, lam, min_leaf, n):
    X, y, w = _instance(seed, n)
    model = OptimalTreeRegressor(depth=depth, lam=lam, min_samples_leaf=min_leaf,
                                 time_limit=60, random_state=0).fit(X, y, sample_weight=w)
    var, leaf_cost = _normalised(X, y, w, lam)
    best = binary_regression_best(X, y, w, min_leaf, leaf_cost)
    stacked = polished_stacked_cost(X, y, w, leaf_cost, best, tuple(range(len(y))),
                                    depth, min_leaf) / var
    cart = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=min_leaf,
                                 random_state=0).fit(X, y, sample_weight=w)
    assert model.status_ == "heuristic"
    assert model.objective_ == pytest.approx(_objective_of(model, X, y, w, lam), abs=1e-9)
    assert model.objective_ <= min(stacked, _objective_of(cart, X, y, w, lam)) + 1e-9
    assert ", returned" in model.stats_["search_start"]  # cases where it beats CART
    assert model.objective_ == pytest.approx(stacked, abs=1e-9)
    # the bound holds for every tree of the depth: below the enumerated optimum
    assert model.bound_ <= best(tuple(range(len(y))), depth)[0] / var + 1e-9
    assert model.thresholds_ == "all"  # 0/1 columns: no threshold left out
    leaf_rows = np.bincount(model.apply(X), minlength=model.tree_.n_nodes)
    assert leaf_rows[model.tree_.feature < 0].min() >= min_leaf


def test_the_stacked_tree_is_returned_where_it_beats_cart():
    returned = 0
    for seed in range(6):
        X, y, w = _instance(seed)
        model = OptimalTreeRegressor(depth=5, lam=0.002, time_limit=60).fit(X, y, w)
        returned += model.stats_["search_start"].startswith(
            "stacked subtrees (depth 3 + 2), returned")
    assert returned >= 4  # else the equality of the test above is rarely checked


def test_numeric_columns_are_binarized_and_cart_is_the_floor():
    rng = np.random.default_rng(7)
    df = pd.DataFrame({"a": rng.normal(size=300), "b": rng.integers(0, 50, 300),
                       "c": rng.choice(["x", "y", "z"], 300)})
    y = np.sin(3 * df.a) + 0.05 * df.b + (df.c == "y") + rng.normal(scale=0.2, size=300)
    model = OptimalTreeRegressor(depth=6, lam=0.0, time_limit=60).fit(df, y)
    assert model.status_ == "heuristic" and model.thresholds_ == "binarized"
    assert model.stats_["search_start"].startswith("stacked subtrees (depth 3 + 3)")
    X = model.encoder_.transform(df)
    cart = DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, y)
    w = np.ones(len(y))
    assert model.objective_ == pytest.approx(_objective_of(model, df, y, w, 0.0), abs=1e-9)
    assert model.objective_ <= _objective_of(cart, X, y, w, 0.0) + 1e-9
    assert 0 <= model.bound_ <= model.objective_ and 0 <= model.gap_ <= 1
    assert "<=" in model.export_text()


def test_a_deep_fit_out_of_time_returns_at_least_cart(monkeypatch):
    from optrees.trees.search.regression import stacked

    X, y, w = _instance(3, n=200, F=8)
    calls = []
    real = stacked.search_binary

    def stop_after_the_top(data, depth, deadline=None, lower=0.0):
        calls.append(depth)
        out = real(data, depth, deadline, lower)
        deadline.stop()  # as if the time ran out after the first piece
        return out

    monkeypatch.setattr(stacked, "search_binary", stop_after_the_top)
    with pytest.warns(TimeLimitWarning):
        model = OptimalTreeRegressor(depth=6, lam=0.001, time_limit=60).fit(X, y, w)
    assert model.status_ in ("time_limit", "interrupted")
    cart = DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, y, sample_weight=w)
    assert model.objective_ <= _objective_of(cart, X, y, w, 0.001) + 1e-9
    assert model.bound_ <= model.objective_


def test_a_leaf_budget_beyond_depth_4_is_refused():
    X, y, w = _instance(0)
    with pytest.raises(OptreesInputError, match="max_leaves needs depth <= 4"):
        OptimalTreeRegressor(depth=5, max_leaves=6).fit(X, y)
    with pytest.raises(ValueError, match="upper bound 8"):
        OptimalTreeRegressor(depth=9).fit(X, y)


def test_cv_takes_deep_depths_by_fits():
    X, y, w = _instance(1, n=120)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TimeLimitWarning)
        cv = OptimalTreeRegressorCV(depths=(2, 5), lams=(0.001, 0.01), cv=3,
                                    time_limit=120).fit(X, y)
    assert "stacked tree" in cv.path_off_[5] or cv.path_off_[5].startswith("lams is a list")
    assert set(cv.cv_results_["param_depth"]) == {2, 5}
    deep = np.asarray(cv.cv_results_["param_depth"]) == 5  # stacked: finished, not proved
    assert (cv.cv_results_["n_unproved_folds"][deep] == 3).all()
    assert not cv.cv_results_["n_stopped_folds"].any()
    assert (cv.cv_results_["n_unproved_folds"][~deep] == 0).all()
    path = OptimalTreeRegressorCV(depths=(5,), lams="path", cv=3, time_limit=120).fit(X, y)
    assert path.path_off_[5].startswith("depth 5 > 4")
    assert path.best_estimator_.status_ == "heuristic"


@pytest.mark.parametrize("seed,n,F", [(11, 80, 7), (12, 600, 12)])
def test_the_bound_is_the_kmeans_floor_and_proves_an_exact_fit(seed, n, F):
    # y takes 4 values set by two of F columns: 4 leaves cost 4 lam, and the k-means floor
    # of 4 groups is 0, so no tree costs less: the bound proves the stacked tree.  600 rows
    # of 12 columns are nearly all distinct (the equivalent-points bound is about 0), past
    # numpy's 500 atoms: only the compiled k-means floor proves it there
    rng = np.random.default_rng(seed)
    X = (rng.random((n, F)) < 0.5).astype(np.int8)
    y = X[:, 2] + 2.0 * X[:, 5]
    model = OptimalTreeRegressor(depth=5, lam=0.01, time_limit=60).fit(X, y)
    assert model.objective_ == pytest.approx(0.04, abs=1e-9)
    assert model.bound_ == pytest.approx(0.04, abs=1e-9)
    assert model.status_ == "optimal" and model.gap_ == 0
    assert model.stats_["kmeans_bound"] == pytest.approx(0.0, abs=1e-9)  # 32 leaves: 0


def test_the_bound_covers_trees_with_more_leaves_than_the_floors():
    # 100 distinct rows (7 bits of the row number): a depth-7 tree isolates each, SSE 0;
    # the bound must allow it although the k-means floors stop at 64 leaves
    n = 100
    X = ((np.arange(n)[:, None] >> np.arange(7)) & 1).astype(np.int8)
    y = np.random.default_rng(3).normal(size=n)
    model = OptimalTreeRegressor(depth=7, lam=0.0, time_limit=60).fit(X, y)
    assert model.objective_ == pytest.approx(0.0, abs=1e-9)
    assert model.bound_ <= 1e-9


@pytest.mark.parametrize("lam,most", [(0.5, 8), (0.05, 8), (2.0, 4), (0.0, 16)])
def test_the_bound_is_the_least_floor_plus_penalties_over_every_leaf_count(lam, most):
    from optrees.trees.solve.regression_deep import _bound

    floors, lower = np.array([5.0, 3.0, 2.5, 2.4]), 1.0  # k-means floors of 1-4 leaves
    # a tree of k leaves costs at least its floor (the equivalent-points one past 4) + lam k
    expected = min((floors[k - 1] if k <= 4 else lower) + lam * k for k in range(1, most + 1))
    assert _bound(floors, lower, lam, most) == pytest.approx(expected)
    assert _bound(None, lower, lam, most) == pytest.approx(lower + lam)


def test_no_time_for_the_search_returns_cart_as_stopped(monkeypatch):
    from optrees.trees.solve import regression_deep

    monkeypatch.setattr(regression_deep, "binary_kernels_usable", lambda *a, **k: False)
    X, y, w = _instance(2, n=120)
    with pytest.warns(TimeLimitWarning):
        model = OptimalTreeRegressor(depth=5, lam=0.001, time_limit=60).fit(X, y, w)
    assert model.status_ == "time_limit"
    assert model.stats_["search_start"].startswith("CART (no time for the 0/1 kernels)")
    cart = DecisionTreeRegressor(max_depth=5, random_state=0).fit(X, y, sample_weight=w)
    assert model.objective_ <= _objective_of(cart, X, y, w, 0.001) + 1e-9


@pytest.mark.parametrize("depth", [5, 7])  # 5: the polish windows lie in the top piece
def test_no_piece_starts_after_the_deadline(monkeypatch, depth):
    from optrees.trees.search.regression import stacked

    X, y, w = _instance(4, n=200, F=8)
    started = []
    real = stacked.search_binary

    def record(data, depth, deadline=None, lower=0.0):
        started.append(deadline.expired())
        out = real(data, depth, deadline, lower)
        deadline.stop()
        return out

    monkeypatch.setattr(stacked, "search_binary", record)
    with pytest.warns(TimeLimitWarning):
        OptimalTreeRegressor(depth=depth, lam=0.0, time_limit=60).fit(X, y, w)
    assert started == [False]  # the top piece; after it, no piece and no polish


@pytest.mark.parametrize("depth", [5, 7])
def test_a_root_leaf_stays_a_leaf(depth):
    # no split pays lam = 0.5 (a split saves at most the whole normalised loss, 1, and here
    # much less): the stacked tree and the answer are one leaf
    X, y, w = _instance(9)
    model = OptimalTreeRegressor(depth=depth, lam=0.5, time_limit=60).fit(X, y, w)
    assert model.tree_.n_leaves == 1
    assert model.objective_ == pytest.approx(1.5, abs=1e-9)


def test_the_stacked_search_takes_depths_5_to_8_only():
    from optrees.trees.search.regression.binary import BinaryRegression
    from optrees.trees.search.regression.stacked import search_stacked

    X, y, w = _instance(0)
    data = BinaryRegression(X, np.stack([w, w * y, w * y * y], axis=-1))
    for depth in (4, 9):
        with pytest.raises(ValueError, match="stacked trees take depths 5-8"):
            search_stacked(data, depth)


def test_a_window_search_that_finds_less_keeps_the_subtree(monkeypatch):
    # the polish windows' depth-3 searches (the only depth-3 searches on part of the rows
    # at depth 5) made to return a leaf, as a search stopped at once does: the polish keeps
    # the stacked subtrees, and the answer is the stacked tree without polish
    from optrees.trees.search.regression import stacked
    from optrees.trees.search.regression.search import RegressionFound

    X, y, w = _instance(6, 150)
    real = stacked.search_binary

    def stopped_windows(data, depth, deadline=None, lower=0.0):
        if depth == 3 and data.n < len(y):
            rows = np.arange(data.n)
            return RegressionFound(None, data.leaf(rows), 0.0, False, 0)
        return real(data, depth, deadline, lower)

    monkeypatch.setattr(stacked, "search_binary", stopped_windows)
    lam = 0.002
    model = OptimalTreeRegressor(depth=5, lam=lam, time_limit=60).fit(X, y, w)
    var, leaf_cost = _normalised(X, y, w, lam)
    best = binary_regression_best(X, y, w, 1, leaf_cost)
    assert ", returned" in model.stats_["search_start"]
    assert model.objective_ == pytest.approx(
        stacked_tree(X, best, tuple(range(len(y))), 5)[0] / var, abs=1e-9)


@pytest.mark.parametrize("max_leaves,refused", [(6, True), (31, True), (32, False),
                                                (40, False)])
def test_a_leaf_budget_below_the_depth_is_refused_and_one_above_is_no_budget(max_leaves,
                                                                            refused):
    X, y, w = _instance(0)
    if refused:
        with pytest.raises(OptreesInputError, match="max_leaves needs depth <= 4"):
            OptimalTreeRegressor(depth=5, max_leaves=max_leaves).fit(X, y)
    else:  # every tree of depth 5 keeps within 32 leaves: the same fit as without
        fit = OptimalTreeRegressor(depth=5, max_leaves=max_leaves).fit(X, y)
        assert fit.objective_ == OptimalTreeRegressor(depth=5).fit(X, y).objective_


def test_cart_thresholds_join_the_quantile_ones():
    # one column of 1,000 distinct values: 15 quantile tests, and CART's depth-5 thresholds
    # (midpoints between data values, not quantiles) on top of them
    rng = np.random.default_rng(2)
    x = rng.normal(size=1000)
    y = np.sin(4 * x) + rng.normal(scale=0.1, size=1000)
    model = OptimalTreeRegressor(depth=5, time_limit=60).fit(x[:, None], y)
    assert model.stats_["split_features"] > 15


@pytest.mark.parametrize("seed,min_leaf", [(1, 4)])  # (the polish matters here)
def test_a_deep_tree_under_min_leaf_is_no_worse_than_the_depth_3_optimum(seed, min_leaf):
    """Deeper is never worse where the bottom polish reaches the top: on numeric columns
    (the stacked pieces see 15 quantile thresholds) with a leaf-size limit, the deep fit
    costs at most the enumerated optimum of depth 3 over every threshold (without the
    polish, 0.4311 at depth 5 against 0.4293 at depth 4 on diabetes, min_leaf 20)."""
    rng = np.random.default_rng(seed)
    n = 22
    X = np.round(rng.normal(size=(n, 2)), 2)
    y = np.sin(3 * X[:, 0]) + X[:, 1] ** 2 + rng.normal(scale=0.2, size=n)
    w = np.ones(n)
    var, leaf_cost = _normalised(X, y, w, 0.0)
    optimum = enumerate_best(X, y, w, 3, leaf_cost, min_leaf) / var
    model = OptimalTreeRegressor(depth=5, lam=0.0, min_samples_leaf=min_leaf,
                                 time_limit=60).fit(X, y)
    assert model.objective_ == pytest.approx(_objective_of(model, X, y, w, 0.0), abs=1e-9)
    assert model.objective_ <= optimum + 1e-9
    leaf_rows = np.bincount(model.apply(X), minlength=model.tree_.n_nodes)
    assert leaf_rows[model.tree_.feature < 0].min() >= min_leaf


def test_the_polish_skips_subtrees_too_small_to_split_and_keeps_their_place():
    """liver-disorders at depth 6: some largest subtrees of at most three levels hold one
    row; skipping them must not shift which subtree a better one replaces (it raised
    StopIteration there).  The tree's objective is the one of its own predictions."""
    X, y = load_dataset("liver-disorders")
    model = OptimalTreeRegressor(depth=6, lam=0.0, time_limit=None).fit(X, y)
    w = np.ones(len(y))
    assert model.objective_ == pytest.approx(_objective_of(model, X, y, w, 0.0), abs=1e-9)
    assert "bottom subtrees searched over every threshold" in model.stats_["search_start"]
