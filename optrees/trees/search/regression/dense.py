"""Depth 2 over every threshold of a small subset, vectorized: for each root feature, every
root position at once, the best stump (or leaf) on each side from prefix sums.

For a root split at sorted position ``p`` of feature ``f``, a row is in the left child when
its rank in ``f``'s order is ``<= p``; masking the statistics of each feature's sorted rows
with that and summing cumulatively gives the left child's prefix sums along every feature,
and the right child's are the rest.  That is O(P F m) numbers per root feature (P root
positions), so it pays on small subsets, where the interval search's per-split overhead
dominates (:data:`DENSE_LIMIT`).
"""

from __future__ import annotations

import numpy as np

from .data import GAIN, RegressionData, Tree, first_within
from .stump import split_at, stump

DENSE_LIMIT = 40_000
"""The dense kernel solves a depth-2 subproblem when ``m * m * F`` is at most this (m rows,
F features); larger ones go to the interval search (measured on diabetes, 10 features: the
dense kernel was faster up to about 60 rows)."""

BLOCK = 1 << 19
"""Numbers per block of root positions (memory: a few times this in float64)."""


def depth2(data: RegressionData, order: np.ndarray, min_leaf: int) -> tuple[float, float, Tree]:
    """``(cost, free_cost, tree)`` of the best tree of depth <= 2 on the subset (as
    :meth:`~.search.RegressionSearch.solve`)."""
    cost, free, tree = stump(data, order, min_leaf)
    best = _best_root(data, order, min_leaf, cost)
    if best is not None:
        split, split_tree = split_at(data, order, *best, min_leaf)
        if split < cost - GAIN:
            cost, tree = split, split_tree
    if min_leaf > 1:
        free = depth2(data, order, 1)[0]
    else:
        free = cost
    return cost, free, tree


def _best_root(data: RegressionData, order: np.ndarray, min_leaf: int, incumbent: float
               ) -> tuple[int, int] | None:
    """The root split ``(feature, position)`` whose children's best stumps cost least, if
    below ``incumbent``."""
    F, m = order.shape
    A = data.stats[order]                               # (F, m, k+1)
    total = A[0].sum(axis=0)
    prefix = np.cumsum(A, axis=1)
    v = data.values(order)
    between = v[:, :-1] < v[:, 1:]                      # (F, m-1): a threshold exists
    best, where = incumbent, None
    step = max(1, BLOCK // (F * m * A.shape[2]))
    for f in range(F):
        positions = data.split_positions(order, f, min_leaf)
        if not len(positions):
            continue
        ranks = data.ranks(order, f)
        for start in range(0, len(positions), step):
            p = positions[start:start + step]
            in_left = ranks[None] <= p[:, None, None]   # (b, F, m)
            left = np.cumsum(np.where(in_left[..., None], A[None], 0.0), axis=2)
            left_total = left[:, 0, -1]                 # (b, k+1)
            right = prefix[None] - left
            cost = (_best_stump(data, left, left_total, between, min_leaf)
                    + _best_stump(data, right, total - left_total, between, min_leaf))
            k = first_within(cost)
            if cost[k] < best - GAIN:
                best, where = float(cost[k]), (f, int(p[k]))
    return where


def _best_stump(data: RegressionData, prefix: np.ndarray, total: np.ndarray,
                between: np.ndarray, min_leaf: int) -> np.ndarray:
    """``(b,)``: the best leaf or stump of each of ``b`` subsets, given their prefix sums
    ``(b, F, m, k+1)`` along every feature's order and their totals ``(b, k+1)``."""
    first = prefix[:, :, :-1]
    rest = total[:, None, None] - first
    cost = data.leaf_cost(first) + data.leaf_cost(rest) + 2 * data.penalty
    fits = between & (first[..., -1] >= min_leaf) & (rest[..., -1] >= min_leaf)
    split = np.where(fits, cost, np.inf).min(axis=(1, 2))
    return np.minimum(data.leaf_cost(total) + data.penalty, split)
