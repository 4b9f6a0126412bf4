"""Depth 1 over every threshold: the best leaf or single split of a row subset, every
feature and position at once from prefix sums of the row statistics (O(F m))."""

from __future__ import annotations

import numpy as np

from ....solvers.deadline import Deadline, check_deadline
from .data import GAIN, RegressionData, Tree, children, first_within

STUMP_CELLS = 1_000_000
"""With a deadline, a stump's prefix sums are taken for blocks of features of at most this
many ``features * rows`` (the deadline checked between blocks)."""


def stump(data: RegressionData, order: np.ndarray, min_leaf: int,
          deadline: Deadline | None = None) -> tuple[float, float, Tree]:
    """``(cost, free_cost, tree)``: the cheapest tree of depth <= 1 on the subset
    ``order`` with at least ``min_leaf`` rows per leaf, and the cheapest one with no leaf
    size limit (a lower bound used when rows move between children; equal for
    ``min_leaf == 1``).  Costs include ``data.penalty`` per leaf.  ``deadline`` (None:
    none) raises :class:`TimeUp` between blocks of :data:`STUMP_CELLS`."""
    F, m = order.shape
    total = data.stats[order[0]].sum(axis=0)
    leaf = float(data.leaf_cost(total)) + data.penalty
    if m < 2:
        return leaf, leaf, None
    step = F if deadline is None else max(1, STUMP_CELLS // m)
    blocks = []
    for lo in range(0, F, step):
        check_deadline(deadline)
        part = order[lo:lo + step]
        left = np.cumsum(data.stats[part], axis=1)[:, :-1]  # stats of the first p + 1 rows
        cost = data.leaf_cost(left) + data.leaf_cost(total - left) + 2 * data.penalty
        v = data.X[part, np.arange(lo, lo + len(part))[:, None]]
        free = v[:, :-1] < v[:, 1:]                # a threshold lies between p and p + 1
        blocks.append(np.where(free, cost, np.inf))
    cost = blocks[0] if len(blocks) == 1 else np.concatenate(blocks)
    free_cost = min(leaf, float(cost.min()))
    if min_leaf > 1:
        p = np.arange(1, m)
        cost = np.where((p >= min_leaf) & (m - p >= min_leaf), cost, np.inf)
    best = first_within(cost)
    f, p = divmod(best, m - 1)
    if not cost[f, p] < leaf - GAIN:
        return leaf, free_cost, None
    return float(cost[f, p]), free_cost, (f, data.threshold(order, f, p), None, None)


def split_at(data: RegressionData, order: np.ndarray, f: int, p: int, min_leaf: int
             ) -> tuple[float, Tree]:
    """``(cost, tree)`` of the root split of feature ``f`` after sorted position ``p`` with
    the best stump (or leaf) on each side: the tree a depth-2 search chose the root for."""
    left, right = children(order, data.ranks(order, f), p)
    cl, _, tl = stump(data, left, min_leaf)
    cr, _, tr = stump(data, right, min_leaf)
    return cl + cr, (f, data.threshold(order, f, p), tl, tr)
