"""The one copy of RUG's rule algebra: the entries ``ahat_ij`` of (3), rule costs and the
reduced cost (5) that every pricer and the master use.

With the vector encoding [RUG] eq. (1) and kappa = (K-1)/K, ``ahat_ij = kappa * a_ij *
R_j(x_i)' y_i`` is 1 when rule j covers sample i and predicts its class, ``-1/(K-1)`` when it
covers i and predicts another class, 0 when it does not cover i.  The reduced cost [RUG]
eq. (5) of a rule is ``lam * c_j - sum_i beta_i ahat_ij``.
"""

from __future__ import annotations

import numpy as np


def ahat(y: np.ndarray, label: int | np.ndarray, n_classes: int) -> np.ndarray:
    """``ahat_ij`` of rules of class ``label`` on covered samples of classes ``y``: 1 if
    correct, ``-1/(K-1)`` if not (``label`` may be one class per entry)."""
    return np.where(y == label, 1.0, -1.0 / (n_classes - 1))


def gains(y: np.ndarray, beta: np.ndarray, n_classes: int) -> np.ndarray:
    """``beta_i * ahat_ik`` (n x K): what covering sample i with a rule of class k adds to
    ``sum_i beta_i ahat_ij``."""
    S = np.tile(-beta[:, None] / (n_classes - 1), (1, n_classes))
    S[np.arange(len(beta)), y] = beta
    return S


def class_scores(y: np.ndarray, beta: np.ndarray, n_classes: int) -> np.ndarray:
    """``sum_i beta_i ahat_ik`` over the given (covered) samples, for each class k."""
    w = np.bincount(y, weights=beta, minlength=n_classes)
    return w - (w.sum() - w) / (n_classes - 1)


def best_label(y: np.ndarray, beta: np.ndarray, n_classes: int) -> tuple[int, float]:
    """The class minimizing (5) for a rule covering these samples, and its score
    ``sum_i beta_i ahat_ik`` (the beta-weighted vote of the covered samples)."""
    score = class_scores(y, beta, n_classes)
    k = int(np.argmax(score))
    return k, float(score[k])


def reduced_cost(pen_par: float, cost: float | np.ndarray,
                 score: float | np.ndarray) -> float | np.ndarray:
    """[RUG] eq. (5): ``lam * c_j - sum_i beta_i ahat_ij`` (``score`` is the sum), for one
    rule or an array of rules."""
    return pen_par * cost - score


def rule_cost(length: int, length_cost: bool) -> float:
    """``c_j``: the rule length (at least 1) with ``length_cost``, else 1."""
    return float(max(1, length)) if length_cost else 1.0


RULE_COSTS = ("gini", "length", "unit")
"""RUX's ``c_j`` of a leaf: the Gini impurity ``1 - sum_k p_k^2`` of its (weighted) training
rows (ruleopt's RUX default), its number of conditions, or 1; divided by the largest cost, so
``pen_par`` weighs the costliest rule by ``pen_par``."""
GINI_FLOOR = 1e-8
"""Added to Gini costs (as ruleopt does), so a pure leaf is not free in (3)."""


def raw_leaf_costs(kind: str, mass: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The costs of :data:`RULE_COSTS` ``kind`` for leaves with class masses ``mass``
    (m x K) and ``lengths`` conditions, before RUX divides them by the largest."""
    if kind == "gini":
        p = mass / np.maximum(mass.sum(axis=1, keepdims=True), 1e-300)
        return 1.0 - (p ** 2).sum(axis=1) + GINI_FLOOR
    if kind == "length":
        return np.maximum(lengths, 1).astype(float)
    if kind == "unit":
        return np.ones(len(lengths))
    raise ValueError(f"rule_cost must be one of {RULE_COSTS}, got {kind!r}")
