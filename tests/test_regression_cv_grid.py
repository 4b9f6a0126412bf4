"""OptimalTreeRegressorCV's list of λ (issues #43/#44): one task per (fold, depth) fits every λ,
the fold encoded once and the exact searches sharing their depth-2 fronts and warm starts
(``cv_grid.grid_fold``).  Oracles: a brute-force enumeration of every tree of depth <= 3 over
every threshold in plain numpy (SSE from its definition), and scikit-learn's
``cross_val_score`` of separate OptimalTreeRegressor fits."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
import pytest
from deadlines import StopAfter
from sklearn.metrics import get_scorer
from sklearn.model_selection import KFold, cross_val_score

from optrees import OptimalTreeRegressor, OptimalTreeRegressorCV
from optrees.estimators import cv as cv_module
from optrees.estimators import cv_grid, threshold_trees
from optrees.estimators.cv_folds import fit_fold
from optrees.estimators.cv_grid import grid_fold, grid_trees_of
from optrees.solvers.deadline import Deadline

LAMS = (0.0, 0.001, 0.01, 0.05)
FOLDS = KFold(3, shuffle=True, random_state=1)


def small_set(kind: str, n: int = 30, seed: int = 0):
    """Three columns and a noisy target with structure: ``"continuous"`` (distinct values),
    ``"repeated"`` (few values per column, repeated rows); weights in [0.5, 2] with two rows
    of weight 0 (the fit drops them), or None."""
    rng = np.random.default_rng(seed)
    if kind == "repeated":
        X = rng.integers(0, 4, size=(n, 3)).astype(float)
    else:
        X = rng.normal(size=(n, 3))
    y = 2.0 * (X[:, 0] > np.median(X[:, 0])) + X[:, 1] * (X[:, 2] > 0) + rng.normal(0, 0.5, n)
    w = rng.uniform(0.5, 2.0, n)
    w[[3, 11]] = 0.0
    return pd.DataFrame(X, columns=["a", "b", "c"]), y, w


# ------------------------------------------------------------------ the oracle
def oracle_objective(X: np.ndarray, y: np.ndarray, w: np.ndarray, depth: int, lam: float,
                     min_leaf: int) -> float:
    """The least ``SSE / (W var(y)) + lam * leaves`` over every tree of depth <= ``depth``
    splitting between consecutive distinct values of a column, every leaf holding at least
    ``min_leaf`` rows (of weight > 0: rows of weight 0 are dropped first), leaves predicting
    the weighted mean.  By enumeration: a subset's best tree is a leaf or, for each column
    and each cut between two of its distinct values in the subset, the best trees of the
    two sides, one depth less (the best over every tree, taken side by side)."""
    keep = w > 0
    X, y, w = X[keep], y[keep], w[keep]
    total = np.sum(w * (y - np.average(y, weights=w)) ** 2)  # W var(y): one leaf's SSE
    memo: dict[tuple[bytes, int], float] = {}

    def leaf(rows: np.ndarray) -> float:
        mean = np.average(y[rows], weights=w[rows])
        return float(np.sum(w[rows] * (y[rows] - mean) ** 2)) / total + lam

    def best(rows: np.ndarray, d: int) -> float:
        if len(rows) < min_leaf:
            return np.inf  # no leaf of the subset can hold min_leaf rows
        key = (rows.tobytes(), d)
        if key in memo:
            return memo[key]
        out = leaf(rows)
        if d > 0:
            for f in range(X.shape[1]):
                values = np.unique(X[rows, f])
                for cut in (values[:-1] + values[1:]) / 2:
                    go = X[rows, f] <= cut
                    out = min(out, best(rows[go], d - 1) + best(rows[~go], d - 1))
        memo[key] = out
        return out

    return best(np.arange(len(y)), depth)


def objective_of(tree, encoding, frame: pd.DataFrame, y: np.ndarray, w: np.ndarray,
                 lam: float) -> float:
    """``SSE / (W var(y)) + lam * leaves`` of a fitted tree from its predictions on the
    training rows (weight 0 rows count nothing)."""
    pred = tree.predict(encoding.transform(frame))
    total = np.sum(w * (y - np.average(y, weights=w)) ** 2)
    return float(np.sum(w * (y - pred) ** 2) / total + lam * tree.n_leaves)


def _fold(frame, y, w, train):
    return frame.iloc[train], y[train], None if w is None else w[train]


# ------------------------------------------------------------------ the tests
@pytest.mark.parametrize("kind,depth,min_leaf,weighted", [
    ("continuous", 2, 1, False), ("continuous", 3, 1, True), ("repeated", 3, 1, True),
    ("continuous", 3, 3, True), ("repeated", 3, 2, False)])
def test_each_lam_of_a_shared_task_is_the_enumerated_optimum(kind, depth, min_leaf, weighted):
    """For every fold and λ, the shared task's tree has the least objective of any tree of
    the depth (the enumeration), as the separate fit's tree has."""
    frame, y, w = small_set(kind)
    w = w if weighted else None
    for train, _ in FOLDS.split(frame):
        Xf, yf, wf = _fold(frame, y, w, train)
        ones = np.ones(len(yf)) if wf is None else wf
        est = OptimalTreeRegressor(depth=depth, min_samples_leaf=min_leaf, time_limit=None)
        trees, encoding, _ = grid_trees_of(est, LAMS, Xf, yf, wf)
        assert [g.lam for g in trees] == list(LAMS)
        for g in trees:
            want = oracle_objective(Xf.to_numpy(), yf, ones, depth, g.lam, min_leaf)
            assert g.optimal
            assert objective_of(g.tree, encoding, Xf, yf, ones, g.lam) == \
                pytest.approx(want, abs=1e-9)
            fit = OptimalTreeRegressor(depth=depth, lam=g.lam, min_samples_leaf=min_leaf,
                                       time_limit=None).fit(Xf, yf, sample_weight=wf)
            assert fit.objective_ == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("kind,min_leaf", [("continuous", 1), ("repeated", 2)])
def test_the_shared_scores_are_cross_val_score_up_to_ties(kind, min_leaf):
    """cv_results_' fold scores equal cross_val_score's of separate fits; where one differs,
    both trees are optima of the fold (the enumeration): a tie, which the docstring allows.
    On the continuous set there is none."""
    frame, y, w = small_set(kind, n=36, seed=2)
    cv = OptimalTreeRegressorCV(depths=(2, 3), cv=FOLDS, min_samples_leaf=min_leaf,
                                time_limit=None).fit(frame, y, w)
    res = cv.cv_results_
    got = np.column_stack([res[f"split{k}_test_score"] for k in range(3)])
    want = np.array([cross_val_score(OptimalTreeRegressor(**q, min_samples_leaf=min_leaf,
                                                          time_limit=None),
                                     frame, y, cv=FOLDS, params={"sample_weight": w})
                     for q in res["params"]])
    ties = 0
    for i, q in enumerate(res["params"]):
        for k, (train, _) in enumerate(FOLDS.split(frame)):
            if abs(got[i, k] - want[i, k]) > 1e-12:
                ties += 1
                Xf, yf, wf = _fold(frame, y, w, train)
                best = oracle_objective(Xf.to_numpy(), yf, wf, q["depth"], q["lam"], min_leaf)
                trees, encoding, _ = grid_trees_of(
                    OptimalTreeRegressor(depth=q["depth"], min_samples_leaf=min_leaf,
                                         time_limit=None), (q["lam"],), Xf, yf, wf)
                fit = OptimalTreeRegressor(**q, min_samples_leaf=min_leaf, time_limit=None)
                fit.fit(Xf, yf, sample_weight=wf)
                assert objective_of(trees[0].tree, encoding, Xf, yf, wf, q["lam"]) == \
                    pytest.approx(best, abs=1e-9)
                assert fit.objective_ == pytest.approx(best, abs=1e-9)
    assert ties == 0 or kind == "repeated"
    assert not res["n_stopped_folds"].any()


def test_one_task_per_fold_and_depth_with_the_sum_of_its_shares(monkeypatch):
    """The default list runs one grid task per (fold, depth), none of fit_fold, each with the
    time limit of its λ's fits together: time_limit * len(lams) 2^depth / (the tasks' units
    and the refit's)."""
    seen, fits = [], []
    real = cv_module.grid_fold

    def spy(est, lams, *args, **late):
        seen.append((est.depth, lams, est.time_limit))
        return real(est, lams, *args, **late)

    monkeypatch.setattr(cv_module, "grid_fold", spy)
    monkeypatch.setattr(cv_module, "fit_fold", lambda *a, **late: fits.append(a))
    frame, y, w = small_set("continuous", n=40)
    cv = OptimalTreeRegressorCV(depths=(1, 3), cv=FOLDS, time_limit=50.0).fit(frame, y, w)
    total = 3 * 4 * (2 + 8) + 8  # three folds, four λ at depths 1 and 3, the refit
    assert not fits
    assert sorted(seen) == sorted([(1, LAMS, pytest.approx(50.0 * 4 * 2 / total)),
                                   (3, LAMS, pytest.approx(50.0 * 4 * 8 / total))] * 3)
    assert len(cv.cv_results_["params"]) == 8


class OwnFit(OptimalTreeRegressor):
    """A regressor whose fit is its own: the CV must call it."""

    def fit(self, X, y, sample_weight=None):
        return super().fit(X, y, sample_weight)


class OwnFitCV(OptimalTreeRegressorCV):
    _base = OwnFit


@pytest.mark.parametrize("cls,kw", [(OwnFitCV, {}), (OptimalTreeRegressorCV, {"max_leaves": 3}),
                                    (OptimalTreeRegressorCV, {"leaf_model": "linear"})],
                         ids=["own-fit", "max-leaves", "linear-leaves"])
def test_fits_the_grid_does_not_cover_stay_separate_fits(monkeypatch, cls, kw):
    grids = []
    monkeypatch.setattr(cv_module, "grid_fold", lambda *a: grids.append(a))
    frame, y, _ = small_set("continuous", n=30)
    cv = cls(depths=(2,), lams=(0.0, 0.01), cv=FOLDS, time_limit=None, **kw).fit(frame, y)
    assert not grids and len(cv.cv_results_["params"]) == 2


def test_a_stopped_search_reports_stopped_as_a_stopped_fit(monkeypatch):
    """A deadline that passes at once (StopAfter(0)) stops every λ's search, as it stops
    each separate fit; none does not."""
    frame, y, w = small_set("continuous", n=40)
    train, test = np.arange(28), np.arange(28, 40)
    est = OptimalTreeRegressor(depth=3, time_limit=None)
    scorer = get_scorer("r2")
    assert not any(r.stopped for r in grid_fold(est, LAMS, frame, y, w, train, test, scorer, 0))
    monkeypatch.setattr(cv_grid, "fit_deadline", lambda limit: StopAfter(0))
    monkeypatch.setattr(threshold_trees, "fit_deadline", lambda limit: StopAfter(0))
    shared = grid_fold(est, LAMS, frame, y, w, train, test, scorer, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alone = [fit_fold(est.set_params(lam=lam), frame, y, w, train, test, scorer, 0)
                 for lam in LAMS]
    assert [r.stopped for r in shared] == [r.stopped for r in alone] == [True] * 4
    assert [r.lam for r in shared] == list(LAMS)
    assert all(np.isfinite(r.score) for r in shared)


def test_the_shared_fronts_belong_to_one_task():
    """The depth-2 fronts are kept by row subset (row indices), valid only for the rows and
    target of one fold: two tasks on the same rows with different targets (the same subsets,
    other costs) each find their own optima (the enumeration)."""
    frame, y, _ = small_set("continuous", n=24, seed=4)
    est = OptimalTreeRegressor(depth=3, time_limit=None)
    for target in (y, -y ** 2, np.sin(3 * y)):
        trees, encoding, _ = grid_trees_of(est, LAMS, frame, target, None)
        for g in trees:
            want = oracle_objective(frame.to_numpy(), target, np.ones(len(y)), 3, g.lam, 1)
            assert objective_of(g.tree, encoding, frame, target, np.ones(len(y)), g.lam) == \
                pytest.approx(want, abs=1e-9)


class FirstShareSpent(Deadline):
    """A deadline of an hour whose first share has passed already: the first search of a
    grid stops at once, the others have time."""

    __slots__ = ("shared",)

    def __init__(self) -> None:
        super().__init__(3600.0)
        self.shared = 0

    def share(self, fraction: float) -> Deadline:
        self.shared += 1
        return self.within(0.0) if self.shared == 1 else super().share(fraction)


def test_a_search_stopped_at_its_share_is_run_again_in_what_is_left(monkeypatch):
    """The first search (largest λ) stops at its share; the others finish early, and it is
    run once more in what they left: every λ proved, each the enumerated optimum."""
    monkeypatch.setattr(cv_grid, "fit_deadline", lambda limit: FirstShareSpent())
    frame, y, _ = small_set("continuous", n=24, seed=5)
    trees, encoding, _ = grid_trees_of(OptimalTreeRegressor(depth=3, time_limit=60), LAMS,
                                       frame, y, None)
    ones = np.ones(len(y))
    for g in trees:
        assert g.optimal, g.lam
        want = oracle_objective(frame.to_numpy(), y, ones, 3, g.lam, 1)
        assert objective_of(g.tree, encoding, frame, y, ones, g.lam) == \
            pytest.approx(want, abs=1e-9)


def test_a_grid_task_splits_its_time_evenly_among_its_lams():
    """Each λ's record holds an equal part of the task's time (its searches share the work),
    so that the records of a task sum to its time, as a fit per λ's did."""
    frame, y, w = small_set("continuous", n=40)
    train, test = np.arange(28), np.arange(28, 40)
    started = time.perf_counter()
    out = grid_fold(OptimalTreeRegressor(depth=3, time_limit=None), LAMS, frame, y, w, train,
                    test, get_scorer("r2"), 0)
    wall = time.perf_counter() - started
    assert len({r.seconds for r in out}) == 1
    assert 0.8 * wall <= sum(r.seconds for r in out) <= wall


@pytest.mark.parametrize("cls,units", [(OptimalTreeRegressorCV, 4.0), (OwnFitCV, 1.0)])
def test_auto_prices_the_refit_as_a_whole_grid_task(monkeypatch, cls, units):
    """``depths="auto"`` predicts the deeper depth's refit from the fold records: one fit
    costs about a grid task (its search meets every depth-2 front the task's later searches
    reuse), i.e. len(lams) of the task's evenly split records; one record of a fit."""
    seen = []

    def spy(done, deepest, left, speedup, row_ratio, refit_units):
        seen.append(refit_units)
        return False

    monkeypatch.setattr(cv_module, "deeper_fits", spy)
    frame, y, _ = small_set("continuous", n=30)
    cls(cv=FOLDS, time_limit=100.0).fit(frame, y)
    assert seen == [units]
