"""RUX stopped before its LP is solved returns the best rule set it has, never the majority
class alone when a better one is at hand, with status "time_limit" and an honest gap.

Oracles from the definitions: a leaf's rows from the ensemble's own ``apply``; (3)'s value of
a weighted rule set is lam * sum_j c_j w_j + sum_i max(0, 1 - margin_i) with the margin of
[RUG] (2); its optimum from a dense LP solved by scipy's linprog.  Deadlines are stubs that
pass at a chosen step, so no test depends on the machine's speed.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from deadlines import Until
from oracles import forest_leaves, forest_lp
from scipy.optimize import linprog
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier

from optrees import RUXClassifier
from optrees.estimators._base import TimeLimitWarning
from optrees.rug import rux
from optrees.rug.ensemble import ensemble_trees, leaf_rules
from optrees.rug.rux_start import best_scale, dual_bound, vote_start
from optrees.solvers import highs
from optrees.solvers.base import SolveResult
from optrees.solvers.deadline import Deadline


@pytest.fixture(scope="module")
def cancer() -> tuple[pd.DataFrame, np.ndarray, RandomForestClassifier]:
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    rows = np.random.default_rng(0).choice(len(X), 200, replace=False)
    X, y = X.iloc[rows, :6].reset_index(drop=True), y.to_numpy()[rows]
    return X, y, RandomForestClassifier(8, max_depth=3, random_state=0).fit(X, y)


def _objective(model, est, X: pd.DataFrame, y: np.ndarray, pen_par: float = 1.0) -> float:
    """(3) at the rule set's weights (K = 2: a wrong vote counts -1)."""
    leaves = forest_leaves(est, X)
    margin = np.zeros(len(y))
    cost = 0.0
    for r in model.rules:
        sign = np.where(y == r.label, 1.0, -1.0)
        margin += r.weight * leaves[r.meta["tree"], r.meta["node"]] * sign
        cost += pen_par * r.cost * r.weight
    return cost + float(np.maximum(0.0, 1.0 - margin).sum())


def test_lp_not_solved_returns_the_scaled_vote_with_an_honest_gap(cancer, monkeypatch) -> None:
    """HiGHS stopped without a solution (stub): the rule set is the leaves' vote, at least
    as accurate on the training rows as the majority class, its objective (3)'s at its
    weights, its bound below (3)'s optimum."""
    X, y, est = cancer
    monkeypatch.setattr(rux.RUGMaster, "solve",
                        lambda self, deadline: SolveResult("time_limit", None, None, 0.0))
    with pytest.warns(TimeLimitWarning, match="every leaf weighted alike"):
        m = RUXClassifier(est, time_limit=3600).fit(X, y)
    assert m.status_ == "time_limit" and m.stats_["start"] == "vote" and len(m.rules_) > 0
    majority = max(np.mean(y == 0), np.mean(y == 1))
    assert np.mean(m.predict(X) == y) >= majority
    assert m.objective_ == pytest.approx(_objective(m.all_rules_, est, X, y), rel=1e-9)
    assert m.objective_ < len(y)  # the majority class's value of (3): every slack 1
    assert 0 <= m.bound_ <= forest_lp(est, X, y, None, None, 0.0) + 1e-6 <= m.objective_ + 2e-6
    assert m.gap_ == pytest.approx((m.objective_ - m.bound_) / m.objective_)
    assert np.allclose(m.v_, np.maximum(0.0, 1.0 - _margins(m.all_rules_, est, X, y)))


def _margins(model, est, X, y) -> np.ndarray:
    leaves = forest_leaves(est, X)
    return sum(r.weight * leaves[r.meta["tree"], r.meta["node"]] * np.where(y == r.label, 1, -1)
               for r in model.rules)


def test_deadline_passing_while_the_lp_is_built_starts_no_solve(cancer, monkeypatch) -> None:
    X, y, est = cancer
    deadline = Until()
    cells = rux._cells

    def slow_cells(*args):  # the deadline passes while the cells are found
        deadline.over = True
        return cells(*args)

    def no_solve(self, deadline):
        raise AssertionError("an LP solve started after the deadline")

    monkeypatch.setattr(rux, "_cells", slow_cells)
    monkeypatch.setattr(rux.RUGMaster, "solve", no_solve)
    leaves = leaf_rules(ensemble_trees(est), X.to_numpy(float), list(X.columns))
    res = rux.solve_rux(leaves, y, np.array([0, 1]), list(X.columns), deadline)
    assert res.status == "time_limit" and res.stats["lp_status"] == "not_started"
    assert res.stats["start"] == "vote" and res.objective < len(y)
    assert res.objective == pytest.approx(_objective(res.model, est, X, y), rel=1e-9)


def test_limited_lp_runs_without_presolve(cancer, monkeypatch) -> None:
    """HiGHS's presolve does not stop at the time limit: a limited RUX LP goes without it."""
    X, y, est = cancer
    seen = []
    solve = highs.HighsModel.solve

    def spy(self, *args, **kwargs):
        seen.append(self.option("presolve"))
        return solve(self, *args, **kwargs)

    monkeypatch.setattr(highs.HighsModel, "solve", spy)
    leaves = leaf_rules(ensemble_trees(est), X.to_numpy(float), list(X.columns))
    rux.solve_rux(leaves, y, np.array([0, 1]), list(X.columns), Deadline(3600))
    rux.solve_rux(leaves, y, np.array([0, 1]), list(X.columns), Deadline())
    assert seen[0] == "off" and seen[1] != "off"


def test_best_scale_is_the_minimum_along_the_ray() -> None:
    rng = np.random.default_rng(1)
    for _ in range(50):
        n = int(rng.integers(1, 30))
        s = rng.normal(size=n) * rng.integers(0, 2, size=n)
        w = rng.uniform(0.1, 3.0, size=n)
        cost = float(rng.uniform(0, 5))

        def f(a: float, s=s, w=w, cost=cost) -> float:
            return a * cost + float(w @ np.maximum(0.0, 1.0 - a * s))

        # the minimum of a convex piecewise-linear function is at 0 or at a kink
        candidates = [0.0] + [1.0 / v for v in s if v > 0]
        best = min(f(a) for a in candidates)
        assert f(best_scale(s, w, cost)) <= best + 1e-9


def test_vote_that_errs_more_than_the_majority_is_not_returned() -> None:
    """Three classes: one rule of class 1 over 2 rows of class 1 and 3 of class 0 lowers (3)
    (gain 2, loss 3 / 2) but predicts 7 rows wrong where the majority class 0 errs on 6."""
    y = np.array([0, 0, 0, 0, 1, 1, 1, 2, 2, 2])
    cover = np.zeros((10, 1))
    cover[[0, 1, 2, 4, 5], 0] = 1
    start = vote_start(sp.csr_matrix(cover), np.array([1]), np.array([1.0]), y, np.ones(10),
                       3, 0.1, 0)
    assert start.how == "majority" and not start.weights.any()
    assert start.objective == 10.0 and 0 <= start.bound <= 10.0
    s = np.array([-0.5, -0.5, -0.5, 0, 1, 1, 0, 0, 0, 0])
    assert best_scale(s, np.ones(10), 0.1) > 0  # (3) alone would take the vote


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_distinct_leaves_and_cells_as_before(seed: int) -> None:
    """One leaf per (rows, class), the cheapest and first on ties; cells numbered as
    ``np.unique(axis=0)`` numbers the rows' (leaves, label) patterns."""
    rng = np.random.default_rng(seed)
    M = rng.random((300, 40)) < 0.3
    M[:, 20:30] = M[:, :10]  # repeated coverage
    labels = rng.integers(0, 2, size=40)
    labels[20:30] = labels[:10]
    costs = rng.integers(0, 3, size=40).astype(float)
    best: dict = {}
    for j in range(40):
        key = (M[:, j].tobytes(), int(labels[j]))
        if key not in best or costs[j] < costs[best[key]]:
            best[key] = j
    assert np.array_equal(rux._distinct(sp.csc_matrix(M), labels, costs),
                          sorted(best.values()))
    y = rng.integers(0, 3, size=300)
    M2 = M[:, :6]
    pattern = np.column_stack([np.packbits(M2, axis=1), y.astype(np.uint8)])
    _, first, cell = np.unique(pattern, axis=0, return_index=True, return_inverse=True)
    got_cell, got_first = rux._cells(np.packbits(M2, axis=1), y, None)
    assert np.array_equal(got_cell, cell.ravel()) and np.array_equal(got_first, first)


def test_sparse_cover_is_the_masks(cancer) -> None:
    X, y, est = cancer
    leaves = leaf_rules(ensemble_trees(est), X.to_numpy(float), list(X.columns))
    masks = np.column_stack([leaf for leaf in forest_leaves(est, X).values()])
    assert np.array_equal(leaves.masks, masks)
    assert np.array_equal(leaves.cover().toarray(), masks)
    assert np.array_equal(leaves.packed(), np.packbits(masks, axis=1))
    rows = np.array([5, 0, 7, 7, 3])
    assert np.array_equal(leaves.cover(rows).toarray(), masks[rows])


def test_a_fit_keeps_no_dense_rows_by_leaves_matrix(cancer, monkeypatch) -> None:
    """The LP is built from the sparse cover and the packed leaves: a dense n x leaves
    matrix (196 MB on skin's 245,057 rows) is never made, and the fit is the same."""
    from optrees.rug import ensemble

    X, y, est = cancer
    before = RUXClassifier(est, random_state=0).fit(X, y)

    def refuse(self):
        raise AssertionError("a dense n x leaves matrix was made")

    monkeypatch.setattr(ensemble.LeafRules, "masks", property(refuse))
    after = RUXClassifier(est, random_state=0).fit(X, y)
    assert after.objective_ == before.objective_ and after.bound_ == before.bound_
    assert [(r.literals, r.weight) for r in after.rules_.rules] == \
        [(r.literals, r.weight) for r in before.rules_.rules]


@pytest.mark.parametrize("passes", [0, 1, 10])
@pytest.mark.parametrize("K", [2, 3])
def test_dual_bound_is_below_the_lp_optimum(K: int, passes: int, monkeypatch) -> None:
    """Weak duality: from any duals in [0, w] the bound stays below (3)'s optimum, solved
    densely (ahat: 1 for a rule of the row's class, -1/(K-1) otherwise), after any number
    of shrinking passes."""
    from optrees.rug import certificate

    monkeypatch.setattr(certificate, "REPAIR_PASSES", passes)
    rng = np.random.default_rng(K)
    for _ in range(20):
        n, m = 40, 12
        cover = rng.random((n, m)) < 0.3
        labels = rng.integers(0, K, m)
        y = rng.integers(0, K, n)
        w = rng.integers(1, 3, n).astype(float)
        c = rng.uniform(1e-8, 1.0, m) * rng.uniform(0.1, 2.0)
        ahat = cover * np.where(y[:, None] == labels[None, :], 1.0, -1.0 / (K - 1))
        res = linprog(np.concatenate([c, w]), A_ub=-np.hstack([ahat, np.eye(n)]),
                      b_ub=-np.ones(n), bounds=(0, None), method="highs")
        beta = w * rng.choice([rng.random(n), np.ones(n)])
        bound = dual_bound(sp.csr_matrix(cover), labels, c, y, beta, K)
        assert 0 <= bound <= res.fun + 1e-7


def test_distinct_leaves_when_weighings_collide(monkeypatch) -> None:
    """Every coverage weighed alike (a stub weighing of zeros): rows are compared exactly."""
    rng = np.random.default_rng(5)
    M = rng.random((100, 30)) < 0.3
    M[:, 15:] = M[:, :15]
    M[:, 3] = M[:, 4] ^ M[:, 5]  # different rows, often the same count
    labels = np.zeros(30, dtype=np.int64)
    costs = rng.integers(0, 3, size=30).astype(float)
    best: dict = {}
    for j in range(30):
        key = (M[:, j].tobytes(), int(labels[j]))
        if key not in best or costs[j] < costs[best[key]]:
            best[key] = j

    class Zeros:
        def random(self, n):
            return np.zeros(n)

    monkeypatch.setattr(rux.np.random, "default_rng", lambda seed: Zeros())
    assert np.array_equal(rux._distinct(sp.csc_matrix(M), labels, costs),
                          sorted(best.values()))
