"""OMT under extreme units: targets scaled by 1e±150, sample weights of 1e-300, and time limits
that the set-up used to ignore (issue #42).

The problem is scale-invariant: the squared loss of c * y is c^2 times that of y and uniform
weights scale every loss alike, so the fit must pick the same tree and report its objective in
the user's units.  The oracles are plain numpy sums over the returned predictions.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes

import optrees.omt.fit as omt_fit
import optrees.omt.rules as omt_rules
import optrees.omt.solver as omt_solver
from optrees import OMTClassifier, OMTRegressor
from optrees._validation import OptreesInputError
from optrees.omt.pricing import Pricer
from optrees.solvers.deadline import Deadline
from optrees.solvers.highs import HighsModel


def _diabetes(n: int = 120) -> tuple[pd.DataFrame, np.ndarray]:
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    return X[["bmi", "s5", "bp"]].iloc[:n].reset_index(drop=True), y.to_numpy()[:n]


def _cancer(n: int = 150) -> tuple[pd.DataFrame, np.ndarray]:
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    cols = ["mean radius", "mean texture", "worst concave points"]
    return X[cols].iloc[:n].reset_index(drop=True), y.to_numpy()[:n]


def _sse(pred: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> float:
    w = np.ones(len(y)) if w is None else w
    return float(w @ (pred - y) ** 2)


_REG = {"depth": 2, "exact_pricing": True, "time_limit": 60, "random_state": 0}


# ------------------------------------------------------------------------------ target units
@pytest.mark.parametrize("factor", [1e-150, 1e-10, 1e10, 1e150])
def test_scaled_target_gives_the_same_tree(factor):
    """c * y: the same leaves (predictions c times as large), the same leaf penalty chosen on
    the held-out rows ("auto": its tie tolerance was absolute, below 1 every candidate tied),
    and objective, bound and validation scores c^2 times as large.  (Old code: at 1e150
    CART's sums of y^2 overflowed and gave other bins; at 1e-150 the squared errors and the
    tie tolerance lost the scale.)"""
    X, y = _diabetes()
    base = OMTRegressor(**_REG).fit(X, y)
    big = OMTRegressor(**_REG).fit(X, y * factor)
    np.testing.assert_allclose(big.predict(X) / factor, base.predict(X), rtol=1e-9)
    assert big.leaf_penalty_ == base.leaf_penalty_
    assert big.status_ == base.status_ == "optimal"
    assert big.objective_ / factor**2 == pytest.approx(base.objective_, rel=1e-9)
    assert big.bound_ / factor**2 == pytest.approx(base.bound_, rel=1e-9)
    assert big.validation_scores_.keys() == base.validation_scores_.keys()
    for lam, score in base.validation_scores_.items():
        assert big.validation_scores_[lam] / factor**2 == pytest.approx(score, rel=1e-9)
    # the objective is the SSE of the predictions plus the leaf penalties (numpy)
    fixed = OMTRegressor(**{**_REG, "leaf_penalty": 0.0}).fit(X, y * factor)
    assert fixed.objective_ == pytest.approx(_sse(fixed.predict(X), y * factor), rel=1e-9)
    assert _sse(fixed.predict(X) / factor, y) == pytest.approx(
        _sse(OMTRegressor(**{**_REG, "leaf_penalty": 0.0}).fit(X, y).predict(X), y),
        rel=1e-9)


@pytest.mark.parametrize("loss, factor, side", [
    ("squared", 1e160, "large"), ("squared", 1e-170, "small"),
    ("absolute", 1e305, "large"), ("absolute", 1e-315, "small")])
def test_unrepresentable_loss_is_refused_before_any_solve(monkeypatch, loss, factor, side):
    """When the one-leaf loss in y's units is beyond float64 (1e160 * y: squares overflow),
    the fit says so before column generation starts (old code: inf and nan in the master,
    HiGHS ran far past time_limit=5)."""
    def no_solve(*args, **kwargs):
        raise AssertionError("column generation started")

    monkeypatch.setattr(omt_solver.OMTSolver, "solve", no_solve)
    X, y = _diabetes()
    with pytest.raises(OptreesInputError, match=f"y is too {side} for float64"):
        OMTRegressor(depth=2, loss=loss, time_limit=5).fit(X, y * factor)


# ------------------------------------------------------------------------------ weights
@pytest.mark.parametrize("weight", [1e-300, 3e-200, 0.3])
def test_uniform_weights_scale_out_of_the_regressor(weight):
    """Uniform weights of 1e-300 give the tree of weights 1 and an objective (and bound)
    1e-300 times as large; old code certified the one-leaf tree ("converged", gap 0, SSE
    2,621,009 against 1,485,142 with weights 1 on all of diabetes).  (Weights above 1 act
    as duplicated rows, by design: more of them give more "auto" bins.)"""
    X, y = _diabetes()
    one = OMTRegressor(**{**_REG, "leaf_penalty": 0.0}).fit(X, y, sample_weight=np.ones(len(y)))
    w = np.full(len(y), weight)
    tiny = OMTRegressor(**{**_REG, "leaf_penalty": 0.0}).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(tiny.predict(X), one.predict(X), rtol=1e-9)
    assert tiny.status_ == one.status_ == "optimal"
    assert tiny.objective_ == pytest.approx(_sse(tiny.predict(X), y, w), rel=1e-9)
    assert tiny.objective_ / weight == pytest.approx(one.objective_, rel=1e-9)
    assert tiny.bound_ <= tiny.objective_ * (1 + 1e-9)
    assert tiny.bound_ / weight == pytest.approx(one.bound_, rel=1e-9)
    assert tiny.gap_ == pytest.approx(one.gap_, abs=1e-9)
    counts = [r["n_samples"] for r in tiny.paths_]
    assert sum(counts) == pytest.approx(weight * len(y), rel=1e-9)  # weights, in user units


def test_mixed_tiny_weights_give_the_tree_of_their_ratios():
    """Weights 1e-300 x (1, 2, 3): the tree of the integer weights (bins of duplicated rows
    included: the lightest row counts as one row)."""
    X, y = _diabetes()
    k = np.random.default_rng(0).integers(1, 4, len(y)).astype(float)
    ints = OMTRegressor(**_REG).fit(X, y, sample_weight=k)
    tiny = OMTRegressor(**_REG).fit(X, y, sample_weight=k * 1e-300)
    np.testing.assert_allclose(tiny.predict(X), ints.predict(X), rtol=1e-9)
    assert tiny.leaf_penalty_ == ints.leaf_penalty_
    assert tiny.objective_ / 1e-300 == pytest.approx(ints.objective_, rel=1e-9)


def test_uniform_tiny_weights_scale_out_of_the_classifier():
    """The classifier with weights 1e-300: the tree of weights 1, its weighted errors 1e-300
    times as many (old code: one leaf, 'converged' with gap 0)."""
    X, y = _cancer()
    kw = {"depth": 2, "exact_pricing": True, "time_limit": 60, "random_state": 0}
    one = OMTClassifier(**kw).fit(X, y)
    w = np.full(len(y), 1e-300)
    tiny = OMTClassifier(**kw).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(tiny.predict(X), one.predict(X))
    assert tiny.status_ == one.status_ == "optimal"
    errors = float(w @ (tiny.predict(X) != y))
    rules = len(tiny.paths_) * tiny.leaf_penalty_ * float(w.sum())
    assert tiny.objective_ == pytest.approx(errors + rules, rel=1e-9)
    assert tiny.objective_ / 1e-300 == pytest.approx(one.objective_, rel=1e-9)
    assert tiny.bound_ / 1e-300 == pytest.approx(one.bound_, rel=1e-9)


@pytest.mark.parametrize("est", [OMTClassifier, OMTRegressor])
def test_weights_beyond_float64_ratios_are_refused(est):
    X, y = _cancer(40)
    w = np.where(np.arange(len(y)) % 2 == 0, 1e-300, 1e300)
    with pytest.raises(OptreesInputError, match="sample_weight spans too wide a range"):
        est(depth=2, time_limit=5).fit(X, y, sample_weight=w)


# ------------------------------------------------------------------------------ time limits
def test_pricing_batches_bound_the_work_between_looks_at_the_clock(monkeypatch):
    """One batch of per-state aggregation gathers at most ``max_gather`` (pair, term) entries
    before the stop is checked again (old code: up to 4M pairs at once; the fit ended up to
    1.8 s past a 1 s limit on breast cancer x 25)."""
    rng = np.random.default_rng(1)
    P, k = 3000, 4
    codes = rng.integers(0, 6, (P, k))
    nodes = [np.eye(6, dtype=bool) for _ in range(k)]
    pricer = Pricer(codes, nodes, 2, 1.0, -1)
    pricer.max_dense = 0  # per-state bincounts (_single_blocks), not one matrix product
    pricer.max_gather = 6 * 2000  # q = 6 terms: 2,000 (state, unit) pairs per batch
    sizes: list[int] = []
    batches = Pricer._batches

    def recorded(self, lens, limit=None):
        for b0, b1 in batches(self, lens, limit):
            sizes.append(sum(lens[b0:b1]) if b1 - b0 > 1 else 0)
            yield b0, b1

    monkeypatch.setattr(Pricer, "_batches", recorded)
    W = np.column_stack([rng.normal(size=(P, 5)), np.ones(P)])
    paths = pricer.run(W, lambda agg: (agg[..., 0], np.minimum(agg[..., 1], 0)), 0.0,
                       np.zeros(k), 50, False, 50, stop=lambda: False)
    assert paths and len(sizes) > 1
    assert max(sizes) <= 2000


def test_setup_past_the_deadline_skips_the_optional_steps(monkeypatch):
    """A fit whose deadline passed before its set-up: no CART cuts on the raw columns, no
    CART start partitions (old code ran both after the deadline: 0.5 s on breast cancer x 25
    with a 0.5 s limit) and no master LP solve (given no time, HiGHS took 0.6 s on
    default-credit's master); the tree returned is the start, no worse than the majority
    leaf, with status time_limit."""
    def no_cart(*args, **kwargs):
        raise AssertionError("CART run after the deadline")

    def no_late_solve(self, deadline=None, *args, **kwargs):
        raise AssertionError("HiGHS solve started after the deadline")

    monkeypatch.setattr(omt_fit, "data_thresholds", no_cart)
    monkeypatch.setattr(omt_rules, "cart_partitions", no_cart)
    monkeypatch.setattr(HighsModel, "solve", no_late_solve)
    X, y = _cancer()
    with pytest.warns(UserWarning, match="time_limit"):
        clf = OMTClassifier(depth=2, time_limit=1e-9).fit(X, y)
    assert clf.status_ == "time_limit"
    errors = int((clf.predict(X) != y).sum())
    assert errors <= len(y) - np.bincount(y).max()


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_auto_penalty_leaves_the_refit_its_set_up_time(monkeypatch):
    """leaf_penalty="auto": the candidates leave the refit on all rows time for its set-up
    (old code: the refit's problem was built at the deadline, diabetes x 25 with a 0.5 s
    limit took 0.99 s).  The CART cuts are slowed to 0.4 s a call and every candidate uses
    its whole share, so the reserve dominates the timing noise: at the refit there must be
    time for its own slowed cuts twice over (old code: about a sixth of the time left)."""
    import time

    import optrees.estimators.omt as omt_estimators
    import optrees.omt.penalty as omt_penalty

    deadlines = []
    make = omt_estimators.fit_deadline
    real = omt_fit.data_thresholds
    built = omt_fit.OMTFit.problem
    left: list[float] = []

    def fit_deadline(limit):
        deadlines.append(make(limit))
        return deadlines[-1]

    def slow(*args, **kwargs):
        time.sleep(0.4)
        return real(*args, **kwargs)

    def problem(self, *args, **kwargs):
        left.append(deadlines[-1].remaining())
        built_problem = built(self, *args, **kwargs)
        if len(left) == 1:  # the kept rows' problem: each candidate uses all its time
            solve = built_problem.solve

            def hard(penalty, stage):
                time.sleep(stage.remaining())
                return solve(penalty, stage)

            built_problem.solve = hard
        return built_problem

    monkeypatch.setattr(omt_estimators, "fit_deadline", fit_deadline)
    monkeypatch.setattr(omt_fit, "data_thresholds", slow)
    monkeypatch.setattr(omt_fit.OMTFit, "problem", problem)
    X, y = _diabetes()
    est = OMTRegressor(depth=2, time_limit=3, random_state=0).fit(X, y)
    assert omt_penalty.AUTO_PENALTIES[0] in est.validation_scores_  # candidates did run
    assert len(left) == 2  # the kept rows' problem, then all rows'
    assert left[1] >= 0.8


class _Flagged(Deadline):
    """A deadline that passes when ``flag`` is set (by the test, at a chosen step)."""

    def __init__(self) -> None:
        super().__init__()
        self.flag = False

    def expired(self) -> bool:
        return self.flag


def test_merged_master_rebuild_stops_at_the_deadline(monkeypatch):
    """Merged mode (large data) rebuilds the master after each pricing round; a deadline that
    passes as the rebuild starts ends it before any column is added (old code: the whole
    rebuild, 0.75 s begun just before a 2 s limit on default-credit, then a 0.64 s LP solve),
    and the last master's rules are returned as a partition with status time_limit."""
    from optrees.omt.graph import build_graph
    from optrees.omt.master import MasterBuilder
    from optrees.omt.rules import select_rules

    deadline = _Flagged()
    late: list[int] = []
    extend, add_chunk = MasterBuilder.extend, MasterBuilder._add_chunk

    def extend_late(self, *args, **kwargs):
        deadline.flag = True  # the deadline passes as the rebuild begins
        return extend(self, *args, **kwargs)

    def add_chunk_late(self, *args, **kwargs):
        if deadline.flag:
            late.append(1)
        return add_chunk(self, *args, **kwargs)

    monkeypatch.setattr(MasterBuilder, "extend", extend_late)
    monkeypatch.setattr(MasterBuilder, "_add_chunk", add_chunk_late)
    X, y = _cancer(120)
    graph = build_graph(X)
    sel = select_rules(graph, y, task="classification", loss="misclassification",
                       n_classes=2, depth=2, leaves=4, min_count=2, merge_min_units=1,
                       deadline=deadline)
    res = sel.result
    assert deadline.flag and not late  # a rebuild began, and added nothing after the deadline
    assert sel.solver.merged and res.status == "time_limit"
    covered = np.zeros(len(y), dtype=int)
    for st in res.steps:
        covered += sel.solver.pricer.cover(st)[sel.unit_of_sample]
    assert np.all(covered == 1)
    errors = sum(float(np.sum(y[sel.solver.pricer.cover(st)[sel.unit_of_sample]] != p))
                 for st, p in zip(res.steps, res.predictions, strict=True))
    assert res.objective == pytest.approx(errors)
    assert errors <= len(y) - np.bincount(y).max()
