"""The deep search's start of two stacked optima (``entry._blocks``): a search stopped right
after it returns at least the stacked tree, whose value the test computes from the definition
(weighted majority leaves, every tree enumerated); its bound stays above the optimum."""

from __future__ import annotations

from functools import cache

import numpy as np
import pandas as pd
import pytest
from deadlines import Until
from oracles import exhaustive_objective

from optrees import BendOCTClassifier
from optrees.trees.search.binary import entry
from optrees.trees.search.binary.entry import solve_subtree


def _instance(seed: int):
    rng = np.random.default_rng(seed)
    X = (rng.random((36, 5)) < 0.5).astype(np.int8)
    y = rng.integers(0, 2, 36)
    w = rng.uniform(0.5, 1.5, 36)  # real weights: every optimum unique
    return X, y, w


def _stacked(X, y, w, depth: int, lam: float) -> float:
    """The best depth-ceil(depth/2) tree, each leaf replaced by the best subtree of the rest
    of the depth on its rows: the sum of those subtrees' values (weight of the rows their
    leaves' majority classes get right, minus lam per leaf)."""
    def leaf(rows):
        return max(w[rows][y[rows] == k].sum() for k in (0, 1)) - lam

    @cache
    def best(rows: tuple, d: int):
        r = np.array(rows, dtype=int)
        value, leaves = leaf(r), [rows]
        for f in range(X.shape[1]) if d else []:
            right = X[r, f] == 1
            if right.all() or not right.any():
                continue
            a, b = best(tuple(r[~right]), d - 1), best(tuple(r[right]), d - 1)
            if a[0] + b[0] > value + 1e-12:
                value, leaves = a[0] + b[0], a[1] + b[1]
        return value, leaves

    top = -(-depth // 2)
    return sum(best(rows, depth - top)[0] for rows in best(tuple(range(len(y))), top)[1])


@pytest.mark.parametrize("seed,depth", [(0, 5), (1, 5), (2, 6), (3, 5)])
def test_a_search_stopped_after_the_blocks_keeps_their_tree(monkeypatch, seed, depth):
    X, y, w = _instance(seed)
    lam = 0.3
    deadline = Until()
    blocks = entry._blocks

    def then_stop(*args, **kw):  # the deep search after the blocks gets no time
        out = blocks(*args, **kw)
        deadline.over = True
        return out

    monkeypatch.setattr(entry, "_blocks", then_stop)
    got = solve_subtree(X, y, depth, lam, w, deadline=deadline)
    stacked = _stacked(X, y, w, depth, lam)
    assert got.score == pytest.approx(stacked, abs=1e-9)
    top = -(-depth // 2)
    assert got.stats["start"] == f"stacked subtrees (depth {top} + {depth - top}), returned"
    optimum = exhaustive_objective(X, y, 2, depth, lam / w.sum(), penalty="leaves",
                                   sample_weight=w) * w.sum()
    assert got.bound >= optimum - 1e-9 >= got.score - 2e-9


def test_no_blocks_below_their_depth_or_under_a_leaf_budget(monkeypatch):
    X, y, w = _instance(0)
    calls = []
    blocks = entry._blocks
    monkeypatch.setattr(entry, "_blocks",
                        lambda *a, **k: calls.append(a[3:]) or blocks(*a, **k))
    solve_subtree(X, y, 4, 0.3, w)
    solve_subtree(X, y, 5, 0.3, w, max_leaves=6)
    assert all(blocks(None, None, None, d, b) is None for d, b in [(4, None), (5, 6)])
    found = solve_subtree(X, y, 5, 0.3, w)
    assert calls[-1] == (5, None)
    assert found.optimal and found.stats["start"].startswith("stacked subtrees (depth 3 + 2)")
    assert "start" not in solve_subtree(X, y, 4, 0.3, w).stats


def test_the_estimator_names_the_start_in_its_stats():
    X, y, w = _instance(1)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    deep = BendOCTClassifier(depth=5, lam=0.01, time_limit=60).fit(frame, y, sample_weight=w)
    assert deep.stats_["search_start"].startswith("stacked subtrees (depth 3 + 2), ")
    assert "search_start" not in BendOCTClassifier(depth=3, lam=0.01).fit(frame, y).stats_
