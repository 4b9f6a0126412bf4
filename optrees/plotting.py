"""Pictures of fitted models: trees as node boxes (PNG via matplotlib, or Graphviz DOT text)
and rule sets as a weight chart.

Every tree kind is drawn through one neutral description (:class:`Node`: box text, children
with edge labels, what a leaf predicts), so a new tree model only needs a ``_plot_nodes``
converter.  Drawing a tree is two steps: :func:`layout_tree` places every box (sized to the
text it holds) in one coordinate system, in points, without matplotlib figures; then
:func:`plot_tree` draws that layout on a figure sized to it.  Leaves are coloured by their
predicted class (one hue per class, a legend), darker the purer the leaf; regression leaves
are darker the larger their value.  matplotlib is imported lazily with the non-interactive
Agg backend when no backend was chosen, so plotting works on headless machines.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from .models.binary_tree import BinaryTree
    from .models.rule_set import RuleSet

RGB = tuple[float, float, float]


@dataclass(frozen=True)
class Prediction:
    """What a leaf predicts, for its colour: a class (its index among ``n_classes``, its name,
    its share of the leaf's training samples, None without samples) or a regression value."""

    class_index: int | None = None
    class_name: str = ""
    n_classes: int = 0
    purity: float | None = None
    value: float | None = None

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
        return cls(k, _fmt(classes[k]), len(classes), purity)


@dataclass
class Node:
    """One box of a tree picture: its text lines, its (edge label, child) pairs and, at a
    leaf, what it predicts (for the leaf colour; None draws it neutral)."""

    lines: list[str]
    leaf: bool
    children: list[tuple[str, Node]] = field(default_factory=list)
    prediction: Prediction | None = None


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
            return Node([f"class = {label}", _dist_text(counts, tree.classes)], leaf=True,
                        prediction=Prediction.of(tree.classes, tree.value[n], counts))
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


def _walk(root: Node) -> list[Node]:
    """Every node of the tree, parents before children."""
    out = [root]
    for _, child in root.children:
        out.extend(_walk(child))
    return out


# ------------------------------------------------------------------------------------ colours
NEUTRAL: RGB = (0.95, 0.95, 0.95)
_REGRESSION_HUE = 4  # tab10 purple: regression leaves use one hue, darker = larger value
_LIGHTEST, _DARKEST = 0.12, 0.85  # tint of a 1/K-pure (or lowest-value) and a pure leaf


def class_hue(index: int, n_classes: int) -> RGB:
    """The colour of class ``index`` at full intensity (tab10, tab20 beyond ten classes)."""
    from matplotlib import colormaps

    cmap = colormaps["tab10" if n_classes <= 10 else "tab20"]
    return tuple(float(c) for c in cmap(index % cmap.N)[:3])  # type: ignore[return-value]


def _tint(hue: RGB, intensity: float) -> RGB:
    """``hue`` mixed with white: intensity 0 is white, 1 the hue itself."""
    return tuple(1.0 - intensity * (1.0 - c) for c in hue)  # type: ignore[return-value]


def purity_intensity(purity: float | None, n_classes: int) -> float:
    """Tint of a leaf: lightest at a uniform class share (1/K) or no samples, darkest if pure."""
    if purity is None:
        return _LIGHTEST
    chance = 1.0 / max(n_classes, 2)
    share = min(max((purity - chance) / (1.0 - chance), 0.0), 1.0)
    return _LIGHTEST + (_DARKEST - _LIGHTEST) * share


def _value_range(nodes: list[Node]) -> tuple[float, float]:
    values = [n.prediction.value for n in nodes if n.prediction and n.prediction.value is not None]
    return (min(values), max(values)) if values else (0.0, 0.0)


def node_colours(root: Node) -> dict[int, RGB]:
    """Fill colour of every node, keyed by ``id(node)``: internal nodes and leaves without a
    prediction neutral, class leaves by class and purity, regression leaves by value."""
    nodes = _walk(root)
    lo, hi = _value_range(nodes)
    colours: dict[int, RGB] = {}
    for node in nodes:
        p = node.prediction
        if not node.leaf or p is None:
            colours[id(node)] = NEUTRAL
        elif p.class_index is not None:
            hue = class_hue(p.class_index, p.n_classes)
            colours[id(node)] = _tint(hue, purity_intensity(p.purity, p.n_classes))
        else:
            share = 1.0 if hi == lo else (float(p.value) - lo) / (hi - lo)  # type: ignore[arg-type]
            hue = class_hue(_REGRESSION_HUE, 10)
            colours[id(node)] = _tint(hue, _LIGHTEST + (_DARKEST - _LIGHTEST) * share)
    return colours


def legend_entries(root: Node) -> tuple[str, list[tuple[str, RGB]]]:
    """Legend title and (label, colour) entries: every predicted class in class order at full
    purity, or the lowest and highest regression leaf value; no entries without predictions."""
    preds = [n.prediction for n in _walk(root) if n.leaf and n.prediction is not None]
    classes = sorted({(p.class_index, p.class_name, p.n_classes) for p in preds
                      if p.class_index is not None})
    if classes:
        return "leaf class (darker = purer)", [
            (name, _tint(class_hue(k, K), _DARKEST)) for k, name, K in classes]
    lo, hi = _value_range(_walk(root))
    if not preds or lo == hi:
        return "", []
    hue = class_hue(_REGRESSION_HUE, 10)
    return "leaf value (darker = larger)", [(f"{lo:.4g}", _tint(hue, _LIGHTEST)),
                                            (f"{hi:.4g}", _tint(hue, _DARKEST))]


def _hex(rgb: RGB) -> str:
    return "#" + "".join(f"{round(255 * c):02x}" for c in rgb)


def _text_colour(fill: RGB) -> str:
    """Black text on light fills, white on dark ones."""
    luminance = 0.2126 * fill[0] + 0.7152 * fill[1] + 0.0722 * fill[2]
    return "black" if luminance > 0.45 else "white"


# ---------------------------------------------------------------------------------------- DOT
def _dot_quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(model: Any, feature_names: list[str] | None = None) -> str:
    """Graphviz DOT source of a tree (render with ``dot -Tpng``); no graphviz install needed."""
    root = _as_nodes(model, feature_names)
    colours = node_colours(root)
    lines = ["digraph tree {", '  node [shape=box, style="rounded,filled", fontname="Helvetica"];',
             '  edge [fontname="Helvetica"];']
    counter = [0]

    def walk(node: Node) -> int:
        me = counter[0]
        counter[0] += 1
        fill = colours[id(node)]
        label = "\\n".join(s.replace("\\", "\\\\").replace('"', '\\"') for s in node.lines)
        lines.append(f'  n{me} [label="{label}", fillcolor="{_hex(fill)}", '
                     f'fontcolor="{_text_colour(fill)}"];')
        for edge, child in node.children:
            c = walk(child)
            lines.append(f"  n{me} -> n{c} [label={_dot_quote(edge)}];")
        return me

    walk(root)
    lines.append("}")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------- layout
TextMeasure = Callable[[str, float], tuple[float, float]]

LINESPACING = 1.2  # matplotlib's default, used when drawing
WRAP_CHARS = 36  # box lines longer than this are wrapped after a comma


@lru_cache(maxsize=1)
def _agg_renderer() -> Any:
    """An Agg renderer at 72 dpi, so its pixel extents are points."""
    from matplotlib.backends.backend_agg import RendererAgg

    return RendererAgg(1, 1, 72)


@lru_cache(maxsize=4096)
def measure_text(text: str, fontsize: float) -> tuple[float, float]:
    """(width, height) in points of multi-line ``text`` as matplotlib draws it (DejaVu Sans at
    ``fontsize``), measured by the Agg renderer and rounded up a little."""
    from matplotlib.font_manager import FontProperties

    renderer = _agg_renderer()
    prop = FontProperties(size=fontsize)
    lines = text.split("\n")
    width = max(renderer.get_text_width_height_descent(s or " ", prop, ismath=False)[0]
                for s in lines)
    lp_height = renderer.get_text_width_height_descent("lp", prop, ismath=False)[1]
    height = lp_height * (1 + LINESPACING * (len(lines) - 1))
    return 1.03 * width + 1.0, 1.05 * height + 1.0


def wrap_line(line: str, max_chars: int = WRAP_CHARS) -> list[str]:
    """``line`` broken after commas into pieces of at most ``max_chars`` where possible."""
    parts = line.split(", ")
    out = [parts[0]]
    for i, part in enumerate(parts[1:], start=2):
        comma = 1 if i < len(parts) else 0  # a piece ending before the last part keeps its comma
        if len(out[-1]) + 2 + len(part) + comma <= max_chars:
            out[-1] += ", " + part
        else:
            out[-1] += ","
            out.append(part)
    return out


def box_text(node: Node) -> str:
    """The text drawn in a node's box: its lines, long ones wrapped."""
    return "\n".join(piece for line in node.lines for piece in wrap_line(line))


@dataclass(frozen=True)
class Box:
    """A laid-out box: ``kind`` "node" or "edge" (an edge label, drawn above its child),
    its text and its text's extent, centre (x, y) and size, all in points, y pointing up."""

    kind: str
    text: str
    x: float
    y: float
    width: float
    height: float
    text_width: float
    text_height: float
    node: Node | None = None

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """(left, bottom, right, top)."""
        w, h = self.width / 2, self.height / 2
        return self.x - w, self.y - h, self.x + w, self.y + h

    def overlaps(self, other: Box) -> bool:
        """Whether the two boxes share interior points."""
        a, b = self.bounds, other.bounds
        return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@dataclass
class TreeLayout:
    """Boxes in one coordinate system (points at ``fontsize``; the picture spans
    [0, width] x [0, height]) and edges as (parent box, child box, edge-label box or None)."""

    boxes: list[Box]
    edges: list[tuple[int, int, int | None]]
    width: float
    height: float
    fontsize: float


@dataclass
class _Item:
    """Working record of one node during layout."""

    node: Node
    depth: int
    text: str
    size: tuple[float, float]  # text extent
    label: str = ""
    label_size: tuple[float, float] = (0.0, 0.0)
    children: list[int] = field(default_factory=list)
    offset: float = 0.0  # x relative to the parent
    x: float = 0.0


def _items(root: Node, fontsize: float, measure: TextMeasure) -> list[_Item]:
    """Nodes in preorder with their measured box and edge-label texts."""
    items: list[_Item] = []

    def visit(node: Node, depth: int, label: str) -> int:
        text = box_text(node)
        me = len(items)
        items.append(_Item(node, depth, text, measure(text, fontsize), label,
                           measure(label, 0.9 * fontsize) if label else (0.0, 0.0)))
        items[me].children = [visit(child, depth + 1, edge) for edge, child in node.children]
        return me

    visit(root, 0, "")
    return items


class _Metrics:
    """Paddings and gaps, proportional to the font size so a layout scales with it."""

    def __init__(self, fontsize: float) -> None:
        self.pad_x, self.pad_y = 0.6 * fontsize, 0.45 * fontsize  # text to box border
        self.label_pad = 0.2 * fontsize
        self.hgap = 1.0 * fontsize  # between neighbouring boxes of one row
        self.vgap = 1.8 * fontsize  # parent box bottom to edge-label top: the arrow
        self.label_gap = 0.5 * fontsize  # edge-label bottom to child top
        self.margin = 0.5 * fontsize  # around the picture

    def box(self, size: tuple[float, float]) -> tuple[float, float]:
        return size[0] + 2 * self.pad_x, size[1] + 2 * self.pad_y

    def label_box(self, size: tuple[float, float]) -> tuple[float, float]:
        if size == (0.0, 0.0):
            return 0.0, 0.0
        return size[0] + 2 * self.label_pad, size[1] + 2 * self.label_pad


def _contour(items: list[_Item], i: int, m: _Metrics, n_rows: int
             ) -> list[tuple[float, float]]:
    """Left and right extent of subtree ``i`` per depth (relative to its root's x); sets each
    child's offset: children packed left to right as close as their contours allow, the
    parent centred over its first and last child.  A leaf keeps its column free down to the
    last row, so no other subtree is drawn below it (nor an arrow through it)."""
    item = items[i]
    slot = max(m.box(item.size)[0], m.label_box(item.label_size)[0])
    own = (-slot / 2, slot / 2)
    if not item.children:
        return [own] * (n_rows - item.depth)
    merged: list[tuple[float, float]] = []
    offsets: list[float] = []
    for k in item.children:
        cont = _contour(items, k, m, n_rows)
        common = range(min(len(merged), len(cont)))
        shift = max((merged[d][1] - cont[d][0] + m.hgap for d in common), default=0.0)
        offsets.append(shift)
        for d, (left, right) in enumerate(cont):
            if d < len(merged):
                merged[d] = (merged[d][0], right + shift)
            else:
                merged.append((left + shift, right + shift))
    mid = (offsets[0] + offsets[-1]) / 2
    for k, off in zip(item.children, offsets, strict=True):
        items[k].offset = off - mid
    return [own] + [(left - mid, right - mid) for left, right in merged]


def _row_tops(items: list[_Item], m: _Metrics) -> list[float]:
    """The top of each depth's node boxes, downwards from 0: rows as tall as their tallest
    box, apart by the arrow gap and the row's tallest edge label."""
    n_rows = max(it.depth for it in items) + 1
    row_h = [0.0] * n_rows
    label_h = [0.0] * n_rows
    for it in items:
        row_h[it.depth] = max(row_h[it.depth], m.box(it.size)[1])
        label_h[it.depth] = max(label_h[it.depth], m.label_box(it.label_size)[1])
    tops = [m.margin]
    for d in range(1, n_rows):
        tops.append(tops[-1] + row_h[d - 1] + m.vgap + label_h[d] + m.label_gap)
    return tops


def layout_tree(root: Node, fontsize: float = 8.0, measure: TextMeasure | None = None
                ) -> TreeLayout:
    """Place every node box and edge label of the tree, each sized to its text.

    ``measure(text, fontsize) -> (width, height)`` gives a text's extent in points (default:
    :func:`measure_text`).  Boxes of one depth share a row (tops aligned); a node's edge label
    sits just above it; subtrees are packed left to right so that no two boxes overlap.
    """
    m = _Metrics(fontsize)
    items = _items(root, fontsize, measure or measure_text)
    contour = _contour(items, 0, m, max(it.depth for it in items) + 1)
    for i, it in enumerate(items):  # preorder: parents are placed before their children
        for k in it.children:
            items[k].x = items[i].x + items[k].offset
    left = min(lo for lo, _ in contour)
    right = max(hi for _, hi in contour)
    tops = _row_tops(items, m)
    bottom = max(tops[it.depth] + m.box(it.size)[1] for it in items) + m.margin
    boxes: list[Box] = []
    index: dict[int, tuple[int, int | None]] = {}
    for i, it in enumerate(items):
        x = it.x - left + m.margin
        w, h = m.box(it.size)
        top = tops[it.depth]
        index[i] = (len(boxes), len(boxes) + 1 if it.label else None)
        boxes.append(Box("node", it.text, x, bottom - (top + h / 2), w, h, *it.size, it.node))
        if it.label:
            lw, lh = m.label_box(it.label_size)
            y = bottom - (top - m.label_gap - lh / 2)
            boxes.append(Box("edge", it.label, x, y, lw, lh, *it.label_size))
    edges = [(index[i][0], index[k][0], index[k][1]) for i, it in enumerate(items)
             for k in it.children]
    return TreeLayout(boxes, edges, right - left + 2 * m.margin, bottom, fontsize)


# ---------------------------------------------------------------------------------------- PNG
def pyplot():  # noqa: ANN201 - the matplotlib.pyplot module
    """matplotlib.pyplot, on the non-interactive Agg backend unless pyplot is already in use."""
    import matplotlib

    if "matplotlib.pyplot" not in __import__("sys").modules:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _legend_size(title: str, entries: list[tuple[str, RGB]], fontsize: float
                 ) -> tuple[float, float]:
    """Conservative (width, height) in points of a one-row legend with a title."""
    if not entries:
        return 0.0, 0.0
    # per entry: handle (2 em), handle-text pad (0.8 em), column spacing (2 em), its text
    widths = [measure_text(label, fontsize)[0] + 4.8 * fontsize for label, _ in entries]
    width = max(sum(widths), measure_text(title, fontsize)[0]) + 2 * fontsize
    return width, 4.2 * fontsize


def _draw_box(ax: Any, box: Box, fill: RGB, edge: str | None, radius: float, lw: float,
              gid: str) -> None:
    """One rounded box exactly on the layout's bounds."""
    from matplotlib.patches import FancyBboxPatch

    x0, y0, _, _ = box.bounds
    ax.add_patch(FancyBboxPatch((x0, y0), box.width, box.height, gid=gid,
                                boxstyle=f"round,pad=0,rounding_size={radius}",
                                fc=fill, ec=edge or "none", lw=lw))


def plot_tree(model: Any, feature_names: list[str] | None = None, ax: Any = None,
              path: str | Path | None = None, fontsize: float = 8.0) -> Figure:
    """Draw a tree: boxes with the test and class counts; leaves coloured by predicted class,
    darker the purer (regression: the larger the value), with a legend.

    The figure is sized to the laid-out tree (see :func:`layout_tree`) so every box holds its
    text at ``fontsize`` points; drawn into a given ``ax``, the picture is scaled to fit it.
    Returns the matplotlib Figure; with ``path`` the picture is also saved (PNG, SVG, PDF by
    the file extension).  Node boxes and their texts carry the gid ``node-<i>``, edge labels
    ``edge-<i>`` (``i`` indexes ``layout_tree(...).boxes``).
    """
    plt = pyplot()
    root = _as_nodes(model, feature_names)
    lay = layout_tree(root, fontsize)
    title, entries = legend_entries(root)
    legend_w, legend_h = _legend_size(title, entries, fontsize)
    width, height = max(lay.width, legend_w), lay.height + legend_h
    if ax is None:
        fig = plt.figure(figsize=(width / 72, height / 72))
        ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    else:
        fig = ax.figure
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.set_aspect("equal")
    ax.axis("off")
    extent = ax.get_window_extent()
    scale = min(extent.width / width, extent.height / height) * 72 / fig.dpi
    _draw_layout(ax, lay, node_colours(root), scale)
    if entries:
        _draw_legend(ax, title, entries, fontsize * scale)
    if path is not None:
        fig.savefig(path, dpi=150, bbox_inches="tight")
    return fig


def _draw_layout(ax: Any, lay: TreeLayout, colours: dict[int, RGB], scale: float) -> None:
    """Boxes, texts and arrows of a layout; font sizes times ``scale`` (points per unit)."""
    for i, box in enumerate(lay.boxes):
        is_node = box.kind == "node"
        fill = colours.get(id(box.node), NEUTRAL) if is_node else (1.0, 1.0, 1.0)
        gid = f"{box.kind}-{i}"
        _draw_box(ax, box, fill, "0.3" if is_node else None, 0.3 * lay.fontsize, 0.8 * scale,
                  gid)
        fs = lay.fontsize * (1.0 if is_node else 0.9) * scale
        ax.text(box.x, box.y, box.text, ha="center", va="center", multialignment="center",
                fontsize=fs, linespacing=LINESPACING, parse_math=False, gid=gid,
                color=_text_colour(fill) if is_node else "0.25")
    for parent, child, label in lay.edges:
        p, c = lay.boxes[parent], lay.boxes[child]
        end = lay.boxes[label].bounds[3] if label is not None else c.bounds[3]
        ax.annotate("", xy=(c.x, end), xytext=(p.x, p.bounds[1]),
                    arrowprops={"arrowstyle": "-|>", "color": "0.45", "lw": 0.8 * scale,
                                "shrinkA": 0, "shrinkB": 0, "mutation_scale": 8 * scale})
        if label is not None:
            ax.plot([c.x, c.x], [lay.boxes[label].bounds[1], c.bounds[3]], color="0.45",
                    lw=0.8 * scale)


def _draw_legend(ax: Any, title: str, entries: list[tuple[str, RGB]], fontsize: float) -> None:
    """A one-row legend of the leaf colours at the top left, above the tree."""
    from matplotlib.patches import Patch

    handles = [Patch(fc=colour, ec="0.3", label=label) for label, colour in entries]
    ax.legend(handles=handles, title=title, loc="upper left", ncol=len(handles),
              fontsize=fontsize, title_fontsize=fontsize, frameon=False, borderaxespad=0.3,
              alignment="left")


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
