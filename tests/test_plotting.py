"""Tree and rule-set pictures: DOT structure, PNG/SVG files, box and bar contents."""

import re

import numpy as np
import pandas as pd
import pytest

from optrees.models.binary_tree import LEAF, BinaryTree
from optrees.models.rule_set import Literal, Rule, RuleSet
from optrees.plotting import plot_tree


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
