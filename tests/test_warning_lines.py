"""Every warning a fit raises points at the user's line (the test's own ``fit`` call), not
at a frame inside the package, whatever the depth of the estimator's calls: the stack level
is found by walking the stack (``optrees._stack.user_stacklevel``), not counted by hand.
The time-limit warnings are checked in the estimator matrices' time-limit tests."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import DataConversionWarning

from optrees import (
    BendOCTClassifier,
    BendOCTClassifierCV,
    OMTClassifier,
    OptimalTreeRegressor,
    RUGClassifier,
    RUXClassifier,
)
from optrees._stack import user_stacklevel
from optrees.estimators._base import TimeLimitWarning


def _table(n: int = 60, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 3, n),
                      "group": rng.choice(["u", "v"], n)})
    y = np.where(X["a"] + 0.3 * X["b"] > 0.3, "yes", "no")
    return X, y


def _caught(fit) -> tuple[list[warnings.WarningMessage], int]:
    """The warnings of ``fit()`` and the line of this helper's caller that calls it."""
    line = inspect.currentframe().f_back.f_lineno
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    return caught, line


def _at_this_file(caught: list, category: type) -> list:
    found = [w for w in caught if issubclass(w.category, category)]
    assert found, [str(w.message) for w in caught]
    assert [w.filename for w in found] == [__file__] * len(found), \
        [(w.filename, w.lineno, str(w.message)) for w in found]
    return found


def test_a_column_vector_target_points_at_the_fit_line():
    X, y = _table()
    caught, line = _caught(lambda: BendOCTClassifier(depth=1).fit(X, y.reshape(-1, 1)))
    found = _at_this_file(caught, DataConversionWarning)
    assert found[0].lineno == line
    target = X["a"].to_numpy().reshape(-1, 1)
    caught, line = _caught(lambda: OptimalTreeRegressor(depth=1).fit(X, target))
    assert _at_this_file(caught, DataConversionWarning)[0].lineno == line


def test_omt_fewer_leaves_than_classes_points_at_the_fit_line():
    X, y = _table()
    y = np.where(X["b"] == 0, "p", np.where(X["b"] == 1, "q", "r"))  # 3 classes
    caught, _ = _caught(lambda: OMTClassifier(depth=1, leaves=2, time_limit=5).fit(X, y))
    assert "classes can be predicted" in str(_at_this_file(caught, UserWarning)[0].message)


def test_an_unused_sensitive_column_points_at_the_fit_line():
    X, y = _table()
    caught, _ = _caught(lambda: RUGClassifier(max_depth=2, random_state=0,
                                              sensitive="group").fit(X, y))
    assert "no effect without fairness" in str(_at_this_file(caught, UserWarning)[0].message)
    Xn = X.assign(group=(X["group"] == "u").astype(int))
    forest = RandomForestClassifier(5, max_depth=2, random_state=0).fit(Xn, y)
    caught, _ = _caught(lambda: RUXClassifier(forest, sensitive="group").fit(Xn, y))
    assert "no effect without fairness" in str(_at_this_file(caught, UserWarning)[0].message)


def test_an_old_notion_name_in_a_fit_points_at_the_fit_line():
    X, y = _table()
    caught, _ = _caught(lambda: RUGClassifier(max_depth=1, random_state=0, fairness="eop",
                                              sensitive="group", epsilon=0.5).fit(X, y))
    _at_this_file(caught, DeprecationWarning)


def test_a_cv_whose_folds_stop_points_at_the_fit_line():
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(size=(400, 8)), columns=list("abcdefgh"))
    y = (X.sum(axis=1) + rng.normal(size=400) > 0).astype(int)
    cv = BendOCTClassifierCV(depths=(4,), lams=(0.0,), cv=2, time_limit=0.05)
    caught, _ = _caught(lambda: cv.fit(X, y))
    assert "fold fits stopped" in str(_at_this_file(caught, TimeLimitWarning)[0].message)


def test_user_stacklevel_skips_every_package_frame():
    """Called here (outside the package) it points at its caller: level 1 is this line."""
    assert user_stacklevel() == 1
