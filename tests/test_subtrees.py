"""The exact subtree engine (optrees.trees.search.binary) against brute force and pystreed."""

from __future__ import annotations

import math

import numpy as np
import pytest

from optrees.solvers.deadline import Deadline
from optrees.trees.problem.tree_problem import HeapTree
from optrees.trees.search.binary import numba_available, solve_subtree
from optrees.trees.search.binary.data import BinaryData
from optrees.trees.search.binary.search import Search

BACKENDS = ["numpy", "numba"] if numba_available() else ["numpy"]


# ---------------------------------------------------------------- independent reference
def _trees(n_feat: int, depth: int) -> list:
    """Every tree shape of depth ≤ ``depth``: None (leaf) or (feature, left, right)."""
    if depth == 0:
        return [None]
    sub = _trees(n_feat, depth - 1)
    return [None] + [(f, a, b) for f in range(n_feat) for a in sub for b in sub]


def _value(tree, X, y, w, rows, K, pen) -> float:
    """Score of a shape with the best label in each leaf (plain recursion)."""
    if tree is None:
        counts = [0.0] * K
        for i in rows:
            counts[y[i]] += w[i]
        return max(counts) - pen
    f, a, b = tree
    return (_value(a, X, y, w, [i for i in rows if X[i][f] == 0], K, pen)
            + _value(b, X, y, w, [i for i in rows if X[i][f] == 1], K, pen))


def _brute(X, y, w, rows, K, pen, depth) -> float:
    """Exhaustive recursion without bounds: a leaf, or every feature (empty sides included)."""
    Xl, yl, wl = X.tolist(), y.tolist(), w.tolist()
    memo: dict = {}

    def opt(s: tuple, d: int) -> float:
        if (s, d) not in memo:
            best = _value(None, Xl, yl, wl, s, K, pen)
            for f in range(X.shape[1]) if d else ():
                left = tuple(i for i in s if Xl[i][f] == 0)
                right = tuple(i for i in s if Xl[i][f] == 1)
                best = max(best, opt(left, d - 1) + opt(right, d - 1))
            memo[s, d] = best
        return memo[s, d]

    return opt(tuple(rows), depth)


def _enumerate(X, y, w, rows, K, pen, depth) -> float:
    """Best score over an explicit list of every tree shape (tiny instances only)."""
    Xl, yl, wl = X.tolist(), y.tolist(), w.tolist()
    return max(_value(t, Xl, yl, wl, list(rows), K, pen) for t in _trees(X.shape[1], depth))


def _rescore(tree: HeapTree, X, y, w, rows, pen) -> float:
    """Route every row in plain Python and count reachable leaves."""
    total = 0.0
    for i in rows:
        node = 1
        while node <= len(tree.split) and tree.split[node - 1] >= 0:
            node = 2 * node + int(X[i, tree.split[node - 1]])
        total += w[i] * (tree.label[node - 1] == y[i])
    leaves, stack = 0, [1]
    while stack:
        n = stack.pop()
        if n <= len(tree.split) and tree.split[n - 1] >= 0:
            stack += [2 * n, 2 * n + 1]
        else:
            leaves += 1
    return total - pen * leaves


def _instance(seed: int):
    rng = np.random.default_rng(seed)
    n, F, K = int(rng.integers(1, 13)), int(rng.integers(1, 5)), int(rng.integers(2, 4))
    X = rng.integers(0, 2, (n, F))
    y = rng.integers(0, K, n)
    w = rng.choice([0.5, 1.0, 2.0, 3.0], n) if seed % 2 else np.ones(n)
    pen = float(rng.choice([0.0, 0.5, 1.0, 2.5]))
    rows = np.flatnonzero(rng.random(n) < 0.8) if seed % 3 == 0 else np.arange(n)
    return X, y, w, K, pen, rows


# ---------------------------------------------------------------- brute force
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", range(24))
def test_matches_brute_force(seed, backend):
    X, y, w, K, pen, rows = _instance(seed)
    max_depth = 3
    for depth in range(1, max_depth + 1):
        sol = solve_subtree(X, y, depth, pen, sample_weight=w, rows=rows, n_classes=K,
                            backend=backend)
        best = _brute(X, y, w, rows, K, pen, depth)
        if X.shape[1] ** (2**depth - 1) <= 64:  # the recursion itself against an explicit list
            assert best == pytest.approx(_enumerate(X, y, w, rows, K, pen, depth))
        assert sol.optimal
        assert sol.score == pytest.approx(best, abs=1e-9)
        assert sol.bound == pytest.approx(best, abs=1e-9)
        assert _rescore(sol.tree, X, y, w, rows, pen) == pytest.approx(sol.score, abs=1e-9)
        assert len(sol.tree.split) == 2**depth - 1
        assert len(sol.tree.label) == 2 ** (depth + 1) - 1


def test_depth_five_layout_and_leaf_tie():
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    y = np.array([0, 0, 0, 0])
    sol = solve_subtree(X, y, 5, 0.0)
    assert sol.optimal and sol.score == 4.0
    assert (sol.tree.split == -1).all() and len(sol.tree.split) == 31  # a leaf wins ties


def test_empty_rows_and_depth_zero():
    X = np.array([[0, 1], [1, 0]])
    y = np.array([1, 0])
    sol = solve_subtree(X, y, 3, 0.5, rows=np.array([], dtype=int))
    assert sol.optimal and sol.score == -0.5
    sol = solve_subtree(X, y, 0, 0.5)
    assert sol.optimal and sol.score == 0.5


# ---------------------------------------------------------------- cache and bounds
def _path_sets(X, rows, depth):
    """Row sets reachable through ≤ ``depth`` literals (the sub-problems the search meets)."""
    out = {tuple(rows)}
    frontier = [tuple(rows)]
    for _ in range(depth):
        nxt = []
        for s in frontier:
            for f in range(X.shape[1]):
                for v in (0, 1):
                    t = tuple(i for i in s if X[i, f] == v)
                    if t and t not in out:
                        out.add(t)
                        nxt.append(t)
        frontier = nxt
    return out


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("seed", range(12))
def test_cached_bounds_are_valid(seed, backend):
    """Every cached bound is ≥ the brute-force optimum of its row set and depth, and every
    cached optimum equals it, including after searches with pruning lower bounds (numba:
    depth-3 nodes are one compiled call, which caches no depth-2 subproblem)."""
    rng = np.random.default_rng(100 + seed)
    n, F, K = 12, 3, int(rng.integers(2, 4))
    X = rng.integers(0, 2, (n, F))
    y = rng.integers(0, K, n)
    w = rng.choice([1.0, 2.0], n)
    pen = float(rng.choice([0.0, 0.5, 1.0]))
    data = BinaryData.make(X, y, w, K)
    search = Search(data, pen, backend)
    rows = np.arange(n)
    for depth in (3, 4):
        res = search.solve(rows, depth)
        assert res.upper == res.value == pytest.approx(_brute(X, y, w, rows, K, pen, depth))
    for lower in (0.0, 5.0, 9.0):  # searches that give up early store bounds only
        search.solve(rows[: n // 2 + 2], 3, lower=lower)
    checked = 0
    for s in _path_sets(X, rows, 2) | _path_sets(X, rows[: n // 2 + 2], 1):
        idx = np.array(s, dtype=np.int64)
        for depth in (1, 2, 3):
            entry = search.cache.get(search.cache.key(idx), depth)
            if entry is None:
                continue
            best = _brute(X, y, w, idx, K, pen, depth)
            assert entry.upper >= best - 1e-9
            if entry.exact:
                assert entry.value == pytest.approx(best)
            checked += 1
    assert checked > (10 if backend == "numpy" else 1)


def test_repeated_searches_share_the_cache():
    rng = np.random.default_rng(7)
    X = rng.integers(0, 2, (60, 6))
    y = (X[:, 0] ^ X[:, 3] | (rng.random(60) < 0.2)).astype(int)
    data = BinaryData.make(X, y)
    search = Search(data, 1.0)
    rows = np.arange(60)
    for lower in (50.0, 40.0, 30.0, -math.inf):
        res = search.solve(rows, 4, lower=lower)
        assert res.upper >= res.value
    fresh = solve_subtree(X, y, 4, 1.0)
    assert res.value == pytest.approx(fresh.score) and res.upper == pytest.approx(fresh.score)


# ---------------------------------------------------------------- deadline
def test_expired_deadline_returns_a_valid_tree_and_bound():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, (80, 8))
    y = (X[:, 1] & X[:, 2] | X[:, 5]).astype(int)
    y[rng.random(80) < 0.1] ^= 1
    exact = solve_subtree(X, y, 3, 0.5)
    dl = Deadline(0)
    sol = solve_subtree(X, y, 3, 0.5, deadline=dl)
    assert not sol.optimal and sol.stats["timed_out"]
    assert sol.bound >= exact.score - 1e-9
    assert _rescore(sol.tree, X, y, np.ones(80), range(80), 0.5) == pytest.approx(sol.score)
    assert len(sol.tree.split) == 7


def test_deadline_during_search_keeps_bound_valid():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, (150, 14))
    y = rng.integers(0, 3, 150)
    exact = solve_subtree(X, y, 4, 0.0)
    assert exact.optimal
    for seconds in (0.002, 0.01, 0.03):
        sol = solve_subtree(X, y, 4, 0.0, deadline=Deadline(seconds))
        assert sol.score <= exact.score + 1e-9 <= sol.bound + 2e-9
        assert _rescore(sol.tree, X, y, np.ones(150), range(150), 0.0) == pytest.approx(
            sol.score)
        assert sol.optimal == (not sol.stats["timed_out"])


def test_upper_bound_argument_stops_search():
    rng = np.random.default_rng(9)
    X = rng.integers(0, 2, (50, 5))
    y = rng.integers(0, 2, 50)
    exact = solve_subtree(X, y, 3, 1.0)
    capped = solve_subtree(X, y, 3, 1.0, upper_bound=exact.score)
    assert capped.optimal and capped.score == pytest.approx(exact.score)


# ---------------------------------------------------------------- pystreed witness
WITNESS = [("monk1", 2, 0.01), ("monk2", 3, 0.001), ("monk3", 3, 0.01),
           ("house-votes-84", 3, 0.001), ("tic-tac-toe", 3, 0.01),
           ("monk2", 4, 0.001), ("house-votes-84", 4, 0.01)]


@pytest.fixture(scope="module")
def binarized():
    from optrees import Binarizer, load_dataset

    out = {}

    def get(name):
        if name not in out:
            try:
                X, y = load_dataset(name)
            except (FileNotFoundError, OSError) as exc:  # pragma: no cover - data missing
                pytest.skip(f"{name}: {exc}")
            Xb = np.asarray(Binarizer().fit_transform(X), dtype=np.uint8)
            out[name] = Xb, np.unique(np.asarray(y), return_inverse=True)[1]
        return out[name]

    return get


@pytest.mark.parametrize("name,depth,lam", WITNESS)
def test_matches_pystreed(binarized, name, depth, lam):
    pystreed = pytest.importorskip("pystreed")
    X, y = binarized(name)
    n = len(y)
    ref = pystreed.STreeDClassifier(max_depth=depth, optimization_task="cost-complex-accuracy",
                                    cost_complexity=lam, time_limit=60).fit(X, y)
    assert ref.fit_result.is_optimal()
    ref_obj = float(np.mean(ref.predict(X) == y) - lam * ref.get_n_leaves())
    sol = solve_subtree(X, y, depth, lam * n)
    assert sol.optimal
    assert sol.score / n == pytest.approx(ref_obj, abs=1e-9)
    assert _rescore(sol.tree, X, y, np.ones(n), range(n), lam * n) == pytest.approx(sol.score)


# ---------------------------------------------------------------- counters
@pytest.mark.skipif(not numba_available(), reason="numba missing")
@pytest.mark.parametrize("seed", range(4))
def test_counters_agree(seed):
    """Bitset popcounts, weighted pair counts and the numpy Gram matrices give the same G."""
    from optrees.trees.search.binary.kernels import gram_bits, gram_upper

    rng = np.random.default_rng(seed)
    n, F, K = 150 + 40 * seed, 9, 3
    X = (rng.random((n, F)) < 0.3 + 0.1 * seed).astype(np.uint8)
    y = rng.integers(0, K, n)
    d = BinaryData.make(X, y, None, K)
    rows = np.flatnonzero(rng.random(n) < 0.7).astype(np.int64)
    Gb, tb = gram_bits(d.indptr, d.indices, d.y, rows, K, F)
    Gp, tp = gram_upper(d.indptr, d.indices, d.y, d.w, rows, K, F)
    Xs, ys = X[rows].astype(float), y[rows]
    iu = np.triu_indices(F)
    for k in range(K):
        ref = Xs[ys == k].T @ Xs[ys == k]
        assert np.array_equal(Gb[:, :, k][iu], ref[iu])
        assert np.array_equal(Gp[:, :, k][iu], ref[iu])
    assert np.array_equal(tb, np.bincount(ys, minlength=K)) and np.array_equal(tb, tp)


# ---------------------------------------------------------------- interface
def test_numpy_fallback_without_numba(monkeypatch):
    from optrees import compiled

    monkeypatch.setattr(compiled, "numba_available", lambda: False)
    rng = np.random.default_rng(11)
    X = rng.integers(0, 2, (40, 5))
    y = rng.integers(0, 3, 40)
    sol = solve_subtree(X, y, 3, 0.5)
    assert sol.stats["backend"] == "numpy" and sol.optimal
    assert sol.score == pytest.approx(_brute(X, y, np.ones(40), range(40), 3, 0.5, 3))
    with pytest.raises(ImportError):
        compiled.resolve_backend("numba")


def test_rows_mask_and_index_agree():
    rng = np.random.default_rng(12)
    X = rng.integers(0, 2, (50, 6))
    y = rng.integers(0, 2, 50)
    mask = rng.random(50) < 0.5
    a = solve_subtree(X, y, 3, 1.0, rows=mask)
    b = solve_subtree(X, y, 3, 1.0, rows=np.flatnonzero(mask)[::-1])
    c = solve_subtree(X[mask], y[mask], 3, 1.0)
    assert a.score == b.score == c.score


@pytest.mark.parametrize("kwargs,message", [
    ({"X": [[0, 2]], "y": [0]}, "binary"),
    ({"X": [[0, 1]], "y": [3], "n_classes": 2}, "labels"),
    ({"X": [[0, 1]], "y": [0], "sample_weight": [-1.0]}, "non-negative"),
    ({"X": [[0, 1], [1, 0]], "y": [0, 1], "rows": [1, 1]}, "repeat"),
    ({"X": [[0, 1]], "y": [0], "leaf_penalty": -1.0}, "leaf_penalty"),
])
def test_bad_input(kwargs, message):
    args = {"depth": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        solve_subtree(**args)


def test_lower_bound_argument():
    rng = np.random.default_rng(13)
    X = rng.integers(0, 2, (60, 6))
    y = (X[:, 0] ^ X[:, 2]).astype(int)
    y[rng.random(60) < 0.15] ^= 1
    exact = solve_subtree(X, y, 3, 1.0)
    below = solve_subtree(X, y, 3, 1.0, lower_bound=exact.score - 0.5)
    assert below.optimal and below.score == pytest.approx(exact.score)
    above = solve_subtree(X, y, 3, 1.0, lower_bound=exact.score + 0.5)
    assert above.score <= exact.score + 1e-9
    assert exact.score - 1e-9 <= above.bound <= exact.score + 0.5 + 1e-6


def test_feature_bounds_match_d2s_split_scores():
    """At height 3 the per-feature bounds are D2S's split scores (accel split-bound rows)."""
    from optrees.trees.mip.d2s import split_scores

    rng = np.random.default_rng(14)
    X = rng.integers(0, 2, (90, 7))
    y = rng.integers(0, 3, 90)
    rows = np.flatnonzero(X[:, 0] == 1)
    search = Search(BinaryData.make(X, y, None, 3), 1.5)
    U, u_leaf = search.feature_bounds(rows, 3)
    left, right = split_scores(X, y, 3, 1.5, rows)
    assert np.allclose(U, left + right)
    assert u_leaf == pytest.approx(np.bincount(y[rows]).max() - 1.5)
    U4, _ = search.feature_bounds(rows, 4)
    best4 = search.solve(rows, 4)
    assert max(U4.max(), u_leaf) == pytest.approx(best4.value)
