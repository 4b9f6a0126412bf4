"""The rule LP's numbers mean what their names say (issue #42): ``bound_`` is at most the
optimum of the master LP (3) ([RUG]; FairRUG's rows (11)-(12), (15)-(16)) over the candidate
rules -- every leaf of RUX's ensemble, read or not -- and equals ``objective_`` when the
status is optimal.

The oracle builds (3) here from its definition in plain numpy (leaves from the forest's
``apply``, classes of their weighted majority, Gini costs over the largest, ``ahat`` 1 or
-1/(K-1), group means of the slacks) and solves it with scipy's linprog.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from oracles import forest_lp, lp_optimum
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier

from optrees import RUXClassifier
from optrees.rug import master as master_mod
from optrees.rug import rux as rux_mod
from optrees.rug.fairness import Fairness
from optrees.rug.master import RUGMaster
from optrees.solvers.base import SolveResult
from optrees.solvers.deadline import Deadline


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    X, y = X[::2], y[::2]  # 285 rows: fast
    groups = (X[:, 0] > np.median(X[:, 0])).astype(int)  # a "sensitive" split of the rows
    forests = {d: RandomForestClassifier(12, max_depth=d, random_state=0).fit(X, y)
               for d in (2, 4)}
    return X, y, groups, forests


def _fit(est, X, y, groups, kind, **kw) -> RUXClassifier:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return RUXClassifier(est, fairness=kind, epsilon=0.02, random_state=0, **kw).fit(
            X, y, groups=groups if kind else None)


@pytest.mark.parametrize("kind", [None, "odm", "dmc"])
def test_an_optimal_rux_lp_reports_its_optimum_as_its_bound(cancer, kind):
    """Solved to optimality, the LP's bound is its objective (old: fair LPs reported bounds
    far below it: one pure leaf a little over its dual row scaled every dual down)."""
    X, y, groups, forests = cancer
    est = forests[4]
    m = _fit(est, X, y, groups, kind)
    want = forest_lp(est, X, y, groups, kind, 0.02)
    assert m.status_ == "optimal"
    assert m.objective_ == pytest.approx(want, rel=1e-6)
    assert m.bound_ <= want + 1e-7 * max(1.0, want)
    assert m.bound_ == pytest.approx(m.objective_, rel=1e-6)
    assert m.gap_ <= 1e-6


@pytest.mark.parametrize("kind", ["odm", "dmc"])
def test_duals_within_the_solvers_tolerance_certify_the_optimum(monkeypatch, kind):
    """An optimal fair LP whose duals put a pure, nearly free rule (cost 2e-8, Gini's floor)
    1e-7 over its dual row -- optimal by HiGHS's default dual feasibility tolerance: the
    bound is the objective within 1e-6 (old: one scale theta = 2e-8 / 1.2e-7 of every dual,
    the bound a sixth of the optimum, as adult's 2574.6 against 11032.0)."""
    rng = np.random.default_rng(3)
    n, m, K = 30, 8, 2
    y = rng.integers(0, K, n)
    y[:4] = [0, 0, 1, 1]
    groups = np.arange(n) % 2
    fair = Fairness(kind, groups, 0.02)
    cover = rng.random((n, m)) < 0.4
    labels = rng.integers(0, K, m)
    costs = rng.uniform(0.2, 1.0, m)
    pure = np.flatnonzero(y == 1)[:3]  # the cheap rule: three rows of class 1
    cover[:, 0], labels[0], costs[0] = False, 1, 2e-8
    cover[pure, 0] = True
    master = RUGMaster(y, K, 1.0, fair)
    for j in range(m):
        master.add(np.flatnonzero(cover[:, j]), int(labels[j]), float(costs[j]))
    exact = master.solve()
    fams = [fam for _, fam in fair.sets(y, K)]
    want = lp_optimum(cover, labels, costs, y, np.ones(n), K, fams, 0.02)
    assert exact.status == "optimal" and exact.objective == pytest.approx(want, rel=1e-7)
    duals = np.array(exact.stats["duals"], dtype=float)
    duals[pure] += (1e-7 + 2e-8 - duals[pure].sum()) / 3  # load 1.2e-7 > c_0 = 2e-8
    monkeypatch.setattr(master_mod, "solve_by", lambda model, deadline: SolveResult(
        "optimal", exact.objective, exact.objective, 0.0, 0, exact.values, {"duals": duals}))
    res = master.solve()
    assert res.bound <= want + 1e-9
    assert res.bound == pytest.approx(want, rel=1e-6)


def _read_one_tree(monkeypatch):
    """Reading stops after the first tree (a deadline already passed), the LP has no limit."""
    from optrees.estimators import rux as est_rux

    real = est_rux.leaf_rules
    monkeypatch.setattr(est_rux, "leaf_rules",
                        lambda trees, X, names, deadline=None: real(trees, X, names,
                                                                    Deadline(0)))


@pytest.mark.parametrize("rule_cost", ["gini", "length"])
@pytest.mark.parametrize("kind", [None, "odm", "dmc"])
def test_a_cut_reading_bounds_the_lp_over_every_leaf(cancer, monkeypatch, kind, rule_cost):
    """One tree of 12 read: bound_ is at most (3)'s optimum over every leaf of the forest,
    the status is not optimal, and gap_scope_ says the bound is over every leaf (old: the
    optimum over the first tree's leaves, above the full optimum)."""
    X, y, groups, forests = cancer
    est = forests[2]
    _read_one_tree(monkeypatch)
    m = _fit(est, X, y, groups, kind, rule_cost=rule_cost)
    assert m.stats_["n_leaves"] <= 4  # one tree of depth 2 read
    want = forest_lp(est, X, y, groups, kind, 0.02, rule_cost)
    assert m.status_ != "optimal"
    assert m.bound_ <= want + 1e-7 * max(1.0, want)
    assert m.bound_ <= m.objective_
    assert m.gap_scope_ == "gap of the rule LP over its candidate rules"


@pytest.mark.parametrize("rule_cost", ["gini", "length"])
@pytest.mark.parametrize("kind", [None, "odm"])
def test_a_cut_reading_of_cheaper_leaves_bounds_the_lp_over_every_leaf(cancer, monkeypatch,
                                                                      kind, rule_cost):
    """The tree read is a stump whose leaves cost less than the forest's costliest (Gini;
    length 1 against 3): over every leaf the read leaves cost less than in the LP solved
    (costs are divided by the largest), and the bound must price that too."""
    from sklearn.tree import DecisionTreeClassifier

    X, y, groups, _ = cancer
    est = RandomForestClassifier(12, max_depth=3, random_state=1).fit(X, y)
    est.estimators_[0] = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y)
    _read_one_tree(monkeypatch)
    m = _fit(est, X, y, groups, kind)
    want = forest_lp(est, X, y, groups, kind, 0.02)
    assert m.bound_ <= want + 1e-7 * max(1.0, want)


class _OneLeaf:
    """An unread tree whose one leaf covers every row."""

    def apply(self, X):
        return np.zeros(len(X), dtype=np.int64)

    def depth(self):
        return 3


def test_unread_leaves_that_raise_the_largest_cost_lower_the_read_leaves_costs():
    """Read: two pure leaves ({0, 1} of class 1, {2, 3} of class 0; Gini 1e-8, each cost 1
    over the largest read), duals 1/2 per row (optimal there: 2).  Unread: one leaf over
    every row, Gini 1/2 -- its dual row holds (load 0), but over every leaf the pure leaves
    cost 1e-8 / 0.5 and the optimum is 4e-8: the scale must bring the bound under it."""
    from optrees.rug.rux_unread import every_leaf_duals

    X, y, w = np.arange(4.0)[:, None], np.array([1, 1, 0, 0]), np.ones(4)
    cover = np.array([[1, 0, 1], [1, 0, 1], [0, 1, 1], [0, 1, 1]], dtype=bool)
    beta = every_leaf_duals([_OneLeaf()], X, y, w, 2, np.full(4, 0.5), 1.0, "gini",
                            sp.csc_matrix(cover[:, :2]), np.array([1, 0]),
                            np.array([1e-8, 1e-8]), Deadline())
    want = lp_optimum(cover, np.array([1, 0, 0]), np.array([1e-8, 1e-8, 0.5]) / 0.5, y, w,
                      2, [], 0.0)
    assert want == pytest.approx(4e-8)
    assert beta.min() >= 0 and beta.sum() <= want + 1e-15


def test_an_unread_tree_deeper_than_those_read_lowers_the_read_leaves_length_costs():
    """Length costs: the read leaves have one condition each (cost 1 over the largest read),
    the unread tree is 3 deep; if its leaf has 3 conditions the read leaves cost 1/3 over
    every leaf, and the optimum is 2/3 (not 2): the bound must stay below it."""
    from optrees.rug.rux_unread import every_leaf_duals

    X, y, w = np.arange(4.0)[:, None], np.array([1, 1, 0, 0]), np.ones(4)
    cover = np.array([[1, 0, 1], [1, 0, 1], [0, 1, 1], [0, 1, 1]], dtype=bool)
    beta = every_leaf_duals([_OneLeaf()], X, y, w, 2, np.full(4, 0.5), 1.0, "length",
                            sp.csc_matrix(cover[:, :2]), np.array([1, 0]), np.ones(2),
                            Deadline())
    want = lp_optimum(cover, np.array([1, 0, 0]), np.array([1.0, 1.0, 3.0]) / 3, y, w, 2,
                      [], 0.0)
    assert want == pytest.approx(2 / 3)
    assert beta.min() >= 0 and beta.sum() <= want + 1e-12


def test_a_cut_reading_whose_pricing_stops_says_what_its_bound_is_over(cancer, monkeypatch):
    """When the time limit stops the pricing of the unread trees, the bound is the LP's over
    the leaves read, and gap_scope_ says so (old: "over its candidate rules")."""
    X, y, groups, forests = cancer
    _read_one_tree(monkeypatch)
    monkeypatch.setattr(rux_mod, "every_leaf_duals", lambda *a, **k: None, raising=False)
    m = _fit(forests[2], X, y, groups, "odm")
    assert m.status_ != "optimal"
    assert "the leaves of the 1 of 12 trees read in time" in m.gap_scope_


def _tiny_odm_master() -> RUGMaster:
    """Rows 0, 1, 2 of class 1; rule A covers {0, 1}, rule B {1, 2}, both of class 1 and
    cost 0.001; ODM between groups {0, 2} and {1}, eps 0.025.  Optimum: A = B = 1, 0.002."""
    y = np.array([1, 1, 1])
    master = RUGMaster(y, 2, 1.0, Fairness("odm", np.array([0, 1, 0]), 0.025))
    master.add(np.array([0, 1]), 1, 0.001)
    master.add(np.array([1, 2]), 1, 0.001)
    return master


def _oracle(master: RUGMaster, fam: list[np.ndarray]) -> float:
    cover = np.zeros((master.n, len(master.cover)), dtype=bool)
    for j, rows in enumerate(master.cover):
        cover[rows, j] = True
    return lp_optimum(cover, np.asarray(master.labels), master.pen_par * np.asarray(
        master.costs), master.y, master.counts, master.K, [fam], master.epsilon)


def _stopped_with(duals: np.ndarray, n_values: int):
    def solve_by(model, deadline):
        return SolveResult("time_limit", None, None, 0.0, 0, np.zeros(n_values),
                           {"duals": np.asarray(duals, dtype=float)})
    return solve_by


def test_a_stopped_fair_solve_never_makes_beta_negative(monkeypatch):
    """A stopped solve's fairness duals with counts_i + (F mu)_i < 0: clipping beta_i to it
    made beta_i negative, which is no dual solution (the cover rows are >=), and the bound
    (0.95) exceeded the optimum (0.002).  Now mu is scaled down instead."""
    master = _tiny_odm_master()
    # cover rows' duals 1, 0, 1; row g - h's dual -2 (HiGHS: <= 0 on a <= row)
    monkeypatch.setattr(master_mod, "solve_by", _stopped_with([1, 0, 1, -2, 0], 5))
    res = master.solve()
    assert _oracle(master, [np.array([0, 2]), np.array([1])]) == pytest.approx(0.002)
    assert res.bound <= 0.002 + 1e-12
    beta = res.stats["duals"][:3]
    assert beta.min() >= 0


def test_any_stopped_fair_duals_give_a_valid_bound(monkeypatch):
    """Random duals of any sign and size on random small ODM / DMC LPs: the bound is never
    above linprog's optimum (weak duality once the duals are made a dual solution)."""
    rng = np.random.default_rng(7)
    for trial in range(40):
        n, m, K = 12, 6, 2
        y = rng.integers(0, K, n)
        y[:4] = [0, 0, 1, 1]  # every group has rows of every class (DMC)
        groups = np.arange(n) % 2
        kind = ("odm", "dmc")[trial % 2]
        master = RUGMaster(y, K, float(rng.uniform(0.01, 2)),
                           Fairness(kind, groups, float(rng.uniform(0, 0.1))))
        cover = rng.random((n, m)) < 0.4
        labels = rng.integers(0, K, m)
        for j in range(m):
            master.add(np.flatnonzero(cover[:, j]), int(labels[j]), float(rng.uniform(0.01, 1)))
        fams = [fam for _, fam in Fairness(kind, groups, 0.0).sets(y, K)]
        want = lp_optimum(cover, labels, master.pen_par * np.asarray(master.costs), y,
                          np.ones(n), K, fams, master.epsilon)
        R = len(master.fair_rows)
        duals = np.concatenate([rng.normal(0, 2, n), -rng.exponential(5, R)])
        monkeypatch.setattr(master_mod, "solve_by", _stopped_with(duals, n + m))
        res = master.solve()
        assert res.bound <= want + 1e-9, trial
