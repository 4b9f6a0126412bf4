"""The compiled depth-3 node of the 0/1 search (optrees/trees/search/binary/node3.py) against an
enumeration written from the definition: a leaf costs min over its predicted class k of
sum_rows w * cost[y, k], a tree the sum of its leaves' costs plus a penalty per leaf; a split
keeps min_leaf rows on each side."""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest

pytest.importorskip("numba")

from optrees.trees.search.binary.data import BinaryData  # noqa: E402
from optrees.trees.search.binary.memo import Memo  # noqa: E402
from optrees.trees.search.binary.node3 import depth3_node  # noqa: E402
from optrees.trees.search.binary.search import Search  # noqa: E402
from optrees.trees.search.binary.warmup import compile_node3  # noqa: E402


def _enumerate(X, y, w, cost, depth, penalty, min_leaf):
    """Least total cost + penalty * leaves over all trees of depth <= ``depth``."""

    @cache
    def best(rows: tuple, d: int) -> float:
        idx = np.array(rows, dtype=np.int64)
        leaf = min(float(np.sum(w[idx] * cost[y[idx], k])) for k in range(cost.shape[1]))
        value = leaf + penalty
        if d == 0:
            return value
        for f in range(X.shape[1]):
            right = tuple(i for i in rows if X[i, f] == 1)
            left = tuple(i for i in rows if X[i, f] == 0)
            if len(left) < min_leaf or len(right) < min_leaf:
                continue
            value = min(value, best(left, d - 1) + best(right, d - 1))
        return value

    return best(tuple(range(len(y))), depth)


def _tree_cost(node, X, y, w, cost, rows, penalty, min_leaf):
    """Cost of the node's tree (leaves predict their cheapest class) and whether each split
    keeps ``min_leaf`` rows a side; ``node`` = (root, (a, bl, br) left, (a, bl, br) right)."""
    def leaf(idx):
        return min(float(np.sum(w[idx] * cost[y[idx], k])) for k in range(cost.shape[1])) \
            + penalty

    def depth2(idx, a, bl, br):
        if a < 0:
            return leaf(idx), True
        total, ok = 0.0, True
        for side, b in ((0, bl), (1, br)):
            sub = idx[X[idx, a] == side]
            ok &= len(sub) >= min_leaf
            if b < 0:
                total += leaf(sub)
            else:
                parts = [sub[X[sub, b] == v] for v in (0, 1)]
                ok &= min(len(p) for p in parts) >= min_leaf
                total += leaf(parts[0]) + leaf(parts[1])
        return total, ok

    root, left, right = node
    if root < 0:
        return leaf(rows), True
    sides = [rows[X[rows, root] == v] for v in (0, 1)]
    c0, ok0 = depth2(sides[0], *left)
    c1, ok1 = depth2(sides[1], *right)
    return c0 + c1, ok0 and ok1 and min(len(s) for s in sides) >= min_leaf


def _instance(seed):
    rng = np.random.default_rng(seed)
    n, F, K = int(rng.integers(30, 80)), int(rng.integers(3, 8)), int(rng.integers(2, 4))
    X = rng.integers(0, 2, (n, F))
    for f in range(1, F, 2):  # near copies of a column: the similarity bound's case
        X[:, f] = X[:, f - 1] ^ (rng.random(n) < 0.1)
    # labels of a parity of two or three columns, 20 % noise: the best stumps (the order in
    # which the node tries its roots) say little, so its bounds must do the pruning
    cols = rng.choice(F, size=min(F, int(rng.integers(2, 4))), replace=False)
    y = X[:, cols].sum(axis=1) % K
    noise = rng.random(n) < 0.2
    y[noise] = rng.integers(0, K, int(noise.sum()))
    unit = seed % 3 == 0
    w = np.ones(n) if unit else rng.uniform(0.5, 2.0, n)
    accuracy = seed % 4 == 1
    cost = 1.0 - np.eye(K) if accuracy else rng.integers(0, 6, (K, K)).astype(float)
    np.fill_diagonal(cost, 0.0)
    min_leaf = int(rng.choice([1, 1, 2, 3]))
    return X, y, w, cost, min_leaf, accuracy


@pytest.mark.parametrize("seed", range(40))
def test_compiled_depth3_node_equals_enumeration(seed):
    X, y, w, cost, min_leaf, accuracy = _instance(seed)
    K = cost.shape[0]
    # the node maximizes scores: gains = (largest cost of the class - cost) / scale <= 1
    top = cost.max(axis=1)
    gains = top[:, None] - cost
    scale = max(float(gains.max()), 1e-12)
    rng = np.random.default_rng(1000 + seed)
    penalty = float(rng.choice([0.0, 0.5, 1.5]))  # in cost units, per leaf
    data = BinaryData.make(X, y, w, K, None if accuracy else gains / scale)
    L = penalty / scale
    rows = np.arange(len(y), dtype=np.int64)
    scores, weight = data.scores(rows)
    leaf = float(scores.max()) - L
    tol = 1e-9 * (1.0 + weight)
    use = data.gains is not None
    scale_arg = np.zeros(0)
    if seed % 5 == 2:  # one weight per class: bitset counters, scaled
        w = rng.uniform(0.5, 2.0, K)[y]
        data = BinaryData.make(X, y, w, K, data.gains)
        scores, weight = data.scores(rows)
        leaf = float(scores.max()) - L
        scale_arg = np.ones(K)
        scale_arg[y] = w
    out = depth3_node(data.X, data.indptr, data.indices, data.y, data.w, rows, K,
                      data.gains if use else np.zeros((1, 1)), use, bool((w == 1).all()),
                      scale_arg, L, tol, min_leaf, leaf, math.inf, -math.inf,
                      np.empty(0, np.int64), *Memo(16).arrays(), *Memo(16).arrays()[:3])
    value, bound = out[0], out[1]
    node = (out[2], tuple(out[3:6]), tuple(out[6:9]))
    expected = _enumerate(X, y, w, cost, 3, penalty, min_leaf)
    # score = (sum w * top[y] - cost) / scale - L * leaves
    as_cost = float(w @ top[y]) - scale * value
    assert as_cost == pytest.approx(expected, abs=1e-7)
    assert bound == pytest.approx(value)
    tree_cost, feasible = _tree_cost(node, X, y, w, cost, rows, penalty, min_leaf)
    assert feasible
    assert tree_cost == pytest.approx(expected, abs=1e-7)


@pytest.mark.parametrize("depth", [4, 5])
@pytest.mark.parametrize("seed", range(12))
def test_search_with_the_compiled_node_equals_the_python_node(seed, depth):
    """At depths 4 and 5 (the compiled node below the root) the search finds what it finds
    with its depth-3 nodes in Python around the same compiled depth-2 kernel: the same
    optimum, and the same tree under accuracy."""
    compile_node3()  # (else a cold numba cache leaves both searches in Python)
    X, y, w, cost, min_leaf, accuracy = _instance(seed)
    K = cost.shape[0]
    top = cost.max(axis=1)
    gains = top[:, None] - cost
    data = BinaryData.make(X, y, w, K, None if accuracy else gains / max(gains.max(), 1e-12))
    rows = np.arange(len(y), dtype=np.int64)
    found = {}
    for compiled in (True, False):
        search = Search(data, 0.25, "numba", min_leaf=min_leaf)
        assert search._node3 is not None
        if not compiled:
            search._node3 = None  # depth-3 nodes by Search._branch
        found[compiled] = search.solve(rows, depth)
    assert found[True].value == pytest.approx(found[False].value)
    assert found[True].upper == pytest.approx(found[False].upper)
    if accuracy:
        assert found[True].node == found[False].node
