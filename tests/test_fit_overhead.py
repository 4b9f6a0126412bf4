"""The per-fit shortcuts keep scikit-learn's behaviour: the fitted-input attributes, the
parameter names and the constructor's errors."""

from __future__ import annotations

import inspect
from pathlib import Path

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


def test_named_tables_skip_sklearns_dataframe_layer():
    """Fit and predict on a table of str column names check the names without scikit-learn's
    dataframe layer (narwhals' pandas modules: 0.1-0.2 s of a process's first fit), set what
    scikit-learn's tree sets (the oracle), and a table with other names still fails at
    predict; in a new process, so that nothing imported them before."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent("""
        import json, sys
        import numpy as np, pandas as pd
        from sklearn.tree import DecisionTreeClassifier
        from optrees import BendOCTClassifier, OptreesInputError
        X = pd.DataFrame([[0, 1], [1, 0], [1, 1], [0, 0]], columns=["a", "b"])
        y = np.array([0, 1, 1, 0])
        est = BendOCTClassifier(depth=1).fit(X, y)
        est.predict(X)
        layer = any(m.startswith("narwhals._pandas_like") for m in sys.modules)
        ref = DecisionTreeClassifier(max_depth=1).fit(X, y)
        same = (type(est.feature_names_in_) is type(ref.feature_names_in_)
                and est.feature_names_in_.dtype == ref.feature_names_in_.dtype
                and list(est.feature_names_in_) == list(ref.feature_names_in_)
                and est.n_features_in_ == ref.n_features_in_)
        try:
            est.predict(X[["b", "a"]])
            refused = False
        except OptreesInputError:
            refused = True
        print(json.dumps([layer, same, refused]))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=300, cwd=Path(__file__).resolve().parent.parent)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[false, true, true]"
