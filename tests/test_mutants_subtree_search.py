"""Tests that kill mutants of the 0/1 subtree search's bounds and pruning and of its depth-2
kernel (subtrees/search.py, counts.py; ``bench/mutation.py subtree-search``,
docs/testing.md) which test_subtrees.py lets live.  Oracles: the leaf-support bound and the
best leaf written from their definitions in numpy."""

from __future__ import annotations

import numpy as np
import pytest

from optrees.trees.subtrees import solve_subtree


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
@pytest.mark.parametrize("L", [0.0, 1.0, 3.0])
def test_a_search_that_cannot_beat_its_lower_bound_returns_the_leaf_support_bound(depth, L):
    """A subtree's value is at most its best leaf or the weight of its rows minus two leaf
    penalties (OSDT's leaf-support bound, the module's docstring): when the caller's lower
    bound is above that, the search stops at once with the best leaf and exactly that bound
    (a looser or tighter number would be a wrong certificate)."""
    rng = np.random.default_rng(depth)
    X, y = rng.integers(0, 2, (30, 4)), rng.integers(0, 3, 30)
    w = rng.integers(1, 4, 30).astype(float)
    leaf = np.bincount(y, weights=w).max() - L
    support = max(leaf, w.sum() - 2 * L)
    sol = solve_subtree(X, y, depth, L, sample_weight=w, lower_bound=support + 1.0)
    assert not sol.optimal
    assert sol.score == pytest.approx(leaf) and sol.bound == pytest.approx(support)
    capped = solve_subtree(X, y, depth, L, sample_weight=w, lower_bound=support + 1.0,
                           upper_bound=support - 0.5)
    assert capped.bound == pytest.approx(max(leaf, support - 0.5))


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_data_without_features_gives_the_best_leaf(backend):
    """No column to split on: the best leaf, optimal (the depth-2 kernel's ``F == 0`` exit;
    ``F < 0`` reaches an argmax over no feature)."""
    X = np.zeros((5, 0), dtype=int)
    y = np.array([0, 1, 1, 0, 1])
    for depth in (1, 2, 3):
        sol = solve_subtree(X, y, depth, 0.5, backend=backend)
        assert sol.optimal and sol.score == pytest.approx(3 - 0.5)
        assert np.all(sol.tree.split == -1)
