"""Search-side subtrees (nested tuples) and their HeapTree layout, labels and score.

A subtree is ``None`` (a leaf) or ``(feature, left, right)``; ``x_f = 0`` goes left and
``x_f = 1`` right, as in :mod:`optrees.trees.problem.tree_problem`.
"""

from __future__ import annotations

import numpy as np

from ...problem.tree_problem import HeapTree
from .data import BinaryData

__all__ = ["Node", "count_leaves", "labelled", "labelled_many", "node_depth", "score_tree",
           "to_heap"]

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


_BATCH_CELLS = 1 << 22
"""Most (tree, row) pairs :func:`labelled_many` follows at once (32 MB of int64 a level)."""


def labelled_many(nodes: list[Node], depth: int, data: BinaryData, rows: np.ndarray
                  ) -> list[tuple[HeapTree, float]]:
    """:func:`labelled` of several subtrees over the same ``rows``, level by level for all of
    them at once (one ``bincount`` a level instead of one a tree: a front's 16 trees of a
    small data set cost 16 times numpy's call overhead otherwise)."""
    step = max(1, _BATCH_CELLS // max(1, len(rows)))
    if len(nodes) > step:
        return [got for i in range(0, len(nodes), step)
                for got in labelled_many(nodes[i:i + step], depth, data, rows)]
    T, width_all = len(nodes), 2**depth - 1
    split = np.full((T, width_all), -1, dtype=np.int64)
    for t, node in enumerate(nodes):
        if node_depth(node) > depth:
            raise ValueError("subtree deeper than the requested layout")
        stack = [(1, node)]
        while stack:
            n, sub = stack.pop()
            if sub is not None:
                split[t, n - 1] = sub[0]
                stack += [(2 * n, sub[1]), (2 * n + 1, sub[2])]
    label = np.zeros((T, 2 ** (depth + 1) - 1), dtype=np.int64)
    K, gains = data.n_classes, data.gains
    every = len(rows) == len(data.y)
    y, w = (data.y, data.w) if every else (data.y[rows], data.w[rows])
    wt = np.broadcast_to(w, (T, len(rows))).ravel()
    tree = np.arange(T)[:, None]
    at = np.zeros((T, len(rows)), dtype=np.int64)  # each row's node at this level, per tree
    score = np.zeros(T)
    for level in range(depth + 1):
        width = 2**level
        node = tree * width + at
        cw = np.bincount((node * K + y).ravel(), weights=wt,
                         minlength=T * width * K).reshape(T, width, K)
        scores = cw if gains is None else cw @ gains
        best = scores.argmax(axis=2)
        held = np.bincount(node.ravel(), minlength=T * width).reshape(T, width) > 0
        parent = label[:, width // 2 - 1 + np.arange(width) // 2] if level else best
        label[:, width - 1:2 * width - 1] = np.where(held, best, parent)
        if level == depth:
            top = np.take_along_axis(scores, best[:, :, None], axis=2)[:, :, 0]
            score = np.where(held, top, 0.0).sum(axis=1)
            break
        f = np.take_along_axis(split, width - 1 + at, axis=1)
        t_in, r_in = np.nonzero(f >= 0)
        at = 2 * at
        at[t_in, r_in] += data.X[rows[r_in], f[t_in, r_in]]
    return [(HeapTree(split[t], label[t]), float(score[t])) for t in range(T)]


def score_tree(tree: HeapTree, data: BinaryData, rows: np.ndarray,
               leaf_penalty: float) -> float:
    """Weighted correct on ``rows`` minus ``leaf_penalty`` per leaf of the reachable tree."""
    Xs = data.X[rows]
    stop = tree.terminal(Xs) if len(tree.split) else np.ones(len(rows), dtype=np.int64)
    return float(data.row_scores(rows, tree.label[stop - 1]).sum()) - \
        leaf_penalty * (tree.n_splits + 1)
