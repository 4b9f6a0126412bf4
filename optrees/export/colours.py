"""Colours of a tree picture: leaves by predicted class (darker = purer) or by regression
value, and the legend that explains them."""

from __future__ import annotations

from .nodes import Node, walk

RGB = tuple[float, float, float]

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
    nodes = walk(root)
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
    preds = [n.prediction for n in walk(root) if n.leaf and n.prediction is not None]
    classes = sorted({(p.class_index, p.class_name, p.n_classes) for p in preds
                      if p.class_index is not None})
    if classes:
        return "leaf class (darker = purer)", [
            (name, _tint(class_hue(k, K), _DARKEST)) for k, name, K in classes]
    lo, hi = _value_range(walk(root))
    if not preds or lo == hi:
        return "", []
    hue = class_hue(_REGRESSION_HUE, 10)
    return f"leaf {preds[0].value_name} (darker = larger)", [(f"{lo:.4g}", _tint(hue, _LIGHTEST)),
                                            (f"{hi:.4g}", _tint(hue, _DARKEST))]


def hex_colour(rgb: RGB) -> str:
    return "#" + "".join(f"{round(255 * c):02x}" for c in rgb)


def text_colour(fill: RGB) -> str:
    """Black text on light fills, white on dark ones."""
    luminance = 0.2126 * fill[0] + 0.7152 * fill[1] + 0.0722 * fill[2]
    return "black" if luminance > 0.45 else "white"
