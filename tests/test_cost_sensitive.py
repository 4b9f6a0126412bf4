"""Cost-sensitive trees (``misclassification_costs``): the certified optimum equals an
enumeration written from the definition, a 0/1 matrix is accuracy, pystreed agrees.

The oracle: a leaf predicting ``k`` costs ``sum_i w_i C[y_i, k]``, it predicts the cheapest
``k``; a tree's objective is total cost / total weight + lam * leaves (BendOCT) or
(1 - lam) * total cost + lam * splits (BendersOCT); every tree of depth <= 2 over every
midpoint of each column is enumerated with its leaf-size and leaf-budget constraints.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from optrees import BendersOCTClassifier, BendOCTClassifier
from optrees._validation import OptreesInputError


def enumerate_best(X, y, w, C, depth, lam, penalty, min_leaf=1, max_leaves=None):
    """Least objective over all trees of depth <= ``depth`` (plain recursion)."""
    n, F = X.shape
    budget0 = 2**depth if max_leaves is None else max_leaves
    cuts = [np.unique(X[:, f])[:-1] for f in range(F)]  # x <= v, v below the largest value

    def leaf(rows):
        return min((w[rows] * C[y[rows], k]).sum() for k in range(C.shape[0]))

    @functools.cache
    def best(key, d, budget):
        rows = np.array(key, dtype=np.int64)
        out = [(leaf(rows), 1, 0)]  # (cost, leaves, splits)
        if d == 0 or budget < 2:
            return out
        for f in range(F):
            for v in cuts[f]:
                go = X[rows, f] <= v
                left, right = rows[go], rows[~go]
                if len(left) < min_leaf or len(right) < min_leaf:
                    continue
                for bl in range(1, budget):
                    for cl, ll, sl in best(tuple(left), d - 1, bl):
                        for cr, lr, sr in best(tuple(right), d - 1, budget - bl):
                            out.append((cl + cr, ll + lr, sl + sr + 1))
        return out

    total = w.sum()
    values = [(1 - lam) * c + lam * s if penalty == "splits" else c / total + lam * leaves
              for c, leaves, s in best(tuple(range(n)), depth, budget0)]
    return min(values)


def tree_objective(est, X, y, w, C, lam, penalty):
    """The fitted tree's objective recomputed from its predictions (the definition)."""
    pred = np.searchsorted(est.classes_, est.predict(X))
    cost = float((w * C[y, pred]).sum())
    tree = est.tree_
    if penalty == "splits":
        return (1 - lam) * cost + lam * tree.n_splits
    return cost / w.sum() + lam * tree.n_leaves


def random_instance(seed, n_classes, n=14):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, 2)).astype(float) / 2  # ties on purpose
    y = rng.integers(0, n_classes, size=n)
    y[:n_classes] = np.arange(n_classes)  # every class present
    w = rng.integers(1, 4, size=n).astype(float)
    C = rng.integers(0, 6, size=(n_classes, n_classes)).astype(float)
    np.fill_diagonal(C, rng.integers(0, 2, size=n_classes))  # a diagonal cost sometimes
    return X, y, w, C


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n_classes", [2, 3, 4])
def test_optimum_equals_enumeration(seed, n_classes):
    X, y, w, C = random_instance(seed, n_classes)
    lam = [0.0, 0.02, 0.05][seed % 3]
    min_leaf = 1 + seed % 3
    est = BendOCTClassifier(depth=2, lam=lam, misclassification_costs=C,
                            min_samples_leaf=min_leaf, time_limit=30)
    est.fit(X, y, sample_weight=w)
    assert est.status_ == "optimal" and est.thresholds_ == "all"
    want = enumerate_best(X, y, w, C, 2, lam, "leaves", min_leaf)
    assert est.objective_ == pytest.approx(want, abs=1e-9)
    assert tree_objective(est, X, y, w, C, lam, "leaves") == pytest.approx(want, abs=1e-9)
    leaves = est.apply(X)
    assert np.bincount(leaves)[np.unique(leaves)].min() >= min_leaf


@pytest.mark.parametrize("seed", range(4))
def test_leaf_budget_and_split_penalty(seed):
    X, y, w, C = random_instance(10 + seed, 3)
    est = BendersOCTClassifier(depth=2, lam=0.1, misclassification_costs=C, max_leaves=3,
                               time_limit=30).fit(X, y, sample_weight=w)
    want = enumerate_best(X, y, w, C, 2, 0.1, "splits", max_leaves=3)
    assert est.status_ == "optimal"
    assert est.objective_ == pytest.approx(want, abs=1e-9)
    assert est.tree_.n_leaves <= 3
    assert tree_objective(est, X, y, w, C, 0.1, "splits") == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_binary_features_through_the_search_and_the_mip(seed):
    """0/1 columns take the subtree search on the original rows with the gains (proved
    there: no MIP); without it, the MIP on the pseudo-rows: both give the optimum, under
    weights, leaf size and leaf budget."""
    rng = np.random.default_rng(seed)
    n, K = 18, 2 + seed % 3
    X = rng.integers(0, 2, size=(n, 4)).astype(float)
    y = rng.integers(0, K, size=n)
    y[:K] = np.arange(K)
    w = rng.integers(1, 4, size=n).astype(float)
    C = rng.integers(0, 5, size=(K, K)).astype(float)
    min_leaf, budget = 1 + seed % 2, [None, 3][seed % 2]
    want = enumerate_best(X, y, w, C, 2, 0.01, "leaves", min_leaf, budget)
    for search in (True, False):
        est = BendOCTClassifier(depth=2, lam=0.01, binarizer=None, subtree_search=search,
                                misclassification_costs=C, min_samples_leaf=min_leaf,
                                max_leaves=budget, time_limit=30)
        est.fit(X, y, sample_weight=w)
        assert est.status_ == "optimal"
        assert est.objective_ == pytest.approx(want, abs=1e-9)
        assert tree_objective(est, X, y, w, C, 0.01, "leaves") == pytest.approx(want, abs=1e-9)
        if search:
            assert est.stats_["search_optimal"] and est.n_bb_nodes_ == 0


def test_zero_one_costs_are_accuracy():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 3)).round(1)
    y = (X[:, 0] + rng.normal(size=120) > 0).astype(int) + (X[:, 1] > 1)
    w = rng.integers(1, 3, size=120).astype(float)
    plain = BendOCTClassifier(depth=2, lam=0.01).fit(X, y, sample_weight=w)
    costs = BendOCTClassifier(depth=2, lam=0.01, misclassification_costs=1 - np.eye(3))
    costs.fit(X, y, sample_weight=w)
    assert costs.objective_ == pytest.approx(1 - plain.objective_, abs=1e-12)
    np.testing.assert_array_equal(costs.predict(X), plain.predict(X))
    np.testing.assert_allclose(costs.predict_proba(X), plain.predict_proba(X))


def test_dict_spelling_and_labels():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 2)).round(1)
    y = np.where(X[:, 0] + rng.normal(size=60) > 0, "bad", "good")
    heavy = {("bad", "good"): 10.0}  # missing pairs: 0 / 1
    est = BendOCTClassifier(depth=1, lam=0, misclassification_costs=heavy).fit(X, y)
    C = np.array([[0.0, 10.0], [1.0, 0.0]])  # classes_ = [bad, good]
    ytrue = (y == "good").astype(int)
    assert est.objective_ == pytest.approx(enumerate_best(X, ytrue, np.ones(60), C, 1, 0,
                                                          "leaves"))
    # the costly mistake is avoided: fewer bad rows predicted good than with accuracy
    plain = BendOCTClassifier(depth=1, lam=0).fit(X, y)
    def missed(m):
        return int(((y == "bad") & (m.predict(X) == "good")).sum())
    assert missed(est) <= missed(plain)


@pytest.mark.parametrize("costs, words", [
    ([[0, 1], [1, 0], [1, 1]], "square"),
    ([[0, -1], [1, 0]], ">= 0"),
    ([[0, 1, 1], [1, 0, 1], [1, 1, 0]], "2 classes"),
    ({("a", "zzz"): 2.0}, "zzz"),
    ({"a": 2.0}, "pairs"),
    ([[0, np.nan], [1, 0]], "finite"),
])
def test_bad_costs_one_clear_error(costs, words):
    X = np.arange(8.0).reshape(-1, 1)
    y = np.array(["a", "b"] * 4)
    with pytest.raises(OptreesInputError, match=words):
        BendOCTClassifier(depth=1, misclassification_costs=costs).fit(X, y)


def test_fairness_with_costs_refused():
    X = np.column_stack([np.arange(8.0), [0, 1] * 4])
    with pytest.raises(OptreesInputError, match="fairness together with"):
        BendOCTClassifier(depth=1, misclassification_costs=[[0, 2], [1, 0]],
                          fairness="statistical_parity", sensitive=1).fit(X, [0, 1] * 4)


def test_pystreed_agrees_on_binary_features():
    """pystreed's STreeDCostSensitiveClassifier (total cost, rows = true class) as witness."""
    pytest.importorskip("pystreed")
    from pystreed import STreeDCostSensitiveClassifier
    from pystreed.data import CostSpecifier, FeatureCostSpecifier

    rng = np.random.default_rng(7)
    for depth in (2, 3):
        X = (rng.random((250, 7)) < 0.5).astype(int)
        y = np.minimum((X[:, 0] ^ X[:, 1]) + X[:, 2] * (rng.random(250) < 0.7), 2)
        C = rng.integers(0, 6, size=(3, 3)).astype(float)
        np.fill_diagonal(C, 0)
        spec = CostSpecifier(C.tolist(), [FeatureCostSpecifier(0.0, 0.0, "", 0, 0)] * 7)
        peer = STreeDCostSensitiveClassifier(max_depth=depth, time_limit=60)
        peer.fit(X, y, spec)
        est = BendOCTClassifier(depth=depth, lam=0, binarizer=None, misclassification_costs=C,
                                time_limit=60).fit(X, y)
        assert est.status_ == "optimal"
        assert est.objective_ * len(y) == pytest.approx(C[y, peer.predict(X)].sum())


def test_cli_costs_file(tmp_path, capsys):
    """``optrees fit --costs FILE.csv``: the model saved minimises the file's costs (its
    training cost equals the enumerated optimum); a bad cell is named."""
    from optrees import load_model
    from optrees.cli import main

    rng = np.random.default_rng(11)
    X = rng.integers(0, 4, size=(30, 2)).astype(float)
    y = np.where(X[:, 0] + rng.normal(size=30) > 1.5, "bad", "good")
    data = tmp_path / "d.csv"
    pd_frame = __import__("pandas").DataFrame({"a": X[:, 0], "b": X[:, 1], "y": y})
    pd_frame.to_csv(data, index=False)
    costs = tmp_path / "costs.csv"
    costs.write_text("true,bad,good\nbad,0,6\ngood,1,0\n")
    model = tmp_path / "m.json"
    assert main(["fit", "--csv", str(data), "--target", "y", "--method", "bendoct",
                 "--depth", "2", "--lam", "0", "--test-size", "0", "--costs", str(costs),
                 "--out", str(model)]) == 0
    out = capsys.readouterr().out
    assert ("misclassification cost per unit of row weight + lam x leaves (lower is better); "
            "the bound is a lower bound") in out
    C = np.array([[0.0, 6.0], [1.0, 0.0]])  # classes bad, good
    yi = (y == "good").astype(int)
    pred = (load_model(model).predict(pd_frame[["a", "b"]]) == "good").astype(int)
    want = enumerate_best(X, yi, np.ones(30), C, 2, 0.0, "leaves")
    assert C[yi, pred].mean() == pytest.approx(want)
    costs.write_text("true,bad,good\nbad,0,x\ngood,1,0\n")
    assert main(["fit", "--csv", str(data), "--target", "y", "--method", "bendoct",
                 "--costs", str(costs)]) != 0
    assert "'x'" in capsys.readouterr().err



def test_cli_costs_file_by_pairs_equals_the_matrix(tmp_path):
    """``--costs`` as three columns true,predicted,cost (pairs not given: 0 on the diagonal,
    else 1) reads the same costs as the matrix layout; a bad cost names the layouts."""
    import pandas as pd

    from optrees import cli_data
    from optrees.cli_base import _UsageError as UsageError

    y = pd.Series(["bad", "good", "ok", "bad"])
    matrix = tmp_path / "m.csv"
    matrix.write_text("true,bad,good,ok\nbad,0,6,1\ngood,1,0,1\nok,2,1,0\n")
    pairs = tmp_path / "p.csv"
    pairs.write_text("True,Predicted,Cost\nbad,good,6\nok,bad,2\n")
    full, given = cli_data.costs(str(matrix), y), cli_data.costs(str(pairs), y)
    assert given == {("bad", "good"): 6.0, ("ok", "bad"): 2.0}
    classes = ["bad", "good", "ok"]
    as_matrix = [[given.get((t, p), 0.0 if t == p else 1.0) for p in classes] for t in classes]
    assert as_matrix == [[full[(t, p)] for p in classes] for t in classes]
    pairs.write_text("true,predicted,cost\nbad,good,-1\n")
    with pytest.raises(UsageError, match="true,predicted,cost"):
        cli_data.costs(str(pairs), y)


def test_a_search_proof_builds_no_mip_and_no_pass_over_the_pseudo_rows(monkeypatch):
    """0/1 columns, the search on: its proof is the answer.  Structurally: the MIP entry
    raises if called, and every pass of a tree over a matrix (``HeapTree.terminal``,
    ``BinaryTree._descend``) records its rows: none goes over the view's pseudo-rows (two
    per row here).  The tree's counts are the original rows' class weights at each leaf,
    and ``stats_`` names no leaf size the user did not ask for."""
    import optrees.trees.solve.binary as solve_binary
    from optrees.models.binary_tree import BinaryTree
    from optrees.trees.problem.tree_problem import HeapTree

    rng = np.random.default_rng(11)
    n = 40
    X = rng.integers(0, 2, size=(n, 5))
    y = rng.integers(0, 3, size=n)
    w = rng.integers(1, 4, size=n).astype(float)
    C = np.array([[0.0, 2.0, 5.0], [1.0, 0.0, 3.0], [4.0, 1.0, 0.0]])

    def no_mip(*args, **kwargs):
        raise AssertionError("a MIP was built")

    seen: list[int] = []
    terminal, descend = HeapTree.terminal, BinaryTree._descend

    def counted_terminal(self, M):
        seen.append(len(M))
        return terminal(self, M)

    def counted_descend(self, M):
        seen.append(len(M))
        return descend(self, M)

    monkeypatch.setattr(solve_binary, "run_scip", no_mip)
    monkeypatch.setattr(HeapTree, "terminal", counted_terminal)
    monkeypatch.setattr(BinaryTree, "_descend", counted_descend)
    est = BendOCTClassifier(depth=2, lam=0.01, binarizer=None, misclassification_costs=C,
                            time_limit=30).fit(X, y, sample_weight=w)
    assert est.status_ == "optimal" and est.n_bb_nodes_ == 0
    assert est.stats_["pseudo_rows"] == 2 * n  # (two positive gains per class)
    assert seen and max(seen) == n
    assert "side_constraints" not in est.stats_
    leaves = est.apply(X)
    for leaf in np.unique(leaves):
        at = leaves == leaf
        np.testing.assert_allclose(est.tree_.counts[leaf],
                                   np.bincount(y[at], weights=w[at], minlength=3))
    assert est.objective_ == pytest.approx(tree_objective(est, X, y, w, C, 0.01, "leaves"))


def test_min_leaf_reported_in_rows_on_the_mip_path_too():
    """The MIP on the pseudo-rows keeps ``copies`` x min_samples_leaf of them per leaf;
    ``stats_`` says the user's min_samples_leaf."""
    X, y, w, C = random_instance(3, 3)
    est = BendOCTClassifier(depth=2, lam=0.0, misclassification_costs=C, min_samples_leaf=2,
                            subtree_search=False,
                            time_limit=30).fit(X, y, sample_weight=w)
    assert est.stats_["side_constraints"] == "min_samples_leaf=2"
