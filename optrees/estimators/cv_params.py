"""The parameters the ``*CV`` estimators (:mod:`optrees.estimators.cv`) add to their base
estimator's: their checks, table lines and defaults, and the base parameters passed on."""

from __future__ import annotations

import math
import numbers
from typing import Any

from sklearn.metrics import get_scorer

from .._params import TIME_LIMIT, Boolean, Check, Options, Param, parameter_table
from .cv_choice import RULES
from .tree_params import N_JOBS_RULE


def depths_check(max_depth: int) -> Check:
    def convert(value: Any) -> tuple[int, ...] | str:
        if isinstance(value, str) and value == "auto":
            return value
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise ValueError
        depths = tuple(value)
        if not depths or len(set(depths)) != len(depths):
            raise ValueError
        for d in depths:
            if isinstance(d, bool) or not isinstance(d, numbers.Integral) or \
                    not 1 <= d <= max_depth:
                raise ValueError
        return tuple(int(d) for d in depths)

    return Check(f"'auto' or a non-empty list of distinct integers in [1, {max_depth}]",
                 convert)


def lams_check(high: float | None, path: bool) -> Check:
    """A non-empty list of distinct penalties in [0, high) (or 'path' when ``path``)."""
    def convert(value: Any) -> Any:
        if isinstance(value, str):
            if path and value == "path":
                return value
            raise ValueError
        if not hasattr(value, "__iter__"):
            raise ValueError
        lams = tuple(value)
        if not lams or len(set(lams)) != len(lams):
            raise ValueError
        for v in lams:
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v) \
                    or v < 0 or (high is not None and v >= high):
                raise ValueError
        return tuple(float(v) for v in lams)

    upper = f"[0, {high:g})" if high is not None else ">= 0"
    text = f"a non-empty list of distinct numbers {'in ' if high else ''}{upper}"
    return Check(f"'path' or {text}" if path else text, convert)


def _cv(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError
    if isinstance(value, numbers.Integral):
        if value < 2:
            raise ValueError
        return int(value)
    if hasattr(value, "split") or hasattr(value, "__iter__"):
        return value
    raise ValueError


def _scoring(value: Any) -> Any:
    if value is None or callable(value):
        return value
    if isinstance(value, str):
        get_scorer(value)  # ValueError for an unknown name
        return value
    raise ValueError


CV_PARAMS: dict[str, Param] = {
    "cv": Param(Check("an integer >= 2, a cross-validation splitter or an iterable of "
                      "(train, test) index pairs", _cv),
                "folds: k (stratified for classifiers, as scikit-learn's cv=k) or a splitter"),
    "scoring": Param(Check("None, a scikit-learn scorer name or a callable(estimator, X, y)",
                           _scoring), "the test score (None: the estimator's score)"),
    "rule": Param(Options(*RULES), "'best': the best mean test score; '1se': the smallest "
                  "tree within one standard error of it"),
    "refit": Param(Boolean(), "fit the chosen parameters on all rows (best_estimator_)"),
    "n_jobs": Param(N_JOBS_RULE,
                    "parallel fold fits through joblib (-1: all cores; joblib's Dask backend "
                    "runs them on a cluster)"),
    "time_limit": Param(TIME_LIMIT.rule, "seconds for all the fold fits and the refit together "
                        "(None: no limit)"),
}
CV_DEFAULTS: dict[str, Any] = {"cv": 5, "scoring": None, "rule": "best", "refit": True,
                               "n_jobs": None, "time_limit": 600.0}
GRID = ("depth", "lam", "time_limit")
"""Parameters of the base estimator that the CV estimator sets (the grid and the shares)."""


def passed_through(base: type) -> tuple[dict[str, Param], dict[str, Any]]:
    """The table lines and defaults of ``base``'s parameters that the CV estimator passes on
    unchanged (all but the grid's)."""
    defaults = {k: v for k, v in base._defaults.items() if k not in GRID}
    table = parameter_table(base)
    return {k: table[k] for k in defaults}, defaults
