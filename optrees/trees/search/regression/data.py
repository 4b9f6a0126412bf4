"""The rows of a regression search: features, per-row statistics, and row subsets kept
sorted by every feature, so that any split's children are costed from prefix sums.

A subset is its ``order``: an ``(F, m)`` array whose row ``g`` lists the subset's rows by
increasing value of feature ``g`` (ties by row index).  The children of a split on feature
``f`` at sorted position ``p`` are the rows whose rank in ``order[f]`` is ``<= p`` and the
others; filtering every row of ``order`` by that mask keeps each one sorted, in O(F m).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...._numbers import clean_midpoints

GAIN = 1e-12
"""A tree with more leaves replaces a smaller one only when it is cheaper by more than this
(costs are about 1 for a normalised objective): equal-cost trees differing by rounding do
not decide, and of two equal trees the one with fewer splits is kept."""

Tree = tuple | None
"""A tree as nested tuples: ``None`` is a leaf, ``(feature, threshold, left, right)`` a
test ``x[feature] <= threshold`` (true: left)."""


@dataclass
class RegressionData:
    """``X`` (n x F floats), ``stats`` (n x k additive row statistics of the objective,
    with a last column of ones appended here: the row count), ``cost`` (summed statistics
    ``(..., k)`` -> leaf cost, vectorized), ``penalty`` (cost per leaf), ``min_leaf``
    (fewest rows per leaf), ``kernel`` (the compiled kernels of this objective,
    :func:`.kernels.for_objective`; None: numpy only), ``segments`` (summed statistics of
    rows, most leaves ``k`` -> ``(k,)`` least cost of the rows in at most 1..k leaves over
    any partition, a bound the search prunes with, or None; squared error:
    :func:`.segments.segment_costs`), ``memo`` (row subset -> its compiled depth-2
    answer, :mod:`.depth2_front`: the same dict may serve several searches over the same
    ``X`` and ``stats``, e.g. every ``penalty`` of a λ-path), ``fronts`` (whether those
    answers are fronts of every leaf count, for such searches; False: one ``penalty``'s
    optimum, :func:`.depth2_front.depth2_single`)."""

    X: np.ndarray
    stats: np.ndarray
    cost: Callable[[np.ndarray], np.ndarray]
    penalty: float = 0.0
    min_leaf: int = 1
    kernel: object | None = None
    segments: Callable[[np.ndarray, int], np.ndarray | None] | None = None
    memo: dict | None = None
    fronts: bool = False

    def __post_init__(self) -> None:
        self.X = np.ascontiguousarray(self.X, dtype=np.float64)
        stats = np.asarray(self.stats, dtype=np.float64)
        self.stats = np.hstack([stats, np.ones((len(stats), 1))])  # + the row count
        self.n, self.F = self.X.shape
        self._rank = np.empty(self.n, dtype=np.int64)  # scratch for ranks of one feature
        if self.memo is None:
            self.memo = {}

    def root(self) -> np.ndarray:
        """The order of all rows (a stable sort of each column)."""
        return np.argsort(self.X, axis=0, kind="stable").T.copy()

    def leaf_cost(self, S: np.ndarray) -> np.ndarray:
        """Cost of leaves with summed statistics ``S`` (the count column ignored)."""
        return self.cost(S[..., :-1])

    def values(self, order: np.ndarray) -> np.ndarray:
        """``(F, m)`` feature values of the subset, each row sorted."""
        return self.X[order, np.arange(self.F)[:, None]]

    def ranks(self, order: np.ndarray, f: int) -> np.ndarray:
        """``(F, m)``: the rank in ``order[f]`` of each entry of ``order``."""
        self._rank[order[f]] = np.arange(order.shape[1])
        return self._rank[order]

    def split_positions(self, order: np.ndarray, f: int, min_leaf: int) -> np.ndarray:
        """Positions ``p`` of ``order[f]`` where a threshold separates the first ``p + 1``
        rows from the rest, each side holding at least ``min_leaf`` rows."""
        v = self.X[order[f], f]
        m = len(v)
        p = np.flatnonzero(v[:-1] < v[1:])
        return p[(p + 1 >= min_leaf) & (m - p - 1 >= min_leaf)]

    def threshold(self, order: np.ndarray, f: int, p: int) -> float:
        """The threshold between sorted positions ``p`` and ``p + 1`` of feature ``f``."""
        return midpoint(float(self.X[order[f, p], f]), float(self.X[order[f, p + 1], f]))


def children(order: np.ndarray, ranks: np.ndarray, p: int) -> tuple[np.ndarray, np.ndarray]:
    """The orders of the two children of a split at position ``p`` (``ranks``: of the split
    feature, from :meth:`RegressionData.ranks`)."""
    F, m = order.shape
    left = ranks <= p
    return order[left].reshape(F, p + 1), order[~left].reshape(F, m - p - 1)


def first_within(cost: np.ndarray) -> int:
    """Flat index of the first entry within :data:`GAIN` of the least: ties are broken by
    position (feature, then threshold), not by rounding, so that repeated rows and integer
    weights pick the same split."""
    return int(np.argmax(cost.ravel() <= cost.min() + GAIN))


@lru_cache(maxsize=1 << 16)
def midpoint(lo: float, hi: float) -> float:
    """A threshold with ``lo <= t < hi`` that prints short and exact
    (:func:`optrees._numbers.clean_midpoints`); cached: a search asks for the same pairs of
    neighbouring values again and again (each costs about 50 µs of numpy)."""
    return float(clean_midpoints(lo, hi))
