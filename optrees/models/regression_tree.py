"""RegressionTree: a fitted binary tree whose leaves predict real numbers.

:class:`~optrees.models.binary_tree.BinaryTree` holds class indices at its nodes, so a tree
of leaf means is its own small class: the same node arrays (``feature``, ``threshold``,
``left``, ``right``; ``x[feature] <= threshold`` goes left), a real ``value`` per node (the
weighted mean of the training rows reaching it) and their ``weight`` and row ``count``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..export.nodes import count_text
from .split_nodes import LEAF, SplitNodes


class RegressionTree(SplitNodes):
    """Per-node arrays ``feature`` (-1 at leaves), ``threshold``, ``left``, ``right``
    (:class:`~optrees.models.split_nodes.SplitNodes`: structure and routing), ``value``
    (prediction), ``weight`` (training weight) and ``count`` (training rows)."""

    def __init__(self, feature: Sequence[int], threshold: Sequence[float],
                 left: Sequence[int], right: Sequence[int], value: Sequence[float],
                 weight: Sequence[float] | None = None, count: Sequence[int] | None = None,
                 feature_names: Sequence[str] | None = None,
                 negated_names: Sequence[str] | None = None,
                 numeric: Sequence[bool] | None = None) -> None:
        self.feature = np.asarray(feature, dtype=np.int64)
        self.threshold = np.asarray(threshold, dtype=np.float64)
        self.left = np.asarray(left, dtype=np.int64)
        self.right = np.asarray(right, dtype=np.int64)
        self.value = np.asarray(value, dtype=np.float64)
        n = len(self.feature)
        if n == 0 or not (len(self.threshold) == len(self.left) == len(self.right)
                          == len(self.value) == n):
            raise ValueError("RegressionTree node arrays must be non-empty and equally long")
        self.weight = np.zeros(n) if weight is None else np.asarray(weight, dtype=np.float64)
        self.count = (np.zeros(n, dtype=np.int64) if count is None
                      else np.asarray(count, dtype=np.int64))
        self.feature_names = None if feature_names is None else [str(s) for s in feature_names]
        # 0/1 features (one-hot categories) print as "name" / its negation, not "name <= 0.5"
        self.negated_names = None if negated_names is None else [str(s) for s in negated_names]
        self.numeric = None if numeric is None else [bool(v) for v in numeric]

    @classmethod
    def from_nested(cls, tree: tuple | None, X: np.ndarray, y: np.ndarray,
                    w: np.ndarray | None = None,
                    feature_names: Sequence[str] | None = None) -> RegressionTree:
        """The tree of nested tuples ``(feature, threshold, left, right)`` (None: a leaf),
        with each node's weighted mean, weight and count of the training rows ``X, y, w``."""
        X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)
        w = np.ones(len(y)) if w is None else np.asarray(w, dtype=np.float64)
        arrays: dict[str, list] = {k: [] for k in ("f", "t", "l", "r", "v", "w", "c")}

        def build(node: tuple | None, rows: np.ndarray) -> int:
            i = len(arrays["f"])
            total = float(w[rows].sum())
            mean = float(w[rows] @ y[rows] / total) if total > 0 else 0.0
            for key, val in zip("ftlrvwc", (LEAF, 0.0, LEAF, LEAF, mean, total, len(rows)),
                                strict=True):
                arrays[key].append(val)
            if node is not None:
                f, threshold, lnode, rnode = node
                go_left = X[rows, f] <= threshold
                arrays["f"][i], arrays["t"][i] = int(f), float(threshold)
                arrays["l"][i] = build(lnode, rows[go_left])
                arrays["r"][i] = build(rnode, rows[~go_left])
            return i

        build(tree, np.arange(len(y)))
        a = arrays
        return cls(a["f"], a["t"], a["l"], a["r"], a["v"], a["w"], a["c"], feature_names)

    # ----------------------------------------------------------------- prediction
    def predict(self, X: np.ndarray) -> np.ndarray:
        """The training mean of the leaf each row of ``X`` reaches."""
        return self.value[self.apply(X)]

    # ----------------------------------------------------------------- text
    def export_text(self, feature_names: Sequence[str] | None = None) -> str:
        """Indented text of the tree: one line per test, leaf means with their counts."""
        names = self.feature_names if feature_names is None else list(feature_names)
        lines: list[str] = []

        def leaf_text(n: int) -> str:
            weighted = "" if self.weight[n] == self.count[n] else \
                f", weight {count_text(float(self.weight[n]))}"
            return f"value: {self.value[n]:.6g}  (n={self.count[n]}{weighted})"

        def walk(n: int, indent: str) -> None:
            if self.feature[n] == LEAF:
                lines.append(f"{indent}|--- {leaf_text(n)}")
                return
            f, t = int(self.feature[n]), float(self.threshold[n])
            name = names[f] if names is not None else f"x[{f}]"
            tests = (f"{name} <= {t:g}", f"{name} > {t:g}")
            if self.numeric is not None and not self.numeric[f] and t == 0.5:
                negated = (self.negated_names[f] if self.negated_names is not None
                           and names is self.feature_names else f"not ({name})")
                tests = (negated, name)
            for test, child in zip(tests, (self.left[n], self.right[n]), strict=True):
                lines.append(f"{indent}|--- {test}")
                walk(int(child), indent + "|   ")

        if self.feature[0] == LEAF:
            lines.append(leaf_text(0))
        else:
            walk(0, "")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"RegressionTree(depth={self.depth}, leaves={self.n_leaves})"
