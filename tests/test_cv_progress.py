"""A *CV selection's progress lines at verbose=1 (issue #44): a line per fold task, a line
per depth naming its best grid point, the choice and the refit; the fold fits stay silent,
also on joblib's workers (the lines come from the parent)."""

import logging
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_diabetes

from optrees import BendOCTClassifierCV, OptimalTreeRegressorCV, load_dataset


def _lines(caplog):
    return [r.getMessage() for r in caplog.records if r.name.startswith("optrees")]


def _field(line, key):
    return re.search(rf"\b{key} (\S+)", line).group(1)


@pytest.fixture(scope="module")
def diabetes():
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    return X.iloc[:90, :4], y.iloc[:90].to_numpy()


def _check_depth_and_choice(lines, model):
    """Each depth line names the λ of its depth's best mean test score, and the choice line
    names best_params_ (read from cv_results_ here by argmax, not by the package's rule)."""
    res = model.cv_results_
    depth_lines = [ln for ln in lines if ln.startswith("cv depth")]
    assert [int(_field(ln, "depth")) for ln in depth_lines] == list(model.depths_)
    for ln in depth_lines:
        rows = [i for i, pt in enumerate(res["params"]) if pt["depth"] == int(_field(ln, "depth"))]
        best = rows[int(np.argmax(res["mean_test_score"][rows]))]
        assert float(_field(ln, "lam")) == pytest.approx(res["params"][best]["lam"], rel=1e-5)
        assert float(_field(ln, "best_mean_test_score")) == pytest.approx(
            res["mean_test_score"][best], rel=1e-3)
    chose = [ln for ln in lines if ln.startswith("cv chose")]
    assert len(chose) == 1
    assert int(_field(chose[0], "depth")) == model.best_params_["depth"]
    assert float(_field(chose[0], "lam")) == pytest.approx(model.best_params_["lam"], rel=1e-5)
    done = [ln for ln in lines if ln.startswith("cv done")]
    assert len(done) == 1 and _field(done[0], "status") == model.best_estimator_.status_


def test_regression_grid_logs_a_line_per_fold_task(diabetes, caplog):
    X, y = diabetes
    with caplog.at_level(logging.INFO, logger="optrees"):
        model = OptimalTreeRegressorCV(depths=[1, 2], cv=3, verbose=1, time_limit=60).fit(X, y)
    lines = _lines(caplog)
    before_choice = lines[:next(i for i, ln in enumerate(lines) if ln.startswith("cv chose"))]
    # every line before the choice is the selection's own: the fold fits are silent
    assert all(ln.startswith(("cv fold", "cv depth")) for ln in before_choice), before_choice
    folds = [ln for ln in lines if ln.startswith("cv fold")]
    assert len(folds) == 3 * 2  # one grid task per fold and depth
    res = model.cv_results_
    for ln in folds:
        fold, depth = int(_field(ln, "fold").split("/")[0]) - 1, int(_field(ln, "depth"))
        rows = [i for i, pt in enumerate(res["params"]) if pt["depth"] == depth]
        assert "4 λ" in ln
        assert float(_field(ln, "best_test_score")) == pytest.approx(
            max(res[f"split{fold}_test_score"][i] for i in rows), rel=1e-3)
    _check_depth_and_choice(lines, model)


def test_fits_per_lambda_log_one_line_each_and_stay_silent(diabetes, caplog):
    X, y = diabetes  # max_leaves: no grid task, one fit per (fold, λ)
    with caplog.at_level(logging.INFO, logger="optrees"):
        model = OptimalTreeRegressorCV(depths=[2], lams=[0.0, 0.05], cv=3, max_leaves=3,
                                       verbose=1, time_limit=60).fit(X, y)
    lines = _lines(caplog)
    folds = [ln for ln in lines if ln.startswith("cv fold")]
    assert sorted(_field(ln, "λ") for ln in folds) == ["0"] * 3 + ["0.05"] * 3
    assert sum(ln.startswith("done") for ln in lines) == 1  # the refit's only
    _check_depth_and_choice(lines, model)


def test_paths_on_workers_are_logged_by_the_parent(caplog):
    X, y = load_dataset("monk1")
    with warnings.catch_warnings(), caplog.at_level(logging.INFO, logger="optrees"):
        warnings.simplefilter("ignore")
        model = BendOCTClassifierCV(depths=[2, 3], cv=3, n_jobs=2, verbose=1,
                                    time_limit=120).fit(X, y)
    lines = _lines(caplog)  # records of worker processes would not reach caplog
    folds = [ln for ln in lines if ln.startswith("cv fold")]
    assert len(folds) == 3 * 2 and all("path of" in ln for ln in folds)
    _check_depth_and_choice(lines, model)


def test_silent_without_verbose():
    code = ("from sklearn.datasets import load_diabetes\n"
            "from optrees import OptimalTreeRegressorCV\n"
            "X, y = load_diabetes(return_X_y=True)\n"
            "OptimalTreeRegressorCV(depths=[1], cv=3, time_limit=30).fit(X[:60], y[:60])\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "" and proc.stdout == ""
