"""OptimalTreeRegressor and the regression search over every threshold (issue #43).

The oracle is written here from the definition: a leaf costs the weighted sum of squared
deviations of its rows from their weighted mean, a tree the sum over its leaves plus
``lam * W * var(y)`` per leaf (the estimator reports that divided by ``W * var(y)``), and
every tree of depth <= D over every threshold (a midpoint between two distinct values of
the rows at a node), with at least ``m`` rows per leaf, is enumerated.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from deadlines import CountedDeadline
from estimator_matrix import _SPARSE_WEIGHTS
from oracles import enumerate_best, leaf_sizes, sse
from sklearn.base import clone
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils.estimator_checks import parametrize_with_checks

from optrees import OptimalTreeRegressor, OptreesInputError, TimeLimitWarning
from optrees.solvers.deadline import TimeUp
from optrees.trees.problem.objectives.squared_error import SquaredError
from optrees.trees.search.regression import RegressionData, kernels, search_tree
from optrees.trees.search.regression.depth2_front import depth2_front


# ---------------------------------------------------------------------------- the oracle
def normaliser(y: np.ndarray, w: np.ndarray) -> float:
    """``W * var(y)`` with the weighted variance (the estimator's unit)."""
    return sse(y, w) or float(np.sum(w))


def optimum(X, y, w, depth, lam, min_leaf):
    """The estimator's objective of the best tree, from the enumeration."""
    scale = normaliser(y, w)
    return enumerate_best(X, y, w, depth, lam * scale, min_leaf) / scale


def training_objective(model, X, y, w, lam) -> float:
    """The objective of a fitted model recomputed from its predictions."""
    pred = model.predict(X)
    return float(np.sum(w * (y - pred) ** 2)) / normaliser(y, w) + lam * model.tree_.n_leaves


def instance(seed: int, n: int = 12, F: int = 3, levels: int = 4, weights: bool = True):
    """Small random data with repeated values (``levels`` per column), repeated rows and
    integer weights."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n, F)).astype(float)
    X[n - 2] = X[0]                     # identical rows with different targets
    y = rng.normal(size=n) + 2 * X[:, 0]
    y[n - 3] = y[1]                     # a tie in y
    w = rng.integers(1, 4, size=n).astype(float) if weights else np.ones(n)
    return pd.DataFrame(X, columns=[f"c{j}" for j in range(F)]), y, w


CASES = [(seed, depth, lam, min_leaf) for seed in range(4) for depth in (1, 2, 3)
         for lam, min_leaf in ((0.0, 1), (0.05, 1), (0.0, 2), (0.02, 3))]


# ---------------------------------------------------------------------------- exactness
@pytest.mark.parametrize("seed,depth,lam,min_leaf", CASES)
def test_the_certified_optimum_is_the_enumerated_one(seed, depth, lam, min_leaf):
    df, y, w = instance(seed)
    model = OptimalTreeRegressor(depth=depth, lam=lam, min_samples_leaf=min_leaf,
                                 time_limit=None).fit(df, y, sample_weight=w)
    best = optimum(df.to_numpy(), y, w, depth, lam, min_leaf)
    assert model.status_ == "optimal" and model.thresholds_ == "all"
    assert model.objective_ == pytest.approx(best, abs=1e-9)
    assert model.bound_ == pytest.approx(best, abs=1e-9) and model.gap_ == 0.0
    # the returned tree is a real tree of that cost, depth and leaf size
    assert training_objective(model, df, y, w, lam) == pytest.approx(best, abs=1e-9)
    assert model.tree_.depth <= depth
    leaves = model.tree_.feature == -1
    assert (model.tree_.count[leaves] >= min_leaf).all()


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("depth,max_leaves", [(2, 1), (2, 3), (3, 2), (3, 3), (3, 5),
                                              (3, 7)])
def test_a_leaf_budget_gives_the_enumerated_optimum(seed, depth, max_leaves):
    df, y, w = instance(30 + seed, n=10, levels=4)
    X = df.to_numpy()
    for lam, min_leaf in ((0.0, 1), (0.02, 2)):
        model = OptimalTreeRegressor(depth=depth, lam=lam, min_samples_leaf=min_leaf,
                                     max_leaves=max_leaves, time_limit=None)
        model.fit(df, y, sample_weight=w)
        scale = normaliser(y, w)
        best = enumerate_best(X, y, w, depth, lam * scale, min_leaf, max_leaves) / scale
        assert model.status_ == "optimal"
        assert model.objective_ == pytest.approx(best, abs=1e-9)
        assert model.tree_.n_leaves <= max_leaves
        assert training_objective(model, df, y, w, lam) == pytest.approx(best, abs=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_unweighted_and_wider_instances_match_the_enumeration(seed):
    df, y, w = instance(10 + seed, n=16, F=2, levels=6, weights=False)
    for depth in (2, 3):
        model = OptimalTreeRegressor(depth=depth, time_limit=None).fit(df, y)
        assert model.objective_ == pytest.approx(
            optimum(df.to_numpy(), y, w, depth, 0.0, 1), abs=1e-9)


def test_a_categorical_column_is_split_one_hot():
    rng = np.random.default_rng(5)
    colour = rng.choice(["red", "green", "blue"], size=14)
    x = rng.integers(0, 4, size=14).astype(float)
    y = (colour == "green") * 3.0 + x + rng.normal(size=14) * 0.1
    df = pd.DataFrame({"colour": colour, "x": x})
    model = OptimalTreeRegressor(depth=2, time_limit=None).fit(df, y)
    onehot = np.column_stack([colour == c for c in ("blue", "green", "red")] + [x]).astype(float)
    assert model.objective_ == pytest.approx(optimum(onehot, y, np.ones(14), 2, 0.0, 1),
                                             abs=1e-9)
    text = model.export_text()
    assert "colour" in text and "value:" in text and "(n=" in text
    assert "<= 0.5" not in text        # a category reads as a test, not as a threshold


SOLVERS = {"intervals": (0, None, False), "dense": (10**9, None, False),
           "compiled": (0, "squared_error", False), "fronts": (0, "squared_error", True),
           "specialised": (0, "squared_error_copy", False),
           "specialised-fronts": (0, "squared_error_copy", True)}


class _SquaredErrorCopy(SquaredError):
    """Squared error under another name: its kernels are the copies the factory makes
    with :meth:`SquaredError.leaf_cost_kernel`, not the module's own."""

    name = "squared_error_copy"


def _kernel(name: str | None):
    """The compiled kernels of the objective named (None: numpy only)."""
    if name is None:
        return None
    kernel = kernels.for_objective(SquaredError() if name == "squared_error"
                                   else _SquaredErrorCopy())
    assert (kernel is kernels) == (name == "squared_error")
    return kernel


@pytest.mark.parametrize("solver", list(SOLVERS))
@pytest.mark.parametrize("seed", range(6))
def test_every_depth2_solver_matches_the_enumeration(seed, solver):
    """Depth-2 subproblems by the interval search, the vectorized kernel or the compiled
    ones (the pruned search, or the front of every leaf count a λ-path shares): the same
    optimum."""
    dense_limit, kernel, fronts = SOLVERS[solver]
    if kernel is not None and not kernels.available():
        pytest.skip("numba is not installed")
    df, y, w = instance(20 + seed, n=13, levels=5)
    X = df.to_numpy()
    objective = SquaredError()
    for depth, pen, min_leaf in ((2, 0.0, 1), (2, 0.3, 2), (3, 0.0, 1), (3, 0.05, 2)):
        data = RegressionData(X, objective.row_stats(y, w), objective.leaf_cost, pen, min_leaf,
                              _kernel(kernel), fronts=fronts)
        found = search_tree(data, depth, dense_limit=dense_limit)
        assert found.optimal
        assert found.cost == pytest.approx(enumerate_best(X, y, w, depth, pen, min_leaf),
                                           abs=1e-9)
        assert _nested_cost(found.tree, X, y, w, pen) == pytest.approx(found.cost, abs=1e-9)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("min_leaf", [1, 3])
def test_the_depth2_front_is_the_enumerated_best_of_each_leaf_count(seed, min_leaf):
    """Every leaf count's entry of a depth-2 front (the λ-path's and the leaf budget's
    building block) is the least SSE of a tree with at most that many leaves, with and
    without the leaf size limit, and its tree is a real one of that cost."""
    if not kernels.available():
        pytest.skip("numba is not installed")
    df, y, w = instance(60 + seed, n=14, levels=5)
    X = df.to_numpy()
    objective = SquaredError()
    data = RegressionData(X, objective.row_stats(y, w), objective.leaf_cost, 0.0, min_leaf,
                          _kernel("squared_error"))
    front = depth2_front(data, data.root(), min_leaf)
    for k in range(1, 5):
        best = enumerate_best(X, y, w, 2, 0.0, min_leaf, k)
        assert front.limited[k - 1] == pytest.approx(best, abs=1e-9)
        assert front.free[k - 1] == pytest.approx(enumerate_best(X, y, w, 2, 0.0, 1, k),
                                                  abs=1e-9)
        tree = front.trees[k - 1]
        rows = leaf_sizes(tree, X)
        assert len(rows) <= k and min(rows) >= min_leaf
        assert _nested_cost(tree, X, y, w, 0.0) == pytest.approx(best, abs=1e-9)
    for pen, budget in ((0.0, None), (0.4, None), (0.1, 2), (0.0, 3)):
        cost, _, tree = front.at(pen, budget)
        best = enumerate_best(X, y, w, 2, pen, min_leaf, budget or 4)
        assert cost == pytest.approx(best, abs=1e-9)
        assert _nested_cost(tree, X, y, w, pen) == pytest.approx(best, abs=1e-9)
    # the memo (shared by a path's searches) keeps one front per subset and leaf size
    unlimited = depth2_front(data, data.root(), 1)
    for k in range(1, 5):
        assert unlimited.limited[k - 1] == pytest.approx(
            enumerate_best(X, y, w, 2, 0.0, 1, k), abs=1e-9)


def test_the_equivalent_points_bound_is_the_sse_within_identical_rows():
    X = np.array([[0.0, 1], [0, 1], [1, 0], [1, 0], [2, 2]])
    y = np.array([1.0, 3.0, 0.0, 4.0, 9.0])
    w = np.array([1.0, 1.0, 2.0, 2.0, 5.0])
    expected = sse(y[:2], w[:2]) + sse(y[2:4], w[2:4])
    assert SquaredError().lower_bound(X, y, w) == pytest.approx(expected)


# ---------------------------------------------------------------------------- weights
def test_integer_weights_equal_duplicated_rows():
    df, y, w = instance(3, n=14)
    k = w.astype(int)
    weighted = OptimalTreeRegressor(depth=2, lam=0.01, time_limit=None).fit(
        df, y, sample_weight=w)
    repeated = OptimalTreeRegressor(depth=2, lam=0.01, time_limit=None).fit(
        df.loc[df.index.repeat(k)].reset_index(drop=True), np.repeat(y, k))
    assert weighted.objective_ == pytest.approx(repeated.objective_, abs=1e-12)
    np.testing.assert_allclose(weighted.predict(df), repeated.predict(df))


def test_weight_zero_rows_are_as_if_absent():
    df, y, w = instance(4, n=14)
    w[[2, 5]] = 0.0
    keep = w > 0
    zero = OptimalTreeRegressor(depth=2, time_limit=None).fit(df, y, sample_weight=w)
    without = OptimalTreeRegressor(depth=2, time_limit=None).fit(
        df[keep].reset_index(drop=True), y[keep], sample_weight=w[keep])
    assert zero.objective_ == pytest.approx(without.objective_, abs=1e-12)


# ---------------------------------------------------------------------------- CART
def cart_objective(df, y, w, depth, min_leaf, lam=0.0):
    cart = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=min_leaf, random_state=0)
    cart.fit(df.to_numpy(), y, sample_weight=w)
    pred = cart.predict(df.to_numpy())
    return float(np.sum(w * (y - pred) ** 2)) / normaliser(y, w) + lam * cart.get_n_leaves()


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_training_loss_is_at_most_carts(depth):
    n = 120 if depth < 3 else 50
    rng = np.random.default_rng(depth)
    X = rng.normal(size=(n, 4))
    y = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + rng.normal(size=n) * 0.3
    df, w = pd.DataFrame(X, columns=list("abcd")), np.ones(n)
    for min_leaf in (1, 5):
        model = OptimalTreeRegressor(depth=depth, min_samples_leaf=min_leaf,
                                     time_limit=None).fit(df, y)
        assert model.objective_ <= cart_objective(df, y, w, depth, min_leaf) + 1e-12


@pytest.mark.parametrize("kernel", [None, "squared_error"], ids=["numpy", "compiled"])
@pytest.mark.parametrize("checks", [0, 1, 3, 10, 40])
def test_a_stopped_search_keeps_a_valid_bound_and_a_real_tree(checks, kernel):
    if kernel is not None and not kernels.available():
        pytest.skip("numba is not installed")
    df, y, w = instance(1, n=13)
    X = df.to_numpy()
    objective = SquaredError()
    best = enumerate_best(X, y, w, 3, 0.2, 1)
    data = RegressionData(X, objective.row_stats(y, w), objective.leaf_cost, 0.2, 1,
                          _kernel(kernel))
    found = search_tree(data, 3, CountedDeadline(checks),
                        lower=objective.lower_bound(X, y, w))
    assert found.bound <= best + 1e-12 <= found.cost + 2e-12
    if not found.optimal:
        assert found.bound < found.cost
    tree_cost = _nested_cost(found.tree, X, y, w, 0.2)
    assert tree_cost == pytest.approx(found.cost)


def test_a_compiled_depth2_subproblem_checks_the_deadline_between_root_features(monkeypatch):
    """One depth-2 subproblem on 500 rows takes about 0.4 s compiled, long enough to run
    past a time limit: it checks the deadline between blocks of root features (a 2.5 s
    limit ran to 3.1 s of work under load when it did not); here one feature per block."""
    if not kernels.available():
        pytest.skip("numba is not installed")
    monkeypatch.setattr(kernels, "BLOCK_WORK", 1)
    df, y, w = instance(3, n=30, F=4)
    X = df.to_numpy()
    objective = SquaredError()
    data = RegressionData(X, objective.row_stats(y, w), objective.leaf_cost, 0.0, 1,
                          _kernel("squared_error"))
    deadline = CountedDeadline(2)
    with pytest.raises(TimeUp):
        depth2_front(data, data.root(), 1, deadline)
    assert deadline.left == -1  # the third root feature's check raised
    whole = depth2_front(data, data.root(), 1, CountedDeadline(4)).at(0.0)
    fresh = RegressionData(X, objective.row_stats(y, w), objective.leaf_cost, 0.0, 1,
                           _kernel("squared_error"))  # its own memo: computed again
    assert whole[0] == pytest.approx(depth2_front(fresh, fresh.root(), 1).at(0.0)[0])


def test_compiled_kernels_count_as_loaded_once_called():
    """After one call the compiled kernels are loaded (their entry points have signatures),
    so a fit with little time left, or a small one, still takes them (a callee listed as an
    entry point never gets a signature: every such fit fell back to numpy)."""
    from optrees.solvers.deadline import Deadline
    from optrees.trees.solve.regression import compiled_kernel

    if not kernels.available():
        pytest.skip("numba is not installed")
    kernels.compile_kernel()
    assert kernels.loaded()
    assert compiled_kernel(SquaredError(), 3, Deadline(1.0)) is kernels
    assert compiled_kernel(SquaredError(), 2, Deadline(None), small=True) is kernels


def _nested_cost(tree, X, y, w, pen) -> float:
    if tree is None:
        return sse(y, w) + pen
    f, t, left, right = tree
    go = X[:, f] <= t
    return _nested_cost(left, X[go], y[go], w[go], pen) + _nested_cost(
        right, X[~go], y[~go], w[~go], pen)


def test_a_fit_stopped_at_once_returns_cart_or_better_with_a_bound_below_the_optimum():
    df, y, w = instance(2, n=40, F=3, levels=6)
    best = optimum(df.to_numpy(), y, w, 3, 0.01, 1)
    with pytest.warns(TimeLimitWarning):
        model = OptimalTreeRegressor(depth=3, lam=0.01, time_limit=1e-6).fit(
            df, y, sample_weight=w)
    assert model.status_ == "time_limit" and model.gap_ > 0
    assert model.objective_ <= cart_objective(df, y, w, 3, 1, 0.01) + 1e-12
    assert model.bound_ <= best + 1e-12 <= model.objective_ + 2e-12
    full = OptimalTreeRegressor(depth=3, lam=0.01, time_limit=None).fit(df, y, sample_weight=w)
    assert full.status_ == "optimal" and full.objective_ == pytest.approx(best, abs=1e-9)


# ---------------------------------------------------------------------------- interface
def test_predict_score_and_text():
    df, y, w = instance(6, n=30)
    model = OptimalTreeRegressor(depth=2, time_limit=None).fit(df, y)
    pred = model.predict(df)
    assert pred.shape == (30,)
    r2 = 1 - np.sum((y - pred) ** 2) / np.sum((y - y.mean()) ** 2)
    assert model.score(df, y) == pytest.approx(r2)
    assert model.objective_ == pytest.approx(1 - r2)   # lam 0: SSE / (n var) = 1 - R^2
    assert len(np.unique(model.apply(df))) == model.tree_.n_leaves
    text = model.export_text()
    assert text.count("value:") == model.tree_.n_leaves and "c0 <=" in text
    assert clone(model).get_params()["depth"] == 2


def test_a_constant_target_is_one_leaf():
    df, _, _ = instance(0)
    model = OptimalTreeRegressor(depth=2, lam=0.0, time_limit=None).fit(df, np.full(12, 3.5))
    assert model.status_ == "optimal" and model.objective_ == pytest.approx(0.0)
    np.testing.assert_allclose(model.predict(df), 3.5)


@pytest.mark.parametrize("kwargs,fit,message", [
    ({"depth": 9}, {}, "depth=9 is above the upper bound 8"),
    ({"depth": 0}, {}, "depth must be"),
    ({"lam": -0.1}, {}, "lam must be"),
    ({"min_samples_leaf": 0}, {}, "min_samples_leaf must be"),
    ({"max_leaves": 0}, {}, "max_leaves must be"),
    ({"time_limit": 0}, {}, "time_limit must be"),
    ({}, {"y": ["a"] * 12}, "y must hold numbers"),
    ({}, {"y": [1.0] * 11 + [np.nan]}, "y contains missing"),
    ({}, {"y": [1.0] * 5}, "y must be one-dimensional with 12 values"),
    ({}, {"y": None}, "requires y"),
    ({}, {"sample_weight": [-1.0] + [1.0] * 11}, "sample_weight must be >= 0"),
])
def test_bad_input_is_refused_with_one_clear_error(kwargs, fit, message):
    df, y, _ = instance(0)
    arguments = {"y": y, **fit}
    with pytest.raises(OptreesInputError, match=message):
        OptimalTreeRegressor(**kwargs).fit(df, **arguments)


def test_the_depth_limit_says_why():
    df, y, _ = instance(0)
    with pytest.raises(OptreesInputError, match="stacked from optima of depth <= 3"):
        OptimalTreeRegressor(depth=9).fit(df, y)


# ---------------------------------------------------------------------------- witness
@pytest.mark.parametrize("depth,min_leaf", [(1, 1), (2, 1), (3, 1), (2, 4)])
def test_pystreed_finds_the_same_loss_on_zero_one_data(depth, min_leaf):
    streed = pytest.importorskip("pystreed")
    rng = np.random.default_rng(depth + 10 * min_leaf)
    X = rng.integers(0, 2, size=(80, 5))
    y = 2.0 * X[:, 0] - X[:, 1] * X[:, 2] + rng.normal(size=80) * 0.5
    theirs = streed.STreeDRegressor(max_depth=depth, cost_complexity=0.0,
                                    min_leaf_node_size=min_leaf, time_limit=60).fit(X, y)
    ours = OptimalTreeRegressor(depth=depth, min_samples_leaf=min_leaf,
                                time_limit=None).fit(pd.DataFrame(X), y)
    their_sse = float(np.sum((y - theirs.predict(X)) ** 2))
    assert ours.status_ == "optimal"
    assert ours.objective_ * normaliser(y, np.ones(80)) == pytest.approx(their_sse, rel=1e-9)


@pytest.mark.parametrize("solver", list(SOLVERS))
@pytest.mark.parametrize("seed", [25, 55])
def test_min_leaf_bounds_use_the_unconstrained_optima(seed, solver):
    """Under a leaf-size limit a subset can cost more than its superset (too few rows to
    split): the interval bounds must use the optima without the limit.  Instances with
    outliers where the constrained optima as bounds prune the optimum away."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 16))
    X = rng.integers(0, 6, size=(n, 2)).astype(float)
    y = rng.normal(size=n) * np.where(rng.random(n) < 0.2, 5, 1)
    min_leaf = int(rng.integers(2, 4))
    w = np.ones(n)
    objective = SquaredError()
    dense_limit, kernel, fronts = SOLVERS[solver]
    if kernel is not None and not kernels.available():
        pytest.skip("numba is not installed")
    data = RegressionData(X, objective.row_stats(y, w), objective.leaf_cost, 0.0, min_leaf,
                          _kernel(kernel), fronts=fronts)
    found = search_tree(data, 3, dense_limit=dense_limit)
    assert found.cost == pytest.approx(enumerate_best(X, y, w, 3, 0.0, min_leaf), abs=1e-9)


def test_a_stopped_search_bound_rises_with_the_work_done():
    """The root's intervals are taken least bound first, so the bound a stopped search
    reports never falls as it does more, and leaves the trivial floor before the proof."""
    rng = np.random.default_rng(8)
    X = rng.normal(size=(60, 4))
    y = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + rng.normal(size=60) * 0.3
    w = np.ones(60)
    objective = SquaredError()
    data = RegressionData(X, objective.row_stats(y, w), objective.leaf_cost, 0.0, 1)
    bounds, proved = [], None
    for checks in range(0, 400, 5):
        found = search_tree(data, 3, CountedDeadline(checks))
        if found.optimal:
            proved = found.cost
            break
        bounds.append(found.bound)
    assert proved is not None and len(bounds) > 3
    assert all(b <= a + 1e-12 for a, b in zip(bounds[1:], bounds, strict=False))
    assert bounds[len(bounds) // 2] > 0 and max(bounds) <= proved + 1e-12


@pytest.mark.parametrize("depth", [2, 3])
def test_scikit_learns_weight_check_passes(depth):
    """scikit-learn's own check: integer weights (shuffled rows, zero weights) give the
    predictions of repeated rows, also on the rows of weight 0, whose leaf depends on
    which of several equal-cost trees is returned (ties are broken by feature and
    threshold, not by rounding or by the order of the rows)."""
    from sklearn.utils.estimator_checks import check_sample_weight_equivalence_on_dense_data

    check_sample_weight_equivalence_on_dense_data(
        "OptimalTreeRegressor", OptimalTreeRegressor(depth=depth, time_limit=30))


@pytest.mark.slow
@parametrize_with_checks([OptimalTreeRegressor(depth=2, time_limit=10)],
                         expected_failed_checks=lambda _: _SPARSE_WEIGHTS)
def test_check_estimator(estimator, check):
    """scikit-learn's whole estimator suite (59 checks at depth 2); scikit-learn 1.6, the
    lowest supported, also runs its sparse weight check, which the refusal of sparse X
    fails by design, as for every estimator (``estimator_matrix._SPARSE_WEIGHTS``)."""
    check(estimator)
