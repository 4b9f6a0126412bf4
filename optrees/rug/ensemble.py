"""The leaves of a fitted scikit-learn tree ensemble as rules (RUX, [RUG] §4 / ruleopt's RUX).

A leaf is the conjunction of the tests on its root-to-leaf path (``x <= t`` to the left,
``x > t`` to the right, on the ensemble's own columns and thresholds).  Its class is the
(weighted) majority of the training rows that reach it, for forests and boosting alike
(a boosting tree's leaf values are regression values, not votes).  Which training rows a
leaf covers is read from the ensemble's own ``apply``; the rules' literals select the same
rows (tests/test_rux.py).

Supported: RandomForestClassifier, ExtraTreesClassifier (and other ensembles whose
``estimators_`` are scikit-learn decision trees), GradientBoostingClassifier (every tree
of every class).  HistGradientBoostingClassifier keeps its trees in private binned
structures (categorical bitsets, missing-value directions), so it is refused with a clear
error rather than read half right.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import OptreesInputError
from ..models.rule_set import Literal, simplify_literals


@dataclass
class LeafRules:
    """Every leaf of an ensemble that training rows reach: ``literals[j]`` (the path),
    ``masks`` (n x m bool: training row i reaches leaf j), ``origin[j]`` = (tree, node)."""

    literals: list[tuple[Literal, ...]]
    masks: np.ndarray
    origin: list[tuple[int, int]]


def ensemble_trees(estimator: Any) -> list[Any]:
    """The fitted decision trees of a scikit-learn ensemble (one clear error otherwise)."""
    name = type(estimator).__name__
    if name.startswith("HistGradientBoosting"):
        raise OptreesInputError(
            f"{name} is not supported: its trees are stored in private binned structures "
            "that cannot be read reliably; pass a RandomForestClassifier, "
            "ExtraTreesClassifier or GradientBoostingClassifier")
    if not hasattr(estimator, "fit") or not hasattr(estimator, "predict"):
        raise OptreesInputError(f"estimator must be a fitted scikit-learn tree ensemble, got "
                                f"{name}")
    trees = getattr(estimator, "estimators_", None)
    if trees is None:
        if hasattr(estimator, "n_estimators"):
            raise OptreesInputError(
                f"the {name} is not fitted: call its fit first (scikit-learn's clone, as in "
                "cross_val_score or GridSearchCV, hands RUX an unfitted copy of it)")
        raise OptreesInputError(f"estimator must be a fitted tree ensemble (random forest, "
                                f"extra trees, gradient boosting), got {name}")
    flat = list(np.asarray(trees, dtype=object).ravel())
    if not flat or not all(hasattr(t, "tree_") and hasattr(t, "apply") for t in flat):
        raise OptreesInputError(f"estimator must be an ensemble of decision trees; {name}'s "
                                "estimators_ are not scikit-learn trees")
    return flat


def leaf_rules(trees: list[Any], X: np.ndarray, names: list[str]) -> LeafRules:
    """The leaves that rows of ``X`` reach, over all ``trees``, as rules on columns
    ``names`` (X's columns in the ensemble's order)."""
    X32 = np.ascontiguousarray(X, dtype=np.float32)  # what scikit-learn's trees compare
    literals: list[tuple[Literal, ...]] = []
    masks: list[np.ndarray] = []
    origin: list[tuple[int, int]] = []
    for t, tree in enumerate(trees):
        leaf_of_row = tree.tree_.apply(X32)  # tree.apply without its per-call input checks
        paths = _paths(tree.tree_, names)
        for node in np.unique(leaf_of_row):
            literals.append(simplify_literals(paths[int(node)], names))
            masks.append(leaf_of_row == node)
            origin.append((t, int(node)))
    M = np.column_stack(masks) if masks else np.zeros((len(X32), 0), dtype=bool)
    return LeafRules(literals, M, origin)


def _paths(tree: Any, names: list[str]) -> dict[int, list[Literal]]:
    """For every node of a fitted ``tree_``, the tests on the path from the root to it."""
    left, right = tree.children_left, tree.children_right
    paths: dict[int, list[Literal]] = {0: []}
    stack = [0]
    while stack:
        node = stack.pop()
        if left[node] == -1:  # a leaf
            continue
        feature, t = names[int(tree.feature[node])], float(tree.threshold[node])
        paths[int(left[node])] = paths[node] + [Literal(feature, "<=", t)]
        paths[int(right[node])] = paths[node] + [Literal(feature, ">", t)]
        stack += [int(left[node]), int(right[node])]
    return paths
