"""Pictures of fitted models: trees as node boxes (PNG via matplotlib, or Graphviz DOT text)
and rule sets as a weight chart.

Every tree kind is drawn through one neutral description (:class:`Node`: box text, children
with edge labels), so a new tree model only needs a ``_plot_nodes`` converter.  matplotlib is
imported lazily with the non-interactive Agg backend when no backend was chosen, so plotting
works on headless machines.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from .models.binary_tree import BinaryTree
    from .models.rule_set import RuleSet


@dataclass
class Node:
    """One box of a tree picture: its text lines and its (edge label, child) pairs."""

    lines: list[str]
    leaf: bool
    children: list[tuple[str, Node]] = field(default_factory=list)


def _fmt(v: Any) -> str:
    return f"{v:g}" if isinstance(v, (float, np.floating)) else str(v)


def _dist_text(counts: np.ndarray, classes: np.ndarray) -> str:
    if counts.sum() == 0:
        return "no training samples"
    pairs = zip(classes, counts, strict=True)
    return "samples: " + ", ".join(f"{_fmt(c)}: {int(n)}" for c, n in pairs)


def binary_tree_nodes(tree: BinaryTree, feature_names: list[str] | None = None) -> Node:
    """The neutral picture description of a :class:`BinaryTree` (test, class counts, label)."""
    names = tree.feature_names if feature_names is None else list(feature_names)

    def build(n: int) -> Node:
        counts = tree.counts[n]
        label = _fmt(tree.classes[tree.value[n]])
        if tree.is_leaf(n):
            return Node([f"class = {label}", _dist_text(counts, tree.classes)], leaf=True)
        f = int(tree.feature[n])
        if float(tree.threshold[n]) == 0.5:  # a 0/1 literal: the right branch means it holds
            test = names[f] if names is not None else f"x[{f}] = 1"
            edges = ("no", "yes")
        else:
            name = names[f] if names is not None else f"x[{f}]"
            test = f"{name} <= {tree.threshold[n]:g}"
            edges = ("yes", "no")
        return Node(
            [test, _dist_text(counts, tree.classes)],
            leaf=False,
            children=[(edges[0], build(int(tree.left[n]))), (edges[1], build(int(tree.right[n])))],
        )

    return build(0)


def _as_nodes(model: Any, feature_names: list[str] | None) -> Node:
    if isinstance(model, Node):
        return model
    converter = getattr(model, "_plot_nodes", None)
    if converter is not None:
        return converter(feature_names)
    from .models.binary_tree import BinaryTree

    if isinstance(model, BinaryTree):
        return binary_tree_nodes(model, feature_names)
    raise TypeError(f"cannot draw a {type(model).__name__}; expected a fitted tree model")


# ---------------------------------------------------------------------------------------- DOT
def _dot_quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(model: Any, feature_names: list[str] | None = None) -> str:
    """Graphviz DOT source of a tree (render with ``dot -Tpng``); no graphviz install needed."""
    root = _as_nodes(model, feature_names)
    lines = ["digraph tree {", '  node [shape=box, style="rounded,filled", fontname="Helvetica"];',
             '  edge [fontname="Helvetica"];']
    counter = [0]

    def walk(node: Node) -> int:
        me = counter[0]
        counter[0] += 1
        colour = "#dff0d8" if node.leaf else "#f5f5f5"
        label = "\\n".join(s.replace("\\", "\\\\").replace('"', '\\"') for s in node.lines)
        lines.append(f'  n{me} [label="{label}", fillcolor="{colour}"];')
        for edge, child in node.children:
            c = walk(child)
            lines.append(f"  n{me} -> n{c} [label={_dot_quote(edge)}];")
        return me

    walk(root)
    lines.append("}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------- PNG
def pyplot():  # noqa: ANN201 - the matplotlib.pyplot module
    """matplotlib.pyplot, on the non-interactive Agg backend unless pyplot is already in use."""
    import matplotlib

    if "matplotlib.pyplot" not in __import__("sys").modules:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _layout(root: Node) -> tuple[list[tuple[Node, float, int]], list[tuple[int, int, str]]]:
    """Tidy layout: leaves evenly spaced left to right, each parent centred over its children."""
    placed: list[tuple[Node, float, int]] = []
    edges: list[tuple[int, int, str]] = []
    next_leaf = [0.0]

    def walk(node: Node, depth: int) -> int:
        idx = len(placed)
        placed.append((node, 0.0, depth))
        if not node.children:
            x = next_leaf[0]
            next_leaf[0] += 1.0
        else:
            kids = [walk(child, depth + 1) for _, child in node.children]
            for (edge, _), k in zip(node.children, kids, strict=True):
                edges.append((idx, k, edge))
            x = (placed[kids[0]][1] + placed[kids[-1]][1]) / 2
        placed[idx] = (node, x, depth)
        return idx

    walk(root, 0)
    return placed, edges


def plot_tree(model: Any, feature_names: list[str] | None = None, ax: Any = None,
              path: str | Path | None = None, fontsize: float = 8.0) -> Figure:
    """Draw a tree: boxes with the test and class counts, green leaves with their prediction.

    Returns the matplotlib Figure; with ``path`` the picture is also saved (PNG, SVG, PDF by
    the file extension).
    """
    plt = pyplot()
    placed, edges = _layout(_as_nodes(model, feature_names))
    width = max(x for _, x, _ in placed) + 1
    depth = max(d for _, _, d in placed) + 1
    if ax is None:
        fig, ax = plt.subplots(figsize=(max(4.0, 2.6 * width), max(2.5, 1.6 * depth)))
    else:
        fig = ax.figure
    for parent, child, label in edges:
        (_, x0, d0), (_, x1, d1) = placed[parent], placed[child]
        ax.annotate("", xy=(x1, -d1 + 0.18), xytext=(x0, -d0 - 0.18),
                    arrowprops={"arrowstyle": "->", "color": "0.4"})
        ax.text((x0 + x1) / 2, -(d0 + d1) / 2, label, ha="center", va="center",
                fontsize=fontsize * 0.9, color="0.25",
                bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none"})
    for node, x, d in placed:
        ax.text(x, -d, "\n".join(node.lines), ha="center", va="center", fontsize=fontsize,
                bbox={"boxstyle": "round,pad=0.4", "ec": "0.3",
                      "fc": "#dff0d8" if node.leaf else "#f5f5f5"})
    ax.set_xlim(-0.7, width - 0.3)
    ax.set_ylim(-depth + 0.5, 0.5)
    ax.axis("off")
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=150, bbox_inches="tight")
    return fig


def plot_rules(rules: RuleSet, max_rules: int | None = 20, ax: Any = None,
               path: str | Path | None = None, fontsize: float = 8.0) -> Figure:
    """Horizontal bars of rule weights (largest first), each labelled with its rule text."""
    plt = pyplot()
    order = sorted(range(len(rules.rules)), key=lambda j: -rules.rules[j].weight)
    if max_rules is not None:
        order = order[:max_rules]
    labels = [f"IF {r.condition_text()} THEN {_fmt(rules.classes[r.label])}"
              for r in (rules.rules[j] for j in order)]
    weights = [rules.rules[j].weight for j in order]
    if ax is None:
        fig, ax = plt.subplots(figsize=(9.0, max(1.5, 0.35 * len(order) + 1.0)))
    else:
        fig = ax.figure
    colours = plt.get_cmap("tab10")
    ax.barh(range(len(order)), weights,
            color=[colours(rules.rules[j].label % 10) for j in order])
    ax.set_yticks(range(len(order)), labels, fontsize=fontsize)
    ax.invert_yaxis()
    ax.set_xlabel("rule weight")
    default = _fmt(rules.classes[rules.default_class])
    ax.set_title(f"{len(rules.rules)} rules (showing {len(order)}); no rule fires: {default}",
                 fontsize=fontsize + 1)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=150, bbox_inches="tight")
    return fig
