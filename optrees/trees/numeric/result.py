"""The optimal numeric subtree as returned by :func:`.solver.solve_numeric`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["NumericSubtree"]


@dataclass
class NumericSubtree:
    """An optimal tree of depth ≤ 2 over raw numeric thresholds.

    Heap numbering as in :mod:`optrees.trees.d2s`: root 1, children 2 (left) / 3 (right),
    grandchildren 4..7.  ``feature[n - 1]`` / ``threshold[n - 1]`` describe branch node ``n``
    (``-1`` / NaN at a leaf; ``x <= threshold`` goes left); ``label[n - 1]`` is the class of
    leaf ``n`` (nodes below a leaf copy it).  ``score`` = weighted correct − penalty · leaves;
    ``correct`` is a mask over ``rows`` (the selected rows, increasing global indices).
    """

    feature: np.ndarray
    threshold: np.ndarray
    label: np.ndarray
    score: float
    correct_weight: float
    n_leaves: int
    rows: np.ndarray
    correct: np.ndarray
    evaluations: int = 0

    def terminal(self, X: np.ndarray) -> np.ndarray:
        """Heap number of the leaf each row of ``X`` reaches."""
        X = np.asarray(X, dtype=np.float64)
        node = np.ones(len(X), dtype=np.int64)
        for _ in range(2):
            f = np.where(node <= 3, self.feature[np.minimum(node, 3) - 1], -1)
            inner = f >= 0
            go_right = X[np.arange(len(X)), np.maximum(f, 0)] > self.threshold[
                np.minimum(node, 3) - 1]
            node = np.where(inner, 2 * node + go_right, node)
        return node

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Class of the leaf each row of ``X`` reaches."""
        return self.label[self.terminal(X) - 1]

    @property
    def leaves(self) -> list[tuple[int, int]]:
        """``(node, class)`` for every leaf (heap numbering)."""
        out = []
        for node in range(1, 8):
            parent_is_branch = node == 1 or self.feature[node // 2 - 1] >= 0
            is_branch = node <= 3 and self.feature[node - 1] >= 0
            if parent_is_branch and not is_branch:
                out.append((node, int(self.label[node - 1])))
        return out
