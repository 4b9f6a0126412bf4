"""matplotlib pictures: a laid-out tree (:func:`plot_tree`) and rule weights
(:func:`plot_rules`).  matplotlib is imported lazily, with the non-interactive Agg backend
when no backend was chosen, so plotting works on headless machines."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .colours import NEUTRAL, RGB, legend_entries, node_colours, text_colour
from .layout import LINESPACING, Box, TreeLayout, layout_tree, measure_text
from .nodes import as_nodes, fmt

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure


def pyplot():  # noqa: ANN201 - the matplotlib.pyplot module
    """matplotlib.pyplot, on the non-interactive Agg backend unless pyplot is already in use."""
    import matplotlib

    if "matplotlib.pyplot" not in __import__("sys").modules:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def check_picture_path(path: str | Path) -> None:
    """Refuse, before anything is drawn, a picture path whose folder does not exist, that is a
    folder, or whose extension matplotlib cannot write (one clear message each)."""
    from matplotlib.backend_bases import FigureCanvasBase

    path = Path(path)
    if not path.parent.is_dir():
        raise FileNotFoundError(f"cannot save the picture to {path}: the folder "
                                f"{path.parent} does not exist")
    if path.is_dir():
        raise IsADirectoryError(f"cannot save the picture to {path}: it is a folder")
    kinds = FigureCanvasBase.get_supported_filetypes()
    if path.suffix.lower().lstrip(".") not in kinds:
        raise ValueError(f"cannot save the picture to {path}: the file name must end in one of "
                         f"{', '.join('.' + k for k in sorted(kinds))}")


def _save(fig: Figure, path: str | Path) -> None:
    """Save ``fig`` to ``path`` (PNG, SVG, PDF... by the extension)."""
    try:
        fig.savefig(path, dpi=150, bbox_inches="tight")
    except OSError as exc:
        raise type(exc)(f"cannot save the picture to {path}: {exc.strerror or exc}") from exc


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
    if path is not None:
        check_picture_path(path)
    plt = pyplot()
    root = as_nodes(model, feature_names)
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
        _save(fig, path)
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
        ax.text(box.x, box.text_y, box.text, ha="center", va="center",
                multialignment="center", fontsize=fs, linespacing=LINESPACING,
                parse_math=False, gid=gid, color=text_colour(fill) if is_node else "0.25")
        if box.curve_area is not None:
            _draw_curve(ax, box, lay.fontsize, scale, gid)
    for parent, child, label in lay.edges:
        p, c = lay.boxes[parent], lay.boxes[child]
        end = lay.boxes[label].bounds[3] if label is not None else c.bounds[3]
        ax.annotate("", xy=(c.x, end), xytext=(p.x, p.bounds[1]),
                    arrowprops={"arrowstyle": "-|>", "color": "0.45", "lw": 0.8 * scale,
                                "shrinkA": 0, "shrinkB": 0, "mutation_scale": 8 * scale})
        if label is not None:
            ax.plot([c.x, c.x], [lay.boxes[label].bounds[1], c.bounds[3]], color="0.45",
                    lw=0.8 * scale)


def _draw_curve(ax: Any, box: Box, fontsize: float, scale: float, gid: str) -> None:
    """The node's step curve (y in [0, 1]) in its box's curve area, on small axes of their
    own (tick labels inside the area: 0 and 1 up the side, the first and last x below)."""
    x, y = (np.asarray(v, dtype=float) for v in box.node.curve)
    left, bottom, width, height = box.curve_area
    tick = 0.75 * fontsize
    inset = ax.inset_axes((left + 2.0 * tick, bottom + 1.8 * tick, width - 2.6 * tick,
                           height - 2.2 * tick), transform=ax.transData, gid=f"curve-{gid}")
    inset.step(x, y, where="post", color="0.15", lw=0.9 * scale)
    inset.set_ylim(0.0, 1.05)
    low = min(0.0, float(x.min()))
    inset.set_xlim(low, max(float(x.max()), low + 1.0))
    inset.set_yticks([0.0, 1.0], ["0", "1"])
    inset.set_xticks(inset.get_xlim(), [fmt(v) for v in inset.get_xlim()])
    inset.tick_params(labelsize=tick * scale, length=2 * scale, pad=1 * scale,
                      width=0.5 * scale)
    inset.patch.set_alpha(0.85)


def _draw_legend(ax: Any, title: str, entries: list[tuple[str, RGB]], fontsize: float) -> None:
    """A one-row legend of the leaf colours at the top left, above the tree."""
    from matplotlib.patches import Patch

    handles = [Patch(fc=colour, ec="0.3", label=label) for label, colour in entries]
    ax.legend(handles=handles, title=title, loc="upper left", ncol=len(handles),
              fontsize=fontsize, title_fontsize=fontsize, frameon=False, borderaxespad=0.3,
              alignment="left")


def plot_rules(rules: Any, max_rules: int | None = 20, ax: Any = None,
               path: str | Path | None = None, fontsize: float = 8.0) -> Figure:
    """Horizontal bars of the weights of a :class:`~optrees.models.rule_set.RuleSet`'s rules
    (largest first), each labelled with its rule text."""
    if path is not None:
        check_picture_path(path)
    plt = pyplot()
    order = sorted(range(len(rules.rules)), key=lambda j: -rules.rules[j].weight)
    if max_rules is not None:
        order = order[:max_rules]
    labels = [f"IF {r.condition_text()} THEN {fmt(rules.classes[r.label])}"
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
    default = fmt(rules.classes[rules.default_class])
    ax.set_title(f"{len(rules.rules)} rules (showing {len(order)}); no rule fires: {default}",
                 fontsize=fontsize + 1)
    fig.tight_layout()
    if path is not None:
        _save(fig, path)
    return fig
