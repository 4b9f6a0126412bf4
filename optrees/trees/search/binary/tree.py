"""Search-side subtrees (nested tuples) and their HeapTree layout, labels and score.

A subtree is ``None`` (a leaf) or ``(feature, left, right)``; ``x_f = 0`` goes left and
``x_f = 1`` right, as in :mod:`optrees.trees.problem.tree_problem`.
"""

from __future__ import annotations

import numpy as np

from ...problem.tree_problem import HeapTree
from .data import BinaryData

__all__ = ["Node", "count_leaves", "node_depth", "score_tree", "to_heap"]

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
    if node_depth(node) > depth:
        raise ValueError("subtree deeper than the requested layout")
    split = np.full(2**depth - 1, -1, dtype=np.int64)
    label = np.zeros(2 ** (depth + 1) - 1, dtype=np.int64)

    def fill(n: int, sub: Node, idx: np.ndarray | None, parent: int) -> None:
        if n > len(label):
            return
        lab = parent
        if idx is not None and idx.size:
            lab = int(np.argmax(data.scores(idx)[0]))
        label[n - 1] = lab
        if sub is None:
            fill(2 * n, None, None, lab)
            fill(2 * n + 1, None, None, lab)
            return
        f = sub[0]
        split[n - 1] = f
        right = data.X[idx, f] == 1 if idx is not None else None
        fill(2 * n, sub[1], None if idx is None else idx[~right], lab)
        fill(2 * n + 1, sub[2], None if idx is None else idx[right], lab)

    fill(1, node, rows, 0)
    return HeapTree(split, label)


def score_tree(tree: HeapTree, data: BinaryData, rows: np.ndarray,
               leaf_penalty: float) -> float:
    """Weighted correct on ``rows`` minus ``leaf_penalty`` per leaf of the reachable tree."""
    Xs = data.X[rows]
    stop = tree.terminal(Xs) if len(tree.split) else np.ones(len(rows), dtype=np.int64)
    return float(data.row_scores(rows, tree.label[stop - 1]).sum()) - \
        leaf_penalty * (tree.n_splits + 1)
