"""The front search for fair trees (issue #19, optrees.trees.search.binary.fair): its optimum
equals an independent enumeration of every subtree's (gap share, score) on random tiny
instances (depths 0-3, weights, leaf penalties, leaf sizes, three notions), the tree it
returns scores what it claims and meets the bound, a deadline leaves a fair tree with a valid
bound, BendOCT's fair fits use it at depth 3 and agree with the MIP, pystreed's
group-fairness classifier agrees on compas at depth 3, and several groups and cells (gap
coordinates) agree with the enumeration too."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from data_dir import DATA_DIR
from oracles import exhaustive_fair_score

from optrees import BendersOCTClassifier, BendOCTClassifier
from optrees.metrics import fairness_gap
from optrees.solvers.deadline import Deadline
from optrees.trees.problem.fairness import FAIRNESS, TreeFairness
from optrees.trees.search.binary.fair import solve_fair_subtree

NOTIONS = ["statistical_parity", "equal_opportunity", "predictive_equality"]


def _case(seed):
    rng = np.random.default_rng(seed)
    n, F = int(rng.integers(8, 40)), int(rng.integers(1, 5))
    X = rng.integers(0, 2, (n, F))
    g = rng.integers(0, 2, n)
    y = ((X[:, 0] | g) ^ (rng.random(n) < 0.25)).astype(int)
    if rng.random() < 0.5:
        X[:, 0] = g  # the sensitive attribute is also a feature
    w = rng.integers(1, 4, n).astype(float) if rng.random() < 0.4 else None
    fair = TreeFairness(NOTIONS[seed % 3], float(rng.choice([0.0, 0.05, 0.2])), g, 1)
    coef = fair.pairs(y, np.ones(n) if w is None else w)
    return rng, X, y, w, fair.epsilon, coef[0] if coef else np.zeros(n)


@pytest.mark.parametrize("seed", range(60))
def test_front_search_equals_enumeration(seed):
    rng, X, y, w, eps, coef = _case(seed)
    depth = seed % 4
    pen = float(rng.choice([0.0, 0.5, 2.0]))
    m = int(rng.choice([1, 1, 3]))
    best = exhaustive_fair_score(X, y, depth, coef, eps, 1, pen, w, m)
    backend = "numpy" if seed % 2 else "auto"  # numpy: the counters without numba
    sol = solve_fair_subtree(X, y, depth, coef, eps, 1, pen, w, m, backend=backend)
    assert sol.optimal and sol.bound == sol.score
    assert sol.score == pytest.approx(best, abs=1e-9)
    tree = sol.tree
    stop = tree.terminal(X.astype(np.uint8))
    pred = tree.label[stop - 1]
    weights = np.ones(len(y)) if w is None else w
    assert abs(coef @ (pred == 1)) <= eps + 1e-9
    assert weights[pred == y].sum() - pen * (tree.n_splits + 1) == pytest.approx(sol.score)
    if tree.n_splits:  # every leaf keeps m rows
        assert np.bincount(stop)[tree.reachable_stops()].min() >= m


def test_expired_deadline_returns_a_fair_tree_with_a_valid_bound():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, (400, 8))
    g = X[:, 0]
    y = (g ^ (rng.random(400) < 0.2)).astype(int)
    coef = TreeFairness("statistical_parity", 0.0, g, 1).pairs(y, np.ones(400))[0]
    best = solve_fair_subtree(X, y, 3, coef, 0.0)
    stopped = Deadline(10)
    stopped.stop()
    sol = solve_fair_subtree(X, y, 3, coef, 0.0, deadline=stopped)
    assert not sol.optimal
    assert sol.score <= best.score + 1e-9 <= sol.bound + 2e-9
    pred = sol.tree.label[sol.tree.terminal(X.astype(np.uint8)) - 1]
    assert abs(coef @ (pred == 1)) <= 1e-9


@pytest.mark.parametrize("depth", [2, 3])
def test_an_expired_deadline_counts_no_pairs(monkeypatch, depth):
    """The pair counts and the Lagrangian bound of the depth-2 level take seconds on large
    data (0.7 + 0.6 s on breast cancer at load 5, a fit with ``time_limit=0.01`` taking 2 s):
    a stopped search starts neither."""
    from optrees.trees.search.binary import fair as fair_mod

    def counted(*args, **kwargs):
        raise AssertionError("pair counts after the deadline")

    monkeypatch.setattr(fair_mod._FairSearch, "level2", counted)
    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, (200, 6))
    y = (X[:, 0] ^ (rng.random(200) < 0.2)).astype(int)
    coef = TreeFairness("statistical_parity", 0.0, X[:, 0], 1).pairs(y, np.ones(200))[0]
    stopped = Deadline(10)
    stopped.stop()
    sol = solve_fair_subtree(X, y, depth, coef, 0.0, deadline=stopped)
    assert not sol.optimal


@pytest.mark.parametrize("seed", range(3))
def test_bendoct_depth3_front_search_agrees_with_the_mip(seed):
    """Depth 3 through the estimators: the front search's certified optimum equals the
    enumeration and (seed 0; the MIP takes 5-20 s on the others) the MIP's (BendersOCT
    without the search)."""
    rng = np.random.default_rng(seed)
    n = 40
    X = pd.DataFrame(rng.integers(0, 2, (n, 4)), columns=["s", "a", "b", "c"])
    y = ((X.a & X.b) | (X.s & (rng.random(n) < 0.8))).to_numpy().astype(int)
    common = dict(depth=3, lam=0.01, binarizer=None, fairness="statistical_parity",
                  epsilon=0.05, sensitive="s", time_limit=120)
    ours = BendersOCTClassifier(**common).fit(X, y)
    assert ours.stats_["search_backend"] == "fronts" and ours.n_bb_nodes_ == 0
    assert ours.status_ == "optimal"
    if seed == 0:
        mip = BendersOCTClassifier(subtree_search=False, **common).fit(X, y)
        assert mip.status_ == "optimal"
        assert ours.objective_ == pytest.approx(mip.objective_, abs=1e-9)
    # the parity gap from its definition: group 1's rate of prediction 1 minus group 0's
    s = X.s.to_numpy()
    coef = np.where(s == 1, 1.0 / np.sum(s == 1), -1.0 / np.sum(s == 0))
    best = exhaustive_fair_score(X.to_numpy(), y, 3, coef, 0.05, 1, 0.01 / 0.99)
    assert ours.objective_ == pytest.approx(0.99 * best + 0.01, abs=1e-9)
    assert fairness_gap("statistical_parity", y, ours.predict(X), X.s) <= 0.05 + 1e-9


def test_many_groups_fall_back_to_the_mip():
    """Six groups over both cells of equalized odds: 10 gap coordinates, the MIP's job."""
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.integers(0, 2, (120, 3)), columns=["a", "b", "c"])
    X["s"] = rng.integers(0, 6, 120)
    y = (X.a | (X.s > 2)).to_numpy() ^ (rng.random(120) < 0.2)  # every group in both classes
    est = BendOCTClassifier(depth=1, binarizer=None, fairness="equalized_odds",
                            epsilon=0.3, sensitive="s", drop_sensitive=True).fit(X, y)
    assert est.stats_["subtree_search"].startswith("off: fairness over more than 8 group")
    assert est.status_ == "optimal"
    assert fairness_gap("equalized_odds", y, est.predict(X), X.s) <= 0.3 + 1e-6


@pytest.mark.skipif(DATA_DIR is None or not (DATA_DIR / "compas.csv").exists(),
                    reason="needs the shared data (OPTREES_DATA)")
@pytest.mark.parametrize("task, notion", [("group-fairness", "statistical_parity"),
                                          ("equality-of-opportunity", "equal_opportunity")])
def test_compas_depth3_matches_pystreed(task, notion):
    pystreed = pytest.importorskip("pystreed")
    raw = pd.read_csv(DATA_DIR / "compas.csv", sep=";", encoding="utf-8-sig")
    y = raw.pop("Two_yr_Recidivism").to_numpy().astype(int)
    priors = raw.pop("Number_of_Priors")
    for k in (1, 3, 10):
        raw[f"priors>={k}"] = (priors >= k).astype(int)
    ref = pystreed.STreeDGroupFairnessClassifier(optimization_task=task, sensitive_feature=0,
                                                 discrimination_limit=0.02, max_depth=3,
                                                 time_limit=120).fit(raw.to_numpy(), y)
    ours = BendOCTClassifier(depth=3, lam=0.0, binarizer=None, fairness=notion, epsilon=0.02,
                             sensitive="Race", drop_sensitive=True, time_limit=120).fit(raw, y)
    assert ref.fit_result.is_optimal() and ours.status_ == "optimal"
    assert (ours.predict(raw) == y).mean() == pytest.approx(
        (ref.predict(raw.to_numpy()) == y).mean(), abs=1e-12)
    assert fairness_gap(notion, y, ours.predict(raw), raw.Race, positive=1) <= 0.02 + 1e-9


@pytest.mark.parametrize("seed", range(40))
def test_several_groups_and_cells_equal_enumeration(seed):
    """Up to four groups, every notion (equalized odds: two cells, conditional parity: one
    cell per legitimate value), two or three classes: the front search over the gap
    coordinates of TreeFairness.coordinates equals the enumeration, and the returned tree's
    largest pairwise gap (TreeFairness.gap) is within the bound."""
    rng = np.random.default_rng(seed)
    n, F, K, G = int(rng.integers(10, 36)), int(rng.integers(1, 4)), 2 + seed % 2, 2 + seed % 3
    X = rng.integers(0, 2, (n, F))
    g = rng.integers(0, G, n)
    y = ((X[:, 0] + (g > 0) + (rng.random(n) < 0.3)) % K).astype(int)
    w = rng.integers(1, 4, n).astype(float) if seed % 4 == 1 else None
    positive = int(rng.integers(0, K))
    fair = TreeFairness(FAIRNESS[seed % 5], float(rng.choice([0.0, 0.1, 0.3])), g, positive,
                        rng.integers(0, 2, n))
    weights = np.ones(n) if w is None else w
    C, cells = fair.coordinates(y, weights)
    depth, pen = seed % 4, float(rng.choice([0.0, 0.5]))
    best = exhaustive_fair_score(X, y, depth, C, fair.epsilon, positive, pen, w, 1, cells)
    sol = solve_fair_subtree(X, y, depth, C, fair.epsilon, positive, pen, w, n_classes=K,
                             cells=cells, backend="numpy" if seed % 2 else "auto")
    assert sol.optimal and sol.score == pytest.approx(best, abs=1e-9)
    pred = sol.tree.label[sol.tree.terminal(X.astype(np.uint8)) - 1]
    assert fair.gap(y, pred, weights) <= fair.epsilon + 1e-9
    assert weights[pred == y].sum() - pen * (sol.tree.n_splits + 1) == pytest.approx(sol.score)


def test_no_gap_coordinate_is_the_unconstrained_optimum():
    """A cell with one group compares nothing: no coordinate, every tree is fair."""
    rng = np.random.default_rng(3)
    X, y = rng.integers(0, 2, (40, 3)), rng.integers(0, 3, 40)
    for depth in (1, 2, 3):
        sol = solve_fair_subtree(X, y, depth, np.zeros((40, 0)), 0.0, cells=[])
        free = exhaustive_fair_score(X, y, depth, np.zeros((40, 0)), 0.0, cells=[])
        assert sol.optimal and sol.score == pytest.approx(free)
