"""The optimal 0/1 subtree when testing a feature costs: each row pays, for every distinct
column tested on its path, that column's cost times the row's weight (pystreed's
cost-sensitive task; a column's 0/1 features share the column's cost, paid once per path).

The cost of a split depends on the columns already tested above it, so a subproblem is
(rows, depth, columns used on the path): a depth-first branch-and-bound over root features
with a cache on that triple, the leaf-support bound (a subtree scores at most its leaf or
its weight minus two leaf penalties; costs only lower a score, so the bounds of
:mod:`.search` stay valid) and, at depth 2, the vectorized kernel of :mod:`.counts` with the
split costs (``depth2_numpy(split_costs=...)``).  The similarity bound of :mod:`.search`
does not hold here (a removed row also stops paying its costs) and is not used.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ....solvers.deadline import Deadline
from .counts import Counter, depth2_numpy
from .data import BinaryData, select_rows
from .tree import Node, from_depth2

__all__ = ["FeatureCostSolution", "solve_feature_costs"]


@dataclass
class FeatureCostSolution:
    """The best subtree found (``node``), its objective ``value`` (score - leaf penalties -
    feature costs), a proven upper ``bound`` and whether it is ``optimal``."""

    node: Node
    value: float
    bound: float
    optimal: bool
    stats: dict = field(default_factory=dict)


class _Search:
    def __init__(self, data: BinaryData, cost_weight: np.ndarray, L: float,
                 column: np.ndarray, column_cost: np.ndarray, min_leaf: int,
                 deadline: Deadline | None) -> None:
        self.d, self.L, self.m, self.deadline = data, float(L), int(min_leaf), deadline
        self.column, self.column_cost = column, column_cost
        self.cost_weight = cost_weight
        self.counter = Counter(data, "numpy")
        # one class, weight = the cost weight: pair sums of the weight paying feature costs
        self.weights = Counter(BinaryData.make(data.X, np.zeros(len(data.y), np.int64),
                                               cost_weight, 1), "numpy")
        self.rows = Counter(BinaryData.make(data.X, np.zeros(len(data.y), np.int64), None, 1),
                            "numpy")
        self.same = column[:, None] == column[None, :]   # two features of one column
        self.cache: dict[tuple, tuple[float, Node, float]] = {}
        self.tol = 1e-9 * (1.0 + float(data.w.sum()) + float(cost_weight.sum())
                           * float(column_cost.max(initial=0.0)) + 64.0 * abs(self.L))
        self.nodes = 0
        self.timed_out = False

    def _costs(self, used: frozenset) -> np.ndarray:
        """Each feature's column cost, 0 where its column is already on the path."""
        c = self.column_cost[self.column].copy()
        if used:
            c[np.isin(self.column, list(used))] = 0.0
        return c

    def _expired(self) -> bool:
        if self.deadline is not None and self.deadline.expired():
            self.timed_out = True
        return self.timed_out

    def solve(self, rows: np.ndarray, depth: int, used: frozenset,
              lower: float = -math.inf) -> tuple[float, Node, float]:
        """(value, subtree, upper bound) of the best subtree of depth <= ``depth`` on
        ``rows`` with the columns ``used`` already paid for."""
        self.nodes += 1
        key = (rows.tobytes(), depth, used)
        if key in self.cache:
            return self.cache[key]
        scores, weight = self.d.scores(rows)
        leaf = float(scores.max()) - self.L
        upper = max(leaf, weight - 2.0 * self.L)
        if depth == 0 or leaf >= upper - self.tol or len(rows) < 2 * self.m:
            return self._keep(key, (leaf, None, leaf))
        if upper <= lower + self.tol or self._expired():
            return leaf, None, upper
        if depth <= 2:
            return self._keep(key, self._depth2(rows, depth, used))
        cost = self._costs(used) * float(self.cost_weight[rows].sum())
        X = self.d.X[rows]
        n1 = X.sum(axis=0)
        # per root feature, both sides' leaf-support bounds from the node's counters, and
        # the stump value (children as leaves) to try good roots first
        G, t = self.counter.class_weights(rows)
        diag_w = np.einsum("aak->ak", G)                 # class weights with x_f = 1
        s1 = self.counter.to_scores(diag_w, t)[0]        # scores with x_f = 1
        s0 = self.counter.to_scores(t[None, :] - diag_w, t)[0]
        w1 = diag_w.sum(axis=1)
        leaf0, leaf1 = s0.max(axis=1) - self.L, s1.max(axis=1) - self.L
        u0 = np.maximum(leaf0, (weight - w1) - 2.0 * self.L)
        u1 = np.maximum(leaf1, w1 - 2.0 * self.L)
        ok = (n1 >= self.m) & (len(rows) - n1 >= self.m)
        feats = np.flatnonzero(ok)
        feats = feats[np.argsort(-(leaf0 + leaf1 - cost)[feats], kind="stable")]
        best, node, parts = leaf, None, leaf
        complete = True
        for f in feats.tolist():
            floor = max(best, lower)
            if u0[f] + u1[f] - cost[f] <= floor + self.tol:
                parts = max(parts, u0[f] + u1[f] - cost[f])
                continue
            if self._expired():
                complete = False
                break
            right = X[:, f] == 1
            sides = (rows[~right], rows[right])
            used_below = used | {int(self.column[f])}
            v0, n0, b0 = self.solve(sides[0], depth - 1, used_below, floor + cost[f] - u1[f])
            if b0 + u1[f] - cost[f] <= floor + self.tol:
                parts = max(parts, b0 + u1[f] - cost[f])
                continue
            v1, n1_, b1 = self.solve(sides[1], depth - 1, used_below, floor + cost[f] - v0)
            parts = max(parts, b0 + b1 - cost[f])
            if v0 + v1 - cost[f] > best + self.tol:
                best, node = v0 + v1 - cost[f], (f, n0, n1_)
        bound = max(best, min(upper, parts)) if complete else upper
        result = (best, node, bound)
        return self._keep(key, result) if bound <= best + self.tol else result

    def _keep(self, key: tuple, result: tuple) -> tuple:
        self.cache[key] = result
        return result

    def _depth2(self, rows: np.ndarray, depth: int, used: frozenset
                ) -> tuple[float, Node, float]:
        """The depth-<=2 optimum by the counters, with the split costs of these rows."""
        G, t = self.counter.gram(rows)
        W, total = self.weights.class_weights(rows)
        wa = np.einsum("aak->a", W)                     # cost weight with x_a = 1
        c = self._costs(used)
        below = np.where(self.same, 0.0, c[None, :])    # b under a: free on a's column
        # every row of the node split pays: x_a = 0 rows below the left child, x_a = 1 right
        split_costs = (c * float(total[0]), below * (float(total[0]) - wa)[:, None],
                       below * wa[:, None])
        C = self.rows.class_weights(rows)[0] if self.m > 1 else None
        v, a, bl, br = depth2_numpy(G, t, self.L, depth, self.tol, C, len(rows), self.m,
                                    None, split_costs)
        return float(v), from_depth2(a, bl, br), float(v)


def solve_feature_costs(X, y, depth: int, leaf_penalty: float, column: np.ndarray,
                        column_cost: np.ndarray, sample_weight=None, cost_weight=None,
                        n_classes: int | None = None, gains: np.ndarray | None = None,
                        min_leaf: int = 1, deadline: Deadline | None = None
                        ) -> FeatureCostSolution:
    """Maximize score - ``leaf_penalty`` * leaves - feature costs over trees of depth <=
    ``depth`` on 0/1 ``X``: feature ``f`` belongs to column ``column[f]``, which costs
    ``column_cost[column[f]]`` (>= 0) per unit of ``cost_weight`` (default: the sample
    weights) of every row whose path tests it; scores as :func:`.solve.solve_subtree`
    (``gains``: an objective's gains)."""
    t0 = time.perf_counter()
    data = BinaryData.make(X, y, sample_weight, n_classes, gains)
    column = np.asarray(column, dtype=np.int64)
    column_cost = np.asarray(column_cost, dtype=np.float64)
    if column.shape != (data.n_features,) or (column_cost < 0).any() or \
            not np.isfinite(column_cost).all():
        raise ValueError("column must name one column per feature; costs finite and >= 0")
    pay = data.w if cost_weight is None else np.asarray(cost_weight, dtype=np.float64)
    search = _Search(data, pay, leaf_penalty, column, column_cost, min_leaf, deadline)
    rows = select_rows(data.X.shape[0], None)
    value, node, bound = search.solve(rows, int(depth), frozenset())
    optimal = bound <= value + search.tol and not search.timed_out
    stats = {"seconds": time.perf_counter() - t0, "nodes": search.nodes,
             "cache_entries": len(search.cache), "timed_out": search.timed_out}
    return FeatureCostSolution(node, value, value if optimal else max(bound, value),
                               optimal, stats)
