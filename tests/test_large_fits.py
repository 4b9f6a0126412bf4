"""Fits too large for the MIP (issue #47, many rows): a stopped search returns its own tree
(never worse than CART's start) with its bound and builds no MIP; CART's start is grown on a
sample of at most ``CART_MAX_ROWS`` rows; the 0/1 check of a table reads column by column."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from deadlines import StopAfter
from sklearn.tree import DecisionTreeClassifier

from optrees import BendOCTClassifier, TimeLimitWarning
from optrees.encoding.binary import has_numeric_column, is_binary_frame
from optrees.trees.search import cart_start
from optrees.trees.solve import binary

LAM = 0.01


def _data(n: int = 400, F: int = 14, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, F))
    y = (X[:, 0] ^ X[:, 1] ^ (rng.random(n) < 0.2)).astype(int)
    return X, y


def _cart_objective(X: np.ndarray, y: np.ndarray, depth: int) -> float:
    """Accuracy - LAM * leaves of scikit-learn's CART with the start's settings, each leaf
    predicting its training majority (the definition of BendOCT's objective)."""
    cart = DecisionTreeClassifier(max_depth=depth, ccp_alpha=LAM / len(y),
                                  random_state=0).fit(X, y)
    leaf = cart.apply(X)
    correct = sum(np.bincount(y[leaf == v]).max() for v in np.unique(leaf))
    return correct / len(y) - LAM * len(np.unique(leaf))


@pytest.fixture()
def stopped_search(monkeypatch):
    """The 0/1 search stops after a fixed number of deadline checks (not proved)."""
    real = binary.solve_subtree
    monkeypatch.setattr(binary, "solve_subtree",
                        lambda *a, **k: real(*a, **{**k, "deadline": StopAfter(2)}))


def test_a_stopped_search_above_the_cap_returns_its_tree_without_a_mip(stopped_search,
                                                                       monkeypatch):
    X, y = _data()
    optimum = BendOCTClassifier(depth=4, lam=LAM).fit(X, y)  # the MIP proves it
    assert optimum.status_ == "optimal"

    def no_mip(*args, **kwargs):
        raise AssertionError("a MIP was built above MIP_MAX_CELLS")

    monkeypatch.setattr(binary, "MIP_MAX_CELLS", len(y) * 31 - 1)  # 400 rows x 31 nodes
    monkeypatch.setattr(binary, "run_scip", no_mip)
    with pytest.warns(TimeLimitWarning, match="time_limit"):
        est = BendOCTClassifier(depth=4, lam=LAM, time_limit=60).fit(X, y)
    assert est.stats_["search_optimal"] is False
    assert est.stats_["mip"].startswith("skipped: 400 rows x 31 nodes")
    assert est.status_ == "time_limit" and est.stats_["bb_nodes"] == 0
    # the objective is the returned tree's, from the definition
    pred = est.predict(X)
    assert est.objective_ == pytest.approx(np.mean(pred == y) - LAM * est.tree_.n_leaves)
    assert est.objective_ >= _cart_objective(X, y, 4) - 1e-12
    assert optimum.objective_ - 1e-9 <= est.bound_ and est.gap_ >= 0


def test_a_stopped_search_deeper_than_the_mip_depth_returns_its_tree_without_a_mip(
        monkeypatch):
    """Depth 6 > MIP_MAX_DEPTH: no MIP after the stopped search, whatever the size; the
    tree's objective from the definition, never below CART's, the bound above the optimum
    (proved by the unstopped search)."""
    X, y = _data(n=120, F=6)
    optimum = BendOCTClassifier(depth=6, lam=LAM, time_limit=120).fit(X, y)
    assert optimum.status_ == "optimal" and binary.MIP_MAX_DEPTH == 5

    def no_mip(*args, **kwargs):
        raise AssertionError("a MIP was built deeper than MIP_MAX_DEPTH")

    real = binary.solve_subtree
    monkeypatch.setattr(binary, "solve_subtree",
                        lambda *a, **k: real(*a, **{**k, "deadline": StopAfter(2)}))
    monkeypatch.setattr(binary, "run_scip", no_mip)
    with pytest.warns(TimeLimitWarning, match="time_limit"):
        est = BendOCTClassifier(depth=6, lam=LAM, time_limit=60).fit(X, y)
    assert est.stats_["mip"] == "skipped: depth 6 > 5" and est.stats_["bb_nodes"] == 0
    pred = est.predict(X)
    assert est.objective_ == pytest.approx(np.mean(pred == y) - LAM * est.tree_.n_leaves)
    assert est.objective_ >= _cart_objective(X, y, 6) - 1e-12
    assert optimum.objective_ - 1e-9 <= est.bound_


def test_below_the_cap_the_stopped_search_hands_over_to_the_mip(stopped_search):
    X, y = _data()
    est = BendOCTClassifier(depth=4, lam=LAM, time_limit=30).fit(X, y)
    assert est.stats_["search_optimal"] is False and "mip" not in est.stats_
    assert "bb_nodes" in est.stats_


def test_cart_grows_on_a_sample_of_at_most_cart_max_rows(monkeypatch):
    X, y = _data(n=300)
    seen = []
    real_fit = DecisionTreeClassifier.fit

    def recording_fit(self, X, y, sample_weight=None):
        seen.append(len(y))
        return real_fit(self, X, y, sample_weight=sample_weight)

    monkeypatch.setattr(cart_start.DecisionTreeClassifier, "fit", recording_fit)
    monkeypatch.setattr(cart_start, "CART_MAX_ROWS", 120)
    from optrees.trees.problem.tree_problem import TreeProblem

    problem = TreeProblem(X, y, 2, 2, LAM, "leaves")
    tree = cart_start.cart_heap_tree(problem, 0)
    assert seen == [120]
    assert tree.feasible(problem)
    monkeypatch.setattr(cart_start, "CART_MAX_ROWS", 300)
    cart_start.cart_heap_tree(problem, 0)
    assert seen == [120, 300]


@pytest.mark.parametrize("column,numeric", [
    (np.array([0, 1, 1, 0], dtype=np.uint8), False),
    (np.array([0, 1, 2, 0]), True),
    (np.array([0, -1, 1, 0]), True),
    (np.array([0.0, 1.0, 1.0, 0.0]), False),
    (np.array([0.0, 1.0, 0.5, 0.0]), True),
    (np.array([0.0, 1.0, np.nan, 0.0]), True),
    (pd.array([0, 1, None, 1], dtype="Int64"), True),
    (pd.array([0, 1, 0, 1], dtype="Int64"), False),
])
def test_the_zero_one_check_reads_each_column_in_its_own_dtype(column, numeric):
    df = pd.DataFrame({"flag": np.array([True, False, True, True]), "x": column})
    assert has_numeric_column(df) is numeric
    assert is_binary_frame(df) is (not numeric)
    assert is_binary_frame(df.assign(c=["a", "b", "a", "b"])) is False


# ------------------------------------------------------------------------- iterative deepening
@pytest.mark.parametrize("seed", range(4))
def test_deepening_keeps_the_exhaustive_optimum(seed, monkeypatch):
    """Deepening forced on small data (DEEPEN_CELLS 0): depth 4 still equals the enumeration
    of every tree, written in tests/oracles.py from the objective's definition."""
    from oracles import exhaustive_objective

    from optrees.trees.search.binary import entry, solve_subtree

    monkeypatch.setattr(entry, "DEEPEN_CELLS", 0)
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (30, 5))
    y = (X[:, 0] ^ X[:, 1] ^ (rng.random(30) < 0.3)).astype(int)
    lam = (0.0, 0.01, 0.03, 0.1)[seed]
    found = solve_subtree(X, y, 4, lam * len(y), backend="numpy")
    assert found.optimal
    expected = exhaustive_objective(X, y, 2, 4, lam, penalty="leaves")
    assert found.score / len(y) == pytest.approx(expected, abs=1e-12)


def test_a_stopped_deep_search_keeps_the_shallower_optimum(monkeypatch):
    """With deepening, a deep search stopped right after the depth - 1 stage returns at least
    that stage's optimum (checked against the enumeration), with a valid bound."""
    from oracles import exhaustive_objective

    from optrees.solvers.deadline import Deadline
    from optrees.trees.search.binary import entry, solve_subtree

    monkeypatch.setattr(entry, "DEEPEN_CELLS", 0)
    X, y = _data(n=60, F=6, seed=3)
    stage = entry._shallower
    calls = []

    def then_stop(search, idx, depth, *args):
        calls.append(depth)
        found = stage(search, idx, depth, *args)
        search.deadline = StopAfter(0)  # the deep search stops at once
        return found

    monkeypatch.setattr(entry, "_shallower", then_stop)
    found = solve_subtree(X, y, 4, LAM * len(y), deadline=Deadline(60), backend="numpy")
    assert calls == [4] and not found.optimal
    shallower = exhaustive_objective(X, y, 2, 3, LAM, penalty="leaves")
    assert found.score / len(y) >= shallower - 1e-12
    assert found.bound / len(y) >= exhaustive_objective(X, y, 2, 4, LAM, penalty="leaves") \
        - 1e-12
