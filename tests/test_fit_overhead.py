"""The per-fit shortcuts keep scikit-learn's behaviour: the fitted-input attributes, the
parameter names and the constructor's errors."""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest
from sklearn.tree import DecisionTreeClassifier

from optrees import BendOCTClassifier, FlowOCTClassifier

X = np.array([[0, 1], [1, 0], [1, 1], [0, 0], [1, 0], [0, 1]])
y = np.array([0, 1, 1, 0, 1, 0])


@pytest.mark.parametrize("first, second", [("frame", "array"), ("array", "frame"),
                                           ("array", "array")])
def test_fitted_input_attributes_match_sklearn(first, second):
    """A refit sets ``n_features_in_`` and ``feature_names_in_`` as scikit-learn's own tree
    does (the oracle): an array after a named table drops the names."""
    data = {"frame": pd.DataFrame(X, columns=["a", "b"]), "array": X}
    ours, ref = BendOCTClassifier(depth=1), DecisionTreeClassifier(max_depth=1)
    for kind in (first, second):
        ours.fit(data[kind], y)
        ref.fit(data[kind], y)
        assert ours.n_features_in_ == ref.n_features_in_
        assert hasattr(ours, "feature_names_in_") == hasattr(ref, "feature_names_in_")
        if hasattr(ref, "feature_names_in_"):
            assert list(ours.feature_names_in_) == list(ref.feature_names_in_)


@pytest.mark.parametrize("cls", [BendOCTClassifier, FlowOCTClassifier])
def test_param_names_are_the_signature(cls):
    """``get_params`` lists the constructor's parameters, sorted (read from the signature)."""
    names = sorted(p for p in inspect.signature(cls.__init__).parameters if p != "self")
    assert sorted(cls().get_params(deep=False)) == names
    assert cls._get_param_names() == names
    assert cls(depth=2, lam=0.1).get_params()["lam"] == 0.1


def test_constructor_refuses_positional_and_unknown_arguments():
    with pytest.raises(TypeError, match="too many positional arguments.*keyword arguments"):
        BendOCTClassifier(2)
    with pytest.raises(TypeError, match="unexpected keyword argument 'dpth'"):
        BendOCTClassifier(dpth=2)
    est = BendOCTClassifier(depth=2)
    assert est.depth == 2 and est.lam == BendOCTClassifier._defaults["lam"]
