"""scikit-learn regressor for optimal regression trees over every threshold (issue #43)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

from .._params import RANDOM_STATE, TIME_LIMIT, VERBOSE, Check, GeneratedInit, Param, Real
from .._validation import check_depth, check_regression_target
from ..trees.solve.regression import MAX_REGRESSION_DEPTH, solve_regression_tree
from ._base import logged_fit
from .threshold_trees import EveryThresholdTree
from .tree_params import MAX_LEAVES, MIN_SAMPLES_LEAF

DEPTH_WHY = ("the regression search over every threshold is built and tested to depth "
             f"{MAX_REGRESSION_DEPTH} so far (issue #43)")


class OptimalTreeRegressor(GeneratedInit, EveryThresholdTree, RegressorMixin,
                           BaseEstimator):
    """Optimal regression tree over every threshold of the numeric columns (categoricals
    one-hot): the tree of depth <= ``depth`` minimising ``SSE / (W var(y)) + lam * leaves``
    (``SSE``: weighted sum of squared errors, ``W``: total weight, ``var(y)``: the weighted
    variance of y; a single leaf costs ``1 + lam``), leaves predicting the weighted mean, at
    least ``min_samples_leaf`` rows per leaf and at most ``max_leaves`` leaves.

    Found by an exact branch and bound over the sorted columns (costs from prefix sums of
    ``(w, w y, w y^2)``), CART of the same depth as the first incumbent: a fit stopped by
    ``time_limit`` returns the best tree found (never worse than CART on the training data)
    with status "time_limit" and a valid lower ``bound_``.

    Fitted attributes: ``tree_`` (:class:`~optrees.models.regression_tree.RegressionTree`),
    ``objective_``, ``bound_`` (no tree of the depth has a lower objective), ``gap_``,
    ``status_``, ``thresholds_`` ("all"), ``solve_seconds_``, ``fit_seconds_``, ``stats_``,
    ``n_features_in_``, ``feature_names_in_``.
    """

    _parameters: ClassVar[dict[str, Param]] = {
        "depth": Param(Check(f"an integer in [1, {MAX_REGRESSION_DEPTH}]",
                             lambda v: check_depth(v, MAX_REGRESSION_DEPTH, DEPTH_WHY)),
                       "depth of the tree (number of tests on the longest path)"),
        "lam": Param(Real(0.0), "cost of each leaf, in units of the target's variance times "
                     "the total weight"),
        "min_samples_leaf": MIN_SAMPLES_LEAF,
        "max_leaves": MAX_LEAVES,
        "time_limit": TIME_LIMIT,
        "random_state": RANDOM_STATE,
        "verbose": VERBOSE,
    }

    _defaults: ClassVar[dict[str, Any]] = {"depth": 2, "lam": 0.0, "min_samples_leaf": 1,
                                            "max_leaves": None, "time_limit": 60.0,
                                            "random_state": None, "verbose": False}

    @logged_fit
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> OptimalTreeRegressor:
        """Solve for the best tree within ``time_limit``; ``sample_weight``: one number >= 0
        per row (integer weights give the tree of duplicated rows, weight 0 drops a row).
        Returns ``self``."""
        return self._fit_table(X, y, sample_weight, check_regression_target,
                               solve_regression_tree)

    def predict(self, X: Any) -> np.ndarray:
        """The training mean of the leaf each row of ``X`` reaches."""
        return super().predict(X)
