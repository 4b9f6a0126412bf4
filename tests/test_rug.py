"""RUG / FairRUG ([RUG] §3): column generation, pricing, estimator, fairness."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from data_dir import DATA_DIR
from oracles import three_group_classes
from sklearn.tree import DecisionTreeClassifier

from optrees._validation import OptreesInputError
from optrees.datasets import load_dataset
from optrees.encoding.columns import RawColumns
from optrees.estimators._base import TimeLimitWarning
from optrees.estimators.rules import RUGClassifier
from optrees.metrics import (
    avg_rule_length,
    avg_rule_length_per_sample,
    avg_rules_per_sample,
    dmc_score,
    eop_score,
    interpretability,
    n_rules,
    odm_score,
)
from optrees.models.rule_set import Literal, RuleSet, simplify_literals
from optrees.rug.fairness import Fairness
from optrees.rug.generation import RuleGeneration
from optrees.rug.master import RUGMaster


def _tiny(seed=0, n=14, K=3):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "a": pd.Categorical(rng.choice(["p", "q", "r"], n)),
        "b": pd.Categorical(rng.choice(["u", "v"], n)),
        "x": rng.integers(0, 4, n).astype(float),
    })
    y = rng.integers(0, K, n)
    return X, y


def _all_literals(raw):
    lits = []
    for name in raw.names:
        if name in raw.numeric:
            vals = np.unique(raw.numeric[name])
            for t in (vals[:-1] + vals[1:]) / 2:
                lits += [Literal(name, "<=", float(t)), Literal(name, ">", float(t))]
        else:
            for c in raw.categories[name]:
                lits += [Literal(name, "==", c), Literal(name, "!=", c)]
    return lits


def _all_conjunctions(raw, max_len):
    lits = _all_literals(raw)
    out = set()
    for ell in range(1, max_len + 1):
        for combo in itertools.combinations(lits, ell):
            out.add(simplify_literals(combo, raw.names))
    return sorted(out, key=str)


def _full_lp(raw, y, K, rules, pen_par, length_cost):
    master = RUGMaster(y, K, pen_par)
    for lits in rules:
        cover = raw.cover(lits)
        if len(cover) == 0:
            continue
        c = float(max(1, len(lits))) if length_cost else 1.0
        for k in range(K):
            master.add(cover, k, c)
    return master.solve()


@pytest.mark.parametrize("seed,pen_par,length_cost", [(0, 0.5, True), (1, 1.0, False),
                                                      (2, 0.2, True)])
def test_exhaustive_pricing_reaches_full_lp_optimum(seed, pen_par, length_cost):
    X, y = _tiny(seed)
    raw = RawColumns(X)
    rules = _all_conjunctions(raw, 2)
    full = _full_lp(raw, y, 3, rules, pen_par, length_cost)
    assert full.status == "optimal"
    gen = RuleGeneration(raw, y, 3, max_depth=1, pen_par=pen_par, max_rmp_calls=1000,
                         rule_length_cost=length_cost, pricer=lambda beta: rules)
    res = gen.run()
    assert res.status == "converged"
    assert res.objective == pytest.approx(full.objective, abs=1e-7)
    # tree pricing gives a restricted LP over (a subset of) the same rules: never below
    tree = RuleGeneration(raw, y, 3, max_depth=2, pen_par=pen_par, max_rmp_calls=50,
                          rule_length_cost=length_cost).run()
    assert tree.objective >= full.objective - 1e-7


def test_reduced_costs_from_duals_match_highs():
    X, y = load_dataset("balance-scale")
    yk = np.unique(y.to_numpy(), return_inverse=True)[1]
    raw = RawColumns(X)
    gen = RuleGeneration(raw, yk, 3, max_depth=3, pen_par=0.5, max_rmp_calls=6)
    res = gen.run()
    assert len(res.rules) > 10
    mine = np.array([gen.reduced_cost(raw.cover(r.literals), r.label, r.cost, res.beta)
                     for r in res.rules])
    np.testing.assert_allclose(mine, res.reduced_costs, atol=1e-8)
    # the same with the per-sample (unaggregated) master LP over the same pool
    m = RUGMaster(yk, 3, 0.5)
    for r in res.rules:
        m.add(raw.cover(r.literals), r.label, r.cost)
    full = m.solve()
    assert full.objective == pytest.approx(res.objective)
    own = np.array([m.reduced_cost(c, k, cost, full.stats["duals"])
                    for c, k, cost in zip(m.cover, m.labels, m.costs, strict=True)])
    np.testing.assert_allclose(own, full.stats["reduced_costs"][m.cols], atol=1e-8)
    assert (res.beta >= -1e-9).all() and (res.beta <= 1 + 1e-9).all()  # dual bounds of (4)
    # Lemma 1: beta_i > 0 => v_i = ... >= 0 and v_i > 0 => beta_i = 1
    assert np.all(res.beta[res.v > 1e-7] > 1 - 1e-7)
    # LP objective = lam * sum c w + sum v
    w = np.array([r.weight for r in res.rules])
    assert 0.5 * (w @ np.array([r.cost for r in res.rules])) + res.v.sum() == pytest.approx(
        res.objective)


def test_training_coverage_equals_rule_set_coverage():
    X, y = load_dataset("house-votes-84")
    m = RUGClassifier(max_depth=3, random_state=0, threshold=0.0).fit(X, y)
    raw = RawColumns(X)
    A = m.all_rules_.coverage(X)
    for j, r in enumerate(m.all_rules_.rules):
        np.testing.assert_array_equal(np.flatnonzero(A[:, j]), raw.cover(r.literals))


def test_tree_leaf_rules_reproduce_the_tree():
    X, y = load_dataset("balance-scale")
    raw = RawColumns(X)
    from optrees.rug.pricing import tree_leaf_rules

    tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(raw.matrix, y)
    rules = tree_leaf_rules(tree.tree_, raw)
    leaves = tree.apply(raw.matrix)
    assert len(rules) == len(np.unique(leaves))
    covered = np.zeros(len(y), dtype=int)
    for lits in rules:
        cover = raw.cover(lits)
        assert len(np.unique(leaves[cover])) == 1  # one leaf per rule
        covered[cover] += 1
    assert (covered == 1).all()  # the leaves partition the data


@pytest.mark.parametrize("name,depth", [("monk1", 2), ("monk1", 3), ("house-votes-84", 3),
                                        ("balance-scale", 3)])
def test_training_accuracy_at_least_cart(name, depth):
    X, y = load_dataset(name)
    m = RUGClassifier(max_depth=depth, pen_par=1.0, max_rmp_calls=10, random_state=0).fit(X, y)
    raw = RawColumns(X)
    cart = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(raw.matrix, y)
    assert m.score(X, y) >= cart.score(raw.matrix, y) - 1e-9
    assert 1 <= m.n_rmp_calls_ <= 10 and m.lp_status_ == "optimal"
    assert all(r.length <= depth for r in m.rules_.rules)


def test_multiclass_end_to_end_and_api():
    X, y = load_dataset("balance-scale")
    m = RUGClassifier(max_depth=3, random_state=0).fit(X, y)
    assert set(m.predict(X)) <= set(m.classes_)
    P = m.predict_proba(X)
    assert P.shape == (len(X), 3)
    np.testing.assert_allclose(P.sum(axis=1), 1)
    D = m.decision_function(X)
    assert D.shape == (len(X), 3)
    cov = m.rules_.coverage(X).any(axis=1)
    np.testing.assert_array_equal(m.classes_[D.argmax(axis=1)][cov], m.predict(X)[cov])
    assert "THEN class" in m.export_text()
    # numpy input, read by position
    assert (m.predict(X.to_numpy(dtype=object)) == m.predict(X)).all()


def test_mixed_numeric_categorical_json_round_trip_and_explain():
    rng = np.random.default_rng(3)
    n = 200
    X = pd.DataFrame({"age": rng.normal(40, 10, n), "city": rng.choice(["ams", "ist", "rot"], n),
                      "score": rng.integers(0, 100, n)})
    y = np.where((X["age"] > 40) & (X["city"] != "ist") | (X["score"] > 80), "yes", "no")
    m = RUGClassifier(max_depth=2, random_state=1, threshold=0.0).fit(X, y)
    assert m.score(X, y) > 0.9
    text = m.export_text()
    assert "age" in text and ("city ==" in text or "city !=" in text)
    back = RuleSet.from_json(m.rules_.to_json())
    np.testing.assert_array_equal(back.predict(X), m.predict(X))
    np.testing.assert_allclose(back.predict_proba(X), m.predict_proba(X))
    D = m.rules_.decision_function(X)
    for i, fired in enumerate(m.explain(X)[:50]):
        vote = np.zeros(2)
        for f in fired:
            k = list(m.classes_).index(f["class"])
            vote[k] += f["weight"]
            vote[1 - k] -= f["weight"]
        np.testing.assert_allclose(vote, D[i], atol=1e-9)


def test_pruning_threshold():
    X, y = load_dataset("tic-tac-toe")
    full = RUGClassifier(max_depth=3, random_state=0, threshold=0.0).fit(X, y)
    pruned = RUGClassifier(max_depth=3, random_state=0, threshold=0.3).fit(X, y)
    assert len(pruned.rules_) < len(full.rules_)
    wmax = max(r.weight for r in full.rules_.rules)
    assert all(r.weight >= 0.3 * wmax - 1e-9 for r in pruned.rules_.rules)
    assert all(r.weight > 0 for r in full.rules_.rules)
    assert full.objective_ == pytest.approx(pruned.objective_)


def test_determinism_with_random_state():
    X, y = load_dataset("car-evaluation")
    a = RUGClassifier(max_depth=3, random_state=7).fit(X, y)
    b = RUGClassifier(max_depth=3, random_state=7).fit(X, y)
    assert a.rules_.to_dict() == b.rules_.to_dict()
    assert a.objective_ == b.objective_


@pytest.mark.parametrize("limit", [0.05, 1e-4])
def test_time_limit_returns_model_with_warning(limit):
    """Stopped by the time limit, even when it ends before the first LP (1e-4 s; that LP
    still gets 1 ms, and a loaded machine once made it end without a solution, which
    raised), RUG returns a model and warns."""
    X, y = load_dataset("kr-vs-kp")
    with pytest.warns(TimeLimitWarning):
        m = RUGClassifier(max_depth=3, max_rmp_calls=1000, time_limit=limit,
                          random_state=0).fit(X, y)
    assert m.status_ == "time_limit"
    assert len(m.predict(X)) == len(X)


def test_pen_par_and_rule_length_cost_shrink_the_model():
    X, y = load_dataset("tic-tac-toe")
    small = RUGClassifier(max_depth=3, pen_par=10.0, random_state=0, threshold=0.0).fit(X, y)
    large = RUGClassifier(max_depth=3, pen_par=0.1, random_state=0, threshold=0.0).fit(X, y)
    assert len(small.rules_) <= len(large.rules_)


@pytest.mark.parametrize("kwargs,match", [
    ({"pen_par": -1.0}, "pen_par"), ({"max_rmp_calls": 0}, "max_rmp_calls"),
    ({"max_depth": 0}, "max_depth"), ({"threshold": 2.0}, "threshold"),
    ({"time_limit": -3}, "time_limit"), ({"fairness": "xyz"}, "fairness"),
    ({"fairness": "dmc", "sensitive": "nope"}, "sensitive column"),
    ({"fairness": "dmc", "sensitive": "a", "epsilon": -0.1}, "epsilon"),
    ({"fairness": "odm"}, "sensitive attribute"),
])
def test_bad_parameters(kwargs, match):
    X, y = _tiny(0, n=30, K=2)
    with pytest.raises(OptreesInputError, match=match):
        RUGClassifier(**kwargs).fit(X, y)


def test_bad_data():
    X, y = _tiny(0, n=30, K=2)
    Xn = X.copy()
    Xn.loc[3, "x"] = np.nan
    with pytest.raises(OptreesInputError, match="missing"):
        RUGClassifier().fit(Xn, y)
    with pytest.raises(OptreesInputError, match="single class"):
        RUGClassifier().fit(X, np.zeros(30))
    with pytest.raises(OptreesInputError, match="different numbers of rows"):
        RUGClassifier().fit(X, y[:-1])
    m = RUGClassifier(random_state=0).fit(X, y)
    with pytest.raises(OptreesInputError, match="columns"):
        m.predict(X.to_numpy()[:, :2])


# --------------------------------------------------------------------------- fairness
def _fair_data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    g = rng.choice(["f", "m"], n, p=[0.4, 0.6])
    x1 = rng.normal(size=n)
    x2 = rng.normal(size=n)
    # group f is noisier: a plain model errs more on it
    noise = np.where(g == "f", 0.9, 0.2)
    y = ((x1 + 0.5 * x2 + rng.normal(scale=noise * 2, size=n)) > 0).astype(int)
    return pd.DataFrame({"x1": x1, "x2": x2, "sex": g}), y


def _pool_lp(model, X, y):
    """Objective of the unconstrained master LP (3) over the model's whole rule pool."""
    raw = RawColumns(X.set_axis([str(c) for c in X.columns], axis=1))
    yk = np.unique(y, return_inverse=True)[1]
    master = RUGMaster(yk, len(model.classes_), model.pen_par)
    for r in model.all_rules_.rules:
        master.add(raw.cover(r.literals), r.label, r.cost)
    return master.solve().objective


def _group_means(v, idx_sets):
    return [v[idx].mean() for idx in idx_sets]


@pytest.mark.filterwarnings("ignore::optrees.fairness.FairnessWarning")  # the LP, not the repair
@pytest.mark.parametrize("kind", ["dmc", "odm", "equal_opportunity"])
def test_fairness_constraints_hold_on_training_v(kind):
    """The LP's own caps on the slacks (without the repair, which re-weights for the
    predictions' gap and may leave the LP's caps)."""
    X, y = _fair_data()
    eps = 0.01
    m = RUGClassifier(max_depth=3, random_state=0, fairness=kind, epsilon=eps,
                      fairness_repair=False,
                      sensitive="sex").fit(X, y)
    fair = Fairness(kind, np.unique(X["sex"], return_inverse=True)[1], eps, positive=1)
    for _, idx in fair.sets(y, 2):
        means = _group_means(m.v_, idx)
        assert max(means) - min(means) <= eps + 1e-7
    # over the same pool of rules, the constraints can only cost
    assert m.objective_ >= _pool_lp(m, X, y) - 1e-7


@pytest.mark.filterwarnings("ignore::optrees.fairness.FairnessWarning")  # the LP, not the repair
@pytest.mark.parametrize("kind", ["dmc", "odm"])
def test_fairness_caps_hold_on_the_papers_sets_multiclass(kind):
    """Issue #22: the caps checked on sets built here from the paper's definitions, not by
    the code's ``Fairness.sets``: DMC (11)-(12) compares, for each class k, the mean slack of
    I_{k,g} = {i: y_i = k, G_i = g} over the groups g; ODM (15)-(16) that of each group.
    Three classes, three groups; without the cap they differ by more."""
    X, y, g = three_group_classes(4)
    if kind == "dmc":
        families = [[np.flatnonzero((y == k) & (g == h)) for h in "abc"] for k in range(3)]
    else:
        families = [[np.flatnonzero(g == h) for h in "abc"]]
    eps = 0.02
    free = RUGClassifier(max_depth=2, random_state=0).fit(X, y)
    fair = RUGClassifier(max_depth=2, random_state=0, sensitive="grp", fairness=kind,
                         epsilon=eps, fairness_repair=False).fit(X, y)  # the LP's caps

    def spread(v):
        return max(max(_group_means(v, fam)) - min(_group_means(v, fam)) for fam in families)

    assert spread(free.v_) > 5 * eps  # the cap has something to do
    assert spread(fair.v_) <= eps + 1e-7


def test_fairness_with_large_epsilon_equals_unconstrained():
    X, y = _fair_data()
    # Column generation is a heuristic whose path depends on which optimal duals HiGHS returns,
    # so compare LPs over the same pool: with a loose cap the fairness rows are not binding.
    loose = RUGClassifier(max_depth=3, random_state=0, fairness="dmc", epsilon=100.0,
                          sensitive="sex").fit(X, y)
    assert loose.objective_ == pytest.approx(_pool_lp(loose, X, y), abs=1e-7)
    tight = RUGClassifier(max_depth=3, random_state=0, fairness="dmc", epsilon=0.0,
                          sensitive="sex").fit(X, y)
    assert tight.objective_ > _pool_lp(tight, X, y) + 1e-3  # a binding cap costs something


def test_fairness_groups_vector_and_errors():
    X, y = _fair_data()
    groups = X["sex"].to_numpy()
    Xd = X.drop(columns=["sex"])
    a = RUGClassifier(max_depth=2, random_state=0, fairness="odm", epsilon=0.02).fit(
        Xd, y, groups=groups)
    b = RUGClassifier(max_depth=2, random_state=0, fairness="odm", epsilon=0.02,
                      sensitive="sex", drop_sensitive=True).fit(X, y)
    assert a.objective_ == pytest.approx(b.objective_)
    np.testing.assert_array_equal(a.predict(Xd), b.predict(X))
    with pytest.raises(OptreesInputError, match="one value per sample"):
        RUGClassifier(fairness="odm").fit(Xd, y, groups=groups[:-2])
    # a group with no sample of some class: DMC undefined
    g2 = groups.copy()
    g2[y == 1] = "f"
    g2[(y == 0)][:3] = "m"
    g3 = np.where(y == 1, "f", g2)
    g3[np.flatnonzero(y == 0)[:5]] = "x"
    with pytest.raises(OptreesInputError, match="no training samples of class"):
        RUGClassifier(fairness="dmc").fit(Xd, y, groups=g3)


# --------------------------------------------------------------------------- metrics
def test_interpretability_metrics():
    X, y = load_dataset("house-votes-84")
    m = RUGClassifier(max_depth=3, random_state=0).fit(X, y)
    met = interpretability(m, X)
    assert met["NoR"] == n_rules(m) == len(m.rules_)
    lengths = [r.length for r in m.rules_.rules]
    assert met["Avg.RL"] == pytest.approx(np.mean(lengths)) == avg_rule_length(m.rules_)
    A = m.rules_.coverage(X)
    assert avg_rules_per_sample(m, X) == pytest.approx(A.sum(axis=1).mean())
    per = [np.mean([lengths[j] for j in np.flatnonzero(row)]) for row in A if row.any()]
    assert avg_rule_length_per_sample(m, X) == pytest.approx(np.mean(per))


def test_fairness_scores_by_hand():
    yt = np.array([1, 1, 1, 1, 0, 0, 0, 0])
    yp = np.array([1, 0, 1, 1, 0, 0, 1, 0])
    g = np.array(["a", "a", "b", "b", "a", "a", "b", "b"])
    # class 1 error: a 1/2, b 0; class 0 error: a 0, b 1/2 -> DMC gap 0.5
    assert dmc_score(yt, yp, g) == pytest.approx(0.5)
    # overall error: a 1/4, b 1/4
    assert odm_score(yt, yp, g) == pytest.approx(1.0)
    assert eop_score(yt, yp, g, positive=1) == pytest.approx(0.5)
    assert eop_score(yt, yp, g) == pytest.approx(0.5)
    assert math.isclose(dmc_score(yt, yt, g), 1.0)


@pytest.mark.parametrize("kind", [None, "dmc", "equal_opportunity", "odm"])
def test_warm_started_master_lp_matches_cold_solve(kind):
    """The basis carried over between rounds only speeds up the LP: same optimum as cold."""
    X, y = _fair_data(n=400, seed=3)
    raw = RawColumns(X)
    fair = (None if kind is None else
            Fairness(kind, np.unique(X["sex"], return_inverse=True)[1], 0.01, positive=1))
    gen = RuleGeneration(raw, y, 2, max_depth=3, pen_par=0.3, max_rmp_calls=8, fairness=fair)
    res = gen.run()
    assert res.n_rmp_calls >= 3
    cold = res.master.solve()  # no starting basis
    assert cold.objective == pytest.approx(res.objective, abs=1e-7)
    assert (np.diff(res.history) <= 1e-7).all()  # more rules never hurt the restricted LP
    # and the per-sample LP over the same pool agrees
    per_sample = RUGMaster(y, 2, 0.3, fairness=fair)
    for r in res.rules:
        per_sample.add(raw.cover(r.literals), r.label, r.cost)
    assert per_sample.solve().objective == pytest.approx(res.objective, abs=1e-6)


def test_dual_form_master_matches_primal_quantities():
    """Without fairness the master is solved through its dual; (3)'s quantities still hold."""
    X, y = load_dataset("banknote")
    yk = np.unique(y.to_numpy(), return_inverse=True)[1]
    raw = RawColumns(X)
    res = RuleGeneration(raw, yk, 2, max_depth=3, pen_par=0.2, max_rmp_calls=5).run()
    m = res.master
    out = m.solve()
    w, v = out.values[m.cols], out.values[m.v_cols]
    A = m.matrix()
    assert (w >= 0).all() and (v >= 0).all()
    np.testing.assert_array_less(1 - 1e-7, A.T @ w + v)  # cover rows of (3)
    c = np.asarray(m.costs)
    assert 0.2 * c @ w + m.counts @ v == pytest.approx(out.objective)
    beta = out.stats["duals"]
    assert beta.sum() == pytest.approx(out.objective)  # strong duality
    assert (beta >= -1e-9).all() and (beta <= m.counts + 1e-9).all()


# --------------------------------------------------------------------------- interior point
def _pool_master(fairness=None, interior=False, seed=0):
    """Master LP (3) over every rule of <= 2 literals on a small random data set."""
    X, y = _tiny(seed, n=40, K=3)
    raw = RawColumns(X)
    master = RUGMaster(y, 3, 0.3, fairness, interior=interior)
    for lits in _all_conjunctions(raw, 2):
        cover = raw.cover(lits)
        if len(cover):
            master.add(cover, int(np.argmax(np.bincount(y[cover], minlength=3))),
                       float(len(lits)))
    return master


def _objective_of(master, res):
    """(3) evaluated at the returned (v, w), after checking that they are feasible."""
    v, w = res.values[master.v_cols], res.values[master.n:]
    assert w.min() >= 0 and v.min() >= -1e-7
    assert (master.matrix().T @ w + v).min() >= 1 - 1e-6  # cover rows of (3)
    return float(master.pen_par * np.asarray(master.costs) @ w + master.counts @ v)


@pytest.mark.parametrize("kind", [None, "odm"])
def test_interior_master_is_certified_near_the_simplex_optimum(kind):
    groups = np.arange(40) % 2
    fair = None if kind is None else Fairness(kind, groups, 0.01)
    exact = _pool_master(fair).solve()
    master = _pool_master(fair, interior=True)
    res = master.solve()
    assert exact.status == res.status == "optimal"
    assert res.objective == pytest.approx(_objective_of(master, res))
    # the certified bound and the objective bracket the optimum, within INTERIOR_GAP
    assert res.bound <= exact.objective + 1e-7 <= res.objective + 2e-7
    assert res.objective - res.bound <= 1e-3 * res.objective
    if fair is not None:
        for _, idx in fair.sets(master.y, 3):
            means = _group_means(res.values[master.v_cols], idx)
            assert max(means) - min(means) <= 0.01 + 1e-6


def test_certified_bound_is_valid_for_any_duals():
    """_certified scales arbitrary duals into the dual of (3): its bound never exceeds the
    optimum, even for random duals (this is what makes interior-point results safe)."""
    master = _pool_master()
    exact = master.solve()
    A, c = master.matrix(), master.pen_par * np.asarray(master.costs)
    rng = np.random.default_rng(0)
    for _ in range(20):
        beta = rng.random(master.n) * master.counts
        res = master._certified(exact, exact.values[: master.n], exact.values[master.n:],
                                beta, np.zeros(0), A, c, {})
        assert res.bound <= exact.objective + 1e-9
    # with the optimal duals it is tight
    duals = exact.stats["duals"]
    tight = master._certified(exact, exact.values[: master.n], exact.values[master.n:],
                              duals, np.zeros(0), A, c, {})
    assert tight.bound == pytest.approx(exact.objective, rel=1e-7)


def test_interior_falls_back_to_simplex_beyond_the_gap(monkeypatch):
    from optrees.rug import master as rug
    exact = _pool_master().solve()
    monkeypatch.setattr(rug, "INTERIOR_GAP", 0.0)  # no interior solve is accepted
    master = _pool_master(interior=True)
    res = master.solve()
    assert res.status == "optimal" and master.interior
    assert res.objective == pytest.approx(exact.objective, rel=1e-9)
    assert res.bound == pytest.approx(exact.objective, rel=1e-7)


def test_interior_lp_method_end_to_end():
    X, y = load_dataset("tic-tac-toe")
    base = dict(max_depth=3, pen_par=0.1, random_state=0, threshold=1e-6)
    simplex = RUGClassifier(**base).fit(X, y)
    interior = RUGClassifier(**base, lp_method="interior").fit(X, y)
    assert interior.lp_status_ == "optimal" and simplex.lp_status_ == "optimal"
    assert interior.score(X, y) >= 0.8
    # the pool LP of each run is solved to within INTERIOR_GAP (1e-3)
    assert interior.objective_ <= _pool_lp(interior, X, y.to_numpy()) * (1 + 1e-3) + 1e-9
    with pytest.raises(OptreesInputError, match="lp_method"):
        RUGClassifier(lp_method="barrier").fit(X, y)


# --------------------------------------------------------------------------- K > 2 classes
def _label_vector(k, K):
    """The vector encoding (1) of class k."""
    out = np.full(K, -1.0 / (K - 1))
    out[k] = 1.0
    return out


@pytest.mark.parametrize("K,seed", [(3, 0), (4, 1), (5, 2)])
def test_master_equals_a_dense_lp_of_eq3_built_from_the_label_vectors(K, seed):
    """(3) written out densely from (1) and ahat_ij = kappa * a_ij * R_j(x_i)' y_i, solved by
    scipy's linprog, has the optimum of RUGMaster (per sample, and aggregated into cells as
    the column generation builds it) with every class of every rule in the pool."""
    from scipy.optimize import linprog

    X, y = _tiny(seed, n=30, K=K)
    raw = RawColumns(X)
    pen_par, kappa = 0.3, (K - 1) / K
    rules = [lits for lits in _all_conjunctions(raw, 2) if len(raw.cover(lits))]
    cols = [(lits, k) for lits in rules for k in range(K)]
    A = np.zeros((len(y), len(cols)))
    for j, (lits, k) in enumerate(cols):
        for i in raw.cover(lits):
            A[i, j] = kappa * _label_vector(k, K) @ _label_vector(y[i], K)
    vals = np.unique(A.round(12))
    np.testing.assert_allclose(vals, [-1.0 / (K - 1), 0.0, 1.0])  # ahat of the cost module
    costs = np.array([float(len(lits)) for lits, _ in cols])
    n, m = A.shape
    dense = linprog(np.concatenate([pen_par * costs, np.ones(n)]),
                    A_ub=-np.hstack([A, np.eye(n)]), b_ub=-np.ones(n), bounds=(0, None),
                    method="highs")
    assert dense.status == 0
    master = RUGMaster(y, K, pen_par)
    for lits, k in cols:
        master.add(raw.cover(lits), k, float(len(lits)))
    res = master.solve()
    assert res.objective == pytest.approx(dense.fun, rel=1e-9, abs=1e-9)
    # its duals, checked on the dense matrix: feasible for the dual of (3) and optimal
    beta = res.stats["duals"][:n]
    assert np.all(beta >= -1e-12) and np.all(beta <= 1 + 1e-9)
    assert np.all(A.T @ beta <= pen_par * costs + 1e-9)
    assert beta.sum() == pytest.approx(dense.fun, rel=1e-9, abs=1e-9)
    # a pricer passed in prices (rule, class) pairs (tree pricing keeps one class per cover)
    gen = RuleGeneration(raw, y, K, pen_par=pen_par, pricer=lambda beta: rules)
    for k in range(K):  # every rule with class k, if it covers a sample of class k (else
        # its column is <= 0 and useless)
        gen._add_candidates(rules, (y == k).astype(float) + 1e-3, require_negative=False)
    cells, _ = gen.build_master()
    assert cells.n < n
    assert cells.solve().objective == pytest.approx(dense.fun, rel=1e-9, abs=1e-9)


def _tied_share(model, X):
    """Share of the covered samples whose largest class vote is shared by two classes."""
    V = model.all_rules_.votes(X)
    top = V.max(axis=1, keepdims=True)
    tied = (np.abs(V - top) <= 1e-9 * np.maximum(1.0, top)).sum(axis=1) >= 2
    covered = V.sum(axis=1) > 0
    return float(tied[covered].mean())


@pytest.mark.parametrize("random_state", [0, 1, 2])
def test_multiclass_default_lp_method_does_not_tie_the_votes(random_state):
    """For K > 2 a tie has zero loss in (3) and a simplex vertex ties the votes of many
    samples (car-evaluation at depth 2: 13%, 3% and 3% of them before lp_method='auto');
    the default solves the master by interior point there, which does not."""
    X, y = load_dataset("car-evaluation")
    m = RUGClassifier(max_depth=2, random_state=random_state, threshold=0.0).fit(X, y)
    assert m.lp_status_ == "optimal"
    assert _tied_share(m, X) <= 0.01
    # the LP over the pool is solved to within INTERIOR_GAP (1e-3)
    assert m.objective_ <= _pool_lp(m, X, y.to_numpy()) * (1 + 1e-3) + 1e-9


def test_binary_default_lp_method_is_simplex():
    X, y = load_dataset("tic-tac-toe")
    base = dict(max_depth=3, pen_par=0.1, random_state=0, threshold=1e-6)
    default = RUGClassifier(**base).fit(X, y)
    simplex = RUGClassifier(**base, lp_method="simplex").fit(X, y)
    assert default.objective_ == simplex.objective_
    assert [r.weight for r in default.rules_.rules] == [r.weight for r in simplex.rules_.rules]
    from optrees.rug.solve import lp_interior

    assert [lp_interior("auto", K) for K in (2, 3, 7)] == [False, True, True]
    assert lp_interior("auto", 3, fair=True) is False  # FairRUG keeps simplex
    assert lp_interior("simplex", 5) is False and lp_interior("interior", 2) is True


@pytest.mark.skipif(DATA_DIR is None or not (DATA_DIR / "nursery.csv").exists(),
                    reason="needs the shared data (OPTREES_DATA)")
@pytest.mark.filterwarnings("ignore:RUGClassifier. column")  # categories unseen in fit
def test_multiclass_nursery_above_ruleopt():
    """The measurement that found the defect (bench/rug_vs_ruleopt.py, nursery, K = 5,
    five 70/30 splits, depth 3, 11 master LPs, ruleopt's rule costs): optrees' default was
    18.7 points below ruleopt with simplex master LPs, about 2 points above it with interior
    point ones and the paper's dual labels, 9.9 points above with majority labels."""
    pytest.importorskip("ruleopt")
    from sklearn.model_selection import train_test_split

    from optrees.bench.peers import ruleopt_fit

    X, y = load_dataset("nursery")
    diffs = []
    for seed in range(5):
        Xtr, Xte, ytr, yte = train_test_split(X, y.to_numpy(), test_size=0.3,
                                              random_state=seed, stratify=y)
        raw = RawColumns(Xtr)
        classes, ytr_i = np.unique(ytr, return_inverse=True)
        ro, _, pen_par = ruleopt_fit(raw.matrix, ytr_i, 3, 10, 1.0, seed)
        Mte = raw.encode_rows(RawColumns(X), X.index.get_indexer(Xte.index))
        ro_acc = np.mean(ro.predict(Mte) == np.searchsorted(classes, yte))
        ot = RUGClassifier(max_depth=3, pen_par=pen_par, max_rmp_calls=11, threshold=1e-6,
                           random_state=seed).fit(Xtr, ytr)
        diffs.append(100 * (ot.score(Xte, yte) - ro_acc))
    assert np.mean(diffs) >= 5.0, diffs


def _minority_rules(m: RUGClassifier, X: pd.DataFrame, y: np.ndarray,
                    weight: np.ndarray | None = None) -> list[str]:
    """Pool rules whose class is not the heaviest training class among the rows they cover
    (``weight`` per row: None = 1 each), counted from the rules' own conditions."""
    w = np.ones(len(y)) if weight is None else weight
    classes = list(m.classes_)
    yi = np.array([classes.index(v) for v in y])
    bad = []
    for r in m.all_rules_.rules:
        cover = r.covers(X)
        mass = np.bincount(yi[cover], weights=w[cover], minlength=len(classes))
        if mass[r.label] < mass.max() * (1 - 1e-12):
            bad.append(f"{r.condition_text()} -> {classes[r.label]}: {mass.tolist()}")
    return bad


@pytest.mark.parametrize("class_weight", [None, "balanced"])
def test_multiclass_rules_take_the_majority_class_of_their_rows(class_weight):
    """For K > 2 (rule_labels='auto') every rule a pricing tree adds predicts the heaviest
    training class of the rows it covers; with the paper's dual labels some do not (here a
    rule for 'good' on rows mostly 'unacc' or 'acc')."""
    from sklearn.utils.class_weight import compute_sample_weight

    X, y = load_dataset("car-evaluation")
    y = y.to_numpy()
    w = None if class_weight is None else compute_sample_weight(class_weight, y)
    kw = dict(max_depth=2, random_state=0, class_weight=class_weight)
    m = RUGClassifier(**kw).fit(X, y)
    assert len(m.all_rules_.rules) >= 5
    assert _minority_rules(m, X, y, w) == []
    assert _minority_rules(RUGClassifier(**kw, rule_labels="duals").fit(X, y), X, y, w)


def test_rule_labels_auto_is_duals_for_two_classes_and_majority_beyond():
    from optrees.rug.solve import majority_labels

    X, y = load_dataset("tic-tac-toe")
    base = dict(max_depth=3, pen_par=0.1, random_state=0, threshold=1e-6)
    auto = RUGClassifier(**base).fit(X, y)
    duals = RUGClassifier(**base, rule_labels="duals").fit(X, y)
    assert [(r.literals, r.label, r.weight) for r in auto.all_rules_.rules] == \
        [(r.literals, r.label, r.weight) for r in duals.all_rules_.rules]
    X, y = load_dataset("car-evaluation")
    auto = RUGClassifier(**base).fit(X, y)
    major = RUGClassifier(**base, rule_labels="majority").fit(X, y)
    assert [(r.literals, r.label, r.weight) for r in auto.all_rules_.rules] == \
        [(r.literals, r.label, r.weight) for r in major.all_rules_.rules]
    assert [majority_labels("auto", K) for K in (2, 3)] == [False, True]
    assert majority_labels("auto", 3, "exact") is False
    assert majority_labels("majority", 2) is True and majority_labels("duals", 5) is False


@pytest.mark.parametrize("kwargs,match", [
    ({"rule_labels": "mode"}, "rule_labels"),
    ({"rule_labels": "majority", "pricing": "exact"}, "rule_labels='majority' needs"),
    ({"rule_labels": "majority", "pricing": "enumerate"}, "rule_labels='majority' needs"),
])
def test_bad_rule_labels(kwargs, match):
    X, y = _tiny(0, n=30, K=3)
    with pytest.raises(OptreesInputError, match=match):
        RUGClassifier(**kwargs).fit(X, y)


@pytest.mark.skipif(DATA_DIR is None or not (DATA_DIR / "ecoli.csv").exists(),
                    reason="needs the shared data (OPTREES_DATA)")
def test_ecoli_split_where_dual_labels_collapse():
    """``optrees bench rug-multiclass``, ecoli, split seed 9, the parameters its CV chose
    (depth 3, pen_par 10 in the paper's units, 5 pricing rounds): with dual labels a rule for
    class 7 covers most rows of class 0 beside a class-0 rule of almost the same weight, and
    the vote gives most of class 0 to class 7 (training accuracy 0.46; 0.81-0.85 with
    random_state 10-13: the duals' fill order decides whether the pair forms).  The default
    fits it well, with no rule whose class is a minority of its own rows."""
    from optrees.bench.tasks import load_data, split_data

    X, y = load_data("ecoli", data_dir=DATA_DIR)
    (Xtr, ytr), _, _ = split_data(X, y, "80/20", 9)
    kw = dict(max_depth=3, pen_par=10 / 3, max_rmp_calls=6, threshold=0.05, random_state=9)
    duals = RUGClassifier(**kw, rule_labels="duals").fit(Xtr, ytr)
    default = RUGClassifier(**kw).fit(Xtr, ytr)
    assert duals.score(Xtr, ytr) < 0.55  # the collapse this test is about
    assert default.score(Xtr, ytr) > 0.8
    assert _minority_rules(default, Xtr, ytr.to_numpy()) == []


def _leaf_partition(t, X: np.ndarray) -> list[tuple[int, ...]]:
    """The rows of each leaf of a tree in scikit-learn's ``tree_`` layout, sorted."""
    node = np.zeros(len(X), dtype=int)
    for _ in range(len(t.children_left)):
        inner = t.children_left[node] >= 0
        if not inner.any():
            break
        go_left = X[np.arange(len(X)), np.maximum(t.feature[node], 0)] <= t.threshold[node]
        node = np.where(inner, np.where(go_left, t.children_left[node],
                                        t.children_right[node]), node)
    return sorted(tuple(np.flatnonzero(node == v)) for v in np.unique(node))


def test_compiled_pricing_tree_is_sklearns_tree():
    """The compiled greedy tree splits the rows as scikit-learn's DecisionTreeClassifier
    does (weights with zeros, 2-4 classes, repeated values), once scikit-learn's splits of
    nodes that are pure up to rounding (impurity ~1e-16) are undone."""
    from optrees.rug.greedy_tree import Presorted, grow_tree

    for seed in range(40):
        rng = np.random.default_rng(seed)
        n, p, k = int(rng.integers(20, 150)), int(rng.integers(1, 5)), int(rng.integers(2, 5))
        X = np.round(rng.normal(size=(n, p)), 1)
        y = rng.integers(0, k, n)
        w = rng.random(n) * (rng.random(n) > 0.2)
        depth = int(rng.integers(1, 5))
        ours = grow_tree(Presorted.of(X), y, w, k, depth, np.arange(p))
        keep = w > 0
        sk = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(
            X[keep], y[keep], sample_weight=w[keep]).tree_
        sk_left = np.where(sk.impurity < 1e-12, -1, sk.children_left)

        class _Pure:
            children_left, children_right = sk_left, sk.children_right
            feature, threshold = sk.feature, sk.threshold

        assert _leaf_partition(ours, X[keep]) == _leaf_partition(_Pure, X[keep]), seed


def test_compiled_pricing_tree_breaks_ties_by_column_order():
    """Of two equally good columns the tree splits on the first in ``columns``."""
    from optrees.rug.greedy_tree import Presorted, grow_tree

    x = np.arange(10.0)
    data = Presorted.of(np.c_[x, x])
    y = (x > 4).astype(int)
    for columns in ([0, 1], [1, 0]):
        tree = grow_tree(data, y, np.ones(10), 2, 1, np.array(columns))
        assert tree.feature[0] == columns[0] and tree.threshold[0] == 4.5


@pytest.mark.parametrize("two_valued", [False, True])
def test_compiled_pricing_tree_skips_a_side_lost_in_rounding(two_valued):
    """Duals of 1e-20 beside duals of 1: a side holding only the tiny ones has the weight
    3 - 3 = 0 in floating point.  The tree does not take such a split (before, it divided by
    zero: FairRUG on nursery raised ZeroDivisionError) and splits where the weight is."""
    from optrees.rug.greedy_tree import Presorted, grow_tree

    if two_valued:  # column 0's one split isolates row 0 (the low side: total - high side)
        x0, y, w = [0.0, 1, 1, 1], [0, 1, 1, 0], [1e-20, 1, 1, 1]
        x1 = [0.0, 1, 1, 0]
    else:  # column 0's splits (0.5, 1.5) isolate the tiny rows 3-4 on the right
        x0, y, w = [0.0, 0, 0, 1, 2], [0, 1, 1, 0, 0], [1, 1, 1, 1e-20, 1e-20]
        x1 = [0.0, 1, 1, 1, 1]
    tree = grow_tree(Presorted.of(np.c_[x0, x1]), np.array(y), np.array(w), 2, 1,
                     np.array([0, 1]))
    assert tree.feature[0] == 1 and tree.threshold[0] == 0.5


@pytest.mark.skipif(DATA_DIR is None or not (DATA_DIR / "nursery.csv").exists(),
                    reason="needs the shared data (OPTREES_DATA)")
@pytest.mark.filterwarnings("ignore::optrees.fairness.FairnessWarning")  # the LP, not the repair
@pytest.mark.filterwarnings("ignore:RUGClassifier. column")
def test_fair_rug_on_nursery_runs():
    """`bench/rug.py --fair`'s nursery case (parents as the sensitive attribute, ODM): it
    raised ZeroDivisionError in the compiled pricing tree; the cap holds on the slacks."""
    from optrees.bench.rug import split

    Xtr, _, ytr, _ = split("nursery", 0)
    eps = 0.025
    m = RUGClassifier(max_depth=3, pen_par=1.0, max_rmp_calls=10, random_state=0,
                      threshold=0.0, rule_length_cost=False, fairness="odm",
                      sensitive="parents", epsilon=eps, fairness_repair=False).fit(Xtr, ytr)
    assert m.status_ in ("converged", "iteration_limit") and len(m.rules_.rules) > 0
    groups = Xtr["parents"].astype(str).to_numpy()
    means = _group_means(m.v_, [np.flatnonzero(groups == g) for g in np.unique(groups)])
    assert max(means) - min(means) <= eps + 1e-7


@pytest.mark.parametrize("seed", range(5))
def test_filled_duals_split_each_cells_dual_into_whole_weights(seed):
    """``fill_duals``: per cell the samples' duals add up to the cell's dual, each lies in
    [0, its weight], and at most one sample per cell holds a part of its weight (a vertex of
    the per-sample LP); equal keys (equal rows) are filled one after the other."""
    from optrees.rug.generation import fill_duals

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    cell = rng.integers(0, 7, n)
    w = rng.choice([0.5, 1.0, 2.0], n)
    totals = np.bincount(cell, weights=w, minlength=7)
    cell_dual = totals * rng.choice([0.0, 0.3, 1.0], 7)
    key = rng.integers(0, 5, n).astype(float)   # repeated keys: rows seen as equal
    beta = fill_duals(cell_dual, cell, w, key)
    assert np.allclose(np.bincount(cell, weights=beta, minlength=7), cell_dual)
    assert ((beta >= 0) & (beta <= w + 1e-12)).all()
    partial = (beta > 1e-12) & (beta < w - 1e-12)
    assert (np.bincount(cell[partial], minlength=7) <= 1).all()
    for c in range(7):  # in key order, every row before a partial or empty one is full
        rows = np.flatnonzero(cell == c)
        rows = rows[np.argsort(key[rows], kind="stable")]
        full = np.isclose(beta[rows], w[rows])
        assert not np.any(~full[:-1] & full[1:])
