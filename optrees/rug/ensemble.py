"""The leaves of a fitted scikit-learn tree ensemble as rules (RUX, [RUG] §4 / ruleopt's RUX).

A leaf is the conjunction of the tests on its root-to-leaf path (``x <= t`` to the left,
``x > t`` to the right, on the ensemble's own columns and thresholds).  Its class is the
(weighted) majority of the training rows that reach it, for forests and boosting alike
(a boosting tree's leaf values are regression values, not votes).  Which training rows a
leaf covers is read from the ensemble's own ``apply``; the rules' literals select the same
rows (tests/test_rux.py).

Supported: RandomForestClassifier, ExtraTreesClassifier (and other ensembles whose
``estimators_`` are scikit-learn decision trees), GradientBoostingClassifier (every tree
of every class), and HistGradientBoostingClassifier when none of its splits is categorical:
its trees (``_predictors``, scikit-learn's private predictor nodes) test ``x <= t`` on the
raw float64 values, which rules express exactly; a categorical split (a bitset of
categories) is refused with a clear error rather than read half right.  The rows a
histogram tree's leaf covers are found by walking its nodes here (it has no ``apply``).
LightGBM and XGBoost classifiers are read as node arrays too (``optrees.rug.boosters``);
XGBoost's tests are strict, ``x < t``, and its rules say so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._numbers import short_threshold
from .._validation import OptreesInputError
from ..models.rule_set import Literal, simplify_literals
from ..solvers.deadline import Deadline
from .boosters import booster_arrays


@dataclass
class LeafRules:
    """Every leaf of an ensemble that training rows reach: ``literals[j]`` (the path),
    ``leaf_of_row`` (n x trees read: the leaf, a column ``j``, each training row reaches),
    ``origin[j]`` = (tree, node).  No dense n x leaves matrix is kept (245,057 rows of skin
    and 800 leaves: 196 MB): the cover is sparse, one entry per row and tree."""

    literals: list[tuple[Literal, ...]]
    leaf_of_row: np.ndarray
    origin: list[tuple[int, int]]
    n_trees: int = 0  # the ensemble's trees
    n_read: int = 0  # those read (fewer when a deadline stopped the reading)
    unread: list[Any] = field(default_factory=list)  # the trees not read (a stopped reading)
    X: np.ndarray | None = None  # the rows read, for pricing the unread trees' leaves

    @property
    def n_leaves(self) -> int:
        return len(self.origin)

    @property
    def masks(self) -> np.ndarray:
        """n x leaves bool: training row i reaches leaf j (dense: for small data and tests)."""
        return self.cover().toarray()

    def cover(self, rows: np.ndarray | None = None) -> sp.csc_matrix:
        """The rows (all, or ``rows``, in that order) x leaves cover, sparse: column ``j``
        holds the rows reaching leaf ``j``, ascending."""
        of_row = self.leaf_of_row if rows is None else self.leaf_of_row[rows]
        n, m = len(of_row), self.n_leaves
        flat = of_row.ravel()
        order = np.argsort(flat, kind="stable")  # by column, rows ascending within one
        at = order // max(of_row.shape[1], 1)
        indptr = np.concatenate([[0], np.cumsum(np.bincount(flat, minlength=m))])
        return sp.csc_matrix((np.ones(len(at), dtype=bool), at, indptr), shape=(n, m))

    def packed(self) -> np.ndarray:
        """``np.packbits(masks, axis=1)`` without the masks: n x ceil(leaves / 8) bytes, the
        bit of leaf ``j`` in byte ``j // 8`` from the high end (a row's leaves of one tree
        are one bit)."""
        n = len(self.leaf_of_row)
        out = np.zeros((n, (self.n_leaves + 7) // 8), dtype=np.uint8)
        rows = np.arange(n)
        for col in self.leaf_of_row.T:
            out[rows, col // 8] |= (np.uint8(128) >> (col % 8)).astype(np.uint8)
        return out


def ensemble_trees(estimator: Any) -> list[Any]:
    """The fitted trees of a scikit-learn ensemble, each with ``apply(X)`` (the leaf each
    row reaches) and ``paths(names)`` (the tests on the way to each node); one clear error
    otherwise."""
    name = type(estimator).__name__
    if not hasattr(estimator, "fit") or not hasattr(estimator, "predict"):
        raise OptreesInputError(f"estimator must be a fitted scikit-learn tree ensemble, got "
                                f"{name}")
    boosted = booster_arrays(estimator)
    if boosted is not None:
        arrays, strict = boosted
        return [_NodeTree(**a, strict=strict) for a in arrays]
    if name.startswith("HistGradientBoosting"):
        return _histogram_trees(estimator, name)
    trees = getattr(estimator, "estimators_", None)
    if trees is None:
        _not_fitted(estimator, name)
    flat = list(np.asarray(trees, dtype=object).ravel())
    if not flat or not all(hasattr(t, "tree_") and hasattr(t, "apply") for t in flat):
        raise OptreesInputError(f"estimator must be an ensemble of decision trees; {name}'s "
                                "estimators_ are not scikit-learn trees")
    return [_DecisionTree(t.tree_) for t in flat]


def _not_fitted(estimator: Any, name: str) -> None:
    if hasattr(estimator, "n_estimators") or hasattr(estimator, "max_iter"):
        raise OptreesInputError(
            f"the {name} is not fitted: call its fit first (scikit-learn's clone, as in "
            "cross_val_score or GridSearchCV, hands RUX an unfitted copy of it)")
    raise OptreesInputError(f"estimator must be a fitted tree ensemble (random forest, "
                            f"extra trees, gradient boosting), got {name}")


def _histogram_trees(estimator: Any, name: str) -> list[Any]:
    predictors = getattr(estimator, "_predictors", None)
    if predictors is None:
        _not_fitted(estimator, name)
    try:
        trees = [_NodeTree.histogram(p.nodes) for per_iteration in predictors
                 for p in per_iteration]
    except (AttributeError, ValueError) as exc:  # a scikit-learn whose nodes differ
        raise OptreesInputError(f"cannot read the trees of this {name} ({exc}); pass a "
                                "RandomForestClassifier or GradientBoostingClassifier") from None
    if any(t.categorical for t in trees):
        raise OptreesInputError(
            f"this {name} has categorical splits (a set of categories per test), which rules "
            "of x <= t cannot express: fit it without categorical_features, or pass a "
            "RandomForestClassifier or GradientBoostingClassifier")
    return trees


class _DecisionTree:
    """A scikit-learn decision tree (``tree_``), read as RUX reads every tree."""

    def __init__(self, tree: Any) -> None:
        self.tree = tree

    def apply(self, X: np.ndarray) -> np.ndarray:
        # tree.apply without its per-call input checks, on float32 as scikit-learn compares
        return self.tree.apply(np.ascontiguousarray(X, dtype=np.float32))

    def depth(self) -> int:
        """The most tests on a path from the root to a leaf."""
        return int(self.tree.max_depth)

    def paths(self, names: list[str], columns: np.ndarray) -> dict[int, list[Literal]]:
        t = self.tree
        return _paths(t.children_left, t.children_right, t.children_left == -1, t.feature,
                      t.threshold, names, columns)


class _NodeTree:
    """A tree as node arrays (HistGradientBoosting's predictor nodes, LightGBM, XGBoost): a
    row goes left when ``x <= threshold`` (``x < threshold`` when ``strict``), compared in
    float64 as the rules compare."""

    def __init__(self, left: np.ndarray, right: np.ndarray, leaf: np.ndarray,
                 feature: np.ndarray, threshold: np.ndarray, strict: bool = False,
                 categorical: bool = False) -> None:
        self.left, self.right, self.leaf = left, right, leaf
        self.feature, self.threshold = feature, threshold
        self.strict, self.categorical = strict, categorical

    @classmethod
    def histogram(cls, nodes: np.ndarray) -> _NodeTree:
        """A HistGradientBoosting predictor's node array."""
        leaf = nodes["is_leaf"].astype(bool)
        return cls(nodes["left"].astype(np.int64), nodes["right"].astype(np.int64), leaf,
                   nodes["feature_idx"].astype(np.int64),
                   nodes["num_threshold"].astype(np.float64),
                   categorical=bool(np.any(nodes["is_categorical"][~leaf])))

    def apply(self, X: np.ndarray) -> np.ndarray:
        node = np.zeros(len(X), dtype=np.int64)
        rows = np.arange(len(X))
        goes_left = np.less if self.strict else np.less_equal
        while rows.size:  # every row moves down one level per pass
            n = node[rows]
            inner = ~self.leaf[n]
            rows, n = rows[inner], n[inner]
            go_left = goes_left(X[rows, self.feature[n]], self.threshold[n])
            node[rows] = np.where(go_left, self.left[n], self.right[n])
        return node

    def paths(self, names: list[str], columns: np.ndarray) -> dict[int, list[Literal]]:
        return _paths(self.left, self.right, self.leaf, self.feature, self.threshold, names,
                      columns, self.strict)

    def depth(self) -> int:
        """The most tests on a path from the root to a leaf."""
        level, nodes = 0, np.array([0])
        while True:
            inner = nodes[~self.leaf[nodes]]
            if not inner.size:
                return level
            nodes, level = np.concatenate([self.left[inner], self.right[inner]]), level + 1


def leaf_rules(trees: list[Any], X: np.ndarray, names: list[str],
               deadline: Deadline | None = None) -> LeafRules:
    """The leaves that rows of ``X`` reach, over all ``trees``, as rules on columns
    ``names`` (X's columns in the ensemble's order); only the first trees (at least one)
    when ``deadline`` passes while they are read."""
    X = np.asarray(X, dtype=np.float64)
    literals: list[tuple[Literal, ...]] = []
    # per tree, the column of the leaf each row reaches: one int32 write per row and tree
    # (stacking a mask per leaf took 7 s on 245,057 rows of skin; int64 columns stacked
    # afterwards held two copies of 196 MB there)
    leaf_of_row = np.empty((len(X), len(trees)), dtype=np.int32)
    origin: list[tuple[int, int]] = []
    read = 0
    columns = np.sort(X, axis=0)  # each column's values: a threshold's short text
    for t, tree in enumerate(trees):
        nodes, leaf = np.unique(tree.apply(X), return_inverse=True)
        paths = tree.paths(names, columns)
        leaf_of_row[:, t] = len(origin) + leaf.ravel()
        for node in nodes:
            literals.append(simplify_literals(paths[int(node)], names))
            origin.append((t, int(node)))
        read = t + 1
        if deadline is not None and deadline.expired():
            break
    if read < len(trees):
        leaf_of_row = np.ascontiguousarray(leaf_of_row[:, :read])
    return LeafRules(literals, leaf_of_row, origin, len(trees), read, list(trees[read:]),
                     X if read < len(trees) else None)


def _paths(left: np.ndarray, right: np.ndarray, leaf: np.ndarray, feature: np.ndarray,
           threshold: np.ndarray, names: list[str], columns: np.ndarray,
           strict: bool = False) -> dict[int, list[Literal]]:
    """For every node of a tree (its child arrays, which nodes are leaves, its tests
    ``x_feature <= threshold`` to the left, ``<`` when ``strict``), the tests on the path
    from the root to it; each threshold written as the shortest decimal that splits the
    training rows (``columns``: each column sorted) as it does (a float32 threshold
    4.900000095367432 becomes 4.9, the text then saying what the rule tests)."""
    to_left, to_right = ("<", ">=") if strict else ("<=", ">")
    paths: dict[int, list[Literal]] = {0: []}
    stack = [0]
    while stack:
        node = stack.pop()
        if leaf[node]:
            continue
        f = int(feature[node])
        name, t = names[f], short_threshold(float(threshold[node]), columns[:, f], strict)
        paths[int(left[node])] = paths[node] + [Literal(name, to_left, t)]
        paths[int(right[node])] = paths[node] + [Literal(name, to_right, t)]
        stack += [int(left[node]), int(right[node])]
    return paths
