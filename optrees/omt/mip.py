"""The master MIP of OMT over the generated columns ([OMT] §4; our choices, in
``docs/notes/omt-design.md``).

Skipped when the MIP start already costs the final LP value (it is then optimal over the
generated columns; car-evaluation d = 2: 6.1 s of MIP -> none).  Otherwise a heuristic sub-MIP
over the columns the LP uses and those of smallest reduced cost finds an incumbent quickly,
reduced-cost fixing removes the columns that cannot improve on it (exact), and the MIP over the
rest is solved with the incumbent as start and the time left.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..solvers.base import SolveResult
from ..solvers.deadline import Deadline
from ..solvers.highs import HighsModel
from .master import MasterInfo


@dataclass
class MasterMIP:
    """The master MIP's answer and how it was reached (``start``: the best MIP start)."""

    result: SolveResult
    start: np.ndarray | None = None
    closed: bool = False            # the exact closure ran: optimal over every path
    fixed: int = 0                  # columns fixed to 0 by their reduced cost
    sub_objective: float | None = None
    seconds: float = 0.0


def _sub_mip(m: HighsModel, info: MasterInfo, deadline: Deadline, mip_gap: float,
             lp: SolveResult, keep_columns: int, seconds: float, out: MasterMIP) -> None:
    """Phase 1 (heuristic): the MIP over the columns used by the LP and the ``keep_columns``
    of smallest reduced cost, for a good incumbent quickly (at most ``seconds`` and a third
    of the time left); ``out.start`` becomes its solution when that is better."""
    z_cols = np.asarray(info.z, dtype=np.int64)
    rc, start = lp.stats["reduced_costs"], out.start
    order = np.argsort(rc[z_cols], kind="stable")
    keep = np.zeros(len(z_cols), dtype=bool)
    keep[order[:keep_columns]] = True
    keep |= lp.values[z_cols] > 1e-9
    if start is not None:
        keep |= start[z_cols] > 0.5
    off = z_cols[~keep]
    m.set_col_bounds(off, [0.0] * len(off), [0.0] * len(off))
    if start is not None:
        m.set_start(start)
    sres = m.solve(deadline.share(1 / 3).within(seconds), mip_gap=mip_gap)
    if sres.values is not None and (start is None or sres.objective < start @ info.cost):
        out.start = sres.values
        out.sub_objective = float(sres.objective)
    m.set_col_bounds(off, [0.0] * len(off), [math.inf] * len(off))


def solve_master_mip(m: HighsModel, info: MasterInfo, lp: SolveResult, lp_obj: float,
                     start: np.ndarray | None, deadline: Deadline, mip_gap: float,
                     sub_mip_columns: int, sub_mip_seconds: float) -> MasterMIP:
    """The MIP over the master's columns (already integer) after the last LP ``lp`` of value
    ``lp_obj``, from the MIP ``start``."""
    z_cols = np.asarray(info.z, dtype=np.int64)
    rc = lp.stats.get("reduced_costs")
    out = MasterMIP(None, start)
    ub0 = None if start is None else float(start @ info.cost)
    # at_bound: the MIP start reaches the LP value, so it is optimal over these columns
    at_bound = ub0 is not None and ub0 <= lp_obj + 1e-6 * max(1.0, abs(ub0))
    if (not at_bound and rc is not None and len(z_cols) > sub_mip_columns
            and not deadline.expired()):
        _sub_mip(m, info, deadline, mip_gap, lp, sub_mip_columns, sub_mip_seconds, out)
    start = out.start
    if start is not None and rc is not None and not at_bound:
        # reduced-cost fixing: any solution using column j costs >= nu_LP + rc_j, so
        # columns with rc_j > UB - nu_LP cannot improve on the incumbent UB (exact)
        ub = float(start @ info.cost)
        fix = z_cols[rc[z_cols] > ub - lp_obj + 1e-6 * max(1.0, abs(ub))]
        if len(fix):
            m.set_col_bounds(fix, [0.0] * len(fix), [0.0] * len(fix))
        out.fixed = len(fix)
    if at_bound:
        out.result = SolveResult("optimal", ub0, lp_obj, 0.0, values=start)
    elif start is not None and deadline.expired():  # no solve after the deadline
        out.result = SolveResult("time_limit", float(start @ info.cost), None, 0.0,
                                 values=start)
    else:
        if start is not None:
            m.set_start(start)
        out.result = m.solve(deadline, mip_gap=mip_gap)
    return out
