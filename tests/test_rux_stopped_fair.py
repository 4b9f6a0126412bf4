"""RUX with FairRUG's rows stopped before its LP is solved (issue #42): the rule set returned
is the ensemble's vote at the best scale whose slacks keep every fairness row, or the
majority class; it was always the majority class.

Oracles from the definitions, in plain numpy: a leaf's rows from the forest's ``apply``; the
margin of [RUG] (2) (K = 2: a rule of the wrong class counts -1) and the slacks
``v_i = max(0, 1 - margin_i)``; the rows (11)-(12) (DMC: per class), (15)-(16) (ODM: all rows)
and EOP (DMC on the positive class): within each family, the largest difference of two
groups' mean slack is at most epsilon; the realised gap the same on 0/1 errors of the
predictions; (3)'s optimum with those rows by scipy's ``linprog`` over every leaf.  The
LP solve is a stub that stops without a solution, so nothing depends on the machine's speed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from deadlines import Until
from oracles import forest_cover, forest_leaves, lp_optimum
from sklearn.ensemble import RandomForestClassifier

from optrees import RUXClassifier
from optrees.rug import rux
from optrees.rug.ensemble import ensemble_trees, leaf_rules
from optrees.rug.fairness import Fairness
from optrees.rug.rux_fair import FairRows
from optrees.rug.rux_start import vote_start
from optrees.solvers.base import SolveResult

KINDS = ("dmc", "odm", "equal_opportunity")


def _families(kind: str, y: np.ndarray, groups: np.ndarray) -> list[list[np.ndarray]]:
    """Per family of rows of [RUG] §3.5, the rows of each group (boolean masks)."""
    G = np.unique(groups)
    if kind == "odm":
        return [[groups == g for g in G]]
    classes = np.unique(y) if kind == "dmc" else [1]
    return [[(y == k) & (groups == g) for g in G] for k in classes]


def _gap(values: np.ndarray, fams: list[list[np.ndarray]]) -> float:
    """Largest mean_g - mean_h of ``values`` over two groups of one family."""
    gaps = [max(values[m].mean() for m in fam) - min(values[m].mean() for m in fam)
            for fam in fams]
    return float(max(gaps))


def _margin(model, leaves, y: np.ndarray) -> np.ndarray:
    return sum((r.weight * leaves[r.meta["tree"], r.meta["node"]]
                * np.where(y == r.label, 1.0, -1.0) for r in model.rules), np.zeros(len(y)))


def _fair_optimum(est, X: pd.DataFrame, y: np.ndarray, fams, eps: float) -> float:
    """(3) with the fairness rows over every leaf (Gini costs over the largest, pen_par 1)."""
    cover, labels, c = forest_cover(est, X, y)
    families = [[np.flatnonzero(g) for g in fam] for fam in fams]
    return lp_optimum(cover, labels, c, y, np.ones(len(y)), 2, families, eps)


def _data(seed: int) -> tuple[pd.DataFrame, np.ndarray, RandomForestClassifier]:
    """Two groups; group 1's rows lie nearer the class boundary, so the forest's trees
    disagree more on them (larger slacks) while both groups' labels have 10% noise."""
    rng = np.random.default_rng(seed)
    n = 240
    g = (rng.random(n) < 0.5).astype(int)
    x = rng.normal(size=(n, 3))
    x[:, 0] = np.where(g == 1, 0.3 * x[:, 0], x[:, 0])
    noise = rng.random(n) < 0.1
    y = ((x[:, 0] > 0) ^ noise).astype(int)
    X = pd.DataFrame(x, columns=["a", "b", "c"]).assign(grp=g)
    return X, y, RandomForestClassifier(6, max_depth=3, random_state=seed).fit(X, y)


def _stopped(monkeypatch) -> None:
    monkeypatch.setattr(rux.RUGMaster, "solve",
                        lambda self, deadline: SolveResult("time_limit", None, None, 0.0))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("eps", [0.0, 0.02, 0.1])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_stopped_fair_fit_keeps_its_rows_with_honest_numbers(kind, eps, seed,
                                                             monkeypatch) -> None:
    """(a) the slacks of the rule set returned keep every row and its realised gap is within
    the cap or not above the majority class's; (b) its (3) is not above the majority
    class's (every slack 1: n) and its training error neither; (c) objective_ is (3) at
    its weights, v_ its slacks; (d) bound_ is below (3)'s optimum with the rows."""
    X, y, est = _data(seed)
    _stopped(monkeypatch)
    m = RUXClassifier(est, fairness=kind, sensitive="grp", epsilon=eps,
                      time_limit=3600).fit(X, y)
    fams = _families(kind, y, X["grp"].to_numpy())
    leaves = forest_leaves(est, X)
    v = np.maximum(0.0, 1.0 - _margin(m.all_rules_, leaves, y))
    assert m.status_ == "time_limit" and m.stats_["start"] in ("vote", "majority")
    assert _gap(v, fams) <= eps + 1e-9  # (a) the rows, from the definition
    wrong = (m.predict(X) != y).astype(float)
    majority_wrong = (y != np.bincount(y).argmax()).astype(float)
    assert _gap(wrong, fams) <= max(eps, _gap(majority_wrong, fams)) + 1e-12
    assert m.fairness_["realised"] == pytest.approx(_gap(wrong, fams), abs=1e-12)
    objective = sum(r.cost * r.weight for r in m.all_rules_.rules) + float(v.sum())
    assert m.objective_ == pytest.approx(objective, rel=1e-9)  # (c)
    assert np.allclose(m.v_, v)
    assert m.objective_ <= len(y) + 1e-9 and wrong.sum() <= majority_wrong.sum()  # (b)
    assert m.bound_ <= _fair_optimum(est, X, y, fams, eps) + 1e-6  # (d)
    assert m.bound_ <= m.objective_


def test_stopped_odm_fit_beats_the_majority_class(monkeypatch) -> None:
    """A case where the vote's best scale breaks ODM's row and a smaller one keeps it: the
    fit returns that scale, strictly below the majority class in (3) and in training
    error, with the row tight (its gap at the cap: nothing better on the ray is fair)."""
    X, y, est = _data(2)
    _stopped(monkeypatch)
    eps = 0.02
    m = RUXClassifier(est, fairness="odm", sensitive="grp", epsilon=eps,
                      time_limit=3600).fit(X, y)
    free = RUXClassifier(est, time_limit=3600).fit(X, y)  # the vote's best scale, no rows
    fams = _families("odm", y, X["grp"].to_numpy())
    leaves = forest_leaves(est, X)
    v = np.maximum(0.0, 1.0 - _margin(m.all_rules_, leaves, y))
    v_free = np.maximum(0.0, 1.0 - _margin(free.all_rules_, leaves, y))
    assert _gap(v_free, fams) > eps  # the unconstrained scale breaks the row
    assert m.stats_["start"] == "vote"
    assert m.objective_ < len(y) - 1.0  # strictly better than the majority class
    assert np.mean(m.predict(X) == y) > np.mean(y == np.bincount(y).argmax())
    assert _gap(v, fams) == pytest.approx(eps, abs=1e-9)  # the cap binds


def _ray(A: np.ndarray, labels: np.ndarray, y: np.ndarray, c: np.ndarray, fams, eps: float,
         ts: np.ndarray) -> float:
    """The least (3) over the scales ``ts`` of the vote whose slacks keep the rows."""
    ahat = A * np.where(y[:, None] == labels[None, :], 1.0, -1.0)
    best = float(len(y))
    for t in ts:
        v = np.maximum(0.0, 1.0 - t * ahat.sum(axis=1))
        if _gap(v, fams) <= eps:
            best = min(best, t * c.sum() + v.sum())
    return best


@pytest.mark.parametrize("seed", range(12))
def test_scale_is_the_best_fair_one_on_the_ray(seed: int) -> None:
    """Random covers, groups and caps: the start's objective is not above the least (3)
    over a fine grid of scales whose slacks keep the rows (the fair scales are a union
    of intervals: no bisection finds them), and its slacks keep them."""
    rng = np.random.default_rng(seed)
    n, m = 60, 10
    A = (rng.random((n, m)) < 0.35).astype(float)
    y = (rng.random(n) < 0.4).astype(int)
    labels = (A.T @ y > A.T @ (1 - y)).astype(int)  # the class of most of a rule's rows
    groups = rng.integers(0, 3, n)
    c = rng.uniform(0.0, 0.3, m)
    kind = KINDS[seed % 3]
    eps = [0.0, 0.05, 0.15][seed % 3]
    fams = _families(kind, y, groups)
    fair = FairRows([[np.flatnonzero(g) for g in fam] for fam in fams], np.ones(n), eps)
    start = vote_start(sp.csr_matrix(A), labels, c, y, np.ones(n), 2, 1.0, 0, fair=fair)
    ahat = A * np.where(y[:, None] == labels[None, :], 1.0, -1.0)
    v = np.maximum(0.0, 1.0 - ahat @ start.weights)
    assert np.allclose(start.v, v) and _gap(v, fams) <= eps + 1e-9
    assert start.objective == pytest.approx(c @ start.weights + v.sum(), rel=1e-12)
    s = ahat.sum(axis=1)
    top = 1.0 / s[s > 0].min() if (s > 0).any() else 1.0
    votes = np.column_stack([A[:, labels == 0].sum(axis=1), A[:, labels == 1].sum(axis=1)])
    pred = np.where(votes[:, 1] > votes[:, 0], 1, 0)  # ties and no vote: class 0
    wrong, maj = (pred != y).astype(float), (y != 0).astype(float)
    if wrong.sum() <= maj.sum() and _gap(wrong, fams) <= max(eps, _gap(maj, fams)):
        # the grid's best and the start: (3) gains from the vote, or the start is 0
        grid = np.linspace(0.0, 1.05 * top, 4001)
        assert start.objective <= _ray(A, labels, y, c, fams, eps, grid) + 1e-9


def test_deadline_passed_before_the_lp_with_fairness() -> None:
    """The deadline passes before the LP is built (no stub of HiGHS): the fair start."""
    X, y, est = _data(2)
    deadline = Until()
    deadline.over = True
    leaves = leaf_rules(ensemble_trees(est), X.to_numpy(float), list(X.columns))
    fair = Fairness("odm", X["grp"].to_numpy(), 0.02)
    res = rux.solve_rux(leaves, y, np.array([0, 1]), list(X.columns), deadline, fairness=fair)
    assert res.status == "time_limit" and res.stats["lp_status"] == "not_started"
    assert res.stats["start"] == "vote" and res.objective < len(y)
    fams = _families("odm", y, X["grp"].to_numpy())
    v = np.maximum(0.0, 1.0 - _margin(res.model, forest_leaves(est, X), y))
    assert _gap(v, fams) <= 0.02 + 1e-9 and np.allclose(res.stats["v"], v)


def test_a_scale_breaking_the_rows_is_refused(monkeypatch) -> None:
    """The start checks what the search offers from the definition: a stub search offering
    the unconstrained best scale (whose slacks break ODM's row) and then a fair one gets
    the fair one; offering only the first gets the majority class."""
    from optrees.rug import rux_start

    X, y, est = _data(2)
    leaves = leaf_rules(ensemble_trees(est), X.to_numpy(float), list(X.columns))
    A, labels = leaves.cover(), np.argmax(np.asarray(leaves.cover().T @ np.eye(2)[y]), axis=1)
    fams = _families("odm", y, X["grp"].to_numpy())
    ahat = A.toarray() * np.where(y[:, None] == labels[None, :], 1.0, -1.0)
    s = ahat.sum(axis=1)
    bad = rux_start.best_scale(s, np.ones(len(y)), 1.0)
    assert _gap(np.maximum(0.0, 1.0 - bad * s), fams) > 0.02  # the stub's first offer
    good = 0.01 / s.max()
    assert _gap(np.maximum(0.0, 1.0 - good * s), fams) <= 0.02
    fair = FairRows([[np.flatnonzero(g) for g in fam] for fam in fams], np.ones(len(y)), 0.02)
    for offers, want in [([bad, good], good), ([bad], 0.0)]:
        monkeypatch.setattr(rux_start, "fair_scales", lambda *args, o=offers: np.array(o))
        start = vote_start(A, labels, np.ones(len(labels)) / len(labels), y, np.ones(len(y)),
                           2, 1.0, 0, fair=fair)
        assert start.weights.max() == pytest.approx(want, abs=0.0)
        assert _gap(np.maximum(0.0, 1.0 - ahat @ start.weights), fams) <= 0.02


@pytest.mark.parametrize("point", ["breaks the row", "keeps the row"])
def test_stopped_lp_point_is_taken_with_its_own_slacks(point: str, monkeypatch) -> None:
    """HiGHS stopped with a point (stub): every weight alike, every slack 0 -- under the
    cover rows, its objective no value of (3).  The fit returns a rule set whose slacks
    keep the rows and whose objective_ is (3) at its weights: the LP's weights with their
    own slacks when those keep the rows (the weights of the fair start: a tie, the LP's
    point taken), else the start (every weight 1: the ODM row broken)."""
    X, y, est = _data(2)
    eps = 0.02
    _stopped(monkeypatch)
    fit = dict(fairness="odm", sensitive="grp", epsilon=eps, time_limit=3600)
    start = RUXClassifier(est, **fit).fit(X, y)
    fair_scale = start.all_rules_.rules[0].weight
    assert start.stats_["start"] == "vote" and 0 < fair_scale < 1.0
    scale = 1.0 if point == "breaks the row" else fair_scale

    def stopped(self, deadline):
        values = np.concatenate([np.zeros(self.n), np.full(len(self.cols), scale)])
        cost = self.pen_par * float(np.sum(self.costs)) * scale
        return SolveResult("time_limit", cost, None, 0.0, 0, values, {})

    monkeypatch.setattr(rux.RUGMaster, "solve", stopped)
    m = RUXClassifier(est, **fit).fit(X, y)
    fams = _families("odm", y, X["grp"].to_numpy())
    leaves = forest_leaves(est, X)
    v = np.maximum(0.0, 1.0 - _margin(m.all_rules_, leaves, y))
    assert _gap(v, fams) <= eps + 1e-9 and np.allclose(m.v_, v)
    objective = sum(r.cost * r.weight for r in m.all_rules_.rules) + float(v.sum())
    assert m.objective_ == pytest.approx(objective, rel=1e-9)
    assert m.stats_["start"] == ("vote" if point == "breaks the row" else "lp")


def test_a_forest_past_its_deadline_grows_one_tree_not_a_chunk():
    """RUX's own forest grows one tree, then chunks while they fit: past the deadline it
    stops after the first tree (a first chunk of 30 trees took 0.7 s on 20,000 rows with
    ``time_limit=0.01``); with time it grows every tree, the one-shot fit's."""
    from sklearn.ensemble import RandomForestClassifier

    from optrees.rug.ensemble_fit import _grow_forest
    from optrees.solvers.deadline import Deadline

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    y = (X[:, 0] > 0).astype(int)
    stopped = _grow_forest(RandomForestClassifier(n_estimators=50, random_state=0), X, y,
                           None, Deadline(at=0.0))
    assert len(stopped.estimators_) == 1
    grown = _grow_forest(RandomForestClassifier(n_estimators=50, random_state=0), X, y,
                         None, Deadline())
    once = RandomForestClassifier(n_estimators=50, random_state=0).fit(X, y)
    assert len(grown.estimators_) == 50
    np.testing.assert_array_equal(grown.predict_proba(X), once.predict_proba(X))
