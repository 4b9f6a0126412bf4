"""Depth 2 over every threshold as a front: the least cost (without penalties) of a tree of
depth <= 2 with at most 1, 2, 3 and 4 leaves on a row subset, with ``min_leaf`` and
without, from one compiled interval search per root feature (:func:`.kernels._front_block`).

For ``k`` leaves the penalty ``lam * k`` is the same for every tree, so each leaf count's
best tree does not depend on ``lam``: a penalty's optimum, ``min_k front[k] + lam k``, and a
leaf budget's, ``front[budget]``, are read off the front.  One scan thus serves every ``lam``
of a λ-path (:mod:`~optrees.trees.solve.regression_path`) and every division of a budget
between children; the fronts are kept per row subset in ``data.memo``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from ....solvers.deadline import Deadline
from .data import GAIN, RegressionData, Tree, children
from .kernels import depth2_bounded, feature_blocks

T = TypeVar("T")

MEMO_ENTRIES = 200_000
"""Most fronts kept per ``data.memo`` (each a few hundred bytes with its trees); past it
new ones are computed and not kept."""


@dataclass(frozen=True)
class Depth2Front:
    """``limited[k]``: the least cost of a tree with at most ``k + 1`` leaves and
    ``min_leaf`` rows per leaf (``trees[k]`` one, of the fewest leaves within
    :data:`~.data.GAIN`); ``free[k]``: the same without the leaf size limit, a lower bound
    for supersets of the subset."""

    limited: np.ndarray
    free: np.ndarray
    trees: tuple[Tree, Tree, Tree, Tree]

    def at(self, penalty: float, budget: int | None = None) -> tuple[float, float, Tree]:
        """``(cost, free_cost, tree)`` as :meth:`~.search.RegressionSearch.solve` answers:
        with ``penalty`` per leaf and at most ``budget`` leaves (None: 4); the free cost is
        without the leaf size limit and the budget."""
        cap = 4 if budget is None else min(budget, 4)
        best, k_best = float(self.limited[0]) + penalty, 0
        for k in range(1, cap):
            cost = float(self.limited[k]) + penalty * (k + 1)
            if cost < best - GAIN:
                best, k_best = cost, k
        free = float(np.min(self.free + penalty * np.arange(1, 5)))
        return best, min(free, best), self.trees[k_best]


def depth2_front(data: RegressionData, order: np.ndarray, min_leaf: int,
                 deadline: Deadline | None = None) -> Depth2Front:
    """The front of the subset ``order`` (compiled kernels ``data.kernel``), from
    ``data.memo`` when computed before.  ``deadline`` is checked between blocks of root
    features (:func:`~.kernels.feature_blocks`)."""
    return _memoised(data.memo, (subset_key(order), min_leaf),
                     lambda: _compute(data, order, min_leaf, deadline))


def subset_key(order: np.ndarray) -> bytes:
    """A 128-bit hash of the subset's rows (its order by the first feature): the memo's
    key."""
    return hashlib.blake2b(order[0].tobytes(), digest_size=16).digest()


def depth2_single(data: RegressionData, order: np.ndarray, min_leaf: int,
                  deadline: Deadline | None = None) -> tuple[float, float, Tree]:
    """:func:`~.kernels.depth2_bounded` (one penalty's optimum), kept in ``data.memo``
    under the penalty too: at depth 4 the same depth-2 subset is met along several paths
    (split on ``f`` then ``g``, or ``g`` then ``f``)."""
    return _memoised(data.memo, (subset_key(order), min_leaf, data.penalty),
                     lambda: depth2_bounded(data, order, min_leaf, deadline))


def _memoised(memo: dict, key: tuple, compute: Callable[[], T]) -> T:
    """``memo[key]``, computed and kept (while the memo holds fewer than
    :data:`MEMO_ENTRIES`) when missing."""
    if key in memo:
        return memo[key]
    value = compute()
    if len(memo) < MEMO_ENTRIES:
        memo[key] = value
    return value


def _compute(data: RegressionData, order: np.ndarray, min_leaf: int,
             deadline: Deadline | None) -> Depth2Front:
    kernel = data.kernel
    leaf = float(data.leaf_cost(data.stats[order[0]].sum(axis=0)))
    two, two_free, g, q = kernel._stump(data.X, data.stats, order, min_leaf, 0.0, GAIN)
    stump = None if g < 0 else (g, data.threshold(order, g, q), None, None)
    # [3 leaves: cost, f, p, left splits; 4 leaves: cost, f, p; free 3, free 4]
    best = np.array([np.inf, -1, -1, 0, np.inf, -1, -1, np.inf, np.inf])
    for f0, f1 in feature_blocks(order, deadline):
        kernel._front_block(data.X, data.stats, order, data._rank, f0, f1,
                            min_leaf, GAIN, best)
    limited, trees = [leaf, two], [None, stump]
    for cost, where, both in ((best[0], best[1:4], False), (best[4], best[5:7], True)):
        if cost < limited[-1] - GAIN:
            limited.append(float(cost))
            f, p = int(where[0]), int(where[1])
            trees.append(_tree(data, order, min_leaf, f, p, both or where[2] > 0, both))
        else:
            limited.append(limited[-1])
            trees.append(trees[-1])
    frees = np.minimum.accumulate([leaf, two_free, best[7], best[8]])
    return Depth2Front(np.array(limited), np.minimum(frees, limited), tuple(trees))


def _tree(data: RegressionData, order: np.ndarray, min_leaf: int, f: int, p: int,
          left_splits: bool, both: bool) -> Tree:
    """The root split of feature ``f`` after sorted position ``p`` with the best stump on
    both sides (``both``), or on the left side only (``left_splits``) or the right."""
    left, right = children(order, data.ranks(order, f), p)
    sides = [_stump_tree(data, left, min_leaf) if both or left_splits else None,
             _stump_tree(data, right, min_leaf) if both or not left_splits else None]
    return (f, data.threshold(order, f, p), *sides)


def _stump_tree(data: RegressionData, order: np.ndarray, min_leaf: int) -> Tree:
    _, _, g, q = data.kernel._stump(data.X, data.stats, order, min_leaf, 0.0, GAIN)
    return None if g < 0 else (g, data.threshold(order, g, q), None, None)
