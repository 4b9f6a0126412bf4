"""The Rashomon set's limits (issue #46, item 3): what a fit keeps for ``rashomon()``, a
count beyond the listing cap, ``max_leaves``, the fit's side objectives.  Oracles enumerate
every tree from the definition (:func:`test_rashomon.enumerated`)."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
from test_rashomon import (
    _check,
    _count_by_root_pairs,
    _data,
    _labelled,
    _midpoint_literals,
    _shapes,
    enumerated,
)

from optrees import BendersOCTClassifier, BendOCTClassifier, Binarizer, OptreesInputError
from optrees.trees import rashomon_set
from optrees.trees.solve.rashomon import RashomonSetTooLarge


def test_a_fit_encodes_its_table_once(monkeypatch):
    """BendOCT keeps the matrix its fit encoded: no transform more than the same fit of
    BendersOCT (penalty='leaves'), which keeps nothing; the set is the enumerated one."""
    from optrees.encoding import binary

    calls = []
    real = binary.Encoding.transform
    monkeypatch.setattr(binary.Encoding, "transform",
                        lambda self, df: calls.append(1) or real(self, df))
    real_bin = Binarizer.transform
    monkeypatch.setattr(Binarizer, "transform",
                        lambda self, df: calls.append(1) or real_bin(self, df))
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"a": rng.integers(0, 5, 40), "b": rng.integers(0, 3, 40)})
    y = ((frame.a > 2) ^ (frame.b > 0)).to_numpy().astype(int)
    y[:4] = 1 - y[:4]
    counts = []
    for cls, kw in ((BendersOCTClassifier, {"penalty": "leaves"}), (BendOCTClassifier, {})):
        for binarizer in (Binarizer(n_bins=3), "auto"):
            calls.clear()
            cls(depth=2, lam=0.02, binarizer=binarizer, **kw).fit(frame, y)
            counts.append(len(calls))
    assert counts[:2] == counts[2:]
    fit = BendOCTClassifier(depth=2, lam=0.02, binarizer=Binarizer(n_bins=3)).fit(frame, y)
    X01 = fit.binarizer_.transform(frame)
    want, best = enumerated(X01, y, np.ones(40), 2, 2, 0.02, 0.4)
    _check(fit.rashomon(0.4), want, best, X01.shape[1])


def test_a_zero_one_fit_keeps_its_matrix():
    X, y = _data(3, 30, 4, 2)
    fit = BendOCTClassifier(depth=2, lam=0.01).fit(X, y)
    want, best = enumerated(X, y, np.ones(30), 2, 2, 0.01, 0.5)
    _check(fit.rashomon(0.5), want, best, 4)
    big = BendOCTClassifier(depth=2, lam=0.01).fit(np.tile(X, (40, 25)), np.tile(y, 40))
    plain = len(pickle.dumps(big._rashomon_data))
    packed = len(pickle.dumps(big))
    assert packed < plain / 2  # the 0/1 matrix pickled as bits
    again = pickle.loads(pickle.dumps(fit))
    _check(again.rashomon(0.5), want, best, 4)  # and read back whole


def test_a_set_too_large_to_list_is_counted():
    """Past max_nodes the set is counted under the cap (exact, the root pairs of subtrees
    enumerated from the definition) and every listing refuses, naming the count and cap."""
    X, y = _data(16, 150, 9, 2)
    X[:, 8] = X[:, 2] | X[:, 3]
    listed = rashomon_set(X, y, depth=3, lam=0.002, epsilon=0.8)
    want = _count_by_root_pairs(X, y, 3, 0.002, listed.bound)
    assert len(listed) == want > 10_000 and listed.listable
    for cap in (listed.stored - 1, 200, 40):  # 40: the cache is emptied many times
        counted = rashomon_set(X, y, depth=3, lam=0.002, epsilon=0.8, max_nodes=cap)
        assert not counted.listable and len(counted) == want
        values, counts = counted.objective_counts()
        assert counted.stored <= max(cap, len(values))  # the root's histogram is the answer
        assert sum(counts) == want
        np.testing.assert_array_equal(values, listed.objective_counts()[0])
        message = f"holds {want:,} trees .* max_nodes={cap:,}"
        for name, args in (("__getitem__", (0,)), ("__iter__", ()), ("structures", ()),
                           ("sample", (1,)), ("feature_importance", ())):
            with pytest.raises(RashomonSetTooLarge, match=message):
                getattr(counted, name)(*args)
        assert "counted, not stored" in repr(counted)


def enumerated_leaves(X, y, w, K, depth, lam, eps, max_leaves, additive=False, min_leaf=1):
    """{tree: objective} of the trees of at most ``max_leaves`` leaves within the bound of
    the best of them, and that best, by listing every tree (the definition)."""
    rows, objective = np.ones(len(y), dtype=bool), {}
    for shape in _shapes(X.shape[1], depth):
        got = _labelled(shape, X, y, w, K, rows, min_leaf)
        if got is not None and got[2] <= max_leaves:
            objective[got[0]] = got[1] / w.sum() + lam * got[2]
    best = min(objective.values())
    bound = best + eps if additive else (1 + eps) * best
    return {t: v for t, v in objective.items() if v <= bound + 1e-9}, best


MAX_LEAVES_CASES = [  # seed, rows, features, classes, depth, lam, eps, additive, max leaves
    (30, 20, 4, 2, 2, 0.01, 0.8, False, 2),
    (31, 20, 4, 2, 2, 0.0, 1.0, False, 3),
    (32, 24, 3, 2, 3, 0.01, 0.6, False, 3),
    (33, 24, 3, 3, 3, 0.02, 0.5, True, 5),
    (34, 22, 3, 2, 3, 0.0, 0.7, False, 4),
    (35, 18, 3, 2, 3, 0.05, 2.0, False, 1),
    (37, 16, 3, 2, 1, 0.01, 9.0, False, 1),
]


@pytest.mark.parametrize("case", MAX_LEAVES_CASES)
def test_max_leaves_is_every_tree_of_so_many_leaves(case):
    seed, n, F, K, depth, lam, eps, additive, most = case
    X, y = _data(seed, n, F, K)
    want, best = enumerated_leaves(X, y, np.ones(n), K, depth, lam, eps, most, additive)
    rs = rashomon_set(X, y, depth=depth, lam=lam, epsilon=eps, additive=additive,
                      max_leaves=most)
    _check(rs, want, best, F)
    assert max(t.n_leaves for t in rs) <= most
    counted = rashomon_set(X, y, depth=depth, lam=lam, epsilon=eps, additive=additive,
                           max_leaves=most, max_nodes=5)
    assert counted.listable == (rs.stored <= 5) and len(counted) == len(want)


def test_the_estimators_set_keeps_its_max_leaves():
    X, y = _data(36, 40, 4, 3)
    w = np.random.default_rng(6).integers(1, 4, 40).astype(float)
    fit = BendOCTClassifier(depth=3, lam=0.005, max_leaves=4, min_samples_leaf=2).fit(
        X, y, sample_weight=w)
    want, best = enumerated_leaves(X, y, w, 3, 3, 0.005, 0.3, 4, min_leaf=2)
    rs = fit.rashomon(0.3)
    _check(rs, want, best, 4)
    assert rs.optimum == pytest.approx(1 - fit.objective_, abs=1e-12)
    assert rs.max_leaves == 4
    assert rashomon_set(X, y, depth=3, max_leaves=8).max_leaves is None  # every tree keeps
    with pytest.raises(OptreesInputError, match="max_leaves must be"):
        rashomon_set(X, y, depth=3, max_leaves=0)


@pytest.mark.parametrize("min_leaf", [1, 2])
def test_every_threshold_at_depth_3(min_leaf):
    """Over every threshold at depth 3: the trees over the literals x > t at each midpoint of
    two consecutive distinct values (enumerated), from the function and the estimator."""
    rng = np.random.default_rng(40)
    frame = pd.DataFrame({"a": rng.integers(0, 3, 26), "b": rng.choice([0.1, 0.5, 0.9], 26)})
    y = ((frame.a > 0) ^ (frame.b > 0.3)).to_numpy().astype(int)
    y[:5] = 1 - y[:5]
    L = _midpoint_literals(frame.to_numpy(dtype=float))
    assert L.shape[1] == 4
    want, best = enumerated(L, y, np.ones(26), 2, 3, 0.01, 0.5, min_leaf=min_leaf)
    rs = rashomon_set(frame, y, depth=3, lam=0.01, epsilon=0.5, min_samples_leaf=min_leaf)
    _check(rs, want, best, 4)
    assert np.array_equal(rs.encode(frame), L)
    fit = BendOCTClassifier(depth=3, lam=0.01, min_samples_leaf=min_leaf).fit(frame, y)
    assert fit.thresholds_ == "all"
    assert list(fit.rashomon(0.5).structures()) == list(rs.structures())


def test_too_many_literals_at_depth_3_is_refused():
    frame = pd.DataFrame({"a": np.arange(80) / 7.0, "b": np.arange(80) % 77 / 3.0})
    y = (np.arange(80) % 3 == 0).astype(int)
    with pytest.raises(OptreesInputError, match="15[0-9] literals, more than the 150 .* "
                                                "depth 3"):
        rashomon_set(frame, y, depth=3)
    assert len(rashomon_set(frame, y, depth=2, epsilon=0.01)) >= 1


@pytest.mark.parametrize("kwargs, match", [
    ({"misclassification_costs": [[0, 1], [3, 0]]}, "misclassification_costs: the Rashomon"),
])
def test_a_side_objective_is_refused_by_name(kwargs, match):
    """Never a set that ignores the fit's constraint or objective: one error naming it."""
    X, y = _data(41, 60, 4, 2)
    X = pd.DataFrame(X, columns=["x0", "x1", "x2", "x3"])
    fit = BendOCTClassifier(depth=2, lam=0.01, **kwargs).fit(X, y)
    assert fit.status_ == "optimal"
    with pytest.raises(OptreesInputError, match=match):
        fit.rashomon(0.1)


@pytest.mark.parametrize("seed, lam, eps, additive, most", [
    (0, 0.08, 0.1, True, None), (1, 0.15, 0.5, False, None), (2, 0.08, 0.1, True, None),
    (1, 0.1, 0.2, True, 4),
])
def test_a_large_lam_bounds_the_depth(seed, lam, eps, additive, most):
    """When lam makes the leaves most of the budget, a subproblem holds no tree deeper than
    the leaves it can pay for; the trees at that edge are all there (enumerated)."""
    X, y = _data(seed, 16, 3, 2)
    if most is None:
        want, best = enumerated(X, y, np.ones(16), 2, 3, lam, eps, additive)
    else:
        want, best = enumerated_leaves(X, y, np.ones(16), 2, 3, lam, eps, most, additive)
    rs = rashomon_set(X, y, depth=3, lam=lam, epsilon=eps, additive=additive, max_leaves=most)
    _check(rs, want, best, 3)


def test_categorical_columns_are_one_hot_as_bendoct_reads_them():
    """A frame of categories gives the set of its one-hot 0/1 matrix (pandas' own dummies):
    the same count and objectives, each literal named by its category."""
    rng = np.random.default_rng(4)
    X = pd.DataFrame({"colour": rng.choice(["red", "green", "blue"], 60),
                      "size": pd.Categorical(rng.choice([1, 2, 3], 60))})
    y = np.where((X["colour"] == "red") | (X["size"] == 3), "yes", "no")
    y[rng.random(60) < 0.1] = "yes"
    raw = rashomon_set(X, y, depth=2, lam=0.02, epsilon=0.2)
    dummies = pd.get_dummies(X.astype(str)).astype(int)
    coded = rashomon_set(dummies, y, depth=2, lam=0.02, epsilon=0.2)
    assert len(raw) == len(coded) > 1
    np.testing.assert_allclose(sorted(t.objective for t in raw),
                               sorted(t.objective for t in coded))
    assert any(name.startswith("colour = ") for name in raw.feature_importance().index)
