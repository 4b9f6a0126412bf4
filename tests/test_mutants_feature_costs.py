"""Feature-cost search against an enumeration written from the definition, in the regimes
where its bounds decide: cheap columns (deep splits pay), near-pure nodes (the leaf-support
bound is tight), depth 3-4 (the Python search above the depth-2 kernel), fractional and unit
weights, leaf sizes, a separate cost weight.  Added for the surviving mutants of
``bench/mutation.py feature-costs`` (issue #42, item 9)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

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
