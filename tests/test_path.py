"""The λ-path (optrees.trees.pareto_front): the best tree of every leaf count in one search,
against an enumeration of every tree written from the definition, and against BendOCT's own
optimum at penalties read off the path."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from deadlines import StopAfter
from oracles import best_by_leaves, front_by_enumeration

from optrees import BendOCTClassifier
from optrees._validation import OptreesInputError
from optrees.solvers.deadline import Deadline
from optrees.trees import pareto_front
from optrees.trees.search.binary import front as front_module
from optrees.trees.search.binary.front import accuracy_front
from optrees.trees.search.binary.leaf_fronts import FrontSearch
from optrees.trees.solve.path import PathFront, front_points
from optrees.trees.solve.regression_path import RegressionFront


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


@pytest.mark.parametrize("depth, seed", [(4, 0), (4, 2), (4, 5), (5, 3)])
def test_root_features_skipped_by_their_bounds_lose_no_budget(depth, seed, monkeypatch):
    """Near-copies of the features and an almost pure target: the similarity bounds of
    :mod:`.front_bounds` skip root features of depth >= 4 nodes; every budget stays the
    enumerated optimum (with ties and weights)."""
    from optrees.trees.search.binary import front_bounds

    rng = np.random.default_rng(seed)
    n, F = 40, 6 - (depth == 5) * 2
    base = rng.integers(0, 2, size=(n, 3))
    X = np.concatenate([base, base ^ (rng.random((n, 3)) < 0.1)], axis=1)[:, :F]
    y = (base[:, 0] | (rng.random(n) < 0.05)).astype(int)
    w = rng.integers(1, 3, size=n).astype(float) if seed % 2 else np.ones(n)
    skipped = []
    improve = front_bounds.RootBounds.can_improve

    def counting(self, feats, best, tol, known=1):
        keep = improve(self, feats, best, tol, known)
        skipped.append(int((~keep).sum()))
        return keep

    monkeypatch.setattr(front_bounds.RootBounds, "can_improve", counting)
    monkeypatch.setattr(FrontSearch, "_group", lambda self: 1)  # (as on wide data)
    points = accuracy_front(X, y, depth, w, 2, 1)
    assert sum(skipped) > 0  # the bounds did skip features: the case tests them
    assert [p.correct for p in points] == pytest.approx(front_by_enumeration(X, y, w, depth, 1))
    assert all(p.optimal for p in points)


@pytest.mark.parametrize("seed", range(4))
def test_root_bounds_hold_every_side_front_and_bind(seed):
    """RootBounds after every feature's side fronts are added: each side's bound at each
    leaf count is at least that side's enumerated optimum, and it is below the side's
    weight somewhere (the similarity terms work)."""
    from optrees.trees.search.binary.front_bounds import RootBounds

    rng = np.random.default_rng(seed)
    n, F, depth = 36, 5, 2
    base = rng.integers(0, 2, size=(n, 3))
    X = np.concatenate([base, base[:, :2] ^ (rng.random((n, 2)) < 0.15)], axis=1)
    y = (base[:, 0] ^ (rng.random(n) < 0.1)).astype(int) + base[:, 2] * (seed % 2)
    w = rng.integers(1, 4, size=n).astype(float) if seed > 1 else rng.random(n) + 0.5
    K = int(y.max()) + 1
    h = 2 ** depth
    true = np.empty((2, F, h))
    for f in range(F):
        for s in (0, 1):
            best = best_by_leaves(X, y, w, np.flatnonzero(X[:, f] == s), depth, 1)
            true[s, f] = [max(v for k, v in best.items() if k <= j) for j in range(1, h + 1)]
    D = np.stack([X.T.astype(float) @ np.where(y == k, w, 0.0) for k in range(K)])
    t = np.bincount(y, weights=w, minlength=K)
    bounds = RootBounds(X.T.astype(bool), w, t, D, h, similar=True)
    assert bounds.ub[:, :, 0] == pytest.approx(true[:, :, 0])  # one leaf: exact
    for g in range(F):
        bounds.add(g, true[0, g], true[1, g])
    assert np.all(bounds.ub >= true - 1e-9)
    side_weight = np.stack([(X == s).T @ w for s in (0, 1)])
    assert (bounds.ub[:, :, 1:] < side_weight[:, :, None] - 1e-9).any()
    # a root that cannot beat the best front found is skipped, one that can is kept
    top = np.full(2 * h, w.sum())
    assert not bounds.can_improve(np.arange(F), top, 1e-9).any()
    low = np.full(2 * h, t.max())
    assert bounds.can_improve(np.arange(F), low, 1e-9).all()


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


@pytest.mark.parametrize("per_budget", [False, True])
def test_complete_says_whether_the_time_limit_stopped_the_search(monkeypatch, per_budget):
    """A path's ``complete`` (the same attribute and meaning as a regression front's): its
    search finished before the deadline.  Oracle: a StopAfter deadline that never said
    "expired" stopped nothing.  ``per_budget``: the wide-data route, one budgeted search
    per leaf count."""
    depth = 3 if per_budget else 4
    if per_budget:
        monkeypatch.setattr(front_module, "TRIPLE_CELLS", 0.0)
    rng = np.random.default_rng(4)
    X = rng.integers(0, 2, size=(80, 6))
    y = (X[:, 0] ^ X[:, 1] ^ (rng.random(80) < 0.1)).astype(int)
    names = ([f"f{j}" for j in range(6)], [f"not f{j}" for j in range(6)])
    seen = set()
    for calls in (0, 1, 2, 5, 13, 30, 10**6):
        deadline = StopAfter(calls)
        front = front_points(X, y, None, np.array([0, 1]), names, depth, 1, deadline)
        stopped = deadline.left < 0
        assert isinstance(front, PathFront) and front.complete is (not stopped)
        assert accuracy_front(X, y, depth, deadline=StopAfter(calls)).complete is front.complete
        if front.complete:
            assert all(p.optimal for p in front)
        seen.add(stopped)
    assert seen == {False, True}
    assert pareto_front(pd.DataFrame(X), y, 2, time_limit=None).complete
    assert issubclass(RegressionFront, PathFront)

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


@pytest.mark.parametrize("density", [0.1, 0.9])
def test_triple_counts_are_the_weighted_class_triples(density):
    """The compiled triple counts against their definition, ``T[k, f, a, b] = sum_i [y_i =
    k] w_i x_if x_ia x_ib``, on sparse rows (every order counted) and dense ones (each
    unordered triple once, then copied to its orders)."""
    from optrees.trees.search.binary.data import BinaryData
    from optrees.trees.search.binary.front_kernels import triple_counts

    rng = np.random.default_rng(int(density * 10))
    X = (rng.random((50, 7)) < density).astype(int)
    X[:, 0] = 1 - X[:, 1]  # (no two columns alike: BinaryData keeps them all)
    y = rng.integers(0, 3, size=50)
    w = rng.integers(1, 4, size=50).astype(float)
    d = BinaryData.make(X, y, w, 3)
    rows = np.sort(rng.choice(d.X.shape[0], 30, replace=False)).astype(np.int64)
    got = triple_counts(d.indptr, d.indices, d.y, d.w, rows, 3, d.n_features)
    Xr, yr, wr = d.X[rows].astype(float), d.y[rows], d.w[rows]
    want = np.stack([np.einsum("i,if,ia,ib->fab", wr * (yr == k), Xr, Xr, Xr)
                     for k in range(3)])
    assert got == pytest.approx(want)


def test_trees_labelled_together_are_each_trees_majority_labels_and_score():
    """labelled_many (a front's trees labelled level by level at once) against the
    definition: each row walks its tree (x_f = 0 left), each leaf predicts its heaviest
    class (ties: the lowest), the score is the leaves' heaviest class weight summed."""
    from optrees.trees.search.binary.data import BinaryData
    from optrees.trees.search.binary.tree import labelled_many

    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(60, 5))
    y = rng.integers(0, 3, size=60)
    w = rng.integers(1, 4, size=60).astype(float)
    d = BinaryData.make(X, y, w, 3)
    rows = np.sort(rng.choice(d.X.shape[0], 40, replace=False))
    nodes = [None, (0, None, None), (1, (2, None, None), None),
             (3, (0, (4, None, None), None), (1, None, (2, None, None)))]
    for node, (tree, score) in zip(nodes, labelled_many(nodes, 3, d, rows), strict=True):
        leaves: dict[tuple, np.ndarray] = {}
        for i in rows:
            sub, path = node, ()
            while sub is not None:
                side = int(d.X[i, sub[0]])
                sub, path = sub[1 + side], path + (side,)
            leaves[path] = leaves.get(path, np.zeros(3)) + np.eye(3)[d.y[i]] * d.w[i]
        assert score == pytest.approx(sum(c.max() for c in leaves.values()))
        got = tree.terminal(d.X[rows])
        for i, t in zip(rows, got, strict=True):
            sub, path = node, ()
            while sub is not None:
                side = int(d.X[i, sub[0]])
                sub, path = sub[1 + side], path + (side,)
            assert tree.label[t - 1] == int(np.argmax(leaves[path]))


@pytest.mark.parametrize("seed", range(40))
def test_hull_lams_are_where_each_point_is_the_penalised_optimum(seed):
    """``hull_lams`` on random (leaves, gain) points, stopped fronts' kind included (more
    leaves and less gain): inside a point's interval it maximises gain - lam * leaves over
    every point (checked in numpy at the interval's midpoint); at a random lam the
    maximiser with the fewest leaves has an interval holding that lam."""
    from types import SimpleNamespace

    from optrees.trees.solve.path import hull_lams

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 9))
    leaves = rng.integers(1, 9, n)
    gain = np.round(rng.random(n), 2)
    points = [SimpleNamespace(leaves=int(k), gain=float(g), lams=None)
              for k, g in zip(leaves, gain, strict=True)]
    hull_lams(points, lambda p: p.gain)
    for p in points:
        if p.lams is None:
            continue
        low, high = p.lams
        assert 0.0 <= low < high
        lam = (low + min(high, low + 2.0)) / 2
        assert p.gain - lam * p.leaves >= np.max(gain - lam * leaves) - 1e-12
    for lam in rng.random(5):
        value = gain - lam * leaves
        best = np.flatnonzero(value >= value.max() - 1e-12)
        fewest = best[np.argmin(leaves[best])]
        low, high = points[fewest].lams
        assert low - 1e-12 <= lam <= high + 1e-12


@pytest.mark.parametrize("min_leaf", [1, 4, 8])
def test_rows_of_weight_zero_are_as_if_absent(min_leaf):
    """A weight-0 row counts in no leaf's size and moves no accuracy: the front equals the
    enumeration on the other rows (it once counted towards ``min_samples_leaf``)."""
    rng = np.random.default_rng(5)
    n, depth = 30, 2
    X = rng.integers(0, 2, size=(n, 4))
    y = (X[:, 0] ^ X[:, 1] ^ (rng.random(n) < 0.2)).astype(int)
    w = rng.integers(1, 4, size=n).astype(float)
    ghosts = rng.integers(0, 2, size=(12, 4))  # weightless rows that would fill small leaves
    Xg, yg = np.vstack([X, ghosts]), np.concatenate([y, rng.integers(0, 2, size=12)])
    wg = np.concatenate([w, np.zeros(12)])
    want = front_by_enumeration(X, y, w, depth, min_leaf)
    points = pareto_front(pd.DataFrame(Xg), yg, depth, sample_weight=wg,
                          min_samples_leaf=min_leaf)
    assert [p.accuracy * w.sum() for p in points] == pytest.approx(want)
    for p in points:  # leaf sizes over the weighted rows only
        sizes = np.bincount(p.tree.apply(pd.DataFrame(X)))
        assert sizes[sizes > 0].min() >= min_leaf
