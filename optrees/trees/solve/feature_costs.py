"""The fit of a tree whose tests cost (``FeatureCosts``): the 0/1 feature-cost search
(:mod:`optrees.trees.search.binary.feature_costs`), its tree and bound in the objective's
units; no MIP carries feature costs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...models.binary_tree import BinaryTree
from ...models.result import FitResult
from ...solvers.deadline import Deadline
from ..problem.objectives.costs import MisclassificationCosts
from ..problem.objectives.feature_costs import FeatureCosts
from ..problem.tree_problem import HeapTree
from ..search.binary.data import BinaryData, select_rows
from ..search.binary.feature_costs import solve_feature_costs
from ..search.binary.tree import to_heap


def solve_with_feature_costs(X: np.ndarray, feature_columns: Sequence[str],
                             names: tuple[list[str], list[str]], y: np.ndarray,
                             w: np.ndarray | None, classes: np.ndarray, depth: int,
                             lam: float, penalty: str, min_leaf: int, costs: FeatureCosts,
                             matrix: MisclassificationCosts | None,
                             deadline: Deadline) -> FitResult:
    """The best tree over the 0/1 matrix ``X`` when its tests cost (``costs``), for
    accuracy or, with ``matrix``, misclassification costs.  Objective (BendOCT's leaf
    penalty): (correct - feature cost) / weight - lam * leaves, or with a matrix (its cost
    + feature cost) / weight + lam * leaves (lower is better); with the split penalty
    (1 - lam) * (the same totals) -/+ lam * splits."""
    n = len(y)
    weights = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    total = float(weights.sum())
    # a leaf's penalty in weight units (the search's): lam * W, or lam / (1 - lam) per split
    L = lam * total if penalty == "leaves" else lam / (1.0 - lam)
    column, column_cost = costs.of_features(list(feature_columns))
    view = None if matrix is None else matrix.view(y, weights)
    found = solve_feature_costs(
        X, y, depth, L, column, column_cost,
        sample_weight=weights if view is None else view.best, cost_weight=weights,
        n_classes=len(classes), gains=None if view is None else view.unit_gains,
        min_leaf=min_leaf, deadline=deadline)
    data = BinaryData.make(X, y, weights if view is None else view.best, len(classes),
                           None if view is None else view.unit_gains)
    heap = to_heap(found.node, depth, data, select_rows(n, None))
    tree = heap.to_binary_tree(classes)
    tree.feature_names, tree.negated_names = list(names[0]), list(names[1])
    tree.set_counts(X, y, w)
    objective, bound = _objective(tree, heap, X, y, weights, column, column_cost, lam,
                                  penalty, matrix, found.bound, view)
    stats = {"bb_nodes": 0, "search_seconds": found.stats["seconds"],
             "search_nodes": found.stats["nodes"], "search_optimal": found.optimal,
             "objective": "misclassification and feature cost (lower is better)"
             if matrix is not None else "accuracy minus feature cost",
             "feature_cost": float(weights @ FeatureCosts.row_costs(heap, X, column,
                                                                     column_cost)) / total,
             "mip": "off: feature costs (the search's bound)"}
    return FitResult(tree, "optimal" if found.optimal else "time_limit", objective,
                     objective if found.optimal else bound, found.stats["seconds"], stats)


def _objective(tree: BinaryTree, heap: HeapTree, X: np.ndarray, y: np.ndarray,
               w: np.ndarray, column: np.ndarray, column_cost: np.ndarray, lam: float,
               penalty: str, matrix: MisclassificationCosts | None, search_bound: float,
               view: Any) -> tuple[float, float]:
    """The tree's objective from its predictions and paths, and the search's bound in the
    same units (an upper bound for accuracy, a lower bound for costs)."""
    total = float(w.sum())
    paid = float(w @ FeatureCosts.row_costs(heap, X, column, column_cost))
    pred = tree.predict_index(X)
    if matrix is None:
        gain, sign = float(w[pred == y].sum()) - paid, -1.0
        # the search maximizes correct - paid - L * leaves
        bound = search_bound / total if penalty == "leaves" else \
            (1.0 - lam) * search_bound + lam
    else:
        gain, sign = matrix.total(y, pred, w) + paid, 1.0
        # the search maximizes offset - cost - paid - L * leaves
        bound = (view.offset - search_bound) / total if penalty == "leaves" else \
            (1.0 - lam) * (view.offset - search_bound) - lam
    if penalty == "leaves":
        objective = gain / total + sign * lam * tree.n_leaves
    else:
        objective = (1.0 - lam) * gain + sign * lam * tree.n_splits
    return objective, bound
