"""HiGHS backend (highspy): LPs grown column by column with duals, and MIPs with a time limit.

Column generation (RUG, OMT, CGH) solves a restricted master LP, reads its duals, adds the
columns that price out and re-solves warm.  After adding columns primal simplex re-solves far
faster than the default dual simplex (docs/architecture.md, solver facts), so :meth:`solve`
switches to it after the first solve.  HiGHS has no working lazy-constraint callback: use SCIP
for that.

Every model is configured here completely (log, seed, threads, time limit), whatever another
HiGHS user in the same process did: the process-wide state HiGHS keeps (its banner, printed
once, and its global thread scheduler) is handled by :func:`new_highs` and :meth:`HighsModel.solve`.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

import highspy
import numpy as np

from .base import SolveResult, SolverOptions
from .deadline import Deadline

INF = highspy.kHighsInf
"""HiGHS's infinity, for bounds given as arrays."""
BASIS_LOWER, BASIS_BASIC, BASIS_UPPER = (int(highspy.HighsBasisStatus.kLower),
                                         int(highspy.HighsBasisStatus.kBasic),
                                         int(highspy.HighsBasisStatus.kUpper))
"""Basis status codes of :meth:`HighsModel.set_basis` / :meth:`HighsModel.get_basis`."""
_STATUS = {
    "Optimal": "optimal",
    "Time limit reached": "time_limit",
    "Infeasible": "infeasible",
    "Unbounded": "unbounded",
    "Primal infeasible or unbounded": "infeasible",
    "Iteration limit reached": "iteration_limit",
    "Interrupted by user": "interrupted",
    "Unknown": "unknown",
}


def _bound(v: float) -> float:
    return INF if v == math.inf else (-INF if v == -math.inf else float(v))


_first_highs_made = False
_first_highs_lock = threading.Lock()


def new_highs() -> highspy.Highs:
    """A new ``highspy.Highs`` object that printed nothing.

    highspy >= 1.16 prints a banner to stdout (file descriptor 1, from C) when the first Highs
    object of a process is made, before any option can be set; so the first one is made with
    descriptor 1 pointed at the null device.  Later ones print nothing.
    """
    global _first_highs_made
    with _first_highs_lock:
        if _first_highs_made:
            return highspy.Highs()
        with _stdout_fd_silenced():
            h = highspy.Highs()
        _first_highs_made = True
        return h


@contextlib.contextmanager
def _stdout_fd_silenced() -> Iterator[None]:
    """Point file descriptor 1 at the null device (C-level output included), then restore it.

    C's stdout buffer is flushed before and after, so nothing written earlier is lost and
    nothing written inside escapes later.  Where descriptors cannot be swapped (no fd 1), the
    block runs unchanged.
    """
    try:
        fflush = ctypes.CDLL(None).fflush
    except (OSError, AttributeError, TypeError):  # no C library handle (e.g. Windows)
        fflush = None
    try:
        sys.stdout.flush()
    except (AttributeError, ValueError, OSError):
        pass
    try:
        saved = os.dup(1)
    except OSError:
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        if fflush is not None:
            fflush(None)
        os.dup2(devnull, 1)
        yield
    finally:
        if fflush is not None:
            fflush(None)
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


LP_WATCH_NONZEROS = 20_000
"""LPs with fewer constraint nonzeros run without interrupt callbacks: they solve in
milliseconds, and HiGHS calls the interior-point callback at every inner iteration (about 480
times per RUG master LP on glass, a third of the fit time in Python overhead).  Their time
limit is HiGHS's own; a stop request (Ctrl-C) takes effect when the solve returns."""


def _reset_thread_scheduler() -> None:
    """Drop HiGHS's process-wide thread scheduler so the next run starts one with its own
    ``threads`` option (HiGHS refuses to run when another user started it with another
    count: status "Not Set")."""
    for name in ("resetGlobalScheduler", "resetThreadScheduler"):
        reset = getattr(highspy.Highs, name, None)
        if reset is not None:
            reset(True)
            return


class HighsModel:
    """A linear (or mixed-integer) program with rows fixed up front and columns added later."""

    def __init__(self, options: SolverOptions | None = None, maximize: bool = False) -> None:
        self.options = options or SolverOptions()
        self.h = new_highs()
        self.h.setOptionValue("output_flag", int(self.options.verbose) >= 2)  # the solver log
        self.h.setOptionValue("random_seed", int(self.options.seed))
        self.h.setOptionValue("threads", int(self.options.threads))
        self.maximize = maximize
        if maximize:
            self.h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        self._solved_once = False
        # Ctrl-C: HiGHS does not watch SIGINT; its interrupt callbacks poll the stop flag.  They
        # also enforce the time limit: HiGHS's own check can be late (measured: a MIP given
        # 7.0 s ran 10.3 s, OMT car-evaluation d = 5)
        self._deadline = math.inf
        self._stop: Deadline | None = None
        # (MIPs always; LPs only from LP_WATCH_NONZEROS nonzeros on, see _watch_lp)
        self.h.cbMipInterrupt.subscribe(self._interrupt)
        self._lp_watched = False
        # simplex strategy for re-solves (4 = primal, see module docstring; 1 = dual)
        self.resolve_strategy = 4

    def skip_probing(self) -> None:
        """No probing in MIP presolve (HiGHS presolve rule 2^15): on large set-partitioning
        masters it is slow and overruns the time limit (OMT car-evaluation d = 5: a MIP
        given 7.0 s ran 10.3 s, HiGHS: "Time limit reached in probing")."""
        self._presolve_rule_off(15)

    def skip_aggregator(self) -> None:
        """No aggregator in MIP presolve (HiGHS presolve rule 2^12): it does not look at the
        time limit either (CGH's master MIP on 1,500 rows, 6 classes, depth 3: 0.9 s of
        presolve under a 0.2 s limit; 0.2 s without it, the same optimum in 0.28 s against
        1.07 s)."""
        self._presolve_rule_off(12)

    def _presolve_rule_off(self, bit: int) -> None:
        """Switch off HiGHS presolve rule ``bit``, keeping the rules already off."""
        off = int(self.option("presolve_rule_off"))
        self.h.setOptionValue("presolve_rule_off", off | (1 << bit))

    def skip_presolve(self) -> None:
        """Solve without presolve: HiGHS's LP presolve does not look at the time limit (RUX
        on default-credit, 300 trees, 3.5 million nonzeros: a solve given 1.6 s ran 4.1 s,
        most of it presolving), so a solve that must stop on time goes without it."""
        self.h.setOptionValue("presolve", "off")

    def set_primal_feasibility(self, tolerance: float) -> None:
        """HiGHS's primal feasibility tolerance (its default 1e-7 is coarser than some
        models' costs: RUX's pure leaves cost about 2e-8)."""
        self.h.setOptionValue("primal_feasibility_tolerance", float(tolerance))

    def set_dual_feasibility(self, tolerance: float) -> None:
        """HiGHS's dual feasibility tolerance (reduced costs down to ``-tolerance`` count as
        optimal; its default 1e-7 is coarser than RUX's pure leaves' costs, about 2e-8)."""
        self.h.setOptionValue("dual_feasibility_tolerance", float(tolerance))

    def use_interior_point(self, tolerance: float = 1e-8) -> None:
        """Solve the LP by interior point without crossover or presolve, stopped at the given
        optimality tolerance: an interior point near the optimum, not a vertex, with
        approximate duals (HiGHS then often reports status "unknown").  With presolve on,
        its postsolve returned a vertex-like point (RUG on adult: 20 rules with weight,
        81 without presolve at tolerance 1e-4)."""
        self.h.setOptionValue("solver", "ipm")
        self.h.setOptionValue("run_crossover", "off")
        self.h.setOptionValue("presolve", "off")
        self.h.setOptionValue("ipm_optimality_tolerance", float(tolerance))

    def _watch_lp(self, watch: bool) -> None:
        """(Un)subscribe the LP interrupt callbacks (simplex and interior point)."""
        if watch != self._lp_watched:
            for cb in (self.h.cbSimplexInterrupt, self.h.cbIpmInterrupt):
                if watch:
                    cb.subscribe(self._interrupt)
                else:
                    cb.unsubscribe(self._interrupt)
            self._lp_watched = watch

    def _interrupt(self, event) -> None:
        stopped = self._stop is not None and self._stop.stopped
        if (stopped or time.perf_counter() > self._deadline) and event.data_in:
            event.data_in.user_interrupt = True  # what event.interrupt() does (highspy >= 1.9)

    def option(self, name: str) -> Any:
        """The current value of a HiGHS option (highspy returns (status, value) or the value,
        depending on its version)."""
        value = self.h.getOptionValue(name)
        return value[1] if isinstance(value, tuple) else value

    @property
    def n_cols(self) -> int:
        return self.h.getNumCol()

    @property
    def n_rows(self) -> int:
        return self.h.getNumRow()

    @property
    def n_nonzeros(self) -> int:
        """Constraint matrix nonzeros."""
        return self.h.getNumNz()

    def add_rows(self, lower: Sequence[float], upper: Sequence[float]) -> np.ndarray:
        """Add empty rows ``lower <= . <= upper`` (columns fill them); return their indices."""
        lo = np.array([_bound(v) for v in lower], dtype=float)
        up = np.array([_bound(v) for v in upper], dtype=float)
        start = self.n_rows
        self.h.addRows(len(lo), lo, up, 0, np.zeros(0, dtype=np.int32),
                       np.zeros(0, dtype=np.int32), np.zeros(0))
        return np.arange(start, start + len(lo))

    def add_columns(self, cost: Sequence[float], lower: Sequence[float], upper: Sequence[float],
                    rows: Sequence[Sequence[int]], values: Sequence[Sequence[float]]) -> np.ndarray:
        """Add columns (cost, bounds, sparse entries per column); return their indices."""
        n = len(cost)
        starts = np.zeros(n, dtype=np.int32)
        idx: list[np.ndarray] = []
        val: list[np.ndarray] = []
        pos = 0
        for j in range(n):
            starts[j] = pos
            idx.append(np.asarray(rows[j], dtype=np.int32))
            val.append(np.asarray(values[j], dtype=float))
            pos += len(idx[-1])
        first = self.n_cols
        self.h.addCols(n, np.asarray(cost, dtype=float),
                       np.array([_bound(v) for v in lower], dtype=float),
                       np.array([_bound(v) for v in upper], dtype=float), pos, starts,
                       np.concatenate(idx) if idx else np.zeros(0, dtype=np.int32),
                       np.concatenate(val) if val else np.zeros(0))
        return np.arange(first, first + n)

    def add_sparse_columns(self, cost: np.ndarray, starts: np.ndarray | None = None,
                           idx: np.ndarray | None = None, vals: np.ndarray | None = None,
                           upper: np.ndarray | None = None) -> np.ndarray:
        """Add columns ``0 <= x <= upper`` (default no upper bound) from CSC arrays in one
        call, without per-column Python lists; no arrays = empty columns (rows fill them)."""
        n = len(cost)
        first = self.n_cols
        if starts is None:
            starts, idx, vals = np.zeros(n), np.zeros(0), np.zeros(0)
        up = np.full(n, INF) if upper is None else np.asarray(upper, dtype=float)
        self.h.addCols(n, np.asarray(cost, dtype=float), np.zeros(n), up,
                       len(idx), np.asarray(starts, dtype=np.int32),
                       np.asarray(idx, dtype=np.int32), np.asarray(vals, dtype=float))
        return np.arange(first, first + n)

    def add_sparse_rows(self, M: Any, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
        """Add the rows of a scipy CSR matrix ``lower <= M x <= upper`` in one call."""
        first = self.n_rows
        self.h.addRows(M.shape[0], np.asarray(lower, dtype=float),
                       np.asarray(upper, dtype=float), M.nnz, M.indptr.astype(np.int32),
                       M.indices.astype(np.int32), M.data.astype(float))
        return np.arange(first, first + M.shape[0])

    def set_integer(self, cols: Sequence[int], integer: bool = True) -> None:
        cols = np.asarray(cols, dtype=np.int32)
        kind = highspy.HighsVarType.kInteger if integer else highspy.HighsVarType.kContinuous
        self.h.changeColsIntegrality(len(cols), cols, np.array([kind] * len(cols)))

    def set_basis(self, basis: tuple[np.ndarray, np.ndarray] | None,
                  primal_feasible: bool = False) -> None:
        """Start the next solve from ``basis`` (column and row statuses as HiGHS codes).

        HiGHS repairs a guess that is singular or has the wrong number of basics.  With
        ``primal_feasible`` the solve uses the re-solve strategy (primal simplex), else dual.
        """
        if basis is None:
            return
        codes = sorted(highspy.HighsBasisStatus.__members__.values(), key=int)
        start = highspy.HighsBasis()
        start.col_status = [codes[k] for k in basis[0]]
        start.row_status = [codes[k] for k in basis[1]]
        start.valid = True
        start.alien = True
        self.h.setBasis(start)
        self._solved_once = primal_feasible

    def get_basis(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The final basis (column and row statuses as HiGHS codes), if the solve left one."""
        final = self.h.getBasis()
        if not final.valid:
            return None
        return (np.array([int(k) for k in final.col_status], dtype=np.int8),
                np.array([int(k) for k in final.row_status], dtype=np.int8))

    def set_start(self, values: np.ndarray) -> None:
        """Warm start for a MIP (a full column vector)."""
        sol = highspy.HighsSolution()
        sol.col_value = list(map(float, values))
        sol.value_valid = True
        self.h.setSolution(sol)

    def solve(self, deadline: Deadline | None = None, mip_gap: float | None = None,
              time_limit: float | None = None) -> SolveResult:
        """Solve until ``deadline`` (or its stop flag); returns primal values, row duals
        (``stats['duals']``) for LPs, and the bound.  ``time_limit``: a further limit in
        seconds."""
        self._stop = deadline
        limit = time_limit
        if deadline is not None and deadline.seconds() is not None:
            limit = deadline.remaining() if limit is None else min(limit, deadline.remaining())
        # HiGHS compares an LP's time_limit with the run time of all solves of this object so
        # far, a MIP's with the time of this run (both measured), so an LP re-solve in column
        # generation gets the time spent before added, a MIP does not
        has_integers = self._has_integers()
        self._watch_lp(has_integers or self.n_nonzeros >= LP_WATCH_NONZEROS)
        offset = 0.0 if has_integers else float(self.h.getRunTime())
        self.h.setOptionValue("time_limit", offset + float(limit) if limit is not None else INF)
        gap = self.options.mip_gap if mip_gap is None else mip_gap
        self.h.setOptionValue("mip_rel_gap", float(gap))
        # primal simplex after column additions (solvers.md), dual simplex for the first solve
        self.h.setOptionValue("simplex_strategy",
                              self.resolve_strategy if self._solved_once else 1)
        t0 = time.perf_counter()
        self._deadline = t0 + float(limit) if limit is not None else math.inf
        self._run()
        seconds = time.perf_counter() - t0
        self._deadline = math.inf
        self._solved_once = True
        raw = self.h.modelStatusToString(self.h.getModelStatus())
        status = _STATUS.get(raw, raw)
        self._stop = None
        if status == "interrupted" and not (deadline is not None and deadline.stopped):
            status = "time_limit"  # our deadline, not a stop request
        info = self.h.getInfo()
        sol = self.h.getSolution()
        has_values = bool(sol.value_valid)
        values = np.asarray(sol.col_value, dtype=float) if has_values else None
        objective = float(info.objective_function_value) if has_values else None
        is_mip = info.mip_node_count >= 0 and has_integers
        if is_mip:
            bound = float(info.mip_dual_bound)
            nodes = int(info.mip_node_count)
        else:
            bound = objective if status == "optimal" else None
            nodes = 0
        stats = {}
        if not is_mip and sol.dual_valid:
            stats["duals"] = np.asarray(sol.row_dual, dtype=float)
            stats["reduced_costs"] = np.asarray(sol.col_dual, dtype=float)
        if values is None and status == "time_limit":
            status = "no_solution"
        return SolveResult(status, objective, bound, seconds, nodes, values, stats)

    def _run(self) -> None:
        """``run()``; once more after resetting the thread scheduler if HiGHS refused to start
        because another HiGHS user in this process set it up with another thread count."""
        status = self.h.run()
        if (status == highspy.HighsStatus.kError
                and self.h.getModelStatus() == highspy.HighsModelStatus.kNotset):
            _reset_thread_scheduler()
            self.h.run()

    def _has_integers(self) -> bool:
        lp = self.h.getLp()
        return any(v != highspy.HighsVarType.kContinuous for v in lp.integrality_)

    def set_col_bounds(self, cols: Sequence[int], lower: Sequence[float],
                       upper: Sequence[float]) -> None:
        """Change bounds of existing columns (e.g. reduced-cost fixing before a MIP)."""
        cols = np.asarray(cols, dtype=np.int32)
        self.h.changeColsBounds(len(cols), cols,
                                np.array([_bound(v) for v in lower], dtype=float),
                                np.array([_bound(v) for v in upper], dtype=float))

    def objective_vector(self) -> np.ndarray:
        """Current objective coefficients of all columns."""
        return np.asarray(self.h.getLp().col_cost_, dtype=float)
