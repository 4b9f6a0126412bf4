"""Printed models follow the documented rule: numeric tests as ``x <= t`` / ``x > t`` that
route every training row as the model does, categories as ``= v`` / ``!= v``, thresholds
and leaf values without float noise, weighted leaves as ``n=<rows>, weight <w>``, and an
OMT tree without branches that repeat one prediction."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from optrees import BendOCTClassifier, OptimalTreeRegressor
from optrees._numbers import value_digits
from optrees.cgh.sampling import SplitTable
from optrees.comparison import model_size
from optrees.encoding.binarize import Binarizer
from optrees.encoding.binary import binarize
from optrees.encoding.thresholds import ThresholdColumns
from optrees.estimators.policy import policy_text
from optrees.models import multiway_tree
from optrees.models.binary_tree import BinaryTree
from optrees.models.level import Level
from optrees.trees.mip.binoct import candidate_thresholds
from optrees.trees.solve.rashomon import ThresholdLiterals

TEST = re.compile(r"^(?:(?P<lo>\S+) < )?(?P<col>.+?) (?P<op><=|>) (?P<t>[-+0-9.e]+)$")


def _holds(text: str, df: pd.DataFrame) -> np.ndarray:
    """Where the printed test ``text`` (``x <= t``, ``x > t``, ``lo < x <= hi``, or their
    ``not (...)``) holds on the rows of ``df``."""
    if text.startswith("not (") and text.endswith(")"):
        return ~_holds(text[5:-1], df)
    m = TEST.match(text)
    assert m, f"not a threshold test: {text!r}"
    x = df[m["col"]].to_numpy(dtype=float)
    out = x <= float(m["t"]) if m["op"] == "<=" else x > float(m["t"])
    return out & (x > float(m["lo"])) if m["lo"] else out


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"G1": rng.integers(0, 5, 120), "num": rng.random(120).round(2),
                         "tiny": 1e-9 * rng.integers(0, 7, 120)})


@pytest.mark.parametrize("numeric", ["thresholds", "buckets"])
def test_binarized_literals_print_as_le_and_route_rows_alike(numeric: str) -> None:
    df = _frame()
    X01, enc = binarize(df, Binarizer(numeric=numeric, n_bins=4))
    new = _unseen(df)
    X_new = enc.binarizer.transform(new)
    for j, (name, negated) in enumerate(zip(enc.names, enc.negated, strict=True)):
        assert ">=" not in name + negated and not re.search(r"(?<!\S) < (?!.*<=)", name)
        assert np.array_equal(_holds(name, df), X01[:, j] == 1), name
        assert np.array_equal(_holds(negated, df), X01[:, j] == 0), negated
        # and on values between the training ones: the printed test is what the model does
        assert np.array_equal(_holds(name, new), X_new[:, j] == 1), name


def _unseen(df: pd.DataFrame) -> pd.DataFrame:
    """Rows of values between, below and above the training values of each column."""
    out = {}
    for c in df.columns:
        v = np.unique(df[c].to_numpy(dtype=float))
        between = np.concatenate([v[:-1] + (v[1:] - v[:-1]) * q for q in (0.01, 0.3, 0.7,
                                                                           0.99)])
        out[c] = np.concatenate([between, v, [v[0] - 1, v[-1] + 1]])
    n = max(len(x) for x in out.values())
    return pd.DataFrame({c: np.resize(x, n) for c, x in out.items()})


def _route(text: str, df: pd.DataFrame) -> np.ndarray:
    """The leaf line each row reaches by following the printed tree ``text``."""
    lines = text.splitlines()
    out = np.empty(len(df), dtype=object)

    def walk(start: int, end: int, depth: int, rows: np.ndarray) -> None:
        prefix = "|   " * depth + "|--- "
        heads = [i for i in range(start, end) if lines[i].startswith(prefix)]
        for k, i in enumerate(heads):
            body = lines[i][len(prefix):]
            if body.startswith("class:"):
                out[rows] = body
                return
            stop = heads[k + 1] if k + 1 < len(heads) else end
            walk(i + 1, stop, depth + 1, rows & _holds(body, df))

    walk(0, len(lines), 0, np.ones(len(df), dtype=bool))
    return out


def test_mip_path_prints_le_like_the_default_path_and_routes_as_predict() -> None:
    df = _frame()
    y = (df.G1 >= 1) & (df.num > 0.4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = BendOCTClassifier(depth=2, subtree_search=False, time_limit=30).fit(df, y)
    text = est.export_text()
    assert "G1 <= 0.5" in text and ">=" not in text and " < " not in text
    for rows in (df, _unseen(df)):  # training rows, and values never seen in training
        routed = _route(text, rows)
        printed = np.array([s.split()[1] for s in routed])
        assert np.array_equal(printed, est.predict(rows).astype(str))
    assert ">=" not in est.to_dot()


def test_rashomon_literals_negate_a_category_as_fit_does() -> None:
    df = pd.DataFrame({"Farbe": ["rot", "blau", "rot", "grün"], "x": [1.0, 2.0, 3.0, 4.0]})
    enc = ThresholdColumns(df)
    lits = ThresholdLiterals(enc, enc.transform(df))
    assert "Farbe != rot" in lits.negated
    assert not any(n.startswith("not (Farbe") for n in lits.negated)


def test_cgh_and_binoct_thresholds_have_no_float_noise() -> None:
    X = np.array([[0.1357], [0.1359], [3.36], [3.42]])
    table = SplitTable(X)
    assert repr(table.threshold[table.add(0, 1)]) == "0.1358"
    assert repr(table.threshold[table.add(0, 3)]) == "3.39"
    assert [repr(float(t)) for t in candidate_thresholds(X)[0]] == ["0.1358", "1.74795", "3.39"]


def test_weighted_policy_leaf_prints_rows_and_weight() -> None:
    tree = BinaryTree([0, -1, -1], [0.5, 0, 0], [1, -1, -1], [2, -1, -1], [0, 0, 1],
                      classes=[0, 1], feature_names=["b"], negated_names=["not b"])
    X = np.array([[0.0]] * 357 + [[1.0]] * 243)
    tree.set_counts(X, (X[:, 0] > 0).astype(int), np.full(600, 0.01))
    text = policy_text(tree, {1: 1.0, 2: 2.0})
    assert "(n=357, weight 3.57, estimated outcome 1)" in text
    assert "n=243, weight 2.43" in policy_text(BinaryTree.from_dict(tree.to_dict()), {})


def test_huge_leaf_values_print_with_six_digits() -> None:
    assert value_digits(np.array([103125748502994.0, 2.0e13]), 6) == 6
    assert value_digits(np.array([1e6 + 0.25, 1e6 + 0.5]), 6) > 6  # still told apart
    X = pd.DataFrame({"x": np.arange(20.0)})
    y = np.where(X.x < 10, 1.03125748502994e14, 2.0e13)
    text = OptimalTreeRegressor(depth=1).fit(X, y).export_text()
    assert "1.03126e+14" in text and "103125748502994" not in text


def _rules_tree(monkeypatch=None) -> multiway_tree.MultiwayTree:
    """The regression tree of three rules on levels a, b (codes 0-2): r0 a=0, r1 b=0, r2 a>=1
    and b>=1; r0 and r1 overlap only where no training row lies (a=0, b=0)."""
    levels = [Level("a", "numeric", cuts=np.array([1.0, 2.0])),
              Level("b", "numeric", cuts=np.array([1.0, 2.0]))]
    codes = np.array([[0, 1], [0, 2], [0, 1], [1, 0], [2, 0], [1, 1], [2, 2]])
    y = np.array([1.0, 1.0, 1.0, 5.0, 5.0, 9.0, 9.0])
    conditions = [{0: np.array([1, 0, 0], bool)}, {1: np.array([1, 0, 0], bool)},
                  {0: np.array([0, 1, 1], bool), 1: np.array([0, 1, 1], bool)}]
    return multiway_tree.MultiwayTree.from_rules(levels, conditions, [1.0, 5.0, 9.0],
                                                 [3, 2, 2], codes, y, None)


def test_omt_tree_merges_branches_that_predict_alike(monkeypatch) -> None:
    new = _rules_tree()
    monkeypatch.setattr(multiway_tree, "merged", lambda nodes, *_: nodes)
    old = _rules_tree()
    grid = np.array([[a, b] for a in range(3) for b in range(3)])
    assert np.array_equal(new.value[new.apply_codes(grid)], old.value[old.apply_codes(grid)])
    assert (old.n_leaves, new.n_leaves, new.depth) == (4, 3, 2)
    assert "0 training samples" not in new.export_text()
    assert new.n_model_leaves == 3
    assert model_size(type("M", (), {"tree_": new})()) == (3.0, "leaves")
