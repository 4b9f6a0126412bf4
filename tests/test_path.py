"""The λ-path (optrees.trees.pareto_front): the best tree of every leaf count in one search,
against an enumeration of every tree written from the definition, and against BendOCT's own
optimum at penalties read off the path."""

from __future__ import annotations

from itertools import product

import numpy as np
import pandas as pd
import pytest

from optrees import BendOCTClassifier
from optrees._validation import OptreesInputError
from optrees.solvers.deadline import Deadline
from optrees.trees import pareto_front
from optrees.trees.search.binary.front import accuracy_front


def best_by_leaves(X, y, w, rows, depth, min_leaf):
    """{leaves: largest weighted correct} over every tree of depth <= ``depth`` on ``rows``,
    each leaf predicting its weighted majority; a split keeps ``min_leaf`` rows each side."""
    classes = np.unique(y)
    out = {1: max(w[rows][y[rows] == k].sum() for k in classes)}
    if depth == 0:
        return out
    for f in range(X.shape[1]):
        left, right = rows[X[rows, f] == 0], rows[X[rows, f] == 1]
        if len(left) < min_leaf or len(right) < min_leaf:
            continue
        a = best_by_leaves(X, y, w, left, depth - 1, min_leaf)
        b = best_by_leaves(X, y, w, right, depth - 1, min_leaf)
        for (ka, va), (kb, vb) in product(a.items(), b.items()):
            out[ka + kb] = max(out.get(ka + kb, -np.inf), va + vb)
    return out


def front_by_enumeration(X, y, w, depth, min_leaf):
    best = best_by_leaves(X, y, w, np.arange(len(y)), depth, min_leaf)
    return [max(v for k, v in best.items() if k <= budget) for budget in range(1, 2**depth + 1)]


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("seed", range(10))
def test_each_budget_is_the_enumerated_optimum(seed, backend):
    rng = np.random.default_rng(seed)
    n, F, depth = 24 + 6 * (seed >= 8), 4, 2 + seed % 2 + (seed >= 8)
    X = rng.integers(0, 2, size=(n, F))
    y = (X[:, 0] ^ X[:, 1] ^ (rng.random(n) < 0.2)).astype(int) + (seed % 3 == 0) * X[:, 2]
    w = rng.integers(1, 4, size=n).astype(float) if seed % 4 else rng.random(n) + 0.25
    min_leaf = 1 + seed % 3
    want = front_by_enumeration(X, y, w, depth, min_leaf)
    points = accuracy_front(X, y, depth, w, int(y.max()) + 1, min_leaf, backend=backend)
    assert [p.budget for p in points] == list(range(1, 2**depth + 1))
    assert all(p.optimal for p in points)
    assert [p.correct for p in points] == pytest.approx(want)
    assert all(p.leaves <= p.budget for p in points)
    # of the trees tied at a budget's optimum, the one with the fewest leaves
    best = best_by_leaves(X, y, w, np.arange(n), depth, min_leaf)
    for p in points:
        assert p.leaves == min(k for k, v in best.items() if v >= p.correct - 1e-9)
    # the tree scores what the point says, from its own predictions
    for p in points:
        leaf = p.tree.terminal(X)
        got = sum(w[(leaf == t) & (y == p.tree.label[t - 1])].sum() for t in np.unique(leaf))
        assert got == pytest.approx(p.correct)


def test_penalties_read_off_the_path_are_bendocts_optima():
    rng = np.random.default_rng(7)
    X = pd.DataFrame(rng.integers(0, 2, size=(60, 5)), columns=list("abcde"))
    y = ((X["a"] & X["b"]) | (X["c"] & (rng.random(60) < 0.7))).astype(int)
    points = pareto_front(X, y, 3)
    for lam in (0.0, 0.004, 0.02, 0.05, 0.1, 0.3):
        est = BendOCTClassifier(depth=3, lam=lam, binarizer=None, time_limit=30).fit(X, y)
        best = max(p.accuracy - lam * p.leaves for p in points)
        assert est.objective_ == pytest.approx(best)
        chosen = [p for p in points if p.lams and p.lams[0] <= lam <= p.lams[1]]
        assert chosen and chosen[0].accuracy - lam * chosen[0].leaves == pytest.approx(best)
    hull = [p for p in points if p.lams]
    assert hull[0].lams[1] == np.inf and hull[-1].lams[0] == 0.0


def test_wide_data_take_one_search_per_budget_with_the_same_front(monkeypatch):
    from optrees.trees.search.binary import front as front_module

    rng = np.random.default_rng(11)
    X = rng.integers(0, 2, size=(30, 4))
    y = (X[:, 0] ^ X[:, 1] ^ (rng.random(30) < 0.2)).astype(int) + X[:, 2] * X[:, 3]
    w = rng.integers(1, 4, size=30).astype(float)
    monkeypatch.setattr(front_module, "TRIPLE_CELLS", 0)  # every set counts as wide
    monkeypatch.setattr(front_module, "FrontSearch", None)  # (not called)
    for depth, min_leaf in ((3, 1), (3, 3), (4, 2)):
        points = accuracy_front(X, y, depth, w, 3, min_leaf)
        want = front_by_enumeration(X, y, w, depth, min_leaf)
        assert [p.correct for p in points] == pytest.approx(want)
        assert all(p.optimal for p in points)


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("min_leaf", [3, 5, 8])
def test_min_leaf_binds_and_each_budget_is_still_the_enumerated_optimum(min_leaf, backend):
    rng = np.random.default_rng(min_leaf)
    X = rng.integers(0, 2, size=(40, 5))
    X[:, 4] = X[:, 0] & X[:, 1] & X[:, 2]  # a feature with few ones: splits near the limit
    y = (X[:, 0] & X[:, 1] ^ (rng.random(40) < 0.15)).astype(int) + X[:, 3] * (X[:, 2] == 0)
    w = rng.integers(1, 3, size=40).astype(float)
    points = accuracy_front(X, y, 3, w, 3, min_leaf, backend=backend)
    want = front_by_enumeration(X, y, w, 3, min_leaf)
    assert [p.correct for p in points] == pytest.approx(want)
    unconstrained = front_by_enumeration(X, y, w, 3, 1)
    assert min_leaf < 5 or want != pytest.approx(unconstrained)  # the limit cost accuracy


class StopAfter:
    """A deadline that expires after ``calls`` looks at it (and has all the time before)."""

    def __init__(self, calls):
        self.calls = calls

    def remaining(self):
        return float("inf")

    def expired(self):
        self.calls -= 1
        return self.calls < 0


@pytest.mark.parametrize("depth, calls", [(4, 0), (4, 1), (5, 2), (5, 4), (5, 9)])
def test_a_path_stopped_midway_keeps_its_trees_scores_and_valid_bounds(depth, calls):
    rng = np.random.default_rng(4)
    X = rng.integers(0, 2, size=(80, 6))
    y = (X[:, 0] ^ X[:, 1] ^ (rng.random(80) < 0.1)).astype(int)
    exact = accuracy_front(X, y, depth)
    stopped = accuracy_front(X, y, depth, deadline=StopAfter(calls))
    assert not all(p.optimal for p in stopped)  # the deadline cut it short: said so
    for e, s in zip(exact, stopped, strict=True):
        assert s.correct <= e.correct + 1e-9 <= s.bound + 2e-9
        leaf = s.tree.terminal(X)  # the point's tree scores what it says
        got = sum(np.sum((leaf == t) & (y == s.tree.label[t - 1])) for t in np.unique(leaf))
        assert got == s.correct


def test_stopped_path_keeps_valid_bounds():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(300, 12))
    y = (X[:, 0] ^ X[:, 1] ^ (rng.random(300) < 0.1)).astype(int)
    exact = accuracy_front(X, y, 3)
    stopped = accuracy_front(X, y, 3, deadline=Deadline(0.0))
    for e, s in zip(exact, stopped, strict=True):
        assert s.correct <= e.correct + 1e-9 <= s.bound + 2e-9
        assert not s.optimal or s.correct == pytest.approx(e.correct)


def test_bad_input_is_refused():
    X = pd.DataFrame({"a": [0, 1, 0, 1], "b": [0.5, 1, 0, 1]})
    with pytest.raises(OptreesInputError, match="binary"):
        pareto_front(X, [0, 1, 0, 1], 2)
    with pytest.raises(OptreesInputError, match="depth"):
        pareto_front(X[["a"]], [0, 1, 0, 1], 9)
    with pytest.raises(OptreesInputError, match="min_samples_leaf"):
        pareto_front(X[["a"]], [0, 1, 0, 1], 2, min_samples_leaf=0)
    points = pareto_front(X, [0, 1, 0, 1], 1, binarizer="auto")
    assert points[-1].accuracy == 1.0
