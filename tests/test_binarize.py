"""Tests for optrees.encoding.binarize.Binarizer."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from data_dir import DATA_DIR as DATA
from data_dir import needs_data
from sklearn.base import clone

from optrees._validation import OptreesInputError
from optrees.encoding.binarize import Binarizer, BinaryLiteral


def _monk_like(n: int = 120, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cards = [3, 3, 2, 3, 4, 2]
    cols = {}
    for j, c in enumerate(cards):
        # every value appears at least once
        vals = np.concatenate([np.arange(1, c + 1), rng.integers(1, c + 1, size=n - c)])
        cols[f"a{j + 1}"] = rng.permutation(vals)
    return pd.DataFrame(cols)


def _blocks(b: Binarizer) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, lit in enumerate(b.literals_):
        out.setdefault(lit.column, []).append(i)
    return out


def test_monk_like_categorical_gives_15_columns() -> None:
    df = _monk_like()
    b = Binarizer(categorical=list(df.columns)).fit(df)
    names = list(b.get_feature_names_out())
    assert len(names) == 15
    assert names[:3] == ["a1 = 1", "a1 = 2", "a1 = 3"]
    assert "a3 = 2" in names and "a3 = 1" not in names  # two categories -> one column
    assert "a6 = 2" in names and "a6 = 1" not in names
    assert [n for n in names if n.startswith("a5")] == ["a5 = 1", "a5 = 2", "a5 = 3", "a5 = 4"]
    X = b.transform(df)
    assert X.dtype == np.uint8 and X.shape == (len(df), 15)
    for lit, col in zip(b.literals_, X.T, strict=True):
        assert lit.op == "=="
        np.testing.assert_array_equal(col, (df[lit.column] == lit.value).to_numpy())


@needs_data
def test_tic_tac_toe_27_columns() -> None:
    path = DATA / "tic-tac-toe.data"
    raw = pd.read_csv(path, header=None)
    X = Binarizer().fit_transform(raw.iloc[:, :9])
    assert X.shape == (958, 27)


def test_qt5_thresholds_semantics() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=500)
    df = pd.DataFrame({"v": x})
    b = Binarizer(numeric="thresholds", n_bins=5).fit(df)
    t = b.thresholds_["v"]
    assert 1 <= len(t) <= 4
    # the quantiles' partitions of the training values, each cut a short decimal near its quantile
    for cut, q in zip(t, np.quantile(x, [0.2, 0.4, 0.6, 0.8]), strict=True):
        np.testing.assert_array_equal(x >= cut, x >= q)
        assert cut == pytest.approx(q, abs=1e-3)
    X = b.transform(df)
    assert X.shape == (500, len(t))
    for j, lit in enumerate(b.literals_):
        assert lit.op == ">=" and lit.value == t[j]
        np.testing.assert_array_equal(X[:, j], (x >= t[j]).astype(np.uint8))
    # exact boundary semantics: a value equal to a threshold is ">="
    Xt = b.transform(pd.DataFrame({"v": t}))
    np.testing.assert_array_equal(Xt, np.tril(np.ones((len(t), len(t)), dtype=np.uint8)))


def test_qt_dedup_and_drop_min() -> None:
    # heavy mass at 0: several quantiles are 0 (= min) and must be dropped/deduplicated
    x = np.r_[np.zeros(80), np.arange(1, 21)].astype(float)
    b = Binarizer(n_bins=5).fit(pd.DataFrame({"x": x}))
    t = b.thresholds_["x"]
    assert len(np.unique(t)) == len(t) and (t > x.min()).all()


def test_few_distinct_values_use_the_values() -> None:
    df = pd.DataFrame({"age": [20, 30, 30, 40, 20, 50]})
    b = Binarizer(n_bins=5).fit(df)
    assert list(b.get_feature_names_out()) == ["age >= 30", "age >= 40", "age >= 50"]
    X = b.transform(df)
    # every distinct value gets a distinct code
    assert len({tuple(r) for r in X}) == 4


def test_number_format() -> None:
    df = pd.DataFrame({"age": np.arange(20, 61), "w": np.linspace(0, 1, 41) / 3})
    b = Binarizer(n_bins=4).fit(df)
    names = list(b.get_feature_names_out())
    assert names[:3] == ["age >= 30", "age >= 40", "age >= 50"]
    # the fewest digits (>= 4) that keep the training rows on their sides: the cut at the
    # value 1/6 reads 0.1666 (0.1667 would move the row at 1/6 below it)
    assert names[3:] == ["w >= 0.08333", "w >= 0.1666", "w >= 0.25"]
    w = df["w"].to_numpy()
    for name, t, q in zip(names[3:], b.thresholds_["w"], (0.25, 0.5, 0.75), strict=True):
        printed = float(name.split(">= ")[1])
        assert printed == t  # the name is the cut, exactly
        np.testing.assert_array_equal(w >= printed, w >= np.quantile(w, q))


def test_qb5_is_one_hot_per_column() -> None:
    rng = np.random.default_rng(2)
    df = pd.DataFrame(
        {"a": rng.normal(size=300), "b": rng.integers(0, 100, 300), "c": rng.exponential(size=300)}
    )
    b = Binarizer(numeric="buckets", n_bins=5).fit(df)
    X = b.transform(df)
    for idx in _blocks(b).values():
        assert len(idx) == 5
        np.testing.assert_array_equal(X[:, idx].sum(axis=1), 1)
        ops = [b.literals_[i].op for i in idx]
        assert ops == ["<", "in_range", "in_range", "in_range", ">="]
    names = list(b.get_feature_names_out())
    assert names[0].startswith("a < ") and " <= a < " in names[1] and names[4].startswith("a >= ")
    # also on new data outside the training range
    Xn = b.transform(df * 10)
    for idx in _blocks(b).values():
        np.testing.assert_array_equal(Xn[:, idx].sum(axis=1), 1)


def test_literals_evaluate_matches_transform() -> None:
    rng = np.random.default_rng(3)
    df = pd.DataFrame(
        {
            "age": rng.integers(18, 90, 200),
            "color": rng.choice(["red", "green", "blue"], 200),
            "smoker": rng.integers(0, 2, 200),
        }
    )
    for mode in ("thresholds", "buckets"):
        b = Binarizer(numeric=mode).fit(df)
        X = b.transform(df)
        for lit, col in zip(b.literals_, X.T, strict=True):
            assert isinstance(lit, BinaryLiteral)
            assert lit["name"] == lit.name
            np.testing.assert_array_equal(lit.evaluate(df[lit.column]), col)


def test_binary_passthrough() -> None:
    df = pd.DataFrame({"smoker": [0, 1, 1, 0], "flag": [0.0, 1.0, 0.0, 0.0], "x": [1, 2, 3, 4]})
    b = Binarizer().fit(df)
    assert b.column_kinds_["smoker"] == "binary"
    names = list(b.get_feature_names_out())
    assert names[:2] == ["smoker", "flag"]
    assert b.literals_[0].op == "is_true"
    X = b.transform(df)
    np.testing.assert_array_equal(X[:, 0], df["smoker"])
    np.testing.assert_array_equal(X[:, 1], df["flag"])
    # {1, 2} is not pass-through
    b2 = Binarizer().fit(pd.DataFrame({"z": [1, 2, 1, 2]}))
    assert list(b2.get_feature_names_out()) == ["z >= 2"]


def test_auto_dtypes_and_unseen_category() -> None:
    df = pd.DataFrame(
        {
            "color": ["red", "green", "blue", "red"],
            "size": pd.Categorical(["S", "M", "L", "S"], categories=["S", "M", "L", "XL"]),
            "ok": [True, False, True, True],
            "s": pd.array(["u", "v", "u", "w"], dtype="string"),
        }
    )
    b = Binarizer().fit(df)
    assert list(b.get_feature_names_out()) == [
        "color = blue",
        "color = green",
        "color = red",
        "size = S",  # category dtype: dtype order, unused "XL" omitted
        "size = M",
        "size = L",
        "ok = True",
        "s = u",
        "s = v",
        "s = w",
    ]
    new = pd.DataFrame(
        {
            "color": ["purple", "red"],
            "size": pd.Categorical(["XL", "M"]),
            "ok": [False, True],
            "s": pd.array(["zz", "v"], dtype="string"),
        }
    )
    X = b.transform(new)
    np.testing.assert_array_equal(X[0], 0)
    np.testing.assert_array_equal(X[1], [0, 0, 1, 0, 1, 0, 1, 0, 1, 0])


def test_ndarray_input() -> None:
    arr = np.array([[1.0, 0.0, 5.0], [2.0, 1.0, 5.0], [3.0, 0.0, 5.0]])
    b = Binarizer().fit(arr)
    assert list(b.feature_names_in_) == ["x0", "x1", "x2"]
    assert b.n_features_in_ == 3
    assert list(b.get_feature_names_out()) == ["x0 >= 2", "x0 >= 3", "x1"]
    assert b.dropped_columns_ == ["x2"]
    obj = np.array([["a", "p"], ["b", "q"], ["c", "p"]], dtype=object)
    bo = Binarizer().fit(obj)
    assert list(bo.get_feature_names_out()) == ["x0 = a", "x0 = b", "x0 = c", "x1 = q"]
    with pytest.raises(OptreesInputError, match="X has 2 features.*expecting 3"):
        b.transform(arr[:, :2])
    with pytest.raises(OptreesInputError, match="sparse"):
        Binarizer().fit(sp.csr_matrix(arr))


def test_nan_rejected() -> None:
    df = pd.DataFrame({"a": [1.0, np.nan, 3.0], "b": ["x", "y", "z"]})
    with pytest.raises(OptreesInputError, match="missing"):
        Binarizer().fit(df)
    ok = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": ["x", "y", "z"]})
    b = Binarizer().fit(ok)
    with pytest.raises(OptreesInputError, match="missing"):
        b.transform(pd.DataFrame({"a": [1.0, 2.0], "b": ["x", None]}))


def test_wrong_columns_at_transform() -> None:
    df = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "z"]})
    b = Binarizer().fit(df)
    with pytest.raises(OptreesInputError, match="missing columns.*'b'"):
        b.transform(df[["a"]])
    with pytest.raises(OptreesInputError, match="not seen in fit.*'c'"):
        b.transform(df.assign(c=1))
    with pytest.raises(OptreesInputError, match="order"):
        b.transform(df[["b", "a"]])
    with pytest.raises(OptreesInputError, match="non-numeric"):
        b.transform(pd.DataFrame({"a": ["p", "q"], "b": ["x", "y"]}))


def test_constant_columns_dropped() -> None:
    df = pd.DataFrame({"k": [7, 7, 7], "s": ["a", "a", "a"], "v": [1, 2, 3]})
    b = Binarizer().fit(df)
    assert b.dropped_columns_ == ["k", "s"]
    assert {lit.column for lit in b.literals_} == {"v"}
    assert b.transform(df).shape == (3, 2)


def test_params_and_clone() -> None:
    b = Binarizer(numeric="buckets", n_bins=4, categorical=["a"], max_categories=3)
    c = clone(b)
    assert c.get_params() == b.get_params()
    assert not hasattr(c, "literals_")
    df = pd.DataFrame({"a": [1, 2, 3, 4, 4, 4, 3], "b": np.arange(7.0)})
    c.fit(df)
    clone(c)  # clone of a fitted estimator is unfitted
    with pytest.raises(OptreesInputError, match="numeric"):
        Binarizer(numeric="x").fit(df)
    with pytest.raises(OptreesInputError, match="n_bins"):
        Binarizer(n_bins=1).fit(df)
    with pytest.raises(OptreesInputError, match="categorical"):
        Binarizer(categorical=["nope"]).fit(df)
    with pytest.raises(OptreesInputError, match="categorical"):
        Binarizer(categorical="a").fit(df)
    with pytest.raises(OptreesInputError, match="max_categories"):
        Binarizer(max_categories=0).fit(df)


def test_max_categories() -> None:
    df = pd.DataFrame({"c": list("aaabbbbcd")})
    b = Binarizer(max_categories=2).fit(df)
    assert list(b.get_feature_names_out()) == ["c = a", "c = b"]
    np.testing.assert_array_equal(b.transform(pd.DataFrame({"c": ["c", "b"]})), [[0, 0], [0, 1]])


def test_names_unique_and_round_trip() -> None:
    rng = np.random.default_rng(4)
    df = pd.DataFrame(
        {
            "x": rng.normal(size=100) * 1e-3 + 1.0,  # needs > 4 digits to keep thresholds apart
            "x >= 1": rng.integers(0, 2, 100),  # pathological name colliding with a literal
            "c": rng.choice(["a", "b", "c"], 100),
        }
    )
    for mode in ("thresholds", "buckets"):
        b = Binarizer(numeric=mode).fit(df)
        names = b.get_feature_names_out()
        assert len(set(names)) == len(names) == b.transform(df).shape[1]
        assert list(names) == [lit.name for lit in b.literals_]
        assert list(b.get_feature_names_out(list(df.columns))) == list(names)
        assert all(lit.op in (">=", "<", "in_range", "==", "is_true") for lit in b.literals_)


@needs_data
def test_balance_scale_matches_reference() -> None:
    raw_path = DATA / "balance-scale.data"
    ref_path = DATA / "binarized" / "balance-scale.accel_enc.csv"
    raw = pd.read_csv(raw_path, header=None)
    X_raw = raw.iloc[:, 1:]
    b = Binarizer(categorical=list(X_raw.columns)).fit(X_raw)
    ours = b.transform(X_raw)
    ref = pd.read_csv(ref_path).drop(columns="target").to_numpy()
    assert ours.shape == ref.shape == (625, 20)
    # equal up to column order: sort columns by their bit pattern
    key = lambda M: sorted(map(bytes, M.T.astype(np.uint8)))  # noqa: E731
    assert key(ours) == key(ref)


def test_1m_rows() -> None:
    """A million rows binarize to QT-4 columns; the speed is measured by bench/binarize.py."""
    rng = np.random.default_rng(5)
    df = pd.DataFrame(rng.normal(size=(1_000_000, 10)), columns=[f"c{i}" for i in range(10)])
    X = Binarizer().fit_transform(df)
    assert X.shape == (1_000_000, 40)
    np.testing.assert_allclose(X.mean(axis=0), np.tile([0.8, 0.6, 0.4, 0.2], 10), atol=1e-3)


def test_extra_cuts_join_the_quantile_cuts() -> None:
    """Extra cuts are added to a numeric column's quantile cuts (sorted, distinct); those at
    or below the minimum or above the maximum add nothing; one that splits the values as a
    quantile cut does replaces it (50 the median 49.5: no value between them); other columns
    keep theirs."""
    df = pd.DataFrame({"x": np.arange(100.0), "z": np.arange(100.0) % 7})
    plain = Binarizer(n_bins=4).fit(df)
    np.testing.assert_array_equal(plain.thresholds_["x"], [24.75, 49.5, 74.25])
    b = Binarizer(n_bins=4, extra_cuts={"x": [7.5, -3.0, 0.0, 1000.0, 50.0, 99.0]}).fit(df)
    np.testing.assert_array_equal(b.thresholds_["x"], [7.5, 24.75, 50.0, 74.25, 99.0])
    np.testing.assert_array_equal(b.thresholds_["z"], plain.thresholds_["z"])
    Xb = b.transform(df)
    names = [lit.name for lit in b.literals_]
    np.testing.assert_array_equal(Xb[:, names.index("x >= 7.5")], df["x"] >= 7.5)
    assert clone(b).get_params()["extra_cuts"] == {"x": [7.5, -3.0, 0.0, 1000.0, 50.0, 99.0]}
    # a column named by a number is found by that number too
    numbered = Binarizer(n_bins=4, extra_cuts={0: [7.5]}).fit(pd.DataFrame(df.to_numpy()))
    assert 7.5 in numbered.thresholds_["0"]


@pytest.mark.parametrize(("extra", "message"), [
    ({"nope": [1.0]}, "not numeric columns of X: \\['nope'\\]"),
    ({"color": [1.0]}, "not numeric columns of X: \\['color'\\]"),
    ({"x": ["a"]}, "extra_cuts\\['x'\\] must hold numbers"),
    ({"x": [np.nan]}, "extra_cuts\\['x'\\] must hold finite numbers"),
    ([1.0], "extra_cuts"),
])
def test_extra_cuts_bad_input(extra, message) -> None:
    """A cut for a column that is missing or categorical, or one that is not a finite
    number, is one clear error."""
    df = pd.DataFrame({"x": np.arange(10.0), "color": list("abcabcabca")})
    with pytest.raises(OptreesInputError, match=message):
        Binarizer(extra_cuts=extra).fit(df)


def test_cart_cuts_express_carts_tree() -> None:
    """Every split of CART (numeric columns by value order, a categorical one one-hot) has
    a cut of :func:`cart_cuts` that sends the same rows right: 0/1 columns holding them
    express CART's tree."""
    from sklearn.tree import DecisionTreeClassifier

    from optrees.encoding.bins import cart_cuts

    rng = np.random.default_rng(0)
    n = 300
    df = pd.DataFrame({"a": np.round(rng.normal(size=n), 2), "b": rng.exponential(size=n),
                       "c": rng.choice(["u", "v", "w"], size=n),
                       "d": rng.integers(0, 5, size=n)})
    y = ((df["a"] > 0.3) ^ (df["c"] == "v") ^ (df["b"] > 1.1)).to_numpy().astype(int)
    w = rng.integers(1, 4, size=n).astype(float)
    cuts = cart_cuts(df, y, 4, w, min_samples_leaf=3)
    ranks = df[["a", "b", "d"]].apply(lambda c: np.unique(c, return_inverse=True)[1])
    X = pd.concat([ranks, pd.get_dummies(df[["c"]].astype(str))], axis=1)
    tree = DecisionTreeClassifier(max_depth=4, random_state=0, min_samples_leaf=3).fit(
        X.to_numpy(dtype=np.float32), y, sample_weight=w).tree_
    numeric_splits = 0
    for node in np.flatnonzero(tree.children_left >= 0):
        j = tree.feature[node]
        if j >= 3:                                   # a one-hot column: already exact
            continue
        numeric_splits += 1
        column = ["a", "b", "d"][j]
        right = ranks[column].to_numpy() > tree.threshold[node]
        assert any(np.array_equal(df[column].to_numpy() >= t, right) for t in cuts[column])
    assert numeric_splits >= 3
    assert set(cuts) <= {"a", "b", "d"}
