"""SCIP backend (PySCIPOpt): MIP building, lazy constraints, cuts, heuristics, warm starts.

The only module that touches pyscipopt for branch-and-cut.  Read ../shared/notes/solvers.md:
a lazy-constraint handler must lock its variables and symmetry handling must be off, otherwise
SCIP can return a wrong "optimal" value.

(About 400 lines: the SCIP backend with its lazy-constraint, separator and heuristic
plugins, which share the model's variable map.)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

import numpy as np
from pyscipopt import (
    SCIP_EVENTTYPE,
    SCIP_RESULT,
    SCIP_STAGE,
    Conshdlr,
    Eventhdlr,
    Heur,
    Model,
    Sepa,
    quicksum,
)
from pyscipopt import SCIP_HEURTIMING as HT

from .._logging import logger, progress
from .base import LazyConstraints, Row, SolveResult, SolverOptions
from .deadline import Deadline

_STATUS = {
    "optimal": "optimal",
    "timelimit": "time_limit",
    "gaplimit": "gap_limit",
    "infeasible": "infeasible",
    "unbounded": "unbounded",
    "inforunbd": "infeasible",
    "userinterrupt": "interrupted",
    "nodelimit": "node_limit",
}


# Root cut rounds for the pure tree MIPs (bench/root_rounds.py, 2026-11-30: 30 fits side by
# side, the same optimum in all, median time ratio 0.82; default -> 5 rounds, seconds):
# BinOCT depth 1 on 80 blob rows 2.10 -> 0.11, monk1 3.97 -> 0.05; OCT depth 1
# balance-scale 42.1 -> 17.6, depth 2 monk1 not proved in 60 s -> 36.7 (iris: the default
# took 36 s in one run and 60 s, unproved, in another); FlowOCT (pure MIP) depth 2 iris
# 11.7 -> 4.3.  Not for Benders models, whose cuts are the formulation.
ROOT_SEPARATION_ROUNDS = 5

LAZY_SETUP_SECONDS_PER_VAR = 1.5e-5
"""Seconds per variable SCIP spends, in a model with lazy constraints, before it first reads
its time limit: the lock callback's loop over every transformed variable and the problem's
transformation (BendersOCT, 150,000 rows: solve(0.01 s) took 2.24 s with 150,745 variables,
0.51 s with 50,745; 0.72 s of 1.42 s in one profile was the lock loop; short solves of the
150,745-variable model took 0.71-1.12 s in other runs).  Set from the slowest run."""


class ScipModel:
    """A MIP whose variables are addressed by integer ids (blocks created by :meth:`add_vars`)."""

    def __init__(self, options: SolverOptions | None = None, maximize: bool = True) -> None:
        self.options = options or SolverOptions()
        self.maximize = maximize
        self.m = Model()
        if int(self.options.verbose) < 2:
            self.m.hideOutput()
        self.m.setParam("randomization/randomseedshift", int(self.options.seed))
        self.m.setParam("limits/gap", float(self.options.mip_gap))
        self.m.setParam("parallel/maxnthreads", int(self.options.threads))
        self._blocks: list = []  # MatrixVariable blocks, flattened
        self._vars: list = []  # every variable in id order
        self._obj: dict[int, float] = {}
        self._offset = 0.0
        self._starts: list[np.ndarray] = []
        self._plugins: list = []  # keep Python plugin objects alive
        self.n_rows = 0
        self._deadline: Deadline | None = None  # of the solve in progress (for the plugins)

    # ----------------------------------------------------------------- building
    @property
    def n_vars(self) -> int:
        return len(self._vars)

    def add_vars(
        self,
        shape: int | tuple[int, ...],
        vtype: str = "C",
        lb: float = 0.0,
        ub: float | None = 1.0,
        obj: float | np.ndarray = 0.0,
        name: str = "x",
    ) -> np.ndarray:
        """Add a block of variables; return their ids with the given shape."""
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        size = int(np.prod(shape))
        start = len(self._vars)
        ids = np.arange(start, start + size).reshape(shape)
        if size == 0:
            return ids
        block = self.m.addMatrixVar((size,), vtype=vtype, lb=lb, ub=ub, name=name).ravel()
        self._blocks.append(block)
        self._vars.extend(block.tolist())
        obj_arr = np.broadcast_to(np.asarray(obj, dtype=float), shape).ravel()
        for j in np.flatnonzero(obj_arr):
            self._obj[start + int(j)] = float(obj_arr[j])
        return ids

    def add_objective_offset(self, value: float) -> None:
        """Add a constant to the objective (reported values and bounds include it)."""
        self._offset += float(value)

    def _expr(self, ids: Sequence[int], coefs: Sequence[float]):
        v = self._vars
        return quicksum(float(c) * v[int(i)] for i, c in zip(ids, coefs, strict=True))

    def add_row(
        self,
        ids: Sequence[int],
        coefs: Sequence[float],
        lhs: float = -math.inf,
        rhs: float = math.inf,
    ) -> None:
        """Add ``lhs <= sum(coefs * x[ids]) <= rhs`` (use ±inf for a missing side)."""
        expr = self._expr(ids, coefs)
        # Python floats: a numpy scalar on the left of ``<=`` takes the comparison over and
        # asks the constraint for a truth value (PySCIPOpt 6.1 with numpy 1.x raises)
        lhs, rhs = float(lhs), float(rhs)
        if lhs == rhs:
            self.m.addCons(expr == rhs)
        elif math.isinf(lhs):
            self.m.addCons(expr <= rhs)
        elif math.isinf(rhs):
            self.m.addCons(expr >= lhs)
        else:
            self.m.addCons(lhs <= (expr <= rhs))
        self.n_rows += 1

    def add_rows(self, rows: Sequence[Row]) -> None:
        for r in rows:
            self.add_row(r.ids, r.coefs, r.lhs, r.rhs)

    def add_rows_in_time(self, rows: Sequence[Row]) -> int:
        """Add ``rows`` from a plugin during a solve, stopping once the solve's deadline has
        passed (every 64 rows, never before the first): the rows left out are found again
        if SCIP goes on.  Returns how many were added.  Adding 30,000 Benders rows in one
        callback took 4.8 s (default-credit, depth 5): a 10 s fit took 14.6 s."""
        for k, r in enumerate(rows):
            if self.out_of_time(k):
                return k
            self.add_row(r.ids, r.coefs, r.lhs, r.rhs)
        return len(rows)

    def out_of_time(self, added: int) -> bool:
        """A plugin that has ``added`` rows of a batch stops adding (checked every 64)."""
        return (added > 0 and added % 64 == 0 and self._deadline is not None
                and self._deadline.expired())

    def set_branch_priority(self, ids: np.ndarray, priority: int) -> None:
        """Branch on these variables before any fractional variable of lower priority (0)."""
        for i in np.asarray(ids).ravel():
            self.m.chgVarBranchPriority(self._vars[int(i)], int(priority))

    def skip_probing(self) -> None:
        """No probing in presolve: for models whose root bound is already tight, where it
        only costs time (BendOCT depth 3 with split bounds: 0.034 -> 0.025 s)."""
        self.m.setParam("propagating/probing/maxprerounds", 0)

    def limit_root_separation(self, rounds: int = ROOT_SEPARATION_ROUNDS) -> None:
        """At most ``rounds`` cutting-plane rounds at the root (SCIP's default: no limit).
        For the big-M tree MIPs (FlowOCT, OCT, BinOCT), where the default spends 100+
        rounds closing the gap slowly: see :data:`ROOT_SEPARATION_ROUNDS`."""
        self.m.setParam("separating/maxroundsroot", int(rounds))

    def min_solve_seconds(self) -> float:
        """Seconds a :meth:`solve` takes however short its limit (SCIP reads its limit only
        after this set-up): :data:`LAZY_SETUP_SECONDS_PER_VAR` x variables with lazy
        constraints, else 0 (the caller's share of the build time covers it)."""
        lazy = any(isinstance(p, _LazyHandler) for p in self._plugins)
        return LAZY_SETUP_SECONDS_PER_VAR * self.n_vars if lazy else 0.0

    def add_start(self, values: np.ndarray) -> None:
        """Offer a start solution (values by id; NaN = unknown, SCIP completes it)."""
        self._starts.append(np.asarray(values, dtype=float))

    def free(self) -> None:
        """Release the SCIP problem now, inside the caller's timed region.

        Otherwise it is released whenever the garbage collector reaches the cycle through the
        Python plugins, possibly during the next fit (freeing a large model takes about 0.1 x
        its build time).  The model cannot be used afterwards."""
        self._vars, self._blocks, self._starts, self._obj = [], [], [], {}
        self._plugins.clear()
        # Model.free (PySCIPOpt >= 6.2) releases all of SCIP; freeProb, the problem data
        free = getattr(self.m, "free", None) or self.m.freeProb
        free()

    # ----------------------------------------------------------------- plugins
    def set_lazy(self, lazy: LazyConstraints, fractional: bool = False) -> None:
        """Enforce ``lazy`` at integer solutions; with ``fractional`` also separate at LP points."""
        # Pitfall 2 of the notes: symmetry handling cannot see lazy rows.
        self.m.setParam("misc/usesymmetry", 0)
        handler = _LazyHandler(self, lazy)
        self.m.includeConshdlr(
            handler,
            "optrees_lazy",
            "lazy constraints of an optrees formulation",
            sepapriority=0,
            enfopriority=-1,
            chckpriority=-1,
            sepafreq=1 if fractional else -1,
            needscons=False,
        )
        self._plugins.append(handler)

    def add_separator(
        self, separate: Callable[[np.ndarray], list[Row]], name: str, freq: int = 1,
        permanent: bool = False,
    ) -> None:
        """Call ``separate(x_lp)`` at fractional LP solutions; returned rows become cuts
        (removable LP rows, or with ``permanent`` constraints of the model)."""
        sepa = _Separator(self, separate, permanent)
        self.m.includeSepa(sepa, name, "optrees cut separator", priority=100, freq=freq,
                           maxbounddist=1.0, usessubscip=False, delay=False)
        # SCIP calls a separator only at depths freq * expbackoff^k (default base 4): with it,
        # path-bound cuts reached few B&B nodes (wine QT-5, depth 3: no proof in 120 s; 1.5 s
        # with base 1)
        self.m.setParam(f"separating/{name}/expbackoff", 1)
        self._plugins.append(sepa)

    def add_heuristic(
        self, heuristic: Callable[[np.ndarray], list[np.ndarray]], name: str, freq: int = 1
    ) -> None:
        """Call ``heuristic(x_lp)`` after node LPs; each returned full value vector is tried."""
        heur = _Heuristic(self, heuristic)
        self.m.includeHeur(heur, name, "optrees primal heuristic", "Y", priority=10000,
                           freq=freq, freqofs=0, maxdepth=-1, timingmask=HT.AFTERLPNODE)
        self._plugins.append(heur)

    def incumbent_value(self) -> float:
        """Objective of the best solution so far (-inf / +inf when there is none)."""
        if self.m.getNSols() == 0:
            return -math.inf if self.maximize else math.inf
        return float(self.m.getSolObjVal(self.m.getBestSol()))

    # ----------------------------------------------------------------- values
    def values(self, sol=None) -> np.ndarray:
        """Values of all variables in ``sol`` (None = current LP / pseudo solution)."""
        if not self._blocks:
            return np.zeros(0)
        return np.concatenate([np.asarray(self.m.getSolVal(sol, b), dtype=float).ravel()
                               for b in self._blocks])

    def _to_solution(self, values: np.ndarray, heur=None):
        """A SCIP solution from values by id (NaN = unknown makes it a partial solution)."""
        partial = np.isnan(values).any()
        if partial:
            sol = self.m.createPartialSol(heur)
        elif self.m.getStage() >= SCIP_STAGE.PRESOLVING:
            # during the solve a solution in the transformed space cannot take values of
            # variables that presolving (multi-)aggregated: give SCIP an original one
            sol = self.m.createOrigSol(heur)
        else:
            sol = self.m.createSol(heur)
        # a full solution starts at 0; a partial one must be told every known value
        known = ~np.isnan(values) if partial else values != 0.0
        for j in np.flatnonzero(known):
            self.m.setSolVal(sol, self._vars[j], float(values[j]))
        return sol

    def try_solution(self, values: np.ndarray, heur=None) -> bool:
        sol = self._to_solution(np.asarray(values, dtype=float), heur)
        return bool(self.m.trySol(sol, printreason=False, completely=False, checkbounds=True,
                                  checkintegrality=True, checklprows=True, free=True))

    # ----------------------------------------------------------------- solve
    def solve(self, deadline: Deadline | None = None,
              time_limit: float | None = None) -> SolveResult:
        """Optimize until ``deadline``; ``time_limit`` (seconds) is a further limit.

        SCIP catches Ctrl-C itself while it runs; a solve it stopped that way stops
        ``deadline`` too, so the stages after it see the request."""
        sense = "maximize" if self.maximize else "minimize"
        self.m.setObjective(
            quicksum(c * self._vars[j] for j, c in self._obj.items()) + self._offset, sense)
        accepted = [bool(self.m.addSol(self._to_solution(start), free=True))
                    for start in self._starts]
        if logger.isEnabledFor(20):  # logging.INFO
            progress_hdlr = _Progress(self.options.progress_every)
            self._plugins.append(progress_hdlr)
            self.m.includeEventhdlr(progress_hdlr, "optrees_progress", "progress lines")
        # the limit is read last: a Ctrl-C while the objective and the starts were passed on
        # (our handler, not yet SCIP's, caught it) leaves no time (it used to let SCIP run to
        # the time limit: test_ctrl_c_returns_the_incumbent[BinOCTClassifier], 59.5 s)
        limit = time_limit
        if deadline is not None and deadline.seconds() is not None:
            limit = deadline.remaining() if limit is None else min(limit, deadline.remaining())
        if limit is not None:
            self.m.setParam("limits/time", max(float(limit), 0.01))
        t0 = time.perf_counter()
        self._deadline = deadline
        # without the GIL, so that other Python threads run meanwhile (our plugins take it
        # back in their callbacks); with optimize() a thread that was to send a signal or
        # draw a progress bar waited for the whole solve
        try:
            getattr(self.m, "optimizeNogil", self.m.optimize)()
        finally:
            self._deadline = None
        seconds = time.perf_counter() - t0
        raw = self.m.getStatus()
        status = _STATUS.get(raw, raw)
        if status == "interrupted" and deadline is not None:
            deadline.stop()
        best = self.m.getBestSol() if self.m.getNSols() > 0 else None
        values = self.values(best) if best is not None else None
        objective = self.m.getSolObjVal(best) if best is not None else None
        try:
            bound = self.m.getDualbound()
        except Exception:  # noqa: BLE001 - no bound when solving stopped before the LP
            bound = None
        if bound is not None and (not math.isfinite(bound) or self.m.isInfinity(abs(bound))):
            bound = None                 # SCIP's infinity (1e20): no bound yet
        if values is None and status in ("time_limit", "gap_limit", "interrupted"):
            status = "no_solution"
        return SolveResult(status, objective, bound, seconds, int(self.m.getNTotalNodes()), values,
                           stats={"starts_accepted": accepted})


class _LazyHandler(Conshdlr):
    """Constraint handler adding rows of a :class:`LazyConstraints` on demand."""

    def __init__(self, owner: ScipModel, lazy: LazyConstraints) -> None:
        self.owner = owner
        self.lazy = lazy
        self.n_added = 0
        self._transformed: list | None = None  # transformed variables (same in every lock call)

    def _add(self, rows: list[Row]) -> None:
        # each row is violated by the point separated: any nonempty part of them cuts it off
        self.n_added += self.owner.add_rows_in_time(rows)

    def conscheck(self, constraints, solution, checkintegrality, checklprows, printreason,
                  completely, **kwargs):
        x = self.owner.values(solution)
        return {"result": SCIP_RESULT.INFEASIBLE if self.lazy.violated(x) else SCIP_RESULT.FEASIBLE}

    def _enforce(self):
        x = self.owner.values(None)
        rows = self.lazy.separate(x, integral=True)
        if rows:
            self._add(rows)
            return {"result": SCIP_RESULT.CONSADDED}
        # Nothing new: any violated row already exists and the linear handler enforces it.
        return {"result": SCIP_RESULT.FEASIBLE}

    def consenfolp(self, constraints, nusefulconss, solinfeasible):
        return self._enforce()

    def consenfops(self, constraints, nusefulconss, solinfeasible, objinfeasible):
        return self._enforce()

    def conssepalp(self, constraints, nusefulconss):
        x = self.owner.values(None)
        rows = self.lazy.separate(x, integral=False)
        if not rows:
            return {"result": SCIP_RESULT.DIDNOTFIND}
        self._add(rows)
        return {"result": SCIP_RESULT.CONSADDED}

    def conslock(self, constraint, locktype, nlockspos, nlocksneg):
        # Pitfall 1 of the notes: lock every variable in both directions, otherwise dual
        # reductions (which cannot see the lazy rows) may fix variables wrongly.
        m = self.model
        n = nlockspos + nlocksneg
        if self._transformed is None or len(self._transformed) != len(self.owner._vars):
            self._transformed = [m.getTransformedVar(v) for v in self.owner._vars]
        for v in self._transformed:
            m.addVarLocksType(v, locktype, n, n)


class _Separator(Sepa):
    def __init__(self, owner: ScipModel, separate: Callable[[np.ndarray], list[Row]],
                 permanent: bool) -> None:
        self.owner = owner
        self.separate = separate
        self.permanent = permanent
        self.n_cuts = 0

    def sepaexeclp(self):
        m = self.model
        rows = self.separate(self.owner.values(None))
        if not rows:
            return {"result": SCIP_RESULT.DIDNOTFIND}
        if self.permanent:
            self.n_cuts += self.owner.add_rows_in_time(rows)
            return {"result": SCIP_RESULT.CONSADDED}
        v = self.owner._vars
        for k, r in enumerate(rows):
            if self.owner.out_of_time(k):        # as add_rows_in_time: the rest next round
                rows = rows[:k]
                break
            lhs = None if math.isinf(r.lhs) else r.lhs
            rhs = None if math.isinf(r.rhs) else r.rhs
            row = m.createEmptyRowSepa(self, "cut", lhs=lhs, rhs=rhs, local=False,
                                       modifiable=False, removable=True)
            m.cacheRowExtensions(row)
            for i, c in zip(r.ids, r.coefs, strict=True):
                m.addVarToRow(row, m.getTransformedVar(v[int(i)]), float(c))
            m.flushRowExtensions(row)
            m.addCut(row, forcecut=False)
            m.releaseRow(row)
        self.n_cuts += len(rows)
        return {"result": SCIP_RESULT.SEPARATED}


class _Progress(Eventhdlr):
    """Logs a progress line on each new incumbent and at most every ``every`` seconds."""

    _EVENTS = SCIP_EVENTTYPE.BESTSOLFOUND | SCIP_EVENTTYPE.NODESOLVED

    def __init__(self, every: float) -> None:
        self.every = every
        self.last = -math.inf

    def eventinit(self):
        self.model.catchEvent(self._EVENTS, self)

    def eventexit(self):
        self.model.dropEvent(self._EVENTS, self)

    def eventexec(self, event):
        m = self.model
        now = m.getSolvingTime()
        new_best = event.getType() == SCIP_EVENTTYPE.BESTSOLFOUND
        if not new_best and now - self.last < self.every:
            return
        self.last = now
        inc = m.getSolObjVal(m.getBestSol()) if m.getNSols() > 0 else None
        bound = m.getDualbound()
        gap = m.getGap() if inc is not None else None
        progress("B&B*" if new_best else "B&B", now, inc if inc is None or abs(inc) < 1e19
                 else None, bound if abs(bound) < 1e19 else None, gap, nodes=m.getNNodes())


class _Heuristic(Heur):
    def __init__(self, owner: ScipModel, heuristic: Callable[[np.ndarray], list[np.ndarray]]):
        self.owner = owner
        self.heuristic = heuristic

    def heurexec(self, heurtiming, nodeinfeasible):
        found = False
        for values in self.heuristic(self.owner.values(None)):
            found |= self.owner.try_solution(values, heur=self)
        return {"result": SCIP_RESULT.FOUNDSOL if found else SCIP_RESULT.DIDNOTFIND}


__all__ = ["ScipModel"]
