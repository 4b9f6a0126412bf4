"""OMT (omt-multiway.txt): feature graph, KSP pricing, CG + master MIP, MultiwayTree, estimators.

Independent witnesses: exhaustive enumeration of all paths with a depth-first exact
set-partition search (no LP) as the optimum oracle; enumeration of all paths for the KSP;
reduced costs of HiGHS vs. pricing; constraints and the partition re-checked on the result.
"""

from __future__ import annotations

import itertools
import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from optrees._validation import OptreesInputError
from optrees.estimators import UnseenCategoryWarning
from optrees.estimators.omt import OMTClassifier, OMTRegressor, validate_params
from optrees.models.multiway_tree import MultiwayTree
from optrees.omt.constraints import RuleConstraint
from optrees.omt.graph import build_graph
from optrees.omt.metric import Metric, class_loss_matrix, unit_table
from optrees.omt.pricing import Pricer
from optrees.omt.rules import select_rules  # the rule level below omt.solve_omt
from optrees.omt.solver import OMTSolver


# --------------------------------------------------------------------------- helpers
def tiny_categorical(seed: int, n: int = 40, k: int = 3, values: int = 3, classes: int = 2):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"f{j}": pd.Categorical(rng.integers(0, values, n).astype(str))
                      for j in range(k)})
    # a noisy rule so that structure matters
    y = ((X["f0"].astype(str) == "0") ^ (X["f1"].astype(str) == "1")).astype(int).to_numpy()
    flip = rng.random(n) < 0.2
    y = np.where(flip, rng.integers(0, classes, n), y)
    return X, y


def all_paths(graph, depth: int) -> list[tuple]:
    """Every path of the feature graph with at most ``depth`` non-SKIP levels."""
    k = len(graph.levels)
    out = [()]
    for t in range(1, depth + 1):
        for levels in itertools.combinations(range(k), t):
            for nodes in itertools.product(*[range(graph.levels[g].nodes.shape[0])
                                             for g in levels]):
                out.append(tuple(zip(levels, nodes, strict=True)))
    return out


def cover(graph, codes, steps) -> np.ndarray:
    m = np.ones(len(codes), dtype=bool)
    for g, v in steps:
        m &= graph.levels[g].nodes[v][codes[:, g]]
    return m


def partition_optimum(masks: list[np.ndarray], costs: list[float], leaves: int) -> float:
    """Exact min-cost partition of all rows by <= leaves rules (depth-first search, no LP)."""
    n = len(masks[0])
    bits = [int("".join("1" if b else "0" for b in m[::-1]), 2) if m.any() else 0
            for m in masks]
    full = (1 << n) - 1
    by_row: list[list[int]] = [[] for _ in range(n)]
    for j, b in enumerate(bits):
        for i in range(n):
            if b >> i & 1:
                by_row[i].append(j)
    for rules in by_row:  # cheapest first: a good partition early prunes the rest
        rules.sort(key=costs.__getitem__)
    best = [math.inf]

    def dfs(covered: int, used: int, cost: float) -> None:
        if cost >= best[0] - 1e-12:
            return
        if covered == full:
            best[0] = cost
            return
        if used == leaves:
            return
        i = (~covered & (covered + 1)).bit_length() - 1  # lowest uncovered row
        for j in by_row[i]:
            if cost + costs[j] >= best[0] - 1e-12:
                break  # every later rule costs at least as much (costs are not negative)
            if bits[j] & covered == 0:
                dfs(covered | bits[j], used + 1, cost + costs[j])

    dfs(0, 0, 0.0)
    return best[0]


def oracle_misclassification(X, y, depth, leaves, min_count, categorical_nodes="values",
                             rule_cost=0.0):
    g = build_graph(X, categorical_nodes=categorical_nodes)
    return oracle_on_graph(g, y, depth, leaves, min_count, rule_cost)


def oracle_on_graph(g, y, depth, leaves, min_count, rule_cost=0.0):
    K = int(y.max()) + 1
    masks, costs = [], []
    for p in all_paths(g, depth):
        m = cover(g, g.codes, p)
        if m.sum() < min_count:
            continue
        masks.append(m)
        costs.append(float(m.sum() - np.bincount(y[m], minlength=K).max()) + rule_cost)
    return partition_optimum(masks, costs, leaves)


def raw_optimum(X: pd.DataFrame, y: np.ndarray, depth: int, leaves: int, min_count: int,
                complements: bool = False) -> float:
    """Fewest training errors of a partition of the rows into at most ``leaves`` rules, each a
    conjunction of at most ``depth`` literals on distinct columns covering at least
    ``min_count`` rows, read off the raw table (``x == v`` for each observed value v, also
    ``x != v`` with ``complements``), not through the code's feature graph."""
    literals = []
    for c in X.columns:
        values = X[c].astype(str).to_numpy()
        for v in np.unique(values):
            literals.append((c, values == v))
            if complements:
                literals.append((c, values != v))
    rules = {np.ones(len(X), dtype=bool).tobytes(): np.ones(len(X), dtype=bool)}
    for t in range(1, depth + 1):
        for combo in itertools.combinations(literals, t):
            if len({c for c, _ in combo}) == t:
                m = np.logical_and.reduce([m for _, m in combo])
                rules[m.tobytes()] = m
    K = int(y.max()) + 1
    masks = [m for m in rules.values() if m.sum() >= min_count]
    costs = [float(m.sum() - np.bincount(y[m], minlength=K).max()) for m in masks]
    return partition_optimum(masks, costs, leaves)


# --------------------------------------------------------------------------- graph
def test_cumulative_binning_nodes_and_text():
    X = pd.DataFrame({"x": np.arange(20, dtype=float), "c": ["a", "b"] * 10})
    g = build_graph(X, n_bins=4)
    num = g.levels[0]
    assert num.n_codes == 4 and num.nodes.shape[0] == 4 * 5 // 2 - 1  # O(kappa^2), no full
    assert all(r.sum() < 4 and np.all(np.diff(np.flatnonzero(r)) == 1) for r in num.nodes)
    assert build_graph(X, n_bins=4, binning="plain").levels[0].nodes.shape[0] == 4
    texts = {num.node_text(v) for v in range(num.nodes.shape[0])}
    assert any("<" in t and ">=" not in t for t in texts) and any(">=" in t for t in texts)
    assert g.levels[1].nodes.shape == (2, 2)
    # feature order = graph level order, constant columns dropped
    X["k"] = 1
    g2 = build_graph(X, feature_order=["c"])
    assert [lv.name for lv in g2.levels] == ["c", "x"] and g2.dropped == ["k"]


def test_ordinal_levels_are_runs_of_categories():
    sizes = ["S", "M", "L", "XL"]
    X = pd.DataFrame({"size": pd.Categorical(["S", "L", "XL", "S", "L"] * 8, categories=sizes,
                                             ordered=True),
                      "n": pd.Categorical([3, 1, 2, 1, 3] * 8),  # numeric categories
                      "c": pd.Categorical(["b", "a", "a", "b", "a"] * 8)})
    g = build_graph(X, ordinal=True)
    size, n, c = g.levels
    assert size.ordinal and n.ordinal and not c.ordinal and c.kind == "categorical"
    assert n.categories == [1, 2, 3]
    # seen positions 0, 2, 3 -> three codes; the unseen "M" lies in the bin of "L"
    assert size.n_codes == 3 and size.nodes.shape[0] == 3 * 4 // 2 - 1
    codes = size.encode(pd.Series(["S", "M", "L", "XL", "XXL"], dtype=object))
    assert list(codes) == [0, 1, 1, 2, -1]
    texts = {size.codes_text(np.flatnonzero(r)) for r in size.nodes}
    assert texts == {"size = S", "M <= size <= L", "size = XL", "size <= L", "size >= M"}
    # default "auto": only the ordered column is ordinal; False: none
    assert [lv.ordinal for lv in build_graph(X).levels] == [True, False, False]
    assert [lv.ordinal for lv in build_graph(X, ordinal=False).levels] == [False] * 3
    with pytest.raises(OptreesInputError, match="ordinal must be"):
        build_graph(X, ordinal="yes")
    # a tree that needs the order: y = size >= L; one split, two leaves
    y = np.asarray(X["size"].isin(["L", "XL"]))
    clf = OMTClassifier(depth=1, leaves=2, ordinal=True, min_support=1).fit(X, y)
    assert clf.score(X, y) == 1.0 and "size >= M" in clf.export_text()
    t2 = MultiwayTree.from_dict(json.loads(json.dumps(clf.tree_.to_dict())))
    Xn = pd.DataFrame({"size": ["M", "XL", "S"], "n": [1, 2, 3], "c": ["a", "a", "b"]})
    assert list(t2.predict(Xn)) == list(clf.predict(Xn)) == [True, True, False]


# --------------------------------------------------------------------------- pricing
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ksp_pricing_returns_true_k_best(seed):
    X, y = tiny_categorical(seed, n=30, k=4)
    X["num"] = np.random.default_rng(seed).normal(size=30)
    g = build_graph(X, n_bins=4)
    codes, inv, n = unit_table(g.codes)
    S = class_loss_matrix(inv, y, len(n), 2)
    metric = Metric("loss", S, n)
    rng = np.random.default_rng(seed + 10)
    lam = rng.normal(0.5, 1.0, len(n))
    mu = -0.3
    extra = rng.normal(0, 0.5, len(g.levels))
    solver = OMTSolver(g, n, 3, 8, 2, unit_codes=codes)
    solver.pricer.prune_same = False
    W, _ = metric.pricing_terms(lam)
    W = np.column_stack([n, W])
    K = 25
    got = solver.pricer.run(W, lambda a: metric.evaluate(a[..., 1:]), -mu, extra, K, True, K)
    truth = []
    for p in all_paths(g, 3):
        m = cover(g, codes, p)
        if n[m].sum() < 2:
            continue
        rc = S[m].sum(0).min() - lam[m].sum() - mu + sum(extra[a] for a, _ in p)
        truth.append((rc, p))
    truth.sort(key=lambda t: t[0])
    want = [rc for rc, _ in truth if rc < -1e-9][:K]
    assert len(got) == len(want)
    assert np.allclose([p.rc for p in got], want)
    exact_rc = dict((p, rc) for rc, p in truth)
    for p in got:  # each reported reduced cost is the path's true one
        assert math.isclose(exact_rc[p.steps], p.rc, abs_tol=1e-9)
    # the per-level bincount aggregation (used when the dense code matrix is too large)
    solver.pricer.max_dense = 0
    got2 = solver.pricer.run(W, lambda a: metric.evaluate(a[..., 1:]), -mu, extra, K, True, K)
    assert np.allclose([p.rc for p in got2], want)
    # the beam heuristic returns true reduced costs too, never better than the optimum
    heur = solver.pricer.run(W, lambda a: metric.evaluate(a[..., 1:]), -mu, extra, K, False, 3)
    assert heur and heur[0].rc >= want[0] - 1e-9
    assert all(math.isclose(exact_rc[p.steps], p.rc, abs_tol=1e-9) for p in heur)


@pytest.mark.parametrize("exact", [True, False])
def test_grouped_pricing_equals_per_state(exact):
    """Histogram-grouped aggregation (large data) == per-state bincounts: same paths, rc."""
    X, y = tiny_categorical(4, n=60, k=4)
    X["num"] = np.random.default_rng(4).normal(size=60)
    g = build_graph(X, n_bins=4)
    codes, inv, n = unit_table(g.codes)
    metric = Metric("loss", class_loss_matrix(inv, y, len(n), 2), n)
    lam = np.random.default_rng(5).normal(0.5, 1.0, len(n))
    W, _ = metric.pricing_terms(lam)
    extra = np.random.default_rng(6).normal(0, 0.3, len(g.levels))
    runs = []
    for group_min in (10 ** 9, 0):
        pricer = Pricer(codes, [lv.nodes for lv in g.levels], 3, 2, -1,
                        group_min_units=group_min)
        pricer.prune_same = False
        runs.append(pricer.run(W, metric.evaluate, 0.3, extra, 30, exact, 6))
    per_state, grouped = runs
    assert len(grouped) == len(per_state) > 10
    assert {p.steps for p in grouped} == {p.steps for p in per_state}  # order: exact ties
    assert np.allclose([p.rc for p in grouped], [p.rc for p in per_state], atol=1e-9)


def test_merged_master_equals_unmerged():
    """Rows merged by cover pattern (large-data mode) give the same LP value as one row per
    unit; the split duals are a valid dual (pricing rc == HiGHS rc, dual objective == LP
    value); and the fit gives the same objective and tree."""
    X, y = tiny_categorical(3, n=60, k=4)
    g = build_graph(X)
    codes, inv, n = unit_table(g.codes)
    metric = Metric("loss", class_loss_matrix(inv, y, len(n), 2), n)
    values = []
    for merge_min in (10 ** 9, 0):
        solver = OMTSolver(g, n, 2, 4, 1, unit_codes=codes, merge_min_units=merge_min)
        for p in all_paths(g, 2)[::3]:
            solver.add_to_pool(p)
        m, info = solver._build_master(metric, 100.0)
        res = m.solve()
        values.append(res.objective)
        duals = res.stats["duals"]
        lam = solver._unit_duals(duals, info)
        R = info.rows
        assert math.isclose(lam.sum() + 4 * duals[R], res.objective, rel_tol=1e-9)
        assert np.all(lam <= 100.0 * n + 1e-7)  # slack reduced costs >= 0
        rc_highs = res.stats["reduced_costs"][info.z]
        priced = {p.steps: p.rc for p in solver._price(metric, duals, 10_000, True, -math.inf,
                                                       info=info)}
        for a, j in enumerate(info.j):
            assert math.isclose(priced[solver.pool[j]], rc_highs[a], abs_tol=1e-7)
    assert solver.merged and info.rows < len(n)
    assert math.isclose(values[0], values[1], rel_tol=1e-9)
    fits = [select_rules(g, y, task="classification", loss="misclassification", n_classes=2,
                      depth=2, leaves=4, min_count=1, merge_min_units=mm)
            for mm in (10 ** 9, 0)]
    assert math.isclose(fits[0].result.objective, fits[1].result.objective, abs_tol=1e-9)
    assert sorted(fits[0].result.steps) == sorted(fits[1].result.steps)
    # a tight column cap drops columns but still returns a partition
    capped = select_rules(g, y, task="classification", loss="misclassification", n_classes=2,
                       depth=2, leaves=4, min_count=1, merge_min_units=0,
                       max_master_columns=12)
    cov = np.zeros(len(y), dtype=int)
    for st in capped.result.steps:
        cov += cover(g, g.codes, st)
    assert np.all(cov == 1) and len(capped.solver.active) <= 12


def test_pricing_reduced_costs_match_highs_duals():
    """Sign conventions of lambda, mu and tau: pricing rc == HiGHS reduced cost."""
    X, y = tiny_categorical(3, n=40)
    g = build_graph(X)
    codes, inv, n = unit_table(g.codes)
    metric = Metric("loss", class_loss_matrix(inv, y, len(n), 2), n)
    cons = [RuleConstraint(np.array([1.0, 2.0, 0.5]), 0.2, -math.inf, 3.0, "budget"),
            RuleConstraint(np.array([0.0, 1.0, 0.0]), 0.0, 1.0, math.inf, "need f1")]
    solver = OMTSolver(g, n, 2, 1, 1, unit_codes=codes, constraints=cons)
    for p in [(), ((0, 0),), ((0, 1),), ((1, 2),), ((0, 2), (1, 1)), ((2, 0),), ((1, 0),)]:
        solver.add_to_pool(p)
    m, info = solver._build_master(metric, 100.0)
    res = m.solve()
    rc_highs = res.stats["reduced_costs"][info.z]
    duals = res.stats["duals"]
    P = len(n)
    for j, p in enumerate(solver.pool):
        cov = solver.covers[j]
        rc = (metric.S[cov].sum(0).min() - duals[cov].sum() - duals[P]
              - sum(duals[P + 1 + r] * c.rho(p) for r, c in enumerate(cons)))
        assert math.isclose(rc, rc_highs[j], abs_tol=1e-7)
    # the pricing DP uses the same duals and signs (all paths: tolerance -inf)
    priced = {p.steps: p.rc for p in solver._price(metric, duals, 10_000, True, -math.inf)}
    assert abs(duals[P]) > 1e-6  # the leaf limit (1) binds, so mu enters
    for j, p in enumerate(solver.pool):
        assert math.isclose(priced[p], rc_highs[j], abs_tol=1e-7)


# --------------------------------------------------------------------------- CG + MIP
@pytest.mark.parametrize("seed,depth,leaves,min_count,nodes", [
    (0, 2, 4, 1, "values"), (1, 2, 3, 2, "values"), (2, 3, 4, 3, "values"),
    (4, 2, 2, 1, "values"), (5, 2, 3, 1, "complements"), (6, 2, 4, 2, "complements")])
def test_cg_exact_equals_enumerated_optimum(seed, depth, leaves, min_count, nodes):
    X, y = tiny_categorical(seed, n=24)
    want = oracle_misclassification(X, y, depth, leaves, min_count, nodes)
    g = build_graph(X, categorical_nodes=nodes)
    fit = select_rules(g, y, task="classification", loss="misclassification", n_classes=2,
                    depth=depth, leaves=leaves, min_count=min_count, exact_pricing=True)
    r = fit.result
    assert r.status == "optimal" and r.uncovered == 0
    assert math.isclose(r.objective, want, abs_tol=1e-6)
    assert r.lp_bound <= r.objective + 1e-6
    # selected rules partition the training samples and are within the limits
    cov = np.zeros(len(y), dtype=int)
    for st in r.steps:
        m = cover(g, g.codes, st)
        assert m.sum() >= min_count and len(st) <= depth
        cov += m
    assert len(r.steps) <= leaves and np.all(cov == 1)


@pytest.mark.parametrize("seed,n,nodes,depth,leaves,min_count", [
    (0, 18, "values", 2, 4, 3), (3, 16, "complements", 2, 3, 3), (77, 20, "values", 3, 5, 2)])
def test_estimator_equals_enumeration_of_the_raw_table_at_its_limits(seed, n, nodes, depth,
                                                                      leaves, min_count):
    """Issue #22: OMTClassifier (exact pricing, no leaf penalty) has the fewest training
    errors of any partition into rules enumerated from the raw table.  Each instance is one
    where the limits bind: one more row of support, one leaf fewer or one level less each
    cost errors (so a `>=` -> `>` slip in the support test, or a leaf or level lost, fails)."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({f"f{j}": pd.Categorical(rng.integers(0, 3, n).astype(str))
                      for j in range(3)})
    y = rng.integers(0, 2, n)
    comp = nodes == "complements"
    want = raw_optimum(X, y, depth, leaves, min_count, comp)
    assert raw_optimum(X, y, depth, leaves, min_count + 1, comp) > want
    assert raw_optimum(X, y, depth, leaves - 1, min_count, comp) > want
    assert raw_optimum(X, y, depth - 1, leaves, min_count, comp) > want
    est = OMTClassifier(depth=depth, leaves=leaves, min_support=min_count,
                        categorical_nodes=nodes, exact_pricing=True, leaf_penalty=0).fit(X, y)
    assert est.status_ == "optimal"
    assert int((est.predict(X) != y).sum()) == want == est.objective_
    nodes_reached, counts = np.unique(est.tree_.apply(X), return_counts=True)
    assert len(nodes_reached) <= leaves and counts.min() >= min_count
    assert est.tree_.depth <= depth


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_heuristic_pricing_lp_is_a_bound(seed):
    """Issue #22: a beam that drops improving partial paths must not end column generation:
    an exact round decides, so nu_LP is the LP optimum (that of exact pricing) and a lower
    bound of the enumerated optimum; the objective is the re-scored loss of the rules."""
    X, y = tiny_categorical(seed, n=40, k=4)
    want = oracle_misclassification(X, y, 3, 4, 2)
    g = build_graph(X)
    kw = dict(task="classification", loss="misclassification", n_classes=2, depth=3,
              leaves=4, min_count=2)
    r = select_rules(g, y, k_best=2, beam=1, max_stall=0, **kw).result
    exact = select_rules(g, y, exact_pricing=True, **kw).result
    assert r.lp_exact and r.stats["exact_rounds"] >= 1
    assert r.lp_bound <= want + 1e-6
    assert math.isclose(r.lp_bound, exact.lp_bound, rel_tol=1e-3, abs_tol=1e-6)
    errors = sum(cover(g, g.codes, st).sum() - np.bincount(y[cover(g, g.codes, st)]).max()
                 for st in r.steps)
    assert r.uncovered == 0 and math.isclose(r.objective, errors, abs_tol=1e-6)


def test_exact_round_cut_by_the_size_bound_proves_nothing(monkeypatch):
    """An exact round that would materialise more unit indices than
    ``Pricer.max_frontier_units`` stops (20,000 numeric rows once took 17 GB): neither the
    exact round after an empty heuristic one nor exact pricing may then claim the LP
    optimum, and the rules stay a feasible partition with their re-scored loss."""
    from optrees.omt.pricing import Pricer

    monkeypatch.setattr(Pricer, "max_frontier_units", 0)
    X, y = tiny_categorical(0, n=40, k=4)
    g = build_graph(X)
    kw = dict(task="classification", loss="misclassification", n_classes=2, depth=3,
              leaves=4, min_count=2)
    for r in (select_rules(g, y, k_best=2, beam=1, max_stall=0, **kw).result,
              select_rules(g, y, exact_pricing=True, **kw).result):
        assert not r.lp_exact and r.status != "optimal"
        errors = sum(cover(g, g.codes, st).sum() - np.bincount(y[cover(g, g.codes, st)]).max()
                     for st in r.steps)
        assert r.uncovered == 0 and math.isclose(r.objective, errors, abs_tol=1e-6)


def test_large_data_skips_the_exact_round():
    """With the merged master (large data) an empty heuristic round ends generation without
    an exact round (none could finish there); the LP value is then not claimed exact."""
    X, y = tiny_categorical(0, n=40, k=4)
    r = select_rules(build_graph(X), y, task="classification", loss="misclassification",
                     n_classes=2, depth=3, leaves=4, min_count=2, k_best=2, beam=1,
                     max_stall=0, merge_min_units=1).result
    assert r.stats["exact_rounds"] == 0 and not r.lp_exact


def test_stall_rule_counts_only_rounds_without_progress():
    """The first master LP is progress (the stall test compared with inf - tol * inf = nan,
    so every round counted as stalled and generation always ended after max_stall LPs)."""
    X, y = tiny_categorical(0, n=40, k=4)
    r = select_rules(build_graph(X), y, task="classification", loss="misclassification",
                     n_classes=2, depth=3, leaves=4, min_count=2, max_stall=1).result
    assert r.stats["iterations"] >= 1  # was 0: stalled after the first LP


@pytest.mark.parametrize("seed,penalty", [(0, 0.02), (1, 0.05), (3, 0.1)])
def test_leaf_penalty_exact_equals_enumerated_optimum(seed, penalty):
    X, y = tiny_categorical(seed, n=24)
    want = oracle_misclassification(X, y, 2, 4, 1, rule_cost=penalty * len(y))
    g = build_graph(X)
    fit = select_rules(g, y, task="classification", loss="misclassification", n_classes=2,
                    depth=2, leaves=4, min_count=1, exact_pricing=True, leaf_penalty=penalty)
    r = fit.result
    assert r.status == "optimal" and r.uncovered == 0
    assert math.isclose(r.objective, want, abs_tol=1e-6)
    errors = sum(r.xi)
    assert math.isclose(r.objective, errors + penalty * len(y) * len(r.steps), abs_tol=1e-6)
    # the penalty trades errors for rules: never more rules, never fewer errors than without
    r0 = select_rules(g, y, task="classification", loss="misclassification", n_classes=2,
                   depth=2, leaves=4, min_count=1, exact_pricing=True).result
    assert len(r.steps) <= len(r0.steps) and errors >= sum(r0.xi) - 1e-9


@pytest.mark.parametrize("seed", [0, 1, 3])
def test_penalties_in_one_problem_equal_enumerated_optima(seed):
    """``leaf_penalty="auto"`` solves its candidates in one :class:`RuleSelector`: a penalty
    solved after others starts from their columns, re-costed.  Each must still be the
    enumerated optimum of its own penalty (a column kept at an earlier penalty's cost fails)."""
    from optrees.omt.rules import RuleSelector

    X, y = tiny_categorical(seed, n=24)
    sel = RuleSelector(build_graph(X), y, task="classification", loss="misclassification",
                       n_classes=2, depth=2, leaves=4, min_count=1, exact_pricing=True)
    for penalty in (0.1, 0.0, 0.05, 0.02):
        r = sel.select(penalty).result
        want = oracle_misclassification(X, y, 2, 4, 1, rule_cost=penalty * len(y))
        assert r.status == "optimal"
        assert math.isclose(r.objective, want, abs_tol=1e-6)
        assert math.isclose(r.objective, sum(r.xi) + penalty * len(y) * len(r.steps),
                            abs_tol=1e-6)


def test_greedy_binary_partition_and_distinct_covers():
    """With "!= v" nodes the warm start includes a binary (CART-like) tree: here y = (f0 == 0)
    needs 3 leaves as a multiway split but 2 as a binary one; priced columns never repeat a
    cover already in the pool."""
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"f0": pd.Categorical(rng.integers(0, 3, 60).astype(str)),
                      "f1": pd.Categorical(rng.integers(0, 3, 60).astype(str))})
    y = (X["f0"].astype(str) == "0").astype(int).to_numpy()
    for nodes, want in (("values", None), ("complements", 0)):
        g = build_graph(X, categorical_nodes=nodes)
        codes, inv, n = unit_table(g.codes)
        metric = Metric("loss", class_loss_matrix(inv, y, len(n), 2), n)
        counts = n[:, None] - class_loss_matrix(inv, y, len(n), 2)
        solver = OMTSolver(g, n, 2, 2, 1, unit_codes=codes)
        parts = solver.greedy_partitions(metric, counts)
        errs = [sum(metric.S[cover(g, codes, st)].sum(0).min() for st in part)
                for part in parts if len(part) <= 2 and len(part) > 1]
        if want is None:
            assert errs == []  # no 2-leaf split exists in the plain graph
        else:
            assert min(errs) == want
            res = solver.solve(metric, None, class_counts=counts)
            assert res.objective == 0 and len(res.steps) == 2
    X, y = tiny_categorical(7, n=40, k=4)  # noisy: many rules share a cover
    g = build_graph(X, categorical_nodes="complements")
    codes, inv, n = unit_table(g.codes)
    metric = Metric("loss", class_loss_matrix(inv, y, len(n), 2), n)
    solver = OMTSolver(g, n, 3, 4, 1, unit_codes=codes)
    solver.solve(metric, None)
    keys = [np.packbits(cover(g, codes, st)).tobytes() for st in solver.pool]
    assert len(set(keys)) == len(keys)


def test_estimator_partition_tree_and_objective():
    X, y = tiny_categorical(5, n=120, k=4)
    clf = OMTClassifier(depth=3, min_support=0.05, leaf_penalty=0, random_state=0).fit(X, y)
    assert clf.n_uncovered_ == 0 and len(clf.paths_) <= 8
    errors = int(np.sum(clf.predict(X) != y))
    assert errors == round(clf.objective_)
    assert clf.bound_ <= clf.objective_ + 1e-6
    assert 0 <= clf.gap_ <= 1
    # every training sample reaches the leaf of the one rule that covers it
    leaf_rules = clf.tree_.rule[clf.apply(X)]
    assert (leaf_rules >= 0).all()
    assert np.bincount(leaf_rules).sum() == len(y)
    txt = clf.export_text()
    assert "f0" in txt or "f1" in txt
    # deterministic
    clf2 = OMTClassifier(depth=3, min_support=0.05, leaf_penalty=0, random_state=0).fit(X, y)
    assert clf2.paths_ == clf.paths_


def test_real_dataset_monk1():
    from optrees import load_dataset

    X, y = load_dataset("monk1")
    clf = OMTClassifier(depth=3, leaf_penalty=0, time_limit=30).fit(X, y)
    assert clf.n_uncovered_ == 0
    assert np.mean(clf.predict(X) == y.to_numpy()) >= 0.8
    assert clf.objective_ == np.sum(clf.predict(X) != y.to_numpy())


# --------------------------------------------------------------------------- constraints
def test_budgets_and_attribute_rules_hold():
    X, y = tiny_categorical(7, n=150, k=4)
    costs = {"f0": 3.0, "f1": 2.0, "f2": 1.0, "f3": 1.0}
    clf = OMTClassifier(depth=3, min_support=0.03, feature_costs=costs, rule_budget=4.0,
                        total_budget=9.0, forbidden=[["f1", "f2"]],
                        requires={"f3": ["f2"]}, random_state=0).fit(X, y)
    total = 0.0
    for r in clf.paths_:
        c = sum(costs[f] for f in r["features"])
        assert math.isclose(c, r["cost"]) and c <= 4.0 + 1e-9
        assert not {"f1", "f2"} <= set(r["features"])
        if "f3" in r["features"]:
            assert "f2" in r["features"]
        total += c
    assert total <= 9.0 + 1e-9
    unconstrained = OMTClassifier(depth=3, min_support=0.03, random_state=0).fit(X, y)
    assert clf.objective_ >= unconstrained.objective_ - 1e-9


def test_budget_constraint_exact_vs_enumeration():
    X, y = tiny_categorical(8, n=24)
    costs = np.array([2.0, 1.0, 1.0])
    g = build_graph(X)
    masks, cst, rho = [], [], []
    for p in all_paths(g, 2):
        m = cover(g, g.codes, p)
        masks.append(m)
        cst.append(float(m.sum() - np.bincount(y[m], minlength=2).max()))
        rho.append(sum(costs[a] for a, _ in p))
    # brute force with a total budget of 2: enumerate rule subsets via DFS on allowed subsets
    best = math.inf
    for r in range(1, 4):
        for combo in itertools.combinations(range(len(masks)), r):
            if sum(rho[j] for j in combo) > 2.0:
                continue
            if np.all(sum(masks[j].astype(int) for j in combo) == 1):
                best = min(best, sum(cst[j] for j in combo))
    fit = select_rules(g, y, task="classification", loss="misclassification", n_classes=2,
                    depth=2, leaves=3, min_count=1, exact_pricing=True,
                    constraints=[RuleConstraint(costs, 0.0, -math.inf, 2.0, "budget")])
    assert fit.result.status == "optimal"
    assert math.isclose(fit.result.objective, best, abs_tol=1e-6)


# --------------------------------------------------------------------------- F1, regression
def test_f1_dinkelbach_matches_enumeration():
    X, y = tiny_categorical(11, n=24)
    y = (y & (np.arange(24) % 3 == 0)).astype(int)  # imbalanced
    if y.sum() == 0:
        y[0] = 1
    g = build_graph(X)
    masks = [cover(g, g.codes, p) for p in all_paths(g, 2)]
    P = y.sum()
    best = 0.0
    for r in range(1, 4):  # every partition by <= 3 rules, each rule's label chosen freely
        for combo in itertools.combinations(range(len(masks)), r):
            if not np.all(sum(masks[j].astype(int) for j in combo) == 1):
                continue
            for labels in itertools.product([0, 1], repeat=r):
                tp = sum(y[masks[j]].sum() for j, lab in zip(combo, labels, strict=True) if lab)
                fp = sum((1 - y[masks[j]]).sum() for j, lab in zip(combo, labels, strict=True)
                         if lab)
                best = max(best, 2 * tp / (tp + fp + P))
    clf = OMTClassifier(depth=2, leaves=3, min_support=1, loss="f1", exact_pricing=True,
                        categorical_nodes="values")
    clf.fit(X, y)
    pred = clf.predict(X)
    tp = np.sum((pred == 1) & (y == 1))
    f1 = 2 * tp / (np.sum(pred == 1) + P)
    assert math.isclose(clf.f1_, f1, abs_tol=1e-9)
    assert math.isclose(f1, best, abs_tol=1e-9)


def test_regression_squared_exact():
    rng = np.random.default_rng(4)
    X, _ = tiny_categorical(4, n=20)
    yv = rng.normal(size=20) + (X["f0"].astype(str) == "1") * 3.0
    g = build_graph(X)
    masks, costs = [], []
    for p in all_paths(g, 2):
        m = cover(g, g.codes, p)
        if m.sum() < 2:
            continue
        masks.append(m)
        costs.append(float(((yv[m] - yv[m].mean()) ** 2).sum()))
    want = partition_optimum(masks, costs, 3)
    reg = OMTRegressor(depth=2, leaves=3, min_support=2, exact_pricing=True,
                       leaf_penalty=0, categorical_nodes="values").fit(X, yv)
    assert reg.status_ == "optimal"
    assert math.isclose(reg.objective_, want, rel_tol=1e-7, abs_tol=1e-7)
    assert math.isclose(float(((reg.predict(X) - yv) ** 2).sum()), want, rel_tol=1e-7)
    absr = OMTRegressor(depth=2, leaves=3, loss="absolute", min_support=2,
                        leaf_penalty=0).fit(X, yv)
    assert absr.objective_ <= np.abs(yv - np.median(yv)).sum() + 1e-9
    # leaf penalty in units of the one-leaf loss: exact optimum of loss + pen * root * rules
    root = float(((yv - yv.mean()) ** 2).sum())
    for pen in (0.05, 0.6):
        want_p = partition_optimum(masks, [c + pen * root for c in costs], 3)
        rp = OMTRegressor(depth=2, leaves=3, min_support=2, exact_pricing=True,
                          leaf_penalty=pen, categorical_nodes="values").fit(X, yv)
        assert rp.status_ == "optimal"
        assert math.isclose(rp.objective_, want_p, rel_tol=1e-7, abs_tol=1e-7)
    assert len(rp.paths_) < len(reg.paths_)  # the larger penalty merges leaves


# --------------------------------------------------------------------------- model
def test_multiway_tree_json_roundtrip_and_unseen():
    X = pd.DataFrame({"color": ["r", "g", "b"] * 20, "size": np.arange(60, dtype=float)})
    y = np.where((X["color"] == "r") | (X["size"] >= 45), "yes", "no")
    clf = OMTClassifier(depth=2, min_support=1).fit(X, y)
    assert clf.score(X, y) == 1.0
    d = json.loads(json.dumps(clf.tree_.to_dict()))
    t2 = MultiwayTree.from_dict(d)
    Xn = pd.DataFrame({"color": ["r", "g", "purple"], "size": [1.0, 50.0, 3.0]})
    with pytest.warns(UnseenCategoryWarning, match="purple"):
        assert list(t2.predict(Xn)) == list(clf.predict(Xn))
    with pytest.warns(UnseenCategoryWarning, match="purple"):
        assert clf.predict(Xn)[2] in ("yes", "no")  # unseen category: fallback, no error
    assert "color" in clf.export_text() and "size" in clf.export_text()
    proba = clf.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1.0)


# --------------------------------------------------------------------------- bad input
def test_bad_input():
    X, y = tiny_categorical(0, n=30)
    with pytest.raises(OptreesInputError, match="min_support"):
        OMTClassifier(min_support=100).fit(X, y)
    Xn = X.copy()
    Xn["num"] = np.where(np.arange(30) == 3, np.nan, 1.0)
    with pytest.raises(OptreesInputError, match="NaN"):
        OMTClassifier().fit(Xn, y)
    with pytest.raises(OptreesInputError, match="infeasible"):
        OMTClassifier(feature_costs={"f0": 1.0}, total_budget=-1).fit(X, y)
    with pytest.raises(OptreesInputError, match="infeasible"):
        OMTClassifier(feature_costs={"f0": 1.0}, rule_budget=-0.5).fit(X, y)
    with pytest.raises(OptreesInputError, match="cannot be satisfied"):
        OMTClassifier(depth=2, constraints=[{"coef": {"f0": 1.0}, "lower": 50}]).fit(X, y)
    with pytest.raises(OptreesInputError, match="binary"):
        OMTClassifier(loss="f1").fit(X, np.arange(30) % 3)
    with pytest.raises(OptreesInputError, match="leaves"):
        OMTClassifier(leaves=0).fit(X, y)
    with pytest.raises(OptreesInputError,
                       match=r"leaf_penalty must be 'auto' or a number in \[0, inf\] or None, "
                             r"got -0.1"):
        OMTClassifier(leaf_penalty=-0.1).fit(X, y)
    with pytest.raises(OptreesInputError, match="leaf_penalty is not supported"):
        OMTClassifier(loss="f1", leaf_penalty=0.1).fit(X, y)
    with pytest.raises(OptreesInputError, match="before"):
        OMTClassifier(requires={"f0": ["f2"]}).fit(X, y)
    with pytest.raises(UserWarning, match="classes"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            OMTClassifier(leaves=2).fit(X, np.arange(30) % 3)
    # a single-valued feature is dropped; all constant -> one leaf
    Xc = pd.DataFrame({"a": ["z"] * 30, "b": [1.0] * 30})
    clf = OMTClassifier().fit(Xc, y)
    assert clf.tree_.n_leaves == 1 and clf.graph_.dropped == ["a", "b"]
    assert np.all(clf.predict(Xc) == np.bincount(y).argmax())


def test_column_generation_stops_when_the_lp_stalls():
    """car-evaluation, d = 3: the LP value stops falling long before pricing runs dry."""
    from optrees.datasets import load_dataset

    X, y = load_dataset("car-evaluation")
    X, y = X.iloc[:400], y[:400]  # stalls after 2 rounds, 8 rounds to the optimum
    paper = dict(depth=3, leaf_penalty=0, categorical_nodes="values", time_limit=60,
                 random_state=0)
    clf = OMTClassifier(max_stall=2, **paper).fit(X, y)
    assert clf.status_ == "stalled" and clf.n_iter_ <= 12
    full = OMTClassifier(max_stall=0, **paper).fit(X, y)
    # converged, or proved where the rules reach the bound over every rule set
    assert full.status_ == ("optimal" if full.bound_ >= full.objective_ - 1e-9 else
                            "converged") and full.n_iter_ > clf.n_iter_
    assert clf.objective_ >= full.objective_ - 1e-9  # stopping early never helps


# --------------------------------------------------------------------------- leaf_penalty="auto"
def _auto_data(n: int = 80):
    rng = np.random.default_rng(7)
    X = pd.DataFrame({"a": rng.normal(size=n).round(2), "b": rng.integers(0, 4, n),
                      "c": pd.Categorical(rng.choice(list("xyz"), n))})
    y = np.where((X.a > 0.3) ^ (rng.random(n) < 0.25), "yes", "no")
    return X, y


def test_auto_penalty_is_the_best_candidate_on_the_held_out_rows():
    """The candidates, solved one after another on the kept rows (exact pricing: each is the
    optimum of its penalty, whatever columns and MIP starts earlier ones left), score on the
    held-out rows as ``validation_scores_`` says; the best (ties: the lower median) is
    refitted on all rows.
    """
    from optrees.omt.fit import OMTFit
    from optrees.omt.penalty import AUTO_PENALTIES, holdout, pick_penalty
    from optrees.solvers.deadline import Deadline

    X, y = _auto_data()
    X["a"] = X.a.round(1)  # 35 bins of a, not 44: the oracle's search takes half the time
    est = OMTClassifier(depth=2, leaf_penalty="auto", random_state=3,
                        exact_pricing=True).fit(X, y)
    classes, yi = np.unique(y, return_inverse=True)
    held = holdout(X, yi, None, 3)
    assert 0 < held.sum() < len(y)
    fit = OMTFit("classification", validate_params(est), classes, None, 1)
    problem = fit.problem(X[~held], yi[~held], None)
    graph = problem.graph
    scores = {}
    for lam in AUTO_PENALTIES:
        result = problem.solve(lam, Deadline())
        want = oracle_on_graph(graph, yi[~held], 2, 4, 1, rule_cost=lam * (~held).sum())
        assert result.status == "optimal" and result.objective == pytest.approx(want)
        scores[lam] = float(np.mean(result.model.predict_index(X[held]) == yi[held]))
    # each candidate's rules became a MIP start of the ones after it
    assert len(problem.selector.solver.selected) == len(AUTO_PENALTIES)
    assert est.validation_scores_ == pytest.approx(scores, abs=1e-12)
    assert est.leaf_penalty_ == pick_penalty(scores)
    assert scores[est.leaf_penalty_] == max(scores.values())
    refit = OMTClassifier(depth=2, leaf_penalty=est.leaf_penalty_, random_state=3,
                          exact_pricing=True).fit(X, y)
    assert est.objective_ == pytest.approx(refit.objective_)
    np.testing.assert_array_equal(est.predict(X), refit.predict(X))


def test_auto_penalty_reproducible_and_paper_objective_kept():
    X, y = _auto_data()
    a = OMTClassifier(depth=2, leaf_penalty="auto", random_state=5).fit(X, y)
    b = OMTClassifier(depth=2, leaf_penalty="auto", random_state=5).fit(X, y)
    assert a.validation_scores_ == b.validation_scores_
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    from optrees.omt.penalty import holdout

    assert not np.array_equal(holdout(X, y, None, 5), holdout(X, y, None, 6))
    paper = OMTClassifier(depth=2, leaf_penalty=0, random_state=5).fit(X, y)
    assert paper.leaf_penalty_ == 0.0 and paper.validation_scores_ == {}
    for penalty in (None, "auto"):  # no penalty with F1
        f1 = OMTClassifier(depth=2, loss="f1", leaf_penalty=penalty, random_state=5).fit(X, y)
        assert f1.leaf_penalty_ == 0.0 and f1.validation_scores_ == {}
    reg = OMTRegressor(depth=2, random_state=5).fit(X[["a", "b"]], X.a.to_numpy() ** 2)
    assert reg.leaf_penalty_ in reg.validation_scores_  # None is "auto" for regression
    assert all(v <= 0 for v in reg.validation_scores_.values())  # minus the mean loss


def test_default_penalty_of_classification_is_one_fit_with_the_fixed_penalty():
    """``leaf_penalty=None`` (the default) fits once with :func:`default_penalty` of the
    training weight (0.02 up to 2,500 samples, then 1 / sqrt(n)): the same tree and objective
    as passing that number, and no held-out choice."""
    from optrees.omt.penalty import CLASSIFICATION_PENALTY, default_penalty

    assert default_penalty(80) == default_penalty(2500) == CLASSIFICATION_PENALTY == 0.02
    assert default_penalty(10_000) == pytest.approx(0.01)
    assert default_penalty(1e6) == pytest.approx(0.001)

    X, y = _auto_data()
    default = OMTClassifier(depth=2, random_state=5).fit(X, y)
    fixed = OMTClassifier(depth=2, leaf_penalty=CLASSIFICATION_PENALTY,
                          random_state=5).fit(X, y)
    assert default.leaf_penalty_ == CLASSIFICATION_PENALTY and default.validation_scores_ == {}
    assert default.objective_ == pytest.approx(fixed.objective_)
    np.testing.assert_array_equal(default.predict(X), fixed.predict(X))
    # the penalty is charged: objective = errors + penalty * n * rules (no slack left)
    errors = float(np.sum(default.predict(X) != y))
    assert default.objective_ == pytest.approx(
        errors + CLASSIFICATION_PENALTY * len(y) * len(default.paths_))
    # past 2,500 samples the penalty is 1 / sqrt(n); integer weights count as repeated rows
    X, y = _auto_data(1000)
    big = OMTClassifier(depth=1).fit(X, y, sample_weight=np.full(len(y), 3.0))
    assert big.leaf_penalty_ == pytest.approx(3000 ** -0.5)


def test_auto_penalty_holdout_keeps_identical_rows_together():
    from optrees.omt.penalty import holdout

    X, y = _auto_data(40)
    w = np.random.default_rng(2).integers(1, 4, len(y))
    held_w = holdout(X, y, w.astype(float), 1)
    held_rep = holdout(X.loc[X.index.repeat(w)], np.repeat(y, w), None, 1)
    np.testing.assert_array_equal(np.repeat(held_w, w), held_rep)
    assert holdout(X.iloc[[0, 0, 0]], y[[0, 0, 0]], None, 0) is None  # one distinct row


def test_auto_penalty_honours_the_time_limit():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({f"f{j}": pd.Categorical(rng.integers(0, 4, 400).astype(str))
                      for j in range(8)})
    y = rng.integers(0, 2, 400)  # noise: a hard master MIP at depth 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TimeLimitWarning when the refit is cut short
        est = OMTClassifier(depth=4, time_limit=1.5, random_state=0).fit(X, y)
    assert est.fit_seconds_ < 1.5 + 1.0
