"""Squared error: a leaf predicts its rows' weighted mean and costs their weighted sum of
squared deviations from it.

An objective with *additive sufficient statistics*: each row contributes a vector
``s_i = (w, w y, w y^2)``, and a leaf's cost is a function of the summed vector alone,
``SSE = S_wy2 - S_wy^2 / S_w``.  A search over a sorted column therefore gets the cost of
every split in O(1) from prefix sums of the statistics
(:mod:`optrees.trees.search.regression`), for this or any objective of the same shape.
It has no classification view (the cost is not linear in class weights).
"""

from __future__ import annotations

import numpy as np


class SquaredError:
    """Weighted sum of squared errors; the cheapest prediction of a leaf is its mean.

    The search reads ``n_stats``, :meth:`row_stats`, :meth:`leaf_cost` (on floats:
    :meth:`leaf_cost_kernel`) and :meth:`prediction`; :meth:`lower_bound` is a cost no
    tree over given features can beat.
    """

    name = "squared_error"
    n_stats = 3

    @classmethod
    def from_spec(cls, spec: object = None, classes: object = None) -> SquaredError:
        """The objective (it has no options)."""
        return cls()

    @staticmethod
    def row_stats(y: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
        """``(n, 3)`` array of each row's ``(w, w y, w y^2)`` (``w`` None: every row 1)."""
        y = np.asarray(y, dtype=np.float64)
        w = np.ones_like(y) if w is None else np.asarray(w, dtype=np.float64)
        return np.stack([w, w * y, w * y * y], axis=-1)

    @staticmethod
    def leaf_cost(S: np.ndarray) -> np.ndarray:
        """SSE of leaves with summed statistics ``S[..., :3]`` (0 for an empty leaf), clipped
        at 0 against rounding (the difference of two sums cancels when the mean is large:
        centre y first)."""
        S = np.asarray(S, dtype=np.float64)
        w, wy = S[..., 0], S[..., 1]
        explained = np.divide(wy * wy, w, out=np.zeros(w.shape), where=w > 0)
        return np.maximum(S[..., 2] - explained, 0.0)

    @staticmethod
    def leaf_cost_kernel(w: float, wy: float, wy2: float) -> float:
        """:meth:`leaf_cost` of one leaf, on floats, for the compiled searches (whose own
        copy, compiled and cached with them, is the same function:
        :mod:`optrees.trees.search.regression.kernels`)."""
        if w <= 0.0:
            return 0.0
        value = wy2 - wy * wy / w
        return value if value > 0.0 else 0.0

    @staticmethod
    def prediction(S: np.ndarray) -> np.ndarray:
        """The weighted mean of leaves with statistics ``S`` (0 for an empty leaf)."""
        S = np.asarray(S, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(S[..., 0] > 0, S[..., 1] / S[..., 0], 0.0)

    def lower_bound(self, X: np.ndarray, y: np.ndarray, w: np.ndarray | None = None
                    ) -> float:
        """The equivalent-points bound: rows with identical features reach the same leaf of
        every tree, so each leaf costs at least the SSE within its groups of identical rows,
        and any tree at least the sum of those (without leaf penalties)."""
        X = np.asarray(X)
        if len(X) == 0:
            return 0.0
        group = identical_rows(X)
        stats = self.row_stats(y, w)
        sums = np.stack([np.bincount(group, weights=column) for column in stats.T], axis=-1)
        return float(self.leaf_cost(sums).sum())

    def total(self, y: np.ndarray, predicted: np.ndarray, w: np.ndarray | None = None
              ) -> float:
        """Weighted sum of squared errors of ``predicted`` for targets ``y``."""
        err = (np.asarray(y, dtype=np.float64) - np.asarray(predicted, dtype=np.float64)) ** 2
        return float(err.sum() if w is None else err @ np.asarray(w, dtype=np.float64))


def identical_rows(X: np.ndarray) -> np.ndarray:
    """A group number per row, equal for identical rows of ``X`` (Boolean columns are packed
    eight to a byte first: a lexicographic sort of few byte columns, 20-70x faster than
    ``np.unique(axis=0)`` on 0/1 floats)."""
    X = np.asarray(X)
    if X.dtype == bool:
        X = np.packbits(X, axis=1)
    if X.shape[1] == 0:
        return np.zeros(len(X), dtype=np.int64)
    order = np.lexsort(X.T[::-1])
    ranked = X[order]
    new = np.empty(len(X), dtype=bool)
    new[0] = True
    np.any(ranked[1:] != ranked[:-1], axis=1, out=new[1:])
    group = np.empty(len(X), dtype=np.int64)
    group[order] = np.cumsum(new) - 1
    return group
