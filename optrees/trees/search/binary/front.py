"""The accuracy-size front on 0/1 features: the best tree of each leaf count, in one search.

For a depth D, ``F(B)`` is the largest weighted correct of a tree with at most ``B`` leaves,
``B = 1 .. 2^D``.  Every leaf-penalty optimum is read off it: with penalty ``L`` per leaf
(weight units) the optimum is ``max_B F(B) - L * leaves(B)``.  One search of
:mod:`.leaf_fronts` gives every budget at once: each subproblem keeps its best value for every
leaf count, combined at a split by a (max, +) convolution (STreeD's node-budget recursion with
all budgets kept), instead of one budgeted search per leaf count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ....solvers.deadline import Deadline
from ...problem.tree_problem import HeapTree
from ..threads import one_blas_thread
from .data import BinaryData, select_rows
from .leaf_fronts import FrontSearch
from .search import Search
from .tree import count_leaves, labelled, labelled_many

TRIPLE_CELLS = 1e7
"""Largest ``K * F^3`` (classes times features cubed: one depth-3 node's triple counts,
8 bytes each, three or four held at once under a depth-4 node) searched by
:mod:`.leaf_fronts`; wider data take one budgeted search per leaf count (:func:`_per_budget`),
which counts only pairs.  wdbc:QT_5 (150 features, 2 classes: 6.8e6) peaked at 390 MB."""

@dataclass
class FrontPoint:
    """The best tree with at most ``budget`` leaves: its weighted ``correct``, a proven upper
    ``bound`` on that optimum (== ``correct`` when ``optimal``) and its own ``leaves``."""

    budget: int
    correct: float
    bound: float
    optimal: bool
    leaves: int
    tree: HeapTree


class AccuracyFront(list):
    """The points of :func:`accuracy_front`, budget 1 first (a list of :class:`FrontPoint`),
    and ``complete``: the search finished before the deadline (every point is then exact;
    False: the deadline stopped it and the points keep their best trees and bounds)."""

    complete: bool = True


def accuracy_front(X: np.ndarray, y: np.ndarray, depth: int,
                   sample_weight: np.ndarray | None = None, n_classes: int | None = None,
                   min_leaf: int = 1, deadline: Deadline | None = None,
                   backend: str = "auto") -> AccuracyFront:
    """``F(B)`` for every leaf budget ``B = 1 .. 2^depth`` of trees of depth <= ``depth`` on
    the 0/1 matrix ``X`` (``min_leaf`` rows on each side of a split).  A point the deadline
    stopped keeps its best tree and a proven bound (``optimal`` False; the front's
    ``complete`` False: :class:`AccuracyFront`).  ``backend``: "auto",
    "numba" or "numpy" (the counts and depth-2 fronts, compiled or not)."""
    depth = int(depth)
    if depth < 0:
        raise ValueError(f"depth must be >= 0, got {depth}")
    data = BinaryData.make(X, y, sample_weight, n_classes)
    rows = select_rows(data.X.shape[0], None)
    if depth >= 3 and data.n_classes * float(data.n_features) ** 3 > TRIPLE_CELLS:
        points = _per_budget(data, rows, depth, int(min_leaf), deadline, backend)
        tol = 1e-9 * (1.0 + float(data.w.sum()))
        return _fewest_leaves(points, tol)
    search = FrontSearch(data, int(min_leaf), deadline, backend)
    with one_blas_thread():
        # many small products: BLAS threads cost more than they give, the more so on a
        # loaded machine (tic-tac-toe's triple counts: 60 ms threaded, 0.8 ms on one)
        front = search.front(rows, depth)
    points = AccuracyFront()
    nodes = {id(node): node for node in front.trees}  # budgets share trees: each made once
    made = dict(zip(nodes, labelled_many(list(nodes.values()), depth, data, rows),
                    strict=True))
    for budget in range(1, 2**depth + 1):
        node = front.trees[budget - 1]
        tree, correct = made[id(node)]  # the tree and its score
        bound = max(float(front.upper[budget - 1]), correct)
        optimal = bound <= correct + search.tol and not search.timed_out
        points.append(FrontPoint(budget, correct, correct if optimal else bound, optimal,
                                 count_leaves(node), tree))
    points.complete = not search.timed_out
    return _fewest_leaves(points, search.tol)


def _fewest_leaves(points: AccuracyFront, tol: float) -> AccuracyFront:
    """A budget tied with the one below keeps the smaller tree."""
    for i in range(1, len(points)):
        low, here = points[i - 1], points[i]
        if low.optimal and here.optimal and low.correct >= here.correct - tol:
            points[i] = FrontPoint(here.budget, low.correct, low.correct, True, low.leaves,
                                   low.tree)
    return points


def _per_budget(data: BinaryData, rows: np.ndarray, depth: int, min_leaf: int,
                deadline: Deadline | None, backend: str) -> AccuracyFront:
    """The front by one budgeted :class:`.search.Search` per leaf count, largest first,
    sharing its cache (each budget capped by the one above; a budget whose larger
    neighbour's optimum fits inherits it): no ``F^3`` counts, for wide data."""
    search = Search(data, 0.0, backend, deadline, min_leaf=min_leaf)
    points: list[FrontPoint] = []
    cap = math.inf
    for budget in range(2**depth, 0, -1):
        above = points[-1] if points else None
        if above is not None and above.optimal and above.leaves <= budget:
            points.append(FrontPoint(budget, above.correct, above.correct, True,
                                     above.leaves, above.tree))
            continue
        res = search.solve(rows, depth, cap=cap,
                           budget=None if budget >= 2**depth else budget)
        tree, correct = labelled(res.node, depth, data, rows)
        bound = max(min(res.upper, cap), correct)
        optimal = bound <= correct + search.tol and not search.stats.timed_out
        points.append(FrontPoint(budget, correct, correct if optimal else bound, optimal,
                                 count_leaves(res.node), tree))
        cap = points[-1].bound  # F(B - 1) <= F(B)
    front = AccuracyFront(points[::-1])
    front.complete = not search.stats.timed_out  # any budget's search stopped: not complete
    return front
