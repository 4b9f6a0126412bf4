"""The neutral description every tree picture is drawn from: :class:`Node` boxes with text,
children under edge labels and, at a leaf, a :class:`Prediction` (for its colour).

A tree model describes itself with a ``_plot_nodes(feature_names)`` method (a
:class:`BinaryTree` through :func:`binary_tree_nodes`); this package never imports the models.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._numbers import threshold_text


@dataclass(frozen=True)
class Prediction:
    """What a leaf predicts, for its colour: a class (its index among ``n_classes``, its name,
    its share of the leaf's training samples, None without samples) or a regression value."""

    class_index: int | None = None
    class_name: str = ""
    n_classes: int = 0
    purity: float | None = None
    value: float | None = None
    value_name: str = "value"

    @classmethod
    def of(cls, classes: Sequence[Any] | None, value: float, counts: Sequence[float]
           ) -> Prediction:
        """From a tree's leaf: class index ``value`` with class ``counts``, or (``classes`` is
        None) the regression value ``value``."""
        if classes is None:
            return cls(value=float(value))
        k = int(value)
        counts = np.asarray(counts, dtype=float)
        total = float(counts.sum())
        purity = float(counts[k]) / total if total > 0 else None
        return cls(k, fmt(classes[k]), len(classes), purity)


@dataclass
class Node:
    """One box of a tree picture: its text lines, its (edge label, child) pairs and, at a
    leaf, what it predicts (for the leaf colour; None draws it neutral) and optionally a step
    curve ``(x, y)`` with y in [0, 1] drawn under the text (a survival leaf's Kaplan–Meier
    curve)."""

    lines: list[str]
    leaf: bool
    children: list[tuple[str, Node]] = field(default_factory=list)
    prediction: Prediction | None = None
    curve: tuple[np.ndarray, np.ndarray] | None = None


def fmt(v: Any) -> str:
    return f"{v:g}" if isinstance(v, (float, np.floating)) else str(v)


def count_text(value: float) -> str:
    """A class count as text: an integer as one ("12"), a weight to 4 digits ("2.375")."""
    value = float(value)
    return str(int(value)) if value.is_integer() else f"{value:.4g}"


def _dist_text(counts: np.ndarray, classes: np.ndarray, weighted: bool = False) -> str:
    if counts.sum() == 0:
        return "no training samples"
    pairs = zip(classes, counts, strict=True)
    return ("weight: " if weighted else "samples: ") + \
        ", ".join(f"{fmt(c)}: {count_text(n)}" for c, n in pairs)


def binary_tree_nodes(tree: Any, feature_names: list[str] | None = None) -> Node:
    """The neutral picture description of a :class:`BinaryTree` (test, class counts, label)."""
    names = tree.feature_names if feature_names is None else list(feature_names)
    weighted = getattr(tree, "weighted", False)  # counts of sample weight, not of rows

    def dist(counts: np.ndarray) -> str:
        return _dist_text(counts, tree.classes, weighted)

    def build(n: int) -> Node:
        counts = tree.counts[n]
        label = fmt(tree.classes[tree.value[n]])
        if tree.is_leaf(n):
            return Node([f"class = {label}", dist(counts)], leaf=True,
                        prediction=Prediction.of(tree.classes, tree.value[n], counts))
        f = int(tree.feature[n])
        if tree.boolean_test(n):  # a 0/1 literal: the right branch means it holds
            test = names[f] if names is not None else f"x[{f}] = 1"
            edges = ("no", "yes")
        else:
            name = names[f] if names is not None else f"x[{f}]"
            test = f"{name} <= {threshold_text(tree.threshold[n])}"
            edges = ("yes", "no")
        return Node(
            [test, dist(counts)],
            leaf=False,
            children=[(edges[0], build(int(tree.left[n]))), (edges[1], build(int(tree.right[n])))],
        )

    return build(0)


def as_nodes(model: Any, feature_names: list[str] | None) -> Node:
    """The picture description of ``model``: a :class:`Node` itself, or a model's own
    ``_plot_nodes(feature_names)``."""
    if isinstance(model, Node):
        return model
    converter = getattr(model, "_plot_nodes", None)
    if converter is None:
        raise TypeError(f"cannot draw a {type(model).__name__}; expected a fitted tree model")
    return converter(feature_names)


def walk(root: Node) -> list[Node]:
    """Every node of the tree, parents before children."""
    out = [root]
    for _, child in root.children:
        out.extend(walk(child))
    return out
