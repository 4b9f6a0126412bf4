"""Presorted numeric columns and the per-call view of a row subset.

Sorting is the only super-linear step of the numeric subtree solvers, so it is done once per
matrix (:class:`NumericData`) and every call on a subset of rows (the samples reaching one node
of a bigger tree) filters the presorted orders in ``O(n·p)`` instead of sorting again
(:meth:`NumericData.view`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

__all__ = ["NumericData", "SubsetView"]


def _dense_ranks(X: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``(p, n)`` rank of every value among its column's distinct values (equal values, equal
    rank), given each column's sorting permutation ``order`` (``(p, n)``)."""
    p, n = order.shape
    sorted_vals = np.take_along_axis(X.T, order, axis=1)
    step = np.zeros((p, n), dtype=np.int32)
    np.not_equal(sorted_vals[:, 1:], sorted_vals[:, :-1], out=step[:, 1:])
    ranks = np.empty((p, n), dtype=np.int32)
    np.put_along_axis(ranks, order, np.cumsum(step, axis=1, dtype=np.int32), axis=1)
    return ranks


class NumericData:
    """A float matrix with every column sorted once: ``order[f]`` and dense ``rank[f]``.

    Comparisons inside the solvers use the integer ranks (``x ≤ t`` ⇔ ``rank ≤ r``), so
    thresholds never fall between equal values and floating-point ties cannot mislead them.
    """

    def __init__(self, X: np.ndarray) -> None:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got shape {X.shape}")
        if not np.isfinite(X).all():
            raise ValueError("X must be finite (no NaN or inf)")
        self.X = np.ascontiguousarray(X)
        # every column sorted, on a column-major copy (each sorted row contiguous); not a
        # stable sort: the solvers compare ranks, so the order among equal values does not
        # matter, and the default sort is 4-5x faster (breast-cancer: 0.11 against 0.54 ms)
        self.order = np.argsort(np.ascontiguousarray(X.T), axis=1)
        self.order = self.order.astype(np.int32, copy=False)
        self.rank = _dense_ranks(self.X, self.order)

    @property
    def shape(self) -> tuple[int, int]:
        """``(n_samples, n_features)`` of the matrix."""
        return self.X.shape

    def view(self, rows: np.ndarray | None = None) -> SubsetView:
        """Local arrays for the selected rows (boolean mask or index array, ``None`` = all)."""
        n, p = self.X.shape
        if rows is None:
            idx = np.arange(n)
            order = self.order
            rank = self.rank
        else:
            mask = _as_mask(rows, n)
            idx = np.flatnonzero(mask)
            local = np.cumsum(mask, dtype=np.int32) - 1       # global row -> local row
            kept = self.order[mask[self.order]].reshape(p, len(idx))
            order = local[kept]
            rank = self.rank[:, idx]
        return SubsetView(rows=idx, X=self.X[idx], order=np.ascontiguousarray(order),
                          rank=np.ascontiguousarray(rank))


def _as_mask(rows: np.ndarray, n: int) -> np.ndarray:
    """A boolean mask over ``n`` rows from a mask or an index array (duplicates rejected)."""
    rows = np.asarray(rows)
    if rows.dtype == bool:
        if rows.shape != (n,):
            raise ValueError("a boolean rows mask needs one entry per sample")
        return rows
    if rows.size and not np.issubdtype(rows.dtype, np.integer):
        raise ValueError("rows must be an integer index array or a boolean mask")
    mask = np.zeros(n, dtype=bool)
    mask[rows] = True
    if mask.sum() != rows.size:
        raise ValueError("rows must not repeat an index (use sample weights instead)")
    return mask


@dataclass
class SubsetView:
    """The rows reaching one node: ``rows`` (global indices, increasing), their values ``X``,
    per-feature ``order`` (local indices sorted by value) and global dense ``rank``."""

    rows: np.ndarray
    X: np.ndarray
    order: np.ndarray
    rank: np.ndarray

    @property
    def n(self) -> int:
        """Number of selected rows."""
        return len(self.rows)

    @property
    def p(self) -> int:
        """Number of features."""
        return self.X.shape[1]

    @cached_property
    def sorted_rank(self) -> np.ndarray:
        """``(p, n)`` ranks in each feature's sorted order (``rank[f, order[f]]``), taken once
        per view: the numpy search filters it for every child it sweeps."""
        return np.take_along_axis(self.rank, self.order, axis=1)
