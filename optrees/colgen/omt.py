"""OMT: optimal multiway-split trees by a path-based set-partitioning MIP and column generation
(omt-multiway.txt §3-§5).

Master (eq. 1-2), over rules j (paths of the feature graph, :mod:`.omt_graph`)::

    min  sum_j xi_j z_j + sum_i c_i s_i
    s.t. sum_j a_ij z_j + s_i = 1          (lambda_i)   every training sample i      (1)
         sum_j z_j <= l                     (mu)                                     (2)
         lo_m <= sum_j rho_mj z_j <= up_m   (tau_m)     linear constraints over rules (§5)
         z binary, s >= 0

Column generation (§4): the restricted master LP is re-solved warm in HiGHS, its duals priced
by the K-shortest-path DP of :mod:`.omt_pricing`; then the master MIP over the generated
columns is solved by HiGHS with a time limit and a warm start.

Design decisions the paper leaves open:

* **Units.**  Samples with identical codes on every level have identical rows (1) and are
  covered by exactly the same rules, so they are merged into one row ("unit") whose slack cost
  and statistics are sums.  This is exact (the dual of a unit is the sum of its samples' duals)
  and makes categorical data much smaller.
* **Merged master (large data, >= ``merge_min_units`` units, default 20,000).**  On numeric
  data units barely merge (18 features x 8 bins: every row is its own unit), and a master
  with one row per unit grows as units x columns (measured at 100k rows: ~100 bytes per
  nonzero in HiGHS, 35 s LP re-solves at 10M nonzeros, 2.9 GB in the MIP).  Units covered
  by exactly the same master columns have identical rows (1), so the master has one row per
  cover pattern, with the summed slack cost; a row's dual is split over its units in
  proportion to their slack costs (c_i = penalty * samples), which is a valid dual of the
  unmerged restricted master (same LP value; tested).  Patterns multiply with the number of
  columns (20k rows: 2,700 patterns for 100 columns, all 20,000 for 600), so this mode keeps
  at most ``max_master_columns`` (default 300) columns in the master: before new columns
  enter, columns at zero in the LP (never the root or warm-start ones) are dropped, largest
  reduced cost first, and may return when they price out again -- a heuristic bound like
  the paper's smaller K on large data.  The master is rebuilt after each pricing round (the
  patterns change); column covers are kept as packed bits while a column is in it.  The
  exact closure (below) is not run in this mode.
* **Penalty c_i.**  c_i = xi(root rule) - (lower bound of any objective) + 1 per sample, so any
  solution leaving a sample uncovered is worse than the one-leaf tree: the optimum is a
  partition whenever one satisfies the constraints.
* **Rule prediction.**  xi_j = min over predictions of the loss on S_j (majority class,
  weighted majority, mean for squared loss, a grid median for absolute loss); the argmin is
  the rule's prediction.  Absolute loss uses candidate predictions = the distinct targets when
  there are at most ``abs_grid`` of them (exact), else ``abs_grid`` quantiles (approximate).
* **Initial columns / warm start.**  The root rule plus the leaves of a greedy best-first
  multiway tree (categorical split = one child per value, numeric split = CART-like threshold
  on bin boundaries, within depth, leaf, support and attribute rules) -- a "CART-derived"
  partition expressible in the graph -- and, when the graph has "!= v" (or value-subset)
  nodes, of a greedy binary tree (a node vs the rest of the allowed values, as CART on one-hot
  data).  The MIP start is the best of these and a greedy rounding of the final LP (largest z
  first, disjoint rules only).
* **Distinct covers.**  Priced paths that cover the same training samples as a column already
  generated (or as each other) are the same master column and are dropped (small data; with
  ``tie_break`` the rule length is part of the comparison).  Measured on spect, d = 4: 25 % of
  the generated columns were such duplicates, and the master MIP went from a 20 s time limit
  at 18 errors to 13 errors in 13 s.
* **Stopping.**  No column with rc < -``tol``; or, with exact pricing, the Lagrangian bound
  nu_RMP + l * min rc is within ``cg_tol`` (relative) of nu_RMP; or, with heuristic pricing,
  tailing off: ``max_stall`` (default 10) rounds in a row without the LP value falling by
  more than ``cg_tol`` (relative), status "stalled".  Measured: car-evaluation (ordinal) at
  d = 4 has its LP value 186 from the first solve, the warm start's, and then ran 14
  degenerate rounds with LP solves of up to 5.9 s into a 40 s time limit; with 10 it stops
  after 6-13 s.  5 was faster still but lost training accuracy (spect d = 4: 0.902 -> 0.865);
  10 kept it on the 8 cases checked.  Or the iteration limit
  (default 40), the column limit (default 10,000) or the time limit.  The time limit and
  a stop request (Ctrl-C: :func:`optrees.solvers.base.request_stop`) are checked between
  master solves and inside pricing; HiGHS polls the stop flag itself.  Either ends column
  generation (status "time_limit") and the master MIP is solved with the time left (none
  after a stop: the warm start below is the answer).
* **Master MIP.**  Skipped when the warm start already costs the final LP value (it is then
  optimal over the generated columns; car-evaluation d = 2: 6.1 s of MIP -> none).
  Otherwise phase 1 (heuristic): the MIP restricted to the columns used by the final
  LP plus the ``sub_mip_columns`` of smallest reduced cost, for an incumbent.  Then (exact)
  reduced-cost fixing: a column with rc_j > UB - nu_LP is fixed to 0 (any solution using it
  costs >= nu_LP + rc_j), and the MIP over the remaining generated columns is solved with the
  incumbent as warm start and the remaining time.  LP re-solves use dual simplex (measured
  0.4 s vs 16 s for primal on kr-vs-kp, d = 4).
* **Exact mode.**  With ``exact_pricing`` the DP prunes only by valid bounds; after CG
  converges and the MIP is optimal, every path with rc < UB - nu_LP is generated (the same
  argument as the fixing, applied to all paths of the graph) and the MIP re-solved: the result
  is then optimal over *all* paths (status "optimal"), not only the generated ones.
* **Leaf penalty** (option, default 0 = paper): every rule costs ``leaf_penalty`` times the
  total sample weight (classification: objective = error rate + leaf_penalty x rules, as
  BendOCT's lambda) or times the one-leaf tree's loss (regression).  It is a constant in
  every column's cost and in the pricing, so CG, bounds and the exact closure are unchanged.
  With a minimum support of 1 % and 2^d leaves the paper's objective fits noise on small
  data (monk3 at d = 4: 100 % train, 88 % test); the penalty, chosen on a validation split,
  is the usual remedy (the FlowOCT protocol tunes its lambda the same way).
* **Tie-break** (option, default 0 = paper): each rule costs ``tie_break`` * (1 + length) /
  (l (d + 1)) extra, so ties in the loss go to smaller trees without trading a single error.
* **Categorical nodes** (option): one node per value (paper, default), plus complements
  "!= v", or all value subsets (<= 5 values); ``ordinal`` bins ordered and numeric-valued
  categories like numeric columns (a node is a run of consecutive categories).
* **Bound and gap.**  ``lp_bound`` is the final RMP value; it bounds the full OMT optimum from
  below only when pricing was exact and CG converged (``lp_exact``).  The reported gap is
  (nu_IP - nu_LP) / nu_IP as in the paper's discussion of Table 2.
* **Path-level constraints.**  Rule costs are additive over levels (rho_mj = const_m +
  sum over used levels of a_mg, e.g. feature acquisition costs); their duals tau_m enter the
  reduced cost per level.  Each linear row has an artificial column with a large cost so the
  RMP is always feasible; a final solution that needs one raises an input error.
  A per-rule budget (cost of a rule <= ``rule_budget``) and attribute-level rules are
  enforced inside pricing (feasibility checks while extending a path).
* **F1-score (§5).**  Maximizing F1 = 2TP / (TP + FP + P) (P = positives) over partitions is a
  fractional program; we use Dinkelbach's method over the linear master: for gamma, minimize
  sum_j min(0, gamma |S_j| - 2 TP_j) (a rule predicts positive iff that is negative), set
  gamma = F1 of the solution, repeat until the parametric optimum is >= -``tol``.  Each step
  is the same CG + MIP (columns are kept and re-costed), so the result is F1-optimal over the
  generated columns when every MIP is solved to optimality.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import OptreesInputError
from ..solvers.base import SolveResult, SolverOptions, stop_requested
from ..solvers.highs import HighsModel
from .omt_graph import Graph
from .omt_pricing import Pricer, Steps

LOSSES = ("misclassification", "weighted", "f1", "squared", "absolute")


# --------------------------------------------------------------------------- metrics
class Metric:
    """Per-unit additive statistics ``S`` and the rule loss xi = err(sum of S over S_j).

    ``kind == "loss"``: S is a loss matrix (unit x candidate prediction), xi = min over columns.
    ``kind == "squared"``: S = [n, sum y, sum y^2], xi = sum y^2 - (sum y)^2 / n.
    """

    def __init__(self, kind: str, S: np.ndarray, count: np.ndarray,
                 values: np.ndarray | None = None) -> None:
        self.kind = kind
        self.S = np.asarray(S, dtype=float)
        self.count = np.asarray(count, dtype=float)
        self.values = values  # prediction per loss column (regression grid)

    def err(self, agg: np.ndarray) -> np.ndarray:
        if self.kind == "loss":
            return agg.min(axis=-1)
        if self.kind == "gini":  # n * Gini impurity of class counts (greedy splits only)
            n = agg.sum(axis=-1)
            return n - (agg ** 2).sum(axis=-1) / np.maximum(n, 1e-300)
        n = np.maximum(agg[..., 0], 1e-300)
        return np.maximum(agg[..., 2] - agg[..., 1] ** 2 / n, 0.0)

    def pred(self, agg: np.ndarray) -> np.ndarray:
        if self.kind == "loss":
            a = agg.argmin(axis=-1)
            return a if self.values is None else self.values[a]
        return agg[..., 1] / np.maximum(agg[..., 0], 1e-300)

    def lower(self) -> float:
        """A lower bound of sum_j xi_j over any partition."""
        if self.kind == "loss":
            return float(np.minimum(self.S.min(axis=1), 0.0).sum())
        return 0.0

    # pricing terms: W = per-unit additive terms for the reduced cost and its bound
    def pricing_terms(self, lam: np.ndarray) -> tuple[np.ndarray, int]:
        if self.kind == "loss":
            R = self.S - lam[:, None]
            return np.hstack([R, np.minimum(R, 0.0), self.count[:, None]]), 2 * R.shape[1]
        return (np.column_stack([self.S, -lam, -np.maximum(lam, 0.0), self.count]), 5)

    def evaluate(self, agg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.kind == "loss":
            C = self.S.shape[1]
            return agg[..., :C].min(axis=-1), agg[..., C:2 * C].min(axis=-1)
        return self.err(agg[..., :3]) + agg[..., 3], agg[..., 4]


# --------------------------------------------------------------------------- constraints
@dataclass
class RuleConstraint:
    """lower <= sum_j rho_j z_j <= upper with rho_j = const + sum_{levels g in rule j} coef[g]."""

    coef: np.ndarray
    const: float = 0.0
    lower: float = -math.inf
    upper: float = math.inf
    name: str = "constraint"

    def rho(self, steps: Steps) -> float:
        return float(self.const + sum(self.coef[g] for g, _ in steps))


@dataclass
class OMTResult:
    steps: list[Steps]              # selected rules
    predictions: np.ndarray         # per selected rule
    xi: np.ndarray                  # per selected rule
    objective: float                # nu_IP (includes slack penalties, if any)
    lp_bound: float                 # nu_LP of the final restricted master
    lp_exact: bool                  # pricing exact and CG converged: lp_bound is a true bound
    gap: float                      # (nu_IP - nu_LP) / nu_IP
    mip_gap: float                  # HiGHS gap of the master MIP over generated columns
    status: str
    uncovered: int                  # training samples left to slack
    stats: dict = field(default_factory=dict)


class OMTSolver:
    """Column generation for OMT on a feature graph (units = merged identical rows)."""

    def __init__(self, graph: Graph, metric_builder: Any, sample_weight_units: np.ndarray,
                 depth: int, leaves: int, min_count: float, *,
                 constraints: list[RuleConstraint] | None = None,
                 feature_costs: np.ndarray | None = None, rule_budget: float | None = None,
                 forbidden: list[np.ndarray] | None = None,
                 requires: list[np.ndarray] | None = None,
                 k_best: int = 1000, beam: int | None = None, exact_pricing: bool = False,
                 max_iter: int = 40, max_columns: int = 10_000, cg_tol: float = 1e-4,
                 tol: float = 1e-7, seed: int = 0, verbose: bool = False,
                 unit_codes: np.ndarray | None = None, sub_mip_columns: int = 300,
                 sub_mip_seconds: float = 10.0, tie_break: float = 0.0,
                 max_stall: int = 10,
                 merge_min_units: int = 20_000, max_master_columns: int = 300) -> None:
        self.graph = graph
        # tie-break: each rule costs tie * (1 + its length); at most tie_break in total
        self.tie = float(tie_break) / (leaves * (depth + 1))
        self.leaf_cost = 0.0  # every rule costs this much (leaf penalty; set by solve_omt)
        self.max_stall = int(max_stall)  # heuristic pricing: rounds without LP progress
        self.sub_mip_columns, self.sub_mip_seconds = int(sub_mip_columns), sub_mip_seconds
        self.codes = unit_codes
        self.n_count = np.asarray(sample_weight_units, dtype=float)  # samples per unit
        self.depth, self.leaves, self.min_count = depth, leaves, float(min_count)
        self.constraints = constraints or []
        # count column = the metric's last pricing term (samples; min support)
        self.pricer = Pricer(unit_codes, [lv.nodes for lv in graph.levels], depth, min_count,
                             -1, feature_costs=feature_costs, rule_budget=rule_budget,
                             forbidden=forbidden, requires=requires)
        self.metric_builder = metric_builder
        self.k_best, self.exact = int(k_best), bool(exact_pricing)
        self.beam = int(beam if beam is not None else k_best)
        self.max_iter, self.max_columns = int(max_iter), int(max_columns)
        self.cg_tol, self.tol = float(cg_tol), float(tol)
        self.seed, self.verbose = seed, verbose
        # large data: master rows merged by cover pattern, at most max_master_columns
        self.merged = len(self.n_count) >= int(merge_min_units)
        self.max_master_columns = int(max_master_columns)
        self.pool: list[Steps] = []
        self.keys: set[Steps] = set()
        self.cover_keys: set[bytes] = set()  # covers of pool columns (small data only)
        self.index: dict[Steps, int] = {}
        # covered units of pool column j: int32 indices (small data) or packed bits (merged
        # mode, only while the column is in the master; None once dropped)
        self.covers: list[np.ndarray | None] = []
        self.active: list[int] = []  # pool columns in the master (merged mode)
        self.protected: set[int] = set()  # root and warm-start columns: never dropped

    # ------------------------------------------------------------------ columns
    def add_to_pool(self, steps: Steps, mask: np.ndarray | None = None) -> bool:
        """Add a column (its cover ``mask`` if already computed); False if in the pool."""
        if steps in self.keys:
            return False
        self.keys.add(steps)
        if mask is None:
            mask = self.pricer.cover(steps)
        if not self.merged:
            self.cover_keys.add(self._cover_key(mask, steps))
        self.index[steps] = len(self.pool)
        self.pool.append(steps)
        self.covers.append(self._stored_cover(mask))
        self.active.append(len(self.pool) - 1)
        return True

    def rule_extra(self, steps: Steps) -> float:
        """Cost of a rule beyond its loss: the leaf penalty and the length tie-break."""
        return self.leaf_cost + self.tie * (1 + len(steps))

    def _cover_key(self, mask: np.ndarray, steps: Steps) -> bytes:
        """A column's master coefficients: its cover ``mask`` (and its length when ties are
        broken by length, which changes the cost)."""
        key = np.packbits(mask).tobytes()
        return key + bytes([len(steps)]) if self.tie else key

    def _new_covers(self, paths: list) -> tuple[list, list]:
        """Priced paths whose master column is not in the pool yet and not repeated, and their
        covers (None in merged mode): a path covering the same samples as another is the same
        column (the rest are dropped)."""
        if self.merged:
            return paths, [None] * len(paths)
        out, masks, seen = [], [], set()
        for p in paths:
            mask = self.pricer.cover(p.steps)
            key = self._cover_key(mask, p.steps)
            if key not in self.cover_keys and key not in seen:
                seen.add(key)
                out.append(p)
                masks.append(mask)
        return out, masks

    def _stored_cover(self, mask: np.ndarray) -> np.ndarray:
        return np.packbits(mask) if self.merged else np.flatnonzero(mask).astype(np.int32)

    def mask_of(self, j: int) -> np.ndarray:
        """Bool mask of the units covered by pool column j."""
        c = self.covers[j]
        if c is None:
            return self.pricer.cover(self.pool[j])
        if self.merged:
            return np.unpackbits(c, count=len(self.n_count)).view(bool)
        mask = np.zeros(len(self.n_count), dtype=bool)
        mask[c] = True
        return mask

    def cover_of(self, j: int) -> np.ndarray:
        """Units covered by pool column j (int32 indices)."""
        c = self.covers[j]
        if c is not None and not self.merged:
            return c
        return np.flatnonzero(self.mask_of(j)).astype(np.int32)

    def column_xi(self, metric: Metric, j: int) -> tuple[float, float]:
        agg = metric.S[self.cover_of(j)].sum(axis=0)
        return float(metric.err(agg)), float(metric.pred(agg))

    # ------------------------------------------------------------------ greedy warm start
    def greedy_partitions(self, metric: Metric, class_counts: np.ndarray | None = None
                          ) -> list[list[Steps]]:
        """Warm-start partitions: the leaves of a greedy multiway tree and, when the graph has
        nodes for them ("!= v" or value-subset nodes), of a greedy binary (CART-like) tree."""
        parts = [self.greedy_partition(metric, class_counts, multiway=True)]
        if any(lv.kind == "categorical" and lv.nodes.shape[0] > lv.n_codes
               for lv in self.graph.levels):
            binary = self.greedy_partition(metric, class_counts, multiway=False)
            if set(binary) != set(parts[0]):
                parts.append(binary)
        return parts

    def greedy_partition(self, metric: Metric, class_counts: np.ndarray | None = None,
                         multiway: bool = True) -> list[Steps]:
        """Best-first tree within depth / leaves / support / attribute rules.

        Splits are chosen by Gini gain when ``class_counts`` (units x classes) are given (as
        CART does: misclassification gain is often zero at the root), else by loss gain.
        A categorical level splits into one child per value (``multiway``) or, where the
        graph has both nodes, into a node and the rest of the allowed values (binary)."""
        P = len(self.n_count)
        levels = self.graph.levels
        node_index = [{nd.tobytes(): v for v, nd in enumerate(lv.nodes)} for lv in levels]
        if class_counts is not None:
            metric = Metric("gini", np.asarray(class_counts, dtype=float), self.n_count)

        def err_of(idx: np.ndarray) -> float:
            return float(metric.err(metric.S[idx].sum(axis=0)))

        def best_split(steps: Steps, idx: np.ndarray) -> tuple[float, list] | None:
            used = {g: v for g, v in steps}
            ok = self.pricer.allowed(np.array([[g in used for g in range(len(levels))]]))[0]
            base = err_of(idx)
            best = None
            cost_now = self.pricer.path_cost(steps)
            for g, lv in enumerate(levels):
                new_level = g not in used
                if new_level and (len(used) >= self.depth or not ok[g]
                                  or cost_now + self.pricer.costs[g]
                                  > self.pricer.rule_budget + 1e-12):
                    continue
                if new_level and any(gg > g for gg in used) and self.pricer.requires[g].size:
                    continue
                code = self.codes[idx, g]
                nc = lv.n_codes
                agg = np.stack([np.bincount(code, weights=metric.S[idx, j], minlength=nc)
                                for j in range(metric.S.shape[1])], axis=1)
                cnt = np.bincount(code, weights=self.n_count[idx], minlength=nc)
                allowed = (levels[g].nodes[used[g]] if not new_level
                           else np.ones(nc, dtype=bool))
                present = np.flatnonzero(allowed & (cnt > 0))
                if len(present) < 2:
                    continue
                if lv.kind == "categorical" and lv.nodes.shape[0] > nc:
                    best = self._binary_node_split(g, allowed, agg, cnt, metric, base, best,
                                                   node_index[g])
                    if not multiway:
                        continue
                multi = lv.kind == "categorical" or lv.nodes.shape[0] == nc
                if multi and not new_level:
                    continue
                if multi:
                    if (cnt[present] < self.min_count).any():
                        continue
                    parts = [[c] for c in present]
                    e = float(metric.err(agg[present]).sum())
                    if best is None or base - e > best[0]:
                        best = (base - e, [(g, p) for p in parts])
                else:
                    lo, hi = int(np.flatnonzero(allowed)[0]), int(np.flatnonzero(allowed)[-1])
                    cum = np.cumsum(agg[lo:hi + 1], axis=0)
                    ccum = np.cumsum(cnt[lo:hi + 1])
                    for b in range(hi - lo):
                        left, right = cum[b], cum[-1] - cum[b]
                        if ccum[b] < self.min_count or ccum[-1] - ccum[b] < self.min_count:
                            continue
                        e = float(metric.err(left) + metric.err(right))
                        if best is None or base - e > best[0]:
                            best = (base - e, [(g, list(range(lo, lo + b + 1))),
                                               (g, list(range(lo + b + 1, hi + 1)))])
            if best is None or best[0] <= 1e-9:
                return None
            out = []
            for g, codes in best[1]:
                mask = np.zeros(levels[g].n_codes, dtype=bool)
                mask[codes] = True
                v = node_index[g].get(mask.tobytes())
                if v is None:
                    return None
                new = tuple(sorted({**used, g: v}.items()))
                out.append(new)
            return best[0], out

        leaves: list[tuple[Steps, np.ndarray]] = [((), np.arange(P))]
        cache: dict[Steps, Any] = {}
        while True:
            cand = []
            for i, (st, idx) in enumerate(leaves):
                if st not in cache:
                    cache[st] = best_split(st, idx)
                if cache[st] is not None:
                    gain, kids = cache[st]
                    if len(leaves) - 1 + len(kids) <= self.leaves:
                        cand.append((gain, i, kids))
            if not cand:
                break
            gain, i, kids = max(cand, key=lambda c: (c[0], -c[1]))
            st, idx = leaves.pop(i)
            for k in kids:
                cov = self.pricer.cover(k)
                leaves.append((k, idx[cov[idx]]))
        return [st for st, _ in leaves]

    def _binary_node_split(self, g: int, allowed: np.ndarray, agg: np.ndarray,
                           cnt: np.ndarray, metric: Metric, base: float, best: Any,
                           node_index: dict[bytes, int]) -> Any:
        """Best split of the allowed values of level g into a node and the rest (both must
        be nodes of the graph, or the rest the full level); ``best`` if none beats it."""
        nodes = self.graph.levels[g].nodes
        sub = (nodes & ~allowed).sum(axis=1) == 0  # nodes inside the allowed set
        sub &= nodes.sum(axis=1) < allowed.sum()
        node_cnt = nodes.astype(float) @ cnt
        tot_cnt = float(cnt[allowed].sum())
        sub &= (node_cnt >= max(self.min_count, 1e-12))
        sub &= (tot_cnt - node_cnt >= max(self.min_count, 1e-12))
        if not sub.any():
            return best
        node_agg = nodes[sub].astype(float) @ agg
        tot_agg = agg[allowed].sum(axis=0)
        errs = metric.err(node_agg) + metric.err(tot_agg - node_agg)
        for v, e in zip(np.flatnonzero(sub), errs, strict=True):
            rest = allowed & ~nodes[v]
            if rest.all() or rest.tobytes() not in node_index:
                continue
            if best is None or base - float(e) > best[0]:
                best = (base - float(e), [(g, list(np.flatnonzero(nodes[v]))),
                                          (g, list(np.flatnonzero(rest)))])
        return best

    # ------------------------------------------------------------------ master
    def _build_master(self, metric: Metric, penalty: float) -> tuple[HighsModel, dict]:
        """Master LP over all pool columns, or (merged mode) over the active ones with one
        row per cover pattern.  ``info``: HiGHS columns of the slacks and artificials; per
        master column (aligned lists) its HiGHS column ``z`` and pool index ``j``;
        ``cost`` = the objective vector; ``rows``: number of coverage rows; ``cls`` /
        ``rep`` / ``n_row``: row of each unit, a unit of each row, samples per row (merged)."""
        P = len(self.n_count)
        js = self.active if self.merged else list(range(len(self.pool)))
        info: dict[str, Any] = {"z": [], "j": [], "rows": P, "cls": None}
        n_row = self.n_count
        if self.merged:
            info["cls"], info["rep"] = self._patterns(js)
            info["rows"] = len(info["rep"])
            n_row = np.bincount(info["cls"], weights=self.n_count, minlength=info["rows"])
        info["n_row"] = n_row
        R = info["rows"]
        m = HighsModel(SolverOptions(seed=self.seed, verbose=False))
        # measured: dual simplex re-solves these dense set-partitioning LPs far faster than
        # primal (kr-vs-kp d=4: 0.4 s vs 16 s)
        m.resolve_strategy = 1
        m.add_rows(np.ones(R), np.ones(R))                       # (1)
        m.add_rows([-math.inf], [float(self.leaves)])              # (2)
        if self.constraints:
            m.add_rows([c.lower for c in self.constraints], [c.upper for c in self.constraints])
        slack_cost = penalty * n_row
        info["slack"] = m.add_sparse_columns(slack_cost, np.arange(R, dtype=np.int32),
                                            np.arange(R, dtype=np.int32), np.ones(R))
        art, art_cost = [], []
        big = penalty * self.n_count.sum() + 1.0
        for r, c in enumerate(self.constraints):
            row = R + 1 + r
            for bound, sign in ((c.upper, -1.0), (-c.lower, 1.0)):
                if bound < math.inf:
                    art.append(m.add_columns([big], [0.0], [math.inf], [[row]], [[sign]])[0])
                    art_cost.append(big)
        info["art"] = np.asarray(art, dtype=np.int64)
        info["cost"] = np.concatenate([slack_cost, art_cost])
        self._add_columns(m, info, metric, js)
        return m, info

    def _patterns(self, js: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """Units with the same cover pattern over columns ``js`` have identical rows (1): the
        pattern class of every unit and one unit per class."""
        P = len(self.n_count)
        bits = np.zeros((P, max(1, (len(js) + 7) // 8)), dtype=np.uint8)
        for a, j in enumerate(js):
            bits[:, a // 8] |= self.mask_of(j).astype(np.uint8) << np.uint8(a % 8)
        keys = np.ascontiguousarray(bits).view(np.dtype((np.void, bits.shape[1]))).ravel()
        _, rep, cls = np.unique(keys, return_index=True, return_inverse=True)
        return cls.ravel().astype(np.int64), rep

    def _add_columns(self, m: HighsModel, info: dict, metric: Metric, js,
                     chunk_nnz: int = 2_000_000) -> np.ndarray:
        """Add pool columns ``js`` to the master (in chunks of about ``chunk_nnz`` nonzeros,
        to bound the temporary arrays); returns their HiGHS columns."""
        added: list[np.ndarray] = []
        chunk: list[tuple[int, np.ndarray]] = []
        nnz = 0
        for j in js:
            rows = self._column_rows(j, info)
            chunk.append((j, rows))
            nnz += len(rows)
            if nnz >= chunk_nnz:
                added.append(self._add_chunk(m, info, metric, chunk))
                chunk, nnz = [], 0
        if chunk:
            added.append(self._add_chunk(m, info, metric, chunk))
        return np.concatenate(added) if added else np.zeros(0, dtype=np.int64)

    def _column_rows(self, j: int, info: dict) -> np.ndarray:
        """Coverage rows of pool column j: its units, or (merged) the classes it covers."""
        if info["cls"] is None:
            return self.cover_of(j)
        return np.flatnonzero(self.mask_of(j)[info["rep"]]).astype(np.int32)

    def _add_chunk(self, m: HighsModel, info: dict, metric: Metric,
                   chunk: list[tuple[int, np.ndarray]]) -> np.ndarray:
        """One sparse ``addCols`` call: column j = its coverage rows, row (2), rule rows."""
        R = info["rows"]
        extra_r = np.arange(R + 1, R + 1 + len(self.constraints), dtype=np.int32)
        cost, idx, vals, starts = [], [], [], [0]
        for j, rows in chunk:
            xi, _ = self.column_xi(metric, j)
            cost.append(xi + self.rule_extra(self.pool[j]))
            extra_v = [c.rho(self.pool[j]) for c in self.constraints]
            idx.append(np.concatenate([rows, [R], extra_r]).astype(np.int32))
            vals.append(np.concatenate([np.ones(len(rows)), [1.0], extra_v]))
            starts.append(starts[-1] + len(idx[-1]))
            info["j"].append(j)
        cols = m.add_sparse_columns(np.asarray(cost), np.asarray(starts[:-1], np.int32),
                                   np.concatenate(idx), np.concatenate(vals))
        info["z"] += list(cols)
        info["cost"] = np.concatenate([info["cost"], cost])
        return cols

    def _unit_duals(self, duals: np.ndarray, info: dict | None) -> np.ndarray:
        """lambda per unit.  Merged rows: a row's dual split over its units in proportion
        to their slack costs -- a valid dual of the unmerged restricted master."""
        if info is None or info["cls"] is None:
            return duals[:len(self.n_count)]
        cls = info["cls"]
        return duals[cls] * self.n_count / info["n_row"][cls]

    def _drop_columns(self, info: dict, res: Any, n_new: int) -> None:
        """Merged mode: keep at most ``max_master_columns`` master columns by dropping
        (never protected or LP-positive ones) those of largest reduced cost; a dropped
        column may return when it prices out again.  A heuristic memory / speed bound for
        large data (the paper lowers K there to stay within RAM)."""
        excess = len(self.active) + n_new - self.max_master_columns
        if excess <= 0:
            return
        z = np.asarray(info["z"], dtype=np.int64)
        rc, vals = res.stats["reduced_costs"][z], res.values[z]
        ok = np.array([j not in self.protected for j in info["j"]]) & (vals <= 1e-9)
        order = [a for a in np.argsort(-rc, kind="stable") if ok[a]][:excess]
        gone = {info["j"][a] for a in order}
        for j in gone:
            self.covers[j] = None
        self.active = [j for j in self.active if j not in gone]

    def _extend(self, m: HighsModel, info: dict, metric: Metric, js: list[int],
                penalty: float) -> tuple[HighsModel, dict, np.ndarray]:
        """Add pool columns to the master: incrementally (warm re-solve), or in merged mode
        by rebuilding it (rows change); returns the master and the new HiGHS columns."""
        if not self.merged:
            return m, info, self._add_columns(m, info, metric, js)
        for j in js:
            if j not in self.active:
                self.active.append(j)
                if self.covers[j] is None:
                    self.covers[j] = self._stored_cover(self.pricer.cover(self.pool[j]))
        m, info = self._build_master(metric, penalty)
        pos = {j: a for a, j in enumerate(info["j"])}
        return m, info, np.asarray([info["z"][pos[j]] for j in js], dtype=np.int64)

    # ------------------------------------------------------------------ CG + MIP
    def _price(self, metric: Metric, duals: np.ndarray, k: int, exact: bool, tol: float,
               stop: Any = None, info: dict | None = None):
        """Pricing with the master duals: lambda (rows 1), mu (row 2), tau (rule rows);
        ``stop()`` ends it early (see :meth:`Pricer.run`); ``info``: the master (merged
        rows), None = one row per unit."""
        R = len(self.n_count) if info is None else info["rows"]
        lam, mu, tau = self._unit_duals(duals, info), duals[R], duals[R + 1:]
        W, _ = metric.pricing_terms(lam)
        level_extra = np.full(len(self.graph.levels), self.tie)
        const = -mu + self.tie + self.leaf_cost
        for r, c in enumerate(self.constraints):
            level_extra -= tau[r] * c.coef
            const -= tau[r] * c.const

        return self.pricer.run(W, metric.evaluate, const, level_extra, k, exact, self.beam, tol,
                               stop=stop)

    def solve(self, metric: Metric, deadline: float | None, mip_gap: float = 0.0,
              greedy: list[list[Steps]] | None = None,
              class_counts: np.ndarray | None = None) -> OMTResult:
        t_start = time.perf_counter()
        P = len(self.n_count)

        def out_of_time() -> bool:  # the deadline passed or a stop (Ctrl-C) was requested
            return stop_requested() or (deadline is not None
                                        and time.perf_counter() > deadline)

        def time_left() -> float | None:  # seconds for the next HiGHS call
            if stop_requested():  # HiGHS polls the flag, but not at every point of a MIP
                return 0.01
            return None if deadline is None else max(0.01, deadline - time.perf_counter())

        if greedy is None:
            greedy = self.greedy_partitions(metric, class_counts)
        self.add_to_pool(())
        for part in greedy:
            for st in part:
                self.add_to_pool(st)
                self.protected.add(self.index[st])
        self.protected.add(self.index[()])
        root_xi = float(metric.err(metric.S.sum(axis=0)))
        penalty = root_xi + self.rule_extra(()) - metric.lower() + 1.0
        m, info = self._build_master(metric, penalty)
        status, lp_exact, it = "converged", False, 0
        lp_obj = math.nan
        best_lp, stall = math.inf, 0
        n_priced = 0
        t_lp = t_price = 0.0
        while True:
            t0 = time.perf_counter()
            res = m.solve(time_limit=time_left())
            t_lp += time.perf_counter() - t0
            # "no_solution": HiGHS's time limit hit before it had LP values
            if (res.status in ("time_limit", "interrupted", "no_solution")
                    or (res.status != "optimal" and out_of_time())):
                status, lp_obj = "time_limit", math.nan  # no LP bound: go to the MIP
                res.stats.pop("reduced_costs", None)
                res.values = None
                break
            if res.status != "optimal" or "duals" not in res.stats:
                raise RuntimeError(f"OMT master LP not solved: {res.status}")
            lp_obj = float(res.objective)
            if lp_obj < best_lp - self.cg_tol * max(1.0, abs(best_lp)):
                best_lp, stall = lp_obj, 0
            else:
                stall += 1
            if it >= self.max_iter:
                status = "iteration_limit"
                break
            if not self.exact and 0 < self.max_stall <= stall:
                status = "stalled"  # tailing off: degenerate LP, no progress in max_stall
                break
            if len(self.pool) >= self.max_columns:
                status = "column_limit"
                break
            if out_of_time():
                status = "time_limit"
                break
            t0 = time.perf_counter()
            paths = self._price(metric, res.stats["duals"], self.k_best, self.exact, self.tol,
                                stop=out_of_time, info=info)
            t_price += time.perf_counter() - t0
            it += 1
            if out_of_time():  # pricing may have been cut short: its paths are dropped (the
                status = "time_limit"  # LP values and reduced costs below must match m)
                break
            in_master = {self.pool[j] for j in info["j"]}
            new, masks = self._new_covers([p for p in paths if p.steps not in in_master])
            if not new:
                lp_exact = self.exact
                break
            new = new[:max(1, self.max_columns - len(self.pool))]
            if self.merged:
                new = new[:max(1, self.max_master_columns - len(self.protected))]
                self._drop_columns(info, res, len(new))
            for p, mask in zip(new, masks[:len(new)], strict=True):  # new may be truncated
                self.add_to_pool(p.steps, mask)
            n_priced += len(new)
            m, info, _ = self._extend(m, info, metric, [self.index[p.steps] for p in new],
                                      penalty)
            min_rc = paths[0].rc
            if self.exact and self.leaves * min_rc > -self.cg_tol * max(abs(lp_obj), 1.0):
                # Lagrangian bound nu_RMP + l * min rc is within cg_tol: LP converged
                res = m.solve(time_limit=time_left())
                if res.status != "optimal":  # time limit / stop during this last re-solve
                    status, lp_obj = "time_limit", math.nan
                    res.stats.pop("reduced_costs", None)
                    res.values = None
                    break
                lp_obj = float(res.objective)
                lp_exact = False  # within tolerance, not exactly
                status = "converged"
                break
        z_cols = np.asarray(info["z"], dtype=np.int64)
        lp_vals = res.values
        # ---- MIP over generated columns, warm start
        m.skip_probing()
        start = self._warm_start(metric, info, lp_vals, greedy, penalty, m.n_cols)
        rc = res.stats.get("reduced_costs")
        m.set_integer(z_cols)
        t0 = time.perf_counter()
        n_fixed, sub_obj = 0, None
        ub0 = None if start is None else float(start @ info["cost"])
        at_bound = ub0 is not None and ub0 <= lp_obj + 1e-6 * max(1.0, abs(ub0))
        # at_bound: the warm start reaches the LP value, so it is optimal over these columns
        if (not at_bound and rc is not None and len(z_cols) > self.sub_mip_columns
                and not out_of_time()):
            # phase 1 (heuristic): MIP over the columns used by the LP and those of smallest
            # reduced cost, for a good incumbent quickly
            order = np.argsort(rc[z_cols], kind="stable")
            keep = np.zeros(len(z_cols), dtype=bool)
            keep[order[:self.sub_mip_columns]] = True
            keep |= lp_vals[z_cols] > 1e-9
            if start is not None:
                keep |= start[z_cols] > 0.5
            off = z_cols[~keep]
            m.set_col_bounds(off, [0.0] * len(off), [0.0] * len(off))
            if start is not None:
                m.set_start(start)
            left = time_left()
            lim = self.sub_mip_seconds if left is None else min(self.sub_mip_seconds, left / 3)
            sres = m.solve(time_limit=lim, mip_gap=mip_gap)
            if sres.values is not None and (start is None
                                            or sres.objective < start @ info["cost"]):
                start = sres.values
                sub_obj = float(sres.objective)
            m.set_col_bounds(off, [0.0] * len(off), [math.inf] * len(off))
        if start is not None and rc is not None and not at_bound:
            # reduced-cost fixing: any solution using column j costs >= nu_LP + rc_j, so
            # columns with rc_j > UB - nu_LP cannot improve on the incumbent UB (exact)
            ub = float(start @ info["cost"])
            fix = z_cols[rc[z_cols] > ub - lp_obj + 1e-6 * max(1.0, abs(ub))]
            if len(fix):
                m.set_col_bounds(fix, [0.0] * len(fix), [0.0] * len(fix))
            n_fixed = len(fix)
        if at_bound:
            mres = SolveResult("optimal", ub0, lp_obj, 0.0, values=start)
        else:
            if start is not None:
                m.set_start(start)
            mres = m.solve(time_limit=time_left(), mip_gap=mip_gap)
        closed = False
        # (not in merged mode: its master is rebuilt when columns are added)
        if (self.exact and lp_exact and not self.merged and mres.status == "optimal"
                and mres.values is not None
                and not out_of_time()):
            # exact closure: a column of a better solution has rc < UB - nu_LP, so adding all
            # such paths (exact pricing with that threshold) makes the MIP exact over all paths
            thr = float(mres.objective) - lp_obj
            extra = self._price(metric, res.stats["duals"], self.max_columns, True,
                                -(thr + 1e-7 * max(1.0, abs(mres.objective))), stop=out_of_time,
                                info=info)
            in_master = {self.pool[j] for j in info["j"]}
            extra, masks = self._new_covers([p for p in extra if p.steps not in in_master])
            if len(extra) < self.max_columns and not out_of_time():
                closed = True
                if extra:
                    for p, mask in zip(extra, masks, strict=True):
                        self.add_to_pool(p.steps, mask)
                    cols = self._add_columns(m, info, metric,
                                             [self.index[p.steps] for p in extra])
                    z_cols = np.asarray(info["z"], dtype=np.int64)
                    m.set_integer(cols)
                    x0 = np.concatenate([mres.values, np.zeros(m.n_cols - len(mres.values))])
                    m.set_start(x0)
                    mres = m.solve(time_limit=time_left(), mip_gap=mip_gap)
        t_mip = time.perf_counter() - t0
        if closed and mres.status == "optimal":
            status = "optimal"  # proven optimal over every path of the feature graph
        if mres.status == "interrupted":  # HiGHS stopped by a stop request: as a time limit
            mres.status = "time_limit"
        if mres.values is None and start is not None:  # time out before any MIP solution
            mres.values = start
            mres.objective = float(start @ info["cost"])
            mres.status = "time_limit"
        if mres.values is None:
            raise RuntimeError(f"OMT master MIP returned no solution ({mres.status})")
        if mres.status == "time_limit":
            status = "time_limit"
        x = mres.values
        if len(info["art"]) and x[info["art"]].max() > 1e-6:
            names = [c.name for c in self.constraints]
            raise OptreesInputError(
                f"the rule constraints {names} cannot be satisfied by any set of rules found "
                "(infeasible budget or bounds)")
        sel = [info["j"][a] for a, col in enumerate(z_cols) if x[col] > 0.5]
        steps = [self.pool[j] for j in sel]
        pairs = [self.column_xi(metric, j) for j in sel]
        xi = [a for a, _ in pairs]
        pred = [b for _, b in pairs]
        cover = np.zeros(P)
        for j in sel:
            cover[self.cover_of(j)] += 1
        uncovered = int(self.n_count[cover == 0].sum())
        tie_cost = self.tie * sum(1 + len(st) for st in steps)
        obj = float(mres.objective) - tie_cost
        lp_obj = lp_obj - self.tie * self.leaves * (self.depth + 1)  # still a lower bound
        gap = ((obj - lp_obj) / abs(obj) if abs(obj) > 1e-9
               else (0.0 if lp_obj > -1e-6 else math.inf))
        return OMTResult(steps, np.asarray(pred, dtype=float), np.asarray(xi, dtype=float),
                         obj, lp_obj, lp_exact and mres.status == "optimal", max(gap, 0.0),
                         mres.gap, status if mres.status != "time_limit" else "time_limit",
                         uncovered,
                         {"iterations": it, "columns": len(self.pool), "priced": n_priced,
                          "lp_seconds": t_lp, "pricing_seconds": t_price, "mip_seconds": t_mip,
                          "mip_status": mres.status, "units": P, "fixed": n_fixed,
                          "sub_mip_objective": sub_obj, "exact_closure": closed,
                          "master_rows": info["rows"], "master_columns": len(info["z"]),
                          "penalty": penalty,
                          "cg_seconds": time.perf_counter() - t_start - t_mip})

    def _warm_start(self, metric: Metric, info: dict, lp_vals: np.ndarray | None,
                    greedy: list[list[Steps]], penalty: float, n_cols: int
                    ) -> np.ndarray | None:
        """The best of the greedy-tree partitions and a greedy rounding of the LP
        (candidates are positions of master columns)."""
        P = len(self.n_count)
        z_cols = np.asarray(info["z"], dtype=np.int64)
        position = {self.pool[j]: a for a, j in enumerate(info["j"])}
        cands = [[position[s] for s in part if s in position] for part in greedy]
        if lp_vals is not None:
            order = np.argsort(-lp_vals[z_cols], kind="stable")
            chosen, covered = [], np.zeros(P, dtype=bool)
            for a in order:
                if lp_vals[z_cols[a]] <= 1e-6 or len(chosen) >= self.leaves:
                    break
                cov = self.cover_of(info["j"][a])
                if covered[cov].any():
                    continue
                chosen.append(int(a))
                covered[cov] = True
            cands.append(chosen)
        best, best_obj = None, math.inf
        for ch in cands:
            if len(ch) > self.leaves:
                continue
            cov = np.zeros(P)
            for a in ch:
                cov[self.cover_of(info["j"][a])] += 1
            if (cov > 1).any():
                continue
            ok = True
            for c in self.constraints:
                act = sum(c.rho(self.pool[info["j"][a]]) for a in ch)
                ok &= c.lower - 1e-9 <= act <= c.upper + 1e-9
            if not ok:
                continue
            obj = sum(self.column_xi(metric, info["j"][a])[0]
                      + self.rule_extra(self.pool[info["j"][a]]) for a in ch)
            obj += penalty * float(self.n_count[cov == 0].sum())
            if obj < best_obj:
                best, best_obj = ch, obj
        if best is None:
            return None
        x = np.zeros(n_cols)
        cov = np.zeros(P)
        for a in best:
            x[z_cols[a]] = 1.0
            cov[self.cover_of(info["j"][a])] += 1
        uncovered = cov == 0 if info["cls"] is None else cov[info["rep"]] == 0
        x[info["slack"]] = uncovered.astype(float)
        return x

# --------------------------------------------------------------------------- driver
def unit_table(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Merge identical code rows: (unit codes, unit of each sample, samples per unit)."""
    if codes.shape[1] == 0:
        inv = np.zeros(len(codes), dtype=np.int64)
        return np.zeros((1, 0), dtype=np.int32), inv, np.array([float(len(codes))])
    uniq, inv = np.unique(codes, axis=0, return_inverse=True)
    inv = inv.ravel().astype(np.int64)
    return uniq.astype(np.int32), inv, np.bincount(inv, minlength=len(uniq)).astype(float)


def class_loss_matrix(inv: np.ndarray, y: np.ndarray, n_units: int, n_classes: int,
                      weights: np.ndarray | None = None) -> np.ndarray:
    """S[p, c] = weighted number of samples of unit p whose class is not c."""
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=float)
    cw = np.bincount(inv * n_classes + y, weights=w, minlength=n_units * n_classes)
    cw = cw.reshape(n_units, n_classes)
    return cw.sum(axis=1, keepdims=True) - cw


def f1_matrix(inv: np.ndarray, y: np.ndarray, n_units: int, gamma: float,
              pos: int) -> np.ndarray:
    """Dinkelbach costs: column 0 = predict negative (0), column 1 = gamma n_p - 2 TP_p."""
    n = np.bincount(inv, minlength=n_units).astype(float)
    tp = np.bincount(inv, weights=(y == pos).astype(float), minlength=n_units)
    return np.column_stack([np.zeros(n_units), gamma * n - 2.0 * tp])


def regression_metric(inv: np.ndarray, y: np.ndarray, n_units: int, loss: str,
                      abs_grid: int = 64) -> Metric:
    n = np.bincount(inv, minlength=n_units).astype(float)
    if loss == "squared":
        S = np.column_stack([n, np.bincount(inv, weights=y, minlength=n_units),
                             np.bincount(inv, weights=y * y, minlength=n_units)])
        return Metric("squared", S, n)
    vals = np.unique(y)
    if len(vals) > abs_grid:
        vals = np.unique(np.quantile(y, np.linspace(0, 1, abs_grid)))
    S = np.zeros((n_units, len(vals)))
    for c, v in enumerate(vals):
        S[:, c] = np.bincount(inv, weights=np.abs(y - v), minlength=n_units)
    return Metric("loss", S, n, values=vals)


@dataclass
class OMTFit:
    result: OMTResult
    graph: Graph
    conditions: list[dict[int, np.ndarray]]
    support: np.ndarray
    f1: float | None = None
    dinkelbach: list[float] = field(default_factory=list)


def solve_omt(graph: Graph, y: np.ndarray, *, task: str, loss: str, n_classes: int | None,
              depth: int, leaves: int, min_count: float, class_weights: np.ndarray | None = None,
              pos_label: int = 1, constraints: list[RuleConstraint] | None = None,
              feature_costs: np.ndarray | None = None, rule_budget: float | None = None,
              forbidden: list[np.ndarray] | None = None,
              requires: list[np.ndarray] | None = None, k_best: int = 1000,
              beam: int | None = None, exact_pricing: bool = False, max_iter: int = 40,
              max_columns: int = 10_000, cg_tol: float = 1e-4, mip_gap: float = 0.0,
              abs_grid: int = 64, deadline: float | None = None, seed: int = 0,
              verbose: bool = False, max_dinkelbach: int = 20,
              tie_break: float = 0.0, leaf_penalty: float = 0.0, max_stall: int = 10,
              merge_min_units: int = 20_000, max_master_columns: int = 300) -> OMTFit:
    """Graph + targets -> selected rules.  ``y``: class indices or regression values.
    ``leaf_penalty``: every rule costs leaf_penalty x (classification) the total sample
    weight, so the objective is error rate + leaf_penalty x rules, or (regression) the loss
    of the one-leaf tree."""
    ucodes, inv, n_units = unit_table(graph.codes)
    P = len(n_units)
    solver = OMTSolver(graph, None, n_units, depth, leaves, min_count,
                       constraints=constraints, feature_costs=feature_costs,
                       rule_budget=rule_budget, forbidden=forbidden, requires=requires,
                       k_best=k_best, beam=beam, exact_pricing=exact_pricing,
                       max_iter=max_iter, max_columns=max_columns, cg_tol=cg_tol, seed=seed,
                       verbose=verbose, unit_codes=ucodes,
                       tie_break=0.0 if loss == "f1" else tie_break, max_stall=max_stall,
                       merge_min_units=merge_min_units,
                       max_master_columns=max_master_columns)
    f1 = None
    history: list[float] = []
    if task == "regression":
        metric = regression_metric(inv, np.asarray(y, dtype=float), P, loss, abs_grid)
        solver.leaf_cost = leaf_penalty * float(metric.err(metric.S.sum(axis=0)))
        res = solver.solve(metric, deadline, mip_gap)
    elif loss in ("misclassification", "weighted"):
        S = class_loss_matrix(inv, y, P, n_classes,
                              None if class_weights is None else class_weights[y])
        metric = Metric("loss", S, n_units)
        counts = n_units[:, None] - class_loss_matrix(inv, y, P, n_classes)
        solver.leaf_cost = leaf_penalty * float(
            len(y) if class_weights is None else np.sum(class_weights[y]))
        res = solver.solve(metric, deadline, mip_gap, class_counts=counts)
    else:  # F1 by Dinkelbach's parametric method
        pos_total = float(np.sum(y == pos_label))
        gamma = 2 * pos_total / (len(y) + pos_total)  # F1 of "everything positive"
        greedy = None
        for _ in range(max_dinkelbach):
            history.append(gamma)
            metric = Metric("loss", f1_matrix(inv, y, P, gamma, pos_label), n_units)
            if greedy is None:
                counts = n_units[:, None] - class_loss_matrix(inv, y, P, 2)
                greedy = solver.greedy_partitions(metric, counts)
            res = solver.solve(metric, deadline, mip_gap, greedy=greedy)
            tp = fp = 0.0
            for st, pr in zip(res.steps, res.predictions, strict=True):
                if int(pr) == pos_label:
                    cov = np.flatnonzero(solver.pricer.cover(st))
                    m = np.isin(inv, cov)
                    tp += float(np.sum(y[m] == pos_label))
                    fp += float(np.sum(y[m] != pos_label))
            value = 2 * tp - gamma * (tp + fp + pos_total)  # parametric optimum F(gamma)
            new_gamma = 2 * tp / (tp + fp + pos_total) if tp + fp + pos_total > 0 else 0.0
            f1 = new_gamma
            if value <= 1e-9 * max(1.0, pos_total) or res.status == "time_limit":
                break
            if stop_requested() or (deadline is not None and time.perf_counter() > deadline):
                res.status = "time_limit"
                break
            gamma = new_gamma
        res.stats["dinkelbach_gammas"] = history
    conditions, support = [], []
    for st in res.steps:
        conditions.append({g: graph.levels[g].nodes[v] for g, v in st})
        support.append(float(n_units[solver.pricer.cover(st)].sum()))
    fit = OMTFit(res, graph, conditions, np.asarray(support), f1, history)
    fit.solver = solver  # type: ignore[attr-defined]
    fit.unit_of_sample = inv  # type: ignore[attr-defined]
    return fit
