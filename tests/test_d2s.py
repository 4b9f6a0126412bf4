"""D2S (accelerated-bendoct Appendix B.1) against a plain brute-force enumeration."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from optrees.trees.mip.d2s import SubtreeResult, d2s
from optrees.trees.problem.tree_problem import HeapTree

PENALTIES = (0.0, 0.5, 1.5, 4.0)


# ---------------------------------------------------------------- independent reference
def _route(x: list[int], split: list[int]) -> int:
    """Heap node where a sample stops (plain Python, independent of HeapTree.terminal)."""
    node = 1
    while node <= 3 and split[node - 1] >= 0:
        node = 2 * node + x[split[node - 1]]
    return node


def _best_in_group(labels: list[int], n_classes: int) -> int:
    counts = [0] * n_classes
    for k in labels:
        counts[k] += 1
    return max(counts)


def _brute_force(X: np.ndarray, y: np.ndarray, n_classes: int, penalty: float,
                 max_depth: int) -> list[tuple[float, int, tuple[int, int, int, int]]]:
    """All (score, n_leaves, tie-break key) over every topology and feature choice.

    Tie-break key mirrors the documented rule: fewer leaves, then root feature, then the
    left-expanded 3-leaf tree before the right-expanded one, then the child features.
    """
    n, n_feat = X.shape
    rows = [list(map(int, r)) for r in X]
    labels = list(map(int, y))
    structures: list[tuple[int, tuple[int, int, int, int], list[int]]] = [(1, (-1, -1, -1, -1),
                                                                           [-1, -1, -1])]
    if max_depth >= 1:
        for a in range(n_feat):
            structures.append((2, (a, 0, -1, -1), [a, -1, -1]))
    if max_depth >= 2:
        for a, b in itertools.product(range(n_feat), repeat=2):
            structures.append((3, (a, 0, b, -1), [a, b, -1]))
            structures.append((3, (a, 1, b, -1), [a, -1, b]))
        for a, b, c in itertools.product(range(n_feat), repeat=3):
            structures.append((4, (a, 0, b, c), [a, b, c]))
    out = []
    for n_leaves, key, split in structures:
        groups: dict[int, list[int]] = {}
        for i in range(n):
            groups.setdefault(_route(rows[i], split), []).append(labels[i])
        correct = sum(_best_in_group(g, n_classes) for g in groups.values())
        out.append((correct - penalty * n_leaves, n_leaves, key, split))
    return out


def _expected(X, y, n_classes, penalty, max_depth):
    cands = _brute_force(X, y, n_classes, penalty, max_depth)
    best = max(c[0] for c in cands)
    optimal = [c for c in cands if c[0] == best]
    return best, min(optimal, key=lambda c: (c[1], c[2]))


def _check_result(res: SubtreeResult, X: np.ndarray, y: np.ndarray, penalty: float,
                  max_depth: int) -> None:
    """Invariants that need no reference solution."""
    tree = res.tree
    assert tree.split.shape == (3,) and tree.label.shape == (7,)
    assert res.correct.dtype == bool and res.correct.shape == (len(y),)
    # independent re-scoring of the returned tree
    split = [int(s) for s in tree.split]
    stops = [_route(list(map(int, x)), split) for x in X]
    pred = [int(tree.label[s - 1]) for s in stops]
    mask = np.array([p == int(t) for p, t in zip(pred, y, strict=True)], dtype=bool)
    np.testing.assert_array_equal(res.correct, mask)
    np.testing.assert_array_equal(tree.terminal(X), np.array(stops, dtype=np.int64))
    assert res.n_correct == int(mask.sum())
    assert res.score == res.n_correct - penalty * res.n_leaves
    # leaves / branches of §5.2 agree with the layout and the depth limit
    assert len(res.leaves) == res.n_leaves == len(res.branches) + 1
    assert 1 <= res.n_leaves <= 2**max_depth
    if max_depth < 2:
        assert split[1] == split[2] == -1
    if max_depth == 0:
        assert split[0] == -1
    if split[0] < 0:  # unused nodes copy the label down
        assert split == [-1, -1, -1] and len(set(tree.label.tolist())) == 1
    for n in (2, 3):
        if split[0] >= 0 and split[n - 1] < 0:
            assert tree.label[2 * n - 1] == tree.label[2 * n] == tree.label[n - 1]


def _random_instance(rng: np.random.Generator):
    n = int(rng.integers(0, 31))
    n_feat = int(rng.integers(1, 6))
    n_classes = int(rng.choice([2, 3]))
    X = (rng.random((n, n_feat)) < rng.uniform(0.2, 0.8)).astype(np.uint8)
    if n_feat > 1 and rng.random() < 0.5:  # constant feature
        X[:, rng.integers(n_feat)] = rng.integers(2)
    if n > 2 and rng.random() < 0.5:  # duplicated rows (possibly with different labels)
        dup = rng.integers(0, n, size=n // 3)
        X[rng.integers(0, n, size=dup.size)] = X[dup]
    y = rng.integers(0, n_classes, size=n)
    return X, y, n_classes


# ---------------------------------------------------------------- brute-force comparison
@pytest.mark.parametrize("seed", range(8))
def test_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    checked = 0
    for _ in range(20):
        X, y, K = _random_instance(rng)
        n = len(y)
        subsets: list[np.ndarray | None] = [None]
        if n:
            subsets += [rng.random(n) < 0.6,                       # boolean mask
                        rng.choice(n, size=max(1, n // 2), replace=False),
                        rng.integers(0, n, size=n)]                 # indices with repeats
        for rows in subsets:
            Xs, ys = (X, y) if rows is None else (X[rows], y[rows])
            for penalty in PENALTIES:
                for max_depth in (0, 1, 2):
                    res = d2s(X, y, K, leaf_penalty=penalty, max_depth=max_depth, rows=rows)
                    ctx = f"seed={seed} n={n} K={K} pen={penalty} d={max_depth} rows={rows}"
                    _check_result(res, Xs, ys, penalty, max_depth)
                    if len(ys) == 0:
                        assert res.n_leaves == 1 and res.score == -penalty, ctx
                        continue
                    best, pick = _expected(Xs, ys, K, penalty, max_depth)
                    assert res.score == best, ctx
                    assert res.n_leaves == pick[1], ctx
                    assert res.tree.split.tolist() == pick[3], ctx
                    checked += 1
    assert checked >= 100


def test_many_classes_and_absent_class():
    rng = np.random.default_rng(42)
    for _ in range(10):
        X = rng.integers(0, 2, size=(25, 4)).astype(np.uint8)
        y = rng.choice([0, 2, 4], size=25)  # classes 1 and 3 absent
        for penalty in (0.0, 1.5):
            res = d2s(X, y, 5, leaf_penalty=penalty)
            _check_result(res, X, y, penalty, 2)
            best, pick = _expected(X, y, 5, penalty, 2)
            assert res.score == best and res.tree.split.tolist() == pick[3]
            assert set(res.tree.label.tolist()) <= {0, 2, 4}


# ---------------------------------------------------------------- behaviour
def test_large_penalty_gives_majority_leaf():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(200, 10)).astype(np.uint8)
    y = rng.choice(3, size=200, p=[0.2, 0.5, 0.3])
    res = d2s(X, y, 3, leaf_penalty=1000.0)
    assert res.n_leaves == 1 and res.branches == []
    assert res.leaves == [(1, int(np.bincount(y).argmax()))]
    assert res.n_correct == np.bincount(y).max()
    assert res.score == res.n_correct - 1000.0


def test_xor_depth_two_is_perfect():
    rng = np.random.default_rng(2)
    X = rng.integers(0, 2, size=(300, 8)).astype(np.uint8)
    y = X[:, 3] ^ X[:, 6]
    res = d2s(X, y, 2, leaf_penalty=0.0)
    assert res.n_correct == 300 and res.correct.all() and res.n_leaves == 4
    assert res.tree.split[0] in (3, 6)
    assert d2s(X, y, 2, max_depth=1).n_correct < 300
    # three classes: 0 if x0 = 0, else 1 + x1
    y3 = np.where(X[:, 0] == 0, 0, 1 + X[:, 1])
    res3 = d2s(X, y3, 3, leaf_penalty=0.5)
    assert res3.n_correct == 300 and res3.n_leaves == 3
    assert res3.branches == [(1, 0), (3, 1)]


def test_rows_subset_outputs_refer_to_subset():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(100, 6)).astype(np.uint8)
    y = rng.integers(0, 2, size=100)
    idx = np.flatnonzero(X[:, 0] == 1)
    mask = X[:, 0] == 1
    a = d2s(X, y, 2, leaf_penalty=0.5, rows=idx)
    b = d2s(X, y, 2, leaf_penalty=0.5, rows=mask)
    c = d2s(X[idx], y[idx], 2, leaf_penalty=0.5)
    for r in (a, b):
        assert r.correct.shape == (idx.size,)
        assert r.score == c.score
        np.testing.assert_array_equal(r.tree.split, c.tree.split)
        np.testing.assert_array_equal(r.correct, c.correct)


def test_empty_subset_and_no_features():
    X = np.zeros((5, 3), dtype=np.uint8)
    y = np.array([0, 1, 1, 0, 1])
    res = d2s(X, y, 2, leaf_penalty=2.0, rows=np.array([], dtype=np.int64))
    assert res.n_leaves == 1 and res.n_correct == 0 and res.score == -2.0
    assert res.correct.shape == (0,)
    np.testing.assert_array_equal(res.tree.label, np.zeros(7))
    res = d2s(np.zeros((5, 0), dtype=np.uint8), y, 2)
    assert res.n_leaves == 1 and res.n_correct == 3 and res.tree.label[0] == 1


def test_input_types_and_validation():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 2, size=(40, 5)).astype(np.uint8)
    y = rng.integers(0, 3, size=40)
    ref = d2s(X, y, 3, leaf_penalty=0.5)
    for Xa in (X.astype(bool), X.astype(np.int64), X.astype(float)):
        other = d2s(Xa, y, 3, leaf_penalty=0.5)
        assert other.score == ref.score
        np.testing.assert_array_equal(other.tree.split, ref.tree.split)
    with pytest.raises(ValueError):
        d2s(X, y, 3, max_depth=3)
    with pytest.raises(ValueError):
        d2s(X * 2, y, 3)
    with pytest.raises(ValueError):
        d2s(X, y, 2)  # label 2 out of range
    with pytest.raises(ValueError):
        d2s(X, y[:-1], 3)
    with pytest.raises(ValueError):
        d2s(X, y, 3, rows=np.ones(10, dtype=bool))


def test_heap_tree_predictions_match_correct_mask():
    rng = np.random.default_rng(5)
    X = (rng.random((500, 20)) < 0.3).astype(np.uint8)
    y = rng.integers(0, 3, size=500)
    res = d2s(X, y, 3, leaf_penalty=1.0)
    assert isinstance(res.tree, HeapTree)
    pred = res.tree.label[res.tree.terminal(X) - 1]
    np.testing.assert_array_equal(pred == y, res.correct)
    assert res.score == (pred == y).sum() - 1.0 * res.n_leaves


def test_split_scores_equal_d2s_on_each_side():
    """The batched scores of both sides of every root split equal one D2S call per side,
    with empty sides, constant columns, one class, ties and non-integer penalties."""
    from optrees.trees.mip.d2s import split_scores

    rng = np.random.default_rng(5)
    for t in range(300):
        n, F, K = int(rng.integers(0, 40)), int(rng.integers(1, 7)), int(rng.integers(1, 4))
        X, y = rng.integers(0, 2, (n, F)), rng.integers(0, K, n)
        if t % 4 == 0:
            X[:, 0] = 1
        if t % 5 == 0:
            X[:, -1] = 0
        L = float(rng.choice([0.0, 0.5, 1.0, 2.5, 10.0]))
        rows = None if t % 2 else rng.random(n) < 0.7
        left, right = split_scores(X, y, K, L, rows)
        idx = np.arange(n) if rows is None else np.flatnonzero(rows)
        for f in range(F):
            for side, got in ((0, left[f]), (1, right[f])):
                expect = d2s(X, y, K, L, 2, idx[X[idx, f] == side]).score
                assert got == pytest.approx(expect, abs=1e-9), (t, f, side)
