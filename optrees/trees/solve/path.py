"""The λ-path of a depth: the best tree of every size on 0/1 features, and the leaf
penalties for which each is BendOCT's optimum (issue #44, first piece).

BendOCT maximizes ``accuracy - lam * leaves``; with ``F(B)`` the best weighted accuracy of a
tree of at most ``B`` leaves, its optimum for any ``lam`` is ``max_B F(B) - lam * B``.  So one
front (:func:`~optrees.trees.search.binary.front.accuracy_front`) answers every ``lam``: the
points on the front's upper concave hull are the optima, each over an interval of ``lam``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._validation import (
    check_depth,
    check_frame,
    check_min_leaf,
    check_target,
    check_time_limit,
    drop_weightless,
    fit_weights,
    small_weight_exponent,
)
from ...encoding.binary import binarize
from ...models.binary_tree import BinaryTree
from ...solvers.deadline import Deadline
from ..search.binary.front import accuracy_front

MAX_PATH_DEPTH = 4
"""Deepest path: a depth-5 front is one depth-4 front per root feature and side."""


@dataclass
class PathPoint:
    """The best tree with at most ``budget`` leaves: weighted training ``accuracy``, a proven
    upper ``bound`` on that best accuracy, ``optimal`` when proved, the tree's own
    ``leaves`` and ``lams``: the interval of leaf penalties (accuracy per leaf) for which it is
    BendOCT's optimum, None when no penalty makes it optimal (it is not on the hull)."""

    budget: int
    leaves: int
    accuracy: float
    bound: float
    optimal: bool
    tree: BinaryTree
    lams: tuple[float, float] | None


class PathFront(list):
    """The points of a λ-path, budget 1 first, and ``complete``: every search the path took
    finished before the time limit (False: the limit stopped one; the points keep their
    trees and proven bounds, and a hull point's ``lams`` may not be the exact optimum's).
    A classification path's points are :class:`PathPoint`; a regression path's,
    :class:`~optrees.trees.solve.regression_path.RegressionFront`."""

    complete: bool = True


def pareto_front(X: object, y: object, depth: int, *, sample_weight: object = None,
                 min_samples_leaf: int = 1, time_limit: float | None = None,
                 binarizer: object = None) -> PathFront:
    """The best tree of each leaf count ``1 .. 2^depth``, one search for all; see
    :class:`PathPoint` and :class:`PathFront` (``complete``: the search finished in
    ``time_limit``).  ``X``: 0/1 columns (a DataFrame keeps its column names in the
    trees), or raw columns with ``binarizer="auto"`` (quantile cuts: the front is then over
    those thresholds) or a :class:`~optrees.Binarizer`."""
    frame = check_frame(X)
    depth = check_depth(depth, MAX_PATH_DEPTH, "the path's search grows with F^depth")
    classes, y_enc = check_target(y, len(frame))
    w = fit_weights(sample_weight, None, classes, y_enc)
    min_samples_leaf = check_min_leaf(min_samples_leaf, "min_samples_leaf")
    deadline = Deadline(check_time_limit(time_limit))
    frame, y_enc, w = drop_weightless(frame, y_enc, w)
    X01, encoding = binarize(frame, binarizer, w)
    return front_points(X01, y_enc, w, classes, (encoding.names, encoding.negated), depth,
                        min_samples_leaf, deadline)


def front_points(X01: np.ndarray, y_enc: np.ndarray, w: np.ndarray | None,
                 classes: np.ndarray, names: tuple[list[str], list[str]], depth: int,
                 min_leaf: int, deadline: Deadline,
                 max_leaves: int | None = None) -> PathFront:
    """The path on a checked 0/1 matrix (labels ``y_enc`` indexing ``classes``, weights
    ``w``, feature ``names`` and negated names): the points of budget <= ``max_leaves``
    (None: all), their ``lams`` read off the hull of those points."""
    e = small_weight_exponent(w)  # tiny weights searched as weights of mean about 1
    unit = w if e == 0 else np.ldexp(w, -e)
    total = float(len(y_enc) if unit is None else np.sum(unit))
    points = accuracy_front(X01, y_enc, depth, unit, len(classes), min_leaf, deadline)
    out = PathFront()
    out.complete = points.complete
    made: dict[int, BinaryTree] = {}  # budgets whose optimum is the same tree share it
    for p in points:
        if max_leaves is not None and p.budget > max_leaves:
            continue
        tree = made.get(id(p.tree))
        if tree is None:
            tree = made[id(p.tree)] = p.tree.to_binary_tree(classes)
            tree.feature_names, tree.negated_names = list(names[0]), list(names[1])
            tree.set_counts(X01, y_enc, w)
        out.append(PathPoint(p.budget, p.leaves, p.correct / total, p.bound / total,
                             p.optimal, tree, None))
    hull_lams(out, lambda p: p.accuracy)
    return out


def hull_lams(points: list, gain: Callable[[Any], float], tol: float = 0.0) -> None:
    """Set ``lams`` of the points on the upper concave hull of (leaves, ``gain``): point i is
    the optimum for ``lam`` between its slopes (gain per extra leaf) to the next and the
    previous hull point.  ``gain``: accuracy, or minus a regression tree's loss; gains
    within ``tol`` are equal."""
    best: dict[int, Any] = {}
    for p in points:  # one candidate per leaf count: the best
        if p.leaves not in best or gain(p) > gain(best[p.leaves]):
            best[p.leaves] = p

    def slope(a: Any, b: Any) -> float:
        return (gain(b) - gain(a)) / (b.leaves - a.leaves)

    hull: list = []
    for p in sorted(best.values(), key=lambda q: q.leaves):
        if hull and gain(p) <= gain(hull[-1]) + tol:
            continue  # more leaves, no more gain: never an optimum
        while len(hull) >= 2 and slope(hull[-2], hull[-1]) <= slope(hull[-1], p) + tol:
            hull.pop()
        hull.append(p)
    for i, p in enumerate(hull):
        high = np.inf if i == 0 else slope(hull[i - 1], p)
        low = 0.0 if i == len(hull) - 1 else slope(p, hull[i + 1])
        for q in points:
            if q.leaves == p.leaves and gain(q) == gain(p):
                q.lams = (low, high)
