"""Column generation and the master MIP of OMT for one rule loss ([OMT] §4).

The restricted master LP (:mod:`.master`) is re-solved warm in HiGHS (dual simplex: measured
0.4 s vs 16 s for primal on kr-vs-kp, d = 4) and its duals priced by the K-shortest-path DP
(:mod:`.pricing`) until no column prices out, the LP stalls or a limit is hit; then the master
MIP over the generated columns is solved (:mod:`.mip`) from a MIP start (:mod:`.warmstart`).
``docs/notes/omt-design.md`` records the choices the paper leaves open (stopping rules,
penalties, the exact closure) and the measurements behind them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .._logging import enabled, progress, since_fit
from .._validation import OptreesInputError
from ..models.result import bound_meets
from ..solvers.base import SolveResult
from ..solvers.deadline import Deadline, TimeUp
from ..solvers.highs import HighsModel
from .constraints import RuleConstraint
from .graph import Graph
from .master import MasterBuilder, MasterInfo
from .metric import Metric
from .mip import MasterMIP, solve_master_mip
from .pool import ColumnPool
from .pricing import PricedPath, Pricer, Steps
from .warmstart import GreedyTrees, mip_start


@dataclass
class OMTResult:
    """The rules selected for one rule loss, with the bounds of column generation."""

    steps: list[Steps]              # selected rules
    predictions: np.ndarray         # per selected rule
    xi: np.ndarray                  # loss per selected rule
    objective: float                # nu_IP (includes slack penalties, if any)
    lp_bound: float                 # nu_LP of the final restricted master (generated rules)
    lp_exact: bool                  # pricing exact and CG converged: lp_bound is a true bound
    bound: float                    # a lower bound over every rule set of the graph (or nan)
    gap: float                      # (nu_IP - bound) / nu_IP (nan without a bound)
    mip_gap: float                  # HiGHS gap of the master MIP over generated columns
    status: str
    uncovered: int                  # training samples left to slack
    stats: dict = field(default_factory=dict)


@dataclass
class _Generation:
    """Where column generation ended: the master, its last LP and the counts."""

    model: HighsModel
    info: MasterInfo
    lp: SolveResult | None
    status: str
    lp_obj: float
    lp_exact: bool
    iterations: int = 0
    priced: int = 0
    exact_rounds: int = 0           # exact pricing rounds after an empty heuristic one
    lp_seconds: float = 0.0
    pricing_seconds: float = 0.0
    lagrangian: float = math.nan    # nu_RMP + l * min rc of a complete exact pricing round


class OMTSolver:
    """Column generation for OMT on a feature graph (units = merged identical rows).

    ``n_count``: samples per unit; ``unit_codes``: codes of the units (units x levels).
    ``tie_break``: each rule costs tie_break * (1 + length) / (leaves (depth + 1)) extra;
    ``max_stall``: heuristic pricing stops after this many rounds without the LP value falling
    by ``cg_tol`` (relative); ``merge_min_units``: from this many units on, the master merges
    rows by cover pattern and keeps at most ``max_master_columns`` columns.
    """

    def __init__(self, graph: Graph, n_count: np.ndarray, depth: int, leaves: int,
                 min_count: float, *, constraints: list[RuleConstraint] | None = None,
                 feature_costs: np.ndarray | None = None, rule_budget: float | None = None,
                 forbidden: list[np.ndarray] | None = None,
                 requires: list[np.ndarray] | None = None,
                 k_best: int = 1000, beam: int | None = None, exact_pricing: bool = False,
                 max_iter: int = 40, max_columns: int = 10_000, cg_tol: float = 1e-4,
                 tol: float = 1e-7, seed: int = 0, unit_codes: np.ndarray | None = None,
                 sub_mip_columns: int = 300, sub_mip_seconds: float = 10.0,
                 tie_break: float = 0.0, max_stall: int = 10,
                 merge_min_units: int = 20_000, max_master_columns: int = 300) -> None:
        self.graph = graph
        self.n_count = np.asarray(n_count, dtype=float)
        self.depth, self.leaves = depth, leaves
        self.constraints = constraints or []
        self.k_best, self.exact = int(k_best), bool(exact_pricing)
        self.beam = int(beam if beam is not None else k_best)
        self.max_iter, self.max_columns = int(max_iter), int(max_columns)
        self.max_stall = int(max_stall)
        self.cg_tol, self.tol = float(cg_tol), float(tol)
        self.sub_mip_columns, self.sub_mip_seconds = int(sub_mip_columns), sub_mip_seconds
        # tie-break: each rule costs tie * (1 + its length); at most tie_break in total
        self.tie = float(tie_break) / (leaves * (depth + 1))
        # count column = the metric's last pricing term (samples; min support)
        self.pricer = Pricer(unit_codes, [lv.nodes for lv in graph.levels], depth, min_count,
                             -1, feature_costs=feature_costs, rule_budget=rule_budget,
                             forbidden=forbidden, requires=requires)
        merged = len(self.n_count) >= int(merge_min_units)
        self.pool = ColumnPool(self.pricer, self.n_count, merged, self.tie)
        self.master = MasterBuilder(self.pool, leaves, self.constraints, seed,
                                    max_master_columns)
        self.greedy = GreedyTrees(graph, self.pricer, unit_codes, self.n_count, depth, leaves,
                                  float(min_count))
        # rule sets selected by earlier solves on this pool (other leaf penalties): starts
        self.selected: list[list[Steps]] = []
        # further start partitions (CART's trees over the bins, :mod:`.cartstart`)
        self.starts: list[list[Steps]] = []
        # losses in the user's units are this times the solver's (a scaled regression
        # target); for progress lines only
        self.report_scale = 1.0

    # ------------------------------------------------------------------ the parts
    @property
    def merged(self) -> bool:
        """Large-data mode: master rows merged by cover pattern (see :mod:`.master`)."""
        return self.pool.merged

    @property
    def covers(self) -> list[np.ndarray | None]:
        """Covered units of each pool column (see :class:`ColumnPool`)."""
        return self.pool.covers

    @property
    def active(self) -> list[int]:
        """Pool columns in the master (merged mode)."""
        return self.pool.active

    @property
    def leaf_cost(self) -> float:
        """What every rule costs on top of its loss (the leaf penalty)."""
        return self.pool.leaf_cost

    @leaf_cost.setter
    def leaf_cost(self, value: float) -> None:
        self.pool.leaf_cost = float(value)

    def add_to_pool(self, steps: Steps, mask: np.ndarray | None = None) -> bool:
        """Add a column to the pool (False if it is there already)."""
        return self.pool.add(steps, mask)

    def greedy_partitions(self, metric: Metric, class_counts: np.ndarray | None = None
                          ) -> list[list[Steps]]:
        """Warm-start partitions (see :class:`GreedyTrees`)."""
        return self.greedy.partitions(metric, class_counts)

    def _build_master(self, metric: Metric, penalty: float) -> tuple[HighsModel, MasterInfo]:
        return self.master.build(metric, penalty)

    def _unit_duals(self, duals: np.ndarray, info: MasterInfo | None) -> np.ndarray:
        return self.master.unit_duals(duals, info)

    def _price(self, metric: Metric, duals: np.ndarray, k: int, exact: bool, tol: float,
               stop: Callable[[], bool] | None = None, info: MasterInfo | None = None
               ) -> list[PricedPath]:
        """Pricing with the master duals: lambda (rows 1), mu (row 2), tau (rule rows);
        ``stop()`` ends it early (see :meth:`Pricer.run`); ``info``: the master (merged
        rows), None = one row per unit."""
        R = len(self.n_count) if info is None else info.rows
        lam, mu, tau = self._unit_duals(duals, info), duals[R], duals[R + 1:]
        W, _ = metric.pricing_terms(lam)
        level_extra = np.full(len(self.graph.levels), self.tie)
        const = -mu + self.tie + self.leaf_cost
        for r, c in enumerate(self.constraints):
            level_extra -= tau[r] * c.coef
            const -= tau[r] * c.const
        return self.pricer.run(W, metric.evaluate, const, level_extra, k, exact, self.beam, tol,
                               stop=stop)

    # ------------------------------------------------------------------ CG + MIP
    def solve(self, metric: Metric, deadline: Deadline | None = None, mip_gap: float = 0.0,
              greedy: list[list[Steps]] | None = None,
              class_counts: np.ndarray | None = None) -> OMTResult:
        """Column generation from the greedy partitions, then the master MIP, within
        ``deadline`` (None: no limit; a stop request ends it as the deadline does)."""
        deadline = Deadline() if deadline is None else deadline
        t_start = time.perf_counter()
        if greedy is None:
            greedy = self.greedy_partitions(metric, class_counts)
        # the single leaf and CART's trees: the fit is never worse than these; an earlier
        # solve's rules (a neighbouring leaf penalty) are often near the optimum: as a MIP
        # start they let reduced-cost fixing drop most columns
        greedy = [*greedy, [()], *self.starts, *self.selected]
        self.add_to_pool(())
        for part in greedy:
            for st in part:
                self.add_to_pool(st)
                self.pool.protected.add(self.pool.index[st])
        self.pool.protected.add(self.pool.index[()])
        root_xi = float(metric.err(metric.S.sum(axis=0)))
        penalty = root_xi + self.pool.extra_cost(()) - metric.lower() + 1.0
        cg = self._generate(metric, deadline, penalty, greedy)
        mip = self._master_mip(metric, deadline, mip_gap, penalty, greedy, cg)
        result = self._result(metric, cg, mip, penalty, time.perf_counter() - t_start)
        f = self.report_scale
        progress("OMT MIP", since_fit(t_start), incumbent=result.objective * f,
                 bound=result.bound * f if math.isfinite(result.bound) else None,
                 gap=result.gap, status=result.status, rules=len(result.steps))
        self.selected.append(list(result.steps))
        return result

    def _generate(self, metric: Metric, deadline: Deadline, penalty: float,
                  greedy: list[list[Steps]] = ()) -> _Generation:
        """Re-solve the master LP and add priced columns until none prices out or a limit
        (iterations, columns, stall, time) is reached."""
        m, info = self._build_master(metric, penalty)
        cg = _Generation(m, info, None, "converged", math.nan, False)
        best_lp, stall = math.inf, 0
        start = self._start_value(metric, info, greedy, penalty) if enabled() else None
        t_start, lps = time.perf_counter(), 0
        while True:
            t0 = time.perf_counter()
            res = cg.lp = _solve_lp(cg, deadline)
            cg.lp_seconds += time.perf_counter() - t0
            # "no_solution": HiGHS's time limit hit before it had LP values
            if (res.status in ("time_limit", "interrupted", "no_solution")
                    or (res.status != "optimal" and deadline.expired())):
                return _without_lp(cg)  # no LP bound: go to the MIP
            if res.status != "optimal" or "duals" not in res.stats:
                raise RuntimeError(f"OMT master LP not solved: {res.status}")
            cg.lp_obj = float(res.objective)
            lps += 1
            self._log_round(t_start, lps, cg, start)
            # (the first LP counts as progress: inf - cg_tol * inf is nan, which made every
            # round a stalled one and stopped all generation after max_stall rounds)
            if best_lp == math.inf or cg.lp_obj < best_lp - self.cg_tol * max(1.0, abs(best_lp)):
                best_lp, stall = cg.lp_obj, 0
            else:
                stall += 1
            if cg.iterations >= self.max_iter:
                cg.status = "iteration_limit"
                return cg
            if not self.exact and 0 < self.max_stall <= stall:
                cg.status = "stalled"  # tailing off: degenerate LP, no progress in max_stall
                return cg
            if len(self.pool) >= self.max_columns:
                cg.status = "column_limit"
                return cg
            if deadline.expired():
                cg.status = "time_limit"
                return cg
            t0 = time.perf_counter()
            paths = self._price(metric, res.stats["duals"], self.k_best, self.exact, self.tol,
                                stop=deadline.expired, info=cg.info)
            cg.pricing_seconds += time.perf_counter() - t0
            cg.iterations += 1
            if deadline.expired():  # pricing may have been cut short: its paths are dropped
                cg.status = "time_limit"  # (LP values and reduced costs must match the master)
                return cg
            try:
                added = self._add_priced(metric, cg, paths, penalty, deadline)
            except TimeUp:  # the merged master's rebuild passed the deadline: the last
                cg.status = "time_limit"  # master and its LP values stand
                return cg
            if not added and not self.exact:
                if self.merged:  # large data: no exact round (nor exact closure), no proof
                    cg.status = "stalled"
                    return cg
                added = self._verify(metric, cg, deadline, penalty)
                if added is None:
                    return cg
            if not added and self.exact and not self.pricer.complete:
                cg.status = "stalled"  # the exact round hit the pricer's size bound: no proof
                return cg
            if not added:
                cg.lp_exact = True  # exact pricing found no column: nu_LP is the LP optimum
                return cg
            if (self.exact and self.pricer.complete
                    and self.leaves * paths[0].rc > -self.cg_tol * max(abs(cg.lp_obj), 1.0)):
                # Lagrangian bound nu_RMP + l * min rc is within cg_tol: LP converged
                if not self.constraints:  # (rule constraints add dual terms to the bound)
                    cg.lagrangian = cg.lp_obj + self.leaves * min(paths[0].rc, 0.0)
                res = cg.lp = _solve_lp(cg, deadline)
                if res.status != "optimal":  # time limit / stop during this last re-solve
                    return _without_lp(cg)
                cg.lp_obj = float(res.objective)
                self._log_round(t_start, lps + 1, cg, start)
                cg.lp_exact = False  # within tolerance, not exactly
                cg.status = "converged"
                return cg

    def _start_value(self, metric: Metric, info: MasterInfo, greedy: list[list[Steps]],
                     penalty: float) -> float | None:
        """Objective of the best start rule set (the best integer model before the master
        MIP), in the units of the fit's objective; None without a feasible start."""
        x = mip_start(self.pool, info, metric, None, greedy, penalty, len(info.cost),
                      self.leaves, self.constraints)
        if x is None:
            return None
        z = np.asarray(info.z, dtype=np.int64)
        tie = sum(self.tie * (1 + len(self.pool[info.j[a]])) for a in np.flatnonzero(x[z] > 0.5))
        return (float(x @ info.cost) - tie) * self.report_scale

    def _log_round(self, t_start: float, lps: int, cg: _Generation,
                   start: float | None) -> None:
        """The progress line of one master LP: its value is a bound over the generated rules
        only (as ``lp_bound_``, not a bound on the optimum), so it is shown as such."""
        if not enabled():
            return
        lp = (cg.lp_obj - self.tie * self.leaves * (self.depth + 1)) * self.report_scale
        progress("OMT", since_fit(t_start), incumbent=start, round=lps,
                 **{"LP over generated rules": f"{lp:.6g}", "rules": len(self.pool)})

    def _verify(self, metric: Metric, cg: _Generation, deadline: Deadline,
                penalty: float) -> bool | None:
        """One exact pricing round after heuristic pricing found no new column: the beam may
        drop the partial paths of every improving rule (breast-cancer d = 4: "converged" at
        nu_LP = 8.00, the LP over all paths is 4.87), so an empty heuristic answer proves
        nothing.  True: columns added (generation goes on); False: none prices out (converged);
        None: cut short by its time share (half of the time left) or the pricer's size bound,
        not a proof."""
        t0 = time.perf_counter()
        share = deadline.share(0.5)
        paths = self._price(metric, cg.lp.stats["duals"], self.k_best, True, self.tol,
                            stop=share.expired, info=cg.info)
        cg.pricing_seconds += time.perf_counter() - t0
        cg.exact_rounds += 1
        if share.expired() or not self.pricer.complete:  # partial: not the K best, no proof
            cg.status = "time_limit" if deadline.expired() else "stalled"
            return None
        return self._add_priced(metric, cg, paths, penalty)

    def _add_priced(self, metric: Metric, cg: _Generation, paths: list[PricedPath],
                    penalty: float, deadline: Deadline | None = None) -> bool:
        """Add the priced paths that are new master columns (False if there is none).
        Merged mode rebuilds the master: TimeUp once ``deadline`` passes during that
        (``cg`` keeps the last master; the new columns stay in the pool)."""
        in_master = {self.pool[j] for j in cg.info.j}
        new, masks = self.pool.new_covers([p for p in paths if p.steps not in in_master])
        if not new:
            return False
        new = new[:max(1, self.max_columns - len(self.pool))]
        if self.merged:
            new = new[:max(1, self.master.max_master_columns - len(self.pool.protected))]
            self.master.drop_columns(cg.info, cg.lp, len(new))
        for p, mask in zip(new, masks[:len(new)], strict=True):  # new may be truncated
            self.add_to_pool(p.steps, mask)
        cg.priced += len(new)
        cg.model, cg.info, _ = self.master.extend(cg.model, cg.info, metric,
                                                  [self.pool.index[p.steps] for p in new],
                                                  penalty, deadline)
        return True

    def _master_mip(self, metric: Metric, deadline: Deadline, mip_gap: float, penalty: float,
                    greedy: list[list[Steps]], cg: _Generation) -> MasterMIP:
        """The master MIP over the generated columns (:mod:`.mip`) and, with exact pricing,
        the exact closure."""
        m, info = cg.model, cg.info
        m.skip_probing()
        start = mip_start(self.pool, info, metric, cg.lp.values, greedy, penalty, m.n_cols,
                          self.leaves, self.constraints)
        m.set_integer(np.asarray(info.z, dtype=np.int64))
        t0 = time.perf_counter()
        out = solve_master_mip(m, info, cg.lp, cg.lp_obj, start, deadline, mip_gap,
                               self.sub_mip_columns, self.sub_mip_seconds)
        # (not in merged mode: its master is rebuilt when columns are added)
        if (self.exact and cg.lp_exact and not self.merged and out.result.status == "optimal"
                and out.result.values is not None and not deadline.expired()):
            self._exact_closure(metric, deadline, mip_gap, cg, out)
        out.seconds = time.perf_counter() - t0
        if out.result.status == "interrupted":  # HiGHS stopped by a stop request: as a limit
            out.result.status = "time_limit"
        if out.start is not None:
            start_obj = float(out.start @ info.cost[:len(out.start)])
            if out.result.values is None:  # no MIP solution in time
                out.result.status = "time_limit"
            if (out.result.values is None
                    or out.result.objective > start_obj + 1e-9 * max(1.0, abs(start_obj))):
                # never worse than the start (HiGHS may drop it, e.g. stopped in presolve)
                x = np.zeros(m.n_cols)
                x[:len(out.start)] = out.start
                out.result.values, out.result.objective = x, start_obj
        if out.result.values is None:
            raise RuntimeError(f"OMT master MIP returned no solution ({out.result.status})")
        return out

    def _exact_closure(self, metric: Metric, deadline: Deadline, mip_gap: float,
                       cg: _Generation, out: MasterMIP) -> None:
        """A column of a better solution has rc < UB - nu_LP, so adding every such path
        (exact pricing with that threshold) and re-solving makes the MIP exact over all
        paths of the graph."""
        m, info, mres = cg.model, cg.info, out.result
        thr = float(mres.objective) - cg.lp_obj
        extra = self._price(metric, cg.lp.stats["duals"], self.max_columns, True,
                            -(thr + 1e-7 * max(1.0, abs(mres.objective))),
                            stop=deadline.expired, info=info)
        in_master = {self.pool[j] for j in info.j}
        extra, masks = self.pool.new_covers([p for p in extra if p.steps not in in_master])
        if len(extra) >= self.max_columns or deadline.expired():
            return
        out.closed = True
        if extra:
            for p, mask in zip(extra, masks, strict=True):
                self.add_to_pool(p.steps, mask)
            cols = self.master.add_columns(m, info, metric,
                                           [self.pool.index[p.steps] for p in extra])
            m.set_integer(cols)
            m.set_start(np.concatenate([mres.values, np.zeros(m.n_cols - len(mres.values))]))
            out.result = m.solve(deadline, mip_gap=mip_gap)

    def _result(self, metric: Metric, cg: _Generation, mip: MasterMIP, penalty: float,
                seconds: float) -> OMTResult:
        """The selected rules, objective, LP bound and counts."""
        info, mres = cg.info, mip.result
        status = cg.status
        if mip.closed and mres.status == "optimal":
            status = "optimal"  # proven optimal over every path of the feature graph
        if mres.status == "time_limit":
            status = "time_limit"
        x = mres.values
        if len(info.art) and x[info.art].max() > 1e-6:
            names = [c.name for c in self.constraints]
            raise OptreesInputError(
                f"the rule constraints {names} cannot be satisfied by any set of rules found "
                "(infeasible budget or bounds)")
        z_cols = np.asarray(info.z, dtype=np.int64)
        sel = [info.j[a] for a, col in enumerate(z_cols) if x[col] > 0.5]
        steps = [self.pool[j] for j in sel]
        pairs = [self.pool.loss(metric, j) for j in sel]
        cover = np.zeros(len(self.n_count))
        for j in sel:
            cover[self.pool.cover_of(j)] += 1
        uncovered = int(self.n_count[cover == 0].sum())
        obj = float(mres.objective) - self.tie * sum(1 + len(st) for st in steps)
        tie_max = self.tie * self.leaves * (self.depth + 1)
        lp_obj = cg.lp_obj - tie_max  # still a lower bound (over the generated rules)
        bound = self._bound(cg, mip, status) - tie_max
        if math.isfinite(bound) and bound_meets(obj, bound):
            status = "optimal"  # the rules reach a bound over every rule set of the graph
        gap = (0.0 if status == "optimal"  # (a proof: not the rounding of obj - bound)
               else math.nan if not math.isfinite(bound)
               else (obj - bound) / abs(obj) if abs(obj) > 1e-9
               else (0.0 if bound > -1e-6 else math.inf))
        stats = {"iterations": cg.iterations, "columns": len(self.pool), "priced": cg.priced,
                 "exact_rounds": cg.exact_rounds,
                 "lp_seconds": cg.lp_seconds, "pricing_seconds": cg.pricing_seconds,
                 "mip_seconds": mip.seconds, "mip_status": mres.status,
                 "units": len(self.n_count), "fixed": mip.fixed,
                 "sub_mip_objective": mip.sub_objective, "exact_closure": mip.closed,
                 "master_rows": info.rows, "master_columns": len(info.z), "penalty": penalty,
                 "cg_seconds": seconds - mip.seconds,
                 # [OMT] §6's Delta = (nu_IP - nu_LP) / nu_IP against the final restricted
                 # master: a gap over the generated rules only (nan without an LP value)
                 "generated_lp_gap": ((obj - lp_obj) / abs(obj) if abs(obj) > 1e-9
                                      else math.nan)}
        return OMTResult(steps, np.asarray([b for _, b in pairs], dtype=float),
                         np.asarray([a for a, _ in pairs], dtype=float), obj, lp_obj,
                         cg.lp_exact and mres.status == "optimal", bound,
                         gap if math.isnan(gap) else max(gap, 0.0), mres.gap,
                         status, uncovered, stats)

    @staticmethod
    def _bound(cg: _Generation, mip: MasterMIP, status: str) -> float:
        """A lower bound on the objective (with tie-break costs) of every rule set of the
        graph, or nan: the LP value when pricing proved it the LP optimum over all paths, the
        Lagrangian bound of a complete exact pricing round, and the master MIP's own bound
        after the exact closure (optimal over every path).  The LP value of a master whose
        pricing was heuristic, stopped or cut short bounds the generated rules only."""
        bounds = [cg.lp_obj if cg.lp_exact else math.nan, cg.lagrangian]
        if status == "optimal" and mip.result.bound is not None:
            bounds.append(float(mip.result.bound))
        bounds = [b for b in bounds if math.isfinite(b)]
        return max(bounds) if bounds else math.nan


def _solve_lp(cg: _Generation, deadline: Deadline) -> SolveResult:
    """The master LP's solve, or no solve once ``deadline`` passed ("no_solution"): given no
    time, HiGHS still took 0.6 s on a rebuilt merged master of 19,890 rows (default-credit,
    depth 2, a 2 s limit: 1.6 s over)."""
    if deadline.expired():
        return SolveResult("no_solution", None, None, 0.0)
    return cg.model.solve(deadline)


def _without_lp(cg: _Generation) -> _Generation:
    """Column generation stopped before its last LP had values: no LP bound, no duals."""
    cg.status, cg.lp_obj = "time_limit", math.nan
    cg.lp.stats.pop("reduced_costs", None)
    cg.lp.values = None
    return cg
