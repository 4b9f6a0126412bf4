"""Saved survival and policy trees (issue #45): a loaded model predicts as the fitted one
(risk scores, curves, C-index; treatments, estimated outcomes, text), its curves and
values agree with their definitions written here in numpy, and a damaged file is refused
with one clear error."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from oracles import harrell

from optrees import (
    OptimalPolicyTree,
    OptimalSurvivalTree,
    OptreesInputError,
    load_model,
    save_model,
)
from optrees.estimators import UnseenCategoryWarning


def _table(n: int = 60, seed: int = 0) -> pd.DataFrame:
    """Raw columns: one categorical, two numeric (with ties)."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"color": rng.choice(["red", "green", "blue"], n),
                         "age": rng.integers(18, 70, n).astype(float),
                         "score": rng.normal(size=n).round(1)})


def _survival_target(X: pd.DataFrame, seed: int = 1) -> np.ndarray:
    """(event, time): earlier events for red and older rows, a third censored."""
    rng = np.random.default_rng(seed)
    rate = 0.05 + 0.2 * (X["color"] == "red") + 0.004 * X["age"]
    time = np.round(rng.exponential(1.0 / rate.to_numpy()), 1)
    event = rng.uniform(size=len(X)) < 0.67
    event[0] = True
    return np.column_stack([event, time]).astype(float)


@pytest.fixture(scope="module")
def survival():
    X = _table()
    y = _survival_target(X)
    return X, y, OptimalSurvivalTree(depth=2, min_samples_leaf=5).fit(X, y)


@pytest.fixture(scope="module")
def policy():
    X = _table()
    rng = np.random.default_rng(2)
    t = rng.integers(0, 3, len(X))
    t[:3] = [0, 1, 2]
    outcome = rng.normal(size=len(X)) + 2.0 * (t == (X["color"] == "red").to_numpy())
    mu = rng.uniform(0.2, 0.9, len(X))
    w = rng.integers(1, 4, len(X)).astype(float)
    est = OptimalPolicyTree(depth=2, teacher="ipw").fit(X, t, outcome, propensity=mu,
                                                        sample_weight=w)
    return X, t, outcome, mu, w, est


def _saved(est, tmp_path):
    path = tmp_path / "m.json"
    save_model(est, path)
    json.loads(path.read_text(), parse_constant=lambda c: pytest.fail(f"constant {c}"))
    return path, load_model(path)


def nelson_aalen(event, time, at):
    """sum over event times s <= t of d(s) / r(s) (rows with time >= s), 0 before the
    first event."""
    out = []
    for t in at:
        out.append(sum(((time == s) & (event == 1)).sum() / (time >= s).sum()
                       for s in np.unique(time[event == 1]) if s <= t))
    return np.array(out)



# ------------------------------------------------------------------------- survival
def test_loaded_survival_tree_predicts_as_the_fitted_one(survival, tmp_path):
    X, y, est = survival
    path, model = _saved(est, tmp_path)
    X_new = _table(30, seed=5).iloc[::-1]
    np.testing.assert_array_equal(model.predict(X_new), est.predict(X_new))
    np.testing.assert_array_equal(model.predict_survival_function(X_new),
                                  est.predict_survival_function(X_new))
    at = [0.0, 1.5, 7.0, 1e6]
    np.testing.assert_array_equal(model.predict_cumulative_hazard_function(X_new, at),
                                  est.predict_cumulative_hazard_function(X_new, at))
    assert model.score(X, y) == est.score(X, y)
    assert model.export_text() == est.export_text()
    np.testing.assert_array_equal(model.unique_times_, est.unique_times_)
    assert model.leaf_kaplan_meier_.keys() == est.leaf_kaplan_meier_.keys()
    for leaf, curve in est.leaf_kaplan_meier_.items():
        np.testing.assert_array_equal(model.leaf_kaplan_meier_[leaf], curve)
    save_model(model, tmp_path / "again.json")  # save -> load -> save keeps the file
    assert json.loads((tmp_path / "again.json").read_text()) == json.loads(path.read_text())


def test_loaded_survival_curves_and_c_index_from_their_definitions(survival, tmp_path):
    X, y, est = survival
    _, model = _saved(est, tmp_path)
    assert est.tree_.n_leaves > 1
    theta = model.predict(X)
    at = np.r_[0.0, np.unique(y[:, 1]), 1e6]
    expected = np.exp(-theta[:, None] * nelson_aalen(y[:, 0], y[:, 1], at)[None, :])
    np.testing.assert_allclose(model.predict_survival_function(X, at), expected, rtol=1e-12)
    assert model.score(X, y) == pytest.approx(harrell(y[:, 0], y[:, 1], theta))


def test_loaded_survival_tree_warns_on_unseen_categories(survival, tmp_path):
    X, _, est = survival
    _, model = _saved(est, tmp_path)
    new = X.assign(color=np.where(np.arange(len(X)) % 2, "purple", X["color"]))
    with pytest.warns(UnseenCategoryWarning, match="purple"):
        model.predict(new)
    with pytest.raises(OptreesInputError, match="predict_proba needs a classifier"):
        model.predict_proba(X)


# ------------------------------------------------------------------------- policy
def test_loaded_policy_tree_predicts_as_the_fitted_one(policy, tmp_path):
    X, *_, est = policy
    path, model = _saved(est, tmp_path)
    X_new = _table(30, seed=5).iloc[::-1]
    np.testing.assert_array_equal(model.predict(X_new), est.predict(X_new))
    np.testing.assert_array_equal(model.predict_value(X_new), est.predict_value(X_new))
    assert model.export_text() == est.export_text()
    with pytest.raises(OptreesInputError, match="no predict_proba"):
        model.predict_proba(X)
    save_model(model, tmp_path / "again.json")
    assert json.loads((tmp_path / "again.json").read_text()) == json.loads(path.read_text())


def test_loaded_policy_value_from_the_ipw_definition(policy, tmp_path):
    """predict_value: the weighted mean over the leaf's training rows of the IPW score
    y_i 1[t_i = k] / mu_i of the leaf's treatment k."""
    X, t, outcome, mu, w, est = policy
    _, model = _saved(est, tmp_path)
    leaves, treat = est.apply(X), model.predict(X)
    assert len(np.unique(leaves)) > 1
    expected = np.empty(len(X))
    for leaf in np.unique(leaves):
        rows = leaves == leaf
        k = treat[rows][0]
        gamma = outcome[rows] * (t[rows] == k) / mu[rows]
        expected[rows] = gamma @ w[rows] / w[rows].sum()
    np.testing.assert_allclose(model.predict_value(X), expected, rtol=1e-12)


# ------------------------------------------------------------------------- damaged files
def _first_leaf(data, block, key):
    return next(iter(data[block][key]))


DAMAGED = [
    ("survival", "no baseline", lambda d: d["survival"].pop("baseline"),
     "'survival.baseline' must be an object"),
    ("survival", "decreasing hazard",
     lambda d: d["survival"]["baseline"]["values"].__setitem__(-1, -1.0),
     "'survival.baseline.values' must be >= 0 and never decrease"),
    ("survival", "times out of order",
     lambda d: d["survival"]["unique_times"].reverse(),
     "'survival.unique_times' must be a non-empty list of increasing numbers"),
    ("survival", "curve above one",
     lambda d: d["survival"]["leaf_kaplan_meier"][_first_leaf(d, "survival",
                                                                  "leaf_kaplan_meier")]
     .__setitem__(0, 1.5), r"must hold numbers in \[0, 1\]"),
    ("survival", "curve of the root",
     lambda d: d["survival"]["leaf_kaplan_meier"].__setitem__(
         "0", d["survival"]["unique_times"]), "key '0', which is no leaf"),
    ("policy", "value text", lambda d: d["policy"]["leaf_values"].__setitem__(
        _first_leaf(d, "policy", "leaf_values"), "high"), "must be a finite number"),
    ("policy", "leaf out of range", lambda d: d["policy"]["leaf_values"].__setitem__(
        "99", 1.0), "key '99', which is no leaf"),
    ("policy", "no block", lambda d: d["policy"].pop("leaf_values"),
     "'policy.leaf_values' must be an object"),
]


@pytest.mark.parametrize("case", DAMAGED, ids=[f"{c[0]}-{c[1]}" for c in DAMAGED])
def test_a_damaged_file_is_refused_with_one_clear_error(case, survival, policy, tmp_path):
    which, _, change, message = case
    est = survival[-1] if which == "survival" else policy[-1]
    path, _ = _saved(est, tmp_path)
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    with pytest.raises(OptreesInputError, match="is not a valid optrees model file") as info:
        load_model(path)
    assert len(str(info.value).splitlines()) == 1
    assert re.search(message, str(info.value)), str(info.value)
