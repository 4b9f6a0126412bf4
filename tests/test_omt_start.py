"""OMT is never worse than the simple trees it can represent, and its bound means what it says
(issue 42, item 1).

* The start holds the majority leaf and CART's depth-1..depth trees over the bins: a fit that
  generates no column (``max_iter=0``) or is stopped at its first pricing round returns a tree
  no worse than any of them.
* A stop ends pricing before its next aggregation product and the master MIP is not solved
  after the deadline (structure, not wall clock).
* ``bound_`` / ``gap_`` are a bound over every rule set (CGH: every tree) or nan; the LP value
  over generated rules is ``lp_bound_``, and the CLI lines say which is which.

The oracle is OMT's objective from its definition ([OMT] eq. (1): every rule pays the
misclassified samples under its majority label, xi_j) plus the leaf penalty lambda x n per rule
(the estimator's default lambda = min(0.02, 1 / sqrt(n))), counted in plain numpy from the rows'
leaf assignment, for OMT's tree as for scikit-learn's CART.
"""

from __future__ import annotations

import math
import time
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier

import optrees.omt.pricing as pricing_module
from optrees.cli_report import cgh_summary, omt_summary
from optrees.estimators import TimeLimitWarning
from optrees.estimators.cgh import CGHClassifier
from optrees.estimators.omt import OMTClassifier
from optrees.omt.graph import build_graph
from optrees.omt.rules import RuleSelector
from optrees.omt.solver import OMTSolver
from optrees.solvers.highs import HighsModel


def numeric_sample(n: int = 300, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """One strong threshold on x0 (20 % label noise) and four noise columns: CART's depth-1
    tree pays for its second rule, further splits mostly do not."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 5)), columns=[f"x{j}" for j in range(5)])
    y = (X["x0"].to_numpy() > 0.3).astype(int)
    flip = rng.random(n) < 0.2
    return X, np.where(flip, 1 - y, y)


def omt_cost(leaf_of_row: np.ndarray, y: np.ndarray, per_rule: float) -> float:
    """[OMT] eq. (1) with a leaf penalty: per leaf, its rows minus its majority class's rows,
    plus ``per_rule`` for every leaf."""
    cost = 0.0
    for leaf in np.unique(leaf_of_row):
        counts = np.bincount(y[leaf_of_row == leaf])
        cost += counts.sum() - counts.max() + per_rule
    return cost


def per_rule(n: int) -> float:
    """The default leaf penalty of a classification fit on n unweighted rows, per rule."""
    return min(0.02, 1 / math.sqrt(n)) * n


def simple_costs(X: pd.DataFrame, y: np.ndarray, depth: int) -> dict[str, float]:
    """The oracle cost of the majority leaf and of CART's trees of depth 1..depth."""
    lam = per_rule(len(y))
    costs = {"leaf": omt_cost(np.zeros(len(y), dtype=int), y, lam)}
    for d in range(1, depth + 1):
        cart = DecisionTreeClassifier(max_depth=d, random_state=0).fit(X, y)
        costs[f"cart{d}"] = omt_cost(cart.apply(X), y, lam)
    return costs


def rule_of(clf: OMTClassifier, X: pd.DataFrame) -> np.ndarray:
    """The rule each row falls in (a rule may fill several leaves of the multiway tree)."""
    return clf.tree_.rule[clf.apply(X)]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("depth", [2, 3])
def test_start_is_never_worse_than_the_leaf_or_cart(seed, depth):
    """Without column generation the fit is the best rule set of its start: no worse than the
    majority leaf or any of CART's trees (before: the greedy 4-leaf tree or the leaf, worse
    than CART's depth-1 tree)."""
    X, y = numeric_sample(seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TimeLimitWarning)
        clf = OMTClassifier(depth=depth, max_iter=0, random_state=0).fit(X, y)
    got = omt_cost(rule_of(clf, X), y, per_rule(len(y)))
    assert clf.objective_ == pytest.approx(got)
    costs = simple_costs(X, y, depth)
    assert got <= min(costs.values()) + 1e-9, costs


def _expire_at_pricing(monkeypatch, round_: int = 1) -> dict:
    """The fit's deadline passes when column generation prices for the ``round_``-th time;
    record every HiGHS solve made after it."""
    seen = {"expired_at": None, "solves_after": 0, "rounds": 0}
    price = OMTSolver._price

    def expiring_price(self, metric, duals, k, exact, tol, stop=None, info=None):
        seen["rounds"] += 1
        if seen["expired_at"] is None and stop is not None and seen["rounds"] >= round_:
            deadline = stop.__self__  # stop is the fit deadline's bound ``expired``
            deadline.at = time.perf_counter()
            seen["expired_at"] = deadline.at
        return price(self, metric, duals, k, exact, tol, stop=stop, info=info)

    solve = HighsModel.solve

    def recording_solve(self, deadline=None, *args, **kwargs):
        if seen["expired_at"] is not None:
            seen["solves_after"] += 1
        return solve(self, deadline, *args, **kwargs)

    monkeypatch.setattr(OMTSolver, "_price", expiring_price)
    monkeypatch.setattr(HighsModel, "solve", recording_solve)
    return seen


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("round_", [1, 2, 3])
def test_stopped_fit_returns_no_worse_than_its_start(monkeypatch, seed, round_):
    """The deadline passes at a pricing round: the fit stops with status "time_limit",
    solves nothing more (no master LP or MIP), and returns a tree no worse than the leaf or
    CART."""
    seen = _expire_at_pricing(monkeypatch, round_)
    X, y = numeric_sample(seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TimeLimitWarning)
        clf = OMTClassifier(depth=2, time_limit=600, random_state=0).fit(X, y)
    assert seen["expired_at"] is not None
    assert clf.status_ == "time_limit"
    assert seen["solves_after"] == 0  # no master LP or MIP after the deadline
    got = omt_cost(rule_of(clf, X), y, per_rule(len(y)))
    assert clf.objective_ == pytest.approx(got)
    assert got <= min(simple_costs(X, y, 2).values()) + 1e-9
    assert math.isnan(clf.bound_) and math.isnan(clf.gap_)


def _selector(n: int = 400, columns: int = 5) -> RuleSelector:
    X, y = numeric_sample(n=n)
    graph = build_graph(X.iloc[:, :columns], n_bins=16)
    return RuleSelector(graph, y, task="classification", loss="misclassification",
                        n_classes=2, depth=2, leaves=4, min_count=1)


def test_pricing_does_no_product_after_a_stop(monkeypatch):
    """Pricing sums its blocks by sparse products, batch by batch; when the deadline passes
    while a batch's candidates are scored, no further product is made and no candidate is
    pooled (before: the next batch's product ran before the stop was looked at, and the
    candidates found were sorted into the K best, up to 1 s on 30,000 rows)."""
    sel = _selector(columns=2)  # two levels: a second-level batch yields one block
    pricer = sel.solver.pricer
    pricer.batch_pairs = 500  # several batches per DP level
    products: list[bool] = []
    state = {"stopped": False, "scored": 0}
    real_csr, real_candidates = pricing_module.sparse.csr_matrix, pricer._candidates

    class Recording:
        @staticmethod
        def csr_matrix(arg, shape):
            products.append(state["stopped"])
            return real_csr(arg, shape=shape)

    def candidates(*args, **kwargs):  # the deadline passes while the 3rd block is scored
        state["scored"] += 1
        state["stopped"] |= state["scored"] >= 3
        return real_candidates(*args, **kwargs)

    real_update = pricer._update_pool
    pooled_after: list[int] = []

    def update_pool(*args, **kwargs):  # the K best kept of the scored candidates
        pooled_after.append(state["stopped"])
        return real_update(*args, **kwargs)

    monkeypatch.setattr(pricing_module, "sparse", Recording)
    monkeypatch.setattr(pricer, "_candidates", candidates)
    monkeypatch.setattr(pricer, "_update_pool", update_pool)
    W, _ = sel.metric.pricing_terms(np.full(len(sel.n_units), 0.3))
    paths = pricer.run(W, sel.metric.evaluate, -1.0, np.zeros(pricer.k), 50, True, 50,
                       stop=lambda: state["stopped"])
    assert state["scored"] >= 3 and not pricer.complete
    assert products.count(False) >= 2 and products.count(True) == 0
    # nor any candidate kept: a stopped round's paths are dropped by every caller
    assert paths == [] and True not in pooled_after


def test_pricing_products_are_bounded(monkeypatch):
    """No aggregation product is larger than ``max_product`` (pairs x weight columns), so a
    stop is seen within one short product."""
    sel = _selector()
    pricer = sel.solver.pricer
    pricer.max_product = 50_000
    pairs_seen: list[int] = []
    real = pricing_module.sparse.csr_matrix

    class Recording:
        @staticmethod
        def csr_matrix(arg, shape):
            pairs_seen.append(len(arg[1]))
            return real(arg, shape=shape)

    monkeypatch.setattr(pricing_module, "sparse", Recording)
    W, _ = sel.metric.pricing_terms(np.full(len(sel.n_units), 0.3))
    pricer.run(W, sel.metric.evaluate, -1.0, np.zeros(pricer.k), 50, True, 50)
    width = pricer._code_weights(W)[0].shape[1]
    # (a single state of more units than the bound allows is a product of its own)
    assert len(pairs_seen) > 2
    assert all(p * width <= pricer.max_product or p <= len(sel.n_units) for p in pairs_seen)


def test_unproven_bound_is_named_for_the_generated_rules():
    """Heuristic column generation stopped early proves no bound: ``bound_`` and ``gap_``
    are nan, the restricted LP value is ``lp_bound_``; the CLI says "not proved" and never
    prints "nan" or a 0 % gap (before: bound_ = the LP over 5 columns = objective_, gap 0)."""
    X, y = numeric_sample(seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TimeLimitWarning)
        clf = OMTClassifier(depth=2, max_iter=0, random_state=0).fit(X, y)
    assert math.isnan(clf.bound_) and math.isnan(clf.gap_)
    assert math.isfinite(clf.lp_bound_)
    # the paper's Delta against the restricted master stays available, by its own name
    assert clf.stats_["generated_lp_gap"] == pytest.approx(
        (clf.objective_ - clf.lp_bound_) / clf.objective_)
    text = "\n".join(omt_summary(clf))
    assert "not proved" in text and "bound over generated rules" in text
    assert "nan" not in text and "0.00%" not in text


def test_proven_bound_is_below_every_tree():
    """Exact pricing to convergence proves the LP bound: ``bound_`` is at most the cost of
    every tree the oracle scores (the leaf, CART's trees, OMT's own), and ``gap_`` is
    (objective - bound) / objective."""
    X, y = numeric_sample(n=120, seed=2)
    clf = OMTClassifier(depth=2, exact_pricing=True, n_bins=6, random_state=0).fit(X, y)
    assert clf.status_ in ("optimal", "converged")
    assert math.isfinite(clf.bound_)
    got = omt_cost(rule_of(clf, X), y, per_rule(len(y)))
    assert clf.bound_ <= got + 1e-6
    assert clf.gap_ == pytest.approx((clf.objective_ - clf.bound_) / clf.objective_, abs=1e-9)
    text = "\n".join(omt_summary(clf))
    assert "not proved" not in text and "nan" not in text
    assert "over every rule set on its bins" in text  # not "every rule set": finer cuts


def test_cgh_sampled_splits_prove_no_bound():
    """CGH's LP over sampled splits bounds those splits only: ``bound_`` / ``gap_`` nan,
    ``lp_bound_`` kept, and the status line says "not proved"; with every split and
    converged pricing the LP value is a bound over every tree."""
    X, y = numeric_sample(n=150, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TimeLimitWarning)
        sampled = CGHClassifier(depth=2, time_limit=60, random_state=0).fit(X, y)
    assert math.isnan(sampled.bound_) and math.isnan(sampled.gap_)
    assert math.isfinite(sampled.lp_bound_)
    text = "\n".join(cgh_summary(sampled))
    assert "not proved" in text and "nan" not in text and "0.00%" not in text
    X, y = X.iloc[:30, :2], y[:30]
    every = CGHClassifier(depth=2, splits="all", time_limit=60, random_state=0).fit(X, y)
    assert every.status_ in ("converged", "optimal")  # optimal: the bound is reached
    assert (every.status_ == "optimal") == (every.bound_ <= every.objective_ + 1e-9)
    assert every.bound_ == pytest.approx(every.lp_bound_)
    assert every.bound_ >= every.objective_ - 1e-6


def test_master_mip_is_not_solved_after_the_deadline(monkeypatch):
    """Past the deadline the master MIP returns its start as it is, with no solver call, even
    when the start is above the LP value (a MIP would still have work to do)."""
    from optrees.omt.mip import solve_master_mip
    from optrees.omt.warmstart import mip_start
    from optrees.solvers.deadline import Deadline

    sel = _selector()
    solver, metric = sel.solver, sel.metric
    parts = [[()], *solver.starts]
    for part in parts:
        for steps in part:
            solver.add_to_pool(steps)
    penalty = float(metric.err(metric.S.sum(axis=0))) + 1.0
    m, info = solver._build_master(metric, penalty)
    lp = m.solve(Deadline())
    start = mip_start(solver.pool, info, metric, lp.values, parts, penalty, m.n_cols,
                      solver.leaves, [])
    assert start is not None
    m.set_integer(np.asarray(info.z, dtype=np.int64))
    calls = []
    solve = HighsModel.solve
    monkeypatch.setattr(HighsModel, "solve", lambda self, *a, **k: calls.append(1)
                        or solve(self, *a, **k))
    ub = float(start @ info.cost)
    out = solve_master_mip(m, info, lp, ub - 10.0, start, Deadline(0), 0.0, 1, 10.0)
    assert calls == []
    assert out.result.status == "time_limit" and out.result.objective == pytest.approx(ub)
    np.testing.assert_array_equal(out.result.values, start)


def test_worse_mip_answer_than_the_start_is_not_returned(monkeypatch):
    """When the master MIP comes back with a worse rule set than its start (HiGHS may lose a
    start, e.g. stopped in presolve), the start is returned: here the MIP is made to answer
    the single leaf, and the fit still returns a tree no worse than CART's."""
    import optrees.omt.solver as solver_module

    real = solver_module.solve_master_mip

    def leaf_answer(m, info, *args, **kwargs):
        out = real(m, info, *args, **kwargs)
        pool = leaf_answer.solver.pool
        x = np.zeros(m.n_cols)
        x[info.z[info.j.index(pool.index[()])]] = 1.0
        out.result.values, out.result.objective = x, float(x @ info.cost)
        return out

    master_mip = OMTSolver._master_mip

    def remember(self, *args, **kwargs):
        leaf_answer.solver = self
        return master_mip(self, *args, **kwargs)

    monkeypatch.setattr(solver_module, "solve_master_mip", leaf_answer)
    monkeypatch.setattr(OMTSolver, "_master_mip", remember)
    X, y = numeric_sample(seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TimeLimitWarning)
        clf = OMTClassifier(depth=2, max_iter=0, random_state=0).fit(X, y)
    costs = simple_costs(X, y, 2)
    got = omt_cost(rule_of(clf, X), y, per_rule(len(y)))
    assert got <= min(costs.values()) + 1e-9 < costs["leaf"]


def test_status_lines_never_print_nan():
    """A fit stopped before its last master LP had values has neither a bound nor an LP
    value: the lines say so in words (before: "LP bound: nan   gap (IP-LP)/IP: nan%")."""
    from types import SimpleNamespace

    nothing = SimpleNamespace(status_="time_limit", objective_=603.0, bound_=math.nan,
                              gap_=math.nan, lp_bound_=math.nan, validation_scores_={},
                              leaf_penalty_=0.02)
    text = "\n".join(omt_summary(nothing))
    assert "nan" not in text.lower() and "not proved" in text and "603" in text
    proved = SimpleNamespace(**{**vars(nothing), "status_": "converged", "bound_": 600.0,
                                "gap_": 0.005, "lp_bound_": 600.0})
    text = "\n".join(omt_summary(proved))
    assert "bound: 600" in text and "gap: 0.50%" in text and "not proved" not in text


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("depth", [2, 3])
def test_regression_start_beats_cart_with_the_rule_support(seed, depth):
    """CART's small leaves (1 row) are no OMT rules under ``min_support`` (3 rows here);
    the start also holds CART grown with leaves of that support, over bins that hold its
    thresholds, so the fit's squared loss (per rule around its mean, [OMT] §5) is no worse
    than that CART's (before: 233.5 against 198.6 at seed 1, depth 2)."""
    from sklearn.tree import DecisionTreeRegressor

    from optrees.estimators.omt import OMTRegressor

    X, _ = numeric_sample(seed=seed)
    y = X["x0"].to_numpy() ** 2 + np.random.default_rng(seed).normal(0, 0.3, len(X))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TimeLimitWarning)
        reg = OMTRegressor(depth=depth, max_iter=0, leaf_penalty=0, min_support=3,
                           random_state=0).fit(X, y)

    def sse(groups: np.ndarray) -> float:
        return float(sum(((y[groups == g] - y[groups == g].mean()) ** 2).sum()
                         for g in np.unique(groups)))

    got = sse(rule_of(reg, X))
    assert reg.objective_ == pytest.approx(got)
    cart = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=3, random_state=0)
    assert got <= sse(cart.fit(X, y).apply(X)) + 1e-6


def test_f1_fit_prints_its_f1_beside_the_parametric_objective():
    """With loss="f1" ``objective_`` is a step of Dinkelbach's method, not a score a user can
    recompute; the status lines print the training F1 (here from the predictions, in numpy)."""
    import re

    X, y = numeric_sample(n=150, seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = OMTClassifier(depth=2, loss="f1", time_limit=20, random_state=0).fit(X, y)
    pred = clf.predict(X)
    pos = clf.classes_[1]  # pos_label None: the second class
    tp = float(np.sum((pred == pos) & (y == pos)))
    f1 = 2 * tp / (np.sum(pred == pos) + np.sum(y == pos))
    line = re.search(r"F1 \(train\)      : ([0-9.]+); the objective is the loss of the last "
                     r"parametric step", "\n".join(omt_summary(clf)))
    assert line and float(line[1]) == pytest.approx(f1, abs=5e-5)


@pytest.mark.parametrize("seed", [1, 2])
def test_the_bound_is_never_above_the_objective_by_rounding(seed):
    """OMT minimises: its bound was 53.600000000000016 beside an objective of
    53.599999999999994 (the same number summed in another order) on such 7-class tables;
    a bound within rounding of the objective is reported as the objective."""
    rng = np.random.default_rng(seed)
    n = 70
    X = pd.DataFrame({"num": rng.normal(size=n).round(2), "cat": rng.choice(["r", "g", "b"], n),
                      "s": rng.choice(["u", "v"], n)})
    y = rng.integers(0, 7, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = OMTClassifier(depth=2, time_limit=30).fit(X, y)
    assert model.bound_ <= model.objective_


def test_a_bound_within_rounding_settles_on_the_objective():
    from optrees.models.result import FitResult

    assert FitResult(None, "converged", 53.599999999999994, 53.600000000000016).settled_bound \
        == 53.599999999999994
    assert FitResult(None, "optimal", 0.8266666666666667, 0.8266666666666662).settled_bound \
        == 0.8266666666666667
    assert FitResult(None, "time_limit", 10.0, 9.5).settled_bound == 9.5  # a real gap stays
    assert np.isnan(FitResult(None, "time_limit", 10.0, np.nan).settled_bound)


def test_rules_that_reach_the_bound_are_named_optimal():
    """OMT printed "converged" beside gap 0 and a bound equal to its objective (28 of 40
    random classifier fits, every regressor tried): the rules reach a bound over every
    rule set of the feature graph, which is a proof."""
    from optrees import OMTRegressor

    rng = np.random.default_rng(0)
    n = 40
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 3, n).astype(float)})
    for model, y in ((OMTClassifier(depth=2, time_limit=30), (X.a > 0).astype(int)),
                     (OMTRegressor(depth=2, time_limit=30), X.a * 2 + X.b)):
        model.fit(X, y)
        assert model.bound_ == pytest.approx(model.objective_, abs=1e-9)
        assert model.status_ == "optimal" and model.gap_ == 0.0
