"""What the trees over every threshold whose leaves hold a number share (regression and
survival trees): the fit's steps around one solve, and routing raw rows to leaves."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._params import RANDOM_STATE, TIME_LIMIT, VERBOSE, Check, Param, Real, validate_params
from .._validation import check_depth, fit_weights
from ..encoding.binary import every_threshold
from ..models.result import FitResult
from ..trees.problem.tree_problem import side_constraint_text
from ..trees.solve.fit import min_leaf_rows
from ._base import (
    _TreeOutput,
    drop_weightless,
    fit_deadline,
    fit_frame,
    predict_frame,
    stop_on_ctrl_c,
    store_result,
    warn_unseen,
)
from .tree_params import MAX_LEAVES, MIN_SAMPLES_LEAF

Solve = Callable[..., FitResult]
"""``solve(features, target, w, depth, lam, min_leaf, deadline, names, random_state,
max_leaves)``: the task's solve function over the encoded float matrix."""


def threshold_tree_parameters(max_depth: int, depth_why: str, lam_unit: str
                              ) -> tuple[dict[str, Param], dict[str, Any]]:
    """The parameter table and defaults of a tree over every threshold: they differ only in
    the depth the task's search is built to and in the unit its leaf cost ``lam`` is in."""
    parameters = {
        "depth": Param(Check(f"an integer in [1, {max_depth}]",
                             lambda v: check_depth(v, max_depth, depth_why)),
                       "depth of the tree (number of tests on the longest path)"),
        "lam": Param(Real(0.0), f"cost of each leaf, in units of {lam_unit}"),
        "min_samples_leaf": MIN_SAMPLES_LEAF,
        "max_leaves": MAX_LEAVES,
        "time_limit": TIME_LIMIT,
        "random_state": RANDOM_STATE,
        "verbose": VERBOSE,
    }
    defaults = {"depth": 2, "lam": 0.0, "min_samples_leaf": 1, "max_leaves": None,
                "time_limit": 60.0, "random_state": None, "verbose": False}
    return parameters, defaults


class EveryThresholdTree(_TreeOutput):
    """Fit: validate, check the target, drop rows of weight 0, encode every threshold (one-hot
    categoricals), solve once, store the result; predict and apply on raw rows."""

    def _fit_table(self, X: Any, y: Any, sample_weight: Any,
                   check_target: Callable[[Any, int], np.ndarray], solve: Solve,
                   after: Callable[..., None] | None = None,
                   for_columns: Callable[[Any, Solve], Solve] | None = None) -> Any:
        """The fit: ``solve`` returns a :class:`FitResult`, or a tuple whose first item is
        one; ``after(out, features, target, w)`` (the solve's return value, the encoded
        training rows kept, their target and weights) sets the task's own attributes before
        the result is stored; ``for_columns(encoder, solve)``: the solve to run given the
        fitted :class:`~optrees.encoding.thresholds.ThresholdColumns` (when it depends on
        the columns' kinds). Returns ``self``."""
        p = validate_params(self)
        deadline = fit_deadline(p.time_limit)
        df = fit_frame(self, X)
        target = check_target(y, len(df))
        w = fit_weights(sample_weight, None, np.zeros(0), np.zeros(len(target), np.int64))
        df, target, w = drop_weightless(df, target, w)
        encoding = every_threshold(df)
        features = encoding.transform(df)
        names = (encoding.names, encoding.negated, list(encoding.encoder.numeric))
        if for_columns is not None:
            solve = for_columns(encoding.encoder, solve)
        min_leaf = min_leaf_rows(p.min_samples_leaf, len(target))
        with stop_on_ctrl_c(deadline):
            out = solve(features, target, w, p.depth, p.lam, min_leaf, deadline, names,
                        p.random_state, p.max_leaves)
        self.encoder_, self.feature_names_ = encoding.encoder, encoding.names
        self._categories, self.thresholds_ = encoding.categories, encoding.thresholds
        result = out if isinstance(out, FitResult) else out[0]
        _name_side_constraints(result.stats, min_leaf, p.max_leaves)
        self.tree_ = result.model
        if after is not None:
            after(out, features, target, w)
        store_result(self, result, deadline, "returning the best tree found")
        return self

    def predict(self, X: Any) -> np.ndarray:
        """The value of the leaf each row of ``X`` reaches."""
        df = predict_frame(self, X, "tree_")
        warn_unseen(self, df, self._categories)
        return self.tree_.predict(self.encoder_.transform(df))

    def apply(self, X: Any) -> np.ndarray:
        """Index of the leaf of ``tree_`` each row of ``X`` reaches."""
        df = predict_frame(self, X, "tree_")
        return self.tree_.apply(self.encoder_.transform(df))


def _name_side_constraints(stats: dict[str, Any], min_leaf: int, max_leaves: int | None
                           ) -> None:
    """``stats["side_constraints"]`` as the classifiers name them ("min_samples_leaf=20,
    max_leaves=3"), when the solve did not: the status line says what the optimum is under."""
    text = side_constraint_text(min_leaf, max_leaves)
    if text and "side_constraints" not in stats:
        stats["side_constraints"] = text
