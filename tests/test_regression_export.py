"""The text, DOT and picture of a :class:`RegressionTree` (issue #43): every leaf line is read
back as the conjunction of the tests above it, evaluated on the raw table, and its mean and
count are recomputed from their definitions (weighted mean and row count of the rows that
satisfy it)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from optrees import OptimalTreeRegressor
from optrees.models.regression_tree import RegressionTree


def _houses(n: int = 90, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """Raw columns with real names: a float, an integer and a category."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"floor area": rng.uniform(30, 160, n).round(1),
                       "rooms": rng.integers(1, 7, n),
                       "district": rng.choice(["north", "centre", "harbour"], n)})
    y = (1.0 * df["floor area"] + 120 * (df["district"] == "centre") + 5 * df["rooms"]
         + rng.normal(size=n) * 8).to_numpy()
    return df, y


TEST = re.compile(r"^(?P<name>.+?) (?P<op><=|>|=|!=) (?P<value>.+)$")


def _rows(df: pd.DataFrame, test: str) -> np.ndarray:
    """The rows of ``df`` a test line of the text holds for."""
    m = TEST.match(test)
    assert m, f"unreadable test {test!r}"
    col, op, value = df[m["name"]], m["op"], m["value"]
    if op in ("<=", ">"):
        t = float(value)
        return (col <= t).to_numpy() if op == "<=" else (col > t).to_numpy()
    return (col == value).to_numpy() if op == "=" else (col != value).to_numpy()


def _leaves_from_text(text: str, df: pd.DataFrame) -> list[tuple[np.ndarray, float, str]]:
    """(rows reaching the leaf, printed value, printed size) for each leaf line."""
    path: list[np.ndarray] = []
    out = []
    for line in text.splitlines():
        depth = line.count("|   ")
        body = line.split("|--- ", 1)[1]
        del path[depth:]
        leaf = re.match(r"value: (\S+)  \((.+)\)$", body)
        if leaf:
            rows = np.logical_and.reduce(path) if path else np.ones(len(df), bool)
            out.append((rows, float(leaf[1]), leaf[2]))
        else:
            path.append(_rows(df, body))
    return out


@pytest.mark.parametrize("depth,min_leaf", [(1, 1), (2, 1), (3, 5)])
def test_every_leaf_line_is_the_mean_and_count_of_its_rows(depth, min_leaf):
    df, y = _houses()
    model = OptimalTreeRegressor(depth=depth, min_samples_leaf=min_leaf,
                                 time_limit=None).fit(df, y)
    text = model.export_text()
    leaves = _leaves_from_text(text, df)
    assert len(leaves) == model.tree_.n_leaves
    covered = np.zeros(len(df), int)
    for rows, value, size in leaves:
        covered += rows
        assert size == f"n={rows.sum()}"
        assert value == pytest.approx(y[rows].mean(), rel=1e-5)  # printed to 6 digits
        assert rows.sum() >= min_leaf
    assert (covered == 1).all()  # the leaves partition the rows
    # predictions are the printed means of the leaf each row reaches
    for rows, value, _ in leaves:
        np.testing.assert_allclose(model.predict(df[rows]), value, rtol=1e-5)


def test_the_text_reads_in_the_tables_own_words():
    df, y = _houses()
    text = OptimalTreeRegressor(depth=2, time_limit=None).fit(df, y).export_text()
    assert "floor area <= " in text and "floor area > " in text  # names with spaces kept
    assert "district = centre" in text and "district != centre" in text
    assert "<= 0.5" not in text and "x[" not in text
    for threshold in re.findall(r"floor area <= (\S+)", text):  # a midpoint of two values
        t = float(threshold)
        below, above = df["floor area"][df["floor area"] <= t], df["floor area"][
            df["floor area"] > t]
        assert t == pytest.approx((below.max() + above.min()) / 2)


def test_weighted_rows_print_their_weight_and_weighted_mean():
    df, y = _houses(40, seed=2)
    w = np.where(df["district"] == "north", 2.5, 1.0)
    model = OptimalTreeRegressor(depth=1, time_limit=None).fit(df, y, sample_weight=w)
    for rows, value, size in _leaves_from_text(model.export_text(), df):
        weight = w[rows].sum()
        if weight == rows.sum():
            assert size == f"n={rows.sum()}"
        else:
            assert size == f"n={rows.sum()}, weight {weight:.4g}"
        assert value == pytest.approx(np.sum(w[rows] * y[rows]) / weight, rel=1e-5)


def test_a_single_leaf_and_names_given_later():
    tree = RegressionTree([-1], [0.0], [-1], [-1], [2.5], [4.0], [4])
    assert tree.export_text() == "value: 2.5  (n=4)"
    tree = RegressionTree([0, -1, -1], [1.5, 0, 0], [1, -1, -1], [2, -1, -1],
                          [2.0, 1.0, 3.0], [4, 2, 2], [4, 2, 2])
    assert tree.export_text() == ("|--- x[0] <= 1.5\n|   |--- value: 1  (n=2)\n"
                                  "|--- x[0] > 1.5\n|   |--- value: 3  (n=2)")
    assert tree.export_text(["speed"]).splitlines()[0] == "|--- speed <= 1.5"


def test_the_picture_and_dot_show_each_test_mean_and_count():
    df, y = _houses()
    model = OptimalTreeRegressor(depth=2, time_limit=None).fit(df, y)
    tree = model.tree_
    root = tree._plot_nodes()
    leaves = [n for n in _walk(root) if n.leaf]
    assert len(leaves) == tree.n_leaves
    leaf_ids = np.flatnonzero(tree.feature == -1)
    assert sorted(n.lines[0] for n in leaves) == sorted(
        f"value = {tree.value[i]:.4g}" for i in leaf_ids)
    assert sorted(n.lines[1] for n in leaves) == sorted(f"n={tree.count[i]}" for i in leaf_ids)
    assert root.lines[1] == f"mean {y.mean():.4g}, n={len(y)}"
    dot = model.to_dot()
    assert dot.count("value = ") == tree.n_leaves and f"n={len(y)}" in dot
    # a category's box asks "district = centre" and its right branch answers yes
    boxes = [n for n in _walk(root) if not n.leaf and n.lines[0] == "district = centre"]
    assert all([e for e, _ in n.children] == ["no", "yes"] for n in boxes)


def _walk(node):
    yield node
    for _, child in node.children:
        yield from _walk(child)


def test_a_split_at_one_half_reads_by_the_kind_of_its_column():
    """A column of numbers split between 0 and 1 reads "rooms <= 0.5"; a column of only 0
    and 1 is a 0/1 literal, as in the classifiers' trees ("garage" / "not (garage)")."""
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"rooms": rng.integers(0, 3, 40), "garage": rng.integers(0, 2, 40)})
    y = 10.0 * (df["rooms"] > 0) + rng.normal(size=40)
    text = OptimalTreeRegressor(depth=1, time_limit=None).fit(df, y).export_text()
    assert text.splitlines()[0] == "|--- rooms <= 0.5" and "|--- rooms > 0.5" in text
    y = 10.0 * df["garage"] + rng.normal(size=40)
    text = OptimalTreeRegressor(depth=1, time_limit=None).fit(df, y).export_text()
    assert text.splitlines()[0] == "|--- not (garage)" and "|--- garage\n" in text
    for rows, value, _ in _leaves_from_text(text.replace("not (garage)", "garage = 0")
                                            .replace("--- garage\n", "--- garage = 1\n"),
                                            df.astype({"garage": str})):
        assert value == pytest.approx(y[rows].mean(), rel=1e-5)
