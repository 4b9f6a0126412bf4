"""min_samples_leaf and max_leaves on the binary-tree estimators (issue #19): the certified
optimum equals exhaustive search under the constraint, the tree meets it on training data,
pystreed's min_leaf_node_size / max_num_nodes agree on real data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from oracles import exhaustive_objective

from optrees import (
    BendersOCTClassifier,
    BendOCTClassifier,
    FlowOCTClassifier,
    OptreesInputError,
    load_dataset,
)
from optrees.encoding.binarize import Binarizer
from optrees.trees.problem.tree_problem import HeapTree, TreeProblem
from optrees.trees.search.binary import solve_subtree


def _random_instance(seed: int, n=(15, 40), F=(3, 6), K=2):
    rng = np.random.default_rng(seed)
    n, F = int(rng.integers(*n)), int(rng.integers(*F))
    X = rng.integers(0, 2, (n, F))
    y = ((X[:, 0] ^ X[:, -1]) | (rng.random(n) < 0.25)).astype(int)
    if K > 2:
        y = np.minimum(y + (rng.random(n) < 0.3), K - 1)
    w = rng.integers(1, 4, n).astype(float) if rng.random() < 0.4 else None
    return rng, X, y, w


def _leaf_rows(est, X) -> np.ndarray:
    """Training rows in each leaf of a fitted estimator's tree."""
    return np.unique(est.apply(X), return_counts=True)[1]


@pytest.mark.parametrize("seed", range(40))
def test_search_equals_exhaustive_search(seed):
    rng, X, y, w = _random_instance(seed, n=(5, 45), F=(1, 7), K=3)
    depth = int(rng.integers(1, 5))
    m, budget = int(rng.integers(1, 8)), [None, 1, 2, 3, 4, 5, 6][int(rng.integers(0, 7))]
    L = float(rng.choice([0.0, 0.5, 1.3]))
    # correct - L * leaves = (split-penalty optimum at lam = L / (1 + L)) / (1 - lam) - L
    lam = L / (1.0 + L)
    best = exhaustive_objective(X, y, 3, depth, lam, sample_weight=w, min_leaf=m,
                                max_leaves=budget) / (1.0 - lam) - L
    problem = TreeProblem(X, y, 3, depth, sample_weight=w, min_leaf=m, max_leaves=budget)
    for backend in ("numba", "numpy"):
        found = solve_subtree(X, y, depth, L, sample_weight=w, n_classes=3, min_leaf=m,
                              max_leaves=budget, backend=backend)
        assert found.optimal
        assert found.score == pytest.approx(best, abs=1e-9)
        assert found.tree.feasible(problem)


@pytest.mark.parametrize("seed", range(12))
def test_certified_optimum_equals_exhaustive_search(seed):
    rng, X, y, w = _random_instance(seed + 100)
    depth = int(rng.integers(1, 4))
    m, budget = int(rng.integers(2, 7)), [None, 2, 3, 4][int(rng.integers(0, 4))]
    lam = float(rng.choice([0.0, 0.02]))
    common = dict(depth=depth, lam=lam, binarizer=None, min_samples_leaf=m, max_leaves=budget,
                  time_limit=60)
    fits = {
        "leaves": [BendOCTClassifier(**common),
                   BendOCTClassifier(subtree_search=False, **common)],
        "splits": [BendersOCTClassifier(subtree_search=False, polishing=False,
                                        path_bound_cuts=False, split_bound_cuts=False,
                                        **common),
                   BendersOCTClassifier(subtree_search=False, strengthened_cuts=True,
                                        eqp="recursive_da-group", **common),
                   FlowOCTClassifier(subtree_search=False, **common)],
    }
    for penalty, estimators in fits.items():
        best = exhaustive_objective(X, y, 2, depth, lam, penalty, w, min_leaf=m,
                                    max_leaves=budget)
        for est in estimators:
            est.fit(X, y, sample_weight=w)
            assert est.status_ == "optimal", est
            assert est.objective_ == pytest.approx(best, abs=1e-9), est
            assert _leaf_rows(est, X).min() >= m or est.tree_.n_leaves == 1
            assert est.tree_.n_leaves <= (budget or 2**depth)


def test_path_bound_structure_cut_is_not_used_under_a_constraint():
    """Instance where cut (26) (the D2S subtree's structure) cut off the constrained optimum
    (0.69 claimed optimal instead of 0.72125) before it gave way to the objective form."""
    rng = np.random.default_rng(3)
    for _ in range(5):
        n, F = int(rng.integers(15, 40)), int(rng.integers(3, 6))
        X = rng.integers(0, 2, (n, F))
        y = (X[:, 0] ^ X[:, 1] | (rng.random(n) < 0.25)).astype(int)
        depth, m = int(rng.integers(1, 4)), int(rng.integers(1, 7))
        budget = [None, 2, 3, 4][int(rng.integers(0, 4))]
        lam = float(rng.choice([0, 0.02]))
        w = None if rng.random() < 0.6 else rng.integers(1, 4, n).astype(float)
    assert (depth, m, budget, lam, w) == (3, 6, 4, 0.02, None)
    best = exhaustive_objective(X, y, 2, depth, lam, "leaves", min_leaf=m, max_leaves=budget)
    est = BendOCTClassifier(depth=3, lam=lam, binarizer=None, min_samples_leaf=m,
                            max_leaves=budget, subtree_search=False,
                            path_bound_cuts="structure").fit(X, y)
    assert est.objective_ == pytest.approx(best, abs=1e-9) and best == pytest.approx(0.72125)


@pytest.mark.parametrize("name, depth, m", [("monk1", 3, 10), ("monk3", 3, 20),
                                            ("balance-scale", 2, 30)])
def test_min_samples_leaf_matches_pystreed(name, depth, m):
    pystreed = pytest.importorskip("pystreed")
    X, y = load_dataset(name)
    Xb = Binarizer().fit_transform(X).astype(int)
    y_idx = np.unique(y, return_inverse=True)[1]
    ref = pystreed.STreeDClassifier(max_depth=depth, min_leaf_node_size=m,
                                    time_limit=60).fit(Xb, y_idx)
    assert ref.fit_result.is_optimal()
    best = int((ref.predict(Xb) == y_idx).sum())
    # the MIP too where it proves in seconds (depth 2; at depth 3 it took 15-17 s here, and
    # test_certified_optimum_equals_exhaustive_search checks it with min leaf at depth 3)
    mip = [BendersOCTClassifier(depth=depth, binarizer=None, min_samples_leaf=m,
                                subtree_search=False)] if depth == 2 else []
    for est in [BendOCTClassifier(depth=depth, lam=0.0, binarizer=None, min_samples_leaf=m),
                *mip]:
        est.fit(Xb, y_idx)
        assert est.status_ == "optimal"
        assert int((est.predict(Xb) == y_idx).sum()) == best
        assert _leaf_rows(est, Xb).min() >= m


def test_pystreed_terminal_solver_misses_this_min_leaf_optimum():
    """monk2, depth 4, min leaf 20: pystreed 1.4.0 claims 0.709976 with its depth-2 terminal
    solver and finds our 0.720811 without it (the bench counts such cases apart)."""
    pystreed = pytest.importorskip("pystreed")
    X, y = load_dataset("monk2")
    Xb = Binarizer().fit_transform(X).astype(int)
    y_idx = np.unique(y, return_inverse=True)[1]
    est = BendOCTClassifier(depth=4, lam=0.001, binarizer=None, min_samples_leaf=20).fit(Xb, y_idx)
    ref = pystreed.STreeDClassifier(max_depth=4, optimization_task="cost-complex-accuracy",
                                    cost_complexity=0.001, min_leaf_node_size=20,
                                    use_terminal_solver=False, time_limit=60).fit(Xb, y_idx)
    assert est.status_ == "optimal" and ref.fit_result.is_optimal()
    best = np.mean(ref.predict(Xb) == y_idx) - 0.001 * ref.get_n_leaves()
    assert est.objective_ == pytest.approx(best, abs=1e-9)
    assert _leaf_rows(est, Xb).min() >= 20


def test_max_leaves_matches_pystreed():
    pystreed = pytest.importorskip("pystreed")
    X, y = load_dataset("monk2")
    Xb = Binarizer().fit_transform(X).astype(int)
    y_idx = np.unique(y, return_inverse=True)[1]
    for leaves in (3, 5):
        ref = pystreed.STreeDClassifier(max_depth=3, max_num_nodes=leaves - 1,
                                        time_limit=60).fit(Xb, y_idx)
        assert ref.fit_result.is_optimal()
        est = BendOCTClassifier(depth=3, lam=0.0, binarizer=None, max_leaves=leaves)
        est.fit(Xb, y_idx)
        assert est.status_ == "optimal" and est.tree_.n_leaves <= leaves
        assert (est.predict(Xb) == y_idx).sum() == (ref.predict(Xb) == y_idx).sum()


def test_fraction_counts_rows_and_numeric_columns_keep_every_threshold():
    """min_samples_leaf (a fraction: rows) and max_leaves are searched over every threshold
    of numeric columns and certified; the result is never below CART with the same leaf size
    or leaf budget; with fairness the binarizer's thresholds are used (every one at depth 2;
    quantile cuts certified over every threshold at depth 3), and stats_ says so."""
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    Xn = rng.normal(size=(200, 3))
    yn = (Xn[:, 0] + 0.3 * rng.normal(size=200) > 0).astype(int)
    for depth in (2, 3):
        est = BendOCTClassifier(depth=depth, lam=0.0, min_samples_leaf=0.1,
                                time_limit=60).fit(Xn, yn)
        assert _leaf_rows(est, Xn).min() >= 20
        assert est.thresholds_ == "all" and est.status_ == "optimal"
        assert est.stats_["side_constraints"] == "min_samples_leaf=20"
        cart = DecisionTreeClassifier(max_depth=depth, min_samples_leaf=20, random_state=0)
        assert est.score(Xn, yn) >= cart.fit(Xn, yn).score(Xn, yn)
    for depth, leaves, m in ((2, 3, 1), (3, 3, 1), (3, 5, 1), (3, 4, 10)):
        est = BendOCTClassifier(depth=depth, lam=0.0, max_leaves=leaves, min_samples_leaf=m,
                                time_limit=60).fit(Xn, yn)
        assert est.thresholds_ == "all" and est.status_ == "optimal"
        assert est.tree_.n_leaves <= leaves and _leaf_rows(est, Xn).min() >= m
        assert est.stats_["side_constraints"].endswith(f"max_leaves={leaves}")
        cart = DecisionTreeClassifier(max_depth=depth, max_leaf_nodes=leaves,
                                      min_samples_leaf=m, random_state=0)
        assert est.score(Xn, yn) >= cart.fit(Xn, yn).score(Xn, yn)
    groups = pd.Series(rng.integers(0, 2, 200).astype(str))
    frame = pd.DataFrame(Xn, columns=["a", "b", "c"]).assign(g=groups)
    for depth in (2, 3):  # 598 threshold columns: depth 3 takes 200, then is certified
        fair = BendOCTClassifier(depth=depth, lam=0.0, fairness="statistical_parity",
                                 epsilon=0.2, sensitive="g", time_limit=30).fit(frame, yn)
        assert fair.thresholds_ == "all"
        assert fair.stats_["every_threshold"].startswith("fairness")
        assert ("certified" in fair.stats_["every_threshold"]) == (depth == 3)


@pytest.mark.parametrize("params, words", [
    ({"min_samples_leaf": 0}, "min_samples_leaf"),
    ({"min_samples_leaf": 1.5}, "min_samples_leaf"),
    ({"min_samples_leaf": True}, "min_samples_leaf"),
    ({"max_leaves": 0}, "max_leaves"),
    ({"max_leaves": 2.5}, "max_leaves"),
])
def test_bad_constraint_values_get_one_clear_error(params, words):
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    with pytest.raises(OptreesInputError, match=words):
        BendOCTClassifier(**params).fit(X, [0, 1, 1, 0])


def test_unsatisfiable_min_leaf_gives_the_root_leaf():
    """No split can keep 30 rows on each side of 40 rows: the optimum is one leaf."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, (40, 4))
    y = X[:, 0]
    for est in (BendOCTClassifier(depth=2, min_samples_leaf=30, binarizer=None),
                FlowOCTClassifier(depth=2, min_samples_leaf=30, binarizer=None,
                                  subtree_search=False)):
        est.fit(X, y)
        assert est.status_ == "optimal" and est.tree_.n_leaves == 1


def test_heap_tree_feasibility():
    X = np.array([[0], [0], [1], [1], [1]])
    problem = TreeProblem(X, np.array([0, 0, 1, 1, 1]), 2, 1, min_leaf=3)
    stump = HeapTree(np.array([0]), np.array([0, 0, 1]))
    leaf = HeapTree(np.array([-1]), np.array([1, 1, 1]))
    assert not stump.feasible(problem) and leaf.feasible(problem)
    problem = TreeProblem(X, np.array([0, 0, 1, 1, 1]), 2, 1, min_leaf=2)
    assert stump.feasible(problem)
    assert not stump.feasible(TreeProblem(X, np.array([0, 0, 1, 1, 1]), 2, 1, max_leaves=1))
