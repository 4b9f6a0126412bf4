"""The refit of :class:`~optrees.estimators.cv.OptimalTreeRegressorCV` under ``lams="path"``:
the chosen λ's tree read off the regression path of every row, the same kind of object the
folds were scored with.

A separate fit at λ and a path for ``path_`` cost two searches of the same rows, and when
time runs short they disagree: a stopped path's hull may lack the leaf counts a stopped fit
at λ lands on (the folds scored an 8-leaf tree, the refit returned 3 leaves).  One path, read
at λ, gives ``best_estimator_`` and ``path_`` at once, and its tree is the one the folds'
choice meant."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_regression_target
from ..models.result import FitResult
from ..trees.solve.regression_path import RegressionFront, RegressionPathPoint, front_points
from ._base import Deadline

PATH_TOL = 1e-9
"""A stopped path's point at λ counts as proved when its objective is within this of the
bound (the regression searches' own tolerance)."""


def point_at(front: RegressionFront, lam: float) -> RegressionPathPoint:
    """The path's optimum at ``lam``: the hull point whose interval holds ``lam``, the one
    with fewer leaves at a breakpoint (as a fold's :meth:`~.cv_folds.FoldPath.pick`)."""
    inside = [p for p in front if p.lams is not None and p.lams[0] <= lam <= p.lams[1]]
    return min(inside, key=lambda p: p.leaves)


def result_at(front: RegressionFront, lam: float, seconds: float) -> FitResult:
    """OptimalTreeRegressor's :class:`FitResult` at ``lam`` from the path: the hull tree's
    objective ``loss + lam * leaves`` and the bound ``min_B (bound(B) + lam * B)`` (a tree
    of k leaves has loss at least the bound of budget k), "optimal" when they meet."""
    point = point_at(front, lam)
    value = point.loss + lam * point.leaves
    bound = min(min(p.bound + lam * p.budget for p in front), value)
    proved = value <= bound + PATH_TOL
    stats = {"bb_nodes": 0, "search_seconds": seconds, "search_optimal": proved,
             "thresholds": "all", "search": "path", "path_searches": front.searches,
             "path_complete": front.complete}
    return FitResult(point.tree, "optimal" if proved else "time_limit", value,
                     value if proved else bound, seconds, stats)


def refit_from_path(estimator: Any, X: Any, y: Any, sample_weight: Any
                    ) -> tuple[Any, RegressionFront]:
    """``estimator`` (an :class:`~optrees.OptimalTreeRegressor` with constant leaves and no
    ``max_leaves``, its ``time_limit`` the refit's) fitted on all rows by its own encoding
    and checks, its tree read off the regression path of those rows at its ``lam``; and
    that path."""
    kept: list[RegressionFront] = []

    def solve(features: np.ndarray, target: np.ndarray, w: np.ndarray | None, depth: int,
              lam: float, min_leaf: int, deadline: Deadline, names: Any, random_state: Any,
              max_leaves: Any) -> FitResult:
        started = deadline.elapsed()
        front = front_points(features, target, w, depth, min_leaf, deadline, names, "hull",
                             random_state or 0)
        kept.append(front)
        return result_at(front, lam, deadline.elapsed() - started)

    estimator._fit_table(X, y, sample_weight, check_regression_target, solve)
    return estimator, kept[0]
