"""The numeric subtree as returned by :func:`.solver.solve_numeric`."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["NumericSubtree"]


@dataclass
class NumericSubtree:
    """A tree of depth ≤ ``depth`` over raw numeric thresholds (optimal when ``optimal``).

    Heap numbering as in :mod:`optrees.trees.mip.d2s`: root 1, children ``2n`` (left) and
    ``2n + 1`` (right).  ``feature`` / ``threshold`` have ``2**depth - 1`` entries and describe
    branch node ``n`` at index ``n - 1`` (``-1`` / NaN at a leaf; ``x <= threshold`` goes
    left); ``label`` has ``2**(depth + 1) - 1`` entries and gives the class of leaf ``n`` at
    index ``n - 1`` (nodes below a leaf copy it).  ``depth`` is 2 for ``max_depth ≤ 2``, else
    ``max_depth``.  ``score`` = weighted correct − penalty · leaves; ``correct`` is a mask over
    ``rows`` (the selected rows, increasing global indices).  ``upper_bound`` ≥ the optimum's
    score (equal to ``score`` when ``optimal``); ``optimal`` is False only when a deadline
    stopped the search before it proved the tree optimal.
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
    optimal: bool = True
    upper_bound: float = math.nan

    @property
    def depth(self) -> int:
        """Depth of the heap arrays (the largest depth the tree may use)."""
        return int(round(math.log2(len(self.feature) + 1)))

    def terminal(self, X: np.ndarray) -> np.ndarray:
        """Heap number of the leaf each row of ``X`` reaches."""
        X = np.asarray(X, dtype=np.float64)
        inner = len(self.feature)
        node = np.ones(len(X), dtype=np.int64)
        for _ in range(self.depth):
            at = np.minimum(node, inner) - 1
            f = np.where(node <= inner, self.feature[at], -1)
            branch = f >= 0
            go_right = X[np.arange(len(X)), np.maximum(f, 0)] > self.threshold[at]
            node = np.where(branch, 2 * node + go_right, node)
        return node

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Class of the leaf each row of ``X`` reaches."""
        return self.label[self.terminal(X) - 1]

    @property
    def leaves(self) -> list[tuple[int, int]]:
        """``(node, class)`` for every leaf (heap numbering)."""
        inner = len(self.feature)
        out = []
        for node in range(1, len(self.label) + 1):
            parent_is_branch = node == 1 or self.feature[node // 2 - 1] >= 0
            is_branch = node <= inner and self.feature[node - 1] >= 0
            if parent_is_branch and not is_branch:
                out.append((node, int(self.label[node - 1])))
        return out
