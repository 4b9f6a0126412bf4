"""BinaryTree: the fitted binary decision tree shared by every method that produces one.

A node either tests ``x[feature] <= threshold`` (true -> left child, false -> right child) or is
a leaf.  On 0/1 data the threshold is 0.5, so ``x_f = 0`` goes left and ``x_f = 1`` goes right,
as in FlowOCT (flowoct-benders.txt §2.1).  Every node carries a predicted class, so labels at
internal nodes (the paper allows them) are kept; prediction uses the leaf a sample reaches.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._numbers import threshold_text
from .._validation import OptreesInputError
from ..export.nodes import count_text
from . import _schema as schema
from .drawn import Drawn
from .split_nodes import LEAF, SplitNodes


class BinaryTree(Drawn, SplitNodes):
    """Per-node arrays: ``feature`` (-1 at leaves), ``threshold``, ``left``, ``right``, ``value``.

    ``value[n]`` is the index of the predicted class in ``classes``; ``counts[n, k]`` are the
    training samples of class k that reach node n (used by :meth:`predict_proba`).
    """

    def __init__(
        self,
        feature: Sequence[int],
        threshold: Sequence[float],
        left: Sequence[int],
        right: Sequence[int],
        value: Sequence[int],
        classes: Sequence[Any],
        counts: np.ndarray | None = None,
        feature_names: Sequence[str] | None = None,
        negated_names: Sequence[str] | None = None,
        numeric: Sequence[bool] | None = None,
    ) -> None:
        self.feature = np.asarray(feature, dtype=np.int64)
        self.threshold = np.asarray(threshold, dtype=float)
        self.left = np.asarray(left, dtype=np.int64)
        self.right = np.asarray(right, dtype=np.int64)
        self.value = np.asarray(value, dtype=np.int64)
        self.classes = np.asarray(classes)
        n = len(self.feature)
        if not (len(self.threshold) == len(self.left) == len(self.right) == len(self.value) == n):
            raise ValueError("BinaryTree node arrays must all have the same length")
        if n == 0:
            raise ValueError("BinaryTree needs at least one node")
        self.counts = (  # weight of each class's training rows (row counts without weights)
            np.zeros((n, len(self.classes)))
            if counts is None
            else np.asarray(counts, dtype=np.float64)
        )
        self.feature_names = None if feature_names is None else [str(s) for s in feature_names]
        self.negated_names = None if negated_names is None else [str(s) for s in negated_names]
        # per feature: a raw number (not only 0 and 1), whose tests print as "x <= t" / "x > t"
        # even at t = 0.5; None: every feature split at 0.5 is a 0/1 literal
        self.numeric = None if numeric is None else [bool(v) for v in numeric]
        self.weighted = False  # counts are sample weights, not rows (:meth:`set_counts`)
        self.rows: np.ndarray | None = None  # training rows per node, kept when weighted

    # ----------------------------------------------------------------- structure
    @property
    def n_splits(self) -> int:
        """Number of internal (splitting) nodes."""
        return self.n_nodes - self.n_leaves

    def is_leaf(self, node: int) -> bool:
        """Whether node ``node`` is a leaf."""
        return bool(self.feature[node] == LEAF)

    # ----------------------------------------------------------------- prediction
    def predict_index(self, X: np.ndarray) -> np.ndarray:
        """Predicted class indices (0..K-1)."""
        return self.value[self.apply(X)]

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Predicted label (from ``classes``) of each row of the feature matrix ``X``."""
        return self.classes[self.predict_index(X)]

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Training class frequencies at the reached leaf (an empty leaf: its own label)."""
        leaf = self.apply(X)
        counts = self.counts[leaf].astype(float)
        total = counts.sum(axis=1, keepdims=True)
        onehot = np.eye(len(self.classes))[self.value[leaf]]
        # (a leaf's total is a weight: 0.048 under small sample weights, not at least 1)
        return np.where(total > 0, counts / np.where(total > 0, total, 1.0), onehot)

    def set_counts(self, X: np.ndarray, y_index: np.ndarray,
                   sample_weight: np.ndarray | None = None) -> BinaryTree:
        """Record per-node class counts of training data (y given as class indices): the
        weight of each class's rows with ``sample_weight`` (as scikit-learn's trees do)."""
        K = len(self.classes)
        y_index = np.asarray(y_index)
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=float)
        # one bincount over (node, class) of every row at every level it reaches: the sums
        # of np.add.at level by level (each node lies on one level; rows in the same order)
        cells, weights = [], []
        for rows, nodes, _ in self._descend(X):
            cells.append(nodes * K + y_index[rows])
            weights.append(np.ones(len(rows)) if w is None else w[rows])
        self.counts = np.bincount(np.concatenate(cells), np.concatenate(weights),
                                  minlength=self.n_nodes * K).reshape(self.n_nodes, K)
        self.weighted = w is not None and not bool(np.all(w == 1.0))
        self.rows = (np.bincount(np.concatenate(cells) // K, minlength=self.n_nodes)
                     if self.weighted else None)
        return self

    # ----------------------------------------------------------------- text
    def boolean_test(self, node: int) -> bool:
        """Whether node ``node`` tests a 0/1 feature (printed as the literal and its negation,
        the right branch meaning it holds) rather than ``x <= t`` on a number."""
        f = int(self.feature[node])
        return float(self.threshold[node]) == 0.5 and not (self.numeric is not None
                                                           and self.numeric[f])

    def _test_text(self, n: int, names: Sequence[str] | None, branch: str) -> str:
        f, t = int(self.feature[n]), float(self.threshold[n])
        name = names[f] if names is not None else f"x[{f}]"
        if self.boolean_test(n):  # a 0/1 literal: right branch means the literal holds
            if branch == "right":
                return name
            if names is self.feature_names and self.negated_names is not None:
                return self.negated_names[f]
            return f"not ({name})"
        text = threshold_text(t)
        return f"{name} <= {text}" if branch == "left" else f"{name} > {text}"

    def export_text(self, feature_names: Sequence[str] | None = None,
                    leaf_text: Callable[[int], str] | None = None) -> str:
        """Readable indented text of the tree, with literal names when given; ``leaf_text``
        (node index -> text) replaces the leaves' "class: k  (correct/rows correct)" (with
        sample weights "(weight w_correct/w_total correct)")."""
        names = self.feature_names if feature_names is None else list(feature_names)
        lines: list[str] = []

        def class_text(n: int) -> str:
            cnt = self.counts[n]
            total = float(cnt.sum())
            label = self.classes[self.value[n]]
            if total:
                right = count_text(cnt[self.value[n]])
                weight = "weight " if self.weighted else ""
                return f"class: {label}  ({weight}{right}/{count_text(total)} correct)"
            return f"class: {label}"

        leaf_text = class_text if leaf_text is None else leaf_text

        def walk(n: int, indent: str) -> None:
            if self.feature[n] == LEAF:
                lines.append(f"{indent}|--- {leaf_text(n)}")
                return
            for branch, child in (("left", self.left[n]), ("right", self.right[n])):
                lines.append(f"{indent}|--- {self._test_text(n, names, branch)}")
                walk(int(child), indent + "|   ")

        if self.feature[0] == LEAF:
            lines.append(leaf_text(0))
        else:
            walk(0, "")
        return "\n".join(lines)

    def _plot_nodes(self, feature_names: Sequence[str] | None = None) -> Any:
        """Picture description for :mod:`optrees.export`."""
        from ..export import binary_tree_nodes

        return binary_tree_nodes(self, None if feature_names is None else list(feature_names))

    def __repr__(self) -> str:
        classes = list(self.classes)
        return f"BinaryTree(depth={self.depth}, leaves={self.n_leaves}, classes={classes})"

    # ----------------------------------------------------------------- serialization
    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-ready description of the tree (read back by :meth:`from_dict`)."""
        return {
            "kind": "binary_tree",
            "feature": self.feature.tolist(),
            "threshold": self.threshold.tolist(),
            "left": self.left.tolist(),
            "right": self.right.tolist(),
            "value": self.value.tolist(),
            "classes": [c.item() if hasattr(c, "item") else c for c in self.classes],
            "counts": _counts_json(self.counts),
            "counts_weighted": self.weighted,
            **({} if self.rows is None else {"rows": self.rows.tolist()}),
            "feature_names": self.feature_names,
            "negated_names": self.negated_names,
            "numeric": self.numeric,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], n_features: int | None = None) -> BinaryTree:
        """The tree described by :meth:`to_dict`, checked first: a damaged or hand-edited
        description (a cycle, a child out of range, a feature index beyond the features,
        a threshold that is no number, ...) raises one OptreesInputError naming the problem.
        ``n_features``: the width of the matrix the tree predicts on, if known (else the
        number of ``feature_names``, if given, bounds the feature indices)."""
        if not isinstance(data, dict) or data.get("kind") != "binary_tree":
            kind = data.get("kind") if isinstance(data, dict) else type(data).__name__
            raise OptreesInputError(f"not a binary tree model (kind={kind!r})")
        names = _names(data, "feature_names", n_features)
        negated = _names(data, "negated_names", n_features if names is None else len(names))
        if n_features is None and names is not None:
            n_features = len(names)
        feature, threshold, left, right = _checked_nodes(data, n_features)
        classes = schema.labels(schema.sequence(data, "classes"), "'classes'")
        if not classes:
            schema.fail("'classes' is empty")
        n = len(feature)
        value = schema.ints(schema.sequence(data, "value", n), "'value'", 0, len(classes))
        numeric = None if data.get("numeric") is None else schema.booleans(
            schema.sequence(data, "numeric", n_features), "'numeric'")
        if numeric is not None and max(feature) >= len(numeric):
            schema.fail("'numeric' has fewer entries than the tree has features")
        tree = cls(feature, threshold, left, right, value, classes,
                   counts=_checked_counts(data, n, len(classes)),
                   feature_names=names, negated_names=negated, numeric=numeric)
        tree.weighted = data.get("counts_weighted") is True
        if data.get("rows") is not None:  # rows per node of a weighted tree's counts
            tree.rows = np.asarray(schema.ints(schema.sequence(data, "rows", n), "'rows'", 0,
                                               None), dtype=np.int64)
        return tree

    def save(self, path: str | Path) -> None:
        """Write :meth:`to_dict` as JSON (atomically: a complete file or none)."""
        from .._files import write_atomic

        write_atomic(path, json.dumps(self.to_dict(), indent=1))

    # ----------------------------------------------------------------- construction
    @classmethod
    def leaf(cls, value: int, classes: Sequence[Any]) -> BinaryTree:
        """A one-node tree predicting class index ``value``."""
        return cls([LEAF], [0.0], [LEAF], [LEAF], [value], classes)

    @classmethod
    def from_heap(
        cls,
        split_feature: dict[int, int],
        label: dict[int, int],
        classes: Sequence[Any],
        threshold: dict[int, float] | None = None,
    ) -> BinaryTree:
        """Build from heap-numbered nodes (root 1, children 2n and 2n+1).

        ``split_feature[n]`` is the feature tested at n (absent = n does not branch); ``label[n]``
        the class index at n.  Nodes below a non-branching node are dropped.
        """
        feature, thr, left, right, value = [], [], [], [], []

        def build(h: int) -> int:
            idx = len(feature)
            feature.append(LEAF)
            thr.append(0.5)
            left.append(LEAF)
            right.append(LEAF)
            value.append(int(label.get(h, 0)))
            if h in split_feature:
                feature[idx] = int(split_feature[h])
                if threshold is not None:
                    thr[idx] = float(threshold[h])
                left[idx] = build(2 * h)
                right[idx] = build(2 * h + 1)
            return idx

        build(1)
        return cls(feature, thr, left, right, value, classes)


def _names(data: dict[str, Any], key: str, n: int | None) -> list[str] | None:
    """Optional list of ``n`` strings (feature names or their negations)."""
    if data.get(key) is None:
        return None
    return schema.strings(schema.sequence(data, key, n), f"'{key}'")


def _checked_nodes(data: dict[str, Any], n_features: int | None
                   ) -> tuple[list[int], list[float], list[int], list[int]]:
    """Node arrays that form a tree: splits on existing features at finite thresholds,
    leaves without children, every node reached from the root exactly once."""
    feature = schema.sequence(data, "feature")
    n = len(feature)
    if n == 0:
        schema.fail("the tree has no nodes")
    feature = schema.ints(feature, "'feature'", LEAF, n_features)
    threshold = schema.reals(schema.sequence(data, "threshold", n), "'threshold'")
    left = schema.ints(schema.sequence(data, "left", n), "'left'", LEAF, n)
    right = schema.ints(schema.sequence(data, "right", n), "'right'", LEAF, n)
    children = []
    for node in range(n):
        if feature[node] == LEAF:
            if left[node] != LEAF or right[node] != LEAF:
                schema.fail(f"node {node} is a leaf (feature -1) but has children")
            children.append([])
        else:
            children.append([left[node], right[node]])
    schema.check_tree(children)
    return feature, threshold, left, right


def _counts_json(counts: np.ndarray) -> list:
    """Counts for JSON: integers when every count is whole (no sample weights), else floats."""
    whole = np.array_equal(counts, np.round(counts))
    return counts.astype(np.int64).tolist() if whole else counts.tolist()


def _checked_counts(data: dict[str, Any], n: int, k: int) -> np.ndarray | None:
    """Optional training class counts: ``n`` rows of ``k`` numbers >= 0 (weights; integers
    in files saved without sample weights)."""
    if data.get("counts") is None:
        return None
    rows = schema.sequence(data, "counts", n)
    for node, row in enumerate(rows):
        what = f"'counts'[{node}]"
        if any(v < 0 for v in schema.reals(schema.as_list(row, what, k), what)):
            schema.fail(f"{what} = {row!r} must hold numbers >= 0")
    return np.asarray(rows, dtype=np.float64).reshape(n, k)

