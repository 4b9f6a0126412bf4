"""The work of one fold of a ``*CV`` estimator (:mod:`optrees.estimators.cv`), as top-level
functions joblib can ship to any backend (processes, threads, Dask): one λ-path per fold and
depth (every λ of that depth at once: BendOCT's from one search,
:mod:`optrees.trees.solve.path`; a regression tree's from its hull's searches,
:mod:`optrees.trees.solve.regression_path`), or one fit per fold and grid point."""

from __future__ import annotations

import functools
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone, is_classifier
from sklearn.utils import _safe_indexing

from .._logging import silent
from .._params import validate_params
from .._validation import (
    check_frame,
    check_max_leaves,
    check_target,
    fit_weights,
)
from ..encoding.binary import binarize
from ..models.result import FINISHED_STATUSES
from ..trees.solve.fit import min_leaf_rows
from ..trees.solve.path import PathFront, front_points
from ..trees.solve.regression_path import RegressionFront, encoded, weighted_rows
from ..trees.solve.regression_path import front_points as regression_points
from ._base import (
    ColumnWarning,
    TimeLimitWarning,
    UnseenCategoryWarning,
    drop_weightless,
    fit_deadline,
)

T = TypeVar("T")


@dataclass
class FoldPath:
    """One fold's path at one depth: for each tree on the hull (fewest leaves first), its
    ``leaves``, the interval ``[low, high]`` of λ for which it is the fold's optimum and its
    test ``score``; the search's ``seconds`` and whether the time limit ``stopped`` it."""

    fold: int
    depth: int
    leaves: np.ndarray
    low: np.ndarray
    high: np.ndarray
    scores: np.ndarray
    seconds: float
    stopped: bool
    ran: bool = True
    """False: not started, the selection's time was spent (:func:`unless_late`)."""

    def pick(self, lam: float) -> int:
        """The hull tree that is the fold's optimum at ``lam``; at a breakpoint, where two
        trees tie, the one with fewer leaves."""
        inside = np.flatnonzero((self.low <= lam) & (lam <= self.high))
        return int(inside[0])


@dataclass
class FoldFit:
    """One fit of one grid point on one fold: its test ``score``, the tree's ``leaves``,
    the fit's ``seconds`` and whether its time limit ``stopped`` it."""

    fold: int
    depth: int
    lam: float
    score: float
    leaves: int
    seconds: float
    stopped: bool
    ran: bool = True
    """False: not started, the selection's time was spent (:func:`unless_late`)."""
    heuristic: bool = False
    """Finished by a method that does not prove its tree optimal (status "heuristic": a
    regression tree deeper than 4), so scored by a tree that is not the point's optimum."""


class PathTree(ClassifierMixin, BaseEstimator):
    """A tree of a fold's path, as an estimator a scikit-learn scorer can call on the fold's
    test rows already encoded (the fold's 0/1 features): ``predict``, ``predict_proba``."""

    def __init__(self, tree: Any = None, classes: Any = None) -> None:
        self.tree, self.classes = tree, classes

    @property
    def classes_(self) -> np.ndarray:
        return self.classes

    def predict(self, Z: np.ndarray) -> np.ndarray:
        return self.tree.predict(Z)

    def predict_proba(self, Z: np.ndarray) -> np.ndarray:
        return self.tree.predict_proba(Z)


class PathRegressionTree(RegressorMixin, BaseEstimator):
    """A regression tree of a fold's path as an estimator a scikit-learn scorer can call on
    the fold's test rows already encoded (every threshold's columns): ``predict``; its
    ``score`` is R², as the regressor's."""

    def __init__(self, tree: Any = None) -> None:
        self.tree = tree

    def predict(self, Z: np.ndarray) -> np.ndarray:
        return self.tree.predict(Z)


MIN_LIMIT = 1e-3
"""Seconds a fold task gets when the selection's time is already spent (a fit returns its
start model)."""


def late_records(fold: int, depth: int, lam: float | tuple[float, ...] | None
                 ) -> FoldPath | FoldFit | list[FoldFit]:
    """What a fold task that was not started returns: its records with a nan score (its
    grid points are not scored), no time, not stopped (``ran`` False)."""
    if lam is None:  # a path: one tree for every λ, scored nan
        return FoldPath(fold, depth, np.array([1]), np.array([0.0]), np.array([np.inf]),
                        np.array([np.nan]), 0.0, False, ran=False)
    lams = lam if isinstance(lam, tuple) else (lam,)
    fits = [FoldFit(fold, depth, float(a), np.nan, 0, 0.0, False, ran=False) for a in lams]
    return fits if isinstance(lam, tuple) else fits[0]


def unless_late(task: Callable[..., T]) -> Callable[..., T]:
    """A fold task that returns ``late`` (a keyword; None: it always runs) instead of
    running when the selection's time is spent as it starts (its last argument is its
    ``schedule``).  Each fit costs its set-up and scoring whatever its time limit: the tasks
    started late ran at ``MIN_LIMIT`` one after another and the selection overran its
    ``time_limit`` (hepatitis' 60 fold fits: 6-7 s for 3.5 s).  The task keeps its name
    (joblib's and Dask's task names)."""

    @functools.wraps(task)
    def run(*args: Any, late: Any = None) -> T:
        schedule = args[-1]
        if late is not None and schedule is not None and time.time() >= schedule[0]:
            return late
        return task(*args)

    return run


def on_schedule(estimator: Any, schedule: tuple[float, float, float] | None) -> Any:
    """``estimator`` with its time limit set to its part of what is left: ``schedule`` =
    (the selection's wall-clock deadline ``time.time()``, this task's units, the units of
    this task and every later one and the refit).  Each fit also spends time no limit covers
    (set-up, scoring), so fixed shares summed to more than ``time_limit``; with this the
    overrun of the early tasks is taken from the later.  Tasks that end before their share
    (shallow depths, proved early) leave time the later ones get, in proportion to their
    units, instead of it all going to the refit: fewer deep folds stop."""
    if schedule is None:
        return estimator
    deadline_at, units, later = schedule
    # divided first: a huge time_limit times the units would overflow to inf
    part = max((deadline_at - time.time()) / later * units, MIN_LIMIT)
    if part == estimator.time_limit:
        return estimator
    return clone(estimator).set_params(time_limit=part)


def _rows(X: Any, y: Any, w: Any, index: np.ndarray) -> tuple[Any, Any, Any]:
    return (_safe_indexing(X, index), _safe_indexing(y, index),
            None if w is None else np.asarray(w)[index])


def training_path(estimator: Any, X_train: Any, y_train: Any, w_train: Any
                  ) -> tuple[PathFront, Any, list[str], np.ndarray | None]:
    """The path of ``estimator``'s depth on these rows, encoded as ``estimator.fit`` encodes
    them (weights, rows of weight 0 dropped, its binarizer on a table without numeric
    columns; every threshold for a regressor), so each hull tree is an optimum of
    ``estimator`` at the λ of its interval; the search stops at ``estimator.time_limit``.
    Also the encoding, the column names and the classes (None for a regressor), to encode
    other rows the same way."""
    if not is_classifier(estimator):
        return _regression_path(estimator, X_train, y_train, w_train)
    p = validate_params(estimator)
    df = check_frame(X_train)
    columns = [str(c) for c in df.columns]
    df = df.set_axis(columns, axis=1)
    classes, y_enc = check_target(y_train, len(df))
    w = fit_weights(w_train, p.class_weight, classes, y_enc)
    df, y_enc, w = drop_weightless(df, y_enc, w)
    X01, encoding = binarize(df, p.binarizer, w)
    points = front_points(X01, y_enc, w, classes, (encoding.names, encoding.negated),
                          p.depth, min_leaf_rows(p.min_samples_leaf, len(y_enc)),
                          fit_deadline(p.time_limit), check_max_leaves(p.max_leaves, p.depth))
    return points, encoding, columns, classes


def _regression_path(estimator: Any, X_train: Any, y_train: Any, w_train: Any
                     ) -> tuple[RegressionFront, Any, list[str], None]:
    """:func:`training_path` of an OptimalTreeRegressor (constant leaves, no leaf budget):
    the regression front's hull (:func:`~optrees.trees.solve.regression_path.front_points`)
    on the rows as its fit encodes them."""
    p = validate_params(estimator)
    features, target, w, names, encoding, columns = regression_rows(X_train, y_train, w_train)
    points = regression_points(features, target, w, p.depth,
                               min_leaf_rows(p.min_samples_leaf, len(target)),
                               fit_deadline(p.time_limit), names, "hull",
                               p.random_state or 0)
    return points, encoding, columns, None


def regression_rows(X_train: Any, y_train: Any, w_train: Any) -> tuple[Any, ...]:
    """Training rows as OptimalTreeRegressor's fit encodes them (weights, rows of weight 0
    dropped, every threshold, categoricals one-hot): the matrix, target, weights, the
    feature names, the encoding and the column names (to encode other rows alike)."""
    df, target, w = weighted_rows(check_frame(X_train), y_train, w_train)
    features, encoding, names = encoded(df)
    return features, target, w, names, encoding, list(df.columns)


@unless_late
@silent
def path_fold(estimator: Any, X: Any, y: Any, sample_weight: Any, train: np.ndarray,
              test: np.ndarray, scorer: Any, fold: int,
              schedule: tuple[float, float, float] | None = None) -> FoldPath:
    """The path of ``estimator``'s depth on the fold's training rows
    (:func:`training_path`), each hull tree scored on its test rows.  ``scorer`` None:
    accuracy (a classifier's own score, without the scorer's checks)."""
    started = time.perf_counter()
    points, encoding, columns, classes = training_path(
        on_schedule(estimator, schedule), *_rows(X, y, sample_weight, train))
    hull: dict[int, Any] = {}
    for point in points:  # one per leaf count: the points of a leaf count share the tree
        if point.lams is not None:
            hull.setdefault(point.leaves, point)
    kept = [hull[k] for k in sorted(hull)]
    X_test, y_test, _ = _rows(X, y, None, test)
    Z = encoding.transform(check_frame(X_test).set_axis(columns, axis=1))  # encoded once
    if scorer is None:  # the estimator's score: accuracy, without the scorer's checks
        scores = [float(np.mean(q.tree.predict(Z) == y_test)) for q in kept]
    elif classes is None:
        scores = [scorer(PathRegressionTree(q.tree), Z, y_test) for q in kept]
    else:
        scores = [scorer(PathTree(q.tree, classes), Z, y_test) for q in kept]
    stopped = not points.complete  # a search of the path stopped at its time limit
    return FoldPath(fold, int(estimator.depth), np.array([q.leaves for q in kept]),
                    np.array([q.lams[0] for q in kept]), np.array([q.lams[1] for q in kept]),
                    np.array(scores, dtype=float), time.perf_counter() - started,
                    stopped)


@unless_late
@silent
def fit_fold(estimator: Any, X: Any, y: Any, sample_weight: Any, train: np.ndarray,
             test: np.ndarray, scorer: Any, fold: int,
             schedule: tuple[float, float, float] | None = None) -> FoldFit:
    """One fit of ``estimator`` (its depth, λ and time limit set) on the fold's training rows,
    scored on its test rows (as ``cross_val_score`` does); an early stop is reported in
    ``stopped``, not warned (the CV estimator warns once for all its fits); a fit that
    Ctrl-C interrupted raises ``KeyboardInterrupt``."""
    started = time.perf_counter()
    X_train, y_train, w_train = _rows(X, y, sample_weight, train)
    est = clone(on_schedule(estimator, schedule))
    with warnings.catch_warnings():
        # the CV estimator's refit on every row warns once of a column; a fold's test rows
        # meeting categories its training rows lack is the split's doing, not the user's
        for quiet in (TimeLimitWarning, ColumnWarning, UnseenCategoryWarning):
            warnings.simplefilter("ignore", quiet)
        if w_train is None:
            est.fit(X_train, y_train)
        else:
            est.fit(X_train, y_train, sample_weight=w_train)
        if est.status_ == "interrupted":  # Ctrl-C: the user stops the selection
            raise KeyboardInterrupt
        seconds = time.perf_counter() - started
        X_test, y_test, _ = _rows(X, y, None, test)
        score = float(scorer(est, X_test, y_test))
    return FoldFit(fold, est.depth, float(est.lam), score, int(est.tree_.n_leaves), seconds,
                   est.status_ not in FINISHED_STATUSES, heuristic=est.status_ == "heuristic")


def frame_of(X: Any) -> pd.DataFrame:
    """``X`` as the estimators see it at fit time (checked, string column names)."""
    df = check_frame(X)
    return df.set_axis([str(c) for c in df.columns], axis=1)
