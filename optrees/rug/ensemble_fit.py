"""The ensemble RUX fits itself: a named one (``"random_forest"``, ...) or an unfitted model
(scikit-learn's ``clone`` hands RUX one in ``cross_val_score`` and ``GridSearchCV``), fitted
on RUG's raw-column matrix (numeric columns as they are, categoricals one-hot), and its
leaves' tests read back as tests on the raw columns (a one-hot test is ``colour == red`` or
``colour != red``)."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from sklearn.base import clone

from .._validation import OptreesInputError
from ..encoding.common import COMPARE
from ..models.rule_set import Literal, simplify_literals
from ..solvers.deadline import Deadline

NAMED = ("random_forest", "extra_trees", "gradient_boosting", "lightgbm", "xgboost")
"""The ensembles RUX builds by name, with its ``n_estimators`` and ``max_depth``."""


def is_fitted(estimator: Any) -> bool:
    """Whether a model (scikit-learn, LightGBM, XGBoost) has been fitted."""
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    try:
        check_is_fitted(estimator)
    except NotFittedError:
        return False
    except TypeError:  # not an estimator: ensemble_trees names the problem
        return True
    return True


def new_ensemble(estimator: Any, n_estimators: int, max_depth: int, seed: int | None) -> Any:
    """An unfitted ensemble: the named one, or a clone of the unfitted ``estimator``."""
    if not isinstance(estimator, str):
        return clone(estimator)
    common = {"n_estimators": n_estimators, "max_depth": max_depth, "random_state": seed}
    if estimator in ("random_forest", "extra_trees", "gradient_boosting"):
        from sklearn import ensemble

        cls = {"random_forest": ensemble.RandomForestClassifier,
               "extra_trees": ensemble.ExtraTreesClassifier,
               "gradient_boosting": ensemble.GradientBoostingClassifier}[estimator]
        return cls(**common)
    package = {"lightgbm": "lightgbm", "xgboost": "xgboost"}[estimator]
    try:
        module = __import__(package)
    except ImportError:
        raise OptreesInputError(f"estimator={estimator!r} needs the {package} package: "
                                f"pip install {package}") from None
    if package == "lightgbm":
        return module.LGBMClassifier(**common, verbose=-1)
    return module.XGBClassifier(**common)


FOREST_CHUNKS = 10
"""A time-limited random or extra-trees forest is grown in this many chunks of trees, the
deadline asked between them."""


def fit_ensemble(ensemble: Any, matrix: np.ndarray, y: np.ndarray,
                 weights: np.ndarray | None, deadline: Deadline | None = None) -> Any:
    """``ensemble`` fitted on the encoded rows (classes as 0..K-1, as XGBoost wants).  With a
    limited ``deadline``, scikit-learn's forests and gradient boosting stop adding trees
    once it has passed or the next chunk would pass it, LightGBM and XGBoost once it has
    passed (at least one chunk or iteration is kept; the trees kept are the first ones the
    untimed fit grows); other ensembles fit whole."""
    from sklearn import ensemble as sk

    forest = isinstance(ensemble, (sk.RandomForestClassifier, sk.ExtraTreesClassifier))
    boosting = isinstance(ensemble, sk.GradientBoostingClassifier)
    try:
        if deadline is None or not deadline.limited:
            return ensemble.fit(matrix, y, sample_weight=weights)
        if forest:
            return _grow_forest(ensemble, matrix, y, weights, deadline)
        if boosting:
            # monitor(i, ...) True stops boosting after stage i (stages 0..i kept)
            return ensemble.fit(matrix, y, sample_weight=weights,
                                monitor=lambda i, est, local: deadline.expired())
        package = type(ensemble).__module__.split(".")[0]
        if package == "lightgbm":
            return ensemble.fit(matrix, y, sample_weight=weights,
                                callbacks=[_lightgbm_stop(deadline)])
        if package == "xgboost":
            return _xgboost_fit(ensemble, matrix, y, weights, deadline)
        return ensemble.fit(matrix, y, sample_weight=weights)
    except (TypeError, ValueError) as exc:
        raise OptreesInputError(f"fitting the {type(ensemble).__name__} failed: {exc}") \
            from None


def _lightgbm_stop(deadline: Deadline) -> Any:
    """A LightGBM callback ending boosting once ``deadline`` has passed, keeping every
    iteration done (its "best iteration" is the last, so all of them are dumped and used)."""
    import lightgbm

    def stop(env: Any) -> None:
        if deadline.expired():
            raise lightgbm.callback.EarlyStopException(env.iteration,
                                                       env.evaluation_result_list or [])

    return stop


def _xgboost_fit(model: Any, matrix: np.ndarray, y: np.ndarray, weights: np.ndarray | None,
                 deadline: Deadline) -> Any:
    """An XGBoost fit whose boosting ends once ``deadline`` has passed (a training callback
    added to the model's own for this fit)."""
    import xgboost

    class Stop(xgboost.callback.TrainingCallback):
        def after_iteration(self, booster: Any, epoch: int, evals_log: Any) -> bool:
            return deadline.expired()

    own = model.get_params().get("callbacks")
    model.set_params(callbacks=[*(own or []), Stop()])
    try:
        return model.fit(matrix, y, sample_weight=weights)
    finally:
        model.set_params(callbacks=own)


def _grow_forest(forest: Any, matrix: np.ndarray, y: np.ndarray,
                 weights: np.ndarray | None, deadline: Deadline) -> Any:
    """The forest grown by warm starts, one tree first, then a chunk of trees at a time
    while the next chunk (timed per tree as the last one) fits before ``deadline``
    (scikit-learn draws the seeds of the trees of a warm start as the one-shot fit does, so
    the trees are its first ones).  The first tree alone: a first chunk of 30 trees took
    0.7 s on 20,000 rows with ``time_limit=0.01``."""
    total, warm = forest.n_estimators, forest.warm_start
    step = max(1, -(-total // FOREST_CHUNKS))
    grown = 0
    forest.set_params(warm_start=True)
    try:
        while grown < total:
            t0 = time.perf_counter()
            added = min(total, grown + (1 if grown == 0 else step)) - grown
            grown += added
            forest.set_params(n_estimators=grown).fit(matrix, y, sample_weight=weights)
            per_tree = (time.perf_counter() - t0) / added
            if deadline.remaining() < per_tree * min(step, total - grown):
                break
    finally:
        forest.set_params(warm_start=warm)
    return forest


def encoded_names(encoded: list[tuple[str, str, object]]) -> list[str]:
    """A name per column of the raw-column matrix (``colour=red`` for a one-hot column)."""
    return [name if kind == "num" else f"{name}={value}" for name, kind, value in encoded]


def raw_literals(literals: tuple[Literal, ...], encoded: list[tuple[str, str, object]],
                 raw_names: list[str]) -> tuple[Literal, ...]:
    """A leaf's tests on matrix columns as tests on the raw columns: a one-hot column's test
    keeps the rows whose 0/1 value passes it (``== value`` for 1 only, ``!= value`` for 0
    only; a test both pass says nothing and is dropped)."""
    by_name = dict(zip(encoded_names(encoded), encoded, strict=True))
    out = []
    for lit in literals:
        column, kind, value = by_name[lit.feature]
        if kind == "num":
            out.append(Literal(column, lit.op, lit.value))
            continue
        zero, one = (bool(COMPARE[lit.op](v, lit.value)) for v in (0.0, 1.0))
        if one and not zero:
            out.append(Literal(column, "==", value))
        elif zero and not one:
            out.append(Literal(column, "!=", value))
    return simplify_literals(out, raw_names)
