"""The treatment budget of OptimalPolicyTree (issue #45) against an enumeration written from
the definitions: every tree of depth 1-3 over 0/1 features, every assignment of treatments
to its leaves, the teacher's scores from the FlowOPT / pystreed formulas, the budget share
from the assignment (weighted rows given the budgeted treatment / all weight)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from oracles import teacher_scores

from optrees import OptimalPolicyTree, OptreesInputError

# ---------------------------------------------------------------- oracles from the definitions

def leaf_partitions(X, depth, min_leaf, rows=None):
    """The leaves (row masks) of every tree of depth <= ``depth`` on 0/1 ``X``, every side
    of every split holding >= ``min_leaf`` rows."""
    rows = np.ones(len(X), dtype=bool) if rows is None else rows
    out = [[rows]]
    if depth == 0:
        return out
    for f in range(X.shape[1]):
        left, right = rows & (X[:, f] == 0), rows & (X[:, f] == 1)
        if min(left.sum(), right.sum()) < min_leaf:
            continue
        for a in leaf_partitions(X, depth - 1, min_leaf, left):
            for b in leaf_partitions(X, depth - 1, min_leaf, right):
                out.append(a + b)
    return out


def budgeted_optimum(X, G, w, depth, lam, min_leaf, treatment, share):
    """:func:`optimum_under_budgets` with one budget."""
    return optimum_under_budgets(X, G, w, depth, lam, min_leaf, {treatment: share})


def optimum_under_budgets(X, G, w, depth, lam, min_leaf, budgets, max_leaves=None):
    """max over every tree of at most ``max_leaves`` leaves and every assignment of
    treatments to its leaves with (weight given k) / W <= ``budgets[k]`` for every budgeted
    k, of sum_i w_i G[i, leaf's k] / W - lam * leaves (-inf: no tree meets the budgets)."""
    W, K = w.sum(), G.shape[1]
    best = -np.inf
    for leaves in leaf_partitions(X, depth, min_leaf):
        L = len(leaves)
        if max_leaves is not None and L > max_leaves:
            continue
        value = np.array([[w[rows] @ G[rows, k] for k in range(K)] for rows in leaves])
        weight = np.array([w[rows].sum() for rows in leaves])
        ks = np.array(list(itertools.product(range(K), repeat=L)))  # every assignment
        ok = np.ones(len(ks), dtype=bool)
        for k, share in budgets.items():
            ok &= ((ks == k) * weight).sum(axis=1) / W <= share + 1e-12
        if ok.any():
            total = value[np.arange(L), ks[ok]].sum(axis=1) / W
            best = max(best, float(total.max()) - lam * L)
    return best


def make_data(seed, n, K):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, (n, 3)), columns=["a", "b", "c"])
    t = rng.integers(0, K, n)
    t[:K] = np.arange(K)
    y = rng.normal(size=n) + 1.5 * (t == (X["a"] + X["b"]).to_numpy() % K)
    mu = rng.uniform(0.2, 1.0, n)
    yhat = rng.normal(size=(n, K)) + 0.8 * (np.arange(K)[None, :] == 1)
    w = rng.integers(1, 4, n).astype(float)
    return X, t, y, mu, yhat, w


CASES = [  # seed, n, K, depth, lam, min_leaf, treatment, share
    (1, 24, 2, 1, 0.0, 1, 1, 0.3),
    (2, 30, 2, 2, 0.0, 1, 1, 0.25),
    (3, 30, 3, 2, 0.01, 1, 1, 0.2),
    (4, 28, 3, 2, 0.0, 3, 1, 0.3),
    (4, 28, 3, 2, 0.0, 3, 0, 0.4),  # the free optimum keeps within it
    (5, 30, 3, 2, 0.02, 2, 2, 0.1),
    (6, 26, 2, 2, 0.0, 1, 0, 0.0),
    (7, 30, 3, 1, 0.0, 1, 1, 0.5),
    (9, 30, 2, 3, 0.01, 2, 1, 0.3),  # depth 3: the front search's deepest
]



def _proved(m, X, G, w, lam, want):
    """Check that ``m`` proved the optimum ``want``: its policy's teacher value (``G``,
    weights ``w``) less ``lam`` per leaf, its objective and its bound all equal it; returns
    the recommended treatments."""
    rec = m.predict(X)
    got = float(G[np.arange(len(rec)), rec] @ w / w.sum()) - lam * m.tree_.n_leaves
    assert m.status_ == "optimal" and m.gap_ == 0.0
    assert got == pytest.approx(want, abs=1e-9)
    assert m.objective_ == pytest.approx(want, abs=1e-9)
    assert m.bound_ == pytest.approx(want, abs=1e-9)
    return rec

@pytest.mark.parametrize("teacher", ["ipw", "dm", "dr"])
@pytest.mark.parametrize("case", CASES)
def test_budgeted_optimum_equals_enumeration(teacher, case):
    seed, n, K, depth, lam, min_leaf, k, share = case
    X, t, y, mu, yhat, w = make_data(seed, n, K)
    m = OptimalPolicyTree(depth=depth, lam=lam, teacher=teacher, min_samples_leaf=min_leaf,
                          treatment_budget={k: share}).fit(
        X, t, y, propensity=mu, outcome_predictions=yhat, sample_weight=w)
    G = teacher_scores(teacher, t, y, mu, yhat, K)
    want = budgeted_optimum(X.to_numpy(), G, w, depth, lam, min_leaf, k, share)
    rec = _proved(m, X, G, w, lam, want)
    # the budget holds on the training rows, weighted
    assert w[rec == k].sum() / w.sum() <= share + 1e-12
    assert m.treatment_shares_[k] == pytest.approx(w[rec == k].sum() / w.sum())
    leaves = m.apply(X)
    assert np.bincount(leaves)[np.unique(leaves)].min() >= min_leaf


def test_budget_binds_where_the_free_optimum_breaks_it():
    """The case the budget is for: the free optimum gives treatment 1 to more than the share,
    the budgeted one to at most it, at a lower value (enumerated)."""
    X, t, y, mu, yhat, w = make_data(2, 30, 2)
    G = teacher_scores("dm", t, y, mu, yhat, 2)
    free = OptimalPolicyTree(depth=2, teacher="dm").fit(X, t, y, mu, yhat, sample_weight=w)
    shares = np.bincount(free.predict(X), weights=w, minlength=2) / w.sum()
    assert shares[1] > 0.25
    m = OptimalPolicyTree(depth=2, teacher="dm", treatment_budget=[1.0, 0.25]).fit(
        X, t, y, mu, yhat, sample_weight=w)
    assert m.objective_ < free.objective_ - 1e-9
    assert m.objective_ == pytest.approx(
        budgeted_optimum(X.to_numpy(), G, w, 2, 0.0, 1, 1, 0.25), abs=1e-9)
    assert w[m.predict(X) == 1].sum() / w.sum() <= 0.25


def test_every_threshold_of_a_numeric_column_at_depth_2():
    """A numeric column with few values is cut at every threshold (as under fairness): the
    budgeted optimum equals the enumeration over the 0/1 columns plus ``z >= v`` for every
    value v of z but the smallest, and the fit says its optimum holds over every threshold."""
    X, t, y, mu, yhat, w = make_data(6, 30, 3)
    X["z"] = np.random.default_rng(6).choice([0.0, 0.5, 1.5, 3.0, 7.0, 9.0], 30)
    m = OptimalPolicyTree(depth=2, teacher="dr", treatment_budget={1: 0.2}).fit(
        X, t, y, mu, yhat, sample_weight=w)
    z = X["z"].to_numpy()
    cuts = np.column_stack([z >= v for v in np.unique(z)[1:]]).astype(int)
    B = np.column_stack([X[["a", "b", "c"]].to_numpy(), cuts])
    G = teacher_scores("dr", t, y, mu, yhat, 3)
    want = budgeted_optimum(B, G, w, 2, 0.0, 1, 1, 0.2)
    assert m.status_ == "optimal" and m.thresholds_ == "all"
    assert m.objective_ == pytest.approx(want, abs=1e-9)


def test_depth3_and_many_valued_columns_keep_the_budget():
    """Depth 3 over a numeric column of 300 values (more cuts than the front search takes):
    the budget holds at both depths, depth 2 is over every threshold, and depth 3's
    certificate is over the binarizer's cuts (said in stats_)."""
    X, t, y, mu, yhat, w = make_data(8, 300, 3)
    X["z"] = np.random.default_rng(8).normal(size=300)
    args = (X, t, y, mu, yhat)
    two = OptimalPolicyTree(depth=2, treatment_budget={1: 0.2}).fit(*args, sample_weight=w)
    three = OptimalPolicyTree(depth=3, treatment_budget={1: 0.2}).fit(*args, sample_weight=w)
    for m in (two, three):
        assert w[m.predict(X) == 1].sum() / w.sum() <= 0.2 + 1e-12
    assert two.thresholds_ == "all"
    assert three.thresholds_ == "binarized"
    assert three.stats_["every_threshold"].startswith("off: treatment budget")


@pytest.mark.parametrize("budgets", [{1: 0.2}, {1: 0.2, 2: 0.1}])
def test_stopped_search_keeps_the_budget_and_an_upper_bound(monkeypatch, budgets):
    """A search stopped after the unconstrained solve: its tree keeps every budget, status
    time_limit, and the bound is at least the enumerated budgeted optimum."""
    import optrees.trees.search.binary.budget as budget
    from optrees.estimators._base import TimeLimitWarning

    real = budget.solve_subtree

    def then_stop(*args, deadline=None, **kwargs):
        found = real(*args, deadline=None, **kwargs)
        deadline.stop()  # the front search meets a stopped deadline
        return found

    monkeypatch.setattr(budget, "solve_subtree", then_stop)
    X, t, y, mu, yhat, w = make_data(3, 30, 3)
    with pytest.warns(TimeLimitWarning):
        m = OptimalPolicyTree(depth=2, teacher="dr", treatment_budget=budgets).fit(
            X, t, y, mu, yhat, sample_weight=w)
    G = teacher_scores("dr", t, y, mu, yhat, 3)
    want = optimum_under_budgets(X.to_numpy(), G, w, 2, 0.0, 1, budgets)
    assert m.status_ in ("time_limit", "interrupted")
    assert m.objective_ <= want + 1e-9 <= m.bound_ + 2e-9
    for k, share in budgets.items():
        assert w[m.predict(X) == k].sum() / w.sum() <= share + 1e-12


MULTI = [  # seed, n, depth, lam, min_leaf, budgets (3 treatments, weighted rows)
    (11, 30, 1, 0.0, 1, {1: 0.3, 2: 0.2}),
    (12, 30, 2, 0.0, 1, {1: 0.2, 2: 0.1}),
    (13, 32, 2, 0.01, 2, {0: 0.3, 2: 0.25}),
    (14, 30, 2, 0.0, 1, {1: 0.15, 2: 0.0}),   # a share of 0: the treatment is never given
    (15, 30, 2, 0.0, 1, {0: 0.5, 1: 0.4, 2: 0.3}),  # every treatment budgeted
    (16, 28, 3, 0.0, 2, {1: 0.2, 2: 0.15}),
    (17, 30, 3, 0.01, 1, {0: 0.4, 1: 0.3}),
]


@pytest.mark.parametrize("teacher", ["ipw", "dm", "dr"])
@pytest.mark.parametrize("case", MULTI)
def test_several_budgets_equal_enumeration(teacher, case):
    """Several budgets at once: the certified optimum is the enumerated one, and every
    budget holds on the weighted training rows."""
    seed, n, depth, lam, min_leaf, budgets = case
    X, t, y, mu, yhat, w = make_data(seed, n, 3)
    m = OptimalPolicyTree(depth=depth, lam=lam, teacher=teacher, min_samples_leaf=min_leaf,
                          treatment_budget=budgets).fit(
        X, t, y, propensity=mu, outcome_predictions=yhat, sample_weight=w)
    G = teacher_scores(teacher, t, y, mu, yhat, 3)
    want = optimum_under_budgets(X.to_numpy(), G, w, depth, lam, min_leaf, budgets)
    rec = _proved(m, X, G, w, lam, want)
    for k, share in budgets.items():
        assert w[rec == k].sum() / w.sum() <= share + 1e-12


LEAF_BUDGETS = [  # seed, n, depth, lam, min_leaf, max_leaves, budgets (3 treatments)
    (21, 30, 2, 0.0, 1, 2, {1: 0.3}),
    (22, 30, 2, 0.0, 1, 2, {1: 0.2, 2: 0.1}),
    (23, 28, 3, 0.0, 1, 3, {1: 0.2, 2: 0.2}),
    (24, 30, 3, 0.01, 2, 5, {0: 0.4, 1: 0.3}),
    (25, 30, 3, 0.0, 1, 4, {2: 0.15}),
]


@pytest.mark.parametrize("teacher", ["ipw", "dr"])
@pytest.mark.parametrize("case", LEAF_BUDGETS)
def test_budgets_with_max_leaves_equal_enumeration(teacher, case):
    """Treatment budgets and a leaf budget at once: the enumerated optimum, every budget
    kept, at most max_leaves leaves."""
    seed, n, depth, lam, min_leaf, max_leaves, budgets = case
    X, t, y, mu, yhat, w = make_data(seed, n, 3)
    m = OptimalPolicyTree(depth=depth, lam=lam, teacher=teacher, min_samples_leaf=min_leaf,
                          max_leaves=max_leaves, treatment_budget=budgets).fit(
        X, t, y, propensity=mu, outcome_predictions=yhat, sample_weight=w)
    G = teacher_scores(teacher, t, y, mu, yhat, 3)
    want = optimum_under_budgets(X.to_numpy(), G, w, depth, lam, min_leaf, budgets,
                                 max_leaves)
    rec = m.predict(X)
    assert m.status_ == "optimal"
    assert m.objective_ == pytest.approx(want, abs=1e-9)
    assert float(G[np.arange(n), rec] @ w / w.sum()) - lam * m.tree_.n_leaves == \
        pytest.approx(want, abs=1e-9)
    assert len(np.unique(m.apply(X))) <= m.tree_.n_leaves <= max_leaves
    for k, share in budgets.items():
        assert w[rec == k].sum() / w.sum() <= share + 1e-12


def test_several_budgets_bind_where_one_does_not():
    """Two budgets that each bind: the optimum under both is below the optimum under
    either, each enumerated."""
    X, t, y, mu, yhat, w = make_data(12, 30, 3)
    G = teacher_scores("dr", t, y, mu, yhat, 3)
    B = X.to_numpy()
    both = {1: 0.2, 2: 0.1}
    values = [optimum_under_budgets(B, G, w, 2, 0.0, 1, b) for b in ({}, {1: 0.2}, {2: 0.1},
                                                                      both)]
    assert values[3] < min(values[1], values[2]) - 1e-9
    assert max(values[1], values[2]) < values[0] - 1e-9
    m = OptimalPolicyTree(depth=2, teacher="dr", treatment_budget=both).fit(
        X, t, y, mu, yhat, sample_weight=w)
    assert m.objective_ == pytest.approx(values[3], abs=1e-9)


def test_no_tree_meets_the_budgets():
    """Every treatment budgeted and the rows cannot be split: one clear error."""
    X, t, y, mu, yhat, _ = make_data(1, 24, 2)
    X[:] = 0
    with pytest.raises(OptreesInputError, match="no policy tree of depth <= 2 meets"):
        OptimalPolicyTree(depth=2, treatment_budget={0: 0.6, 1: 0.6}).fit(
            X, t, y, mu, yhat)


@pytest.mark.parametrize("budget,words", [
    ({1: -0.1}, "must lie in [0, 1]"),
    ({1: 1.5}, "must lie in [0, 1]"),
    ({1: "half"}, "must lie in [0, 1]"),
    ({7: 0.2}, "names treatment 7"),
    ({"b": 0.2}, "names treatment 'b'"),
    ({0: 0.3, 1: 0.3, 2: 0.3}, "every policy infeasible"),
    ([0.2, 0.5], "one share per treatment"),
])
def test_bad_budget_gives_one_clear_error(budget, words):
    X, t, y, mu, yhat, w = make_data(1, 24, 3)
    with pytest.raises(OptreesInputError) as info:
        OptimalPolicyTree(treatment_budget=budget).fit(X, t, y, mu, yhat)
    assert words in str(info.value)


def test_budget_outside_the_front_search_is_refused():
    X, t, y, mu, yhat, _ = make_data(1, 24, 2)
    with pytest.raises(OptreesInputError, match="depth <= 3"):
        OptimalPolicyTree(depth=4, treatment_budget={1: 0.2}).fit(X, t, y, mu, yhat)


def test_shares_of_one_are_no_budget():
    """A share of 1 constrains nothing: the same tree as without a budget."""
    X, t, y, mu, yhat, w = make_data(5, 30, 3)
    free = OptimalPolicyTree(depth=2).fit(X, t, y, mu, yhat, sample_weight=w)
    same = OptimalPolicyTree(depth=2, treatment_budget={0: 1.0}).fit(
        X, t, y, mu, yhat, sample_weight=w)
    assert same.objective_ == pytest.approx(free.objective_)


def test_loaded_model_keeps_the_budget_and_predictions(tmp_path):
    from optrees import load_model, save_model

    X, t, y, mu, yhat, w = make_data(4, 28, 3)
    m = OptimalPolicyTree(depth=2, treatment_budget={1: 0.3}).fit(
        X, t, y, mu, yhat, sample_weight=w)
    save_model(m, tmp_path / "policy.json")
    loaded = load_model(tmp_path / "policy.json")
    assert (loaded.predict(X) == m.predict(X)).all()
    assert loaded.treatment_budget == {1: 0.3}
    assert loaded.treatment_shares_ == pytest.approx(
        np.bincount(m.predict(X), weights=w, minlength=3) / w.sum())
