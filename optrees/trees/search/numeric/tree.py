"""A tree found by the deep search: nested nodes, and their heap arrays for the result."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...._numbers import clean_midpoints

__all__ = ["Node", "to_heap"]


@dataclass
class Node:
    """A leaf (``feature == -1``) or a branch ``x[feature] <= threshold`` → ``left``.

    ``label`` is the leaf's class; at a branch, the majority class of the rows reaching it
    (only informative: prediction always ends at a leaf).
    """

    label: int
    feature: int = -1
    threshold: float = float("nan")
    left: Node | None = None
    right: Node | None = None

    @property
    def n_leaves(self) -> int:
        """Number of leaves below (and including) this node."""
        if self.feature < 0:
            return 1
        return self.left.n_leaves + self.right.n_leaves

    @property
    def depth(self) -> int:
        """Number of branch levels on the longest root-to-leaf path."""
        if self.feature < 0:
            return 0
        return 1 + max(self.left.depth, self.right.depth)


def to_heap(root: Node, depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(feature, threshold, label)`` heap arrays of :class:`.result.NumericSubtree`.

    ``feature``/``threshold`` get ``2**depth - 1`` entries, ``label`` ``2**(depth+1) - 1``;
    every node below a leaf copies the leaf's class.
    """
    if root.depth > depth:
        raise ValueError(f"tree of depth {root.depth} does not fit heap arrays of depth {depth}")
    inner = 2 ** depth - 1
    feature = np.full(inner, -1, dtype=np.int64)
    threshold = np.full(inner, np.nan)
    label = np.zeros(2 * inner + 1, dtype=np.int64)
    stack = [(1, root)]
    while stack:
        k, node = stack.pop()
        if node.feature < 0:
            _fill_below(k, node.label, label)
            continue
        feature[k - 1], threshold[k - 1], label[k - 1] = node.feature, node.threshold, node.label
        stack.append((2 * k, node.left))
        stack.append((2 * k + 1, node.right))
    return feature, threshold, label


def _fill_below(k: int, cls: int, label: np.ndarray) -> None:
    """Write ``cls`` at heap node ``k`` and every node below it."""
    lo = hi = k
    while lo <= len(label):
        label[lo - 1:min(hi, len(label))] = cls
        lo, hi = 2 * lo, 2 * hi + 1


def refit(node: Node, X: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int,
          rows: np.ndarray, pen: float, min_leaf: int = 1) -> tuple[float, Node]:
    """``(score, tree)``: ``node`` carried over to the local ``rows`` (of ``X``, labels ``y``,
    weights ``w``) — same partitions, thresholds re-placed at the midpoint between the rows
    on either side, leaves relabelled to their majority, and splits that send every row one
    way or do not pay for their extra leaf collapsed.  Each step can only raise the score,
    so the result is at least ``node``'s score on these rows.  A split that leaves a side
    fewer than ``min_leaf`` rows becomes a leaf (the result keeps every leaf that large).
    """
    totals = np.bincount(y[rows], weights=w[rows], minlength=n_classes)
    majority = int(totals.argmax())
    leaf = (float(totals[majority]) - pen, Node(majority))
    if node.feature < 0:
        return leaf
    x = X[rows, node.feature]
    go_left = x <= node.threshold
    n_left = int(np.count_nonzero(go_left))
    if n_left == len(rows):
        return refit(node.left, X, y, w, n_classes, rows, pen, min_leaf)
    if n_left == 0:
        return refit(node.right, X, y, w, n_classes, rows, pen, min_leaf)
    if min(n_left, len(rows) - n_left) < min_leaf:
        return leaf
    ls, ln = refit(node.left, X, y, w, n_classes, rows[go_left], pen, min_leaf)
    rs, rn = refit(node.right, X, y, w, n_classes, rows[~go_left], pen, min_leaf)
    if not ls + rs > leaf[0]:
        return leaf
    lo, hi = x[go_left].max(), x[~go_left].min()
    thr = float(clean_midpoints(lo, hi))
    return ls + rs, Node(majority, node.feature, thr, ln, rn)
