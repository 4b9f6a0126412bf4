"""A regression CV's list of λ in one task per fold and depth (issues #43/#44): the fold
encoded once and OptimalTreeRegressor's exact search run at each λ, the searches sharing
their depth-2 fronts and warm starts (:func:`~optrees.trees.solve.regression_path.grid_trees`),
where separate fits (:func:`.cv_folds.fit_fold`) redid that work per λ."""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np

from .._logging import silent
from .._params import validate_params
from .._validation import check_frame
from ..trees.solve.fit import min_leaf_rows
from ..trees.solve.regression import MAX_REGRESSION_DEPTH
from ..trees.solve.regression_path import GridTree, grid_trees
from ._base import ColumnWarning, UnseenCategoryWarning, fit_deadline
from .cv_folds import (
    FoldFit,
    PathRegressionTree,
    _rows,
    on_schedule,
    regression_rows,
    unless_late,
)
from .regression import OptimalTreeRegressor

FoldJob = tuple[int, "float | tuple[float, ...] | None"]
"""One task per fold: ``(depth, None)`` the depth's path (:func:`.cv_folds.path_fold`),
``(depth, lam)`` one fit (:func:`.cv_folds.fit_fold`), ``(depth, lams)`` one grid
(:func:`grid_fold`)."""


def _shared(estimator: Any) -> bool:
    """``estimator`` is an OptimalTreeRegressor whose fit is the plain penalised exact search
    (the class's own ``fit``, constant leaves, no ``max_leaves``, depth <= 4)."""
    return type(estimator).fit is OptimalTreeRegressor.fit and \
        estimator.max_leaves is None and estimator.leaf_model == "constant" and \
        estimator.depth <= MAX_REGRESSION_DEPTH


def fold_jobs(estimator: Any, lams: tuple[float, ...]) -> list[FoldJob]:
    """The tasks of a fold that fits each of ``lams`` at ``estimator``'s depth: one grid
    where the grid reproduces ``estimator``'s fit (:func:`_shared`), else one fit per λ."""
    depth = int(estimator.depth)
    if _shared(estimator):
        return [(depth, tuple(float(lam) for lam in lams))]
    return [(depth, float(lam)) for lam in lams]


def grid_refit_units(estimator: Any, lams: tuple[float, ...]) -> float:
    """A refit's time in fold records' times (``cv_choice.deeper_fits``): a fit's, 1; a
    grid's records split their task's time evenly among its λ, and one fit costs about the
    whole task (its search meets the depth-2 fronts the task's later searches reuse)."""
    return float(len(lams)) if _shared(estimator) else 1.0


def grid_trees_of(estimator: Any, lams: tuple[float, ...], X_train: Any, y_train: Any,
                  w_train: Any) -> tuple[list[GridTree], Any, list[str]]:
    """OptimalTreeRegressor's tree at each of ``lams`` (its depth, ``min_samples_leaf``,
    ``random_state`` and ``time_limit`` for them all) on these rows, encoded once as its fit
    encodes them (weights, rows of weight 0 dropped, every threshold); also the encoding and
    the column names, to encode other rows alike."""
    p = validate_params(estimator)
    features, target, w, names, encoding, columns = regression_rows(X_train, y_train, w_train)
    trees = grid_trees(features, target, w, p.depth,
                       min_leaf_rows(p.min_samples_leaf, len(target)),
                       fit_deadline(p.time_limit), lams, names, p.random_state)
    return trees, encoding, columns


@unless_late
@silent
def grid_fold(estimator: Any, lams: tuple[float, ...], X: Any, y: Any, sample_weight: Any,
              train: np.ndarray, test: np.ndarray, scorer: Any, fold: int,
              schedule: tuple[float, float, float] | None = None) -> list[FoldFit]:
    """:func:`.cv_folds.fit_fold` of every λ of ``lams`` at once (:func:`fold_jobs`): the
    fold's training rows encoded once, the tree of each λ from :func:`grid_trees_of` (the
    time limit, set by ``schedule``, that of all its λ's fits), scored on the test rows.
    One :class:`~.cv_folds.FoldFit` per λ, as its fit's (``stopped``: its search stopped;
    ``seconds``: the task's, split evenly among its λ, whose searches share the work)."""
    started = time.perf_counter()
    with warnings.catch_warnings():  # as fit_fold's: the refit warns of a column once
        for quiet in (ColumnWarning, UnseenCategoryWarning):
            warnings.simplefilter("ignore", quiet)
        trees, encoding, columns = grid_trees_of(on_schedule(estimator, schedule), lams,
                                                 *_rows(X, y, sample_weight, train))
        X_test, y_test, _ = _rows(X, y, None, test)
        Z = encoding.transform(check_frame(X_test).set_axis(columns, axis=1))
    scores = [float(scorer(PathRegressionTree(g.tree), Z, y_test)) for g in trees]
    seconds = (time.perf_counter() - started) / len(trees)
    return [FoldFit(fold, int(estimator.depth), g.lam, score, int(g.tree.n_leaves), seconds,
                    not g.optimal) for g, score in zip(trees, scores, strict=True)]
