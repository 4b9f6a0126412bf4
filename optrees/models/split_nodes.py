"""The node arrays every fitted binary tree is made of, and the routing of rows through them.

A node either tests ``x[feature] <= threshold`` (true -> left child, false -> right child) or
is a leaf (``feature == LEAF``); children have larger indices than their parent.  What a node
predicts (a class, a mean) is the subclass's own.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

LEAF = -1


class SplitNodes:
    """Structure and routing over the per-node arrays ``feature``, ``threshold``, ``left``
    and ``right`` that a subclass sets."""

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray

    @property
    def n_nodes(self) -> int:
        """Number of nodes, leaves included."""
        return len(self.feature)

    @property
    def n_leaves(self) -> int:
        """Number of leaves."""
        return int(np.sum(self.feature == LEAF))

    @property
    def depth(self) -> int:
        """Length of the longest root-to-leaf path (a single leaf has depth 0)."""
        depth = np.zeros(self.n_nodes, dtype=np.int64)
        for n in range(self.n_nodes):  # children always have larger indices than parents
            if self.feature[n] != LEAF:
                depth[self.left[n]] = depth[self.right[n]] = depth[n] + 1
        return int(depth.max())

    def _descend(self, X: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Route rows one level per step; yields (moved rows, their new nodes, all nodes)."""
        X = np.asarray(X)
        node = np.zeros(X.shape[0], dtype=np.int64)
        rows = np.arange(X.shape[0])
        yield rows, node, node
        for _ in range(self.n_nodes):
            feat = self.feature[node]
            active = feat != LEAF
            if not active.any():
                return
            r, n = rows[active], node[active]
            go_left = X[r, feat[active]] <= self.threshold[n]
            node[active] = np.where(go_left, self.left[n], self.right[n])
            yield r, node[active], node

    def apply(self, X: np.ndarray) -> np.ndarray:
        """Index of the leaf each row of X reaches."""
        *_, (_, _, node) = self._descend(X)
        return node
