"""Graphviz DOT text of a tree (no Graphviz install needed to write it)."""

from __future__ import annotations

from typing import Any

from .colours import hex_colour, node_colours, text_colour
from .nodes import Node, as_nodes


def _dot_quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(model: Any, feature_names: list[str] | None = None) -> str:
    """Graphviz DOT source of a tree (render with ``dot -Tpng``); no graphviz install needed."""
    root = as_nodes(model, feature_names)
    colours = node_colours(root)
    lines = ["digraph tree {", '  node [shape=box, style="rounded,filled", fontname="Helvetica"];',
             '  edge [fontname="Helvetica"];']
    counter = [0]

    def walk(node: Node) -> int:
        me = counter[0]
        counter[0] += 1
        fill = colours[id(node)]
        label = "\\n".join(s.replace("\\", "\\\\").replace('"', '\\"') for s in node.lines)
        lines.append(f'  n{me} [label="{label}", fillcolor="{hex_colour(fill)}", '
                     f'fontcolor="{text_colour(fill)}"];')
        for edge, child in node.children:
            c = walk(child)
            lines.append(f"  n{me} -> n{c} [label={_dot_quote(edge)}];")
        return me

    walk(root)
    lines.append("}")
    return "\n".join(lines)
