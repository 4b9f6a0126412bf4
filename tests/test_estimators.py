"""Shared estimator matrix: bad input, determinism, time limit, scikit-learn conventions."""

import time
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import (
    check_get_params_invariance,
    check_no_attributes_set_in_init,
    check_parameters_default_constructible,
    check_set_params,
)

from optrees import (
    BendersOCTClassifier,
    BendOCTClassifier,
    CGHClassifier,
    FlowOCTClassifier,
    OptreesInputError,
    RUGClassifier,
    TimeLimitWarning,
    load_dataset,
)

ESTIMATORS = [BendersOCTClassifier, FlowOCTClassifier, BendOCTClassifier]  # trees
ALL_ESTIMATORS = [*ESTIMATORS, RUGClassifier, CGHClassifier]


def _small():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (30, 4))
    y = X[:, 0] | X[:, 1]
    return X, y


BAD_FIT = [
    ("nan", lambda X, y: (np.where(np.eye(30, 4) == 1, np.nan, X), y), "missing values"),
    ("inf", lambda X, y: (np.where(np.eye(30, 4) == 1, np.inf, X.astype(float)), y), "infinite"),
    ("empty", lambda X, y: (np.zeros((0, 4)), y[:0]), "empty"),
    ("one class", lambda X, y: (X, np.zeros_like(y)), "single class"),
    ("length mismatch", lambda X, y: (X, y[:-1]), "different numbers of rows"),
    ("y missing", lambda X, y: (X, np.where(np.arange(30) == 3, None, y.astype(object))),
     "missing values"),
    ("1-D X", lambda X, y: (X[:, 0], y), "two-dimensional"),
]


@pytest.mark.parametrize("cls", ALL_ESTIMATORS)
@pytest.mark.parametrize("case", BAD_FIT, ids=[c[0] for c in BAD_FIT])
def test_bad_input_is_named(cls, case):
    _, make, message = case
    X, y = make(*_small())
    with pytest.raises(OptreesInputError, match=message):
        cls(time_limit=10).fit(X, y)


BAD_PARAMS = [
    ({"depth": 0}, "depth"),
    ({"depth": 1.5}, "depth"),
    ({"lam": -0.1}, "lam"),
    ({"lam": 1.0}, "lam"),
    ({"time_limit": -1}, "time_limit"),
    ({"time_limit": 0}, "time_limit"),
    ({"binarizer": "bogus"}, "binarizer"),
]


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize("params,word", BAD_PARAMS, ids=[str(p[0]) for p in BAD_PARAMS])
def test_bad_parameters_are_named(cls, params, word):
    X, y = _small()
    Xf = pd.DataFrame(X + 2 * (X == 0))  # non-binary: reaches the binarizer choice
    with pytest.raises(OptreesInputError, match=word):
        cls(**params).fit(Xf, y)


def test_unknown_penalty():
    X, y = _small()
    with pytest.raises(OptreesInputError, match="penalty"):
        BendersOCTClassifier(penalty="nodes").fit(X, y)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_non_binary_data_without_binarizer(cls):
    X, y = _small()
    X = X.astype(float)
    X[3, 2] = 0.5
    with pytest.raises(OptreesInputError, match="binary"):
        cls(binarizer=None).fit(X, y)


@pytest.mark.parametrize("cls", ALL_ESTIMATORS)
def test_predict_checks_columns(cls):
    X, y = load_dataset("monk3")
    depth = {"max_depth": 1} if cls is RUGClassifier else {"depth": 1}
    est = cls(time_limit=20, **depth).fit(X, y)
    with pytest.raises(OptreesInputError):
        est.predict(X.drop(columns=["a1"]))
    with pytest.raises(OptreesInputError, match="missing values"):
        est.predict(X.assign(a1=np.nan))


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_raw_dataframe_end_to_end_and_determinism(cls):
    X, y = load_dataset("monk1")
    a = cls(depth=2, time_limit=30, random_state=3).fit(X, y)
    b = clone(a).fit(X, y)
    assert a.tree_.to_dict() == b.tree_.to_dict()
    assert a.status_ == "optimal"
    assert set(a.predict(X)) <= set(y)
    proba = a.predict_proba(X)
    assert proba.shape == (len(X), 2)
    assert np.allclose(proba.sum(axis=1), 1)
    assert np.array_equal(a.classes_[proba.argmax(axis=1)], a.predict(X))
    text = a.tree_.export_text()
    assert "a5 = 1" in text or "a1" in text  # literal names of the raw columns
    if getattr(a, "penalty", "splits") == "leaves":
        expected = a.score(X, y) - a.lam * a.tree_.n_leaves
    else:
        expected = ((1 - a.lam) * a.score(X, y) * len(y) - a.lam * a.tree_.n_splits)
    assert a.objective_ == pytest.approx(expected)


@pytest.mark.parametrize("cls", ALL_ESTIMATORS)
def test_sklearn_conventions(cls):
    name = cls.__name__
    check_parameters_default_constructible(name, cls())
    check_no_attributes_set_in_init(name, cls())
    check_get_params_invariance(name, cls())
    check_set_params(name, cls())


@pytest.mark.parametrize("cls,limit", [(BendersOCTClassifier, 4.0), (FlowOCTClassifier, 4.0),
                                       (BendOCTClassifier, 4.0)])
def test_time_limit_is_honoured_and_returns_a_tree(cls, limit):
    X, y = load_dataset("kr-vs-kp")
    start = time.perf_counter()
    with pytest.warns(TimeLimitWarning):
        est = cls(depth=3, time_limit=limit).fit(X, y)
    elapsed = time.perf_counter() - start
    # 5 % of the limit plus the binarization done before the clock starts (< 0.5 s)
    assert est.fit_seconds_ <= limit * 1.05
    assert elapsed <= limit * 1.05 + 0.5
    assert est.status_ != "optimal"
    assert est.gap_ > 0
    assert est.score(X, y) > 0.6  # warm start or better, not a constant guess (52 %)


def test_warning_free_when_optimal():
    X, y = _small()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        BendersOCTClassifier(depth=1).fit(X, y)
