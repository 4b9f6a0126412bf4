"""Tree layout without matplotlib figures: every box sized to its text, rows aligned,
subtrees packed left to right so that no two boxes overlap (coordinates in points)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .nodes import Node

TextMeasure = Callable[[str, float], tuple[float, float]]

LINESPACING = 1.2  # matplotlib's default, used when drawing
WRAP_CHARS = 36  # box lines longer than this are wrapped after a comma
CURVE_SIZE = (12.0, 6.5)  # a box's curve area (with its tick labels), in font sizes


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
    curve_area: tuple[float, float, float, float] | None = None  # left, bottom, width, height

    @property
    def text_y(self) -> float:
        """The height the text is centred at (the box's centre, or midway above its curve
        area)."""
        if self.curve_area is None:
            return self.y
        return (self.curve_area[1] + self.curve_area[3] + self.bounds[3]) / 2

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
        self.curve_size = (CURVE_SIZE[0] * fontsize, CURVE_SIZE[1] * fontsize)

    def box(self, size: tuple[float, float]) -> tuple[float, float]:
        return size[0] + 2 * self.pad_x, size[1] + 2 * self.pad_y

    def node_box(self, item: _Item) -> tuple[float, float]:
        """A node's box: its text with paddings, and room for its curve under the text."""
        w, h = self.box(item.size)
        if item.node.curve is None:
            return w, h
        cw, ch = self.curve_size
        return max(w, cw + 2 * self.pad_x), h + ch + self.pad_y

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
    slot = max(m.node_box(item)[0], m.label_box(item.label_size)[0])
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
        row_h[it.depth] = max(row_h[it.depth], m.node_box(it)[1])
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
    bottom = max(tops[it.depth] + m.node_box(it)[1] for it in items) + m.margin
    boxes: list[Box] = []
    index: dict[int, tuple[int, int | None]] = {}
    for i, it in enumerate(items):
        x = it.x - left + m.margin
        w, h = m.node_box(it)
        top = tops[it.depth]
        index[i] = (len(boxes), len(boxes) + 1 if it.label else None)
        y = bottom - (top + h / 2)
        area = None
        if it.node.curve is not None:  # the curve fills the box under the text
            area = (x - w / 2 + m.pad_x, y - h / 2 + m.pad_y, w - 2 * m.pad_x,
                    m.curve_size[1])
        boxes.append(Box("node", it.text, x, y, w, h, *it.size, it.node, area))
        if it.label:
            lw, lh = m.label_box(it.label_size)
            y = bottom - (top - m.label_gap - lh / 2)
            boxes.append(Box("edge", it.label, x, y, lw, lh, *it.label_size))
    edges = [(index[i][0], index[k][0], index[k][1]) for i, it in enumerate(items)
             for k in it.children]
    return TreeLayout(boxes, edges, right - left + 2 * m.margin, bottom, fontsize)
