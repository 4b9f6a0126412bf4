"""The scikit-learn checks that the estimator matrix lists as expected failures of
RobustTreeClassifier (estimator_matrix.ROBUST_FLOAT_CHECKS: they fit on real-valued X) pass
when the same data are coded as integers: what fails there is the refusal of real-valued
features, nothing else."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from estimator_matrix import ROBUST_FLOAT_CHECKS
from sklearn.utils.estimator_checks import parametrize_with_checks

from optrees import RobustTreeClassifier


def _coded(X):
    """Real-valued X (an array, a list of rows or a table) as integers (2 x, rounded);
    anything else as it is."""
    if X is None or sp.issparse(X):
        return X
    if isinstance(X, pd.DataFrame):
        return X.apply(lambda col: _coded(col.to_numpy()))
    a = np.asarray(X)
    if a.dtype.kind not in "fcO":
        return X
    try:
        a = a.astype(np.float64)
    except (TypeError, ValueError):
        return X
    return np.round(2 * a)  # NaN and inf stay as they are: refused as such


class IntegerCoded(RobustTreeClassifier):
    """The robust tree on the checks' data coded as integers."""

    def fit(self, X, y, costs=None, sample_weight=None):
        return super().fit(_coded(X), y, costs=costs, sample_weight=sample_weight)

    def predict(self, X):
        return super().predict(_coded(X))


def _only_float_checks(estimator):
    return {}


@pytest.mark.slow
@parametrize_with_checks([IntegerCoded(depth=2, budget=1.0, time_limit=5)],
                         expected_failed_checks=_only_float_checks)
def test_float_checks_pass_on_integer_codes(estimator, check):
    name = getattr(check, "func", check).__name__
    if name not in ROBUST_FLOAT_CHECKS:
        pytest.skip("runs on RobustTreeClassifier itself in test_sklearn_compat.py")
    check(estimator)


def test_plot_takes_the_path_first_as_every_estimator_does(tmp_path):
    """``est.plot("tree.png")`` (the README's form) raised TypeError for robust trees."""
    import inspect

    import pandas as pd

    from optrees import BendOCTClassifier, RobustTreeClassifier

    assert list(inspect.signature(RobustTreeClassifier.plot).parameters)[:2] == \
        list(inspect.signature(BendOCTClassifier.plot).parameters)[:2] == ["self", "path"]
    X = pd.DataFrame({"a": [0.0, 1, 2, 3, 4, 5], "b": [1.0, 0, 1, 0, 1, 0]})
    est = RobustTreeClassifier(depth=1, time_limit=30).fit(X, [0, 0, 0, 1, 1, 1])
    est.plot(str(tmp_path / "tree.png"))
    assert (tmp_path / "tree.png").stat().st_size > 0
