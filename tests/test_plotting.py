"""Tree and rule-set pictures: DOT structure, PNG/SVG files, box and bar contents."""

import re

import numpy as np
import pandas as pd
import pytest

from optrees.export import Node, Prediction, layout_tree, plot_tree
from optrees.models.binary_tree import LEAF, BinaryTree
from optrees.models.rule_set import Literal, Rule, RuleSet


def _tree() -> BinaryTree:
    # root: age <= 37.5 ? (left: leaf yes) : (color = red ? no : yes)
    t = BinaryTree(
        feature=[0, LEAF, 1, LEAF, LEAF],
        threshold=[37.5, 0.0, 0.5, 0.0, 0.0],
        left=[1, LEAF, 3, LEAF, LEAF],
        right=[2, LEAF, 4, LEAF, LEAF],
        value=[0, 0, 1, 1, 0],
        classes=["yes", "no"],
        feature_names=["age", "color = red"],
    )
    X = np.array([[30, 0], [40, 0], [41, 1], [50, 1], [20, 1]], dtype=float)
    return t.set_counts(X, np.array([0, 1, 0, 0, 0]))


def test_dot_has_every_node_and_edge_with_names():
    dot = _tree().to_dot()
    assert dot.startswith("digraph") and dot.rstrip().endswith("}")
    assert len(re.findall(r"^\s+n\d+ \[label=", dot, re.M)) == 5
    edges = re.findall(r"^\s+n(\d+) -> n(\d+)", dot, re.M)
    assert sorted((int(a), int(b)) for a, b in edges) == [(0, 1), (0, 2), (2, 3), (2, 4)]
    assert "age <= 37.5" in dot and "color = red" in dot
    assert "class = no" in dot and "class = no\\nsamples: yes: 0, no: 1" in dot


def test_dot_escapes_quotes():
    t = _tree()
    t.feature_names = ['say "hi"', "b"]
    dot = t.to_dot()
    assert 'say \\"hi\\" <= 37.5' in dot


@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_plot_tree_writes_file_with_one_box_per_node(tmp_path, suffix):
    out = tmp_path / f"tree.{suffix}"
    fig = plot_tree(_tree(), path=out)
    boxes = [t.get_text() for t in fig.axes[0].texts if t.get_text() not in ("", "yes", "no")]
    assert len(boxes) == 5
    assert sum(b.startswith("class =") for b in boxes) == 3
    assert out.stat().st_size > 1000


def test_plot_rules_bars_sorted_by_weight(tmp_path):
    rules = RuleSet(
        [Rule((Literal("age", "<=", 30.0),), 0, 0.5),
         Rule((Literal("color", "==", "red"), Literal("age", ">", 30.0)), 1, 2.0),
         Rule((Literal("color", "!=", "red"),), 0, 1.0)],
        classes=["yes", "no"], feature_names=["age", "color"], default_class=0,
    )
    fig = rules.plot(max_rules=2, path=tmp_path / "rules.png")
    ax = fig.axes[0]
    widths = [p.get_width() for p in ax.patches]
    assert widths == [2.0, 1.0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0].startswith("IF color == red") and labels[0].endswith("THEN no")
    assert (tmp_path / "rules.png").stat().st_size > 1000
    # the rules plotted are the rules predicted with
    df = pd.DataFrame({"age": [20.0, 40.0], "color": ["red", "red"]})
    assert list(rules.predict(df)) == ["yes", "no"]


def test_plot_rejects_non_tree():
    with pytest.raises(TypeError, match="cannot draw"):
        plot_tree(object())


def test_estimators_plot_their_model(tmp_path):
    from optrees import BendersOCTClassifier, RUGClassifier, load_dataset

    X, y = load_dataset("monk1")
    tree = BendersOCTClassifier(depth=2, time_limit=20, random_state=0).fit(X, y)
    fig = tree.plot(tmp_path / "t.png")
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert sum(t.startswith("class =") for t in texts) == tree.tree_.n_leaves
    assert tree.to_dot().count("->") == tree.tree_.n_nodes - 1
    rules = RUGClassifier(max_depth=2, random_state=0).fit(X, y)
    fig = rules.plot(tmp_path / "r.png")
    assert len(fig.axes[0].patches) == min(20, len(rules.rules_))
    assert (tmp_path / "t.png").exists() and (tmp_path / "r.png").exists()


def test_multiway_tree_plot_and_dot(tmp_path):
    from optrees import OMTClassifier, load_dataset

    X, y = load_dataset("car-evaluation")
    clf = OMTClassifier(depth=2, leaves=4, time_limit=30, random_state=0).fit(X, y)
    tree = clf.tree_
    fig = clf.plot(tmp_path / "omt.svg")
    boxes = [t for t in fig.axes[0].texts if t.get_text().startswith(("class:", "split on"))]
    assert len(boxes) == tree.n_nodes
    dot = clf.to_dot()
    assert dot.count("->") == tree.n_nodes - 1
    assert "split on" in dot and (tmp_path / "omt.svg").stat().st_size > 1000


# ------------------------------------------------------------------ readable tree pictures
CAR = ["acc", "good", "unacc", "vgood"]


def _car_tree() -> BinaryTree:
    """The depth-3 car-evaluation tree of issue #20, whose bottom leaves were drawn on top of
    each other (four class counts per box)."""
    counts = [[384, 69, 1210, 65], [384, 69, 634, 65], [384, 69, 250, 65], [312, 69, 130, 65],
              [72, 0, 120, 0], [0, 0, 384, 0], [0, 0, 576, 0]]
    return BinaryTree(
        feature=[0, 1, 2, LEAF, LEAF, LEAF, LEAF], threshold=[0.5] * 7,
        left=[1, 2, 3, LEAF, LEAF, LEAF, LEAF], right=[6, 5, 4, LEAF, LEAF, LEAF, LEAF],
        value=[2, 2, 0, 0, 2, 2, 2], classes=CAR, counts=np.array(counts),
        feature_names=["safety = low", "persons = 2", "maint = vhigh"],
    )


def _full_tree(depth: int = 5) -> BinaryTree:
    """A full binary tree: four classes, random leaf counts, every node predicts its majority."""
    rng = np.random.default_rng(0)
    n_splits = 2**depth - 1
    tree = BinaryTree.from_heap({h: h - 1 for h in range(1, n_splits + 1)}, {}, CAR)
    tree.feature_names = [f"feature {j} = level {j % 3}" for j in range(n_splits)]
    counts = np.zeros((tree.n_nodes, len(CAR)), dtype=np.int64)
    for n in reversed(range(tree.n_nodes)):  # preorder: children after their parent
        if tree.is_leaf(n):
            counts[n] = rng.multinomial(rng.integers(20, 400), rng.dirichlet([0.5] * len(CAR)))
        else:
            counts[n] = counts[tree.left[n]] + counts[tree.right[n]]
    tree.counts, tree.value = counts, counts.argmax(axis=1)
    return tree


def _leaf(name: str, k: int, counts: list[int]) -> Node:
    return Node([f"class: {name}", f"[{sum(counts)} training samples]"], leaf=True,
                prediction=Prediction.of(["low", "mid", "high"], k, counts))


def _wide_multiway() -> Node:
    """A multiway tree: a root with nine children (long edge labels), two of them split
    again into three and four children."""
    names = ["low", "mid", "high"]

    def kids(prefix: str, n: int) -> list[tuple[str, Node]]:
        return [(f"{prefix} in {{v{j}, v{j + 1}, v{j + 2}}}",
                 _leaf(names[j % 3], j % 3, [10 + j, 3 * j, 2])) for j in range(n)]

    children = kids("colour", 9)
    children[2] = ("colour = v2", Node(["split on size"], leaf=False, children=kids("size", 3)))
    children[5] = ("colour = v5", Node(["split on weight"], leaf=False,
                                       children=kids("weight", 4)))
    return Node(["split on colour"], leaf=False, children=children)


def _box_texts(fig) -> list:
    """The texts of boxes drawn (not the arrows: empty annotations)."""
    return [t for t in fig.axes[0].texts if t.get_text()]


def _frame(text):
    """The box around a text: the patch sharing its gid, else the text's own bbox patch."""
    patches = {p.get_gid(): p for p in text.axes.patches if p.get_gid()}
    return patches.get(text.get_gid()) or text.get_bbox_patch()


def _frames(fig) -> list[tuple[str, object, object]]:
    """(gid, box frame extent, text extent) of every box text drawn, in display pixels."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    return [(t.get_gid(), _frame(t).get_window_extent(renderer), t.get_window_extent(renderer))
            for t in _box_texts(fig)]


def _overlapping(extents) -> list[tuple[int, int]]:
    return [(i, j) for i, a in enumerate(extents) for j, b in enumerate(extents[:i])
            if a.x0 < b.x1 - 0.5 and b.x0 < a.x1 - 0.5 and a.y0 < b.y1 - 0.5 and b.y0 < a.y1 - 0.5]


def _assert_readable(fig, n_nodes: int, min_fontsize: float = 7.0) -> None:
    """One framed box per node, no two boxes (nor the legend) overlap, every box holds its
    text, and the text is not shrunk below ``min_fontsize`` points."""
    frames = _frames(fig)
    boxes = [frame for _, frame, _ in frames]
    legend = fig.axes[0].get_legend()
    if legend is not None:
        boxes.append(legend.get_window_extent(fig.canvas.get_renderer()))
    assert _overlapping(boxes) == []
    assert sum(1 for gid, _, _ in frames if gid and gid.startswith("node-")) == n_nodes
    for gid, frame, text in frames:
        assert (frame.x0 <= text.x0 + 0.5 and text.x1 <= frame.x1 + 0.5
                and frame.y0 <= text.y0 + 0.5 and text.y1 <= frame.y1 + 0.5), gid
    assert min(t.get_fontsize() for t in fig.axes[0].texts) >= min_fontsize


def test_layout_boxes_hold_their_text_and_do_not_overlap():
    for root in (_as_root(_car_tree()), _as_root(_full_tree()), _wide_multiway()):
        lay = layout_tree(root, fontsize=8.0)
        nodes = [b for b in lay.boxes if b.kind == "node"]
        assert len(nodes) == _count(root) and len(lay.edges) == len(nodes) - 1
        assert not [(a, b) for i, a in enumerate(lay.boxes) for b in lay.boxes[:i]
                    if a.overlaps(b)]
        for b in lay.boxes:
            assert b.width > b.text_width and b.height > b.text_height
            x0, y0, x1, y1 = b.bounds
            assert 0 <= x0 and x1 <= lay.width and 0 <= y0 and y1 <= lay.height
        for parent, child, label in lay.edges:  # children below parents, labels between
            p, c = lay.boxes[parent], lay.boxes[child]
            assert c.bounds[3] < p.bounds[1]
            if label is not None:
                assert c.bounds[3] < lay.boxes[label].bounds[1] < p.bounds[1]


def test_curves_sit_in_their_boxes_under_the_text():
    root = _as_root(_full_tree())
    leaves = [n for n in _nodes(root) if n.leaf]
    for n in leaves[::2]:
        n.curve = (np.array([0.0, 1.0, 2.0]), np.array([1.0, 0.5, 0.25]))
    lay = layout_tree(root, fontsize=8.0)
    assert not [(a, b) for i, a in enumerate(lay.boxes) for b in lay.boxes[:i]
                if a.overlaps(b)]
    with_curve = [b for b in lay.boxes if b.curve_area is not None]
    assert len(with_curve) == len(leaves[::2])
    for b in with_curve:
        left, bottom, width, height = b.curve_area
        x0, y0, x1, y1 = b.bounds
        assert x0 < left and left + width < x1 and y0 < bottom
        pad = 0.2 * 8.0  # some room between the text and the curve and the border
        assert bottom + height + pad <= b.text_y - b.text_height / 2  # below the text
        assert b.text_y + b.text_height / 2 + pad <= y1
    fig = plot_tree(root)
    assert len(fig.axes[0].child_axes) == len(with_curve)


def _nodes(node: Node) -> list[Node]:
    return [node] + [m for _, child in node.children for m in _nodes(child)]


def _as_root(tree: BinaryTree) -> Node:
    from optrees.export import binary_tree_nodes

    return binary_tree_nodes(tree)


def _count(node: Node) -> int:
    return 1 + sum(_count(child) for _, child in node.children)


def test_layout_scales_with_the_font_and_takes_a_text_measure():
    root = _as_root(_car_tree())
    small, large = layout_tree(root, 8.0), layout_tree(root, 16.0)
    assert large.width == pytest.approx(2 * small.width, rel=0.05)
    per_char = layout_tree(root, 8.0, measure=lambda s, fs: (
        0.7 * fs * max(map(len, s.split("\n"))), 1.3 * fs * (s.count("\n") + 1)))
    widest = max((b for b in per_char.boxes if b.kind == "node"), key=lambda b: b.text_width)
    assert widest.text_width == pytest.approx(0.7 * 8.0 * 28)  # "samples: acc: 384, good: 69,"


@pytest.mark.parametrize("make", [_car_tree, _full_tree], ids=["car-depth3", "full-depth5"])
def test_binary_tree_picture_is_readable(tmp_path, make):
    tree = make()
    fig = plot_tree(tree, path=tmp_path / "t.png")
    _assert_readable(fig, tree.n_nodes)
    if make is _full_tree:  # the figure grows with the tree instead of shrinking the text
        assert fig.get_figwidth() > 2 * plot_tree(_car_tree()).get_figwidth()


def test_multiway_picture_with_many_children_is_readable():
    fig = plot_tree(_wide_multiway())
    _assert_readable(fig, _count(_wide_multiway()))


def test_tree_drawn_into_given_axes_is_scaled_to_fit():
    import matplotlib.pyplot as plt

    fig, (_, ax) = plt.subplots(1, 2, figsize=(12, 4))
    assert plot_tree(_car_tree(), ax=ax) is fig
    boxes = [p.get_window_extent() for p in ax.patches if p.get_gid()]
    assert len(boxes) == 7 + 6  # nodes and edge labels
    assert _overlapping(boxes) == []
    inside = ax.get_window_extent()
    assert all(inside.x0 - 1 <= b.x0 and b.x1 <= inside.x1 + 1 for b in boxes)
    plt.close(fig)


def _fills(fig) -> dict[str, tuple[float, float, float]]:
    """Face colour of each framed box, keyed by the box's text."""
    return {t.get_text(): tuple(_frame(t).get_facecolor()[:3]) for t in _box_texts(fig)}


def _intensity(rgb) -> float:
    return 1.0 - float(np.mean(rgb))  # distance from white of a tint


def _hue(rgb) -> float:
    import colorsys

    return colorsys.rgb_to_hsv(*rgb)[0]


def test_leaves_coloured_by_class_and_darker_when_purer():
    # leaves: low 60% / low 90% / mid 100% / high 50% / high 100% (of 3 classes)
    root = Node(["split on a"], leaf=False, children=[
        ("a1", _leaf("low", 0, [12, 4, 4])), ("a2", _leaf("low", 0, [9, 1, 0])),
        ("a3", _leaf("mid", 1, [0, 5, 0])), ("a4", _leaf("high", 2, [3, 3, 6])),
        ("a5", Node(["split on b"], leaf=False, children=[("b1", _leaf("high", 2, [0, 0, 7]))])),
    ])
    fig = plot_tree(root)
    fills = _fills(fig)
    low60, low90, mid, high50, high100 = (fills[f"class: {name}\n[{n} training samples]"]
                                          for name, n in [("low", 20), ("low", 10), ("mid", 5),
                                                          ("high", 12), ("high", 7)])
    for inner in (fills["split on a"], fills["split on b"]):  # internal nodes: neutral grey
        assert max(inner) - min(inner) < 1e-9
    assert _hue(low60) == pytest.approx(_hue(low90), abs=0.02)
    assert _hue(high50) == pytest.approx(_hue(high100), abs=0.02)
    hues = [_hue(low90), _hue(mid), _hue(high100)]
    assert min(abs(a - b) for i, a in enumerate(hues) for b in hues[:i]) > 0.05
    assert _intensity(low60) < _intensity(low90)
    assert _intensity(high50) < _intensity(high100)
    legend = fig.axes[0].get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["low", "mid", "high"]


def test_class_colours_consistent_between_trees_and_in_dot():
    car, full = _fills(plot_tree(_car_tree())), _fills(plot_tree(_full_tree()))
    for line in ("class = acc\n", "class = unacc\n"):
        hues = [_hue(c) for fills in (car, full) for text, c in fills.items()
                if text.startswith(line)]
        assert len(hues) > 2 and max(hues) - min(hues) < 0.02
    fills = re.findall(r'label="class = (\w+)[^"]*", fillcolor="(#[0-9a-f]{6})"',
                       _car_tree().to_dot())
    by_class = {lab: {c for lab2, c in fills if lab2 == lab} for lab, _ in fills}
    assert set(by_class) == {"acc", "unacc"} and not by_class["acc"] & by_class["unacc"]


def test_regression_leaves_darker_with_larger_value():
    def leaf(v: float) -> Node:
        return Node([f"value: {v}"], leaf=True, prediction=Prediction(value=v))

    root = Node(["split on a"], leaf=False, children=[("x", leaf(1.0)), ("y", leaf(5.0)),
                                                      ("z", leaf(3.0))])
    fig = plot_tree(root)
    one, five, three = (_fills(fig)[f"value: {v}"] for v in (1.0, 5.0, 3.0))
    assert _intensity(one) < _intensity(three) < _intensity(five)
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["1", "5"]


def test_plotting_is_the_public_name_of_export():
    """``optrees.plotting`` (the documented name before the export room) still works."""
    import optrees.export
    import optrees.plotting

    assert optrees.plotting.plot_tree is optrees.export.plot_tree
    assert set(optrees.plotting.__all__) == set(optrees.export.__all__)
