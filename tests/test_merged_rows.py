"""Row merging in the 0/1 search (issue #47 item 4): identical rows of one class searched as
one weighted row give the same tree, score and bound, and the enumerated optimum."""

from __future__ import annotations

import numpy as np
import pytest
from oracles import exhaustive_objective

from optrees.trees.search.binary import numba_available, solve_subtree
from optrees.trees.search.binary.data import merge_rows

BACKENDS = ["numpy"] + (["numba"] if numba_available() else [])


def _duplicated(seed: int, n: int, F: int, K: int):
    """``n`` rows drawn from a few distinct (features, class) pairs, so many repeat."""
    rng = np.random.default_rng(seed)
    base_X = rng.integers(0, 2, (max(2, n // 4), F))
    base_y = rng.integers(0, K, base_X.shape[0])
    pick = rng.integers(0, base_X.shape[0], n)
    w = rng.choice([1.0, 2.0, 3.0], n) if seed % 2 else np.ones(n)
    return base_X[pick].astype(np.uint8), base_y[pick], w


@pytest.mark.parametrize("seed", range(6))
def test_merge_rows_sums_each_distinct_row(seed):
    X, y, w = _duplicated(seed, 40, 9, 3)
    Xm, ym, wm = merge_rows(X, y.astype(np.int64), w)
    # the definition: one row per distinct (x, y), its weight the sum over its copies, in the
    # order of first occurrence
    total: dict[tuple, float] = {}
    for xi, yi, wi in zip(map(tuple, X.tolist()), y.tolist(), w.tolist(), strict=True):
        total[(xi, yi)] = total.get((xi, yi), 0.0) + wi
    got = [((tuple(r), int(c)), float(v)) for r, c, v in zip(Xm.tolist(), ym, wm, strict=True)]
    assert got == list(total.items())


def test_merge_rows_declines_distinct_rows():
    X = np.eye(8, dtype=np.uint8)
    assert merge_rows(X, np.zeros(8, dtype=np.int64), np.ones(8)) is None


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", range(8))
def test_merged_equals_unmerged_and_enumeration(seed, backend):
    X, y, w = _duplicated(seed, 48, 4, 2 + seed % 2)
    K = int(y.max()) + 1
    for depth in (1, 2, 3):
        pen = 0.5 * (seed % 3)
        merged = solve_subtree(X, y, depth, pen, sample_weight=w, n_classes=K,
                               backend=backend)
        plain = solve_subtree(X, y, depth, pen, sample_weight=w, n_classes=K,
                              backend=backend, merge=False)
        assert merged.stats["searched_rows"] < merged.stats["rows"] == len(y)
        assert plain.stats["searched_rows"] == len(y)
        assert np.array_equal(merged.tree.split, plain.tree.split)
        assert np.array_equal(merged.tree.label, plain.tree.label)
        assert (merged.score, merged.bound, merged.optimal) == \
            (plain.score, plain.bound, plain.optimal)
        # accuracy - lam * leaves over every tree, with lam = pen / W
        W = w.sum()
        best = exhaustive_objective(X, y, K, depth, pen / W, penalty="leaves",
                                    sample_weight=w)
        assert merged.optimal
        assert merged.score / W == pytest.approx(best, abs=1e-12)


@pytest.mark.parametrize("depth", [3, 4])
def test_merged_equals_unmerged_on_deeper_trees(depth):
    # the compiled depth-3 node and its shared depth-2 sides run on the merged rows
    backend = "numba" if numba_available() else "numpy"
    X, y, w = _duplicated(11, 600, 12, 2)
    noise = np.random.default_rng(0).random(len(y)) < 0.2
    y = np.where(noise, 1 - y, y)  # copies of one row in both classes
    runs = [solve_subtree(X, y, depth, 1.0, sample_weight=w, backend=backend, merge=m)
            for m in (True, False)]
    assert runs[0].stats["searched_rows"] < 600
    assert np.array_equal(runs[0].tree.split, runs[1].tree.split)
    assert np.array_equal(runs[0].tree.label, runs[1].tree.label)
    assert (runs[0].score, runs[0].bound) == (runs[1].score, runs[1].bound)
    assert runs[0].optimal and runs[1].optimal


def test_min_leaf_counts_rows_so_no_merge():
    X, y, w = _duplicated(3, 60, 4, 2)
    sol = solve_subtree(X, y, 2, 0.0, sample_weight=w, min_leaf=5)
    assert sol.stats["searched_rows"] == 60


def test_fractional_weights_are_not_merged():
    """A summed copy of fractional weights can round the other way and flip an exact tie
    (class_weight="balanced": a leaf of two equal classes then predicted the other class,
    tests/test_cv.py), so only integer weights are merged."""
    X, y, _ = _duplicated(5, 60, 4, 2)
    w = np.where(y == 0, 60 / (2 * (y == 0).sum()), 60 / (2 * (y == 1).sum()))
    sol = solve_subtree(X, y, 0, 0.0, sample_weight=w)
    assert sol.stats["searched_rows"] == sol.stats["rows"] == len(y)
    whole = solve_subtree(X, y, 0, 0.0, sample_weight=np.rint(w * 7))
    assert whole.stats["searched_rows"] < len(y)
