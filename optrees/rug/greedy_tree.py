"""A compiled greedy classification tree (Gini, best split per node) for RUG's tree pricing.

It grows the tree scikit-learn's ``DecisionTreeClassifier(max_depth=d)`` grows (a node is
split while it is impure and some column separates its rows; the split maximizes
``sum_k L_k^2 / W_L + sum_k R_k^2 / W_R``, the Gini proxy; ties between columns go to the
first in a given order, as scikit-learn breaks them by a seeded one) without scikit-learn's
per-fit input checks, which took most of a pricing tree's fit on small data (wine: about
1 ms a tree, 0.35 ms of it building; here 0.03-0.08 ms).  Thresholds are midpoints of
consecutive distinct float64 values.

The tree is grown level by level: per level and column one pass over the presorted rows
updates every open node's left-side class weights at once (``O(rows x columns)`` per level);
a column of two values (a one-hot column) has one split, and its pass reads only the rows of
the larger value (adult, 104 columns of which 98 one-hot, 30,162 rows: 80 → 15 ms a tree;
scikit-learn 66 ms).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

__all__ = ["GreedyTree", "Presorted", "grow_tree"]

TINY_SIDE = 1e-12
"""A split one of whose sides holds at most this share of its node's weight is not taken: that
side's weight is then the difference of two nearly equal sums, lost in rounding (duals of 1e-20
beside ones of 1: FairRUG on nursery divided by zero), and the split separates nothing."""

TIE = 1e-10
"""A split replaces the best so far only when its Gini proxy is larger by more than this share:
two splits of the same rows differ in rounding alone (their sums run in other orders, a row of
weight 3 against three copies), and rounding must not decide between them (scikit-learn's
sample-weight check); the first in the seeded column order and the lowest threshold win."""


@dataclass
class GreedyTree:
    """A grown tree in scikit-learn's ``tree_`` layout: per node its ``feature`` and
    ``threshold`` (``x <= t`` goes left) and children (``-1``: a leaf)."""

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray


@dataclass
class Presorted:
    """A float64 matrix with each column's rows in value order (``order``, shape (columns,
    rows)), those values (``values[f] = X[order[f], f]``, read in order, not gathered) and,
    for a column of exactly two values, where the larger begins (``high[f]``; -1 for other
    columns): computed once, reused by every tree."""

    X: np.ndarray
    order: np.ndarray
    values: np.ndarray
    high: np.ndarray

    @classmethod
    def of(cls, X: np.ndarray) -> Presorted:
        """Sort the columns of ``X`` (stable)."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        order = np.ascontiguousarray(np.argsort(X, axis=0, kind="stable").T)
        values = np.ascontiguousarray(np.take_along_axis(X.T, order, axis=1))
        changes = values[:, 1:] != values[:, :-1]
        two = changes.sum(axis=1) == 1
        high = np.where(two, changes.argmax(axis=1) + 1, -1).astype(np.int64)
        return cls(X, order, values, high)


def grow_tree(data: Presorted, y: np.ndarray, w: np.ndarray, n_classes: int, max_depth: int,
              columns: np.ndarray) -> GreedyTree:
    """The greedy Gini tree of depth ≤ ``max_depth`` on the rows of positive weight ``w``:
    ``y`` holds classes ``0..n_classes-1``, ``columns`` the order in which columns are tried
    (ties go to the first)."""
    out = _grow(data.X, data.order, data.values, data.high, np.asarray(y, dtype=np.int64),
                np.ascontiguousarray(w, dtype=np.float64), int(n_classes), int(max_depth),
                np.asarray(columns, dtype=np.int64))
    left, right, feature, threshold, n_nodes = out
    return GreedyTree(left[:n_nodes], right[:n_nodes], feature[:n_nodes], threshold[:n_nodes])


@njit(cache=True)
def _midpoint(a, b):  # pragma: no cover - compiled
    """The threshold between consecutive values ``a < b`` (``a`` when they are adjacent
    floats), as scikit-learn places it."""
    mid = 0.5 * a + 0.5 * b
    return a if mid >= b else mid


@njit(cache=True)
def _grow(X, order, values, high, y, w, n_classes, max_depth, columns):  # pragma: no cover
    n, p = X.shape
    cap = 2 * n + 1
    left = np.full(cap, -1, dtype=np.int64)
    right = np.full(cap, -1, dtype=np.int64)
    feature = np.full(cap, -2, dtype=np.int64)
    threshold = np.full(cap, -2.0)
    node_of = np.full(n, -1, dtype=np.int64)         # node of each row (-1: left out, done)
    totals = np.zeros((cap, n_classes))               # class weights per node
    weight = np.zeros(cap)
    count = np.zeros(cap, dtype=np.int64)             # rows per node
    for i in range(n):
        if w[i] > 0.0:
            node_of[i] = 0
            totals[0, y[i]] += w[i]
            weight[0] += w[i]
            count[0] += 1
    n_nodes = 1
    level_start, level_end = 0, 1                     # the current level's nodes
    # each column's rows still in an open node, in value order, and their values: the scan
    # of a level copies forward the rows it meets in one (level 0 reads the presorted ones)
    rows = np.empty_like(order)
    vals = np.empty_like(values)
    src_rows, src_vals, m = order, values, n
    # per node, for the column being scanned: one side's class weights and their sums
    side = np.zeros((cap, n_classes))
    side_w = np.zeros(cap)
    side_n = np.zeros(cap, dtype=np.int64)
    side_sq = np.zeros(cap)                           # sum_k L_k^2
    side_dot = np.zeros(cap)                          # sum_k L_k T_k
    last = np.zeros(cap)                              # last value seen per node
    best = np.full(cap, -np.inf)                      # per open node: best proxy so far
    total_sq = np.zeros(cap)                          # sum_k T_k^2 per node
    for _ in range(max_depth):
        open_nodes = 0
        for v in range(level_start, level_end):
            sq = 0.0
            top = 0.0
            for k in range(n_classes):
                sq += totals[v, k] * totals[v, k]
                top = max(top, totals[v, k])
            total_sq[v] = sq
            # impure: the largest class holds less than the node's weight
            if weight[v] > 0.0 and top < weight[v] * (1.0 - 1e-12):
                open_nodes += 1
                best[v] = -np.inf
            else:
                best[v] = np.nan                      # stays a leaf
        if open_nodes == 0:
            break
        kept = m
        for c in range(p):
            f = columns[c]
            for v in range(level_start, level_end):
                side_w[v] = 0.0
                side_n[v] = 0
                side_sq[v] = 0.0
                side_dot[v] = 0.0
                for k in range(n_classes):
                    side[v, k] = 0.0
            if high[f] >= 0:
                # two values: the only split puts the larger on the right; sum that side
                for j in range(high[f], n):
                    i = order[f, j]
                    v = node_of[i]
                    if v < 0 or best[v] != best[v]:
                        continue
                    k = y[i]
                    wi = w[i]
                    side_sq[v] += wi * (2.0 * side[v, k] + wi)
                    side[v, k] += wi
                    side_w[v] += wi
                    side_n[v] += 1
                for v in range(level_start, level_end):
                    if best[v] != best[v] or side_n[v] == 0 or side_n[v] == count[v]:
                        continue
                    lw = weight[v] - side_w[v]
                    if lw <= TINY_SIDE * weight[v]:  # a side lost in rounding: no split
                        continue
                    l_sq = 0.0
                    for k in range(n_classes):
                        lk = totals[v, k] - side[v, k]
                        l_sq += lk * lk
                    proxy = l_sq / lw + side_sq[v] / side_w[v]
                    if proxy > best[v] * (1.0 + TIE):  # best >= 0 or -inf
                        best[v] = proxy
                        feature[v] = f
                        threshold[v] = _midpoint(values[f, 0], values[f, n - 1])
                continue
            kept = 0
            for j in range(m):
                i = src_rows[f, j]
                v = node_of[i]
                if v < 0:                             # left out, or in a finished leaf
                    continue
                x = src_vals[f, j]
                rows[f, kept] = i
                vals[f, kept] = x
                kept += 1
                if best[v] != best[v]:                # a leaf of this level (NaN)
                    continue
                if side_n[v] > 0 and x > last[v]:
                    rw = weight[v] - side_w[v]
                    r_sq = total_sq[v] - 2.0 * side_dot[v] + side_sq[v]
                    proxy = (side_sq[v] / side_w[v] + r_sq / rw
                             if rw > TINY_SIDE * weight[v] else -np.inf)
                    if proxy > best[v] * (1.0 + TIE):  # best >= 0 or -inf
                        best[v] = proxy
                        feature[v] = f
                        threshold[v] = _midpoint(last[v], x)
                k = y[i]
                wi = w[i]
                side_sq[v] += wi * (2.0 * side[v, k] + wi)
                side_dot[v] += wi * totals[v, k]
                side[v, k] += wi
                side_w[v] += wi
                side_n[v] += 1
                last[v] = x
        # split the open nodes that found a split; the others become leaves
        next_start = n_nodes
        for v in range(level_start, level_end):
            if best[v] == best[v] and best[v] > -np.inf:
                left[v] = n_nodes
                right[v] = n_nodes + 1
                n_nodes += 2
            else:
                feature[v] = -2
                threshold[v] = -2.0
        if n_nodes == next_start:
            break
        for i in range(n):
            v = node_of[i]                            # a node of this level, or -1
            if v < 0:
                continue
            if left[v] < 0:                           # a leaf: its rows are done
                node_of[i] = -1
                continue
            child = left[v] if X[i, feature[v]] <= threshold[v] else right[v]
            node_of[i] = child
            totals[child, y[i]] += w[i]
            weight[child] += w[i]
            count[child] += 1
        m = kept                                      # the same for every column scanned
        src_rows, src_vals = rows, vals
        level_start, level_end = next_start, n_nodes
    return left, right, feature, threshold, n_nodes
