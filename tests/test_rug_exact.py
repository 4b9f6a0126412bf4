"""Exact RUG pricing (PSP (8)): enumeration, MILP and brute force agree; the bound is valid."""

import itertools

import numpy as np
import pandas as pd
import pytest

from optrees.encoding.columns import RawColumns
from optrees.rug.exact import ExactPricer, farley_bound, literal_pool
from optrees.rug.fairness import Fairness
from optrees.rug.generation import RuleGeneration


def _data(n=40, seed=0, K=3):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "a": rng.integers(0, 10, n).astype(float),
        "b": rng.normal(size=n).round(2),
        "c": rng.choice(["x", "y", "z"], n),
    })
    y = (df["a"].to_numpy() > 4).astype(int) + (df["c"].to_numpy() == "z")
    y = np.where(rng.random(n) < 0.15, rng.integers(0, K, n), y) % K
    return df, y


def _brute_min_rc(raw, pool, y, K, beta, lam, length_cost, L):
    """min over classes and conjunctions of <= L pool literals of lam*c - sum beta*ahat."""
    best = np.inf
    for ell in range(1, L + 1):
        for combo in itertools.combinations(range(len(pool.literals)), ell):
            cover = np.ones(raw.n, dtype=bool)
            for p in combo:
                cover &= raw.evaluate(pool.literals[p])
            for k in range(K):
                ahat = np.where(y == k, 1.0, -1.0 / (K - 1))
                rc = lam * (ell if length_cost else 1.0) - float((beta * ahat)[cover].sum())
                best = min(best, rc)
    return best


def test_pool_matrix_matches_literal_evaluation():
    df, _ = _data()
    raw = RawColumns(df)
    pool = literal_pool(raw, n_thresholds=4)
    assert pool.M.shape == (len(df), len(pool.literals))
    for p, lit in enumerate(pool.literals):
        np.testing.assert_array_equal(pool.M[:, p], lit.evaluate(df[lit.feature]))
    assert len(set(pool.literals)) == len(pool.literals)


@pytest.mark.parametrize("L", [1, 2, 3])
@pytest.mark.parametrize("length_cost", [True, False])
@pytest.mark.parametrize("seed", [0, 1])
def test_enumeration_and_milp_find_the_true_minimum(L, length_cost, seed):
    df, y = _data(seed=seed)
    raw = RawColumns(df)
    rng = np.random.default_rng(10 + seed)
    beta = np.where(rng.random(len(y)) < 0.6, rng.random(len(y)), 0.0)
    lam = 0.3
    truth = None
    for method in ("enumerate", "milp"):
        pricer = ExactPricer(raw, y, 3, lam, length_cost, L, method=method, n_thresholds=3)
        if truth is None:
            truth = _brute_min_rc(raw, pricer.pool, y, 3, beta, lam, length_cost, L)
        rules = pricer(beta)
        assert pricer.last_min_rc == pytest.approx(min(0.0, truth), abs=1e-7), method
        if truth < -1e-9:  # the best rule returned really has that reduced cost
            first = rules[0]
            cover = np.ones(len(y), dtype=bool)
            for lit in first:
                cover &= raw.evaluate(lit)
            rcs = [lam * (len(first) if length_cost else 1.0)
                   - float((beta * np.where(y == k, 1.0, -0.5))[cover].sum()) for k in range(3)]
            assert min(rcs) == pytest.approx(truth, abs=1e-7)


def _full_master_value(raw, y, lam, pool, L, fairness=None):
    """Optimum of the master LP over every conjunction of <= L pool literals."""
    gen = RuleGeneration(raw, y, 3, pen_par=lam, fairness=fairness)
    cands = [tuple(pool.literals[p] for p in c) for ell in range(1, L + 1)
             for c in itertools.combinations(range(len(pool.literals)), ell)]
    beta = np.ones(len(y))
    for k in range(3):  # one column per class for each conjunction
        w = np.where(y == k, 1.0, 0.0) + 1e-3
        gen._add_candidates(cands, w, require_negative=False)
        beta = beta + w
    master, _ = gen.build_master()
    return float(master.solve().objective)


@pytest.mark.parametrize("calls", [2, 30])
def test_farley_bound_brackets_the_full_master(calls):
    df, y = _data(n=30, seed=3)
    raw = RawColumns(df)
    lam, L = 0.5, 2
    pricer = ExactPricer(raw, y, 3, lam, True, L, method="enumerate", n_thresholds=3)
    gen = RuleGeneration(raw, y, 3, max_depth=1, pen_par=lam, max_rmp_calls=calls,
                         pricer=pricer)
    res = gen.run()
    full = _full_master_value(raw, y, lam, pricer.pool, L)
    assert res.lower_bound is not None
    assert res.lower_bound <= full + 1e-7
    if res.status == "converged":
        # no pool rule prices out: the restricted LP is the LP over the whole pool (or better,
        # with the initial tree's rules), and the bound is tight
        assert res.lower_bound == pytest.approx(res.objective)
        assert res.objective <= full + 1e-7
    else:
        assert res.lower_bound < res.objective


def test_exact_pricing_with_fairness_keeps_bound_valid():
    df, y = _data(n=30, seed=4)
    raw = RawColumns(df)
    groups = (df["b"].to_numpy() > 0).astype(int)
    fair = Fairness("odm", groups, 0.02, group_names=["neg", "pos"])
    pricer = ExactPricer(raw, y, 3, 0.5, True, 2, method="milp", n_thresholds=3)
    gen = RuleGeneration(raw, y, 3, max_depth=1, pen_par=0.5, max_rmp_calls=30,
                         fairness=fair, pricer=pricer)
    res = gen.run()
    full = _full_master_value(raw, y, 0.5, pricer.pool, 2, fairness=fair)
    assert res.lower_bound <= full + 1e-7


def test_farley_bound_edge_cases():
    assert farley_bound(10.0, 0.0, 1.0) == 10.0
    assert farley_bound(10.0, -1.0, 1.0) == pytest.approx(5.0)
    assert farley_bound(10.0, -1.0, 0.0) is None
    assert farley_bound(10.0, None, 1.0) is None


def test_farley_bound_stays_valid_with_interior_point_duals():
    df, y = _data(n=30, seed=3)
    raw = RawColumns(df)
    pricer = ExactPricer(raw, y, 3, 0.5, True, 2, method="enumerate", n_thresholds=3)
    gen = RuleGeneration(raw, y, 3, max_depth=1, pen_par=0.5, max_rmp_calls=30,
                         pricer=pricer, interior=True)
    res = gen.run()
    full = _full_master_value(raw, y, 0.5, pricer.pool, 2)
    assert res.lower_bound is not None
    # a bound on the LP over the pool and the restricted rules: below both values
    assert res.lower_bound <= min(full, res.objective) + 1e-7
