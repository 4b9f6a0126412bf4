"""The shared estimator concerns for the survival and policy trees of
``estimator_matrix.TASK_SPECS`` (issue #45), on their own targets: the bad-X rows of
test_bad_input's fit table and its whole predict table (also through the task's own
predictions: curves, estimated outcomes), not fitted, determinism (also with rows
reordered) and the time limit."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from estimator_matrix import TASK_IDS, TASK_SPECS
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from test_bad_input import FIT_CASES, PREDICT_CASES, _table

from optrees import OptreesInputError, TimeLimitWarning

X_ROWS = ("nan", "inf", "nan in DataFrame", "no columns", "1-D X", "sparse X",
          "dict in a cell", "complex X")
"""Rows of the classifiers' fit table about X alone: they apply as they are, with the
task's own target of as many rows."""


def _targets(task: str, n: int, seed: int = 0) -> tuple:
    """The fit arguments after X: ``(y,)`` of (event, time), or (treatment, outcome,
    propensity) with a known propensity (the IPW teacher needs nothing estimated)."""
    rng = np.random.default_rng(seed)
    if task == "survival":
        event = rng.uniform(size=n) < 0.7
        event[0] = True
        return (np.column_stack([event, rng.exponential(5.0, n).round(1)]).astype(float),)
    t = np.arange(n) % 3
    return t, rng.normal(size=n) + (t == 1), np.full(n, 1 / 3)


def _fit(est, X, seed: int = 0, order: np.ndarray | None = None):
    n = X.shape[0] if hasattr(X, "shape") else len(X)
    task = "survival" if hasattr(est, "predict_survival_function") else "policy"
    args = _targets(task, n, seed)
    if order is not None:
        X, args = X.iloc[order].reset_index(drop=True), tuple(a[order] for a in args)
    return est.fit(X, *args)


def _fit_rows():
    cases = {c[0]: c for c in FIT_CASES}
    return [pytest.param(s, *cases[row], id=f"{s.id}-{row}") for s in TASK_SPECS
            for row in X_ROWS]


@pytest.mark.parametrize("spec,case_id,make,error,message", _fit_rows())
def test_bad_x_at_fit(spec, case_id, make, error, message):
    _, X, _ = make(spec)
    est = spec.make()
    with pytest.raises(error, match=message) as info:
        _fit(est, X)
    assert len(str(info.value).splitlines()) == 1
    assert not hasattr(est, "tree_")  # nothing half-fitted is left behind


@pytest.fixture(scope="module")
def fitted():
    X, _ = _table()
    return {s.id: _fit(s.make(random_state=0), X) for s in TASK_SPECS}


def _predictions(est, X) -> list:
    """predict and the task's own predictions."""
    own = (est.predict_survival_function if hasattr(est, "predict_survival_function")
           else est.predict_value)
    return [est.predict(X), own(X)]


@pytest.mark.parametrize("spec", TASK_SPECS, ids=TASK_IDS)
@pytest.mark.parametrize("case", PREDICT_CASES, ids=[c[0] for c in PREDICT_CASES])
def test_bad_predict_input(spec, case, fitted):
    """The classifiers' predict table, through predict and the task's own prediction."""
    _, _, change, error, message = case
    X, _ = _table()
    est = fitted[spec.id]
    bad = change(X)
    if issubclass(error, Warning):
        with pytest.warns(error, match=message):
            out = _predictions(est, bad)
        assert all(len(p) == len(X) for p in out)
        return
    with pytest.raises(error, match=message):
        est.predict(bad)
    own = (est.predict_survival_function if hasattr(est, "predict_survival_function")
           else est.predict_value)
    with pytest.raises(error, match=message):
        own(bad)


@pytest.mark.parametrize("spec", TASK_SPECS, ids=TASK_IDS)
def test_predict_before_fit(spec):
    X, _ = _table()
    with pytest.raises(NotFittedError, match="is not fitted yet"):
        spec.make().predict(X)
    with pytest.raises(NotFittedError, match="is not fitted yet"):
        _predictions(spec.make(), X)


# ------------------------------------------------------------------------- determinism
def _model(est) -> dict:
    from optrees.io import model_to_dict

    d = model_to_dict(est)
    d.pop("fit")
    return json.loads(json.dumps(d))


@pytest.mark.parametrize("spec", TASK_SPECS, ids=TASK_IDS)
def test_same_seed_same_model_also_with_rows_reordered(spec):
    X, _ = _table(200, seed=3)
    a = _fit(spec.make(random_state=3, **spec.exact), X, seed=3)
    b = _fit(clone(a), X, seed=3)
    assert a.status_ == "optimal" and a.tree_.n_leaves > 1
    assert _model(a) == _model(b)
    for p, q in zip(_predictions(a, X), _predictions(b, X), strict=True):
        np.testing.assert_array_equal(p, q)
    order = np.random.default_rng(0).permutation(len(X))
    c = _fit(clone(a), X, seed=3, order=order)
    # the same tree (ties broken by feature and threshold); sums in another order
    tree_a, tree_c = _model(a)["tree"], _model(c)["tree"]
    floats = ("value", "weight") if spec.task == "survival" else ("counts",)
    for key in floats:
        np.testing.assert_allclose(tree_c.pop(key), tree_a.pop(key), rtol=1e-9)
    assert tree_c == tree_a
    for p, q in zip(_predictions(a, X), _predictions(c, X), strict=True):
        np.testing.assert_allclose(p, q, rtol=1e-9)


# ------------------------------------------------------------------------- time limit
def hard_table(n: int = 2000, F: int = 10, seed: int = 0) -> pd.DataFrame:
    """``synthetic-2000x10``: continuous columns; depth 3 is not proved within 1 ms."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.normal(size=(n, F)), columns=[f"x{j}" for j in range(F)])


@pytest.mark.parametrize("spec", TASK_SPECS, ids=TASK_IDS)
def test_time_limit_returns_the_best_tree_with_a_certificate(spec):
    """A limit spent before the search ends: status 'time_limit' with a warning, a tree
    within the depth that predicts, and a bound on the right side of the objective with a
    gap above 0 (the survival loss is minimised, the policy value maximised)."""
    assert spec.hard_data == "synthetic-2000x10"
    X = hard_table()
    est = spec.make(**spec.hard)
    with pytest.warns(TimeLimitWarning, match="status 'time_limit'") as stops:
        _fit(est, X)
    assert {w.filename for w in stops.list} == {__file__}  # the user's line, not ours
    assert est.status_ == "time_limit" and est.gap_ > 0
    assert est.tree_.depth <= spec.hard["depth"]
    if spec.task == "survival":
        assert est.bound_ < est.objective_
    else:
        assert est.bound_ > est.objective_
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert all(np.isfinite(p).all() for p in _predictions(est, X.iloc[:50]))
    assert isinstance(est.bound_, float) and np.isfinite(est.bound_)
    with pytest.raises(OptreesInputError):
        est.predict(X.iloc[:, :3])
