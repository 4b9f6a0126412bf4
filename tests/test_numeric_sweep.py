"""The numpy depth-1 sweep (:func:`optrees.trees.search.numeric.depth1.best_splits`) against an
enumeration of every threshold written here in plain numpy, and against the compiled sweep.

The sweep's layout (class-major prefix sums, members taken with ``take``) is an optimisation of
the numpy search's first fit (issue #42); these tests pin what it must return: per feature, the
weight the best stump classifies correctly, the first split point reaching it (fewest rows
left), its leaves' classes (lowest class on ties) and its threshold.
"""

from __future__ import annotations

import numpy as np
import pytest

from optrees.trees.search.numeric.data import NumericData
from optrees.trees.search.numeric.depth1 import best_splits, class_weights
from optrees.trees.search.numeric.evaluate import StumpFinder, numba_available


def _oracle(X: np.ndarray, y: np.ndarray, w: np.ndarray, member: np.ndarray, n_classes: int,
            min_leaf: int) -> list[tuple[float, int, int, int, float, float] | None]:
    """Per feature ``(correct, n_left, left class, right class, largest value left, smallest
    value right)`` of its best stump over the members, by trying every distinct value as the
    largest value left (None: no split leaves ``min_leaf`` members on each side)."""
    xs, ys, ws = X[member], y[member], w[member]
    out = []
    for f in range(X.shape[1]):
        best = None
        for v in np.unique(xs[:, f])[:-1]:
            go = xs[:, f] <= v
            if go.sum() < min_leaf or (~go).sum() < min_leaf:
                continue
            left = np.array([ws[go & (ys == k)].sum() for k in range(n_classes)])
            right = np.array([ws[~go & (ys == k)].sum() for k in range(n_classes)])
            correct = left.max() + right.max()
            if best is None or correct > best[0]:  # first (smallest) threshold on ties
                best = (correct, int(go.sum()), int(left.argmax()), int(right.argmax()),
                        float(v), float(xs[~go, f].min()))
        out.append(best)
    return out


def _problem(seed: int):
    """Random data with repeated values, 1-3 classes, dyadic weights (exact sums, so ties are
    ties in floats too) including zeros, and a random member subset."""
    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(2, 40)), int(rng.integers(1, 5))
    X = rng.integers(0, rng.integers(2, 9), size=(n, p)) * 0.3 - 1.0
    n_classes = int(rng.integers(1, 4))
    y = rng.integers(0, n_classes, size=n)
    w = rng.integers(0, 5, size=n) * 0.25 if seed % 2 else np.ones(n)
    member = rng.random(n) < rng.uniform(0.3, 1.0) if seed % 3 else None
    return X, y, w, n_classes, member


@pytest.mark.parametrize("seed", range(120))
def test_best_splits_equals_enumeration(seed):
    X, y, w, n_classes, member = _problem(seed)
    min_leaf = 1 + seed % 3
    view = NumericData(X).view()
    cw = class_weights(y, w, n_classes)
    got = best_splits(view, cw, member, min_leaf)
    rows = np.ones(len(y), dtype=bool) if member is None else member
    assert np.array_equal(got.totals, [w[rows & (y == k)].sum() for k in range(n_classes)])
    for f, want in enumerate(_oracle(X, y, w, rows, n_classes, min_leaf)):
        if want is None:
            assert got.correct[f] == -np.inf
            continue
        correct, n_left, lcls, rcls, lo, hi = want
        assert (got.correct[f], got.n_left[f]) == (correct, n_left)
        assert (got.left_class[f], got.right_class[f]) == (lcls, rcls)
        assert lo <= got.threshold[f] < hi
        assert got.threshold[f] == pytest.approx((lo + hi) / 2)
    quiet = best_splits(view, cw, member, min_leaf, thresholds=False)
    assert np.isnan(quiet.threshold).all()
    for name in ("totals", "correct", "left_class", "right_class", "n_left"):
        assert np.array_equal(getattr(quiet, name), getattr(got, name))


@pytest.mark.skipif(not numba_available(), reason="numba not installed")
@pytest.mark.parametrize("seed", range(40))
def test_numpy_sweep_equals_compiled_sweep(seed):
    X, y, w, n_classes, member = _problem(seed)
    view = NumericData(X).view()
    cw = class_weights(y, w, n_classes)
    numpy = StumpFinder(view, y, w, cw, "numpy", 1 + seed % 2)(member)
    compiled = StumpFinder(view, y, w, cw, "numba", 1 + seed % 2)(member)
    assert np.array_equal(numpy.correct, compiled.correct)
    found = np.isfinite(numpy.correct)
    for name in ("left_class", "right_class", "n_left", "threshold"):
        assert np.array_equal(getattr(numpy, name)[found], getattr(compiled, name)[found]), name
