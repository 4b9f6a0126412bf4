"""Search-side subtrees (nested tuples) and their HeapTree layout, labels and score.

A subtree is ``None`` (a leaf) or ``(feature, left, right)``; ``x_f = 0`` goes left and
``x_f = 1`` right, as in :mod:`optrees.trees.problem.tree_problem`.
"""

from __future__ import annotations

import numpy as np

from ...problem.tree_problem import HeapTree
from .data import BinaryData

__all__ = ["Node", "count_leaves", "labelled", "node_depth", "score_tree", "to_heap"]

Node = tuple | None


def count_leaves(node: Node) -> int:
    """Leaves of a subtree."""
    return 1 if node is None else count_leaves(node[1]) + count_leaves(node[2])


def node_depth(node: Node) -> int:
    """Depth of a subtree (a leaf has depth 0)."""
    return 0 if node is None else 1 + max(node_depth(node[1]), node_depth(node[2]))


def from_depth2(a: int, bl: int, br: int) -> Node:
    """The subtree of a depth-2 kernel answer (-1 = leaf)."""
    if a < 0:
        return None
    return (a, None if bl < 0 else (bl, None, None), None if br < 0 else (br, None, None))


def to_heap(node: Node, depth: int, data: BinaryData, rows: np.ndarray) -> HeapTree:
    """HeapTree of ``depth`` levels; every reached node gets its weighted majority class
    (ties → lowest class), nodes without rows or below a leaf copy their parent's label."""
    return labelled(node, depth, data, rows)[0]


def labelled(node: Node, depth: int, data: BinaryData, rows: np.ndarray
             ) -> tuple[HeapTree, float]:
    """:func:`to_heap` and the score of the tree's leaves on ``rows`` (before leaf
    penalties), in one pass over the rows level by level: the rows of a leaf go on to its
    left child, which therefore gets the leaf's label (the right one gets none of them)."""
    if node_depth(node) > depth:
        raise ValueError("subtree deeper than the requested layout")
    split = np.full(2**depth - 1, -1, dtype=np.int64)
    stack = [(1, node)]
    while stack:
        n, sub = stack.pop()
        if sub is not None:
            split[n - 1] = sub[0]
            stack += [(2 * n, sub[1]), (2 * n + 1, sub[2])]
    label = np.zeros(2 ** (depth + 1) - 1, dtype=np.int64)
    K, gains = data.n_classes, data.gains
    every = len(rows) == len(data.y)  # (rows are sorted and unique: all of them)
    y, w = (data.y, data.w) if every else (data.y[rows], data.w[rows])
    at = np.zeros(len(rows), dtype=np.int64)  # each row's node at this level (from 0)
    score = 0.0
    for level in range(depth + 1):
        width = 2**level
        cw = np.bincount(at * K + y, weights=w, minlength=width * K).reshape(width, K)
        scores = cw if gains is None else cw @ gains
        best = np.argmax(scores, axis=1)
        held = np.bincount(at, minlength=width) > 0
        parent = label[width // 2 - 1 + np.arange(width) // 2] if level else best
        label[width - 1:2 * width - 1] = np.where(held, best, parent)
        if level == depth:
            score = float(scores[np.arange(width), best][held].sum())
            break
        f = split[width - 1 + at]
        inner = np.flatnonzero(f >= 0)
        at = 2 * at
        at[inner] += data.X[rows[inner], f[inner]]
    return HeapTree(split, label), score


def score_tree(tree: HeapTree, data: BinaryData, rows: np.ndarray,
               leaf_penalty: float) -> float:
    """Weighted correct on ``rows`` minus ``leaf_penalty`` per leaf of the reachable tree."""
    Xs = data.X[rows]
    stop = tree.terminal(Xs) if len(tree.split) else np.ones(len(rows), dtype=np.int64)
    return float(data.row_scores(rows, tree.label[stop - 1]).sum()) - \
        leaf_penalty * (tree.n_splits + 1)
