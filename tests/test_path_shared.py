"""The λ-path's depth-4 nodes with their children's cells shared across root features
(optrees/trees/search/binary/root_kernels.py, root_share.py): every budget is the
enumerated optimum when later roots read most of their cells from the memo, with unit
weights (bitset counts), whole and fractional weights (row counts), min_leaf and several
classes; the counters against triple counts written from the definition."""

from __future__ import annotations

import numpy as np
import pytest
from oracles import front_by_enumeration

from optrees.trees.search.binary import root_share
from optrees.trees.search.binary.data import BinaryData
from optrees.trees.search.binary.front import accuracy_front
from optrees.trees.search.binary.root_kernels import count_bits, count_new, triple_bits


def noisy(seed: int, n: int, F: int, K: int) -> tuple[np.ndarray, np.ndarray]:
    """Labels from a few features and noise: no root feature's bounds prune the rest."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n, F))
    y = (X[:, 0] ^ X[:, 1] ^ (rng.random(n) < 0.25)).astype(int)
    if K > 2:
        y = y + (X[:, 2] & (rng.random(n) < 0.6))
    return X, y


def weights(kind: str, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(100 + seed)
    return {"unit": np.ones(n), "whole": rng.integers(1, 4, size=n).astype(float),
            "fraction": rng.random(n) + 0.25}[kind]


@pytest.mark.parametrize("kind", ["unit", "whole", "fraction"])
@pytest.mark.parametrize("seed, depth, min_leaf, K", [
    (0, 4, 1, 2), (1, 4, 1, 3), (2, 4, 3, 2), (3, 4, 2, 3), (4, 5, 1, 2), (5, 5, 3, 2)])
def test_each_budget_is_the_enumerated_optimum_with_shared_cells(seed, depth, min_leaf, K,
                                                                 kind, monkeypatch):
    n, F = (44, 6) if depth == 4 else (36, 5)
    X, y = noisy(seed, n, F, K)
    w = weights(kind, n, seed)
    roots = []
    children = root_share.SharedRoots.children

    def spy(self, f, mask):
        roots.append((id(self), int(self.done.sum())))  # roots searched before this one
        return children(self, f, mask)

    monkeypatch.setattr(root_share.SharedRoots, "children", spy)
    points = accuracy_front(X, y, depth, w, K, min_leaf, backend="numba")
    want = front_by_enumeration(X, y, w, depth, min_leaf)
    assert [p.correct for p in points] == pytest.approx(want, abs=1e-9)
    assert all(p.optimal for p in points)
    assert max(done for _, done in roots) >= 2  # later roots read cells from the memo
    for p in points:  # each tree scores its point, from its own predictions
        leaf = p.tree.terminal(X)
        got = sum(w[(leaf == t) & (y == p.tree.label[t - 1])].sum() for t in np.unique(leaf))
        assert got == pytest.approx(p.correct, abs=1e-9)
        assert p.leaves <= p.budget


def test_the_shared_front_equals_the_numpy_front():
    """The numpy backend searches every child on its own (no memo): the same values and,
    for whole weights, the same trees."""
    for seed in range(4):
        X, y = noisy(seed, 60, 7, 2 + seed % 2)
        w = weights("whole" if seed % 2 else "unit", 60, seed)
        a = accuracy_front(X, y, 4, w, 2 + seed % 2, 1, backend="numba")
        b = accuracy_front(X, y, 4, w, 2 + seed % 2, 1, backend="numpy")
        assert [p.correct for p in a] == [p.correct for p in b]
        assert [p.leaves for p in a] == [p.leaves for p in b]
        for p, q in zip(a, b, strict=True):
            assert np.array_equal(p.tree.terminal(X), q.tree.terminal(X))


def triples(X: np.ndarray, y: np.ndarray, w: np.ndarray, K: int) -> np.ndarray:
    """T[k, i, j, h]: the weight of class k's rows with x_i = x_j = x_h = 1."""
    Xf = X.astype(float)
    return np.stack([np.einsum("r,ri,rj,rh->ijh", w * (y == k), Xf, Xf, Xf)
                     for k in range(K)])


@pytest.mark.parametrize("unit", [True, False])
def test_the_counters_fill_every_triple_with_two_new_features(unit):
    rng = np.random.default_rng(3)
    n, F, K = 150, 9, 3  # 150 rows: bitsets of several words
    X = (rng.random((n, F)) < 0.6).astype(np.uint8)
    y = rng.integers(0, K, size=n)
    w = np.ones(n) if unit else rng.integers(1, 5, size=n).astype(float)
    d = BinaryData.make(X, y, w, K)
    rows = np.flatnonzero(rng.random(n) < 0.7).astype(np.int64)
    new = np.array([True, False, True, True, False, True, False, True, True])
    Ts = np.full((K, F, F, F), np.nan)  # entries left alone stay nan
    G, t = np.zeros((K, F, F)), np.zeros(K)
    if unit:
        count_bits(d.indptr, d.indices, d.y, rows, new, K, Ts, G, t)
    else:
        count_new(d.indptr, d.indices, d.y, d.w, rows, new, K, Ts, G, t)
    want = triples(X[rows], y[rows], w[rows], K)
    assert np.allclose(G, want[:, np.arange(F), np.arange(F)])
    assert np.allclose(t, np.bincount(y[rows], weights=w[rows], minlength=K))
    for i in range(F):
        for j in range(i + 1, F):
            for h in range(j + 1, F):
                if new[i] + new[j] + new[h] >= 2:
                    assert np.allclose(Ts[:, i, j, h], want[:, i, j, h]), (i, j, h)


def four_leaf_target(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A split on x0, then x1 under one side and x2 under the other, 5 % noise."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(40, 5))
    y = ((X[:, 0] & X[:, 1]) ^ (X[:, 2] & ~X[:, 0] & 1) ^ (rng.random(40) < 0.05)).astype(int)
    return X, y


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("seed", [4, 58, 153, 190])
def test_side_bounds_at_two_and_three_leaves_skip_roots_and_lose_no_budget(seed, backend,
                                                                          monkeypatch):
    """Each side's bound at 2 and 3 leaves is its depth-2 front (a tree of <= 3 leaves has
    depth <= 2): it skips root features the side weights alone keep (at the leaf counts
    above 4, which sides of 2 and 3 leaves make; up to 4 the node's depth-3 front is exact),
    and every budget stays the enumerated optimum."""
    from optrees.trees.search.binary import front_bounds

    X, y = four_leaf_target(seed)
    improve = front_bounds.RootBounds.can_improve
    skipped: list[int] = []

    def counting(self, feats, best, tol, known=1):
        keep = improve(self, feats, best, tol, known)
        skipped.append(int((~keep).sum()))
        return keep

    monkeypatch.setattr(front_bounds.RootBounds, "can_improve", counting)
    points = accuracy_front(X, y, 4, None, 2, 1, backend=backend)
    assert [p.correct for p in points] == pytest.approx(
        front_by_enumeration(X, y, np.ones(40), 4, 1))
    with_bounds = sum(skipped)
    skipped.clear()
    monkeypatch.setattr(front_bounds.RootBounds, "few_leaves", lambda *args: None)
    accuracy_front(X, y, 4, None, 2, 1, backend=backend)
    assert with_bounds > sum(skipped)  # the bounds skipped roots the weights did not


def test_the_bitset_triple_counts_are_every_order_of_the_class_triples():
    rng = np.random.default_rng(5)
    n, F, K = 200, 8, 3  # more than 64 rows of a class: several words
    X = (rng.random((n, F)) < 0.5).astype(np.uint8)
    X[:, 3] = 0  # a feature never 1
    y = rng.integers(0, K, size=n)
    d = BinaryData.make(X, y, None, K)
    rows = np.flatnonzero(rng.random(n) < 0.8).astype(np.int64)
    got = triple_bits(d.indptr, d.indices, d.y, rows, K, F)
    assert np.array_equal(got, triples(X[rows], y[rows], np.ones(len(rows)), K))


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("seed, kind, min_leaf", [(0, "unit", 1), (1, "whole", 1),
                                                   (2, "fraction", 1), (3, "unit", 2)])
def test_a_depth4_node_whose_depth3_front_is_perfect_searches_no_root(seed, kind, min_leaf,
                                                                      backend, monkeypatch):
    """Four classes a depth-2 tree separates without error (the soybean-small case): the
    node's depth-3 front, exact up to 4 leaves, reaches every row at 4 leaves, so no root
    feature can beat it at any leaf count and none is searched; every budget is still the
    enumerated optimum (budgets 1-3 from the depth-3 front's trees)."""
    from optrees.trees.search.binary.leaf_fronts import FrontSearch

    rng = np.random.default_rng(seed)
    n, F = 36, 6
    X = rng.integers(0, 2, size=(n, F))
    y = 2 * X[:, 0] + np.where(X[:, 0] == 1, X[:, 1], X[:, 2])
    w = weights(kind, n, seed)
    searched: list[int] = []
    for name in ("_shared3", "_children3"):
        method = getattr(FrontSearch, name)

        def counting(self, *args, method=method):
            searched.append(len(args[-2]))  # the root features fs
            return method(self, *args)

        monkeypatch.setattr(FrontSearch, name, counting)
    points = accuracy_front(X, y, 4, w, 4, min_leaf, backend=backend)
    assert [p.correct for p in points] == pytest.approx(
        front_by_enumeration(X, y, w, 4, min_leaf))
    assert all(p.optimal for p in points)
    assert sum(searched) == 0
