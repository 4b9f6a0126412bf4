"""Value ranks for scikit-learn's trees: a tree grown on each column's ranks splits the rows
as one grown on the values would in exact arithmetic, whatever the column's units.

scikit-learn's trees read float32 and never split two values closer than 1e-7, so a tree on
the raw values depends on units: a column in metres instead of millimetres, or seconds since
1970 (values 1.6e9 one apart, equal in float32), lost splits and changed what CART, OMT's
cuts, the binarizer's CART cuts and RUG's pricing trees gave.  Ranks (0, 1, ... per column,
exact in float32 below 2^24 distinct values) keep only the order; :meth:`Ranked.raw` puts a
rank threshold back on the values, halfway between the two distinct values it separates.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from .._numbers import clean_midpoints


def value_ranks(values: np.ndarray, positive: np.ndarray | None = None) -> np.ndarray:
    """Each value's rank among the distinct values of the rows flagged ``positive`` (all by
    default; a row of weight 0 takes the rank of the next value up, so it changes no other
    row's rank: a weight-0 row and a removed one give the same ranks)."""
    kept = values if positive is None else values[positive]
    return np.searchsorted(np.unique(kept), values).astype(np.int64)


class Ranked:
    """A finite float matrix as per-column value ranks (``ranks``, float32) and each
    column's sorted distinct values (``values[j]``), both over the rows flagged ``positive``
    (rows of positive weight; all by default)."""

    def __init__(self, X: np.ndarray, positive: np.ndarray | None = None) -> None:
        X = np.asarray(X, dtype=np.float64)
        positive = None if positive is None else np.asarray(positive, dtype=bool)
        self.values = [np.unique(col if positive is None else col[positive]) for col in X.T]
        self.ranks = np.zeros(X.shape, dtype=np.float32)
        for j, v in enumerate(self.values):
            self.ranks[:, j] = np.searchsorted(v, X[:, j])  # value_ranks, its unique kept

    def raw(self, column: int, thresholds: np.ndarray) -> np.ndarray:
        """Thresholds on column ``column``'s ranks (a tree's ``x <= t``) as thresholds on
        its values that split the training rows alike: the midpoint of the distinct values
        at ranks ``floor(t)`` and ``floor(t) + 1`` (:func:`~optrees._numbers.clean_midpoints`)."""
        v = self.values[column]
        if len(v) < 2:  # one value of positive weight: any threshold splits them alike
            return np.full(np.shape(thresholds), v[0] if len(v) else 0.0)
        r = np.clip(np.floor(np.asarray(thresholds, dtype=np.float64)).astype(np.int64), 0,
                    len(v) - 2)
        return clean_midpoints(v[r], v[r + 1])

    def tree(self, t: Any) -> SimpleNamespace:
        """A tree grown on ``ranks`` (scikit-learn's ``tree_`` layout) with its thresholds on
        the values (:meth:`raw`); ``children_left``, ``children_right``, ``feature`` and
        ``value`` as they are."""
        inner = np.asarray(t.children_left) != -1
        threshold = np.array(t.threshold, dtype=np.float64)
        for j in np.unique(np.asarray(t.feature)[inner]):
            at = inner & (np.asarray(t.feature) == j)
            threshold[at] = self.raw(int(j), threshold[at])
        return SimpleNamespace(children_left=t.children_left, children_right=t.children_right,
                               feature=t.feature, value=t.value, threshold=threshold)
