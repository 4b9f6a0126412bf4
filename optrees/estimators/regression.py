"""scikit-learn regressor for optimal regression trees over every threshold (issue #43)."""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

from .._params import GeneratedInit, Options, Param, Real, validate_params
from .._validation import check_regression_target
from ..trees.solve.linear_leaves import check_linear_depth, numeric_columns, solve_linear_leaves
from ..trees.solve.regression import MAX_REGRESSION_DEPTH, solve_regression_tree
from ..trees.solve.regression_deep import (
    MAX_DEEP_DEPTH,
    check_deep_budget,
    solve_deep_regression,
)
from ._base import logged_fit
from .threshold_trees import EveryThresholdTree, threshold_tree_parameters

DEPTH_WHY = (f"deeper than {MAX_REGRESSION_DEPTH} a regression tree is stacked from optima "
             "of depth <= 3, at most three of them (issue #43)")


LEAF_PARAMETERS = {
    "leaf_model": Param(Options("constant", "linear"),
                        "what a leaf predicts: 'constant' (its weighted mean) or 'linear' "
                        "(a ridge regression on the numeric columns, depth <= 3)"),
    "leaf_ridge": Param(Real(0.0), "ridge penalty of the linear leaves' coefficients (on "
                        "standardised columns, as scikit-learn's Ridge alpha)"),
}


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

    Depths 5-8 are not searched exactly: numeric columns are split at 15 weighted quantile
    thresholds and CART's, and the tree is stacked from optima of depth <= 3 (the best
    depth-3 tree, each leaf replaced by the best tree of the rest of the depth on its rows,
    in up to three pieces), or is CART's of the same depth where that is better; status
    "heuristic" (finished, not proved optimal) with the k-means ``bound_`` over every
    threshold ("optimal" only where the tree meets that bound), ``thresholds_`` "binarized",
    ``stats_["search_start"]`` saying which tree was returned; ``max_leaves`` is refused
    there.

    With ``leaf_model="linear"`` each leaf predicts with its own ridge regression on the
    numeric columns of ``X`` (every numeric column, standardised by its weighted training
    mean and standard deviation; the intercept not penalised) and costs its penalised least
    squares, ``SSE + leaf_ridge * |b|^2`` (scikit-learn's ``Ridge(alpha=leaf_ridge)`` with
    the rows' weights), normalised as above.  Depth <= 3, ``max_leaves`` exact too; a
    numeric column is split at its 5 weighted quantile thresholds (every threshold when it
    has at most 6 values), and "optimal" means optimal over those splits: ``thresholds_`` is
    "binarized" when a threshold was left out (exact on 0/1 columns).

    Fitted attributes: ``tree_`` (:class:`~optrees.models.regression_tree.RegressionTree`;
    :class:`~optrees.models.linear_leaf_tree.LinearLeafTree` with linear leaves),
    ``objective_``, ``bound_`` (no tree of the depth has a lower objective), ``gap_``,
    ``status_``, ``thresholds_`` ("all"), ``solve_seconds_``, ``fit_seconds_``, ``stats_``,
    ``n_features_in_``, ``feature_names_in_``.
    """

    _parameters, _defaults = threshold_tree_parameters(
        MAX_DEEP_DEPTH, DEPTH_WHY, "the target's variance times the total weight")
    _parameters = {**_parameters, **LEAF_PARAMETERS}
    _defaults = {**_defaults, "leaf_model": "constant", "leaf_ridge": 1.0}

    @logged_fit
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> OptimalTreeRegressor:
        """Solve for the best tree within ``time_limit``; ``sample_weight``: one number >= 0
        per row (integer weights give the tree of duplicated rows, weight 0 drops a row;
        ``min_samples_leaf`` counts rows, not weight, so with it they may differ).
        Returns ``self``."""
        p = validate_params(self)
        if p.leaf_model == "constant":
            deep = p.depth > MAX_REGRESSION_DEPTH
            return self._fit_table(X, y, sample_weight, check_regression_target,
                                   solve_deep_regression if deep else solve_regression_tree,
                                   self._binarized if deep else None)

        def linear(encoder: Any, _: Any) -> Any:
            return partial(solve_linear_leaves, regressors=numeric_columns(encoder.specs),
                           ridge=p.leaf_ridge)

        return self._fit_table(X, y, sample_weight, check_regression_target,
                               solve_linear_leaves, self._binarized, linear)

    @staticmethod
    def _check_together(p: Any) -> None:
        """The depths linear leaves and leaf budgets allow (before any data is read)."""
        if p.leaf_model == "linear":
            check_linear_depth(p.depth)
        else:
            check_deep_budget(p.depth, p.max_leaves)

    def _binarized(self, out: Any, *_: Any) -> None:
        """``thresholds_`` from the solve: "binarized" when it left a threshold out."""
        self.thresholds_ = out.stats["thresholds"]

    # kept for its docstring: the inherited one (_TreeOutput.predict) says "label", and the
    # API docs list inherited members
    def predict(self, X: Any) -> np.ndarray:
        """The leaf's prediction for each row of ``X``: its training mean, or with linear
        leaves its ridge model's value."""
        return super().predict(X)

