"""The solve path of :class:`~optrees.estimators.survival.OptimalSurvivalTree`: the exact
search of :func:`~optrees.trees.solve.regression.search_additive` (on 0/1 columns the 0/1
search, else every threshold; compiled with the survival leaf cost) with the survival leaf
loss (:mod:`optrees.trees.problem.objectives.survival`), CART on the null model's martingale
residuals first, the result as a :class:`FitResult` of a
:class:`~optrees.models.regression_tree.RegressionTree` whose leaf values are hazard ratios.

The objective is ``loss / loss_1 + lam * leaves`` (``loss_1``: the loss of a single leaf),
so ``lam`` means the same on every data set and a single leaf costs ``1 + lam``; the search
runs on statistics divided by ``loss_1`` (the loss is homogeneous in them), with costs of
order 1 as the search's tolerances assume.  The raw loss (STreeD's) is ``stats["loss"]``.
"""

from __future__ import annotations

import numpy as np

from ...models.regression_tree import RegressionTree
from ...models.result import FitResult
from ...solvers.deadline import Deadline
from ..problem.objectives.survival import SurvivalLoss
from .regression import fit_result, search_additive

MAX_SURVIVAL_DEPTH = 3
"""Deepest survival tree solved over every threshold (the search is tested to depth 3)."""


def solve_survival_tree(X: np.ndarray, y: np.ndarray, w: np.ndarray | None, depth: int,
                        lam: float, min_leaf: int, deadline: Deadline,
                        names: tuple[list[str], list[str], list[bool]] | None = None,
                        random_state: int = 0, max_leaves: int | None = None
                        ) -> tuple[FitResult, SurvivalLoss]:
    """The best survival tree of depth <= ``depth`` over every threshold of the float matrix
    ``X`` (rows of weight > 0; ``y``: ``(n, 2)`` of event 0/1 and time), at least
    ``min_leaf`` rows per leaf and at most ``max_leaves`` leaves (None: no limit);
    "optimal" when proved within ``deadline``, else "time_limit" with the best tree found
    (never worse than the CART start) and a valid lower bound.  Also returns the loss (its
    Nelson–Aalen baseline is the model's)."""
    y = np.asarray(y, dtype=np.float64)
    loss = SurvivalLoss.fit(y, w)
    row_stats = loss.row_stats(y, w)
    one_leaf = float(loss.leaf_cost(row_stats.sum(axis=0)))
    scale = one_leaf if one_leaf > 0 else 1.0
    residual = y[:, 0] - loss.baseline(y[:, 1])  # martingale residuals of one leaf
    searched = search_additive(
        loss, X, row_stats / scale, (residual, w), depth, lam, min_leaf, deadline,
        lambda Xs: loss.lower_bound(Xs, y, w) / scale, random_state, max_leaves)
    feature_names, negated, numeric = names if names is not None else (None, None, None)
    tree, leaf = hazard_tree(searched.found.tree, X, y, w, loss, feature_names)
    tree.negated_names, tree.numeric = negated, numeric
    raw = tree_loss(tree, leaf, row_stats, loss)
    value = raw / scale + lam * tree.n_leaves
    result = fit_result("survival", searched, tree, value,
                        {"loss": raw, "single_leaf_loss": one_leaf})
    return result, loss


def hazard_tree(nested: tuple | None, X: np.ndarray, y: np.ndarray, w: np.ndarray | None,
                loss: SurvivalLoss, feature_names: list[str] | None = None
                ) -> tuple[RegressionTree, np.ndarray]:
    """The nested tree as a :class:`RegressionTree` whose node values are hazard ratios
    ``theta`` (:meth:`SurvivalLoss.prediction`), with the nodes' training weight and count,
    and the leaf of each training row.
    ``theta = D / L`` is the weighted mean of ``d / h`` with weights ``w h`` (h > 0)."""
    weights = np.ones(len(y)) if w is None else np.asarray(w, dtype=np.float64)
    tree, leaf = RegressionTree.routed(nested, X, y[:, 0], weights, feature_names)
    events = tree.value * tree.weight            # D of every node
    exposure = tree.node_sums(leaf, weights * loss.baseline(y[:, 1]))  # L
    tree.value = loss.prediction(np.stack([events, exposure], axis=-1))
    return tree, leaf


def tree_loss(tree: RegressionTree, leaf: np.ndarray, row_stats: np.ndarray,
              loss: SurvivalLoss) -> float:
    """The loss of ``tree``'s partition of the training rows (``leaf``: each row's leaf;
    each leaf at its best ``theta``)."""
    sums = np.zeros((tree.n_nodes, row_stats.shape[1]))
    np.add.at(sums, leaf, row_stats)
    return float(loss.leaf_cost(sums).sum())
