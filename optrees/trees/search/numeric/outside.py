"""How well can a tree score if it tests some given features? A bound over every threshold.

A search over a few thresholds of some columns (the fair front search over 0/1 columns) is
optimal over every threshold if no tree testing one of the other columns' features beats it.
:func:`best_using` bounds those trees for a weighted problem (objective = weighted correct −
penalty · leaves), depth ≤ 2, by cases on where such a feature is tested:

* at the root: the depth-2 root search of :mod:`.search` over those root features only
  (children over all features, exact);
* below a root on another feature: for each of that root's split points, the better of
  (left child over all features + right child a stump on such a feature) and the mirror;
  the child over all features is exact, so the bound is the exact optimum of these trees.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .data import NumericData, SubsetView
from .depth1 import ChildTree, FeatureSplits, best_child, class_weights
from .evaluate import StumpFinder, make_evaluator
from .search import search_root

__all__ = ["Using", "best_using"]


@dataclass
class Using:
    """``value`` = max(floor, best objective) of the trees testing the given features, and
    the labels the best of them gives every row when it beats the floor (else None)."""

    value: float
    labels: np.ndarray | None = None


def best_using(data: NumericData, y: np.ndarray, w: np.ndarray, n_classes: int,
               uses: np.ndarray, depth: int, pen: float, floor: float, backend: str,
               check: Callable[[], None] | None = None) -> Using:
    """The best objective (``value``, at least ``floor``) of the trees of depth ≤ ``depth``
    (1 or 2) over every threshold that test a feature with ``uses`` true, and the labels
    of the best of them.  Values at or below ``floor`` are not computed exactly (only that
    they are at most ``floor``).  A minimum leaf size would only lower the value: a bound
    without it holds with it.  ``check`` is called between root split points (it may
    raise to stop)."""
    if depth not in (1, 2):
        raise ValueError(f"best_using takes depth 1 or 2, got {depth}")
    uses = np.asarray(uses, dtype=bool)
    view = data.view()
    cw = class_weights(y, w, n_classes)
    eps = 1e-9 * (1.0 + float(w.sum()) + 4.0 * pen)
    finder = StumpFinder(view, y, w, cw, backend)
    whole = finder()
    best, winner = floor, None
    stumps = np.where(uses, whole.correct, -np.inf) - 2.0 * pen
    if uses.any() and stumps.max() > best + eps:
        g = int(np.argmax(stumps))
        best, winner = float(stumps[g]), ("stump", g)
    if depth == 2 and uses.any():
        # the root tests such a feature: the root search over those features only
        evaluate = make_evaluator(view, y, w, cw, pen, eps, backend,
                                  np.argsort(-whole.correct, kind="stable"), finder.arrays)
        child_bound = max(float(cw.sum(axis=0).max()) - pen,
                          float(whole.correct.max()) - 2 * pen)
        found = search_root(view, w, _only(whole, uses), child_bound, pen, best, evaluate,
                            eps, check=check)
        if found.feature >= 0:
            best, winner = found.objective, ("root", found.feature, found.rank)
        # a child below a root on another feature tests one: per side, the root search
        # over the other features with that child a stump on such a feature
        cols = np.flatnonzero(uses)
        side_finder = StumpFinder(SubsetView(
            view.rows, view.X[:, cols], np.ascontiguousarray(view.order[cols]),
            np.ascontiguousarray(view.rank[cols])), y, w, cw, backend)
        for coarse_side in (1, 0):  # the child that is a stump on such a feature
            def mixed(f: int, r: int, floor_l: float, floor_r: float,
                      coarse_side: int = coarse_side) -> tuple[float, float]:
                """Children of the root split: one over all features, the other a stump on
                a feature with ``uses`` true (both objectives grow with their rows, and
                moving rows of weight W changes their sum by at most W: the bounds of the
                root search hold)."""
                member = (view.rank[f] <= r) != bool(coarse_side)   # the stump's rows
                stump = max(floor_l if coarse_side == 0 else floor_r,
                            float(side_finder(member).correct.max()) - 2.0 * pen)
                if coarse_side == 0:  # an infinite floor skips that child's sweep
                    return stump, evaluate(f, r, np.inf, floor_r)[1]
                return evaluate(f, r, floor_l, np.inf)[0], stump

            found = search_root(view, w, _only(whole, ~uses), child_bound, pen, best, mixed,
                                eps, check=check)
            if found.feature >= 0:
                best, winner = found.objective, ("mixed", found.feature, found.rank,
                                                 coarse_side)
    if winner is None:
        return Using(best)
    return Using(best, _labels(view, winner, finder, whole, uses, pen))


def _only(whole: FeatureSplits, keep: np.ndarray) -> FeatureSplits:
    """``whole`` with the features not kept constant (no root split on them)."""
    return FeatureSplits(whole.totals, np.where(keep, whole.correct, -np.inf), whole.threshold,
                         whole.left_class, whole.right_class, whole.n_left)


def _labels(view: SubsetView, winner: tuple, finder: StumpFinder, whole: FeatureSplits,
            uses: np.ndarray, pen: float) -> np.ndarray:
    """Every row's label in the winning tree of :func:`best_using`."""
    labels = np.zeros(view.n, dtype=np.int64)
    if winner[0] == "stump":
        _stump(view, winner[1], whole, None, labels)
        return labels
    _, f, r, *coarse_side = winner
    left = view.rank[f] <= r
    for side, member in enumerate((left, ~left)):
        splits = finder(member)
        if coarse_side and side == coarse_side[0]:   # a stump on a feature of ``uses``
            g = int(np.argmax(np.where(uses, splits.correct, -np.inf)))
            _stump(view, g, splits, member, labels)
            continue
        child: ChildTree = best_child(splits, pen)
        if child.feature < 0:
            labels[member] = child.classes[0]
        else:
            _stump(view, child.feature, splits, member, labels)
    return labels


def _stump(view: SubsetView, g: int, splits: FeatureSplits, member: np.ndarray | None,
           labels: np.ndarray) -> None:
    """Label the rows of ``member`` (all: None) by the best stump on ``g`` of ``splits``."""
    member = np.ones(view.n, dtype=bool) if member is None else member
    go_left = view.X[:, g] <= splits.threshold[g]
    labels[member & go_left] = splits.left_class[g]
    labels[member & ~go_left] = splits.right_class[g]
