"""RobustTreeClassifier's sample weights against oracles written from the definition: a row
of weight w is floor(w) copies of weight 1 and one copy of the fractional rest, each shifted
on its own at the row's costs; the adversary flips the copies of most weight within the
budget (every subset of copies enumerated here)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from test_robust_trees import all_trees, data, grid, move_costs, predict

from optrees import OptreesInputError, RobustTreeClassifier
from optrees.robust.adversary import flipped_weight


def copies(c, w):
    """(cost, weight) of every copy of the rows: floor(w) of weight 1, one of the rest."""
    out = []
    for ci, wi in zip(c, w, strict=True):
        k = int(np.floor(wi))
        out += [(ci, 1.0)] * k
        if wi > k:
            out.append((ci, wi - k))
    return np.array(out).reshape(-1, 2)


def most_flipped(c, w, budget):
    """Largest weight of a subset of copies whose costs add up to at most the budget."""
    items = copies(c, w)
    if len(items) == 0:
        return 0.0
    subsets = np.array(list(itertools.product([0, 1], repeat=len(items))), dtype=bool)
    with np.errstate(invalid="ignore"):
        cost = np.where(subsets, items[:, 0], 0.0).sum(axis=1)
    value = np.where(subsets, items[:, 1], 0.0).sum(axis=1)
    return float(value[cost <= budget + 1e-9].max())


def weighted_optimum(X, y, w, costs, budget, depth):
    """Best worst-case correct weight share over every tree of depth <= ``depth``."""
    low, high = X.min(axis=0), X.max(axis=0)
    points = grid(low, high)
    pay = move_costs(X, costs, points)
    best = -1.0
    for tree in all_trees(low, high, int(y.max()) + 1, depth):
        wrong = predict(tree, points)[None, :] != y[:, None]
        c = np.where(wrong, pay, np.inf).min(axis=1)
        best = max(best, (w.sum() - most_flipped(c, w, budget)) / w.sum())
    return best


@pytest.mark.parametrize("seed", range(60))
def test_flipped_weight_is_the_best_subset_of_copies(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 6))
    c = rng.choice([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, np.inf], size=n)
    w = [rng.choice([0.5, 1.0, 2.0, 3.0, 0.25, 1.5, 2.75], size=n),
         rng.integers(1, 4, size=n).astype(float),
         rng.choice([0.3, 0.7, 1.2], size=n)][seed % 3]
    budget = float(rng.choice([0.0, 0.5, 1.0, 2.0, 3.5, 5.0]))
    want = most_flipped(c, w, budget)
    assert flipped_weight(c, w, budget) == pytest.approx(want)
    assert flipped_weight(np.stack([c, c[::-1]]), w, budget)[0] == pytest.approx(want)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("budget", [1.0, 2.5])
def test_weighted_optimum_matches_enumeration(seed, budget):
    rng = np.random.default_rng(40 + seed)
    X, y = data(seed, 6, 2, 2)
    w = rng.choice([0.5, 1.0, 2.0, 1.5], size=len(y))
    costs = rng.choice([0.5, 1.0, 2.0], size=X.shape)
    m = RobustTreeClassifier(depth=2, budget=budget).fit(X, y, costs=costs, sample_weight=w)
    want = weighted_optimum(X, y, w, costs, budget, 2)
    assert m.status_ == "optimal"
    assert m.objective_ == pytest.approx(want)
    assert m.worst_case_accuracy(X, y, costs, budget, sample_weight=w) == pytest.approx(want)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("depth", [1, 2])
def test_integer_weights_are_duplicated_rows(seed, depth):
    rng = np.random.default_rng(seed)
    X, y = data(60 + seed, 14, 3, 3)
    w = rng.integers(1, 4, size=len(y))
    costs = rng.choice([0.5, 1.0, 2.0], size=X.shape)
    budget = 3.0
    weighted = RobustTreeClassifier(depth=depth, budget=budget, time_limit=60).fit(
        X, y, costs=costs, sample_weight=w)
    rep = np.repeat(np.arange(len(y)), w)
    repeated = RobustTreeClassifier(depth=depth, budget=budget, time_limit=60).fit(
        X[rep], y[rep], costs=costs[rep])
    assert weighted.status_ == repeated.status_ == "optimal"
    assert weighted.objective_ == pytest.approx(repeated.objective_)
    assert weighted.worst_case_accuracy_ == pytest.approx(repeated.worst_case_accuracy_)
    assert weighted.export_text() == repeated.export_text()


def test_zero_weight_rows_are_left_out():
    rng = np.random.default_rng(5)
    X, y = data(5, 16, 3, 3)
    costs = rng.choice([0.5, 1.0], size=X.shape)
    w = np.ones(len(y))
    w[[3, 7, 11]] = 0.0
    keep = w > 0
    zero = RobustTreeClassifier(depth=2, budget=2).fit(X, y, costs=costs, sample_weight=w)
    gone = RobustTreeClassifier(depth=2, budget=2).fit(X[keep], y[keep], costs=costs[keep])
    assert zero.objective_ == pytest.approx(gone.objective_)
    assert zero.export_text() == gone.export_text()


@pytest.mark.parametrize("w, match", [
    (np.array([1.0, -1.0, 1.0, 1.0]), "sample_weight must be >= 0"),
    (np.array([1.0, np.nan, 1.0, 1.0]), "NaN"),
    (np.array([1.0, 1.0]), "shape"),
    (np.zeros(4), "zero for every row"),
])
def test_bad_weights_are_one_clear_error(w, match):
    X, y = data(0, 4, 2, 2)
    with pytest.raises(OptreesInputError, match=match):
        RobustTreeClassifier(depth=1, budget=1).fit(X, y, sample_weight=w)
