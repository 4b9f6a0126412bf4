"""Initial columns and MIP starts of OMT's column generation.

Initial columns ([OMT] §4 leaves them open): the root rule plus the leaves of a greedy
best-first multiway tree (categorical split = one child per value, numeric split = CART-like
threshold on bin boundaries, within the depth, leaf, support and attribute rules) -- a
"CART-derived" partition expressible in the graph -- and, when the graph has "!= v" (or
value-subset) nodes, of a greedy binary tree (a node vs the rest of the allowed values, as CART
on one-hot data).  The MIP start is the best of these partitions and a greedy rounding of the
final LP (largest z first, disjoint rules only).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .constraints import RuleConstraint
from .graph import Graph
from .master import MasterInfo
from .metric import Metric
from .pool import ColumnPool
from .pricing import Pricer, Steps


class GreedyTrees:
    """Greedy best-first trees whose leaves are rules of the graph (warm-start partitions)."""

    def __init__(self, graph: Graph, pricer: Pricer, codes: np.ndarray, n_count: np.ndarray,
                 depth: int, leaves: int, min_count: float) -> None:
        self.graph = graph
        self.pricer = pricer
        self.codes = codes
        self.n_count = n_count
        self.depth, self.leaves, self.min_count = depth, leaves, min_count

    def partitions(self, metric: Metric, class_counts: np.ndarray | None = None
                   ) -> list[list[Steps]]:
        """The leaves of a greedy multiway tree and, when the graph has nodes for them
        ("!= v" or value-subset nodes), of a greedy binary (CART-like) tree."""
        parts = [self.partition(metric, class_counts, multiway=True)]
        if any(lv.kind == "categorical" and lv.nodes.shape[0] > lv.n_codes
               for lv in self.graph.levels):
            binary = self.partition(metric, class_counts, multiway=False)
            if set(binary) != set(parts[0]):
                parts.append(binary)
        return parts

    def partition(self, metric: Metric, class_counts: np.ndarray | None = None,
                  multiway: bool = True) -> list[Steps]:
        """Best-first tree within depth / leaves / support / attribute rules.

        Splits are chosen by Gini gain when ``class_counts`` (units x classes) are given (as
        CART does: misclassification gain is often zero at the root), else by loss gain.
        A categorical level splits into one child per value (``multiway``) or, where the
        graph has both nodes, into a node and the rest of the allowed values (binary)."""
        if class_counts is not None:
            metric = Metric("gini", np.asarray(class_counts, dtype=float), self.n_count)
        node_index = [{nd.tobytes(): v for v, nd in enumerate(lv.nodes)}
                      for lv in self.graph.levels]
        leaves: list[tuple[Steps, np.ndarray]] = [((), np.arange(len(self.n_count)))]
        cache: dict[Steps, Any] = {}
        while True:
            cand = []
            for i, (st, idx) in enumerate(leaves):
                if st not in cache:
                    cache[st] = self._best_split(metric, st, idx, node_index, multiway)
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

    def _best_split(self, metric: Metric, steps: Steps, idx: np.ndarray,
                    node_index: list[dict[bytes, int]], multiway: bool
                    ) -> tuple[float, list[Steps]] | None:
        """(gain, child rules) of the best split of the leaf ``steps`` (units ``idx``)."""
        levels = self.graph.levels
        pricer = self.pricer
        used = {g: v for g, v in steps}
        ok = pricer.allowed(np.array([[g in used for g in range(len(levels))]]))[0]
        base = float(metric.err(metric.S[idx].sum(axis=0)))
        best = None
        cost_now = pricer.path_cost(steps)
        for g, lv in enumerate(levels):
            new_level = g not in used
            if new_level and (len(used) >= self.depth or not ok[g]
                              or cost_now + pricer.costs[g] > pricer.rule_budget + 1e-12):
                continue
            if new_level and any(gg > g for gg in used) and pricer.requires[g].size:
                continue
            code = self.codes[idx, g]
            nc = lv.n_codes
            agg = np.stack([np.bincount(code, weights=metric.S[idx, j], minlength=nc)
                            for j in range(metric.S.shape[1])], axis=1)
            cnt = np.bincount(code, weights=self.n_count[idx], minlength=nc)
            allowed = lv.nodes[used[g]] if not new_level else np.ones(nc, dtype=bool)
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
                e = float(metric.err(agg[present]).sum())
                if best is None or base - e > best[0]:
                    best = (base - e, [(g, [c]) for c in present])
            else:
                best = self._threshold_split(g, allowed, agg, cnt, metric, base, best)
        if best is None or best[0] <= 1e-9:
            return None
        out = []
        for g, codes in best[1]:
            mask = np.zeros(levels[g].n_codes, dtype=bool)
            mask[codes] = True
            v = node_index[g].get(mask.tobytes())
            if v is None:
                return None
            out.append(tuple(sorted({**used, g: v}.items())))
        return best[0], out

    def _threshold_split(self, g: int, allowed: np.ndarray, agg: np.ndarray, cnt: np.ndarray,
                         metric: Metric, base: float, best: Any) -> Any:
        """Best cut of the allowed run of bins of level g into two runs (as CART's
        threshold); ``best`` if none beats it."""
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
        return best

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


def _lp_rounding(pool: ColumnPool, info: MasterInfo, lp_vals: np.ndarray,
                 leaves: int) -> list[int]:
    """Master columns chosen greedily by LP value (largest first), disjoint covers only."""
    z_cols = np.asarray(info.z, dtype=np.int64)
    chosen: list[int] = []
    covered = np.zeros(len(pool.n_count), dtype=bool)
    for a in np.argsort(-lp_vals[z_cols], kind="stable"):
        if lp_vals[z_cols[a]] <= 1e-6 or len(chosen) >= leaves:
            break
        cov = pool.cover_of(info.j[a])
        if covered[cov].any():
            continue
        chosen.append(int(a))
        covered[cov] = True
    return chosen


def mip_start(pool: ColumnPool, info: MasterInfo, metric: Metric, lp_vals: np.ndarray | None,
              greedy: list[list[Steps]], penalty: float, n_cols: int, leaves: int,
              constraints: list[RuleConstraint]) -> np.ndarray | None:
    """The best of the greedy-tree partitions and a greedy rounding of the LP that are
    feasible (at most ``leaves`` disjoint rules meeting the rule constraints), as a full
    vector of the master's HiGHS columns; None if there is none."""
    P = len(pool.n_count)
    z_cols = np.asarray(info.z, dtype=np.int64)
    position = {pool.steps[j]: a for a, j in enumerate(info.j)}
    cands = [[position[s] for s in part if s in position] for part in greedy]
    if lp_vals is not None:
        cands.append(_lp_rounding(pool, info, lp_vals, leaves))
    best, best_obj = None, math.inf
    for ch in cands:
        if len(ch) > leaves:
            continue
        cov = np.zeros(P)
        for a in ch:
            cov[pool.cover_of(info.j[a])] += 1
        if (cov > 1).any():
            continue
        ok = True
        for c in constraints:
            act = sum(c.rho(pool.steps[info.j[a]]) for a in ch)
            ok &= c.lower - 1e-9 <= act <= c.upper + 1e-9
        if not ok:
            continue
        obj = sum(pool.cost(metric, info.j[a]) for a in ch)
        obj += penalty * float(pool.n_count[cov == 0].sum())
        if obj < best_obj:
            best, best_obj = ch, obj
    if best is None:
        return None
    x = np.zeros(n_cols)
    cov = np.zeros(P)
    for a in best:
        x[z_cols[a]] = 1.0
        cov[pool.cover_of(info.j[a])] += 1
    uncovered = cov == 0 if info.cls is None else cov[info.rep] == 0
    x[info.slack] = uncovered.astype(float)
    return x
