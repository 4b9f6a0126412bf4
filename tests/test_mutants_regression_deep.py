"""Mutants of the deep regression trees (depths 5-8: ``search/regression/stacked.py`` and
``solve/regression_deep.py``) that ``test_regression_deep.py`` left alive: the polish at
depth 8, the leaf count given to the bound at depths 7-8, the k-means floor's 64 leaves,
the 15 quantile thresholds a column, and the statistics of a fit.  Every expected value is
computed here from the definition (weighted means in the leaves, ``SSE / (W var y) + lam *
leaves``), never from the package's objective."""

from __future__ import annotations

import time

import numpy as np
import pytest
from oracles import binary_regression_best, polished_stacked_cost, stacked_tree

from optrees import OptimalTreeRegressor


def _variance_times_weight(y: np.ndarray, w: np.ndarray) -> float:
    """``W var(y)``: the weighted squared deviations from the weighted mean."""
    return float(np.sum(w * (y - np.sum(w * y) / np.sum(w)) ** 2))


def _objective(leaf: np.ndarray, y: np.ndarray, w: np.ndarray, lam: float) -> float:
    """``SSE / (W var y) + lam * leaves`` of the partition ``leaf`` (a leaf id a row), each
    leaf predicting the weighted mean of its rows."""
    sse = 0.0
    for k in np.unique(leaf):
        r = leaf == k
        sse += float(np.sum(w[r] * (y[r] - np.sum(w[r] * y[r]) / np.sum(w[r])) ** 2))
    return sse / _variance_times_weight(y, w) + lam * len(np.unique(leaf))


@pytest.mark.parametrize("seed", [2, 4])
def test_a_depth_8_tree_is_the_polished_stacked_tree(seed):
    """At depth 8 (pieces 3 + 3 + 2) the stacked tree is polished: on 10 0/1 columns, where
    depth 8 does not isolate every cell, the polish is strictly cheaper than the stacked
    tree, and the fit returns the polished cost of the definition."""
    rng = np.random.default_rng(seed)
    n, F, lam = 150, 10, 0.001
    X = (rng.random((n, F)) < 0.5).astype(np.int8)
    y = X @ rng.normal(size=F) + X[:, 0] * X[:, 1] * 2 + rng.normal(scale=0.5, size=n)
    w = rng.uniform(0.5, 1.5, n)  # real weights and targets: every optimum unique
    var = _variance_times_weight(y, w)
    best, rows = binary_regression_best(X, y, w, 1, lam * var), tuple(range(n))
    stacked = stacked_tree(X, best, rows, 8)[0] / var
    polished = polished_stacked_cost(X, y, w, lam * var, best, rows, 8) / var
    assert polished < stacked - 1e-4  # the polish matters on this instance
    model = OptimalTreeRegressor(depth=8, lam=lam, time_limit=60).fit(X, y, sample_weight=w)
    assert model.stats_["search_start"].startswith("stacked subtrees (depth 3 + 3 + 2), returned")
    assert model.objective_ == pytest.approx(_objective(model.apply(X), y, w, lam), abs=1e-9)
    assert model.objective_ == pytest.approx(polished, abs=1e-9)


@pytest.mark.parametrize("depth", [7, 8])
def test_the_bound_allows_a_tree_of_more_than_64_leaves(depth):
    """The bound holds for every tree of the depth, also those of more leaves than the
    k-means floors cover (64): 128 well separated clusters along one numeric column, each
    of one target value, which a balanced depth-7 tree built here isolates (SSE 0) while
    the package's own tree (15 quantile and CART's thresholds) does not."""
    rng = np.random.default_rng(depth)
    K = 128
    x = np.repeat(np.arange(K) * 10.0, 2) + np.tile([0.0, 1.0], K)
    y = np.repeat(rng.permutation(K).astype(float), 2)  # 128 distinct targets
    w = rng.uniform(0.5, 1.5, 2 * K)
    model = OptimalTreeRegressor(depth=depth, lam=0.0, time_limit=60).fit(
        x[:, None], y, sample_weight=w)
    # the depth-7 tree that halves the sorted clusters at every level: leaf = cluster
    cut = np.arange(1, K) * 10.0 - 4.5  # thresholds between neighbouring clusters
    lo, hi = np.zeros(len(x), dtype=int), np.full(len(x), K)
    for _ in range(7):  # each level sends a row to the half of [lo, hi) holding it
        mid = (lo + hi) // 2
        right = x > cut[mid - 1]
        lo, hi = np.where(right, mid, lo), np.where(right, hi, mid)
    leaf = lo  # [lo, hi) is one cluster after 7 halvings
    assert len(np.unique(leaf)) == K
    hand = _objective(leaf, y, w, 0.0)
    assert hand == pytest.approx(0.0, abs=1e-12)
    assert model.objective_ > hand + 1e-6  # the package's tree is worse: no clamp hides it
    assert model.bound_ <= hand + 1e-9
    assert model.status_ == "heuristic"


def test_the_kmeans_floor_of_64_leaves_proves_an_exact_depth_6_fit():
    """At depth 6 the bound takes the k-means floor up to 64 leaves: y takes 64 equally
    spaced values, one a cell of six 0/1 columns (two more are noise), so the 64-leaf tree
    costs 64 lam and no partition into fewer groups saves a merge (each costs more than lam
    here); the floor of 64 groups (0) proves the fit, and the k-means statistic (the floor
    with the most leaves, without penalties) is that 0."""
    rng = np.random.default_rng(0)
    cells = (np.arange(64)[:, None] >> np.arange(6)) & 1
    X = np.tile(cells, (5, 1))
    X = np.hstack([X, rng.integers(0, 2, (len(X), 2))]).astype(np.int8)
    y = X[:, :6] @ (2.0 ** np.arange(6))
    w = np.ones(len(y))
    # merging the two closest groups (5 rows each, 1 apart) costs 10 / 4 / (W var y)
    merge = 10 / 4 / _variance_times_weight(y, w)
    lam = 1e-5
    assert merge > 2 * lam
    model = OptimalTreeRegressor(depth=6, lam=lam, time_limit=60).fit(X, y)
    assert model.objective_ == pytest.approx(_objective(model.apply(X), y, w, lam), abs=1e-12)
    assert model.objective_ == pytest.approx(64 * lam, abs=1e-12)
    assert model.bound_ == pytest.approx(64 * lam, abs=1e-12)
    assert model.status_ == "optimal" and model.gap_ == pytest.approx(0.0, abs=1e-9)
    assert model.stats_["kmeans_bound"] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("values,every", [(16, True), (17, False)])
def test_fifteen_quantile_thresholds_a_column(values, every):
    """15 quantile thresholds a numeric column (documented): a column of 16 distinct values
    needs 15 and keeps every threshold ("all"); one of 17 needs 16 and loses one
    ("binarized")."""
    rng = np.random.default_rng(values)
    x = np.repeat(np.arange(values, dtype=float), 4)
    y = np.sin(x) + rng.normal(scale=0.1, size=len(x))
    model = OptimalTreeRegressor(depth=5, lam=0.001, time_limit=60).fit(x[:, None], y)
    assert model.thresholds_ == ("all" if every else "binarized")
    if every:  # every gap is a test
        assert model.stats_["split_features"] == values - 1


def test_fifteen_quantile_thresholds_and_cart_s():
    """A column of 1,000 distinct values with a single step at its median: the 0/1 tests
    are the 15 weighted quantile cuts (numpy's "lower" quantiles at k/16, cut halfway to the
    next value) and CART's one threshold, which is the median cut among them; the tree is
    that one split."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=1000)
    xs = np.sort(x)
    median_cut = (xs[499] + xs[500]) / 2  # position floor(999 / 2) = 499
    y = (x > median_cut).astype(float)
    model = OptimalTreeRegressor(depth=5, lam=0.01, time_limit=60).fit(x[:, None], y)
    assert model.stats_["split_features"] == 15
    assert model.tree_.n_leaves == 2
    assert model.objective_ == pytest.approx(0.02, abs=1e-9)
    split = model.tree_.feature >= 0
    assert model.tree_.threshold[split] == pytest.approx([median_cut])


def test_the_statistics_of_a_deep_fit():
    """The statistics: the search's seconds lie within the fit's wall time, its backend is
    numba where the stacked search ran and "none" where it did not (one row: no test), and
    no search proves anything on the deep path (the stacked search is never marked optimal,
    CART is an incumbent): a proof is the bound's alone, as for the one-row leaf."""
    X1, y1 = np.array([[0.0, 1.0]]), np.array([3.0])
    OptimalTreeRegressor(depth=5, time_limit=60).fit(X1, y1)  # kernels loaded: a warm start
    t0 = time.perf_counter()
    one = OptimalTreeRegressor(depth=5, lam=0.01, time_limit=60).fit(X1, y1)
    wall = time.perf_counter() - t0
    assert 0.0 <= one.stats_["search_seconds"] <= wall
    assert one.tree_.n_leaves == 1
    assert one.status_ == "optimal" and one.bound_ == pytest.approx(one.objective_)
    assert one.stats_["search_backend"] == "none"
    assert one.stats_["search_optimal"] is False

    rng = np.random.default_rng(1)
    X = (rng.random((80, 6)) < 0.5).astype(np.int8)
    y = X @ rng.normal(size=6) + rng.normal(scale=0.3, size=80)
    t0 = time.perf_counter()
    model = OptimalTreeRegressor(depth=5, lam=0.001, time_limit=60).fit(X, y)
    wall = time.perf_counter() - t0
    assert model.stats_["search_start"].startswith("stacked subtrees (depth 3 + 2)")
    assert model.stats_["search_backend"] == "numba"
    assert model.stats_["search_optimal"] is False
    assert 0.0 <= model.stats_["search_seconds"] <= wall
