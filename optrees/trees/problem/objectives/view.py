"""The weighted-classification rows an objective is solved on, and the way back to its units.

A leaf of weighted classification scores ``max_k W_k`` (``W_k``: weight of its rows of class
``k``).  An objective whose leaf cost is ``min_k sum_c W_c C[c, k]`` equals, up to a constant
per row, the score ``max_k sum_c W_c G[c, k]`` with gains ``G[c, k] = max_j C[c, j] - C[c, k]
>= 0``; giving each row of class ``c`` one pseudo-row of label ``k`` and weight ``w G[c, k]``
per class ``k`` makes that score weighted accuracy.  Pseudo-rows of one row share its features,
so they reach the same leaf in every tree; each row gets the same number of them (``copies``,
zero-weight ones fill up), so a leaf of ``m`` rows has ``copies * m`` pseudo-rows and a leaf
size constraint scales exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ClassificationView:
    """``rows`` (index of the original row of each pseudo-row, ``copies`` per row, in order),
    ``labels`` and ``weights`` of the pseudo-rows; ``offset`` = sum over rows of ``w *
    max_j C[y, j]``, so that a tree's total cost is ``offset`` minus its correctly classified
    pseudo-weight."""

    rows: np.ndarray
    labels: np.ndarray
    weights: np.ndarray
    copies: int
    offset: float
    y: np.ndarray | None = None
    best: np.ndarray | None = None
    unit_gains: np.ndarray | None = None
    """The same objective on the original rows, for an engine that takes gains (the 0/1
    subtree search): classes ``y``, each row's best score ``best`` (its weight times its
    class's largest gain) and the gains scaled to at most 1 per class."""

    @classmethod
    def of_gains(cls, gains: np.ndarray, y: np.ndarray, w: np.ndarray,
                 top: np.ndarray) -> ClassificationView:
        """The view of rows of classes ``y``, weights ``w``, under the ``K x K`` ``gains``
        (``top[c]`` = the largest cost of class ``c``'s row of the cost matrix)."""
        positive = gains > 0
        copies = max(1, int(positive.sum(axis=1).max()))
        # per class, its positive-gain labels first, then zero-gain ones to fill up
        order = np.argsort(~positive, axis=1, kind="stable")[:, :copies]
        n = len(y)
        rows = np.repeat(np.arange(n), copies)
        labels = order[y].ravel()
        weights = np.repeat(w, copies) * gains[y[rows], labels]
        gmax = gains.max(axis=1)
        unit = np.divide(gains, gmax[:, None], out=np.zeros_like(gains),
                         where=gmax[:, None] > 0)
        return cls(rows, labels.astype(np.int64), weights, copies, float(w @ top[y]),
                   np.asarray(y), w * gmax[y], unit)

    def lam(self, lam: float, penalty: str, total_weight: float) -> float:
        """The penalty weight of the view's problem for ``lam`` of the objective in cost
        units: the split penalty is in weight units already; the leaf penalty is per unit
        of total weight, which the view changes from ``total_weight`` to its own."""
        if penalty == "splits":
            return lam
        return lam * total_weight / float(self.weights.sum())

    def bound(self, view_bound: float, lam: float, penalty: str,
              total_weight: float) -> float:
        """A lower bound on the objective in cost units from an upper bound ``view_bound``
        on the view's objective (the map is affine and decreasing)."""
        if penalty == "splits":  # (1 - lam) correct' - lam splits = (1 - lam) offset - cost obj
            return (1.0 - lam) * self.offset - view_bound
        # correct' / W' - lam' leaves = (offset / W - cost obj) * W / W'
        return (self.offset - float(self.weights.sum()) * view_bound) / total_weight
