"""scikit-learn estimator for optimal robust classification trees (issue #46): the tree of
the best worst-case accuracy when an adversary shifts integer features within a budget
(Justin, Aghaei, Gómez, Vayanos; the definition is in :mod:`optrees.robust`)."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._params import (
    TIME_LIMIT,
    VERBOSE,
    GeneratedInit,
    Integer,
    Options,
    Param,
    Real,
    validate_params,
)
from .._validation import OptreesInputError, check_target, fit_weights
from ..robust.adversary import worst_case_correct
from ..robust.mip import solve_robust_mip
from ..robust.search import MAX_LABELLINGS, solve_robust_tree
from ._base import (
    fit_deadline,
    fit_frame,
    logged_fit,
    predict_frame,
    stop_on_ctrl_c,
    store_result,
)

MAX_DEPTH = 3  # the enumeration is built and tested to depth 3
MAX_SPLITS = 4096
"""Most tests ``x[f] <= t`` (one per integer of each feature's training range, summed over the
features): the search holds a (tests x tests x classes) table of floats (256 MB at 4096 tests
and two classes) and builds tests^2 structures before its first tree."""


def check_split_count(X: np.ndarray, names: list[Any]) -> None:
    """One clear error when the features' integer ranges make more than :data:`MAX_SPLITS`
    tests (a column of large integers, e.g. amounts in cents, would otherwise exhaust the
    memory or hang), naming the widest column."""
    if X.size == 0:
        return
    span = X.max(axis=0).astype(np.float64) - X.min(axis=0)
    if span.sum() > MAX_SPLITS:
        j = int(np.argmax(span))
        raise OptreesInputError(
            f"the features' integer ranges make {span.sum():,.0f} tests x <= t (one per "
            f"integer of each column's range), more than the {MAX_SPLITS:,} the robust tree "
            f"is built for; column {names[j]!r} alone spans {span[j]:,.0f} "
            f"({X[:, j].min()} .. {X[:, j].max()}): rescale or bin it to fewer integer levels")


def integer_matrix(df: pd.DataFrame, what: str = "X") -> np.ndarray:
    """The table as an int64 matrix (a categorical column of integer categories, as the
    bundled UCI sets have, by its values); one error naming the first non-integer column."""
    df = df.copy()
    for name in df.columns:
        col = df[name]
        if isinstance(col.dtype, pd.CategoricalDtype) and \
                pd.api.types.is_numeric_dtype(col.cat.categories):
            col = df[name] = col.astype(col.cat.categories.dtype)
        if not (pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col)):
            raise OptreesInputError(
                f"{what} column {name!r} is not numeric: robust trees take integer (ordinal) "
                "features; encode categories as integers first")
        values = col.to_numpy(dtype=np.float64)
        if not np.isfinite(values).all():
            raise OptreesInputError(
                f"{what} column {name!r} has NaN or infinite values: robust trees take integer "
                "(ordinal) features without missing values")
        if not np.all(values == np.round(values)):
            raise OptreesInputError(
                f"{what} column {name!r} has non-integer values (e.g. "
                f"{float(values[values != np.round(values)][0])!r}): robust trees take integer "
                "(ordinal) features")
    return df.to_numpy(dtype=np.float64).astype(np.int64)


def check_costs(costs: Any, shape: tuple[int, int], columns: list[Any] | None = None
                ) -> np.ndarray:
    """``costs``: None (1 everywhere) or an ``(n_rows, n_features)`` table of numbers >= 0
    (inf: that value cannot be shifted). When X's ``columns`` have names, a DataFrame whose
    columns name them is read by name (in any order); one naming other columns is refused."""
    if costs is None:
        return np.ones(shape)
    if isinstance(costs, pd.DataFrame) and columns is not None and \
            list(costs.columns) != list(columns):
        if sorted(map(str, costs.columns)) != sorted(map(str, columns)) or \
                len(set(costs.columns)) != len(costs.columns):
            raise OptreesInputError(
                f"costs' columns {list(costs.columns)} must be X's columns {list(columns)} "
                f"(one cost per row and feature)")
        by_name = {str(c): c for c in costs.columns}
        costs = costs[[by_name[str(c)] for c in columns]]
    try:
        c = np.asarray(costs.to_numpy() if isinstance(costs, pd.DataFrame) else costs,
                       dtype=np.float64)
    except (TypeError, ValueError):
        raise OptreesInputError("costs must be a table of numbers >= 0") from None
    if c.shape != shape:
        raise OptreesInputError(
            f"costs must have one number per row and feature of X, shape {shape}; got "
            f"shape {c.shape}")
    if np.isnan(c).any() or (c < 0).any():
        raise OptreesInputError("costs must be numbers >= 0 (inf: not shiftable); got "
                                + ("nan" if np.isnan(c).any() else f"{c[c < 0][0]:g}"))
    return c


class RobustTreeClassifier(GeneratedInit, ClassifierMixin, BaseEstimator):
    """Optimal robust classification tree (Justin et al.; ODTlearn's ``RobustOCT``).

    Features are integers; tests are ``x[f] <= t`` for every ``t`` in the feature's training
    range. An adversary shifts row ``i``'s feature ``f`` by an integer ``xi`` at cost
    ``costs[i, f] * |xi|`` (``fit(..., costs=)``, 1 by default), within the feature's
    training range, spending at most ``budget`` in total over all rows. The fitted tree of
    depth <= ``depth`` maximises its worst-case accuracy minus ``lam`` per branch node,
    certified: ``status_ == "optimal"`` only when proved; a stopped fit keeps the best tree
    found and ``bound_`` (an upper bound on the objective), ``gap_``.

    ``method``: ``"search"`` (default) the exact search of ``optrees.robust.search``, no
    solver; ``"mip"`` the paper's MIP (``optrees.robust.mip``): SCIP with constraint
    generation (the adversary's best response to each candidate tree gives a min-cut style
    cut), started from a short search's tree; same certificate, usually much slower.

    ``sample_weight``: the accuracy is the correct weight over the total weight. A row of
    weight ``w`` counts as ``floor(w)`` copies of weight 1 and one copy of the fractional
    rest, each shifted on its own at the row's costs: an integer weight is that many
    duplicated rows; a row of weight 0 is left out (it moves no threshold or range).

    Fitted attributes: ``tree_`` (an ``optrees.models.robust_tree.IntegerTree``),
    ``classes_``, ``objective_`` (worst-case training accuracy minus the penalty),
    ``bound_``, ``gap_``, ``status_``, ``worst_case_accuracy_``, ``solve_seconds_``,
    ``fit_seconds_``, ``stats_``, ``n_features_in_``.
    """

    _parameters: ClassVar[dict[str, Param]] = {
        "depth": Param(Integer(1, MAX_DEPTH), "maximum depth of the tree"),
        "budget": Param(Real(0.0), "the adversary's total budget over all rows"),
        "lam": Param(Real(0.0), "penalty per branch node, in accuracy units"),
        # `optrees fit --method` names the estimator, so this one is --robust-method
        "method": Param(Options("search", "mip"), "the exact search (no solver) or the "
                        "MIP with constraint generation (SCIP)", cli="--robust-method"),
        "time_limit": TIME_LIMIT,
        "verbose": VERBOSE,
    }
    _defaults: ClassVar[dict[str, Any]] = {
        "depth": 2, "budget": 0.0, "lam": 0.0, "method": "search", "time_limit": 60.0,
        "verbose": False}

    @logged_fit
    def fit(self, X: Any, y: Any, costs: Any = None, sample_weight: Any = None
            ) -> RobustTreeClassifier:
        """Solve for the most robust tree within ``time_limit``; ``costs``: the cost of a
        unit shift of each row's each feature, ``(n_rows, n_features)``, numbers >= 0;
        ``sample_weight``: one number >= 0 per row (see the class docstring)."""
        p = validate_params(self)
        deadline = fit_deadline(p.time_limit)
        df = fit_frame(self, X)
        classes, yi = check_target(y, len(df))  # the target's errors first (scikit-learn's)
        w = fit_weights(sample_weight, None, classes, yi)
        Xi = integer_matrix(df)
        gamma = check_costs(costs, Xi.shape, getattr(self, "feature_names_in_", None))
        if w is not None:
            keep = w > 0  # a row of weight 0 is as if it were not there
            Xi, yi, gamma, w = Xi[keep], yi[keep], gamma[keep], w[keep]
            w = None if (w == 1.0).all() else w
        check_split_count(Xi, list(df.columns))
        if len(classes) ** (2 ** p.depth) > MAX_LABELLINGS:
            raise OptreesInputError(
                f"{len(classes)} classes at depth {p.depth} make {len(classes)}^"
                f"{2 ** p.depth} leaf labellings, more than the search enumerates "
                f"({MAX_LABELLINGS}); use a smaller depth")
        with stop_on_ctrl_c(deadline):
            if p.method == "mip":
                result = solve_robust_mip(Xi, yi, classes, gamma, p.budget, p.depth, p.lam,
                                          deadline, list(df.columns), w,
                                          verbose=int(p.verbose))
            else:
                result = solve_robust_tree(Xi, yi, classes, gamma, p.budget, p.depth, p.lam,
                                           deadline, list(df.columns), w)
        self.classes_ = classes
        self.tree_ = result.model
        self.worst_case_accuracy_ = (result.stats["worst_case_correct"]
                                     / result.stats["total_weight"])
        store_result(self, result, deadline, "returning the best tree found")
        return self

    @staticmethod
    def check_features(X: Any) -> None:
        """One clear error when ``X`` has a column of non-integer values (what ``fit``
        refuses), without fitting: the command line asks before it starts."""
        from .._validation import check_frame

        frame = check_frame(X)
        check_split_count(integer_matrix(frame), list(frame.columns))

    def _matrix(self, X: Any) -> np.ndarray:
        return integer_matrix(predict_frame(self, X, "tree_"))

    def predict(self, X: Any) -> np.ndarray:
        """The class of each row."""
        X = self._matrix(X)  # NotFittedError before fit
        return self.tree_.predict(X)

    def export_text(self) -> str:
        """The fitted tree as indented text."""
        check_is_fitted(self, "tree_")
        return self.tree_.export_text()

    def to_dot(self) -> str:
        """Graphviz DOT source of the fitted tree."""
        check_is_fitted(self, "tree_")
        return self.tree_.to_dot()

    def plot(self, path: Any = None, **kwargs: Any) -> Any:
        """matplotlib Figure of the fitted tree (saved to ``path`` when given: PNG, SVG,
        PDF), as the other estimators' ``plot``."""
        check_is_fitted(self, "tree_")
        return self.tree_.plot(path=path, **kwargs)

    def worst_case_accuracy(self, X: Any, y: Any, costs: Any = None, budget: float = 0.0,
                            sample_weight: Any = None) -> float:
        """Accuracy on ``(X, y)`` after the worst shift of total cost <= ``budget`` (values
        stay within the training range of each feature); ``costs`` and ``sample_weight`` as
        in :meth:`fit`."""
        Xi = self._matrix(X)
        budget = float(budget)
        if math.isnan(budget) or budget < 0:
            raise OptreesInputError(f"budget must be a number >= 0, got {budget!r}")
        y = np.asarray(y)
        if y.shape != (Xi.shape[0],):
            raise OptreesInputError(f"y must have one label per row of X ({Xi.shape[0]})")
        known = np.isin(y, self.classes_)
        yi = np.full(len(y), -1, dtype=np.int64)  # an unseen label is never predicted
        yi[known] = np.searchsorted(self.classes_, y[known])
        gamma = check_costs(costs, Xi.shape, getattr(self, "feature_names_in_", None))
        w = fit_weights(sample_weight, None, self.classes_, yi)
        if w is not None:
            keep = w > 0
            Xi, yi, gamma, w = Xi[keep], yi[keep], gamma[keep], w[keep]
        total = len(yi) if w is None else w.sum()
        return worst_case_correct(self.tree_, Xi, yi, gamma, budget, w) / total
