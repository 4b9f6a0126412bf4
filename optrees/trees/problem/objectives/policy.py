"""Policy trees from observational data: a leaf recommends one treatment to all its rows, and
a tree maximises the teacher's estimated total outcome of its policy.

A *teacher* scores each row ``i`` and treatment ``k`` with ``Gamma[i, k]``, an estimate of the
outcome row ``i`` would have under ``k`` (the FlowOPT paper, Jo, Aghaei, Gomez & Vayanos,
"Learning optimal prescriptive trees from observational data", and pystreed's prescriptive
policy task use the same three):

- ``"ipw"`` (inverse propensity weighting): ``1[t_i = k] y_i / mu_i``;
- ``"dm"`` (direct method): ``yhat[i, k]``;
- ``"dr"`` (doubly robust): ``yhat[i, k] + 1[t_i = k] (y_i - yhat[i, k]) / mu_i``,

with ``t_i`` the treatment row ``i`` got, ``y_i`` its outcome, ``mu_i`` the propensity of
``t_i`` and ``yhat`` the outcome model's predictions.  A policy's value is
``sum_i w_i Gamma[i, policy(i)]``.

The engines solve it as weighted accuracy (:class:`PolicyScores.view`): with ``m_i = min_k
Gamma[i, k]``, row ``i`` becomes one pseudo-row per treatment ``k`` of label ``k`` and weight
``w_i (Gamma[i, k] - m_i) >= 0``, so a leaf predicting ``k`` scores ``sum_i w_i (Gamma[i, k] -
m_i)``: its value up to the constant ``sum_i w_i m_i``.  In the cost form the views take, the
cost of giving row ``i`` treatment ``k`` is its regret ``M_i - Gamma[i, k]`` (``M_i = max_k
Gamma[i, k]``), whose gains ``max_j cost - cost`` are exactly those weights.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from ...._validation import OptreesInputError, OptreesTimeLimitError
from .view import ClassificationView

TEACHERS = ("ipw", "dm", "dr")
"""The teachers: which of propensity and outcome predictions each reads is in
:data:`NEEDS`."""

NEEDS = {"ipw": (True, False), "dm": (False, True), "dr": (True, True)}
"""Teacher -> (needs the propensity, needs the outcome predictions)."""

PROPENSITY_FLOOR = 0.01
"""Least estimated propensity: a cross-fitted probability below it is raised to it, so one
row's ``1 / mu`` cannot outweigh the rest (given propensities are used as they are)."""


def teacher_scores(teacher: str, treatment: np.ndarray, outcome: np.ndarray,
                   n_treatments: int, propensity: np.ndarray | None = None,
                   predictions: np.ndarray | None = None) -> np.ndarray:
    """The ``n x K`` matrix ``Gamma`` of ``teacher`` (module docstring) for treatments
    ``0..K-1``; ``propensity``: of each row's own treatment, ``predictions``: ``n x K``."""
    n = len(treatment)
    own = np.zeros((n, n_treatments))
    own[np.arange(n), treatment] = 1.0
    if teacher == "ipw":
        return own * (outcome / propensity)[:, None]
    if teacher == "dm":
        return np.array(predictions, dtype=np.float64)
    if teacher == "dr":
        return predictions + own * ((outcome[:, None] - predictions) / propensity[:, None])
    raise OptreesInputError(f"teacher must be one of {list(TEACHERS)}, got {teacher!r}")


def cross_fit(features: np.ndarray, treatment: np.ndarray, outcome: np.ndarray,
              n_treatments: int, folds: int, propensity_model: Any | None,
              outcome_model: Any | None, random_state: Any = None,
              deadline: Any = None) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Cross-fitted estimates (each row predicted by models that did not see it; folds
    stratified by treatment): the propensity of each row's own treatment by a clone of
    ``propensity_model`` (None: not estimated), at least :data:`PROPENSITY_FLOOR`, and the
    ``n x K`` outcome predictions by one clone of ``outcome_model`` per treatment, fitted on
    that treatment's rows (None: not estimated).  ``deadline`` (a
    :class:`~optrees.solvers.deadline.Deadline`) is checked before each model's fit: once it
    has passed, :class:`~optrees._validation.OptreesTimeLimitError` (no tree can be scored
    without the estimates, so there is no model to return)."""
    counts = np.bincount(treatment, minlength=n_treatments)
    if counts.min() < folds:
        k = int(np.argmin(counts))
        raise OptreesInputError(
            f"treatment {k} has {counts[k]} rows, fewer than the {folds} folds that estimate "
            "the propensity / outcome models: pass propensity and outcome_predictions, or "
            "lower cv")
    n = len(treatment)
    mu = None if propensity_model is None else np.empty(n)
    yhat = None if outcome_model is None else np.empty((n, n_treatments))
    split = StratifiedKFold(folds, shuffle=True, random_state=random_state)
    total = folds * ((mu is not None) + (0 if yhat is None else n_treatments))
    done = 0

    def in_time() -> None:
        if deadline is not None and deadline.expired():
            raise OptreesTimeLimitError(
                f"time_limit ran out while cross-fitting the propensity / outcome models "
                f"({done} of {total} model fits done): raise time_limit, lower cv, or pass "
                f"propensity and outcome_predictions")

    for train, test in split.split(features, treatment):
        if mu is not None:
            in_time()
            done += 1
            model = clone(propensity_model).fit(features[train], treatment[train])
            proba = model.predict_proba(features[test])
            column = {int(c): j for j, c in enumerate(model.classes_)}
            mu[test] = proba[np.arange(len(test)),
                             [column[int(t)] for t in treatment[test]]]
        if yhat is not None:
            for k in range(n_treatments):
                rows = train[treatment[train] == k]
                in_time()
                done += 1
                model = clone(outcome_model).fit(features[rows], outcome[rows])
                yhat[test, k] = model.predict(features[test])
    if mu is not None:
        mu = np.maximum(mu, PROPENSITY_FLOOR)
    return mu, yhat


class PolicyScores:
    """A policy objective on the rows of the ``n x K`` teacher matrix ``gamma`` (the rows the
    engines see, in their order).  In the cost form the views take (:func:`~optrees.trees.
    solve.views.solve_costs`), treatment ``k`` costs row ``i`` its regret ``max_j gamma[i, j]
    - gamma[i, k]``; :meth:`value` is the policy's value."""

    name = "policy"

    def __init__(self, gamma: np.ndarray) -> None:
        gamma = np.asarray(gamma, dtype=np.float64)
        if gamma.ndim != 2 or gamma.shape[1] < 2 or not np.isfinite(gamma).all():
            raise OptreesInputError("the teacher's scores must be a finite n x K matrix with "
                                    f"K >= 2 treatments, got shape {gamma.shape}")
        self.gamma = gamma
        self.top = gamma.max(axis=1)

    def value(self, predicted: np.ndarray, w: np.ndarray | None) -> float:
        """``sum_i w_i gamma[i, predicted_i]``: the teacher's estimated total outcome."""
        v = self.gamma[np.arange(len(self.gamma)), predicted]
        return float(v.sum() if w is None else v @ w)

    def oracle(self, w: np.ndarray | None) -> float:
        """``sum_i w_i max_k gamma[i, k]``: the value of giving every row its best treatment
        (the cost form's zero: value = oracle - total cost)."""
        return float(self.top.sum() if w is None else self.top @ w)

    def total(self, y: np.ndarray, predicted: np.ndarray, w: np.ndarray | None) -> float:
        """Total regret of treatments ``predicted`` (``y``, the historic treatments, is not
        read: a row's scores are its own)."""
        return self.oracle(w) - self.value(predicted, w)

    def view(self, y: np.ndarray, w: np.ndarray | None) -> ClassificationView:
        """The pseudo-rows (module docstring): per row, its treatments of positive gain
        ``gamma[i, k] - min_j gamma[i, j]`` first, zero-gain ones filling up to the same
        number ``copies`` per row (at most K - 1: the row's worst treatment gains 0).  No
        per-class gain matrix exists (gains are per row), so the 0/1 search runs on the
        pseudo-rows as plain weighted accuracy (``y``, ``best`` and ``unit_gains`` None)."""
        n = len(self.gamma)
        w = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
        gains = self.gamma - self.gamma.min(axis=1, keepdims=True)
        positive = gains > 0
        copies = max(1, int(positive.sum(axis=1).max()))
        labels = np.argsort(~positive, axis=1, kind="stable")[:, :copies]
        rows = np.repeat(np.arange(n), copies)
        labels = labels.ravel().astype(np.int64)
        weights = w[rows] * gains[rows, labels]
        return ClassificationView(rows, labels, weights, copies, float(w @ gains.max(axis=1)))
