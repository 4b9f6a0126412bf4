"""HiGHS backend: LP duals after warm column additions, MIP with start and time limit."""

import math
import time

import numpy as np
import pytest

from optrees.solvers.base import SolverOptions
from optrees.solvers.highs import HighsModel


def test_lp_duals_match_reduced_costs_after_adding_columns():
    # min sum c_j x_j  s.t.  covering rows sum_j a_ij x_j >= 1, x >= 0
    rng = np.random.default_rng(0)
    A = (rng.random((6, 12)) < 0.4).astype(float)
    A[:, 0] = 1.0  # one column covers everything, so the LP is feasible from the start
    cost = rng.uniform(1, 3, 12)
    m = HighsModel()
    rows = m.add_rows(np.ones(6), np.full(6, np.inf))

    def entries(js):
        return [rows[A[:, j] > 0] for j in js], [A[A[:, j] > 0, j] for j in js]

    m.add_columns(cost[:1], [0.0], [np.inf], [rows], [A[:, 0]])
    m.solve()
    # add the rest in two batches, re-solving warm
    m.add_columns(cost[1:6], [0.0] * 5, [np.inf] * 5, *entries(range(1, 6)))
    m.solve()
    m.add_columns(cost[6:], [0.0] * 6, [np.inf] * 6, *entries(range(6, 12)))
    res = m.solve()
    assert res.status == "optimal"
    duals = res.stats["duals"]
    reduced = cost - A.T @ duals
    assert np.allclose(reduced, res.stats["reduced_costs"], atol=1e-7)
    assert reduced.min() >= -1e-7  # optimal: nothing prices out
    full = HighsModel()
    full.add_rows(np.ones(6), np.full(6, np.inf))  # same row indices as in m
    full.add_columns(cost, [0.0] * 12, [np.inf] * 12, *entries(range(12)))
    assert full.solve().objective == pytest.approx(res.objective)


def test_mip_with_start_and_bound():
    # knapsack: max value s.t. weight <= 10
    value = np.array([6.0, 5, 4, 3, 2])
    weight = np.array([5.0, 4, 3, 2, 1])
    m = HighsModel(SolverOptions(), maximize=True)
    row = m.add_rows([-np.inf], [10.0])
    cols = m.add_columns(value, [0] * 5, [1] * 5, [row] * 5, [[w] for w in weight])
    m.set_integer(cols)
    m.set_start(np.array([1, 0, 0, 0, 0.0]))
    res = m.solve(time_limit=10)
    assert res.status == "optimal"
    assert res.objective == pytest.approx(14.0)  # items 0, 2, 3 (weight 10)
    assert res.bound == pytest.approx(14.0)


def test_stop_request_interrupts_a_running_mip():
    """Ctrl-C handlers stop the fit's Deadline; HiGHS polls its stop flag through its
    interrupt callbacks."""
    import threading

    from optrees.solvers.deadline import Deadline

    rng = np.random.default_rng(0)
    n, m = 120, 40  # a market-split-like MIP: hard for branch-and-bound
    A = rng.integers(0, 100, (m, n))
    rhs = A.sum(axis=1) // 2
    model = HighsModel(SolverOptions(seed=0))
    rows = model.add_rows(rhs.astype(float), rhs.astype(float) + 3)
    cols = model.add_columns(list(rng.random(n)), [0.0] * n, [1.0] * n,
                             [list(rows)] * n, [list(A[:, j].astype(float)) for j in range(n)])
    model.set_integer(cols)
    deadline = Deadline(60)
    timer = threading.Timer(1.0, deadline.stop)
    timer.start()
    try:
        t0 = time.perf_counter()
        res = model.solve(deadline)
        elapsed = time.perf_counter() - t0
    finally:
        timer.cancel()
    assert res.status == "interrupted"
    assert elapsed < 15


def test_time_limit_counts_from_this_solve():
    """HiGHS measures an LP's time_limit against all earlier solves of the object, so a re-solve
    in column generation must be given the run time so far plus its own limit (else it stops
    at once after enough re-solves)."""
    rng = np.random.default_rng(0)
    m = HighsModel()
    m.add_rows([-math.inf] * 150, [5.0] * 150)
    for _ in range(4):  # column generation: add columns, re-solve
        rows = [np.sort(rng.choice(150, 40, replace=False)) for _ in range(150)]
        m.add_columns(-rng.random(150), [0.0] * 150, [1.0] * 150, rows,
                      [rng.random(40) for _ in range(150)])
        assert m.solve().status == "optimal"
    spent = m.h.getRunTime()
    assert spent > 0
    assert m.solve(time_limit=7.0).status == "optimal"
    given = m.option("time_limit")
    assert spent + 7.0 <= given <= spent + 7.0 + 0.5, (spent, given)


def test_mip_time_limit_does_not_include_earlier_lp_solves():
    """A MIP run counts its time limit from its own start (unlike an LP re-solve): after LP
    solves, a MIP given 0.5 s gets exactly 0.5 s from HiGHS, not 0.5 s plus the LP time."""
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    n, rows = 400, 60
    m = HighsModel()
    m.add_sparse_columns(rng.integers(1, 100, n).astype(float), upper=np.ones(n))
    m.add_sparse_rows(sp.csr_matrix(rng.integers(0, 2, (rows, n)).astype(float)),
                      np.full(rows, 3.0), np.full(rows, 5.0))
    for _ in range(3):  # LP solves that add to the object's run time
        m.h.clearSolver()
        assert m.solve().status == "optimal"
    assert m.h.getRunTime() > 0
    m.set_integer(np.arange(n))
    res = m.solve(time_limit=0.5)
    assert res.status in ("time_limit", "no_solution")  # this MIP needs several seconds
    assert m.option("time_limit") == 0.5
