"""The SCIP backend: cuts from a Python separator reach the whole branch-and-bound tree."""

import numpy as np

from optrees.solvers.base import Row
from optrees.solvers.scip import ScipModel


def test_separator_runs_at_every_depth():
    """SCIP's default exponential back-off calls a separator only at depths 1, 4, 16, ...;
    ScipModel turns it off, so a separator sees nodes at depths 2 and 3 too."""
    rng = np.random.default_rng(0)
    m = ScipModel(maximize=True)
    n = 30
    x = m.add_vars(n, "B", obj=rng.uniform(1, 2, n), name="x")
    weights = rng.integers(3, 9, n).astype(float)
    m.add_row(x, weights, rhs=float(weights.sum() // 3))  # a knapsack: many B&B nodes
    depths: list[int] = []

    def separate(values: np.ndarray) -> list[Row]:
        depths.append(m.m.getDepth())
        return []

    m.add_separator(separate, "probe")
    for name in ("presolving/maxrounds", "separating/maxroundsroot"):
        m.m.setParam(name, 0)
    m.m.setParam("separating/maxlocalbounddist", 1.0)
    result = m.solve(time_limit=30)
    assert result.status == "optimal"
    assert m.m.getParam("separating/probe/expbackoff") == 1
    assert {2, 3} <= set(depths)


def test_stop_while_the_solve_is_set_up_leaves_scip_no_time(monkeypatch):
    """Ctrl-C caught by optrees' handler while ``solve`` passes the starts to SCIP (before
    SCIP's own handler is installed) stops the deadline; SCIP must then not run to the time
    limit (it did: the Ctrl-C test of BinOCT once took 59.5 s of 60)."""
    import time

    from optrees.solvers.deadline import Deadline

    rng = np.random.default_rng(0)
    m = ScipModel(maximize=True)
    n, k = 120, 40  # a market-split-like MIP: hard for branch-and-bound
    A = rng.integers(0, 100, (k, n)).astype(float)
    x = m.add_vars(n, "B", obj=rng.random(n), name="x")
    for row in A:
        m.add_row(x, row, lhs=float(row.sum() // 2), rhs=float(row.sum() // 2 + 3))
    m.add_start(np.zeros(n))
    deadline = Deadline(60)
    to_solution = m._to_solution

    def stop_then_convert(values):  # the Ctrl-C arrives here
        deadline.stop()
        return to_solution(values)

    monkeypatch.setattr(m, "_to_solution", stop_then_convert)
    t0 = time.perf_counter()
    result = m.solve(deadline)
    assert time.perf_counter() - t0 < 5.0
    assert result.status != "optimal"


def test_no_bound_before_the_root_lp_is_none_not_scips_infinity():
    """A solve stopped before SCIP has a dual bound reports none (``bound`` None, shown as an
    infinite bound and gap), not SCIP's infinity 1e20 (a FlowOCT fit on nursery stopped at
    60 s once reported ``bound_ = 1e20``)."""
    from optrees.solvers.deadline import Deadline

    rng = np.random.default_rng(0)
    m = ScipModel(maximize=True)
    n, k = 120, 40
    A = rng.integers(0, 100, (k, n)).astype(float)
    x = m.add_vars(n, "B", obj=rng.random(n), name="x")
    for row in A:
        m.add_row(x, row, lhs=float(row.sum() // 2), rhs=float(row.sum() // 2 + 3))
    deadline = Deadline(60)
    deadline.stop()                    # stopped before it starts: no LP is solved
    result = m.solve(deadline)
    assert result.bound is None or abs(result.bound) < 1e19


def test_the_big_m_tree_mips_cap_root_cut_rounds_and_benders_does_not(monkeypatch):
    """FlowOCT (without the search), OCT and BinOCT solve with at most
    ROOT_SEPARATION_ROUNDS root cut rounds (SCIP's unlimited default spent 100+ rounds on
    BinOCT depth 1: bench/root_rounds.py); BendersOCT, whose cuts are its formulation, keeps
    the default."""
    from optrees import BendersOCTClassifier, BinOCTClassifier, FlowOCTClassifier, OCTClassifier
    from optrees.solvers import scip

    seen: list[int] = []
    solve = scip.ScipModel.solve

    def spy(self, *args, **kwargs):
        seen.append(self.m.getParam("separating/maxroundsroot"))
        return solve(self, *args, **kwargs)

    monkeypatch.setattr(scip.ScipModel, "solve", spy)
    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 2, (30, 3)), rng.integers(0, 2, 30)
    for est, rounds in ((FlowOCTClassifier(depth=1, subtree_search=False), 5),
                        (OCTClassifier(depth=1), 5), (BinOCTClassifier(depth=1), 5),
                        (BendersOCTClassifier(depth=1, subtree_search=False), -1)):
        seen.clear()
        est.set_params(time_limit=30).fit(X, y)
        assert seen == [rounds], type(est).__name__
    assert scip.ROOT_SEPARATION_ROUNDS == 5
