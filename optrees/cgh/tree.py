"""The tree CGH returns: a heap assignment of sampled splits as a :class:`BinaryTree`."""

from __future__ import annotations

import numpy as np

from ..models.binary_tree import LEAF, BinaryTree
from .sampling import PASS, SplitSets


def build_tree(
    choice: dict[int, int],
    sets: SplitSets,
    X: np.ndarray,
    y: np.ndarray,
    classes,
    feature_names=None,
    negated_names=None,
    sample_weight: np.ndarray | None = None,
) -> BinaryTree:
    """BinaryTree of a heap split assignment: pass splits are dropped (their subtree on the
    left takes their place), sibling leaves with the same class are merged, and an empty leaf
    predicts the majority class (by ``sample_weight``) of its nearest non-empty ancestor."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=np.int64)
    K = len(classes)
    n_leaf0 = 2**sets.depth
    feature, threshold, left, right, value = [], [], [], [], []

    def new(v: int) -> int:
        feature.append(LEAF)
        threshold.append(0.0)
        left.append(LEAF)
        right.append(LEAF)
        value.append(v)
        return len(feature) - 1

    def majority(rows: np.ndarray, fallback: int) -> int:
        if not rows.any():
            return fallback
        w = None if sample_weight is None else sample_weight[rows]
        return int(np.argmax(np.bincount(y[rows], weights=w, minlength=K)))

    def build(h: int, rows: np.ndarray, fallback: int) -> int:
        label = majority(rows, fallback)
        sid = choice.get(h, PASS) if h < n_leaf0 else None
        if sid is None:
            return new(label)
        if sid == PASS:
            return build(2 * h, rows, label)
        f, t = sets.table.feature[sid], sets.table.threshold[sid]
        go = X[:, f] <= t
        idx = new(label)
        lft = build(2 * h, rows & go, label)
        rgt = build(2 * h + 1, rows & ~go, label)
        if feature[lft] == LEAF and feature[rgt] == LEAF and value[lft] == value[rgt]:
            value[idx] = value[lft]
            del feature[idx + 1:], threshold[idx + 1:], left[idx + 1:], right[idx + 1:]
            del value[idx + 1:]
            return idx
        feature[idx], threshold[idx], left[idx], right[idx] = f, t, lft, rgt
        return idx

    build(1, np.ones(len(y), dtype=bool), majority(np.ones(len(y), dtype=bool), 0))
    tree = BinaryTree(feature, threshold, left, right, value, classes,
                      feature_names=feature_names, negated_names=negated_names)
    tree.set_counts(X, y, sample_weight)
    return tree

