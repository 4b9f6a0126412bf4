"""The adversary's best response to a fixed tree: each row's cheapest misclassification and
the knapsack with unit values that spends one budget on the cheapest rows (see the package
docstring for the definition and its source)."""

from __future__ import annotations

import math

import numpy as np

from ..models.robust_tree import IntegerTree

TOL = 1e-9  # costs are sums of user floats: a sum equal to the budget fits


def box_distances(X: np.ndarray, costs: np.ndarray, lo: np.ndarray, hi: np.ndarray
                  ) -> np.ndarray:
    """``(n, L)``: what moving row ``i`` into box ``l`` costs, ``sum_f costs[i, f] *
    dist(X[i, f], [lo[l, f], hi[l, f]])``; inf for an empty box."""
    below = np.maximum(lo[None, :, :] - X[:, None, :], 0.0)
    above = np.maximum(X[:, None, :] - hi[None, :, :], 0.0)
    steps = below + above
    # a cost of inf with no step needed is no cost (inf * 0 would be nan)
    paid = np.multiply(np.broadcast_to(costs[:, None, :], steps.shape), steps,
                       out=np.zeros_like(steps), where=steps > 0)
    out = paid.sum(axis=2)
    out[:, (lo > hi).any(axis=1)] = math.inf
    return out


def misclassification_costs(dist: np.ndarray, labels: np.ndarray, y: np.ndarray
                            ) -> np.ndarray:
    """Cheapest move of each row into a leaf of another label: ``dist`` ``(n, L)``,
    ``labels`` the leaves' class indices, ``(L,)`` or a batch ``(B, L)``; ``y`` class indices.
    Returns ``(n,)`` or ``(B, n)``."""
    wrong = labels[..., None, :] != y[:, None]  # (B, n, L)
    return np.where(wrong, dist, math.inf).min(axis=-1)


def flips(c: np.ndarray, budget: float) -> np.ndarray:
    """Most rows the adversary can misclassify: ``max{k : sum of the k smallest c <= budget}``
    along the last axis."""
    s = np.sort(c, axis=-1)
    return (np.cumsum(s, axis=-1) <= budget + TOL).sum(axis=-1)


def worst_case_correct(tree: IntegerTree, X: np.ndarray, y: np.ndarray, costs: np.ndarray,
                       budget: float) -> int:
    """Rows of ``(X, y)`` (``y`` class indices) that ``tree`` classifies correctly after the
    worst perturbation within ``budget``."""
    leaves, lo, hi = tree.boxes()
    dist = box_distances(X.astype(np.float64), costs, lo, hi)
    c = misclassification_costs(dist, tree.label[leaves], y)
    return int(len(y) - flips(c, budget))


def costs_from_probabilities(q: np.ndarray, n: int, lam: float) -> tuple[np.ndarray, float]:
    """The paper's calibration (ODTlearn's RobustOCT notebook): ``q[..., f]`` the probability
    that a feature is not shifted, ``lam`` in (0, 1]; costs ``-log(1 - q)`` (inf where
    ``q == 1``) and budget ``-n log(lam)``."""
    q = np.asarray(q, dtype=np.float64)
    with np.errstate(divide="ignore"):
        costs = np.where(q >= 1.0, math.inf, -np.log1p(-np.minimum(q, 1.0)))
    return costs, float(-n * math.log(lam))
