"""RobustTreeClassifier(method="mip"), the MIP with constraint generation, against the
oracles of test_robust_trees.py written from the definition (every tree enumerated, each
tree's worst case by the cheapest-rows argument over every grid point; integer weights as
duplicated rows)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from data_dir import DATA_DIR, needs_data
from test_robust_trees import (
    all_trees,
    data,
    grid,
    move_costs,
    optimum,
    predict,
    worst_knapsack,
)
from test_robust_weights import assert_a_response, most_flipped

from optrees import OptreesInputError, RobustTreeClassifier
from optrees.models.robust_tree import IntegerTree
from optrees.robust.adversary import flipped_rows
from optrees.robust.mip import RobustMaster, solve_robust_mip
from optrees.solvers.deadline import Deadline
from optrees.solvers.scip import ScipModel

# (seed, depth, budget, classes, lam, cost values drawn per row and feature)
CASES = [
    (0, 1, 0.0, 2, 0.0, (1.0,)),
    (1, 1, 2.0, 3, 0.0, (0.0, 1.0, np.inf)),
    (2, 2, 0.0, 2, 0.0, (1.0,)),
    (3, 2, 1.0, 2, 0.0, (0.0, 0.5, 1.0, np.inf)),
    (4, 2, 2.5, 3, 0.0, (0.5, 1.0, 2.0)),
    (5, 2, 1.5, 2, 0.05, (0.0, 1.0, np.inf)),
    (6, 2, 3.0, 2, 0.1, (1.0, 2.0)),
    (7, 1, 1.0, 3, 0.02, (0.0, 0.5, np.inf)),
]


def fit_mip(X, y, costs, budget, depth, lam, weights=None, seconds=None, warm=False):
    """The MIP alone (no warm start unless asked): its certified value."""
    K = int(y.max()) + 1
    return solve_robust_mip(X, y, np.arange(K), costs, budget, depth, lam,
                            Deadline(seconds), [f"x{j}" for j in range(X.shape[1])],
                            weights, warm_start=warm)


def oracle_worst(tree_predict, X, y, costs, budget):
    """Worst-case correct rows of a fitted tree, from its predictions on the grid."""
    low, high = X.min(axis=0), X.max(axis=0)
    points = grid(low, high)
    pay = move_costs(X, costs, points)
    wrong = tree_predict(points)[None, :] != y[:, None]
    c = np.sort(np.where(wrong, pay, np.inf).min(axis=1))
    return len(y) - int((np.cumsum(c) <= budget + 1e-9).sum())


@pytest.mark.parametrize("case", CASES, ids=[f"case{c[0]}" for c in CASES])
def test_certified_optimum_matches_the_oracle(case):
    seed, depth, budget, K, lam, values = case
    X, y = data(seed, 8, 2, 2, K=K)
    costs = np.random.default_rng(seed).choice(values, size=X.shape)
    result = fit_mip(X, y, costs, budget, depth, lam)
    want = optimum(X, y, costs, budget, depth, lam, worst_knapsack)
    assert result.status == "optimal"
    assert result.objective == pytest.approx(want)
    assert result.bound == pytest.approx(want)
    # SCIP's own numbers, before the tree is re-evaluated: a wrong cut shows here first
    assert result.stats["dual_bound"] == pytest.approx(want)
    assert result.stats["mip_objective"] == pytest.approx(want)
    got = oracle_worst(result.model.predict, X, y, costs, budget) / len(y)
    assert got - lam * result.model.n_branches == pytest.approx(want)


@pytest.mark.parametrize("seed", range(40))
def test_the_best_response_per_row_flips_the_most_weight(seed):
    """flipped_rows (the scenario the cut is written for): within the budget, no row more
    than its weight, whole unit copies and its one fractional copy, and as much weight as
    the best subset of copies (the enumeration of test_robust_weights)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 6))
    c = rng.choice([0.0, 0.5, 1.0, 2.0, np.inf], size=n)
    w = [None, rng.integers(1, 4, size=n).astype(float),
         rng.choice([0.5, 1.0, 1.5, 2.25, 0.3], size=n)][seed % 3]
    budget = float(rng.choice([0.0, 0.5, 1.0, 2.5, 4.0]))
    v = flipped_rows(c, w, budget)
    ww = np.ones(n) if w is None else w
    assert_a_response(v, c, ww, budget)
    assert v.sum() == pytest.approx(most_flipped(c, ww, budget))


def heap_tree(tree, depth, low, high, K):
    """An oracle tree ("leaf", k) / ("split", f, t, a, b) in heap order, for the MIP."""
    size = 2 ** (depth + 1) - 1
    feature, threshold = np.full(size, -1), np.zeros(size, dtype=np.int64)
    label = np.full(size, -1)

    def put(t, n):
        if t[0] == "leaf":
            label[n] = t[1]
        else:
            feature[n], threshold[n] = t[1], t[2]
            put(t[3], 2 * n + 1)
            put(t[4], 2 * n + 2)

    put(tree, 0)
    return IntegerTree(feature, threshold, label, np.arange(K), low, high, ["a", "b"])


@pytest.mark.parametrize("seed, depth, budget", [(50, 1, 1.5), (51, 2, 2.0), (52, 2, 0.5)])
def test_every_cut_bounds_every_tree_and_is_exact_at_its_candidate(seed, depth, budget):
    """The cuts of each candidate tree T, read at every tree T' (its tests and labels as
    the MIP's variables): the scenario cut's right side is at least T''s worst case by the
    oracle and equals it at T; each row cut is 0 at T for a row T flips for free, and the
    row cuts at T' leave room for T''s worst case. The cuts at fractional points (mixes of
    trees) cut the point off and allow 1 at every tree that classifies the row."""
    X, y = data(seed, 6, 2, 2, K=2 + seed % 2)
    costs = np.random.default_rng(seed).choice([0.0, 0.5, 1.0, np.inf], size=X.shape)
    low, high, K = X.min(axis=0), X.max(axis=0), int(y.max()) + 1
    trees = all_trees(low, high, K, depth)
    trees = [trees[j] for j in np.random.default_rng(0).permutation(len(trees))[:40]]
    master = RobustMaster(X, y, K, costs, budget, depth, 0.0)
    m = ScipModel()
    master.build(m)
    try:
        xs = [master.start_values(heap_tree(t, depth, low, high, K)) for t in trees]
    finally:
        m.free()
    worst = [worst_knapsack(t, X, y, costs, budget, low, high) for t in trees]
    tree_ids = np.r_[master.b.ravel(), master.u.ravel()]

    def rhs(row, x):  # what the tree part of a cut allows (t's coefficients moved left)
        part = np.isin(row.ids, tree_ids)
        return -float(row.coefs[part] @ x[row.ids[part]])

    for T, x in enumerate(xs):
        rows, value, cap = master.cuts(master.decode(x))
        assert value == worst[T]
        # a row is capped at 0 exactly where it has a row cut (a free flip)
        assert sorted(int(r.ids[0] - master.t[0]) for r in rows[1:]) == \
            np.flatnonzero(cap == 0.0).tolist()
        assert rhs(rows[0], x) == pytest.approx(worst[T])
        for r in rows[1:]:
            assert rhs(r, x) == 0.0
        for U, xu in enumerate(xs):
            assert rhs(rows[0], xu) >= worst[U] - 1e-9
            caps = np.ones(len(y))
            for r in rows[1:]:
                i = int(r.ids[0] - master.t[0])
                caps[i] = min(caps[i], rhs(r, xu))
            assert caps.sum() >= worst[U] - 1e-9
    # the cuts at fractional points: each row's own min cut at a mix of trees (t = 1)
    rng = np.random.default_rng(seed)
    n_cuts = 0
    for _ in range(10):
        mix = rng.dirichlet(np.ones(3))
        x = sum(k * xs[j] for k, j in zip(mix, rng.choice(len(xs), 3), strict=True))
        x[master.t] = 1.0
        for r in master.lp_cuts(x):
            n_cuts += 1
            i = int(r.ids[0] - master.t[0])
            assert rhs(r, x) < 1.0 - 1e-4  # it cuts x off
            for U, xu in enumerate(xs):  # and no tree that classifies row i correctly
                assert rhs(r, xu) >= float(predict(trees[U], X[i:i + 1])[0] == y[i]) - 1e-9
    assert n_cuts > 0


def test_a_candidate_is_answered_once_for_its_check_and_its_cuts(monkeypatch):
    """SCIP checks a candidate, then separates it: the adversary's response to it is
    computed once (the last candidate's kept), and what is kept is the fresh answer for
    the candidate asked about, not another's."""
    import optrees.robust.mip as mip

    X, y = data(3, 8, 2, 2)
    costs = np.random.default_rng(3).choice([0.0, 0.5, 1.0], size=X.shape)
    low, high = X.min(axis=0), X.max(axis=0)
    master = RobustMaster(X, y, 2, costs, 1.0, 2, 0.0, weights=np.full(len(y), 1.5))
    m = ScipModel()
    try:
        master.build(m)
    finally:
        m.free()
    trees = all_trees(low, high, 2, 2)
    xs = [master.start_values(heap_tree(t, 2, low, high, 2)) for t in (trees[3], trees[-1])]
    codes = [master.decode(x) for x in xs]
    assert not np.array_equal(*codes)
    calls = []
    real = mip.box_distances
    monkeypatch.setattr(mip, "box_distances", lambda *a: calls.append(1) or real(*a))
    cuts = mip.RobustCuts(master)
    for x, code in [(xs[0], codes[0]), (xs[1], codes[1]), (xs[0], codes[0])]:
        before = len(calls)
        cuts.violated(x)
        cuts.separate(x, integral=True)
        cuts.violated(x)
        assert len(calls) == before + 1
        fresh = RobustMaster(X, y, 2, costs, 1.0, 2, 0.0, weights=np.full(len(y), 1.5))
        for got, want in zip(master.response(code), fresh.response(code), strict=True):
            assert np.array_equal(got, want)


@pytest.mark.parametrize("case", [CASES[3], CASES[6]], ids=["case3", "case6"])
def test_cuts_at_fractional_points_keep_the_optimum(case, monkeypatch):
    """The optional separation at LP points (rounded candidates' cuts) is valid too."""
    import optrees.robust.mip as mip

    monkeypatch.setattr(mip, "FRACTIONAL", True)
    seed, depth, budget, K, lam, values = case
    X, y = data(seed, 8, 2, 2, K=K)
    costs = np.random.default_rng(seed).choice(values, size=X.shape)
    result = fit_mip(X, y, costs, budget, depth, lam)
    assert result.status == "optimal" and result.stats["fractional_cuts"] > 0
    assert result.objective == pytest.approx(optimum(X, y, costs, budget, depth, lam,
                                                     worst_knapsack))


@pytest.mark.parametrize("seed", range(2))
def test_integer_weights_are_duplicated_rows(seed):
    X, y = data(30 + seed, 6, 2, 2)
    w = np.random.default_rng(seed).integers(1, 4, size=len(y)).astype(float)
    costs = np.random.default_rng(seed).choice([0.0, 1.0, 2.0], size=X.shape)
    result = fit_mip(X, y, costs, 2.0, 2, 0.0, weights=w)
    reps = w.astype(int)
    want = optimum(np.repeat(X, reps, axis=0), np.repeat(y, reps), np.repeat(costs, reps,
                                                                               axis=0),
                   2.0, 2, 0.0, worst_knapsack)
    assert result.status == "optimal"
    assert result.objective == pytest.approx(want)


def test_fractional_weights_agree_with_the_search():
    X, y = data(40, 8, 2, 2)
    w = np.random.default_rng(1).choice([0.5, 1.0, 1.5, 2.25], size=len(y))
    kw = dict(depth=2, budget=1.5)
    mip = RobustTreeClassifier(method="mip", **kw).fit(X, y, sample_weight=w)
    search = RobustTreeClassifier(**kw).fit(X, y, sample_weight=w)
    assert mip.status_ == search.status_ == "optimal"
    assert mip.objective_ == pytest.approx(search.objective_)
    assert mip.stats_["method"] == "mip" and search.stats_["method"] == "search"


@needs_data
def test_agrees_with_the_search_on_monk1():
    """Real data: the first 60 rows of monk1 (6 ordinal features), depth 2, a budget."""
    df = pd.read_csv(DATA_DIR / "monk1.csv", sep=";", encoding="utf-8-sig").iloc[:60]
    X, y = df.iloc[:, :-1].to_numpy(np.int64), df.iloc[:, -1].to_numpy()
    costs = np.random.default_rng(0).choice([1.0, 2.0, 4.0], size=X.shape)
    kw = dict(depth=2, budget=3.0, time_limit=60)
    search = RobustTreeClassifier(**kw).fit(X, y, costs)
    mip = RobustTreeClassifier(method="mip", **kw).fit(X, y, costs)
    assert search.status_ == mip.status_ == "optimal"
    assert mip.objective_ == pytest.approx(search.objective_)
    assert mip.worst_case_accuracy(X, y, costs, 3.0) == pytest.approx(mip.objective_)


def test_time_limited_mip_keeps_a_valid_tree_and_bound():
    """Stopped at 0.4 s, before its proof (a 2-split tree, gap > 0, on this machine)."""
    X, y = data(1, 16, 3, 3)
    flip = np.random.default_rng(1).random(16) < 0.15
    y = ((X[:, 0] + X[:, 1] >= 3) ^ flip).astype(int)
    costs = np.random.default_rng(9).choice([0.5, 1.0, 2.0], size=X.shape)
    result = fit_mip(X, y, costs, 1.5, 2, 0.0, seconds=0.4)
    worst = oracle_worst(result.model.predict, X, y, costs, 1.5) / len(y)
    want = optimum(X, y, costs, 1.5, 2, 0.0, worst_knapsack)
    assert result.objective == pytest.approx(worst)
    assert result.bound >= result.objective - 1e-9
    assert result.bound >= want - 1e-9
    assert result.objective <= want + 1e-9
    assert result.status in ("optimal", "time_limit")
    if result.status == "time_limit":
        assert result.gap == pytest.approx((result.bound - result.objective)
                                           / result.objective)


def test_the_estimators_time_limit_warns_and_keeps_the_bound():
    X, y = data(9, 14, 3, 3)
    m = RobustTreeClassifier(depth=2, budget=2.0, method="mip", time_limit=0.3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m.fit(X, y)
    assert m.bound_ >= m.objective_
    assert m.worst_case_accuracy(X, y, np.ones(X.shape), 2.0) == pytest.approx(m.objective_)


def test_bad_method_is_one_clear_error():
    X, y = data(0, 6, 2, 2)
    with pytest.raises(OptreesInputError, match="method must be 'search' or 'mip', got 'lp'"):
        RobustTreeClassifier(method="lp").fit(X, y)


@pytest.mark.parametrize(("case", "n"), [(CASES[2], 8), (CASES[4], 10)],
                         ids=["case2", "case4"])
def test_a_weak_warm_start_gives_way_to_the_mips_tree(case, n, monkeypatch):
    """A warm search given no time returns a worse tree than the optimum; the fit must
    return the better of its candidates (the MIP's), certified."""
    from optrees.robust import mip

    search = mip.solve_robust_tree
    monkeypatch.setattr(mip, "solve_robust_tree",
                        lambda *a: search(*a[:7], Deadline(0.0), *a[8:]))
    seed, depth, budget, K, lam, values = case
    X, y = data(seed, n, 2, 2, K=K)
    costs = np.random.default_rng(seed).choice(values, size=X.shape)
    result = fit_mip(X, y, costs, budget, depth, lam, warm=True)
    want = optimum(X, y, costs, budget, depth, lam, worst_knapsack)
    assert result.stats["warm_objective"] < want - 1e-9  # the start is worse: the test bites
    assert result.status == "optimal"
    assert result.objective == pytest.approx(want)


def test_no_mip_is_built_once_the_warm_start_used_the_time(monkeypatch):
    """The master's rows and the start's cuts took 1-1.5 s on 20,000 rows with
    ``time_limit=0.01``: past the deadline after the warm start, no SCIP model is made, and
    the warm start's tree is returned with status time_limit."""
    from optrees.robust import mip as mip_mod
    from optrees.solvers.deadline import Deadline

    def no_model(*args, **kwargs):
        raise AssertionError("a SCIP model built after the deadline")

    monkeypatch.setattr(mip_mod, "ScipModel", no_model)
    rng = np.random.default_rng(0)
    X = rng.integers(0, 4, (60, 3))
    y = (X[:, 0] + rng.integers(0, 2, 60) > 2).astype(int)
    res = solve_robust_mip(X, y, np.array([0, 1]), np.ones(X.shape), 1.0, 2, 0.0, Deadline(at=0.0),
                           ["a", "b", "c"])
    assert res.status == "time_limit" and res.model is not None
