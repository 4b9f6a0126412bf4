"""The ``*CV`` selection when time runs short (issues #43/#44): a grid point whose folds stopped
at their share of ``time_limit`` is chosen over the points whose folds all finished only when
its mean test score beats theirs by more than its standard error, ``cv_results_`` says which
folds stopped, and ``depths="auto"`` grows only when the deeper depth is predicted to fit in
what is left.  Oracles: ``cross_val_score`` of the plain estimator and numpy arithmetic."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import KFold, cross_val_score

from optrees import OptimalTreeRegressor, OptimalTreeRegressorCV
from optrees.estimators import cv as cv_module
from optrees.estimators.cv_choice import MIN_GROWTH, deeper_fits, select_index
from optrees.estimators.cv_folds import MIN_LIMIT, FoldFit, on_schedule

FOLDS = KFold(4, shuffle=True, random_state=0)
LAMS = (0.0, 0.01)


class StoppedAtFour(OptimalTreeRegressor):
    """A regressor whose depth-4 fits report that their time limit stopped them (their
    trees are the optima, as a fit stopped after finding the optimum and before proving it)."""

    def fit(self, X, y, sample_weight=None):
        super().fit(X, y, sample_weight)
        if self.depth == 4:
            self.status_ = "time_limit"
        return self


class StoppedAtFourCV(OptimalTreeRegressorCV):
    _base = StoppedAtFour


def four_columns(gain: float, noise: float, seed: int):
    """y = f0 + f1 + f2 + gain * f3 + noise: depth 4 gains ``gain`` over depth 3."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, size=(160, 5)), columns=[f"f{j}" for j in range(5)])
    y = (X.f0 + X.f1 + X.f2 + gain * X.f3).to_numpy(float) + rng.normal(0, noise, 160)
    return X, y


@pytest.mark.parametrize("gain,noise,seed", [(0.5, 0.5, 0), (0.5, 0.3, 1)],
                         ids=["within-error", "beyond-error"])
def test_a_stopped_depth_is_chosen_only_beyond_one_standard_error(gain, noise, seed):
    """"auto" grows to 4 (3 scores best) and depth 4's folds all stop.  The definition: the
    fold scores are cross_val_score's of the plain estimator; depth 4 is chosen iff its best
    point beats the best of depths 1-3 by more than its standard error (fold scores' sample
    sd / sqrt(folds)).  The old selection chose depth 4 on its mean alone."""
    X, y = four_columns(gain, noise, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cv = StoppedAtFourCV(cv=FOLDS, lams=LAMS, time_limit=120).fit(X, y)
    assert cv.depths_ == (1, 2, 3, 4)
    grid = [(d, lam) for d in (1, 2, 3, 4) for lam in LAMS]
    S = np.array([cross_val_score(OptimalTreeRegressor(depth=d, lam=lam), X, y, cv=FOLDS)
                  for d, lam in grid])
    mean = S.mean(axis=1)
    deep = [i for i, (d, _) in enumerate(grid) if d == 4]
    best4 = deep[int(np.argmax(mean[deep]))]
    best_proved = int(np.argmax(mean[:-len(deep)]))
    se4 = S[best4].std(ddof=1) / np.sqrt(4)
    assert mean[best4] > mean[best_proved]  # depth 4 scores best: the old code chose it
    expected = grid[best4] if mean[best4] - mean[best_proved] > se4 else grid[best_proved]
    assert (cv.best_params_["depth"], cv.best_params_["lam"]) == expected
    assert cv.best_estimator_.depth == expected[0]
    # cv_results_ says which folds stopped: all of depth 4's, none of the others
    depth = np.asarray(cv.cv_results_["param_depth"])
    np.testing.assert_array_equal(cv.cv_results_["n_stopped_folds"], np.where(depth == 4, 4, 0))
    for i in range(4):
        np.testing.assert_array_equal(cv.cv_results_[f"split{i}_stopped"], depth == 4)


def test_the_within_error_case_is_the_one_where_depth_four_loses():
    """The first case above is the one the rule changes: there depth 4's margin over the
    proved depths is at most its standard error (by cross_val_score)."""
    X, y = four_columns(0.5, 0.5, 0)
    s3 = max(cross_val_score(OptimalTreeRegressor(depth=d, lam=lam), X, y, cv=FOLDS).mean()
             for d in (1, 2, 3) for lam in LAMS)
    fours = [cross_val_score(OptimalTreeRegressor(depth=4, lam=lam), X, y, cv=FOLDS)
             for lam in LAMS]
    best = max(fours, key=np.mean)
    assert 0 < best.mean() - s3 <= best.std(ddof=1) / 2


def _oracle_index(S, stopped, rule, leaves, depth, lam):
    """The rule's definition over the points it may choose from, in plain numpy."""
    k = S.shape[1]
    mean = S.mean(axis=1)
    se = [S[i].std(ddof=1) / np.sqrt(k) for i in range(len(S))]
    proved = [i for i in range(len(S)) if stopped[i] == 0]
    best = int(np.argmax(mean))
    pool = list(range(len(S)))
    if proved and not (stopped[best] and mean[best] - max(mean[proved]) > se[best]):
        pool = proved
    top = max(pool, key=lambda i: (mean[i], -i))
    if rule == "best":
        return top
    within = [i for i in pool if mean[i] >= mean[top] - se[top] - 1e-9]
    return min(within, key=lambda i: (leaves[i], depth[i], -lam[i]))


@pytest.mark.parametrize("counts", ["n_stopped_folds", "n_unproved_folds"])
def test_select_index_prefers_proved_points_on_random_grids(counts):
    """The points with stopped folds, or with folds finished by a method that proves nothing
    (n_unproved_folds, which counts the stopped ones too and wins over n_stopped_folds when
    both are given), are held to the same rule."""
    rng = np.random.default_rng(3)
    for _ in range(600):
        m, k = int(rng.integers(1, 10)), int(rng.integers(2, 6))
        S = rng.integers(0, 9, (m, k)) / 8 + rng.normal(0, 1e-6, (m, k))
        held = rng.integers(0, k + 1, m) * (rng.random(m) < 0.4)
        leaves = rng.integers(1, 9, m).astype(float)
        depth, lam = rng.integers(1, 9, m), rng.choice([0.0, 0.01, 0.05], m)
        results = {f"split{i}_test_score": S[:, i] for i in range(k)}
        results.update(mean_test_score=S.mean(axis=1), mean_n_leaves=leaves,
                       param_depth=depth, param_lam=lam, n_stopped_folds=held)
        if counts == "n_unproved_folds":
            results.update(n_stopped_folds=np.zeros(m, int), n_unproved_folds=held)
        for rule in ("best", "1se"):
            assert select_index(results, rule) == _oracle_index(S, held, rule, leaves,
                                                                depth, lam)


def _fits(depth, seconds):
    return [FoldFit(f, depth, 0.0, 0.5, 2, s, False) for f, s in enumerate(seconds)]


def test_deeper_fits_is_the_measured_time_times_the_measured_growth():
    """Depth 3's tasks take a median 2 s, depth 2's 0.25 s: growth 8, so depth 4's four
    tasks are predicted at 4 * 16 s (one after another) and its refit at 16 s * 1.25 rows."""
    done = _fits(2, [0.25, 0.2, 0.25, 9.0]) + _fits(3, [2.0, 1.0, 3.0, 2.0])
    need = 8 * 2.0 * 4 + 8 * 2.0 * 1.25
    assert deeper_fits(done, 3, need + 1e-6, 1.0, 1.25, 1.0)
    assert not deeper_fits(done, 3, need - 1e-6, 1.0, 1.25, 1.0)
    assert deeper_fits(done, 3, 8 * 2.0 * 4 / 2 + 8 * 2.0 * 1.25, 2.0, 1.25, 1.0)  # 2 jobs
    assert deeper_fits(done, 3, None, 1.0, 1.25, 1.0)
    flat = _fits(2, [1.0] * 4) + _fits(3, [1.0] * 4)  # no growth measured: MIN_GROWTH
    assert not deeper_fits(flat, 3, MIN_GROWTH * 5 - 1e-6, 1.0, 1.0, 1.0)
    assert deeper_fits(flat, 3, MIN_GROWTH * 5, 1.0, 1.0, 1.0)


class _Clock:
    now = 1000.0


class SlowRegressor(OptimalTreeRegressor):
    """A fit that takes 0.001 * 8^depth seconds of a fake clock (the real fit is instant)."""

    def fit(self, X, y, sample_weight=None):
        _Clock.now += 0.001 * 8.0 ** self.depth
        return super().fit(X, y, sample_weight)


class SlowCV(OptimalTreeRegressorCV):
    _base = SlowRegressor


@pytest.mark.parametrize("limit,grows", [(20.0, False), (60.0, True)])
def test_auto_grows_to_four_only_when_it_is_predicted_to_fit(monkeypatch, limit, grows):
    """Fits take 8x longer per depth (fake clock): depth 3's four folds 2.05 s, depth 4's
    predicted 4 * 4.1 s and its refit 4.1 s * 160/120, 21.8 s in all.  With 20 s, 2.3 s spent
    (under GROW_SHARE) leave 17.7 s: the old code grew and ran out; now it does not grow.
    With 60 s it grows (the data need depth 4)."""
    monkeypatch.setattr(time, "perf_counter", lambda: _Clock.now)
    X, y = four_columns(1.0, 0.05, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cv = SlowCV(cv=FOLDS, lams=(0.0,), time_limit=limit).fit(X, y)
    spent = 4 * 0.001 * (8 + 64 + 512)  # the folds of depths 1-3
    need = 4 * 8 * 0.512 + 8 * 0.512 * 160 / 120
    assert (need <= limit - spent) == grows  # the oracle's arithmetic
    assert cv.depths_ == ((1, 2, 3, 4) if grows else (1, 2, 3))
    assert cv.best_params_["depth"] == (4 if grows else 3)
    assert cv_module.GROW_SHARE * limit > spent


@pytest.mark.parametrize("left,expected", [(10.0, 2.5), (1.0, 0.25), (-5.0, MIN_LIMIT)])
def test_a_fold_task_gets_its_part_of_what_is_left(monkeypatch, left, expected):
    """A task of 2 units with 8 units (its own, the later tasks' and the refit's) to go gets
    2/8 of the seconds left, more than its fixed share (1 s) when the tasks before it ended
    early and less when they overran; at least MIN_LIMIT once the time is spent."""
    monkeypatch.setattr(time, "time", lambda: 500.0)
    est = OptimalTreeRegressor(depth=2, time_limit=1.0)
    got = on_schedule(est, (500.0 + left, 2.0, 8.0))
    assert got.time_limit == pytest.approx(expected)
    assert est.time_limit == 1.0  # a copy: the caller's estimator keeps its share
    assert on_schedule(est, None) is est
