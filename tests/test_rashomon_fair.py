"""The fair Rashomon set (issue #46, item 3) against every labelled tree enumerated from the
definition.

The oracle lists every tree of depth <= D over the 0/1 columns with every assignment of
classes to its leaves, drops trees with a leaf of fewer than min_leaf rows and trees with a
split of two leaves of one label, and computes for each:
- its objective, misclassified weight / total weight + lam * leaves;
- its gap: in each cell of rows (all rows; or the rows of the positive class for equal
  opportunity; both classes' rows for equalized odds), the weighted rate of positive
  predictions of each group, largest minus smallest.
The fair optimum is the least objective of a tree with gap <= cap; the set is every tree
with gap <= cap and objective <= (1 + eps) * optimum (or optimum + eps).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from test_rashomon import _midpoint_literals, _shapes

from optrees import BendOCTClassifier
from optrees.trees.solve.fair_rashomon import FairRashomonSet
from optrees.trees.solve.rashomon import RashomonSetTooLarge


def _leaf_rows(shape, X, rows):
    """Row masks of the shape's leaves, left to right (x_f = 0 left)."""
    if shape is None:
        return [rows]
    f, left, right = shape
    return _leaf_rows(left, X, rows & (X[:, f] == 0)) + \
        _leaf_rows(right, X, rows & (X[:, f] == 1))


def _label(shape, labels):
    if shape is None:
        return next(labels)
    f, left, right = shape
    return (f, _label(left, labels), _label(right, labels))


def _trivial(tree):
    """Whether some split has two leaves of one label."""
    if isinstance(tree, int):
        return False
    _, a, b = tree
    return (isinstance(a, int) and isinstance(b, int) and a == b) or _trivial(a) or _trivial(b)


def _gap(pred, y, g, w, kind, positive=1):
    truth = y == positive
    cells = {"statistical_parity": [np.ones(len(y), bool)], "equal_opportunity": [truth],
             "equalized_odds": [truth, ~truth]}[kind]
    worst = 0.0
    for cell in cells:
        rates = [np.sum(w[cell & (g == a)] * (pred[cell & (g == a)] == positive))
                 / np.sum(w[cell & (g == a)]) for a in np.unique(g) if (cell & (g == a)).any()]
        worst = max(worst, max(rates) - min(rates))
    return worst


def enumerated(X, y, g, w, K, depth, lam, eps, cap, kind, additive=False, min_leaf=1):
    """{labelled tree: (objective, gap)} of the fair set, and the fair optimum."""
    members = {}
    for shape in _shapes(X.shape[1], depth):
        leaves = _leaf_rows(shape, X, np.ones(len(y), bool))
        if min(r.sum() for r in leaves) < min_leaf:
            continue
        for labels in itertools.product(range(K), repeat=len(leaves)):
            tree = _label(shape, iter(labels))
            if _trivial(tree):
                continue
            pred = np.zeros(len(y), int)
            for rows, c in zip(leaves, labels, strict=True):
                pred[rows] = c
            gap = _gap(pred, y, g, w, kind)
            if gap <= cap + 1e-9:
                members[tree] = (w[pred != y].sum() / w.sum() + lam * len(leaves), gap)
    best = min(v[0] for v in members.values())
    bound = best + eps if additive else (1 + eps) * best
    return {t: v for t, v in members.items() if v[0] <= bound + 1e-9}, best


def _data(seed, n, F, groups=2, K=2):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, F))
    g = rng.integers(0, groups, n)
    # the label leans on the group: an accurate tree is unfair
    y = np.where(rng.random(n) < 0.75, (X[:, 0] | (g == 1)) % K, rng.integers(0, K, n))
    return X, y.astype(int), g


CASES = [  # seed, rows, features, groups, depth, lam, eps, additive, min leaf, notion, cap
    (0, 30, 3, 2, 2, 0.01, 0.5, False, 1, "statistical_parity", 0.1),
    (1, 24, 3, 2, 1, 0.02, 1.0, False, 1, "statistical_parity", 0.05),
    (2, 28, 3, 3, 2, 0.01, 0.15, True, 1, "statistical_parity", 0.15),
    (3, 30, 3, 2, 2, 0.02, 0.4, False, 3, "equal_opportunity", 0.1),
    (4, 26, 3, 2, 2, 0.0, 0.3, False, 1, "equalized_odds", 0.2),
    (5, 22, 2, 2, 3, 0.01, 0.3, False, 1, "statistical_parity", 0.1),
]


def _fit(X, y, g, depth, lam, kind, cap, min_leaf=1, w=None):
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    fit = BendOCTClassifier(depth=depth, lam=lam, fairness=kind, epsilon=cap,
                            min_samples_leaf=min_leaf, time_limit=60)
    return fit.fit(frame, y, sample_weight=w, groups=g)


@pytest.mark.parametrize("case", CASES)
def test_fair_set_is_every_fair_labelled_tree_within_the_bound(case):
    seed, n, F, G, depth, lam, eps, additive, min_leaf, kind, cap = case
    X, y, g = _data(seed, n, F, G)
    w = np.ones(n)
    want, best = enumerated(X, y, g, w, 2, depth, lam, eps, cap, kind, additive, min_leaf)
    fit = _fit(X, y, g, depth, lam, kind, cap, min_leaf)
    assert fit.status_ == "optimal"
    rs = fit.rashomon(eps, additive=additive)
    assert isinstance(rs, FairRashomonSet)
    got = list(rs.structures())
    assert len(got) == len(set(got)) == len(rs) == len(want)  # no tree twice, count exact
    assert set(got) == set(want)  # none missed, none extra
    assert rs.optimum == pytest.approx(best, abs=1e-9)
    np.testing.assert_allclose(rs.objectives, [want[t][0] for t in got], atol=1e-9)
    np.testing.assert_allclose(rs.gaps, [want[t][1] for t in got], atol=1e-9)
    assert np.all(np.diff(rs.objectives) >= 0)
    for i in (0, len(rs) - 1):  # a member as a BinaryTree predicts its labelled leaves
        tree = rs[i]
        assert tree.objective == pytest.approx(want[got[i]][0], abs=1e-9)


def test_weights_are_in_the_objective_and_the_rates():
    X, y, g = _data(7, 26, 3)
    w = np.random.default_rng(2).integers(1, 4, 26).astype(float)
    want, best = enumerated(X, y, g, w, 2, 2, 0.01, 0.4, 0.1, "statistical_parity")
    rs = _fit(X, y, g, 2, 0.01, "statistical_parity", 0.1, w=w).rashomon(0.4)
    assert set(rs.structures()) == set(want)
    assert rs.optimum == pytest.approx(best, abs=1e-9)


def test_fair_set_holds_relabelled_trees_the_plain_set_cannot():
    """A member whose leaf predicts a class that is not its heaviest: the cap forces it."""
    X, y, g = _data(0, 30, 3)
    rs = _fit(X, y, g, 2, 0.01, "statistical_parity", 0.05).rashomon(0.5)
    relabelled = 0
    for tree in rs:
        leaves = tree.feature < 0
        heaviest = np.argmax(tree.counts[leaves], axis=1)
        relabelled += int(np.any(tree.value[leaves] != heaviest))
    assert relabelled > 0
    assert np.all(rs.gaps <= 0.05 + 1e-9)


def test_too_many_structures_is_refused_by_count(monkeypatch):
    import optrees.trees.solve.fair_rashomon as fr
    X, y, g = _data(0, 30, 3)
    fit = _fit(X, y, g, 2, 0.01, "statistical_parity", 0.1)
    monkeypatch.setattr(fr, "MAX_STRUCTURES", 3)
    with pytest.raises(RashomonSetTooLarge, match="max_structures=3"):
        fr.build_fair_set(*_args(fit), max_structures=3)
    with pytest.raises(RashomonSetTooLarge, match="max_nodes=5"):
        fit.rashomon(0.5, max_nodes=5)


def _args(fit):
    X01, y, w = fit._rashomon_data
    return (X01, y, np.ones(len(y)) if w is None else w, fit.classes_,
            (fit.feature_names_, fit.negated_names_), fit.depth, fit.lam, 0.5, False, 1,
            1.0 - fit.objective_, fit._rashomon_fairness)


def test_three_classes_compare_the_positive_class_rates():
    """With three classes the gap is over predictions of the positive class only (not its
    complement's classes)."""
    X, y, g = _data(9, 27, 3, K=3)
    want, best = enumerated(X, y, g, np.ones(27), 3, 2, 0.01, 0.3, 0.1, "statistical_parity")
    frame = pd.DataFrame(X, columns=["x0", "x1", "x2"])
    fit = BendOCTClassifier(depth=2, lam=0.01, fairness="statistical_parity", epsilon=0.1,
                            positive_class=1, time_limit=60).fit(frame, y, groups=g)
    rs = fit.rashomon(0.3)
    assert set(rs.structures()) == set(want)
    assert rs.optimum == pytest.approx(best, abs=1e-9)


def test_numeric_columns_give_the_set_over_every_threshold():
    """A fair fit certified over every threshold (``thresholds_ == "all"``) has its set over
    every threshold too, not over the binarizer's quantile cuts."""
    rng = np.random.default_rng(5)
    n = 40
    frame = pd.DataFrame({"a": rng.integers(0, 6, n), "b": rng.random(n).round(1) * 3})
    g = rng.integers(0, 2, n)
    y = np.where(rng.random(n) < 0.8, ((frame.a > 2) | (g == 1)), rng.integers(0, 2, n))
    y = y.astype(int)
    fit = BendOCTClassifier(depth=2, lam=0.01, fairness="statistical_parity", epsilon=0.1,
                            time_limit=60).fit(frame, y, groups=g)
    assert fit.status_ == "optimal" and fit.thresholds_ == "all"
    L = _midpoint_literals(frame.to_numpy(dtype=float))
    want, best = enumerated(L, y, g, np.ones(n), 2, 2, 0.01, 0.2, 0.1, "statistical_parity")
    rs = fit.rashomon(0.2)
    assert np.array_equal(rs.encode(frame), L)
    assert set(rs.structures()) == set(want)
    assert rs.optimum == pytest.approx(best, abs=1e-9)


def _proxy_instance() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """150 rows of 6 0/1 columns, column 0 a proxy of the group (80 %), labels half the
    group: a case where the cap binds."""
    rng = np.random.default_rng(2)
    n, F = 150, 6
    X = rng.integers(0, 2, (n, F))
    g = rng.integers(0, 2, n)
    X[:, 0] = np.where(rng.random(n) < 0.8, g, 1 - g)  # a proxy of the group
    y = np.where(rng.random(n) < 0.5, g, X[:, 1] & X[:, 2] | X[:, 3]).astype(int)
    return X, y, g


def _plain_count(X: np.ndarray, y: np.ndarray, bound: float) -> int:
    """Structures under the plain bound (depth 2, lam 0.005, min leaf 5, μ = 0)."""
    from optrees.trees.search.rashomon.build import Builder, Scale

    n = len(y)
    scale = Scale.make(np.ones(n), 0.005, 2)
    plain = Builder(X, y, np.ones(n), 2, scale, 5)
    plain.drop_trivial, plain.listing = False, False
    return plain.node(np.ones(n, bool), 2, scale.bound_key(bound)).count()


def test_the_relaxation_lists_fewer_structures_and_keeps_min_leaf(monkeypatch):
    """Where the cap binds, the Lagrangian relaxation of the cap lists fewer structures than
    the plain bound, and its copied rows do not loosen ``min_samples_leaf``: the set is still
    every fair labelled tree (enumerated)."""
    import optrees.trees.solve.fair_rashomon as fr

    monkeypatch.setattr(fr, "FEW_STRUCTURES", 0)  # look for multipliers on a small case
    monkeypatch.setattr(fr, "CHECK_SECONDS", np.inf)  # however long the search takes
    X, y, g = _proxy_instance()
    want, best = enumerated(X, y, g, np.ones(len(y)), 2, 2, 0.005, 0.1, 0.03,
                            "statistical_parity", min_leaf=5)
    rs = _fit(X, y, g, 2, 0.005, "statistical_parity", 0.03, min_leaf=5).rashomon(0.1)
    assert set(rs.structures()) == set(want)
    assert rs.optimum == pytest.approx(best, abs=1e-9)
    assert rs.n_structures < _plain_count(X, y, rs.bound) / 2


def test_a_search_that_costs_more_than_its_checks_stops_with_the_same_set(monkeypatch):
    """The multiplier search stops once it has cost what checking its fewest structures
    would; with no time worth it (CHECK_SECONDS 0) it stops after the plain count, and the
    set is still every fair labelled tree (enumerated), found among all the plain bound's
    structures; with time, among fewer."""
    import optrees.trees.solve.fair_rashomon as fr

    monkeypatch.setattr(fr, "FEW_STRUCTURES", 0)
    X, y, g = _proxy_instance()
    want, best = enumerated(X, y, g, np.ones(len(y)), 2, 2, 0.005, 0.1, 0.03,
                            "statistical_parity", min_leaf=5)
    fit = _fit(X, y, g, 2, 0.005, "statistical_parity", 0.03, min_leaf=5)
    monkeypatch.setattr(fr, "CHECK_SECONDS", 0.0)
    stopped = fit.rashomon(0.1)
    monkeypatch.setattr(fr, "CHECK_SECONDS", np.inf)
    searched = fit.rashomon(0.1)
    for rs in (stopped, searched):
        assert set(rs.structures()) == set(want)
        assert rs.optimum == pytest.approx(best, abs=1e-9)
    assert stopped.n_structures == _plain_count(X, y, stopped.bound) > searched.n_structures


def test_a_leaf_under_min_leaf_rows_is_no_member():
    """The relaxation copies rows, so its DAG counts a leaf's rows twice; the labellings'
    check counts the real rows (a structure with a 2-row leaf, min_samples_leaf 3)."""
    from optrees.trees.search.rashomon.build import Scale
    from optrees.trees.solve.fair_rashomon import _Leaves, _members

    X = np.zeros((10, 1), dtype=int)
    X[:2, 0] = 1
    y = np.array([1, 0, 1, 0, 1, 0, 1, 0, 1, 0])
    w = np.ones(10)
    coords = np.zeros((10, 1))
    scale = Scale.make(w, 0.0, 1)
    bound = scale.bound_key(1.0)
    for min_leaf, members in ((2, 2), (3, 0)):
        trees, keys, gaps = _members([(0, 0, 1)], _Leaves(X, y, w, 2, coords), 2, scale,
                                     bound, [[0]], 1.0, 1, min_leaf)
        assert len(trees) == len(keys) == len(gaps) == members  # labels (0, 1) and (1, 0)


def test_a_large_fair_fit_and_a_bad_cap_are_refused_by_name(monkeypatch):
    """A fair fit past RASHOMON_KEEP_CELLS (numeric columns too) keeps no table and says
    so, without pointing at rashomon_set (which has no fairness); a bad max_structures is
    one clear error."""
    from optrees import OptreesInputError
    from optrees.estimators import trees

    X, y, g = _data(0, 30, 3)
    assert len(_fit(X, y, g, 2, 0.01, "statistical_parity", 0.1).rashomon(0.2)) > 0
    monkeypatch.setattr(trees, "RASHOMON_KEEP_CELLS", X.size - 1)
    fit = _fit(X, y, g, 2, 0.01, "statistical_parity", 0.1)
    with pytest.raises(OptreesInputError, match="fair fit's training table") as err:
        fit.rashomon(0.2)
    assert "rashomon_set" not in str(err.value)
    frame = pd.DataFrame({"a": np.arange(30) % 7, "b": X[:, 1]})
    monkeypatch.setattr(trees, "RASHOMON_KEEP_CELLS", frame.size - 1)
    fit = BendOCTClassifier(depth=2, lam=0.01, fairness="statistical_parity",
                            epsilon=0.1).fit(frame, y, groups=g)
    with pytest.raises(OptreesInputError, match="fair fit's training table"):
        fit.rashomon(0.2)
    with pytest.raises(OptreesInputError, match="max_structures must be an integer >= 1"):
        fit.rashomon(0.2, max_structures=0)
