"""The k-means lower bound of regression trees (OSRT, issue #43).

Oracles written here from the definitions: the least weighted SSE of the rows split into
at most ``k`` groups is found by trying every partition of the rows (not only runs of the
sorted targets, which is the theorem the programme relies on); the least SSE of a tree is
found by enumerating every tree over every threshold (``oracles.best_tree_over_tests``).
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd
import pytest
from deadlines import CountedDeadline
from oracles import best_tree_over_tests, every_threshold_tests

from optrees.trees.search.regression import RegressionData, search_tree, segments
from optrees.trees.search.regression import search as search_module
from optrees.trees.search.regression.segments import segment_costs
from optrees.trees.solve.regression import root_floors

BACKENDS = [False, pytest.param(True, marks=pytest.mark.skipif(
    not segments.available(), reason="numba is not installed"))]


def sse(y: np.ndarray, w: np.ndarray) -> float:
    """Weighted sum of squared deviations from the weighted mean (0 for no rows)."""
    if len(y) == 0:
        return 0.0
    mean = np.sum(w * y) / np.sum(w)
    return float(np.sum(w * (y - mean) ** 2))


def partitions(items: list[int]):
    """Every partition of ``items`` into non-empty groups."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in partitions(rest):
        yield [[first], *part]
        for g in range(len(part)):
            yield [*part[:g], [first, *part[g]], *part[g + 1:]]


def least_partition_sse(y: np.ndarray, w: np.ndarray, k: int,
                        atoms: np.ndarray | None = None) -> float:
    """Least SSE over every partition of the rows into at most ``k`` groups (rows of one
    ``atoms`` label never parted)."""
    labels = np.arange(len(y)) if atoms is None else atoms
    units = sorted(set(labels.tolist()))
    best = np.inf
    for part in partitions(units):
        if len(part) <= k:
            cost = sum(sse(y[np.isin(labels, g)], w[np.isin(labels, g)]) for g in part)
            best = min(best, cost)
    return best


def stats(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    return np.stack([w, w * y, w * y * y], axis=1)


def small(seed: int, n: int, ties: bool):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, n).astype(float) if ties else rng.normal(size=n) * 2
    w = rng.integers(1, 4, n).astype(float)
    return y, w


# ----------------------------------------------------------------- the programme itself
@pytest.mark.parametrize("compiled", BACKENDS)
@pytest.mark.parametrize("seed", range(12))
def test_the_programme_is_the_best_partition(seed, compiled):
    y, w = small(seed, n=1 + seed % 7, ties=seed % 2 == 0)
    if seed == 5:
        w = np.ones_like(w)  # plain rows
    got = segment_costs(stats(y, w), 4, compiled=compiled)
    want = [least_partition_sse(y, w, k) for k in range(1, 5)]
    np.testing.assert_allclose(got, want, atol=2e-9)
    assert np.all(got <= np.asarray(want) + 1e-12)  # below: the safety margin


@pytest.mark.parametrize("compiled", BACKENDS)
def test_atoms_stay_whole(compiled):
    y, w = small(3, n=7, ties=False)
    atoms = np.array([0, 1, 0, 2, 3, 1, 4])
    sums = np.stack([np.bincount(atoms, weights=c) for c in stats(y, w).T], axis=1)
    got = segment_costs(sums, 3, compiled=compiled)
    want = [least_partition_sse(y, w, k, atoms) for k in range(1, 4)]
    np.testing.assert_allclose(got, want, atol=2e-9)


@pytest.mark.skipif(not segments.available(), reason="numba is not installed")
def test_the_compiled_divide_and_conquer_matches_the_plain_programme():
    rng = np.random.default_rng(0)
    y = np.round(rng.normal(size=400), 1)  # many ties
    w = rng.integers(1, 5, 400).astype(float)
    a = segment_costs(stats(y, w), 8, compiled=False)
    b = segment_costs(stats(y, w), 8, compiled=True)
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)
    assert np.all(np.diff(a) <= 0)


def test_too_many_rows_for_numpy_give_no_bound():
    y = np.arange(segments.NUMPY_LIMIT + 1, dtype=float)
    assert segment_costs(stats(y, np.ones_like(y)), 2, compiled=False) is None


# ----------------------------------------------------------------- a bound on trees
def tree_instance(seed: int, n: int = 12):
    """Tiny data with repeated rows and values, y mostly a function of the features (so
    the k-means floor is close to the trees' optimum and closes subproblems)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, 2)).astype(float)
    X[-1] = X[0]
    y = 2 * X[:, 0] - X[:, 1] * (X[:, 0] > 1) + rng.normal(size=n) * 0.2
    w = rng.integers(1, 4, n).astype(float)
    return X, y, w


def best_tree_sse(X, y, w, depth, leaves, penalty=0.0) -> float:
    """Least ``SSE + penalty * leaves`` of any tree of depth <= ``depth`` with at most
    ``leaves`` leaves over every threshold, enumerated."""
    tests = list(every_threshold_tests(pd.DataFrame(X)).T)
    return -best_tree_over_tests(tests, lambda m: -(sse(y[m], w[m]) + penalty), depth,
                                 max_leaves=leaves)


@pytest.mark.parametrize("compiled", BACKENDS)
@pytest.mark.parametrize("seed", range(4))
def test_the_root_floor_is_never_above_the_best_tree(seed, compiled):
    X, y, w = tree_instance(seed)
    floors = root_floors(segment_costs, X, stats(y, w), 3, compiled)
    for k in range(1, 9):
        assert floors[k - 1] <= best_tree_sse(X, y, w, 3, k) + 1e-12
    # the identical rows (X[-1] = X[0]) are one atom: the floor counts their own SSE
    assert floors[-1] >= sse(y[[0, -1]], w[[0, -1]]) - 1e-8


def floored_search_data(X, y, w, penalty, compiled=False) -> RegressionData:
    """Rows for the interval search with the k-means floors in every subproblem (numpy
    kernels)."""
    return RegressionData(X, stats(y, w), lambda s: np.maximum(
        s[..., 2] - np.divide(s[..., 1] ** 2, s[..., 0], out=np.zeros(s.shape[:-1]),
                              where=s[..., 0] > 0), 0.0),
                          penalty, 1, None, partial(segment_costs, compiled=compiled))


def floored_search(X, y, w, depth, penalty, deadline=None, compiled=False):
    """The interval search with the k-means floors at the root and in every subproblem
    (the depth-2 kernels off, so that subproblems are searched and can be closed)."""
    data = floored_search_data(X, y, w, penalty, compiled)
    return search_tree(data, depth, deadline, dense_limit=0,
                       floors=root_floors(segment_costs, X, stats(y, w), depth, compiled))


@pytest.mark.parametrize("compiled", BACKENDS)
@pytest.mark.parametrize("seed,penalty", [(0, 0.0), (1, 0.3), (2, 0.05), (3, 1.0),
                                          (4, 0.0), (5, 0.1), (6, 3.0), (7, 10.0)])
def test_subproblems_closed_by_the_floor_keep_the_optimum(seed, penalty, compiled,
                                                          monkeypatch):
    monkeypatch.setattr(search_module, "SEGMENT_ROWS", 2)
    X, y, w = tree_instance(seed, n=14)
    best = best_tree_sse(X, y, w, 3, 8, penalty)
    found = floored_search(X, y, w, 3, penalty, compiled=compiled)
    assert found.optimal and found.cost == pytest.approx(best, abs=1e-9)
    assert found.pruned > 0  # the floor did close subproblems here


def two_steps(n: int = 14):
    """y two levels apart by a threshold of column 0, a little noise: with a leaf penalty
    of 1 the best tree has two leaves, and more leaves cost more than they save."""
    rng = np.random.default_rng(11)
    X = rng.integers(0, 4, size=(n, 2)).astype(float)
    y = 5.0 * (X[:, 0] > 1) + rng.normal(size=n) * 0.1
    return X, y, np.ones(n)


@pytest.mark.parametrize("data,penalty", [("noisy", 0.1), ("noisy", 2.0), ("noisy", 20.0),
                                          ("steps", 1.0)])
@pytest.mark.parametrize("checks", [0, 1, 2, 5, 20])
def test_a_stopped_search_bound_stays_below_the_best_tree(checks, data, penalty,
                                                          monkeypatch):
    monkeypatch.setattr(search_module, "SEGMENT_ROWS", 2)
    X, y, w = tree_instance(7, n=14) if data == "noisy" else two_steps()
    best = best_tree_sse(X, y, w, 3, 8, penalty)
    found = floored_search(X, y, w, 3, penalty, CountedDeadline(checks))
    assert found.bound <= best + 1e-12 <= found.cost + 2e-12
    if checks == 0:  # nothing searched: the bound is the k-means floor, not zero
        floors = root_floors(segment_costs, X, stats(y, w), 3, False)
        assert found.bound >= min(floors + penalty * np.arange(1, 9)) - 1e-12 > 0


@pytest.mark.parametrize("compiled", BACKENDS)
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("depth", [2, 3])
def test_a_subproblem_answers_its_upper_bound_honestly(seed, depth, compiled, monkeypatch):
    """``solve(rows, depth, ub)``: the optimum and its tree when ``ub`` is above it; below
    it, no tree and a lower bound between ``ub`` and the optimum (the floor closes the
    subproblem only when no tree beats ``ub``)."""
    monkeypatch.setattr(search_module, "SEGMENT_ROWS", 2)
    X, y, w = tree_instance(seed, n=14)
    penalty = 0.1
    best = best_tree_sse(X, y, w, depth, 2 ** depth, penalty)
    data = floored_search_data(X, y, w, penalty, compiled)
    search = search_module.RegressionSearch(data, None, dense_limit=0)
    for ub in (best * 1.05, best + 1e-6, best * 0.97, best * 0.5):
        cost, free, tree = search.solve(data.root(), depth, 1, ub)
        assert free <= best + 1e-12
        if ub > best:
            assert tree is not search_module.ABOVE and cost == pytest.approx(best, abs=1e-9)
        else:
            assert tree is search_module.ABOVE and ub - 1e-12 <= cost <= best + 1e-12
