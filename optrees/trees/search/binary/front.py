"""The accuracy-size front on 0/1 features: the best tree of each leaf count, in one search.

For a depth D, ``F(B)`` is the largest weighted correct of a tree with at most ``B`` leaves,
``B = 1 .. 2^D``.  Every leaf-penalty optimum is read off it: with penalty ``L`` per leaf
(weight units) the optimum is ``max_B F(B) - L * leaves(B)``.  One :class:`.search.Search`
solves the budgets from the largest down: its cache keeps each subproblem per (depth,
budget), as STreeD's node-budget search does, so a smaller budget reuses what the larger ones
proved, and a budget whose larger neighbour's tree already fits inherits it unsearched.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ....solvers.deadline import Deadline
from ...problem.tree_problem import HeapTree
from .data import BinaryData, select_rows
from .search import Search
from .tree import count_leaves, score_tree, to_heap


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


def accuracy_front(X: np.ndarray, y: np.ndarray, depth: int,
                   sample_weight: np.ndarray | None = None, n_classes: int | None = None,
                   min_leaf: int = 1, deadline: Deadline | None = None,
                   backend: str = "auto") -> list[FrontPoint]:
    """``F(B)`` for every leaf budget ``B = 1 .. 2^depth`` of trees of depth <= ``depth`` on
    the 0/1 matrix ``X`` (``min_leaf`` rows on each side of a split).  A point the deadline
    stopped keeps its best tree and a proven bound (``optimal`` False)."""
    depth = int(depth)
    if depth < 0:
        raise ValueError(f"depth must be >= 0, got {depth}")
    data = BinaryData.make(X, y, sample_weight, n_classes)
    rows = select_rows(data.X.shape[0], None)
    search = Search(data, 0.0, backend, deadline, min_leaf=int(min_leaf))
    points: list[FrontPoint] = []
    cap = math.inf
    for budget in range(2**depth, 0, -1):
        above = points[-1] if points else None
        if above is not None and above.optimal and above.leaves <= budget:
            # the larger budget's optimum fits: it is this budget's optimum too
            points.append(FrontPoint(budget, above.correct, above.correct, True,
                                     above.leaves, above.tree))
            continue
        res = search.solve(rows, depth, cap=cap,
                           budget=None if budget >= 2**depth else budget)
        tree = to_heap(res.node, depth, data, rows)
        correct = score_tree(tree, data, rows, 0.0)
        bound = max(min(res.upper, cap), correct)
        optimal = bound <= correct + search.tol and not search.stats.timed_out
        points.append(FrontPoint(budget, correct, correct if optimal else bound, optimal,
                                 count_leaves(res.node), tree))
        cap = points[-1].bound  # F(B - 1) <= F(B)
    points.reverse()
    for i in range(1, len(points)):  # a tie with fewer leaves keeps the smaller tree
        low, here = points[i - 1], points[i]
        if low.optimal and here.optimal and low.correct >= here.correct - search.tol:
            points[i] = FrontPoint(here.budget, low.correct, low.correct, True, low.leaves,
                                   low.tree)
    return points
