"""A selection whose time is spent does not start its remaining fold tasks: each fit costs
its set-up and scoring whatever its time limit, and tasks started late ran one after another
past ``time_limit`` (hepatitis, 60 fold fits: 6-7 s for 3.5 s).  The shallowest depth of the
first stage always runs, so one point is scored on every fold; the grid points of the tasks
not started have no score (nan) and are never chosen."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import StratifiedKFold

from optrees import BendOCTClassifierCV, OptimalTreeRegressorCV, TimeLimitWarning
from optrees.estimators.cv_folds import FoldFit, FoldPath, late_records, unless_late


def _data(n: int = 120, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 7, n).astype(float),
                      "c": rng.choice(list("pqrst"), n)})
    y = ((X["a"] > 0.2) ^ (X["b"] > 3) | (X["c"] == "q")).to_numpy().astype(int)
    return X, y


@pytest.mark.parametrize("lams", [(0.0, 0.01), "path"])
def test_tasks_started_when_the_time_is_spent_are_not_run(lams):
    """A limit of 1 ms is spent once the first fold task ends (each takes longer): the
    first job of the shallowest depth (here a fit at λ 0 per fold: numeric columns, no
    path) runs on every fold, as a selection needs one point; every other point is
    unscored, the choice is that point and the warning says how many did not start."""
    X, y = _data()
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    with pytest.warns(TimeLimitWarning, match=r"\d+ were not started"):
        m = BendOCTClassifierCV(depths=(2, 3), lams=lams, cv=cv, time_limit=0.001).fit(X, y)
    r = m.cv_results_
    depth = np.asarray(r["param_depth"])
    kept = (depth == 2) & (np.asarray(r["param_lam"], dtype=float) == 0.0)
    mean = np.asarray(r["mean_test_score"], dtype=float)
    assert kept.sum() == 1 and np.isfinite(mean[kept]).all() and np.isnan(mean[~kept]).all()
    for i in range(3):  # the scored point's fold scores are test accuracies
        s = np.asarray(r[f"split{i}_test_score"], dtype=float)[kept]
        assert ((0 <= s) & (s <= 1)).all()
    assert m.best_params_ == {"depth": 2, "lam": 0.0}
    assert r["rank_test_score"][~kept].min() > r["rank_test_score"][kept].max()
    # a task that never ran is counted as not started, not as stopped
    assert (r["n_unstarted_folds"][~kept] == 3).all()
    assert (r["n_unstarted_folds"][kept] == 0).all()
    assert not r["n_stopped_folds"][~kept].any()
    assert not any(r[f"split{i}_stopped"][~kept].any() for i in range(3))
    assert (r["n_unproved_folds"][~kept] == 3).all()
    assert m.predict(X).shape == (len(X),)


def test_a_regression_selection_skips_its_late_tasks_too():
    X, y = _data()
    target = X["a"].to_numpy() * 3 + np.where(X["c"] == "q", 2.0, 0.0)
    Xn = X[["a", "b"]]
    with pytest.warns(TimeLimitWarning, match="were not started"):
        m = OptimalTreeRegressorCV(depths=(1, 2), lams=(0.0, 0.01), cv=3,
                                   time_limit=0.001).fit(Xn, target)
    depth = np.asarray(m.cv_results_["param_depth"])
    mean = np.asarray(m.cv_results_["mean_test_score"], dtype=float)
    assert np.isnan(mean[depth == 2]).all() and np.isfinite(mean[depth == 1]).all()
    assert m.best_params_["depth"] == 1


def test_a_selection_in_time_starts_every_task():
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", TimeLimitWarning)
        m = BendOCTClassifierCV(depths=(1, 2), lams=(0.0, 0.01), cv=3, time_limit=60).fit(X, y)
    assert np.isfinite(np.asarray(m.cv_results_["mean_test_score"], dtype=float)).all()


def test_late_records_score_nothing():
    path = late_records(2, 3, None)
    assert isinstance(path, FoldPath) and not path.ran and not path.stopped
    assert path.pick(0.0) == 0 and path.pick(0.37) == 0 and np.isnan(path.scores).all()
    fits = late_records(1, 2, (0.0, 0.01))
    assert [f.lam for f in fits] == [0.0, 0.01] and all(np.isnan(f.score) for f in fits)
    one = late_records(0, 4, 0.05)
    assert isinstance(one, FoldFit) and one.lam == 0.05 and not one.ran and not one.stopped


def test_unless_late_runs_a_task_in_time_and_never_one_that_must_run():
    calls = []

    @unless_late
    def task(x, schedule):
        """A fold task."""
        calls.append(x)
        return x

    assert task(1, (0.0, 1.0, 1.0), late="late") == "late"  # deadline in 1970
    assert task(2, (0.0, 1.0, 1.0)) == 2  # no late record: it always runs
    assert task(3, (9e18, 1.0, 1.0), late="late") == 3
    assert task(4, None, late="late") == 4  # no time limit
    assert calls == [2, 3, 4]
    assert task.__name__ == "task"  # joblib's and Dask's task names


def test_a_backend_without_generators_selects_alike():
    """joblib 1.3's Dask backend refuses ``return_as="generator"``: a backend that cannot
    return outputs as they come gets them all at the end, with the same selection."""
    import joblib
    from joblib._parallel_backends import ThreadingBackend

    class NoGenerators(ThreadingBackend):
        supports_retrieve_callback = False  # joblib: no return_as="generator"
        supports_return_generator = False

    joblib.register_parallel_backend("optrees-test-nogen", NoGenerators)
    X, y = _data()
    fit = {"depths": (1, 2), "lams": (0.0, 0.01), "cv": 3, "time_limit": 60, "n_jobs": 2}
    plain = BendOCTClassifierCV(**fit).fit(X, y)
    with joblib.parallel_backend("optrees-test-nogen"):
        with pytest.raises(ValueError, match="return_as"):  # the backend does refuse
            joblib.Parallel(n_jobs=2, return_as="generator")
        other = BendOCTClassifierCV(**fit).fit(X, y)
    assert other.best_params_ == plain.best_params_
    assert np.allclose(other.cv_results_["mean_test_score"], plain.cv_results_["mean_test_score"])


def test_only_the_first_lam_of_the_shallowest_depth_runs_when_the_time_is_spent():
    """Stacked depths are fitted one λ at a time, each paying CART and the binarization:
    with the time spent at once, the selection runs one point on every fold (the
    shallowest depth's first λ), not every λ of that depth (20 fits took 5.6 s for 5)."""
    X, _ = _data()
    target = X["a"].to_numpy() * 3 + X["b"].to_numpy()
    with pytest.warns(TimeLimitWarning, match="were not started"):
        m = OptimalTreeRegressorCV(depths=(6, 5), lams=(0.0, 0.01), cv=3,
                                   time_limit=0.001).fit(X[["a", "b"]], target)
    r = m.cv_results_
    depth, lam = np.asarray(r["param_depth"]), np.asarray(r["param_lam"], dtype=float)
    mean = np.asarray(r["mean_test_score"], dtype=float)
    ran = (depth == 5) & (lam == 0.0)
    assert np.isfinite(mean[ran]).all() and np.isnan(mean[~ran]).all()
    # (the first depth-6 task may start within the 1 ms; none after it)
    assert r["n_unstarted_folds"][~ran].sum() >= 3 * 3 - 1
    assert (r["n_unstarted_folds"][ran] == 0).all()
    assert m.best_params_ == {"depth": 5, "lam": 0.0}
