"""RegressionTree: a fitted binary tree whose leaves predict real numbers.

:class:`~optrees.models.binary_tree.BinaryTree` holds class indices at its nodes, so a tree
of leaf means is its own small class: the same node arrays (``feature``, ``threshold``,
``left``, ``right``; ``x[feature] <= threshold`` goes left), a real ``value`` per node (the
weighted mean of the training rows reaching it) and their ``weight`` and row ``count``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .._numbers import threshold_text, value_digits
from .._validation import OptreesInputError
from ..export.nodes import count_text
from . import _schema as schema
from .drawn import Drawn
from .split_nodes import LEAF, SplitNodes


class RegressionTree(Drawn, SplitNodes):
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
        with each node's weighted mean, weight and count of the training rows ``X, y, w``
        (the rows routed once, the nodes' sums added up from the leaves')."""
        return cls.routed(tree, X, y, w, feature_names)[0]

    @classmethod
    def routed(cls, tree: tuple | None, X: np.ndarray, y: np.ndarray,
               w: np.ndarray | None = None, feature_names: Sequence[str] | None = None
               ) -> tuple[RegressionTree, np.ndarray]:
        """:meth:`from_nested` and the leaf each training row reaches, so a caller that needs
        more per-leaf sums does not route the rows again."""
        y = np.asarray(y, dtype=np.float64)
        w = np.ones(len(y)) if w is None else np.asarray(w, dtype=np.float64)
        arrays: dict[str, list] = {k: [] for k in "ftlr"}

        def build(node: tuple | None) -> int:
            i = len(arrays["f"])
            for key, val in zip("ftlr", (LEAF, 0.0, LEAF, LEAF), strict=True):
                arrays[key].append(val)
            if node is not None:
                f, threshold, lnode, rnode = node
                arrays["f"][i], arrays["t"][i] = int(f), float(threshold)
                arrays["l"][i] = build(lnode)
                arrays["r"][i] = build(rnode)
            return i

        build(tree)
        a = arrays
        out = cls(a["f"], a["t"], a["l"], a["r"], np.zeros(len(a["f"])),
                  feature_names=feature_names)
        leaf = out.apply(np.asarray(X, dtype=np.float64))
        out.weight = out.node_sums(leaf, w)
        out.count = np.rint(out.node_sums(leaf, np.ones(len(y)))).astype(np.int64)
        out.value = np.divide(out.node_sums(leaf, w * y), out.weight,
                              out=np.zeros(out.n_nodes), where=out.weight > 0)
        return out, leaf

    def node_sums(self, leaf: np.ndarray, values: np.ndarray) -> np.ndarray:
        """The sum of ``values`` over the rows of each node, given the leaf each row reaches
        (a parent's index is below its children's, as :meth:`from_nested` numbers them)."""
        sums = np.bincount(leaf, weights=values, minlength=self.n_nodes).astype(np.float64)
        for n in range(self.n_nodes - 1, -1, -1):
            if self.left[n] >= 0:
                sums[n] = sums[self.left[n]] + sums[self.right[n]]
        return sums

    # ----------------------------------------------------------------- prediction
    def predict(self, X: np.ndarray) -> np.ndarray:
        """The training mean of the leaf each row of ``X`` reaches."""
        return self.value[self.apply(X)]

    # ----------------------------------------------------------------- text
    def boolean_test(self, n: int) -> bool:
        """Whether node ``n`` tests a 0/1 column (a one-hot category) rather than a number."""
        f = int(self.feature[n])
        return self.numeric is not None and not self.numeric[f] and self.threshold[n] == 0.5

    def tests(self, n: int, names: Sequence[str] | None = None) -> tuple[str, str]:
        """The texts of node ``n``'s left and right branches: ``age <= 40.5`` / ``age > 40.5``,
        or for a 0/1 column (a one-hot category) its negation and the category itself."""
        f, t = int(self.feature[n]), float(self.threshold[n])
        name = names[f] if names is not None else f"x[{f}]"
        if self.boolean_test(n):
            negated = (self.negated_names[f] if self.negated_names is not None
                       and names is self.feature_names else f"not ({name})")
            return negated, name
        text = threshold_text(t)
        return f"{name} <= {text}", f"{name} > {text}"

    def size_text(self, n: int) -> str:
        """``n=40`` (training rows), with their total weight when it is not the row count."""
        weighted = "" if self.weight[n] == self.count[n] else \
            f", weight {count_text(float(self.weight[n]))}"
        return f"n={self.count[n]}{weighted}"

    def leaf_text(self, n: int, value_name: str = "value") -> str:
        """What leaf ``n`` predicts, in one line: ``value: 3.25`` (6 digits, or as many as
        tell the leaves apart: ``optrees._numbers.value_digits``)."""
        return f"{value_name}: {self.value[n]:.{self._digits(6)}g}"

    def leaf_lines(self, n: int, value_name: str = "value") -> list[str]:
        """What leaf ``n`` predicts, as the lines of its box in a picture (4 digits, or as
        many as tell the leaves apart)."""
        return [f"{value_name} = {self.value[n]:.{self._digits(4)}g}"]

    def _digits(self, least: int) -> int:
        return value_digits(self.value[self.feature < 0], least)

    def export_text(self, feature_names: Sequence[str] | None = None,
                    value_name: str = "value") -> str:
        """Indented text of the tree: one line per test, leaf values (named ``value_name``)
        with their counts."""
        names = self.feature_names if feature_names is None else list(feature_names)
        lines: list[str] = []

        def leaf_text(n: int) -> str:
            return f"{self.leaf_text(n, value_name)}  ({self.size_text(n)})"

        def walk(n: int, indent: str) -> None:
            if self.feature[n] == LEAF:
                lines.append(f"{indent}|--- {leaf_text(n)}")
                return
            for test, child in zip(self.tests(n, names), (self.left[n], self.right[n]),
                                   strict=True):
                lines.append(f"{indent}|--- {test}")
                walk(int(child), indent + "|   ")

        if self.feature[0] == LEAF:
            lines.append(leaf_text(0))
        else:
            walk(0, "")
        return "\n".join(lines)

    # ----------------------------------------------------------------- pictures
    def _plot_nodes(self, feature_names: Sequence[str] | None = None,
                    value_name: str = "value", curves: dict[int, tuple] | None = None) -> Any:
        """Picture description for :mod:`optrees.export`: each box its test (or, at a leaf,
        its value, named ``value_name``) and its training rows; leaves coloured by their
        value, with the step curve ``curves[leaf]`` (x, y) when given."""
        from ..export import Node, Prediction

        names = self.feature_names if feature_names is None else list(feature_names)
        curves = {} if curves is None else curves

        def build(n: int) -> Node:
            size = self.size_text(n)
            if self.feature[n] == LEAF:
                return Node([*self.leaf_lines(n, value_name), size], leaf=True,
                            prediction=Prediction(value=float(self.value[n]),
                                                  value_name=value_name),
                            curve=curves.get(n))
            left, right = self.tests(n, names)
            # a category reads as the test "colour = red": its right branch answers yes
            test, edges = (right, ("no", "yes")) if self.boolean_test(n) else (left,
                                                                             ("yes", "no"))
            inner = "mean" if value_name == "value" else value_name
            return Node([test, f"{inner} {self.value[n]:.4g}, {size}"], leaf=False,
                        children=[(edges[0], build(int(self.left[n]))),
                                  (edges[1], build(int(self.right[n])))])

        return build(0)

    # ----------------------------------------------------------------- serialization
    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-ready description of the tree (read back by :meth:`from_dict`)."""
        return {"kind": "regression_tree", "feature": self.feature.tolist(),
                "threshold": self.threshold.tolist(), "left": self.left.tolist(),
                "right": self.right.tolist(), "value": self.value.tolist(),
                "weight": self.weight.tolist(), "count": self.count.tolist(),
                "feature_names": self.feature_names, "negated_names": self.negated_names,
                "numeric": self.numeric}

    @classmethod
    def from_dict(cls, data: dict[str, Any], n_features: int | None = None) -> RegressionTree:
        """The tree described by :meth:`to_dict`, checked first: a damaged or hand-edited
        description raises one OptreesInputError naming the problem (the node checks are
        :class:`~optrees.models.binary_tree.BinaryTree`'s)."""
        from .binary_tree import _checked_nodes, _names

        if not isinstance(data, dict) or data.get("kind") != "regression_tree":
            kind = data.get("kind") if isinstance(data, dict) else type(data).__name__
            raise OptreesInputError(f"not a regression tree model (kind={kind!r})")
        names = _names(data, "feature_names", n_features)
        negated = _names(data, "negated_names", n_features if names is None else len(names))
        if n_features is None and names is not None:
            n_features = len(names)
        feature, threshold, left, right = _checked_nodes(data, n_features)
        n = len(feature)
        value = schema.reals(schema.sequence(data, "value", n), "'value'")
        weight = schema.reals(schema.sequence(data, "weight", n), "'weight'")
        count = schema.ints(schema.sequence(data, "count", n), "'count'", 0, None)
        if any(v < 0 for v in weight):
            schema.fail("'weight' must hold numbers >= 0")
        numeric = None if data.get("numeric") is None else schema.booleans(
            schema.sequence(data, "numeric", n_features), "'numeric'")
        if numeric is not None and max(feature) >= len(numeric):
            schema.fail("'numeric' has fewer entries than the tree has features")
        return cls(feature, threshold, left, right, value, weight, count, names, negated,
                   numeric)

    def save(self, path: str | Path) -> None:
        """Write :meth:`to_dict` as JSON (atomically: a complete file or none)."""
        from .._files import write_atomic

        write_atomic(path, json.dumps(self.to_dict(), indent=1))

    def __repr__(self) -> str:
        return f"RegressionTree(depth={self.depth}, leaves={self.n_leaves})"
