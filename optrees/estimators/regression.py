"""scikit-learn regressor for optimal regression trees over every threshold (issue #43)."""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

from .._params import GeneratedInit
from .._validation import check_regression_target
from ..trees.solve.regression import MAX_REGRESSION_DEPTH, solve_regression_tree
from ._base import logged_fit
from .threshold_trees import EveryThresholdTree, threshold_tree_parameters

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

    _parameters, _defaults = threshold_tree_parameters(
        MAX_REGRESSION_DEPTH, DEPTH_WHY, "the target's variance times the total weight")

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
