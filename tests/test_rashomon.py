"""The Rashomon set (issue #46, item 3) against every tree enumerated from the definition.

The oracle lists every tree of depth <= D over the 0/1 columns, labels each leaf with its
heaviest class (ties to the last class, TreeFARMS's rule), drops trees with a split that
sends no row (or fewer than min_leaf rows) to a side and trees with a split of two leaves of
one class (TreeFARMS's "trivial extensions"), and keeps those with
misclassified weight / total weight + lam * leaves <= (1 + eps) * optimum (or optimum + eps).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError

from optrees import BendOCTClassifier, OptreesInputError
from optrees.trees import rashomon_set
from optrees.trees.solve.rashomon import RashomonSetTooLarge


def _shapes(F: int, depth: int):
    yield None
    if depth:
        for f in range(F):
            for left in _shapes(F, depth - 1):
                for right in _shapes(F, depth - 1):
                    yield (f, left, right)


def _labelled(shape, X, y, w, K, rows, min_leaf):
    """(tree with leaf labels, misclassified weight, leaves), or None when not a tree of
    the set's kind."""
    if shape is None:
        if rows.sum() < min_leaf:
            return None
        cw = np.bincount(y[rows], w[rows], minlength=K)
        label = int(K - 1 - np.argmax(cw[::-1]))
        return label, float(cw.sum() - cw[label]), 1
    f, left, right = shape
    a = _labelled(left, X, y, w, K, rows & (X[:, f] == 0), min_leaf)
    b = _labelled(right, X, y, w, K, rows & (X[:, f] == 1), min_leaf)
    if a is None or b is None:
        return None
    if isinstance(a[0], int) and isinstance(b[0], int) and a[0] == b[0]:
        return None
    return (f, a[0], b[0]), a[1] + b[1], a[2] + b[2]


def enumerated(X, y, w, K, depth, lam, eps, additive=False, min_leaf=1):
    """{tree: objective} of the Rashomon set, and the optimum, by listing every tree."""
    rows = np.ones(len(y), dtype=bool)
    objective = {}
    for shape in _shapes(X.shape[1], depth):
        got = _labelled(shape, X, y, w, K, rows, max(1, min_leaf))
        if got is not None:
            objective[got[0]] = got[1] / w.sum() + lam * got[2]
    best = min(objective.values())
    bound = best + eps if additive else (1 + eps) * best
    return {t: v for t, v in objective.items() if v <= bound + 1e-9}, best


def _uses(tree, f):
    return not isinstance(tree, int) and (tree[0] == f or _uses(tree[1], f)
                                          or _uses(tree[2], f))


def _data(seed, n, F, K=2):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, F))
    y = np.where(rng.random(n) < 0.7, (X[:, 0] ^ X[:, 1]) % K, rng.integers(0, K, n))
    return X, y.astype(int)


def _check(rs, want, best, F):
    got = list(rs.structures())
    assert len(got) == len(set(got)) == len(rs) == len(want)  # no tree twice, count exact
    assert set(got) == set(want)  # none missed, none extra
    assert rs.optimum == pytest.approx(best, abs=1e-12)
    np.testing.assert_allclose(rs.objectives, [want[t] for t in got], atol=1e-9)
    assert np.all(np.diff(rs.objectives) >= 0)
    assert [rs.structure(i) for i in range(len(rs))] == got  # indexing = iteration order
    share = [np.mean([_uses(t, f) for t in want]) for f in range(F)]
    np.testing.assert_allclose(rs.feature_importance(), share, atol=1e-12)


CASES = [  # seed, rows, features, classes, depth, lam, eps, additive, min leaf
    (0, 14, 4, 2, 2, 0.01, 0.5, False, 1),
    (1, 20, 3, 2, 3, 0.02, 0.6, False, 1),
    (2, 16, 4, 2, 2, 0.05, 0.15, True, 1),
    (3, 18, 3, 2, 3, 0.01, 0.1, True, 1),
    (4, 20, 3, 2, 3, 0.02, 1.0, False, 3),
    (5, 15, 4, 2, 2, 0.0, 2.0, False, 2),
    (6, 21, 3, 3, 3, 0.02, 0.4, False, 1),
    (7, 12, 5, 3, 2, 0.05, 0.3, True, 1),
    (8, 24, 2, 2, 1, 0.01, 5.0, False, 1),
]


@pytest.mark.parametrize("case", CASES)
def test_set_is_every_tree_within_the_bound(case):
    seed, n, F, K, depth, lam, eps, additive, min_leaf = case
    X, y = _data(seed, n, F, K)
    want, best = enumerated(X, y, np.ones(n), K, depth, lam, eps, additive, min_leaf)
    rs = rashomon_set(pd.DataFrame(X), y, depth=depth, lam=lam, epsilon=eps,
                      additive=additive, min_samples_leaf=min_leaf)
    _check(rs, want, best, F)


@pytest.mark.parametrize("integer", [True, False])
def test_weights(integer):
    X, y = _data(11, 18, 3, 2)
    rng = np.random.default_rng(3)
    w = rng.integers(1, 5, len(y)).astype(float) if integer else rng.random(len(y)) + 0.1
    want, best = enumerated(X, y, w, 2, 3, 0.01, 0.5)
    rs = rashomon_set(X, y, depth=3, lam=0.01, epsilon=0.5, sample_weight=w)
    _check(rs, want, best, 3)
    # integer weights are repeated rows
    rep = rashomon_set(np.repeat(X, w.astype(int), axis=0) if integer else X,
                       np.repeat(y, w.astype(int)) if integer else y, depth=3, lam=0.01,
                       epsilon=0.5, sample_weight=None if integer else w)
    assert list(rep.structures()) == list(rs.structures())


def test_a_tree_at_the_bound_is_in():
    # additive eps equal to lam: a tree one leaf larger with the optimum's errors is exactly
    # on the bound
    X, y = _data(12, 16, 3, 2)
    want, best = enumerated(X, y, np.ones(16), 2, 2, 0.05, 0.05, additive=True)
    assert any(abs(v - best - 0.05) < 1e-12 for v in want.values())
    rs = rashomon_set(X, y, depth=2, lam=0.05, epsilon=0.05, additive=True)
    _check(rs, want, best, 3)


def test_ties_go_to_the_last_class():
    # a = 0 holds two rows of each class: its leaf predicts 1, as the leaf of a = 1 does, so
    # the stump on a is a trivial extension (TreeFARMS counts 1 tree here, measured); so is b
    X = np.array([[0, 0], [0, 0], [0, 1], [0, 1], [1, 0], [1, 0], [1, 1], [1, 1]])
    y = np.array([0, 0, 1, 1, 1, 1, 1, 0])
    rs = rashomon_set(X, y, depth=1, lam=0.05, epsilon=2.0)
    assert list(rs.structures()) == [1]
    deeper = rashomon_set(X, y, depth=2, lam=0.05, epsilon=2.0)
    assert set(deeper.structures()) == set(enumerated(X, y, np.ones(8), 2, 2, 0.05, 2.0)[0])
    assert len(deeper) == 3  # TreeFARMS: 3


def test_trees_are_binary_trees_with_their_objective():
    X, y = _data(13, 30, 4, 2)
    rs = rashomon_set(pd.DataFrame(X, columns=list("abcd")), y, depth=2, lam=0.01,
                      epsilon=0.5)
    assert rs[0].objective == pytest.approx(rs.optimum, abs=1e-12)
    last = rs[-1]
    assert last.objective == pytest.approx(rs.objectives[-1], abs=1e-9)
    wrong = np.mean(last.predict(X) != y)
    assert last.objective == pytest.approx(wrong + 0.01 * last.n_leaves, abs=1e-12)
    assert "a" in "".join(t.export_text() for t in rs)
    drawn = rs.sample(5, random_state=0)
    assert len({str(t.export_text()) for t in drawn}) == min(5, len(rs))
    assert [t.export_text() for t in rs.sample(5, random_state=0)] == \
        [t.export_text() for t in drawn]
    assert len(rs.sample(10**6, random_state=1)) == len(rs)


def test_sampling_is_uniform():
    X, y = _data(14, 20, 3, 2)
    rs = rashomon_set(X, y, depth=2, lam=0.01, epsilon=1.0)
    assert len(rs) >= 4
    rng = np.random.default_rng(0)
    seen = np.zeros(len(rs))
    for seed in rng.integers(0, 2**31, 400):
        first = rs.sample(1, random_state=int(seed))[0]
        seen[[rs.structure(i) for i in range(len(rs))].index(_nested(first))] += 1
    expected = 400 / len(rs)
    assert np.all(np.abs(seen - expected) < 5 * np.sqrt(expected))


def _nested(tree, node=0):
    if tree.feature[node] < 0:
        return int(tree.value[node])
    return (int(tree.feature[node]), _nested(tree, tree.left[node]),
            _nested(tree, tree.right[node]))


def test_estimator_set_is_the_functions():
    X, y = _data(15, 40, 4, 3)
    w = np.random.default_rng(5).integers(1, 3, 40)
    fit = BendOCTClassifier(depth=2, lam=0.01, min_samples_leaf=2).fit(X, y, sample_weight=w)
    rs = fit.rashomon(0.3)
    want, best = enumerated(X, y, w.astype(float), 3, 2, 0.01, 0.3, min_leaf=2)
    _check(rs, want, best, 4)
    assert rs.optimum == pytest.approx(1 - fit.objective_, abs=1e-12)
    assert len(fit.rashomon(0.3, additive=True)) == len(
        enumerated(X, y, w.astype(float), 3, 2, 0.01, 0.3, True, 2)[0])


def test_a_large_fit_keeps_no_data_and_names_the_function(monkeypatch):
    """A fit over more than RASHOMON_KEEP_CELLS cells keeps no copy of its training table;
    its rashomon() says to call rashomon_set(X, y, ...), which gives the same set."""
    from optrees.estimators import trees

    X, y = _data(15, 40, 4, 3)
    want = len(BendOCTClassifier(depth=2, lam=0.01).fit(X, y).rashomon(0.3))
    monkeypatch.setattr(trees, "RASHOMON_KEEP_CELLS", X.shape[0] * X.shape[1] - 1)
    fit = BendOCTClassifier(depth=2, lam=0.01).fit(X, y)
    with pytest.raises(OptreesInputError, match="rashomon_set"):
        fit.rashomon(0.3)
    assert len(rashomon_set(X, y, depth=2, lam=0.01, epsilon=0.3)) == want


def _count_by_root_pairs(X, y, depth, lam, bound):
    """Trees of the set by root split: each side's subtrees enumerated from the definition,
    pairs counted by sorting (the root leaf not counted)."""
    n, F = X.shape
    w, rows, total = np.ones(n), np.ones(n, dtype=bool), 0
    for f in range(F):
        sides = []
        for side in (0, 1):
            got = [_labelled(s, X, y, w, 2, rows & (X[:, f] == side), 1)
                   for s in _shapes(F, depth - 1)]
            sides.append([(t, e / n + lam * leaves) for t, e, leaves in
                          (g for g in got if g is not None)])
        right = np.sort([v for _, v in sides[1]])
        for t, v in sides[0]:
            total += int(np.searchsorted(right, bound - v + 1e-9, side="right"))
            if isinstance(t, int):  # the two leaves of one class are no tree
                total -= sum(1 for u, x in sides[1] if u == t and v + x <= bound + 1e-9)
    return total


def test_count_without_listing():
    # depth 3 over 9 columns: too many trees to list in a test, counted by the DAG and by
    # root pairs of enumerated subtrees
    X, y = _data(16, 150, 9, 2)
    X[:, 8] = X[:, 2] | X[:, 3]
    rs = rashomon_set(X, y, depth=3, lam=0.002, epsilon=0.8)
    assert len(rs) > 10_000
    assert rs.stored < len(rs) / 5  # compact: far fewer stored entries than trees
    assert len(rs) == _count_by_root_pairs(X, y, 3, 0.002, rs.bound)
    values, counts = rs.objective_counts()
    assert sum(counts) == len(rs)
    i = len(rs) // 2
    assert rs[i].objective == pytest.approx(rs.objectives[i], abs=1e-9)


def test_memory_cap():
    X, y = _data(16, 200, 12, 2)
    rs = rashomon_set(X, y, depth=3, lam=0.001, epsilon=0.3, max_nodes=100)
    assert not rs.listable  # counted, not stored (tests/test_rashomon_limits.py)
    with pytest.raises(RashomonSetTooLarge, match="max_nodes=100 "):
        rs[0]


@pytest.mark.parametrize("kwargs, match", [
    ({"epsilon": -0.1}, "epsilon must be a finite number >= 0"),
    ({"epsilon": float("nan")}, "epsilon must be"),
    ({"epsilon": "0.1"}, "epsilon must be"),
    ({"depth": 0}, "depth"),
    ({"lam": 1.5}, "lam must be"),
    ({"min_samples_leaf": 0}, "min_samples_leaf must be"),
    ({"max_nodes": 0}, "max_nodes must be"),
])
def test_bad_input(kwargs, match):
    X, y = _data(17, 20, 3, 2)
    with pytest.raises(OptreesInputError, match=match):
        rashomon_set(X, y, **{"depth": 2, **kwargs})


def test_estimator_refuses_what_it_cannot_certify():
    X, y = _data(18, 30, 3, 2)
    with pytest.raises(NotFittedError):
        BendOCTClassifier(depth=2).rashomon(0.1)
    fit = BendOCTClassifier(depth=2, lam=0.01).fit(X, y)
    with pytest.raises(OptreesInputError, match="epsilon must be"):
        fit.rashomon(-1)
    with pytest.raises(OptreesInputError, match="depth <= 4"):
        BendOCTClassifier(depth=5, lam=0.01).fit(X, y).rashomon(0.1)
    fit.status_ = "time_limit"
    with pytest.raises(OptreesInputError, match="not 'optimal'"):
        fit.rashomon(0.1)
    numeric = pd.DataFrame({"a": X[:, 0], "b": np.linspace(0, 1, 30)})
    with pytest.raises(OptreesInputError, match="every threshold.* depth <= 3"):
        BendOCTClassifier(depth=4, lam=0.01).fit(numeric, y).rashomon(0.1)
    with pytest.raises(OptreesInputError, match="depth <= 3"):
        rashomon_set(numeric, y, depth=4)


def test_an_optimum_within_a_gap_tolerance_is_corrected():
    # a MIP's "optimal" tree may be worse by its gap tolerance: the DP finds the optimum
    from optrees.trees.solve.rashomon import build_set
    X, y = _data(20, 20, 3, 2)
    want, best = enumerated(X, y, np.ones(20), 2, 2, 0.01, 0.3)
    rs = build_set(X, y, np.ones(20), np.array([0, 1]), (list("abc"), list("ABC")), 2, 0.01,
                   0.3, False, 1, best + 1e-6)
    _check(rs, want, best, 3)


def _midpoint_literals(values):
    """x > t for each midpoint t of two consecutive distinct values of each column."""
    cols = []
    for j in range(values.shape[1]):
        v = np.unique(values[:, j])
        cols += [values[:, j] > t for t in (v[1:] + v[:-1]) / 2]
    return np.column_stack(cols).astype(int)


@pytest.mark.parametrize("min_leaf", [1, 3])
def test_every_threshold_of_numeric_columns(min_leaf):
    rng = np.random.default_rng(21)
    frame = pd.DataFrame({"a": rng.integers(0, 4, 24), "b": rng.random(24).round(1)})
    y = ((frame.a > 1) ^ (frame.b > 0.5)).astype(int).to_numpy().copy()
    y[:3] = 1 - y[:3]
    L = _midpoint_literals(frame.to_numpy(dtype=float))
    want, best = enumerated(L, y, np.ones(24), 2, 2, 0.02, 0.5, min_leaf=min_leaf)
    rs = rashomon_set(frame, y, depth=2, lam=0.02, epsilon=0.5, min_samples_leaf=min_leaf)
    _check(rs, want, best, L.shape[1])
    assert np.array_equal(rs.encode(frame), L)
    assert rs[0].objective == pytest.approx(
        np.mean(rs[0].predict(rs.encode(frame)) != y) + 0.02 * rs[0].n_leaves, abs=1e-12)
    fit = BendOCTClassifier(depth=2, lam=0.02, min_samples_leaf=min_leaf).fit(frame, y)
    assert fit.thresholds_ == "all"
    assert list(fit.rashomon(0.5).structures()) == list(rs.structures())


def test_unproved_optimum_is_refused(monkeypatch):
    from optrees.trees.solve import rashomon as module
    real = module.solve_subtree

    def stopped(*args, **kwargs):
        found = real(*args, **kwargs)
        found.optimal = False
        return found

    monkeypatch.setattr(module, "solve_subtree", stopped)
    X, y = _data(19, 20, 3, 2)
    with pytest.raises(OptreesInputError, match="not proved"):
        rashomon_set(X, y, depth=2)
