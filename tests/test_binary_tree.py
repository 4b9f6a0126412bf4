"""BinaryTree model: routing, structure, text and JSON round trip."""

import json

import numpy as np
import pytest

from optrees import BinaryTree
from optrees.models.binary_tree import LEAF


def _tree():
    # root tests x0 (0 -> left leaf class 0); right child tests x1 <= 2.5
    return BinaryTree(
        feature=[0, LEAF, 1, LEAF, LEAF],
        threshold=[0.5, 0, 2.5, 0, 0],
        left=[1, LEAF, 3, LEAF, LEAF],
        right=[2, LEAF, 4, LEAF, LEAF],
        value=[0, 0, 1, 1, 2],
        classes=["a", "b", "c"],
    )


def test_apply_predict_structure():
    t = _tree()
    X = np.array([[0, 9], [1, 2], [1, 3], [1, 2.5]])
    assert t.apply(X).tolist() == [1, 3, 4, 3]
    assert t.predict(X).tolist() == ["a", "b", "c", "b"]
    assert (t.depth, t.n_leaves, t.n_splits) == (2, 3, 2)


def test_counts_and_proba():
    t = _tree()
    X = np.array([[0, 0], [0, 0], [1, 0], [1, 5]])
    t.set_counts(X, np.array([0, 1, 1, 2]))
    assert t.counts[0].tolist() == [1, 2, 1]
    assert t.predict_proba(np.array([[0, 0]]))[0].tolist() == [0.5, 0.5, 0]
    unseen = BinaryTree(*[np.array(a) for a in ([LEAF], [0], [LEAF], [LEAF], [1])], ["x", "y"])
    assert unseen.predict_proba(np.zeros((1, 1)))[0].tolist() == [0, 1]


def test_json_round_trip_identical_predictions():
    t = _tree()
    t.feature_names = ["smoker", "age"]
    X = np.random.default_rng(0).uniform(0, 4, (200, 2)).round()
    t.set_counts(X, np.random.default_rng(1).integers(0, 3, 200))
    back = BinaryTree.from_dict(json.loads(json.dumps(t.to_dict())))
    assert np.array_equal(back.predict(X), t.predict(X))
    assert np.allclose(back.predict_proba(X), t.predict_proba(X))
    assert back.export_text() == t.export_text()


def test_export_text_uses_names():
    text = _tree().export_text(["smoker", "age"])
    assert "not (smoker)" in text and "age <= 2.5" in text and "age > 2.5" in text


def test_from_dict_rejects_other_kinds():
    with pytest.raises(ValueError, match="binary tree"):
        BinaryTree.from_dict({"kind": "rule_set"})


def test_weighted_counts_say_weight_in_text_picture_and_file():
    """Counts from sample weights are weights, not rows: the text says "(weight 3.5/4.5
    correct)" (summed by hand from the rows below), the picture "weight: ...", and a saved
    tree keeps that; unit weights, or none, stay row counts."""
    from optrees.export.nodes import binary_tree_nodes

    X = np.array([[0, 0], [0, 0], [1, 2], [1, 3], [1, 2]])
    y = np.array([0, 1, 1, 2, 1])  # class indices
    w = np.array([2.5, 1.0, 1.0, 4.0, 0.5])
    t = _tree().set_counts(X, y, w)
    text = t.export_text()
    assert "class: a  (weight 2.5/3.5 correct)" in text  # rows 0, 1 reach leaf 1
    assert "class: b  (weight 1.5/1.5 correct)" in text  # rows 2, 4 reach leaf 3
    assert "class: c  (weight 4/4 correct)" in text
    leaf = binary_tree_nodes(t).children[0][1]
    assert leaf.lines[1] == "weight: a: 2.5, b: 1, c: 0"
    back = BinaryTree.from_dict(json.loads(json.dumps(t.to_dict())))
    assert back.weighted and "(weight 2.5/3.5 correct)" in back.export_text()
    for plain in (None, np.ones(5)):
        u = _tree().set_counts(X, y, plain)
        assert "class: a  (1/2 correct)" in u.export_text() and not u.weighted
        assert binary_tree_nodes(u).children[0][1].lines[1].startswith("samples: ")
