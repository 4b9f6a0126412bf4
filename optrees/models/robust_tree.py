"""A binary tree on integer features with tests ``x[f] <= t`` and what an adversary pays to
move a row into each of its leaves (the robust trees of Justin et al.; ``optrees.robust``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _schema as schema
from .drawn import Drawn


@dataclass
class IntegerTree(Drawn):
    """A heap-ordered tree (children of node ``n``: ``2n+1`` left, ``2n+2`` right).

    ``feature[n]``: the tested column (-1 at a leaf or an unused node), ``threshold[n]``: a
    row goes left when ``x[feature] <= threshold``; ``label[n]``: the class index predicted
    at a leaf (-1 elsewhere); ``classes``: the class labels; ``low`` / ``high``: each
    feature's smallest and largest training value, the range a perturbed value stays in.
    """

    feature: np.ndarray
    threshold: np.ndarray
    label: np.ndarray
    classes: np.ndarray
    low: np.ndarray
    high: np.ndarray
    feature_names: list[str]

    def leaves(self) -> list[int]:
        """The leaf nodes, left to right."""
        out: list[int] = []
        stack = [0]
        while stack:
            n = stack.pop()
            if self.feature[n] < 0:
                out.append(n)
            else:
                stack += [2 * n + 2, 2 * n + 1]
        return out

    @property
    def n_leaves(self) -> int:
        """Number of leaves."""
        return len(self.leaves())

    @property
    def n_branches(self) -> int:
        """Number of branch (test) nodes."""
        return int((self.feature >= 0).sum())

    def apply(self, X: np.ndarray) -> np.ndarray:
        """The leaf node of each row of the integer matrix ``X``."""
        node = np.zeros(X.shape[0], dtype=np.int64)
        for _ in range(len(self.feature)):
            f = self.feature[node]
            inner = f >= 0
            if not inner.any():
                break
            rows = np.nonzero(inner)[0]
            right = X[rows, f[inner]] > self.threshold[node[inner]]
            node[rows] = 2 * node[rows] + 1 + right
        return node

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The class label of each row."""
        return self.classes[self.label[self.apply(X)]]

    def boxes(self) -> tuple[list[int], np.ndarray, np.ndarray]:
        """Leaves and their boxes ``lo[l, f] <= x[f] <= hi[l, f]``: the tests on the path
        met with the feature's training range (an empty box has some ``lo > hi``)."""
        leaves = self.leaves()
        lo = np.tile(self.low, (len(leaves), 1)).astype(np.float64)
        hi = np.tile(self.high, (len(leaves), 1)).astype(np.float64)
        for j, leaf in enumerate(leaves):
            n = leaf
            while n > 0:
                parent = (n - 1) // 2
                f, t = self.feature[parent], self.threshold[parent]
                if n == 2 * parent + 1:
                    hi[j, f] = min(hi[j, f], t)
                else:
                    lo[j, f] = max(lo[j, f], t + 1)
                n = parent
        return leaves, lo, hi

    def export_text(self) -> str:
        """The tree as indented text in the other trees' layout (``|--- x <= 2`` and
        ``|--- x >= 3`` on integer features, ``|--- class: 1`` at a leaf; robust leaves keep
        no class counts)."""
        if self.feature[0] < 0:
            return f"class: {self._label_text(0)}"
        lines: list[str] = []

        def walk(n: int, indent: str) -> None:
            if self.feature[n] < 0:
                lines.append(f"{indent}|--- class: {self._label_text(n)}")
                return
            name, t = self.feature_names[self.feature[n]], int(self.threshold[n])
            lines.append(f"{indent}|--- {name} <= {t}")
            walk(2 * n + 1, indent + "|   ")
            lines.append(f"{indent}|--- {name} >= {t + 1}")
            walk(2 * n + 2, indent + "|   ")

        walk(0, "")
        return "\n".join(lines)

    def _label_text(self, n: int) -> str:
        value = self.classes[self.label[n]]
        return str(value.item() if isinstance(value, np.generic) else value)

    # ----------------------------------------------------------------- pictures
    def _plot_nodes(self, feature_names: list[str] | None = None) -> Any:
        """The neutral picture description (:mod:`optrees.export.nodes`): tests and labels;
        a leaf's colour is its class (robust leaves keep no class counts)."""
        from ..export.nodes import Node, Prediction, fmt

        names = self.feature_names if feature_names is None else list(feature_names)

        def build(n: int) -> Node:
            if self.feature[n] < 0:
                k = int(self.label[n])
                label = fmt(self.classes[k])
                return Node([f"predict {label}"], True,
                            prediction=Prediction(k, label, len(self.classes)))
            name, t = names[self.feature[n]], int(self.threshold[n])
            return Node([f"{name} <= {t}"], False,
                        [("yes", build(2 * n + 1)), ("no", build(2 * n + 2))])

        return build(0)

    # ----------------------------------------------------------------- serialization
    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-ready description of the tree (read back by :meth:`from_dict`)."""
        return {"kind": "integer_tree", "feature": self.feature.tolist(),
                "threshold": self.threshold.tolist(), "label": self.label.tolist(),
                "classes": [c.item() if hasattr(c, "item") else c for c in self.classes],
                "low": self.low.tolist(), "high": self.high.tolist(),
                "feature_names": list(self.feature_names)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> IntegerTree:
        """The tree described by :meth:`to_dict`, checked first: one OptreesInputError
        naming the problem for a damaged or hand-edited description."""
        data = schema.mapping(data, "'tree'")
        if data.get("kind") != "integer_tree":
            schema.fail(f"not an integer tree model (kind={data.get('kind')!r})")
        names = schema.strings(schema.sequence(data, "feature_names"), "'feature_names'",
                               unique=True)
        classes = schema.labels(schema.sequence(data, "classes"), "'classes'")
        feature = schema.ints(schema.sequence(data, "feature"), "'feature'", -1, len(names))
        size = len(feature)
        if size == 0 or (size + 1) & size:
            schema.fail(f"'feature' has {size} nodes; a heap-ordered tree has 2^(d+1) - 1")
        threshold = schema.ints(schema.sequence(data, "threshold", size), "'threshold'",
                                -(1 << 62), None)
        label = schema.ints(schema.sequence(data, "label", size), "'label'", -1, len(classes))
        low = schema.ints(schema.sequence(data, "low", len(names)), "'low'", -(1 << 62), None)
        high = schema.ints(schema.sequence(data, "high", len(names)), "'high'", -(1 << 62),
                           None)
        stack = [0]
        while stack:  # every reached node is a test with two children or a labelled leaf
            n = stack.pop()
            if feature[n] >= 0:
                if 2 * n + 2 >= size:
                    schema.fail(f"node {n} is a test without children")
                stack += [2 * n + 1, 2 * n + 2]
            elif label[n] < 0:
                schema.fail(f"leaf {n} has no label")
        return cls(np.array(feature), np.array(threshold), np.array(label),
                   np.array(classes, dtype=object if any(isinstance(c, str) for c in classes)
                            else None), np.array(low), np.array(high), names)
