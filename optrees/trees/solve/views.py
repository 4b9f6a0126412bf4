"""Solve a tree problem of another objective on its weighted-classification view, and give
the result back in the objective's units."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from ...models.binary_tree import BinaryTree
from ...models.result import FitResult
from ...models.split_nodes import LEAF
from ..problem.objectives.costs import MisclassificationCosts
from ..problem.objectives.view import ClassificationView


class ViewObjective(Protocol):
    """An objective solved on its view: a cost per row and prediction, summed
    (:class:`~optrees.trees.problem.objectives.costs.MisclassificationCosts`, the policy's
    :class:`~optrees.trees.problem.objectives.policy.PolicyScores`)."""

    name: str

    def view(self, y: np.ndarray, w: np.ndarray | None) -> ClassificationView: ...

    def total(self, y: np.ndarray, predicted: np.ndarray, w: np.ndarray | None) -> float: ...


Solve = Callable[[ClassificationView, float, int], FitResult]
"""``solve(view, lam, min_leaf)``: the fit's own solve on the view's pseudo-rows (``rows``:
indices of the original rows, ``labels``, ``weights``) with that penalty and leaf size."""


def solve_costs(costs: ViewObjective, solve: Solve,
                features: Callable[[], np.ndarray], y: np.ndarray, w: np.ndarray | None,
                lam: float, penalty: str, min_leaf: int) -> FitResult:
    """The tree of least total cost plus penalty: with the leaf penalty (BendOCT), mean cost
    per unit of weight + ``lam`` * leaves; with the split penalty (FlowOCT, BendersOCT),
    (1 - ``lam``) * total cost + ``lam`` * splits.  ``features()`` encodes the original rows
    once the solve has fixed the encoding; the tree's counts are the original rows' class
    weights, its leaves predict the cheapest class."""
    total_weight = float(len(y) if w is None else np.sum(w))
    view = costs.view(y, w)
    if view.weights.sum() > 0:
        result = solve(view, view.lam(lam, penalty, total_weight), view.copies * min_leaf)
        tree = result.model
    else:  # every prediction costs the same: one leaf is optimal (the solve fixes the encoding)
        ones = np.ones(len(y)) if w is None else w
        plain = ClassificationView(np.arange(len(y)), y, ones, 1, 0.0)
        result = solve(plain, lam, min_leaf)
        result.status = "optimal"
        tree = BinaryTree.leaf(0, result.model.classes)
    X = features()
    tree.set_counts(X, y, w)
    if isinstance(costs, MisclassificationCosts):  # from each leaf's class weights
        leaves = tree.feature == LEAF
        cost = costs.leaf_total(tree.counts[leaves], tree.value[leaves])
    else:  # costs per row (a policy's scores): one pass over the rows
        cost = costs.total(y, tree.predict_index(X), w)
    if penalty == "splits":
        objective = (1.0 - lam) * cost + lam * tree.n_splits
    else:
        objective = cost / total_weight + lam * tree.n_leaves
    bound = objective if result.status == "optimal" else \
        min(objective, view.bound(result.bound, lam, penalty, total_weight))
    what = ("(1 - lam) x total misclassification cost + lam x splits" if penalty == "splits"
            else "misclassification cost per unit of row weight + lam x leaves")
    stats = dict(result.stats, objective=f"{what} (lower is better)",
                 pseudo_rows=len(view.rows))
    return FitResult(tree, result.status, objective, bound, result.seconds, stats)
