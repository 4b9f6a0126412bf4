"""Feature-cost search against an enumeration written from the definition, in the regimes
where its bounds decide: cheap columns (deep splits pay), near-pure nodes (the leaf-support
bound is tight), depth 3-4 (the Python search above the depth-2 kernel), fractional and unit
weights, leaf sizes, a separate cost weight.  Added for the surviving mutants of
``bench/mutation.py feature-costs`` (issue #42, item 9)."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest
from deadlines import StopAfter

from optrees import BendersOCTClassifier, BendOCTClassifier
from optrees.trees.search.binary.feature_costs import solve_feature_costs


def best_value(X, y, w, pay, K, depth, column, cost, L, min_leaf):
    """max over every tree of depth <= ``depth`` of: correct weight - L * leaves - for each
    row, ``pay`` times the cost of each distinct column tested on its path."""
    n, F = X.shape

    @functools.cache
    def best(key, d, used):
        rows = np.array(key, dtype=np.int64)
        out = np.bincount(y[rows], weights=w[rows], minlength=K).max() - L
        if d == 0:
            return out
        for f in range(F):
            right = X[rows, f] == 1
            if right.sum() < min_leaf or (~right).sum() < min_leaf:
                continue
            paid = 0.0 if column[f] in used else cost[column[f]] * pay[rows].sum()
            below = used | {int(column[f])}
            out = max(out, best(tuple(rows[~right]), d - 1, below)
                      + best(tuple(rows[right]), d - 1, below) - paid)
        return out

    return best(tuple(range(n)), depth, frozenset())


def instance(seed):
    """Nearly separable labels (a few flips), so subtrees are near-pure and splits pay."""
    rng = np.random.default_rng(seed)
    n, F, K = 14 + seed % 5, 5 + seed % 2, 2 + seed % 2
    X = rng.integers(0, 2, size=(n, F))
    y = (X[:, 0] ^ (X[:, 1] & X[:, 2])).astype(np.int64) % K
    flip = rng.random(n) < 0.15
    y[flip] = rng.integers(0, K, flip.sum())
    w = np.ones(n) if seed % 3 == 0 else rng.integers(1, 4, n) / 2.0
    column = np.array([0, 1, 1, 2, 3, 3][:F])
    cost = rng.choice([0.0, 0.01, 0.03, 0.08], size=4)
    return X, y, w, K, column, cost


@pytest.mark.parametrize("seed", range(24))
def test_cheap_columns_deep_trees_equal_enumeration(seed):
    X, y, w, K, column, cost = instance(seed)
    L = (0.0, 0.25, 0.6)[seed % 3]
    m = 1 + (seed // 3) % 2
    depth = 3 + seed % 2
    pay = w if seed % 4 else np.ones(len(y))
    got = solve_feature_costs(X, y, depth, L, column, cost, sample_weight=w, cost_weight=pay,
                              n_classes=K, min_leaf=m)
    want = best_value(X, y, w, pay, K, depth, column, cost, L, m)
    assert got.optimal
    assert got.value == pytest.approx(want, abs=1e-9)
    assert got.bound == pytest.approx(want, abs=1e-9)


def test_normalised_weights_equal_enumeration():
    """Weights summing to 1 (class weights below 1, where a product of two is smaller than
    either): the left side's class weights are the node's less the right side's."""
    for seed in range(6):
        X, y, w, K, column, cost = instance(100 + seed)
        w = w / w.sum()
        L, depth = 0.02, 3
        got = solve_feature_costs(X, y, depth, L, column, cost / 50, sample_weight=w,
                                  n_classes=K)
        want = best_value(X, y, w, w, K, depth, column, cost / 50, L, 1)
        assert got.optimal and got.value == pytest.approx(want, abs=1e-12)


# ---------------------------------------------------------------- through the estimators
def separable_frame(seed, n=40):
    """Labels from two columns with a few flips, and cheap columns: the optimum has several
    leaves even with a leaf penalty."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"colour": rng.choice(["red", "blue", "green"], n),
                       "a": rng.integers(0, 2, n), "b": rng.integers(0, 2, n)})
    y = ((df["colour"] == "red") ^ (df["a"] == 1)).to_numpy().astype(int)
    y[rng.random(n) < 0.08] ^= 1
    w = rng.integers(1, 3, n).astype(float)
    return df, y, w, {"colour": 0.004, "a": 0.002, "b": 0.01}


def literal_columns(est, df):
    X = est.binarizer_.transform(df)
    names = [lit.column for lit in est.binarizer_.literals_]
    index = {c: i for i, c in enumerate(dict.fromkeys(names))}
    return X, np.array([index[c] for c in names]), list(index)


def leaf_paths(text):
    """Each leaf line of ``export_text`` with the tests on its path."""
    path, out = [], []
    for line in text.splitlines():
        depth = line.index("|---") // 4
        item = line.split("|--- ", 1)[1]
        path = path[:depth]
        if item.startswith("class:"):
            out.append((list(path), item.split()[1]))
        else:
            path.append(item)
    return out


def holds(df, test):
    """A printed test evaluated on the raw frame."""
    if " != " in test:
        col, value = test.split(" != ")
        return (df[col].astype(str) != value).to_numpy()
    if " = " in test:
        col, value = test.split(" = ")
        return (df[col].astype(str) == value).to_numpy()
    if test.startswith("not "):
        return (df[test[4:]] == 0).to_numpy()
    return (df[test] == 1).to_numpy()


@pytest.mark.parametrize("cls, matrix", [(BendOCTClassifier, None),
                                         (BendersOCTClassifier, None),
                                         (BendOCTClassifier, [[0.0, 2.0], [1.0, 0.0]]),
                                         (BendersOCTClassifier, [[0.0, 2.0], [1.0, 0.0]])])
@pytest.mark.parametrize("seed", range(3))
def test_penalised_multi_leaf_optimum_and_its_text(seed, cls, matrix):
    """objective_ from the definition for a tree of several leaves under a leaf penalty (BendOCT:
    per leaf, in units of the total weight) or a split penalty (BendersOCT: the totals times
    1 - lam, lam per split), with and without a cost matrix; every printed leaf's path, read
    on the raw frame, holds exactly the rows predicted as its class there."""
    df, y, w, costs = separable_frame(seed)
    lam = 0.01
    C = None if matrix is None else np.asarray(matrix)
    est = cls(depth=3, lam=lam, feature_costs=costs, misclassification_costs=C,
              time_limit=30).fit(df, y, sample_weight=w)
    assert est.status_ == "optimal" and est.tree_.n_leaves >= 3
    X, column, names = literal_columns(est, df)
    cost = np.array([costs.get(c, 0.0) for c in names])
    W = w.sum()
    if cls is BendOCTClassifier:
        best = best_value_matrix(X, y, w, 3, column, cost, lam * W, C)
        want = best / W if C is None else -best / W
    else:
        best = best_value_matrix(X, y, w, 3, column, cost, lam / (1 - lam), C)
        want = (1 - lam) * best + lam if C is None else -(1 - lam) * best - lam
    assert est.objective_ == pytest.approx(want, abs=1e-9)
    pred = est.predict(df)
    covered = np.zeros(len(df), bool)
    for tests, label in leaf_paths(est.export_text()):
        rows = np.logical_and.reduce([holds(df, t) for t in tests])
        assert rows.any() and not covered[rows].any()
        covered |= rows
        assert (pred[rows].astype(str) == label).all()
    assert covered.all()


def best_value_matrix(X, y, w, depth, column, cost, L, C):
    """:func:`best_value` for two classes, leaves scored by correct weight or, with a cost
    matrix ``C``, by minus their cheapest prediction's cost."""
    if C is None:
        return best_value(X, y, w, w, 2, depth, column, cost, L, 1)
    n, F = X.shape

    @functools.cache
    def best(key, d, used):
        rows = np.array(key, dtype=np.int64)
        out = -min((w[rows] * C[y[rows], k]).sum() for k in range(2)) - L
        if d == 0:
            return out
        for f in range(F):
            right = X[rows, f] == 1
            if not right.any() or right.all():
                continue
            paid = 0.0 if column[f] in used else cost[column[f]] * w[rows].sum()
            below = used | {int(column[f])}
            out = max(out, best(tuple(rows[~right]), d - 1, below)
                      + best(tuple(rows[right]), d - 1, below) - paid)
        return out

    return best(tuple(range(n)), depth, frozenset())


@pytest.mark.parametrize("penalty", ["leaves", "splits"])
@pytest.mark.parametrize("with_matrix", [False, True])
def test_stopped_fit_brackets_the_optimum(penalty, with_matrix):
    """Stopped after 0, 1, 2, ... deadline checks, the fit's objective and bound lie on both
    sides of the enumerated optimum (accuracy: objective <= optimum <= bound; costs: the
    other way), and a fit that is not proved says time_limit with a bound apart from its
    objective."""
    from optrees.trees.problem.objectives.costs import MisclassificationCosts
    from optrees.trees.problem.objectives.feature_costs import FeatureCosts
    from optrees.trees.solve.feature_costs import solve_with_feature_costs

    df, y, w, costs = separable_frame(7)
    C = np.array([[0.0, 2.0], [1.0, 0.0]]) if with_matrix else None
    est = BendOCTClassifier(depth=3, feature_costs=costs).fit(df, y, sample_weight=w)
    X, column, names = literal_columns(est, df)
    features = [names[c] for c in column]
    lit_names = [lit.name for lit in est.binarizer_.literals_]
    neg_names = [lit.negated_name for lit in est.binarizer_.literals_]
    cost = np.array([costs.get(c, 0.0) for c in names])
    lam, W = 0.01, w.sum()
    L = lam * W if penalty == "leaves" else lam / (1 - lam)
    best = best_value_matrix(X, y, w, 3, column, cost, L, C)
    if penalty == "leaves":
        opt = best / W if C is None else -best / W
    else:
        opt = (1 - lam) * best + lam if C is None else -(1 - lam) * best - lam
    matrix = None if C is None else MisclassificationCosts.from_spec(C, np.array([0, 1]))
    spec = FeatureCosts.from_spec(costs, list(df.columns))
    seen = set()
    for checks in range(0, 60, 3):
        got = solve_with_feature_costs(X, features, (lit_names, neg_names), y,
                                       w, np.array([0, 1]),
                                       3, lam, penalty, 1, spec, matrix, StopAfter(checks))
        low, high = (got.objective, got.bound) if C is None else (got.bound, got.objective)
        assert low <= opt + 1e-9 <= high + 2e-9
        if C is None:  # never above every row correct with one leaf (eq. of the objective)
            assert got.bound <= (1 - lam if penalty == "leaves" else (1 - lam) * W) + 1e-9
        seen.add(got.status)
        if got.status != "optimal":
            assert abs(got.bound - got.objective) > 1e-9
    assert seen == {"optimal", "time_limit"}


@pytest.mark.parametrize("seed", range(6))
def test_split_penalty_trades_a_split_against_tenths_of_weight(seed):
    """BendersOCT's split penalty lam per split against (1 - lam) times the correct weight:
    with weights in tenths and lam = 0.3 a split that gains 0.2-0.4 of weight is worth it or
    not by the exact rate lam / (1 - lam) per leaf."""
    df, y, w, costs = separable_frame(30 + seed, n=24)
    w = np.random.default_rng(seed).integers(1, 6, len(y)) / 10.0
    lam = 0.3
    est = BendersOCTClassifier(depth=2, lam=lam, feature_costs=costs, time_limit=30)
    est.fit(df, y, sample_weight=w)
    X, column, names = literal_columns(est, df)
    cost = np.array([costs.get(c, 0.0) for c in names])
    best = best_value_matrix(X, y, w, 2, column, cost, lam / (1 - lam), None)
    assert est.status_ == "optimal"
    assert est.objective_ == pytest.approx((1 - lam) * best + lam, abs=1e-9)


def test_a_pure_side_keeps_its_leaf_bound():
    """Two perfect splits, x and its complement (another column, dearer by less than a leaf
    penalty), with weights summing to 1: the dearer one scores first when the x = 0 side's
    class weights are read wrongly, and the cheaper, optimal one is kept only if the pure
    side's bound is its leaf (its weight less one leaf penalty, not two)."""
    x = np.array([0] * 7 + [1] * 3)
    X = np.stack([x, 1 - x], axis=1)
    y = x.astype(np.int64)
    w = np.full(10, 0.1)
    column, cost = np.array([0, 1]), np.array([0.01, 0.02])
    got = solve_feature_costs(X, y, 3, 0.05, column, cost, sample_weight=w, n_classes=2)
    want = best_value(X, y, w, w, 2, 3, column, cost, 0.05, 1)
    assert want == pytest.approx(1 - 2 * 0.05 - 0.01)
    assert got.optimal and got.value == pytest.approx(want, abs=1e-12)
