"""Shared pieces of the numeric-tree tests: tiny random problems and the checks every returned
numeric subtree must pass."""

from __future__ import annotations

import numpy as np
import pytest


def random_problem(seed: int, n_classes: int, weighted: bool, n: tuple[int, int] = (6, 25),
                   p: tuple[int, int] = (1, 4), levels: int = 6):
    """Tiny data with many repeated values (a few levels per column, drawn below ``levels``)
    and optional integer weights (zeros included); ``n`` and ``p`` are half-open ranges."""
    rng = np.random.default_rng(seed)
    rows, cols = int(rng.integers(*n)), int(rng.integers(*p))
    X = rng.integers(0, rng.integers(2, levels), size=(rows, cols)) * 0.5 - 1.0
    y = rng.integers(0, n_classes, size=rows)
    w = rng.integers(0, 4, size=rows).astype(float) if weighted else np.ones(rows)
    return X, y, w


def check_tree(res, X, y, w, pen) -> None:
    """The returned tree re-scores to its score and mask; every threshold is a midpoint
    between consecutive distinct values of the rows reaching its node, never between ties."""
    pred = res.predict(X)
    assert np.array_equal(res.correct, pred == y)
    assert res.correct_weight == pytest.approx(w[res.correct].sum())
    assert res.score == pytest.approx(res.correct_weight - pen * res.n_leaves)
    assert res.n_leaves == len(res.leaves)
    reach = res.terminal(X)
    for node in range(1, len(res.feature) + 1):
        f = res.feature[node - 1]
        if f < 0:
            continue
        below_node = np.zeros(len(X), dtype=bool)        # rows in the subtree of ``node``
        for k in range(res.depth + 1):
            below_node |= (reach >> k) == node
        t = res.threshold[node - 1]
        lo, hi = X[below_node & (X[:, f] <= t), f], X[below_node & (X[:, f] > t), f]
        assert len(lo) and len(hi)
        assert t == pytest.approx((lo.max() + hi.min()) / 2)
