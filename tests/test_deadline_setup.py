"""The set-up steps of large fits stop at the deadline (audit F1, F4): the linear leaves'
row statistics and pair sums (between blocks of rows), the exact regression search's root
stump (between blocks of features) and its optional bounds.  A stopped fit returns the best
model it has (a single leaf, the depth-1 optimum or CART's start) with status "time_limit"
and a bound no higher than its objective.  The deadlines pass after a fixed step, never by
the clock."""

from __future__ import annotations

import numpy as np
import pytest
from deadlines import Tight, Until, until_after

from optrees import OptimalTreeRegressor, TimeLimitWarning
from optrees.estimators import threshold_trees
from optrees.solvers.deadline import TimeUp
from optrees.trees.problem.objectives.squared_error import SquaredError
from optrees.trees.search.regression import linear, search, stump
from optrees.trees.search.regression.data import RegressionData
from optrees.trees.solve import linear_leaves
from optrees.trees.solve.linear_leaves import solve_linear_leaves
from optrees.trees.solve.regression import solve_regression_tree
from optrees.trees.solve.survival import solve_survival_tree

LAM = 0.001


def _data(n: int = 300, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 5, n), rng.uniform(size=n)])
    y = np.where(X[:, 1] > 2, 3 * X[:, 0], np.where(X[:, 2] > 0.5, 4 - 5 * X[:, 0], -X[:, 2])) \
        + rng.normal(0, 0.3, n)  # three pieces: depth 2 beats depth 1
    return X, y


def _linear(X, y, depth, deadline, **kw):
    return solve_linear_leaves(X, y, None, depth, LAM, 1, deadline, regressors=[0, 2],
                               ridge=0.1, **kw)


def _blocks_spy(monkeypatch, stop_in: int, stop_after: int, deadline: Until) -> list[list]:
    """Records the blocks :func:`linear.row_blocks` yields per call; the deadline passes
    after block ``stop_after`` of call ``stop_in``."""
    calls: list[list[int]] = []
    real = linear.row_blocks

    def spy(n, step, deadline_):
        calls.append([])
        for lo in real(n, step, deadline_):
            calls[-1].append(lo)
            if len(calls) == stop_in and len(calls[-1]) == stop_after:
                deadline.over = True
            yield lo

    monkeypatch.setattr(linear, "row_blocks", spy)
    return calls


def test_linear_pair_sums_stop_between_blocks_with_the_depth1_optimum(monkeypatch):
    """Stopped after two blocks of the root's pair sums (call 2; call 1 is the depth-1
    sums): no further block is summed, the tree is the depth-1 optimum, unproved, and the
    bound is at most the depth-2 optimum."""
    X, y = _data()
    optimum2 = _linear(X, y, 2, Until())
    optimum1 = _linear(X, y, 1, Until())
    assert optimum2.status == "optimal" and optimum2.objective < optimum1.objective - 1e-6
    monkeypatch.setattr(linear, "PAIR_CELLS", 600)  # many blocks of rows
    deadline = Until()
    calls = _blocks_spy(monkeypatch, 2, 2, deadline)
    got = _linear(X, y, 2, deadline)
    assert len(calls) == 2 and len(calls[0]) > 2 and len(calls[1]) == 2
    assert got.status == "time_limit"
    assert got.objective == pytest.approx(optimum1.objective, abs=1e-12)
    np.testing.assert_allclose(got.model.predict(X), optimum1.model.predict(X), atol=1e-12)
    assert got.bound <= got.objective and got.bound <= optimum2.objective + 1e-12


def test_linear_depth3_stops_inside_a_childs_pair_sums(monkeypatch):
    """Depth 3, stopped in the first root feature's child sums (call 3): its tree is the
    depth-2 optimum (the root's pair sums were complete), no later block runs."""
    X, y = _data(200, seed=1)
    optimum2 = _linear(X, y, 2, Until())
    monkeypatch.setattr(linear, "PAIR_CELLS", 600)
    deadline = Until()
    calls = _blocks_spy(monkeypatch, 3, 1, deadline)
    got = _linear(X, y, 3, deadline)
    assert len(calls) == 3 and len(calls[2]) == 1
    assert got.status == "time_limit"
    assert got.objective == pytest.approx(optimum2.objective, abs=1e-12)
    assert got.bound <= got.objective


def test_linear_stopped_in_the_row_statistics_returns_one_leaf(monkeypatch):
    """Stopped while the rows' statistics are built: no split feature, no search; one leaf
    with the ridge model of every row (as a fit with one leaf allowed), bound <= objective."""
    X, y = _data()
    one_leaf = _linear(X, y, 2, Until(), max_leaves=1)

    def no_search(*args, **kwargs):
        raise AssertionError("the search ran after the deadline")

    monkeypatch.setattr(linear.LinearLeafSearch, "solve", no_search)
    monkeypatch.setattr(linear_leaves, "split_features", no_search)
    deadline = Until()
    deadline.over = True
    got = _linear(X, y, 2, deadline)
    assert got.status == "time_limit" and got.model.n_leaves == 1
    assert got.objective == pytest.approx(one_leaf.objective, rel=1e-9)
    np.testing.assert_allclose(got.model.predict(X), one_leaf.model.predict(X), atol=1e-8)
    assert got.bound == pytest.approx(min(got.objective, 2 * LAM))


def test_an_estimator_stopped_at_once_returns_a_model(monkeypatch):
    """OptimalTreeRegressor(leaf_model="linear") whose deadline has passed when the solve
    starts: a warning, status "time_limit", a bound <= objective and predictions."""
    X, y = _data()

    def passed(limit):
        deadline = Until()
        deadline.over = True
        return deadline

    monkeypatch.setattr(threshold_trees, "fit_deadline", passed)
    with pytest.warns(TimeLimitWarning):
        est = OptimalTreeRegressor(depth=2, leaf_model="linear", time_limit=1).fit(X, y)
    assert est.status_ == "time_limit" and est.bound_ <= est.objective_
    assert np.isfinite(est.predict(X)).all()


def test_row_blocks_stop_when_the_rest_cannot_finish(monkeypatch):
    """With a time limit, after ``PROJECT_AFTER`` blocks the rest is projected at the pace so
    far (a fake clock: the first three blocks took 10 s): the other seven (23 s) cannot
    finish in 5 s, in 1000 s they can."""
    clock = iter(range(0, 1000, 10))
    monkeypatch.setattr(linear.time, "perf_counter", lambda: float(next(clock)))
    done = []
    with pytest.raises(TimeUp):
        for lo in linear.row_blocks(100, 10, Tight(5.0)):
            done.append(lo)
    assert len(done) == linear.PROJECT_AFTER
    assert list(linear.row_blocks(100, 10, Tight(1000.0))) == list(range(0, 100, 10))


def _regression(X, y, depth, deadline):
    return solve_regression_tree(X, y, None, depth, LAM, 1, deadline)


def _survival(X, y, depth, deadline):
    event = (y > np.median(y)).astype(float)
    times = np.abs(y) + 0.1
    return solve_survival_tree(X, np.column_stack([event, times]), None, depth, LAM, 1,
                               deadline)[0]


@pytest.mark.parametrize("solve", [_regression, _survival])
def test_the_root_stump_stops_between_blocks_with_the_start(monkeypatch, solve):
    """The deadline passes once the root's rows are sorted: the stump sums no block of
    features (leaf costs: the stump's leaf and the stopped search's leaf only), no root
    interval is built, no split solved; the answer is CART's start, "time_limit", its bound
    at most its objective and at most the optimum."""
    X, y = _data(400, seed=2)
    optimum = solve(X, y, 2, Until())
    assert optimum.status == "optimal"
    monkeypatch.setattr(stump, "STUMP_CELLS", 1)  # a block a feature
    deadline = until_after(monkeypatch, RegressionData, "root")
    costs: list[bool] = []
    real_cost = RegressionData.leaf_cost
    monkeypatch.setattr(RegressionData, "leaf_cost",
                        lambda self, S: costs.append(deadline.over) or real_cost(self, S))

    def no_intervals(*args, **kwargs):
        raise AssertionError("a root interval was built after the deadline")

    monkeypatch.setattr(search.RegressionSearch, "intervals", no_intervals)
    got = solve(X, y, 2, deadline)
    assert sum(costs) == 2  # after the deadline: the stump's leaf, the stopped one's leaf
    assert got.status == "time_limit" and got.stats["search_nodes"] == 0
    assert got.objective == pytest.approx(got.stats["cart_objective"], rel=1e-9)
    assert got.bound <= got.objective and got.bound <= optimum.objective + 1e-12
    assert got.model.n_leaves > 1  # CART's tree, not a leaf


def test_the_optional_bounds_are_skipped_once_the_deadline_passed(monkeypatch):
    """A deadline passed before the search: no grouping of identical rows (the
    equivalent-points and k-means bounds), CART's start returned with a bound <= it."""
    X, y = _data()

    def no_grouping(*args, **kwargs):
        raise AssertionError("a bound was computed after the deadline")

    monkeypatch.setattr(SquaredError, "lower_bound", no_grouping)
    from optrees.trees.solve import regression
    monkeypatch.setattr(regression, "identical_rows", no_grouping)
    deadline = Until()
    deadline.over = True
    got = _regression(X, y, 2, deadline)
    assert got.status == "time_limit" and got.stats["equivalent_points_bound"] == 0.0
    assert got.bound <= got.objective and got.model.n_leaves > 1
