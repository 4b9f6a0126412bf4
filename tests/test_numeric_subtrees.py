"""Exact depth-≤2 trees over every numeric threshold (optrees.trees.search.numeric, issue #18)."""

from __future__ import annotations

import numpy as np
import pytest
from numeric_cases import check_tree, random_problem

from optrees.trees.search.numeric import NumericData, numba_available, solve_numeric

BACKENDS = ["numpy", pytest.param("numba", marks=pytest.mark.skipif(
    not numba_available(), reason="numba not installed"))]


def _leaf(member: np.ndarray, onehot_w: np.ndarray) -> float:
    """Weight of the majority class among ``member`` rows."""
    return float((onehot_w * member[:, None]).sum(axis=0).max())


def _brute_force(X, y, w, n_classes, pen, depth):
    """Best score over every threshold tree of depth ≤ ``depth`` by plain enumeration."""
    onehot_w = np.zeros((len(y), n_classes))
    onehot_w[np.arange(len(y)), y] = w
    cuts = [X[:, f] <= (a + b) / 2 for f in range(X.shape[1])
            for a, b in zip(np.unique(X[:, f])[:-1], np.unique(X[:, f])[1:], strict=True)]

    def best(member: np.ndarray, d: int) -> float:
        score = _leaf(member, onehot_w) - pen
        if d == 0:
            return score
        for left in cuts:
            lm, rm = member & left, member & ~left
            if lm.any() and rm.any():
                score = max(score, best(lm, d - 1) + best(rm, d - 1))
        return score

    return best(np.ones(len(y), dtype=bool), depth)


def _random_problem(seed: int, n_classes: int, weighted: bool):
    return random_problem(seed, n_classes, weighted, n=(8, 31), p=(1, 5), levels=7)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("depth", [1, 2])
def test_matches_brute_force(backend, n_classes, depth):
    """Score equals plain enumeration of every threshold tree, several penalties and weights."""
    for seed in range(12):
        X, y, w = _random_problem(seed + 100 * n_classes, n_classes, weighted=seed % 2 == 1)
        for pen in (0.0, 0.5, 1.0, 2.5):
            res = solve_numeric(X, y, n_classes=n_classes, sample_weight=w, leaf_penalty=pen,
                                max_depth=depth, backend=backend)
            expect = _brute_force(X, y, w, n_classes, pen, depth)
            assert res.score == pytest.approx(expect), (seed, pen)
            check_tree(res, X, y, w, pen)


@pytest.mark.parametrize("backend", BACKENDS)
def test_integer_weights_equal_duplicated_rows(backend):
    """An integer weight is the same as repeating the row that many times."""
    for seed in range(6):
        X, y, w = _random_problem(seed, 3, weighted=True)
        rep = w.astype(int)
        dup = solve_numeric(np.repeat(X, rep, axis=0), np.repeat(y, rep), n_classes=3,
                            leaf_penalty=1.0, backend=backend)
        weighted = solve_numeric(X, y, n_classes=3, sample_weight=w, leaf_penalty=1.0,
                                 backend=backend)
        assert weighted.score == pytest.approx(dup.score)


@pytest.mark.parametrize("backend", BACKENDS)
def test_row_subset_equals_slicing(backend):
    """``rows`` (mask or indices, with presorting reused) gives the result of slicing."""
    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(120, 4)), 1)
    y = (X[:, 0] + rng.normal(scale=0.5, size=120) > 0).astype(int) + (X[:, 1] > 0.8)
    w = rng.integers(1, 4, size=120).astype(float)
    data = NumericData(X)
    for seed in range(4):
        mask = np.random.default_rng(seed).random(120) < 0.4
        sliced = solve_numeric(X[mask], y[mask], n_classes=3, sample_weight=w[mask],
                               leaf_penalty=0.5, backend=backend)
        for rows in (mask, np.flatnonzero(mask)):
            sub = solve_numeric(data, y, n_classes=3, sample_weight=w, leaf_penalty=0.5,
                                rows=rows, backend=backend)
            assert sub.score == pytest.approx(sliced.score)
            assert np.array_equal(sub.rows, np.flatnonzero(mask))
            assert np.array_equal(sub.correct, sub.predict(X[mask]) == y[mask])


@pytest.mark.skipif(not numba_available(), reason="numba not installed")
def test_backends_agree_on_continuous_data():
    """Compiled and vectorized evaluators find the same optimum on larger continuous data."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(400, 5))
    y = ((X[:, 0] > 0.3) ^ (X[:, 2] < -0.2) | (rng.random(400) < 0.1)).astype(int)
    for pen in (0.0, 3.0):
        a = solve_numeric(X, y, leaf_penalty=pen, backend="numba")
        b = solve_numeric(X, y, leaf_penalty=pen, backend="numpy")
        assert a.score == pytest.approx(b.score)



@pytest.mark.skipif(not numba_available(), reason="numba not installed")
def test_binary_kernel_equals_general_kernel():
    """The two-class child kernel returns what the any-K kernel returns for the same root
    split and floors (weights, penalties, minimum leaf sizes, floors above and below the
    optimum, either side kept a leaf or none), so the skip rule is applied the same way in
    both."""
    from optrees.trees.search.numeric.kernels import (
        _binary_children,
        _multiclass_children,
        sorted_columns,
    )

    rng = np.random.default_rng(3)
    checked = 0
    for seed in range(40):
        n, p = int(rng.integers(5, 60)), int(rng.integers(1, 5))
        X = rng.integers(0, int(rng.integers(2, 15)), size=(n, p)).astype(float)
        y = rng.integers(0, 2, n)
        w = rng.uniform(0, 3, n) if seed % 2 else np.ones(n)
        data = NumericData(X)
        arrays = sorted_columns(data.order, data.rank, y, w, rng.permutation(p))
        for pen, min_leaf in ((0.0, 1), (0.7, 1), (0.0, 3), (1.5, 2)):
            ctx = arrays + (2, pen, 1e-9, min_leaf, int(rng.integers(-1, 2)))
            for _ in range(6):
                f = int(rng.integers(p))
                r = int(rng.integers(data.rank[f].max() + 1))
                fl, fr = (rng.uniform(-1, 0.8, 2) * w.sum() / 2).tolist()
                a = _binary_children(f, r, fl, fr, ctx)
                b = _multiclass_children(f, r, fl, fr, ctx)
                assert a == pytest.approx(b, abs=1e-9), (seed, pen, min_leaf, f, r)
                checked += 1
    assert checked == 40 * 4 * 6


@pytest.mark.skipif(not numba_available(), reason="numba not installed")
def test_compiled_root_search_resumes_to_the_same_split(monkeypatch):
    """The compiled root search paused after every evaluation (a deadline check each time)
    finds the split, score and evaluation count of an unpaused run and of the Python loop."""
    from optrees.trees.search.numeric import search
    from optrees.trees.search.numeric.depth1 import best_child, class_weights
    from optrees.trees.search.numeric.evaluate import StumpFinder, make_evaluator

    rng = np.random.default_rng(3)
    X = rng.integers(0, 9, size=(150, 4)).astype(float)
    y = ((X[:, 0] > 3) ^ (X[:, 1] < 5) | (rng.random(150) < 0.2)).astype(int)
    w = rng.uniform(0.5, 2.0, 150)
    view = NumericData(X).view(None)
    cw = class_weights(y, w, 2)
    finder = StumpFinder(view, y, w, cw, "numba")
    whole = finder()
    start = best_child(whole, 0.5).objective
    compiled = make_evaluator(view, y, w, cw, 0.5, 1e-9, "numba",
                              np.argsort(-whole.correct, kind="stable"), finder.arrays)

    def python_loop(f, r, floor_l, floor_r):
        return compiled(f, r, floor_l, floor_r)      # no kernel_ctx: the Python search

    def run(evaluate, check=None):
        found = search.search_root(view, w, whole, start, 0.5, start, evaluate, 1e-9,
                                   check=check)
        return found.objective, found.feature, found.rank, found.evaluations

    checks = []
    monkeypatch.setattr(search, "CELLS_PER_CHECK", 1)        # a batch of one evaluation
    paused = run(compiled, lambda: checks.append(1))
    assert paused == run(compiled) == run(python_loop)
    assert paused[3] > 5 and paused[3] <= len(checks) <= paused[3] + 1


def _contree_accuracy(X, y, depth):
    """Training accuracy of ConTree's optimal tree (an independent exact solver)."""
    pycontree = pytest.importorskip("pycontree")
    model = pycontree.ConTree(max_depth=depth, time_limit=60).fit(X, y)
    return float((model.predict(X) == y).mean())


def _banknote():
    """Banknote from $OPTREES_DATA (skipped when the file is not there)."""
    from optrees import load_dataset

    try:
        X, y = load_dataset("banknote")
    except FileNotFoundError:
        pytest.skip("banknote needs OPTREES_DATA")
    return X.to_numpy(dtype=float), np.unique(y, return_inverse=True)[1]


def _breast_cancer():
    """sklearn's breast-cancer (569 x 30, numeric)."""
    from sklearn.datasets import load_breast_cancer

    return load_breast_cancer(return_X_y=True)


@pytest.mark.parametrize("loader", [_breast_cancer, _banknote])
@pytest.mark.parametrize("depth", [1, 2])
def test_contree_witness(loader, depth):
    """Same training accuracy as ConTree on real numeric data (both are exact)."""
    X, y = loader()
    expect = _contree_accuracy(X, y, depth)
    res = solve_numeric(X, y, max_depth=depth)
    assert res.correct_weight / len(y) == pytest.approx(expect)
    assert float((res.predict(X) == y).mean()) == pytest.approx(expect)


def test_rejects_bad_input():
    """Wrong depth, negative weights or penalty, labels out of range and NaN are refused."""
    X, y = np.zeros((4, 2)), np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match="max_depth"):
        solve_numeric(X, y, max_depth=-1)
    with pytest.raises(ValueError, match="sample_weight"):
        solve_numeric(X, y, sample_weight=[1, -1, 1, 1])
    with pytest.raises(ValueError, match="leaf_penalty"):
        solve_numeric(X, y, leaf_penalty=-1.0)
    with pytest.raises(ValueError, match="labels"):
        solve_numeric(X, y, n_classes=1)
    with pytest.raises(ValueError, match="finite"):
        solve_numeric(np.full((4, 2), np.nan), y)
    with pytest.raises(ValueError, match="repeat"):
        solve_numeric(X, y, rows=[0, 0, 1])


def test_degenerate_inputs():
    """Constant columns, one class, an empty subset and depth 0 give a single leaf."""
    X, y = np.ones((5, 2)), np.array([0, 1, 1, 0, 1])
    res = solve_numeric(X, y, max_depth=2)
    assert res.n_leaves == 1 and res.score == 3.0
    res = solve_numeric(np.arange(10.0)[:, None], np.ones(10, int), n_classes=2)
    assert res.n_leaves == 1 and res.score == 10.0
    res = solve_numeric(X, y, rows=np.zeros(5, dtype=bool), leaf_penalty=1.0)
    assert res.n_leaves == 1 and res.score == -1.0 and res.correct.size == 0
    res = solve_numeric(np.arange(6.0)[:, None], np.array([0, 0, 0, 1, 1, 1]), max_depth=0)
    assert res.n_leaves == 1 and res.score == 3.0
