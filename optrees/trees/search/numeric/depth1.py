"""Exact depth-≤1 trees over every threshold: one vectorized sweep per feature.

For the samples of a group sorted by feature ``g``, prefix sums of the per-class weights give
the weight ``L_k`` of class ``k`` left of every candidate threshold; the best stump on ``g``
correctly classifies ``max_k L_k + max_k (T_k - L_k)`` (``T_k`` = class totals of the group),
taken over positions where the value changes (ConTree, arXiv 2501.07903, §4: a threshold is
only ever placed between consecutive distinct values).  ``O(m·p·K)`` for ``m`` samples.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...._numbers import clean_midpoints
from .data import SubsetView

__all__ = ["ChildTree", "FeatureSplits", "best_child", "best_splits", "split_threshold"]

# cap (in float64 entries) on one block of prefix sums: p_block · m · K
_BLOCK_ENTRIES = 1 << 22


@dataclass
class FeatureSplits:
    """Best stump of one group of samples, per feature (``-inf`` where a feature is constant)."""

    totals: np.ndarray      # (K,) class weights of the group
    correct: np.ndarray     # (p,) weight correctly classified by the feature's best stump
    threshold: np.ndarray   # (p,) its threshold (midpoint of consecutive distinct values)
    left_class: np.ndarray  # (p,) class of its left leaf (x <= threshold)
    right_class: np.ndarray  # (p,) class of its right leaf
    n_left: np.ndarray      # (p,) number of the group's samples going left

    @property
    def leaf_correct(self) -> float:
        """Weight correctly classified by one leaf (the majority class)."""
        return float(self.totals.max()) if self.totals.size else 0.0


@dataclass
class ChildTree:
    """An optimal depth-≤1 tree of one group: a leaf (``feature == -1``) or a stump."""

    objective: float        # weighted correct - penalty · leaves
    feature: int
    threshold: float
    classes: tuple[int, ...]  # (leaf class,) or (left class, right class)


def class_weights(y: np.ndarray, w: np.ndarray, n_classes: int) -> np.ndarray:
    """One-hot matrix of the sample weights, ``(m, K)``: the summands of every class count."""
    out = np.zeros((len(y), n_classes))
    out[np.arange(len(y)), y] = w
    return out


def best_splits(view: SubsetView, cw: np.ndarray, member: np.ndarray | None = None,
                min_leaf: int = 1, thresholds: bool = True) -> FeatureSplits:
    """Best stump per feature for the view's samples with ``member`` true (all when ``None``)
    whose two leaves get at least ``min_leaf`` of them each.  ``thresholds`` False leaves
    ``threshold`` NaN (an evaluator that needs only the objective skips their rounding)."""
    p = view.p
    if member is None:
        m, order, ranks = view.n, view.order, view.sorted_rank
        totals = cw.sum(axis=0)
    else:  # (take and compress: the boolean indexing they replace took 2-3x as long)
        kept = np.flatnonzero(np.take(member, view.order))  # the members, in sorted order
        m = len(kept) // p if p else int(member.sum())
        order = view.order.ravel().take(kept).reshape(p, m)
        ranks = view.sorted_rank.ravel().take(kept).reshape(p, m)
        totals = np.compress(member, cw, axis=0).sum(axis=0)
    n_classes = cw.shape[1]
    out = FeatureSplits(totals, np.full(p, -np.inf), np.full(p, np.nan),
                        np.zeros(p, np.int64), np.zeros(p, np.int64), np.zeros(p, np.int64))
    if m < 2 or p == 0:
        return out
    cw_t = np.ascontiguousarray(cw.T)             # (K, n): one contiguous row per class
    block = max(1, _BLOCK_ENTRIES // (m * n_classes))
    for lo in range(0, p, block):
        fs = np.arange(lo, min(p, lo + block))
        _sweep_block(view, cw_t, order[fs], ranks[fs], fs, totals, out, min_leaf,
                     thresholds)
    return out


def _sweep_block(view: SubsetView, cw_t: np.ndarray, order: np.ndarray, ranks: np.ndarray,
                 fs: np.ndarray, totals: np.ndarray, out: FeatureSplits, min_leaf: int,
                 thresholds: bool = True) -> None:
    """:func:`best_splits` for the features ``fs`` (their sorted orders ``order``, the ranks
    in that order ``ranks``; ``cw_t`` the class weights transposed, ``(K, n)``).

    The prefix sums are laid out ``(K, features, positions)`` and maximized class by class
    with :func:`np.maximum` (numpy's ``max`` over a short axis, of 2 classes, took 3x the
    whole sweep); the sums and maxima are the same numbers in the same order as one
    ``(features, positions, K)`` cumsum and its ``max(axis=2)``."""
    left = np.take(cw_t, order[:, :-1], axis=1)             # (K, b, m-1) class weights
    np.cumsum(left, axis=2, out=left)                        # prefix weights left of j + 1
    best_left = left[0].copy()
    best_right = totals[0] - left[0]
    for k in range(1, left.shape[0]):
        np.maximum(best_left, left[k], out=best_left)
        np.maximum(best_right, totals[k] - left[k], out=best_right)
    correct = best_left
    correct += best_right
    correct[ranks[:, 1:] == ranks[:, :-1]] = -np.inf          # no split between equal values
    m = order.shape[1]                                        # position j sends j + 1 left
    correct[:, :max(0, min_leaf - 1)] = -np.inf
    correct[:, max(0, m - min_leaf):] = -np.inf
    j = np.argmax(correct, axis=1)
    rows = np.arange(len(fs))
    out.correct[fs] = correct[rows, j]       # -inf: no split point (constant or too few rows)
    if thresholds:
        lo_val = view.X[order[rows, j], fs]
        hi_val = view.X[order[rows, j + 1], fs]
        out.threshold[fs] = clean_midpoints(lo_val, hi_val)
    chosen = left[:, rows, j]                                 # (K, b) weights left of each
    out.left_class[fs] = chosen.argmax(axis=0)
    out.right_class[fs] = (totals[:, None] - chosen).argmax(axis=0)
    out.n_left[fs] = j + 1


def split_threshold(x: np.ndarray, left: np.ndarray) -> float:
    """Threshold of the split sending the rows with ``left`` true (values ``x``) left."""
    return float(clean_midpoints(x[left].max(), x[~left].min()))


def best_child(splits: FeatureSplits, leaf_penalty: float) -> ChildTree:
    """The better of the group's majority leaf and its best stump under the leaf penalty."""
    leaf = ChildTree(splits.leaf_correct - leaf_penalty, -1, np.nan,
                     (int(splits.totals.argmax()) if splits.totals.size else 0,))
    if not splits.correct.size:
        return leaf
    g = int(np.argmax(splits.correct))
    stump = float(splits.correct[g]) - 2.0 * leaf_penalty
    if not stump > leaf.objective:       # ties go to the smaller tree
        return leaf
    return ChildTree(stump, g, float(splits.threshold[g]),
                     (int(splits.left_class[g]), int(splits.right_class[g])))
