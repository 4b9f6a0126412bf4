"""Tests that kill mutants of RUG's restricted master LP (rug/master.py; ``bench/mutation.py
rug-master``, docs/testing.md).  The oracle is [RUG] (3) (+ the fairness rows (11)-(12),
(15)-(16)) built densely in plain numpy from the paper's definitions and solved by
``scipy.optimize.linprog``; the duals are checked by LP duality (dual feasibility and the
dual objective equal to the optimum), not by comparison with a second solver's duals."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from scipy.optimize import linprog

from optrees.rug.master import RUGMaster

TOL = 1e-6


def _ahat(y, cover, label, K):
    """[RUG] (3)'s ``ahat_ij`` for rule j (covering ``cover``, predicting ``label``): 1 on a
    covered row of that class, -1/(K-1) on a covered row of another class, 0 elsewhere."""
    col = np.zeros(len(y))
    col[cover] = np.where(y[cover] == label, 1.0, -1.0 / (K - 1))
    return col


def _instance(seed, n=12, K=3, m=7, cells=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    y[:K] = np.arange(K)
    counts = rng.integers(1, 4, n).astype(float) if cells else np.ones(n)
    rules = []
    for _ in range(m):
        cover = np.flatnonzero(rng.random(n) < 0.45)
        if cover.size == 0:
            cover = np.array([int(rng.integers(n))])
        label = int(np.bincount(y[cover], minlength=K).argmax()) if rng.random() < 0.8 \
            else int(rng.integers(K))
        rules.append((cover, label, float(rng.integers(1, 4))))
    return y, counts, rules


def _fair_pairs(y, groups, kind, K, counts):
    """(rows of g, rows of h, |I_g|, |I_h|) of each row ``mean_g v - mean_h v <= eps``:
    (11)-(12) per class (dmc), (15)-(16) over all rows (odm); a row stands for ``counts``
    samples, so the means are count-weighted."""
    sets = ([groups == g for g in np.unique(groups)] if kind == "odm" else None)
    fams = [sets] if sets is not None else [[(groups == g) & (y == k) for g in np.unique(groups)]
                                           for k in range(K)]
    out = []
    for fam in fams:
        for a, ga in enumerate(fam):
            for b, gb in enumerate(fam):
                if a != b and ga.any() and gb.any():  # a mean over no row is no row
                    out.append((ga, gb, counts[ga].sum(), counts[gb].sum()))
    return out


def _oracle(y, counts, rules, lam, K, fair=None, eps=0.0):
    """Optimum of (3) over columns (v, w): min lam c'w + counts'v, ahat w + v >= 1, the
    fairness rows, v, w >= 0; also the dense matrices for the duality checks."""
    n, m = len(y), len(rules)
    A = np.column_stack([_ahat(y, cov, lab, K) for cov, lab, _ in rules]) if m else np.zeros((n, 0))
    c = lam * np.array([cost for *_, cost in rules])
    F = np.zeros((len(fair or []), n))
    for r, (ga, gb, na, nb) in enumerate(fair or []):
        F[r] = np.where(ga, counts / na, 0.0) - np.where(gb, counts / nb, 0.0)
    A_ub = np.vstack([-np.hstack([np.eye(n), A]), np.hstack([F, np.zeros((len(F), m))])])
    b_ub = np.concatenate([-np.ones(n), np.full(len(F), eps)])
    res = linprog(np.concatenate([counts, c]), A_ub=A_ub, b_ub=b_ub, method="highs")
    assert res.status == 0
    return res.fun, A, c, F


def _master(y, counts, rules, lam, K, fair_sets=None, eps=0.0, interior=False):
    from optrees.rug.fairness import Fairness  # only for the cap epsilon the master reads

    fairness = None if fair_sets is None else Fairness("dmc", np.zeros(len(y), int), eps)
    master = RUGMaster(y, K, lam, fairness, counts=counts, fair_sets=fair_sets,
                       interior=interior)
    for cover, label, cost in rules:
        master.add(cover, label, cost)
    return master


def _check_primal_dual(res, y, counts, A, c, F, eps, best, tol=TOL):
    """(v, w) feasible in (3) with value ``best``; the duals (beta on the cover rows, -mu on
    the fairness rows) feasible in the dual of (3) with the same value; the bound valid."""
    n = len(y)
    v, w = res.values[:n], res.values[n:]
    assert res.objective == pytest.approx(best, abs=1e-6)
    assert counts @ v + c @ w == pytest.approx(best, abs=1e-6)
    assert np.all(v >= -tol) and np.all(w >= -tol)
    assert np.all(A @ w + v >= 1 - 1e-6)
    assert np.all(F @ v <= eps + 1e-6)
    duals = res.stats["duals"]
    beta, mu = duals[:n], -duals[n:]
    assert len(mu) == len(F)
    assert np.all(beta >= -tol) and np.all(mu >= -tol)
    assert np.all(A.T @ beta <= c + 1e-6)                 # w_j's dual row
    assert np.all(beta - F.T @ mu <= counts + 1e-6)        # v_i's dual row
    assert beta.sum() - eps * mu.sum() == pytest.approx(best, abs=1e-6)
    assert res.bound <= best + 1e-9
    # reduced costs of (3)'s columns (v then w) for these duals
    rc = res.stats["reduced_costs"]
    assert rc[n:] == pytest.approx(c - A.T @ beta, abs=1e-6)
    assert rc[:n] == pytest.approx(counts - beta + F.T @ mu, abs=1e-6)


@pytest.mark.parametrize("seed", range(6))
def test_the_master_without_fairness_solves_lp3(seed):
    """Through its dual (one row per rule): the optimum of (3), primal and dual solutions,
    reduced costs and a tight bound; with cells (``counts``) every 2nd seed and 2 or 3
    classes.  Kills the mutants of _solve_dual, matrix and _certified."""
    K = 2 + seed % 2
    y, counts, rules = _instance(seed, K=K, cells=seed % 2 == 0)
    lam = [0.05, 0.3, 1.0][seed % 3]
    best, A, c, F = _oracle(y, counts, rules, lam, K)
    master = _master(y, counts, rules, lam, K)
    res = master.solve()
    assert res.status == "optimal"
    _check_primal_dual(res, y, counts, A, c, F, 0.0, best)
    assert res.bound == pytest.approx(best, abs=1e-6)
    assert master.matrix().toarray() == pytest.approx(A.T)
    # a simplex solve: no interior-point gap to report, and an LP has no branch-and-bound
    assert "interior_gap" not in res.stats and res.nodes == 0


def test_add_returns_the_rules_column_of_lp3():
    """``add`` returns rule j's column in (3) (after the n slack columns), where the
    solution holds its weight: ``values[col] = w_j``.  Kills ``n + len(cols)`` -> ``-``."""
    y, counts, rules = _instance(8, K=3)
    master = _master(y, counts, [], 0.2, 3)
    cols = [master.add(*rule) for rule in rules]
    assert cols == list(range(len(y), len(y) + len(rules)))
    res = master.solve()
    best, A, c, F = _oracle(y, counts, rules, 0.2, 3)
    w = res.values[cols]
    assert c @ w + counts @ np.maximum(1 - A @ w, 0) == pytest.approx(best, abs=1e-6)


@pytest.mark.parametrize("kind", ["dmc", "odm"])
@pytest.mark.parametrize("seed", range(3))
def test_the_master_with_fairness_rows_solves_lp3_with_them(kind, seed):
    """Two or three groups, rows (11)-(12) or (15)-(16) as count-weighted means of v over a
    group: the optimum, duals (beta >= 0, mu >= 0), reduced costs, the bound ``sum beta - eps
    sum mu``.  Kills the mutants of _solve_primal (columns, rows, signs of the fairness
    duals, the clip of beta at ``counts + F mu``) and of the bound."""
    K = 2 + seed % 2
    y, counts, rules = _instance(seed + 10, n=14, K=K, cells=seed != 1)
    groups = np.arange(len(y)) % (2 + seed % 2)
    eps = [0.0, 0.05, 0.2][seed]
    fair = _fair_pairs(y, groups, kind, K, counts)
    best, A, c, F = _oracle(y, counts, rules, 0.2, K, fair, eps)
    fams = [[groups == g for g in np.unique(groups)]] if kind == "odm" else \
        [[(groups == g) & (y == k) for g in np.unique(groups)] for k in range(K)]
    fair_sets = [[(np.flatnonzero(s), float(counts[s].sum())) for s in fam] for fam in fams]
    master = _master(y, counts, rules, 0.2, K, fair_sets, eps)
    res = master.solve()
    assert res.status == "optimal"
    _check_primal_dual(res, y, counts, A, c, F, eps, best)
    assert res.bound == pytest.approx(best, abs=1e-6)
    assert "basis" in res.stats


def test_fairness_sets_from_the_notion_when_none_are_given():
    """Without ``fair_sets`` the master takes the groups of each class from the Fairness
    object (DMC: one family per class); the rows are those of (11)-(12)."""
    from optrees.rug.fairness import Fairness

    y, counts, rules = _instance(3, n=14, K=2)
    groups = np.arange(14) % 2
    fair = _fair_pairs(y, groups, "dmc", 2, counts)
    best, A, c, F = _oracle(y, counts, rules, 0.2, 2, fair, 0.05)
    master = RUGMaster(y, 2, 0.2, Fairness("dmc", groups, 0.05))
    for rule in rules:
        master.add(*rule)
    res = master.solve()
    _check_primal_dual(res, y, counts, A, c, F, 0.05, best)
    assert "interior_gap" not in res.stats                  # simplex unless asked otherwise


@pytest.mark.parametrize("fairness", [False, True])
def test_a_warm_started_master_after_new_rules_is_the_new_optimum(fairness):
    """Column generation's use: solve, add rules, solve again from the returned basis (dual
    simplex without fairness, primal simplex with it).  Kills mutants of the warm start."""
    y, counts, rules = _instance(4, n=14, K=3, m=9, cells=True)
    groups = np.arange(14) % 2
    fair = _fair_pairs(y, groups, "odm", 3, counts) if fairness else None
    fair_sets = ([[(np.flatnonzero(groups == g), float(counts[groups == g].sum()))
                   for g in (0, 1)]] if fairness else None)
    master = _master(y, counts, rules[:4], 0.3, 3, fair_sets, 0.05)
    first = master.solve()
    for rule in rules[4:]:
        master.add(*rule)
    res = master.solve(basis=first.stats.get("basis"))
    best, A, c, F = _oracle(y, counts, rules, 0.3, 3, fair, 0.05)
    _check_primal_dual(res, y, counts, A, c, F, 0.05 if fairness else 0.0, best)


def test_an_empty_pool_leaves_every_slack_at_one():
    """No rule: v = 1 on every row, value sum(counts), beta = counts (the dual's bounds)."""
    y, counts, _ = _instance(5, cells=True)
    res = _master(y, counts, [], 0.5, 3).solve()
    assert res.objective == pytest.approx(counts.sum())
    assert res.values == pytest.approx(np.ones(len(y)))
    assert res.stats["duals"] == pytest.approx(counts)
    assert res.bound == pytest.approx(counts.sum())


@pytest.mark.parametrize("fairness", [False, True])
def test_an_interior_point_master_is_near_the_optimum_with_a_valid_bound(fairness):
    """Interior point without crossover (ruleopt's tolerance): optimal within the stated
    relative gap 1e-3, a bound never above the optimum, zero weights and duals below 1e-6,
    the gap in stats.  Kills the mutants of _zero_noise and of the interior-point status."""
    y, counts, rules = _instance(6, n=40, K=3, m=15, cells=True)
    groups = np.arange(40) % 2
    fair = _fair_pairs(y, groups, "odm", 3, counts) if fairness else None
    fair_sets = ([[(np.flatnonzero(groups == g), float(counts[groups == g].sum()))
                   for g in (0, 1)]] if fairness else None)
    best, A, c, F = _oracle(y, counts, rules, 0.1, 3, fair, 0.1)
    res = _master(y, counts, rules, 0.1, 3, fair_sets, 0.1, interior=True).solve()
    assert res.status == "optimal"
    gap = res.stats["interior_gap"]
    assert 0.0 <= gap <= 1e-3
    assert res.bound <= best + 1e-9 <= res.objective + 2e-9
    assert (res.objective - res.bound) / max(1.0, abs(res.objective)) == pytest.approx(gap)
    assert res.objective <= best + 1e-3 * max(1.0, best)
    w, beta = res.values[len(y):], res.stats["duals"][:len(y)]
    assert np.all((w == 0) | (w >= 1e-6)) and np.all((beta == 0) | (beta >= 1e-6 * counts))


@pytest.mark.parametrize("constant, value, fairness", [
    ("INTERIOR_GAP", 1e-14, False), ("INTERIOR_GAP", 1e-14, True),
    ("INTERIOR_TOL", 0.3, True)])
def test_an_interior_point_solve_short_of_its_gap_is_finished_by_simplex(
        monkeypatch, constant, value, fairness):
    """When the interior-point solve's certified gap exceeds INTERIOR_GAP (forced here by a
    gap of 1e-14, or by a loose interior tolerance of 0.3 with the real gap: 0.25 on this
    instance with fairness rows; HiGHS stops near 6e-6 without them), simplex
    solves the LP: the exact optimum, status optimal, and the master still solves by
    interior point next time.  Kills the mutants of the fall-back (``== "unknown"``, the
    ``not``, the restored flag) and INTERIOR_GAP 1e-3 -> 1.001."""
    module = sys.modules[RUGMaster.__module__]
    monkeypatch.setattr(module, constant, value)
    y, counts, rules = _instance(9, n=40, K=3, m=15, cells=True)
    groups = np.arange(40) % 2
    fair = _fair_pairs(y, groups, "odm", 3, counts) if fairness else None
    fair_sets = ([[(np.flatnonzero(groups == g), float(counts[groups == g].sum()))
                   for g in (0, 1)]] if fairness else None)
    best, A, c, F = _oracle(y, counts, rules, 0.1, 3, fair, 0.1)
    master = _master(y, counts, rules, 0.1, 3, fair_sets, 0.1, interior=True)
    res = master.solve()
    assert res.status == "optimal" and master.interior
    _check_primal_dual(res, y, counts, A, c, F, 0.1 if fairness else 0.0, best)


def _two_groups(seed, n, m, fairness):
    """A 3-class instance with cells, and with ``fairness`` ODM rows between the even and
    the odd rows (cap 0.1): (y, counts, rules, the oracle's pairs, the master's sets,
    eps)."""
    y, counts, rules = _instance(seed, n=n, K=3, m=m, cells=True)
    groups = np.arange(n) % 2
    fair = _fair_pairs(y, groups, "odm", 3, counts) if fairness else None
    fair_sets = ([[(np.flatnonzero(groups == g), float(counts[groups == g].sum()))
                   for g in (0, 1)]] if fairness else None)
    return y, counts, rules, fair, fair_sets, 0.1 if fairness else 0.0


@pytest.mark.parametrize("fairness", [False, True])
def test_the_bound_of_an_inaccurate_solve_is_still_a_bound(monkeypatch, fairness):
    """The bound is valid whatever the solver's accuracy: an interior-point solve stopped
    far from the optimum (tolerance 0.3, accepted at any gap here) still bounds the LP's
    optimum from below, being ``theta sum(beta) - eps sum(mu)`` with beta scaled by
    ``theta = min(1, min_j lam c_j / ahat_j' beta)`` into the dual of (3) (without fairness
    rows the loads exceed lam c_j by about 5e-7 here).  Kills ``load > c`` -> ``==``."""
    module = sys.modules[RUGMaster.__module__]
    monkeypatch.setattr(module, "INTERIOR_TOL", 0.3)
    monkeypatch.setattr(module, "INTERIOR_GAP", 10.0)
    y, counts, rules, fair, fair_sets, eps = _two_groups(9, 40, 15, fairness)
    best, A, c, F = _oracle(y, counts, rules, 0.1, 3, fair, eps)
    res = _master(y, counts, rules, 0.1, 3, fair_sets, 0.1, interior=True).solve()
    assert res.bound <= best + 1e-9
    beta, mu = res.stats["duals"][:40], -res.stats["duals"][40:]
    theta = min([1.0] + [cj / lj for cj, lj in zip(c, A.T @ beta, strict=True) if lj > cj])
    assert res.bound == pytest.approx(theta * beta.sum() - eps * mu.sum(), rel=0, abs=1e-10)


def test_the_interior_gap_of_a_small_objective_is_absolute():
    """The certified gap is ``(objective - bound) / max(1, |objective|)``: absolute below 1
    (here rules covering every row correctly at a tiny cost: objective about 0.05).  Kills
    ``max(1.0, ...)`` -> ``max(0.0, ...)``."""
    y = np.array([0, 1, 2, 0, 1, 2, 0, 1])
    rules = [(np.flatnonzero(y == k), k, 1.0) for k in range(3)]
    rules += [(np.array([0, 1, 3]), 0, 2.0), (np.array([2, 5, 6]), 2, 1.0)]
    counts = np.ones(len(y))
    best, A, c, F = _oracle(y, counts, rules, 0.02, 3)
    assert best < 0.1
    res = _master(y, counts, rules, 0.02, 3, interior=True).solve()
    assert res.stats["interior_gap"] == pytest.approx(res.objective - res.bound, abs=1e-12)
    assert res.bound <= best + 1e-9 and res.objective == pytest.approx(best, abs=1e-3)


def test_reduced_cost_of_a_rule_is_eq5():
    """(5): ``lam c_j - sum_i beta_i ahat_ij`` for a rule covering ``cover`` with a label."""
    y, counts, rules = _instance(7, K=3)
    beta = np.random.default_rng(0).random(len(y))
    master = _master(y, counts, [], 0.4, 3)
    for cover, label, cost in rules:
        want = 0.4 * cost - beta @ _ahat(y, cover, label, 3)
        assert master.reduced_cost(cover, label, cost, beta) == pytest.approx(want)


def _noisy_solve_by(real, shift):
    """``solve_by`` whose answer is off by ``shift`` in every value and dual (a solver's
    rounding, larger than HiGHS's): what the master returns must still lie in the bounds
    of (3) and its dual."""
    from optrees.solvers.base import SolveResult

    def noisy(model, deadline):
        res = real(model, deadline)
        if res.values is None:
            return res
        stats = dict(res.stats)
        stats["duals"] = np.asarray(stats["duals"], dtype=float) + shift
        return SolveResult(res.status, res.objective, res.bound, res.seconds, res.nodes,
                           np.asarray(res.values, dtype=float) + shift, stats)

    return noisy


@pytest.mark.parametrize("fairness", [False, True])
@pytest.mark.parametrize("shift", [-1e-3, 1e-3])
def test_a_solvers_rounding_never_leaves_the_bounds_of_lp3(monkeypatch, fairness, shift):
    """A fake solver answer, every value and dual moved by ``shift``: the rule weights, the
    per-row duals (in [0, counts]) and the fairness duals stay nonnegative, and the bound
    stays below the optimum of (3) built here.  HiGHS's own answers never leave these
    bounds, so only such a fake reaches the clips (docs/testing.md's 5 clip survivors)."""
    module = sys.modules[RUGMaster.__module__]
    monkeypatch.setattr(module, "solve_by", _noisy_solve_by(module.solve_by, shift))
    y, counts, rules, fair, fair_sets, eps = _two_groups(3, 30, 12, fairness)
    best, A, c, F = _oracle(y, counts, rules, 0.2, 3, fair, eps)
    res = _master(y, counts, rules, 0.2, 3, fair_sets, eps).solve()
    n = len(y)
    w, duals = res.values[n:], res.stats["duals"]
    beta, mu = duals[:n], -duals[n:]
    assert np.all(w >= 0) and np.all(beta >= 0) and np.all(mu >= 0)
    assert np.all(beta <= counts + F.T @ mu + 1e-12)
    assert res.bound <= best + 1e-9


@pytest.mark.parametrize("fairness", [False, True])
def test_a_solve_without_duals_is_a_solve_without_a_solution(monkeypatch, fairness):
    """A solver answer with values but no duals (it cannot certify them) is returned as no
    solution, never half read.  Kills ``values is None or "duals" not in stats`` -> ``and``
    in both solves."""
    from optrees.solvers.base import SolveResult

    module = sys.modules[RUGMaster.__module__]
    real = module.solve_by

    def no_duals(model, deadline):
        res = real(model, deadline)
        stats = {k: v for k, v in res.stats.items() if k != "duals"}
        return SolveResult(res.status, res.objective, res.bound, res.seconds, res.nodes,
                           res.values, stats)

    monkeypatch.setattr(module, "solve_by", no_duals)
    y, counts, rules = _instance(4, n=20, K=2, m=8)
    groups = np.arange(20) % 2
    fair_sets = ([[(np.flatnonzero(groups == g), float((groups == g).sum()))
                   for g in (0, 1)]] if fairness else None)
    res = _master(y, counts, rules, 0.2, 2, fair_sets, 0.1).solve()
    assert "duals" not in (res.stats or {}) or res.values is None
