"""RUX's answer when its LP (3) does not finish in time: the ensemble's own vote, scaled.

Every ``w >= 0`` is feasible in (3) (without fairness rows): the slacks ``v_i = max(0, 1 -
margin_i)`` complete it.  Weighing every leaf alike, ``w = alpha * 1``, is the ensemble's vote
of its leaves' majority classes (a forest's vote when each tree counts its leaves once), and
the ``alpha`` that minimises (3) along that ray is found exactly: (3) is convex and piecewise
linear in ``alpha``, with a kink where a row's margin reaches 1.  ``alpha = 0`` is the
majority class alone (every row in the slack), so the start's objective is never above the
majority class's; it is kept only when its weighted training error is not above the
majority class's either (else the majority class is returned).

With FairRUG's rows the scale is the best one whose slacks keep every row
(:mod:`.rux_fair`), checked on the slacks recomputed from the returned weights; the majority
class (every slack 1) keeps them all.  The vote is then also kept only when its realised
training gap (of its predictions) is within the cap or not above the majority class's: the
slacks only approximate errors, and on compas (DMC by race) a vote whose slacks met a cap of
0.01 had a realised gap of 0.36 where the majority class's is 0.

A lower bound on (3) comes with it, by weak duality: any ``beta`` in ``[0, w]`` (rows) scaled
by ``theta`` so that every rule's dual row ``sum_i ahat_ij beta_i <= lam c_j`` holds gives
``theta * sum(beta)``; ``beta`` is taken complementary to the start (``w_i`` on rows with
slack), which is optimal when the start is.  With fairness rows the same ``beta`` (and
zero duals on the fairness rows) is a dual solution of the larger LP: its rows only add to the
primal's, so the bound stays valid (and may be weaker).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from . import certificate
from .certificate import feasible_duals
from .costs import ahat
from .rux_fair import FairRows, fair_scales


@dataclass
class Start:
    """A feasible point of (3): rule ``weights``, per-row slacks ``v``, its ``objective``,
    a valid lower ``bound`` on (3), ``how`` it was made ("vote" or "majority"), and the
    per-row ``duals`` (a dual solution of (3)) the bound is the value of."""

    weights: np.ndarray
    v: np.ndarray
    objective: float
    bound: float
    how: str
    duals: np.ndarray


def margins(A: sp.csr_matrix, labels: np.ndarray, weights: np.ndarray, y: np.ndarray,
            K: int) -> tuple[np.ndarray, np.ndarray]:
    """(margin of (2) per row, class votes n x K) of rules ``weights`` of classes ``labels``
    covering rows as ``A`` (n x rules, 0/1)."""
    onehot = np.zeros((len(labels), K))
    onehot[np.arange(len(labels)), labels] = weights
    V = np.asarray(A @ onehot)
    own = V[np.arange(len(y)), y]
    return own - (V.sum(axis=1) - own) / (K - 1), V


def predictions(V: np.ndarray, default: int) -> np.ndarray:
    """Classes of class votes ``V`` as :class:`~optrees.models.rule_set.RuleSet` predicts
    (the heaviest vote, first on ties; no vote: ``default``)."""
    pred = np.argmax(V, axis=1)
    pred[V.sum(axis=1) <= 0] = default
    return pred


def training_error(V: np.ndarray, y: np.ndarray, w: np.ndarray, default: int) -> float:
    """Weighted training error of class votes ``V`` (:func:`predictions`)."""
    return float(w[predictions(V, default) != y].sum())


def best_scale(s: np.ndarray, w: np.ndarray, rule_cost: float) -> float:
    """The ``alpha >= 0`` minimising ``alpha * rule_cost + sum_i w_i max(0, 1 - alpha s_i)``
    (0 when no row gains from it): the first kink at which the slope turns non-negative."""
    up = s > 0
    if not up.any():
        return 0.0
    slope = rule_cost + float(w[s < 0] @ -s[s < 0]) - float(w[up] @ s[up])
    if slope >= 0:
        return 0.0
    kinks = 1.0 / s[up]
    order = np.argsort(kinks, kind="stable")
    # past kink k the rows of the first k kinks no longer lower the objective
    after = slope + np.cumsum((w[up] * s[up])[order])
    return float(kinks[order][np.argmax(after >= 0)]) if (after >= 0).any() else \
        float(kinks[order][-1])


FAIR_TRIES = 20
"""Scales of :func:`.rux_fair.fair_scales` checked from the definition, best first, before
the majority class is returned (each check: one product of the rules' cover and a pass over
the rows)."""


def dual_bound(A: sp.csr_matrix, labels: np.ndarray, c: np.ndarray, y: np.ndarray,
               beta: np.ndarray, K: int) -> float:
    """A lower bound on (3) (rule costs ``c`` = lam * c_j) from per-row duals ``beta``
    within their bounds: ``beta`` shrunk into every rule's dual row
    (:func:`.certificate.feasible_duals`), whose sum is then the value of a dual solution
    of (3)."""
    return max(0.0, float(dual_solution(A, labels, c, y, beta, K).sum()))


def dual_solution(A: sp.csr_matrix, labels: np.ndarray, c: np.ndarray, y: np.ndarray,
                  beta: np.ndarray, K: int) -> np.ndarray:
    """Per-row duals ``beta`` (in ``[0, w]``) shrunk into every dual row of the rules of
    classes ``labels`` covering rows as ``A`` (n x rules, 0/1)."""
    A = sp.coo_matrix(A)
    entries = ahat(y[A.row], np.asarray(labels)[A.col], K)
    rules = sp.csr_matrix((entries, (A.col, A.row)), shape=(A.shape[1], A.shape[0]))
    return feasible_duals(rules, c, beta, certificate.REPAIR_PASSES)


def vote_start(A: sp.csr_matrix, labels: np.ndarray, costs: np.ndarray, y: np.ndarray,
               w: np.ndarray, K: int, pen_par: float, default: int,
               fair: FairRows | None = None) -> Start:
    """The better of the majority class and the scaled vote of every rule as a point of
    (3) (with ``fair``'s rows: one whose slacks keep them), with its lower
    bound (see the module docstring)."""
    c = pen_par * np.asarray(costs, dtype=float)
    majority_error = float(w[y != default].sum())
    scales = np.zeros(0)
    if len(labels):
        s, V = margins(A, labels, np.ones(len(labels)), y, K)
        wrong = predictions(V, default) != y  # the same for every t > 0
        if float(w[wrong].sum()) <= majority_error and (
                fair is None or fair.realised(wrong) <= max(fair.epsilon,
                                                            fair.realised(y != default))):
            scales = np.array([best_scale(s, w, float(c.sum()))]) if fair is None else \
                fair_scales(s, w, float(c.sum()), fair)
    alpha, v = 0.0, np.ones(len(y))
    for t in scales[:FAIR_TRIES]:
        if t <= 0:
            break
        v_t = np.maximum(0.0, 1.0 - margins(A, labels, np.full(len(labels), t), y, K)[0])
        if fair is None or fair.holds(v_t):  # the rows, from the slacks of the weights
            alpha, v = float(t), v_t
            break
    weights = np.full(len(labels), alpha)
    objective = float(c @ weights + w @ v)
    duals = dual_solution(A, labels, c, y, np.where(v > 0, w, 0.0), K)
    bound = max(0.0, float(duals.sum()))
    return Start(weights, v, objective, min(bound, objective), "vote" if alpha > 0 else
                 "majority", duals)
