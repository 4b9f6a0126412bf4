"""Tests that kill mutants of the fairness modules which the other fairness tests let live
(``bench/mutation.py``, docs/testing.md).  Oracles are the textbook rates in plain numpy."""

from __future__ import annotations

import inspect
import warnings
from functools import cache

import numpy as np
import pytest

from optrees import metrics
from optrees.fairness import fairness_summary, realised_gap


def _tpr_gap(y, pred, groups, positive, w):
    """Largest difference between groups of the weighted rate of positive predictions
    among the rows of the positive class (equal opportunity)."""
    rates = []
    for g in np.unique(groups):
        cell = (groups == g) & (y == positive)
        if w[cell].sum() > 0:
            rates.append(w[cell & (pred == positive)].sum() / w[cell].sum())
    return max(rates) - min(rates)


def test_realised_gap_takes_every_argument_by_name():
    """Kills ``*`` -> ``/`` in realised_gap's signature (the data become positional-only)."""
    rng = np.random.default_rng(0)
    y, pred = rng.integers(0, 2, 40), rng.integers(0, 2, 40)
    groups, w = rng.integers(0, 3, 40), rng.integers(1, 4, 40).astype(float)
    got = realised_gap(notion="equal_opportunity", y_true=y, y_pred=pred, groups=groups,
                       positive=1, sample_weight=w)
    assert got == pytest.approx(_tpr_gap(y, pred, groups, 1, w))
    with pytest.raises(TypeError):  # the options stay keyword-only
        realised_gap("equal_opportunity", y, pred, groups, 1)


def test_a_gap_equal_to_its_cap_meets_it():
    """"epsilon bounds the largest difference": a gap of exactly epsilon meets the cap.
    Kills ``realised <= cap + tol`` -> ``<`` (with the tolerance at 0 through equal floats
    the mutant still holds, so the gap is the cap plus half the tolerance)."""
    assert fairness_summary("dmc", 0.25, 0.25, ["a", "b"])["met"] is True
    assert fairness_summary("dmc", 0.0, 0.0, ["a", "b"])["met"] is True
    assert fairness_summary("dmc", 0.25, 0.25 + 1e-6, ["a", "b"])["met"] is False


def test_an_old_notion_name_is_reported_at_the_callers_line():
    """The DeprecationWarning of ``"eop"`` names the line that passed it, for each public
    entry point (the stack level is found by walking the stack, ``user_stacklevel``)."""
    y = np.array([0, 1, 1, 0, 1, 1])
    pred = np.array([0, 1, 0, 0, 1, 1])
    groups = np.array([0, 0, 0, 1, 1, 1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lines = [inspect.currentframe().f_lineno + 1]
        metrics.fairness_gap("eop", y, pred, groups, 1)
        lines.append(inspect.currentframe().f_lineno + 1)
        realised_gap("eop", y, pred, groups, positive=1)
        lines.append(inspect.currentframe().f_lineno + 1)
        fairness_summary("eop", 0.1, 0.2, [0, 1])
    assert [(w.category, w.filename, w.lineno) for w in caught] == \
        [(DeprecationWarning, __file__, line) for line in lines]


def _depth1_predictions(X: np.ndarray, K: int) -> np.ndarray:
    """Predictions of every tree of depth <= 1 over the 0/1 columns of X (one per row)."""
    n, d = X.shape
    preds = [np.full(n, k) for k in range(K)]
    for j in range(d):
        for left in range(K):
            for right in range(K):
                preds.append(np.where(X[:, j] == 1, right, left))
    return np.array(preds)


def _rate_gap(P: np.ndarray, cell: np.ndarray, groups: np.ndarray, w: np.ndarray,
              positive: int) -> np.ndarray:
    """Per prediction vector (row of P): largest minus smallest weighted rate of positive
    predictions over the groups with weight in ``cell``."""
    rates = [((P[:, m] == positive) @ w[m]) / w[m].sum()
             for g in np.unique(groups) if w[m := cell & (groups == g)].sum() > 0]
    rates = np.array(rates)
    return rates.max(axis=0) - rates.min(axis=0)


@pytest.mark.parametrize("notion", ["statistical_parity", "predictive_equality"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_two_class_fair_mips_equal_the_enumeration_from_the_definition(notion, seed):
    """The MIPs' fairness rows over the correctness of two-class rows (``q_i = 1 - c_i`` for
    a negative row): FlowOCT and BendOCT without the front search find the best depth-1 tree
    meeting the notion, enumerated in numpy.  Kills the sign flip of the negative rows'
    coefficients in add_fairness_rows (``-coef[i] * t_vals`` -> ``coef[i] * t_vals``)."""
    import pandas as pd

    from optrees import BendOCTClassifier, FlowOCTClassifier

    rng = np.random.default_rng(seed)
    n, eps = 24, 0.1
    groups = rng.integers(0, 2, n)
    X = rng.integers(0, 2, (n, 3))
    X[:, 0] |= (groups == 1) & (rng.random(n) < 0.7)       # a column that tracks a group
    y = (X[:, 0] ^ (rng.random(n) < 0.2)).astype(int)
    y[:2] = [0, 1]
    P = _depth1_predictions(X, 2)
    cell = np.ones(n, bool) if notion == "statistical_parity" else y != 1
    w = np.ones(n)
    fair = _rate_gap(P, cell, groups, w, 1) <= eps + 1e-9
    scores = (P == y) @ w
    best = scores[fair].max()
    df = pd.DataFrame(X, columns=["a", "b", "c"]).assign(s=groups)
    for est in (FlowOCTClassifier(subtree_search=False), BendOCTClassifier(subtree_search=False)):
        est.set_params(depth=1, lam=0.0, fairness=notion, epsilon=eps, sensitive="s",
                       drop_sensitive=True, binarizer=None, time_limit=60).fit(df, y)
        pred = est.predict(df)
        assert est.status_ == "optimal"
        assert float((pred == y) @ w) == best, (type(est).__name__, best, scores.max())
        assert _rate_gap(pred[None, :], cell, groups, w, 1)[0] <= eps + 1e-9


def test_the_boundary_of_met_is_the_documented_tolerance():
    """``realised <= cap + MET_TOL`` counts as met, the boundary included.  Kills ``<=`` ->
    ``<`` in fairness_summary (a gap equal to the cap alone is met by both)."""
    from optrees.fairness import MET_TOL

    assert fairness_summary("dmc", 0.25, 0.25 + MET_TOL, [0, 1])["met"] is True
    assert fairness_summary("dmc", 0.25, 0.25 + 3 * MET_TOL, [0, 1])["met"] is False


def test_an_unmet_cap_is_reported_at_the_line_that_called_fit():
    """record_fairness warns at the first line outside the package (here the stand-in
    estimator's own call; from a real estimator, the user's ``fit(...)`` line) with the
    realised gap and the cap."""
    from optrees.fairness import FairnessWarning, record_fairness

    class Fitted:
        stats_: dict = {}

        def fit(self):
            self.line = inspect.currentframe().f_lineno + 1
            record_fairness(self, fairness_summary("dmc", 0.1, 0.3, ["F", "M"]))
            return self

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = Fitted().fit()
    line = est.line
    assert [(w.category, w.filename, w.lineno) for w in caught] == \
        [(FairnessWarning, __file__, line)]
    assert "0.3000" in str(caught[0].message) and "epsilon=0.1" in str(caught[0].message)
    assert est.fairness_ is est.stats_["fairness"] and est.fairness_["met"] is False


class _StandIn:
    """A fitted tree estimator as record_tree_fairness sees it: fixed predictions."""

    fairness, epsilon, sensitive, legitimate, positive_class = \
        "statistical_parity", 0.05, "s", None, None

    def __init__(self, predictions, status):
        self.classes_ = np.array(["no", "yes"])
        self._pred, self.status_, self.stats_ = predictions, status, {}

    def predict(self, df):
        return self._pred

    def fit(self, df, y, w):
        from optrees.trees.problem.fairness import record_tree_fairness

        self.line = inspect.currentframe().f_lineno + 1  # the first line outside the package
        record_tree_fairness(self, df, y, w)
        return self


@pytest.mark.parametrize("status", ["optimal", "time_limit", "feasible"])
def test_a_tree_reports_its_realised_gap_and_why_it_may_miss_the_cap(status):
    """record_tree_fairness measures the statistical-parity gap of the estimator's own
    predictions (weighted, numpy oracle), warns at the first line outside the package, and
    says that the fit stopped early only when the status is not "optimal".  Kills ``==`` ->
    ``<``, ``<=``, ``>`` on the status."""
    import pandas as pd

    from optrees.fairness import FairnessWarning

    groups = np.array(["a", "a", "a", "b", "b", "b", "b"])
    pred = np.array(["yes", "yes", "no", "no", "no", "yes", "no"])
    w = np.array([1.0, 2.0, 1.0, 1.0, 3.0, 1.0, 1.0])
    y = np.zeros(7, dtype=np.int64)
    rate = {g: w[(groups == g) & (pred == "yes")].sum() / w[groups == g].sum() for g in "ab"}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = _StandIn(pred, status).fit(pd.DataFrame({"s": groups}), y, w)
    line = est.line
    assert est.fairness_["realised"] == pytest.approx(abs(rate["a"] - rate["b"]))
    assert est.fairness_["groups"] == ["a", "b"] and est.fairness_["met"] is False
    assert [(c.category, c.filename, c.lineno) for c in caught] == \
        [(FairnessWarning, __file__, line)]
    assert ("stopped with status" in str(caught[0].message)) == (status != "optimal")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_conditional_parity_with_a_three_valued_legitimate_attribute(seed):
    """Conditional parity compares the groups within each value of the legitimate attribute
    (3 values, 3 groups, weighted): TreeFairness.gap of random predictions equals the numpy
    definition.  Kills ``legitimate == v`` -> ``!=`` in TreeFairness.cells (the same cells
    when the attribute has 2 values)."""
    from optrees.trees.problem.fairness import TreeFairness

    rng = np.random.default_rng(10 + seed)
    n = 40
    groups, legit = rng.integers(0, 3, n), rng.integers(0, 3, n)
    y, pred = rng.integers(0, 2, n), rng.integers(0, 2, n)
    w = rng.uniform(0.5, 2.0, n)
    want = max(_rate_gap(pred[None, :], legit == v, groups, w, 1)[0] for v in range(3))
    fair = TreeFairness("conditional_parity", 0.1, groups, 1, legitimate=legit)
    assert fair.gap(y, pred, w) == pytest.approx(want, abs=1e-12)


def test_a_group_without_weight_in_a_cell_has_no_rate_there():
    """A group whose rows in a cell all weigh 0 has no rate in that cell and is left out of
    the comparison (not a 0/0 rate).  Kills ``total > 0`` -> ``total > -1`` in
    TreeFairness._shares."""
    from optrees.trees.problem.fairness import TreeFairness

    groups = np.array([0, 0, 1, 1, 1, 2, 2, 2])
    y = np.array([1, 0, 1, 0, 1, 1, 0, 0])
    pred = np.array([1, 1, 1, 1, 0, 0, 0, 1])
    w = np.array([0.0, 0.0, 1.0, 1.0, 2.0, 1.0, 1.0, 1.0])    # group 0 weighs nothing
    for kind, cell in (("statistical_parity", np.ones(8, bool)),
                       ("equal_opportunity", y == 1)):
        want = _rate_gap(pred[None, :], cell, groups, w, 1)[0]
        got = TreeFairness(kind, 0.1, groups, 1).gap(y, pred, w)
        assert got == pytest.approx(want, abs=1e-12), kind
        assert np.isfinite(TreeFairness(kind, 0.1, groups, 1).coordinates(y, w)[0]).all()


def test_nothing_to_compare_is_a_gap_of_zero():
    """With one group in every cell no two rates differ: the gap is 0 (the docstring's "0 if
    nothing to compare").  Kills the default of TreeFairness.gap 0.0 -> 1.0 / -1.0."""
    from optrees.trees.problem.fairness import TreeFairness

    y, pred = np.array([1, 0, 1, 0]), np.array([1, 1, 0, 0])
    one_group = TreeFairness("statistical_parity", 0.1, np.zeros(4, np.int64), 1)
    assert one_group.gap(y, pred, np.ones(4)) == 0.0
    by_class = TreeFairness("equal_opportunity", 0.1, np.array([0, 0, 0, 1]), 1)  # 1 group
    assert by_class.gap(y, pred, np.ones(4)) == 0.0                              # among y=1


def test_one_group_has_no_gap_coordinates():
    """With a single group there is no rate difference to bound: no coordinate column and no
    cell.  Kills ``np.zeros((n, 0))`` -> ``(n, 1)`` / ``(n, -1)`` in
    TreeFairness.coordinates."""
    from optrees.trees.problem.fairness import TreeFairness

    y = np.array([1, 0, 1, 0, 1])
    C, cells = TreeFairness("equalized_odds", 0.1, np.zeros(5, np.int64), 1).coordinates(
        y, np.ones(5))
    assert C.shape == (5, 0) and cells == []
    C, cells = TreeFairness("statistical_parity", 0.1, np.array([0, 1, 2, 0, 1]),
                            1).coordinates(y, np.ones(5))
    assert C.shape == (5, 2) and cells == [[0, 1]]     # r_1 - r_0 and r_2 - r_0


# ------------------------------------------------------- the front search of fair trees
def _parity_coefficients(groups: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Statistical parity between groups 0 and 1 as coefficients of the positive
    predictions: ``c @ [pred == 1]`` is group 0's weighted rate of positive predictions less
    group 1's."""
    g0, g1 = groups == 0, groups == 1
    return np.where(g0, w / w[g0].sum(), 0.0) - np.where(g1, w / w[g1].sum(), 0.0)


def _best_fair_score(X, y, w, groups, eps, depth, penalty, min_leaf=1):
    """Best ``weighted correct - penalty * leaves`` of a tree of depth <= ``depth`` over the
    0/1 columns of ``X`` whose splits leave ``min_leaf`` rows or more on each side and whose
    parity gap, from its predictions, is at most ``eps``: every
    subtree of a row set as (gap share, score) pairs, the best score kept per share (shares
    add up over the leaves), leaves labelled 1 or 0."""
    coef = _parity_coefficients(groups, w)
    X = X.astype(bool)

    @cache
    def points(rows: bytes, d: int) -> dict:
        member = np.frombuffer(rows, dtype=bool)
        out: dict = {}

        def put(share: float, score: float) -> None:
            if score > out.get(round(share, 12), (-np.inf,))[0]:
                out[round(share, 12)] = (score, share)

        put(0.0, w[member & (y == 0)].sum() - penalty)
        put(float(coef[member].sum()), w[member & (y == 1)].sum() - penalty)
        for f in range(X.shape[1]) if d else []:
            left, right = member & ~X[:, f], member & X[:, f]
            if min(left.sum(), right.sum()) >= max(1, min_leaf):
                for sa, ga in points(left.tobytes(), d - 1).values():
                    for sb, gb in points(right.tobytes(), d - 1).values():
                        put(ga + gb, sa + sb)
        return out

    every = points(np.ones(len(y), dtype=bool).tobytes(), depth).values()
    return max(score for score, share in every if abs(share) <= eps + 1e-9)


def _fair_case(seed: int):
    """12-29 rows, 2-4 0/1 columns, two groups, a label tracking column 0 or the group with
    a quarter flipped; on odd seeds column 0 is the group; integer weights on 2 seeds of 3."""
    rng = np.random.default_rng(seed)
    n, F = int(rng.integers(12, 30)), int(rng.integers(2, 5))
    X = rng.integers(0, 2, (n, F))
    groups = rng.integers(0, 2, n)
    y = ((X[:, 0] | groups) ^ (rng.random(n) < 0.25)).astype(int)
    if seed % 2:
        X[:, 0] = groups
    w = rng.integers(1, 4, n).astype(float) if seed % 3 else np.ones(n)
    return X, y, w, groups


@pytest.mark.parametrize(("seed", "eps", "penalty", "min_leaf"), [
    (7, 0.3, 0.0, 1), (26, 0.15, 0.0, 1), (4, 0.3, 0.5, 1), (31, 0.3, 0.0, 1),
    (37, 0.05, 0.0, 1), (1, 0.15, 0.5, 1), (21, 0.05, 0.0, 3), (37, 0.3, 0.0, 3)])
def test_depth3_fair_front_search_equals_the_enumeration(seed, eps, penalty, min_leaf):
    """The depth-3 front search under statistical parity equals the enumeration of every
    tree, its tree's gap, measured from its predictions, meets the cap, and its splits keep
    ``min_leaf`` rows a side.  Mutants that lose the optimum while claiming it: a wrong sign
    in the multipliers' price of the reference group (an invalid Lagrangian bound: seeds 7,
    26), the lower end of the sibling's window (seeds 4, 31) or the window taken from the
    side's own coordinates instead of its sibling's (seeds 37, 1: points cut that a fair
    sibling completes); and one that beats it: root splits with too few rows on a side
    admitted (``ok + (...)`` for ``ok & (...)``: seeds 21, 37 with 3 rows a side)."""
    from optrees.trees.search.binary.fair import solve_fair_subtree

    X, y, w, groups = _fair_case(seed)
    best = _best_fair_score(X, y, w, groups, eps, 3, penalty, min_leaf)
    sol = solve_fair_subtree(X, y, 3, _parity_coefficients(groups, w), eps, 1, penalty, w,
                             min_leaf)
    assert sol.optimal and sol.score == pytest.approx(best, abs=1e-9)
    stop = sol.tree.terminal(X.astype(np.uint8))
    pred = sol.tree.label[stop - 1]
    rates = [w[(groups == g) & (pred == 1)].sum() / w[groups == g].sum() for g in (0, 1)]
    assert abs(rates[0] - rates[1]) <= eps + 1e-9
    if sol.tree.n_splits:
        assert np.bincount(stop)[sol.tree.reachable_stops()].min() >= min_leaf


# ------------------------------------- the front search's leaves, multipliers and floors
@pytest.mark.parametrize("kind", ["fair", "budgets"])
def test_a_priced_leaf_is_worth_its_weight_plus_the_multipliers_times_its_share(kind):
    """A leaf predicts the heaviest other class (share 0) or a priced class j (its weight, and
    share: the gap coordinates ``u`` of its rows for fairness, ``u`` in coordinate j for
    budgets, plus one leaf in the last coordinate with a leaf count); at multipliers lam the
    best leaf is worth ``max(weight + lam . share)``, and option i predicts the class whose
    weight it scores.  Kills, in ``_Classes.best``, the skip of a zero multiplier read as a
    skip of +1 or -1 (``c != 1.0``, ``c != -1.0``) and the leaf count's multiplier read
    from coordinate 1 (``lam[1]``), and ``priced[option - 2]`` in ``label``."""
    from optrees.trees.search.binary.fair_fronts import _Classes

    rng = np.random.default_rng(3)
    if kind == "fair":    # 3 classes, class 1 positive, two gap coordinates
        cls, K, Du = _Classes.fair(1, 3, 2), 3, 2
        priced, others = [1], [0, 2]
        shares = {1: lambda u: u}
    else:                 # classes 0 and 2 budgeted, 1 free, 3 the budget class; leaves
        cls, K, Du = _Classes.budgets([0, 2], 4, 3, leaves=True), 4, 1
        priced, others = [0, 2], [1]
        shares = {0: lambda u: np.r_[u[0], 0.0, 1.0], 2: lambda u: np.r_[0.0, u[0], 1.0]}
    Q = np.c_[rng.integers(0, 9, (6, K)), rng.normal(size=(6, Du)), rng.integers(1, 9, 6)]
    Q = Q.astype(float)
    D = cls.D
    score, _, other = cls.options(Q)
    for i in range(len(priced) + 1):
        labels = [cls.label(i, o) for o in other]
        assert np.array_equal(score[:, i], Q[np.arange(6), labels])
        assert set(labels) <= set(others if i == 0 else [priced[i - 1]])
    for lam in ([1.0, -1.0, 0.5], [-1.0, 0.0, 2.0], [0.0, 1.0, -1.0]):
        lam = np.array(lam[:D])
        extra = lam[-1] if kind == "budgets" else 0.0   # the other class's leaf counts too
        want = [max([Q[r, others].max() + extra]
                    + [Q[r, j] + lam @ shares[j](Q[r, K:K + Du]) for j in priced])
                for r in range(6)]
        assert cls.best(cls.parts(Q), lam) == pytest.approx(want, abs=1e-12)


def test_golden_min_returns_the_best_point_it_evaluated():
    """golden_min on convex functions (smooth, a kink, a flat bottom): the point returned is
    the best one evaluated, within the last bracket of the true minimizer, inside [a, b].
    Kills the returned end read the wrong way round (``c if fc > fd else d``)."""
    from optrees.trees.search.binary.fair import golden_min

    for f, at in ((lambda x: (x - 0.3) ** 2, 0.3), (lambda x: abs(x + 2.5) + 0.1 * x, -2.5),
                  (lambda x: max(abs(x - 1.0) - 0.5, 0.0) + 1e-3 * x, 0.5)):
        seen: list[float] = []

        def g(x: float, f=f, seen=seen) -> float:
            seen.append(x)
            return f(x)

        x = golden_min(g, -4.0, 4.0, 30)
        assert len(seen) == 32 and -4.0 <= x <= 4.0
        assert f(x) == min(f(s) for s in seen)
        assert abs(x - at) <= 8.0 * ((5 ** 0.5 - 1) / 2) ** 30


def _depth2_points(X, y, w, coef, penalty):
    """(score, parity share) of every tree of depth <= 2 over the 0/1 columns of X, leaves
    labelled 0 or 1 (the share: ``coef`` summed over the rows predicted 1)."""
    X = X.astype(bool)

    def subtrees(member: np.ndarray, depth: int) -> list:
        out = [(w[member & (y == 0)].sum() - penalty, 0.0),
               (w[member & (y == 1)].sum() - penalty, coef[member].sum())]
        for f in range(X.shape[1]) if depth else []:
            left, right = member & ~X[:, f], member & X[:, f]
            if left.any() and right.any():
                out += [(sa + sb, da + db) for sa, da in subtrees(left, depth - 1)
                        for sb, db in subtrees(right, depth - 1)]
        return out

    return np.array(subtrees(np.ones(len(y), dtype=bool), 2))


def _mixture_bound(points: np.ndarray, eps: float) -> float:
    """Best score of a mixture of trees whose mixed share is within [-eps, eps]: the LP
    whose dual is the Lagrangian bound ``min_lam max_tree (score + lam share) + eps |lam|``
    (a mixture of two trees reaches it, at share -eps or eps when no single tree does)."""
    s, d = points[:, 0], points[:, 1]
    best = s[np.abs(d) <= eps].max(initial=-np.inf)
    i, j = (a.ravel() for a in np.meshgrid(np.arange(len(s)), np.arange(len(s))))
    for t in (-eps, eps):
        ok = (d[i] < t) & (d[j] > t)
        theta = (d[j][ok] - t) / (d[j][ok] - d[i][ok])
        best = max(best, (theta * s[i][ok] + (1 - theta) * s[j][ok]).max(initial=-np.inf))
    return float(best)


class _CountedChecks:
    """A deadline that never passes (it is checked before the pair counts, at each step of
    the Lagrangian bound and once per floor)."""

    def check(self) -> None:
        pass


@pytest.mark.parametrize(("seed", "eps"), [(0, 0.0), (2, 0.02), (5, 0.05), (10, 0.02),
                                            (6, 0.0)])
def test_depth2_fair_search_bound_is_the_lagrangian_dual_and_floors_grow_geometrically(
        seed, eps, monkeypatch):
    """The depth-2 front search (weights x 100, so 0.2 % of the total weight is a few
    units): its fair tree is the enumerated fair optimum; its bound is the Lagrangian dual,
    i.e. the best mixture of trees with a mixed parity share within eps (from below: a valid
    bound; from above: within 1e-6 of the total weight, the golden section's precision);
    and the floors it tries, dropping from the bound by 0.2 %, then 4 times more each time,
    number at most ``k`` with ``0.002 W (4^k - 1) / 3 >= bound - optimum``.  Kills the
    floors' schedule ``4 / margin`` (margins that do not grow: 29-85 floors for 3-4)."""
    from optrees.trees.search.binary.data import BinaryData
    from optrees.trees.search.binary.fair import _FairSearch
    from optrees.trees.search.binary.fair_fronts import _Classes

    X, y, w, groups = _fair_case(seed)
    X, w = X[:, :3], 100 * w
    coef = _parity_coefficients(groups, w)
    points = _depth2_points(X, y, w, coef, 0.0)
    optimum = points[np.abs(points[:, 1]) <= eps + 1e-9, 0].max()
    lp = _mixture_bound(points, eps)
    from optrees.trees.search.binary import fair_fronts

    floors = []  # the depth-2 level's front is read once per floor
    front = fair_fronts._Level2.front
    monkeypatch.setattr(fair_fronts._Level2, "front",
                        lambda self, *a, **k: floors.append(a) or front(self, *a, **k))
    deadline = _CountedChecks()
    search = _FairSearch(BinaryData.make(X, y, w, 2), coef[:, None], [[0]], eps,
                         _Classes.fair(1, 2, 1), 0.0, 1, deadline, "numpy")
    bound, done = search.run(2, np.inf)
    W = w.sum()
    assert done and search.best[0] == pytest.approx(optimum, abs=1e-9)
    assert lp - 1e-9 * W <= bound <= lp + 1e-6 * W
    assert lp - optimum > 0.01 * W      # a duality gap of several margins
    most = int(np.ceil(np.log(1 + 3 * (lp + 1e-6 * W - optimum) / (0.002 * W)) / np.log(4)))
    assert 1 <= len(floors) <= most


def test_a_single_leaf_under_a_cap_that_the_majority_leaf_breaks_is_the_other_class():
    """Depth 0, a cap of half the weight on the rows predicted positive (``coef = w / W``),
    4 of 5 rows positive: the one fair leaf predicts 0 and scores its weight.  Kills the
    unfair leaves' score read as ``+inf`` (no leaf at all is then returned)."""
    from optrees.trees.search.binary.fair import solve_fair_subtree

    X = np.array([[1], [0], [1], [1], [0]])
    y, w = np.array([1, 0, 1, 1, 1]), np.array([1.0, 2.0, 1.0, 1.0, 1.0])
    sol = solve_fair_subtree(X, y, 0, w / w.sum(), 0.5, 1, 0.0, w)
    assert sol.optimal and sol.score == 2.0 and sol.tree.label[0] == 0


def test_the_lagrangian_bound_takes_a_multiplier_of_three_and_a_half_times_the_weight():
    """One 0/1 column, every row labelled by it, parity at eps = 0: group 0 (10 rows of
    weight 1) has 4 rows with x = 1, group 1 (weight 10) has 5.3 of its weight there.  The
    trees are the two leaves (share 0, scores 10.7 and 9.3) and the two stumps (shares
    -0.13 and 0.13, scores 20 and 0), so the best mixture with share 0 is the leaf, 10.7, and
    the Lagrangian bound reaches it only at multipliers in [9.3 / 0.13, 10.7 / 0.13] = [3.58
    W, 4.12 W] (W = 20).  Kills the multipliers' range cut to 3 times the weight (bound
    12.2)."""
    from optrees.trees.search.binary.data import BinaryData
    from optrees.trees.search.binary.fair import _FairSearch
    from optrees.trees.search.binary.fair_fronts import _Classes

    groups = np.r_[np.zeros(10, dtype=int), np.ones(4, dtype=int)]
    x = np.r_[np.ones(4), np.zeros(6), 1, 1, 0, 0].astype(int)
    w = np.r_[np.ones(10), 2.65, 2.65, 2.35, 2.35]
    y = x.copy()
    coef = _parity_coefficients(groups, w)
    points = _depth2_points(x[:, None], y, w, coef, 0.0)
    lp = _mixture_bound(points, 0.0)
    assert lp == pytest.approx(10.7)
    search = _FairSearch(BinaryData.make(x[:, None], y, w, 2), coef[:, None], [[0]], 0.0,
                         _Classes.fair(1, 2, 1), 0.0, 1, None, "numpy")
    bound, done = search.run(2, np.inf)
    assert done and search.best[0] == pytest.approx(10.7)
    assert lp - 1e-9 <= bound <= lp + 1e-6 * w.sum()


@pytest.mark.parametrize("n_classes", [2, 3])
def test_a_depth1_split_has_two_leaves_of_different_options(n_classes):
    """A split whose two leaves take the same option is the leaf with one more penalty,
    except two other-class leaves with several other classes (each side's heaviest may
    differ).  Kills ``len(self.others) > 0`` for ``> 1`` in ``_Classes.combos`` (a dominated
    split of two other-class leaves with a single other class: same answers, more points)."""
    from optrees.trees.search.binary.fair_fronts import _Classes

    cls = _Classes.fair(1, n_classes, 1)
    want = {(a, b) for a in (0, 1) for b in (0, 1) if a != b or (a == b == 0 and n_classes > 2)}
    assert {tuple(int(v) for v in c) for c in cls.combos} == want
    assert len(cls.combos) == len(want)


def test_the_lagrangian_bound_with_two_coordinates_costs_two_passes_of_half_the_steps():
    """Work: the bound minimizes over the multipliers by golden section, along one
    coordinate with 30 steps, or along each of several coordinates in turn, twice, with 15
    steps each (each pass 2 + steps evaluations of every level's phi: 32 with one
    coordinate, 68 with two).  Statistical parity of three groups has two coordinates
    (rates of groups 1 and 2 less group 0's).  Kills ``_DUAL_STEPS - 2`` for
    ``_DUAL_STEPS // 2`` (28 steps a pass: 120 evaluations)."""
    from optrees.trees.search.binary.data import BinaryData
    from optrees.trees.search.binary.fair import _FairSearch
    from optrees.trees.search.binary.fair_fronts import _Classes

    X, y, w, _ = _fair_case(5)
    groups = np.arange(len(y)) % 3
    C = np.stack([np.where(groups == j, w / w[groups == j].sum(), 0.0)
                  - np.where(groups == 0, w / w[groups == 0].sum(), 0.0) for j in (1, 2)], 1)
    for coef, cells, want in ((C[:, :1], [[0]], 32), (C, [[0, 1]], 68)):
        search = _FairSearch(BinaryData.make(X, y, w, 2), coef, cells, 0.05,
                             _Classes.fair(1, 2, coef.shape[1]), 0.0, 1, None, "numpy")
        level = search.level2(np.arange(len(y)))
        calls = []
        phi = level.phi
        level.phi = lambda lam, phi=phi, calls=calls: calls.append(lam) or phi(lam)
        bound, _ = search.dual([level])
        assert len(calls) == want
        assert bound <= level.ub + 1e-9
