"""Feature costs (``feature_costs={column: cost}``): each row pays, for every distinct column
tested on its path, that column's cost.  The certified optimum equals an enumeration written
from that definition (over the fit's 0/1 columns, one-hot columns of one category sharing a
cost), with weights, leaf size, both penalties and a cost matrix; bad input is refused."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest

from optrees import BendersOCTClassifier, BendOCTClassifier
from optrees._validation import OptreesInputError


def enumerate_best(X, y, w, K, depth, column, cost, leaf_penalty, C=None, min_leaf=1):
    """max over trees of (score - leaf_penalty * leaves - feature costs), in weight units:
    score = weight of correct rows, or with a cost matrix minus its cost; every tree of depth
    <= ``depth`` over the 0/1 columns of ``X`` is enumerated (a DP over the path's
    columns)."""
    n, F = X.shape

    def leaf(rows):
        if C is None:
            return np.bincount(y[rows], weights=w[rows], minlength=K).max()
        return -min((w[rows] * C[y[rows], k]).sum() for k in range(K))

    @functools.cache
    def best(key, d, used):
        rows = np.array(key, dtype=np.int64)
        out = leaf(rows) - leaf_penalty
        if d == 0:
            return out
        for f in range(F):
            right = X[rows, f] == 1
            if right.sum() < min_leaf or (~right).sum() < min_leaf:
                continue
            paid = 0.0 if column[f] in used else cost[column[f]] * w[rows].sum()
            below = used | {column[f]}
            out = max(out, best(tuple(rows[~right]), d - 1, below)
                      + best(tuple(rows[right]), d - 1, below) - paid)
        return out

    return best(tuple(range(n)), depth, frozenset())


def one_hot_instance(seed, n=24):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"colour": rng.choice(["red", "blue", "green"], n),
                       "a": rng.integers(0, 2, n), "b": rng.integers(0, 2, n)})
    y = ((df["colour"] == "red") ^ (df["a"] == 1)).to_numpy().astype(int)
    y[rng.random(n) < 0.2] ^= 1
    w = rng.integers(1, 3, n).astype(float)
    costs = {"colour": float(rng.random() * 0.3), "a": float(rng.random() * 0.3)}
    return df, y, w, costs


def encoded(est, df):
    """The fit's 0/1 columns and the raw column of each."""
    X = est.binarizer_.transform(df)
    names = [lit.column for lit in est.binarizer_.literals_]
    index = {c: i for i, c in enumerate(dict.fromkeys(names))}
    return X, np.array([index[c] for c in names]), list(index)


@pytest.mark.parametrize("seed", range(6))
def test_optimum_equals_enumeration(seed):
    df, y, w, costs = one_hot_instance(seed)
    depth, lam, min_leaf = 2 + seed % 2, [0.0, 0.02][seed % 2], 1 + (seed // 2) % 2
    est = BendOCTClassifier(depth=depth, lam=lam, feature_costs=costs,
                            min_samples_leaf=min_leaf, time_limit=30)
    est.fit(df, y, sample_weight=w)
    assert est.status_ == "optimal"
    X, column, names = encoded(est, df)
    cost = np.array([costs.get(c, 0.0) for c in names])
    W = w.sum()
    want = enumerate_best(X, y, w, 2, depth, column, cost, lam * W, min_leaf=min_leaf) / W
    assert est.objective_ == pytest.approx(want, abs=1e-9)
    leaves = est.apply(df)
    assert np.bincount(leaves)[np.unique(leaves)].min() >= min_leaf


@pytest.mark.parametrize("seed", range(4))
def test_with_a_cost_matrix_and_the_split_penalty(seed):
    df, y, w, costs = one_hot_instance(20 + seed)
    C = np.array([[0.0, 3.0], [1.0, 0.0]])
    lam = 0.1
    est = BendersOCTClassifier(depth=2, lam=lam, feature_costs=costs, misclassification_costs=C,
                               time_limit=30).fit(df, y, sample_weight=w)
    X, column, names = encoded(est, df)
    cost = np.array([costs.get(c, 0.0) for c in names])
    # (1 - lam) (cost + feature cost) + lam splits = -(1 - lam) * best + lam with the leaf
    # penalty lam / (1 - lam) per leaf
    best = enumerate_best(X, y, w, 2, 2, column, cost, lam / (1 - lam), C)
    assert est.status_ == "optimal"
    assert est.objective_ == pytest.approx(-(1 - lam) * best - lam, abs=1e-9)


def test_costly_column_avoided_and_free_column_reused():
    """A column that costs more than its errors save is not tested; a second test of an
    already paid column costs nothing (a one-hot category tested twice)."""
    rng = np.random.default_rng(5)
    n = 200
    df = pd.DataFrame({"colour": rng.choice(["red", "blue", "green"], n),
                       "noise": rng.integers(0, 2, n)})
    y = (df["colour"] == "red").to_numpy().astype(int)
    y[(df["noise"] == 1).to_numpy() & (rng.random(n) < 0.1)] ^= 1
    est = BendOCTClassifier(depth=2, lam=0, feature_costs={"noise": 5.0}).fit(df, y)
    assert "noise" not in est.export_text()
    plain = BendOCTClassifier(depth=2, lam=0, feature_costs={"colour": 0.0}).fit(df, y)
    assert est.objective_ <= plain.objective_ + 1e-12


def test_numeric_columns_binarized_and_said():
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"x": rng.normal(size=80), "z": rng.normal(size=80)})
    y = (df["x"] + 0.3 * rng.normal(size=80) > 0).astype(int)
    est = BendOCTClassifier(depth=2, feature_costs={"z": 0.5}).fit(df, y)
    assert est.thresholds_ == "binarized"
    assert "feature costs" in est.stats_["every_threshold"]
    assert est.score(df, y) >= 0.5


@pytest.mark.parametrize("kwargs, words", [
    ({"feature_costs": {"nope": 1.0}}, "nope"),
    ({"feature_costs": {"a": -1.0}}, ">= 0"),
    ({"feature_costs": [1.0]}, "dict"),
    ({"feature_costs": {"a": 1.0}, "max_leaves": 3}, "max_leaves"),
])
def test_bad_feature_costs_one_clear_error(kwargs, words):
    df = pd.DataFrame({"a": [0, 1] * 5, "b": [0, 0, 1, 1, 0] * 2})
    with pytest.raises(OptreesInputError, match=words):
        BendOCTClassifier(depth=2, **kwargs).fit(df, [0, 1] * 5)


@pytest.mark.parametrize("depth", [2, 3])
@pytest.mark.parametrize("seed", range(2))
def test_a_column_tested_twice_is_paid_once(seed, depth):
    """Three colours, three classes: the best tree tests the colour twice on a path (two of
    its one-hot columns) and pays its cost once per row; paying twice would make a single
    leaf better (the cost is that high on purpose)."""
    rng = np.random.default_rng(seed)
    n = 60
    colour = rng.choice(["red", "blue", "green"], n)
    df = pd.DataFrame({"colour": colour, "a": rng.integers(0, 2, n)})
    y = np.select([colour == "red", colour == "blue"], [0, 1], 2)
    y[rng.random(n) < 0.1] = rng.integers(0, 3)
    costs = {"colour": 0.35 + 0.05 * seed, "a": 0.05}
    est = BendOCTClassifier(depth=depth, lam=0, feature_costs=costs).fit(df, y)
    X, column, names = encoded(est, df)
    cost = np.array([costs.get(c, 0.0) for c in names])
    want = enumerate_best(X, y, np.ones(n), 3, depth, column, cost, 0.0) / n
    assert est.status_ == "optimal"
    assert est.objective_ == pytest.approx(want, abs=1e-9)
    assert est.export_text().count("colour") >= 4  # two tests, both branches printed


@pytest.mark.parametrize("seed", range(8))
def test_engine_against_enumeration(seed):
    """:func:`solve_feature_costs` on random 0/1 data: two features share a column."""
    from optrees.trees.search.binary.feature_costs import solve_feature_costs

    rng = np.random.default_rng(seed)
    n, F, K = 20, 5, 2 + seed % 2
    X = rng.integers(0, 2, size=(n, F))
    y = rng.integers(0, K, size=n)
    w = rng.integers(1, 3, size=n).astype(float)
    column, cost = np.array([0, 0, 1, 2, 2]), rng.random(3) * 0.3
    L, m, depth = 0.5 * (seed % 3), 1 + seed % 2, 2 + seed % 2
    got = solve_feature_costs(X, y, depth, L, column, cost, sample_weight=w, n_classes=K,
                              min_leaf=m)
    assert got.optimal
    assert got.value == pytest.approx(enumerate_best(X, y, w, K, depth, column, cost, L,
                                                     min_leaf=m), abs=1e-9)


def test_cli_feature_costs(tmp_path, capsys):
    from optrees.cli import main

    df, y, _, _ = one_hot_instance(3, n=40)
    df["y"] = np.where(y == 1, "yes", "no")
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False)
    args = ["fit", "--csv", str(path), "--target", "y", "--method", "bendoct", "--depth", "2",
            "--test-size", "0"]
    assert main([*args, "--feature-costs", "colour=0.1,a=0.2"]) == 0
    out = capsys.readouterr().out
    assert "accuracy minus feature cost; the bound is an upper bound" in out
    assert main([*args, "--feature-costs", "colour=-1"]) != 0
    assert "'-1'" in capsys.readouterr().err
