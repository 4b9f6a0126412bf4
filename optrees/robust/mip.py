"""The robust tree as a MIP solved by constraint generation (SCIP), as in Justin, Aghaei,
Gómez, Vayanos, *Learning optimal classification trees robust to distribution shifts*
(arXiv:2310.17772: the two-stage robust problem solved by constraint generation) and
ODTlearn's ``RobustOCT`` (read, not copied: ``robust_oct.py``, ``robust_benders_callback``
in ``utils/callback_helpers.py``). The definition is the package docstring's.

Master (over a complete tree of ``depth``, heap order, as FlowOCT / RobustOCT):

- ``b[n, s]`` binary: internal node ``n`` applies test ``s`` (``x[feat[s]] <= thr[s]`` goes
  left); ``u[n, k]`` binary: node ``n`` (internal or at the bottom) predicts class ``k``.
  ``sum_s b[n, s] + sum_k u[n, k] = 1`` at an internal node, ``sum_k u[n, k] = 1`` at the
  bottom; a node branches only if its parent does (``sum_s b[n] <= sum_s b[parent]``).
- ``t[i]`` in [0, 1]; maximise ``(sum_i w_i t_i) / W - lam * sum b`` (accuracy units; ``W``
  the total weight), with ``sum_i w_i t_i`` at most the tree's worst-case correct weight
  through the cuts below, generated lazily at integer candidates.

Cuts. A point ``p`` of row ``i`` (its own ``x_i`` or a perturbed one) sends one unit of
flow from the root down the arcs of the tests it passes, to the sink at a node predicting
``y_i`` (FlowOCT's network with ``p`` for ``x_i``): for an integer tree, ``p`` is classified
correctly iff the max flow is 1. Fix the candidate tree and ``p``'s path in it; the cut
around that path has capacity ``E_i(p) =`` sum over the path's nodes ``n`` of ``u[n, y_i]``
plus the ``b[n, s]`` of the tests that send ``p`` off the path (every test at the node where
the path ends). Every s-t cut bounds the max flow, so ``correct_i(p) <= E_i(p)`` for EVERY
tree, with equality at the candidate (its path arcs carry the unit, every other arc in the
cut has capacity 0).

- Scenario cut (ODTlearn's aggregated lazy constraint): the adversary's best response to the
  candidate (:func:`.adversary.flipped_rows`) flips ``v_i`` of row ``i``'s weight by moving
  those copies to ``x'_i``, the nearest point (coordinate-wise clip) of its cheapest
  wrong-labelled leaf's box; that scenario is in the uncertainty set whatever the tree, so
  ``sum_i w_i t_i <= sum_i (w_i - v_i) E_i(x_i) + v_i E_i(x'_i)`` bounds every tree's worst
  case and is exact at the candidate.
- Row cut (ODTlearn's per-row cut for a nominally wrong row, extended): a row whose cheapest
  misclassification costs 0 is flipped by every adversary at no cost, so ``t_i <= E_i(x'_i)``
  is valid (moving every such row to such a point is one free scenario whose value
  ``sum_i w_i correct_i(x'_i)`` bounds the worst case; ``t`` can be scaled to it).

At an integer candidate the two families are exact (:meth:`RobustCuts.violated`). At a
fractional LP point (:data:`LP_CUTS`) each row's own minimum cut at ``x_i`` (the row cut
with no move; BendersOCT's cut, a dynamic program over the tree) tightens the relaxation
to FlowOCT's nominal one; with :data:`FRACTIONAL` also the rounded tree's cuts.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from ..models.result import FitResult
from ..models.robust_tree import IntegerTree
from ..solvers.base import Row, SolveResult, SolverOptions
from ..solvers.deadline import Deadline
from ..solvers.scip import ScipModel
from .adversary import (
    box_distances,
    cheapest_wrong_leaves,
    flipped_rows,
    worst_case_correct,
)
from .search import solve_robust_tree, split_table

WARM_SHARE = 0.1  # of the time: the exact search's incumbent as the MIP's start
WARM_SECONDS = 5.0  # at most (without a time limit the share would be all of it)
TOL = 1e-6
# also separate the rounded candidate's cuts at fractional LP points: valid, but slower in
# a first try (no warm start, 30 s, lambda 0.9, depth 2: monk1 4.4 -> 8.1 s, hayes-roth
# 9.1 -> 22.7 s, 2026-11-30), so off
FRACTIONAL = False
# at fractional LP points: each row's own min cut (BendersOCT's cut); depth 2, lambda
# 0.9, warm start, 60 s (2026-11-30): monk2 30.2 -> 22.5 s (7694 -> 2244 nodes),
# hayes-roth 9.0 -> 6.2 s, balance-scale stopped either way (gap 29.8 -> 28.9 %)
LP_CUTS = True
LP_CUTS_MAX = 200  # most violated rows per round


class RobustMaster:
    """The master problem and its cuts for integer ``X``, class indices ``y`` (of
    ``n_classes``), ``costs`` ``(n, F)``, one ``budget``, ``lam`` per branch node and
    ``weights`` (None: 1 each); see the module docstring."""

    def __init__(self, X: np.ndarray, y: np.ndarray, n_classes: int, costs: np.ndarray,
                 budget: float, depth: int, lam: float, weights: np.ndarray | None = None
                 ) -> None:
        self.X, self.y, self.K, self.costs = X, y, n_classes, costs
        self.budget, self.depth, self.lam, self.weights = budget, depth, lam, weights
        self.w = np.ones(len(y)) if weights is None else weights
        self.total = float(self.w.sum())
        self.low, self.high = X.min(axis=0), X.max(axis=0)
        self.feat, self.thr = split_table(self.low, self.high)
        self.split_of = {(int(f), int(t)): s for s, (f, t) in
                         enumerate(zip(self.feat, self.thr, strict=True))}
        self.n_inner, self.n_nodes = 2 ** depth - 1, 2 ** (depth + 1) - 1
        self.seen: set[bytes] = set()
        # the last candidate's response: SCIP checks a point, then separates the same one
        self._last: tuple[bytes, tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None
        self.stats = {"scenario_cuts": 0, "row_cuts": 0, "fractional_cuts": 0,
                      "lp_cuts": 0, "candidates": 0}

    # ----------------------------------------------------------------- model
    def build(self, m: ScipModel) -> None:
        """Variables, the tree's structure rows and the lazy cuts on ``m``."""
        S = len(self.feat)
        self.b = m.add_vars((self.n_inner, S), "B", obj=-self.lam, name="b")
        self.u = m.add_vars((self.n_nodes, self.K), "B", name="u")
        self.t = m.add_vars(len(self.y), "C", ub=1.0, obj=self.w / self.total, name="t")
        for n in range(self.n_nodes):
            if n < self.n_inner:  # branch on one test or predict one class
                m.add_row(np.r_[self.b[n], self.u[n]], np.ones(S + self.K), 1.0, 1.0)
            else:
                m.add_row(self.u[n], np.ones(self.K), 1.0, 1.0)
            if 0 < n < self.n_inner:  # no test below a node that predicts
                p = (n - 1) // 2
                m.add_row(np.r_[self.b[n], self.b[p]], np.r_[np.ones(S), -np.ones(S)],
                          rhs=0.0)
        self.n_vars = m.n_vars
        self.goes_left = self.X[:, self.feat] <= self.thr[None, :]
        m.set_lazy(RobustCuts(self), fractional=FRACTIONAL or LP_CUTS)

    def decode(self, x: np.ndarray) -> np.ndarray:
        """The candidate's test index at each internal node (-1: it predicts; also below a
        predicting node) and its class at each node (-1 where unused), from ``x`` rounded."""
        split = np.full(self.n_inner, -1, dtype=np.int64)
        label = np.full(self.n_nodes, -1, dtype=np.int64)
        stack = [0]
        while stack:
            n = stack.pop()
            if n < self.n_inner and len(self.feat) and x[self.b[n]].max() > 0.5:
                split[n] = int(np.argmax(x[self.b[n]]))
                stack += [2 * n + 1, 2 * n + 2]
            else:
                label[n] = int(np.argmax(x[self.u[n]]))
        return np.concatenate([split, label])

    def tree(self, code: np.ndarray, feature_names: list[str], classes: np.ndarray
             ) -> IntegerTree:
        """The candidate as an :class:`IntegerTree` (not collapsed)."""
        split, label = code[:self.n_inner], code[self.n_inner:]
        feature = np.full(self.n_nodes, -1, dtype=np.int64)
        threshold = np.zeros(self.n_nodes, dtype=np.int64)
        inner = np.flatnonzero(split >= 0)
        feature[inner], threshold[inner] = self.feat[split[inner]], self.thr[split[inner]]
        return IntegerTree(feature, threshold, label.copy(), classes, self.low.copy(),
                           self.high.copy(), list(feature_names))

    def start_values(self, tree: IntegerTree) -> np.ndarray:
        """A full solution for ``tree`` (same heap layout): its tests and labels, unused
        nodes predicting class 0, and ``t_i = 1 - v_i / w_i`` from the best response."""
        x = np.zeros(self.n_vars)
        split = np.full(self.n_inner, -1, dtype=np.int64)
        for n in range(self.n_nodes):
            if tree.feature[n] >= 0:
                split[n] = self.split_of[(int(tree.feature[n]), int(tree.threshold[n]))]
                x[self.b[n, split[n]]] = 1.0
            else:
                x[self.u[n, max(int(tree.label[n]), 0)]] = 1.0
        label = np.where(tree.feature < 0, tree.label, -1)
        v = self.response(np.concatenate([split, label]))[0]
        x[self.t] = 1.0 - v / self.w
        return x

    # ----------------------------------------------------------------- cuts
    def response(self, code: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The adversary's best response to the candidate: the weight flipped of each row,
        each row's cheapest misclassification and the point it moves to (``x'_i``); read-only
        arrays, kept for the next call with the same ``code``."""
        key = code.tobytes()
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        tree = self.tree(code, [""] * self.X.shape[1], np.arange(self.K))
        leaves, lo, hi = tree.boxes()
        dist = box_distances(self.X.astype(np.float64), self.costs, lo, hi)
        c, target = cheapest_wrong_leaves(dist, tree.label[leaves], self.y)
        v = flipped_rows(c, self.weights, self.budget)
        moved = np.clip(self.X, lo[target], hi[target]).astype(np.int64)
        for a in (v, c, moved):
            a.setflags(write=False)
        self._last = (key, (v, c, moved))
        return v, c, moved

    def bounds(self, code: np.ndarray) -> tuple[float, np.ndarray]:
        """The candidate's worst-case correct weight and each row's bound in the row family
        (0 where a free move flips it, else 1)."""
        v, c, _ = self.response(code)
        return self.total - float(v.sum()), np.where(c == 0.0, 0.0, 1.0)

    def cut_terms(self, code: np.ndarray, P: np.ndarray, yP: np.ndarray, a: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
        """``sum_j a_j E_j(P_j)`` as (ids, coefficients): for each point, the capacity of
        the cut around its path in the candidate (module docstring)."""
        split = code[:self.n_inner]
        S = len(self.feat)
        coef_b = np.zeros((self.n_inner, S))
        coef_u = np.zeros((self.n_nodes, self.K))
        G = P[:, self.feat] <= self.thr[None, :]  # (points, tests): the test sends it left
        here = np.zeros((self.n_nodes, len(P)), dtype=bool)
        here[0] = True
        for n in range(self.n_nodes):
            at = np.flatnonzero(here[n])
            if at.size == 0:
                continue
            aa = a[at]
            coef_u[n] += np.bincount(yP[at], weights=aa, minlength=self.K)  # sink arc
            if n >= self.n_inner:
                continue
            s = split[n]
            if s < 0:  # the path ends here: both child arcs, i.e. every test, are cut
                coef_b[n] += aa.sum()
                continue
            g = G[at]
            left = g[:, s]
            # off the path: the tests sending a left-going point right, and vice versa
            coef_b[n] += (aa * left) @ ~g + (aa * ~left) @ g
            here[2 * n + 1, at[left]] = True
            here[2 * n + 2, at[~left]] = True
        ids = np.r_[self.b.ravel(), self.u.ravel()]
        coefs = np.r_[coef_b.ravel(), coef_u.ravel()]
        keep = coefs != 0
        return ids[keep], coefs[keep]

    def cuts(self, code: np.ndarray) -> tuple[list[Row], float, np.ndarray]:
        """The candidate's scenario cut and row cuts, its worst-case correct weight and
        each row's bound in the row family (0 where a free move flips it, else 1)."""
        v, c, moved = self.response(code)
        kept = self.w - v
        nom, per = kept > 0, v > 0
        P = np.concatenate([self.X[nom], moved[per]])
        yP = np.concatenate([self.y[nom], self.y[per]])
        a = np.concatenate([kept[nom], v[per]])
        ids, coefs = self.cut_terms(code, P, yP, a)
        # sum_i w_i t_i - sum_i [(w_i - v_i) E_i(x_i) + v_i E_i(x'_i)] <= 0
        rows = [Row(np.r_[self.t, ids], np.r_[self.w, -coefs], rhs=0.0)]
        free = np.flatnonzero(c == 0.0)
        for i in free:  # t_i - E_i(x'_i) <= 0
            ids, coefs = self.cut_terms(code, moved[i:i + 1], self.y[i:i + 1], np.ones(1))
            rows.append(Row(np.r_[self.t[i], ids], np.r_[1.0, -coefs], rhs=0.0))
        return (rows, *self.bounds(code))

    def lp_cuts(self, x: np.ndarray) -> list[Row]:
        """``t_i <=`` the minimum cut of row ``i``'s own network at the fractional point
        ``x`` (arc capacities: the ``b`` of the tests passing it each way, ``u[n, y_i]`` to
        the sink; a dynamic program bottom-up), for the rows where it is violated: every
        cut of that network bounds ``correct_i(x_i)``, a row cut with no move."""
        b, u = x[self.b], x[self.u]
        G = self.goes_left
        cap_l, cap_r = G @ b.T, ~G @ b.T  # (n, inner)
        below = u[:, self.y].T.copy()  # (n, nodes): min cut below each node
        for n in range(self.n_inner - 1, -1, -1):
            below[:, n] += (np.minimum(cap_l[:, n], below[:, 2 * n + 1])
                            + np.minimum(cap_r[:, n], below[:, 2 * n + 2]))
        excess = x[self.t] - below[:, 0]
        rows = np.flatnonzero(excess > 1e-4)
        rows = rows[np.argsort(-excess[rows], kind="stable")][:LP_CUTS_MAX]
        out = []
        for i in rows:
            ids, coefs = [self.u[0, self.y[i]]], [1.0]
            stack = [0]
            while stack:  # the cut: an arc where it is cheaper than what lies below
                n = stack.pop()
                if n > 0:
                    ids.append(self.u[n, self.y[i]])
                    coefs.append(1.0)
                if n >= self.n_inner:
                    continue
                for child, cap, side in ((2 * n + 1, cap_l, G[i]), (2 * n + 2, cap_r, ~G[i])):
                    if cap[i, n] < below[i, child]:
                        s = np.flatnonzero(side)
                        ids += self.b[n, s].tolist()
                        coefs += [1.0] * len(s)
                    else:
                        stack.append(child)
            out.append(Row(np.r_[self.t[i], ids], np.r_[1.0, -np.array(coefs)], rhs=0.0))
        return out


class RobustCuts:
    """The lazy constraints of :class:`RobustMaster` (the ``LazyConstraints`` protocol)."""

    def __init__(self, master: RobustMaster) -> None:
        self.o = master

    def violated(self, x: np.ndarray) -> bool:
        """Exact at an integer point: ``t`` beyond the candidate's worst case or a row's
        free flip."""
        o = self.o
        worst, cap = o.bounds(o.decode(x))
        t = x[o.t]
        return bool((t > cap + TOL).any() or o.w @ t > worst + TOL * max(1.0, o.total))

    def separate(self, x: np.ndarray, integral: bool) -> list[Row]:
        """The cuts of the (rounded) candidate that ``x`` violates, each once."""
        o = self.o
        if not integral and LP_CUTS:
            rows = o.lp_cuts(x)
            o.stats["lp_cuts"] += len(rows)
            if rows or not FRACTIONAL:
                return rows
        code = o.decode(x)
        if integral:
            o.stats["candidates"] += 1
        rows, _, _ = o.cuts(code)
        out = []
        for k, r in enumerate(rows):
            excess = float(r.coefs @ x[r.ids])
            if excess <= (TOL if integral else 1e-4) * (max(1.0, o.total) if k == 0 else 1):
                continue
            key = np.r_[r.ids, r.coefs].tobytes()
            if key in o.seen:
                continue
            o.seen.add(key)
            o.stats["scenario_cuts" if k == 0 else "row_cuts"] += 1
            o.stats["fractional_cuts"] += not integral
            out.append(r)
        return out


def collapse(tree: IntegerTree) -> IntegerTree:
    """``tree`` with every subtree whose leaves share one label made a leaf (the same
    predictions everywhere, so the same worst case, and fewer branch nodes)."""
    feature, threshold, label = tree.feature.copy(), tree.threshold.copy(), tree.label.copy()

    def labels(n: int) -> set[int]:
        if feature[n] < 0:
            return {int(label[n])}
        found = labels(2 * n + 1) | labels(2 * n + 2)
        if len(found) == 1:
            feature[n], threshold[n], label[n] = -1, 0, next(iter(found))
            for child in (2 * n + 1, 2 * n + 2):
                feature[child], label[child] = -1, -1
        return found

    labels(0)
    keep = np.zeros(len(feature), dtype=bool)  # nodes reached from the root
    stack = [0]
    while stack:
        n = stack.pop()
        keep[n] = True
        if feature[n] >= 0:
            stack += [2 * n + 1, 2 * n + 2]
    feature[~keep], label[~keep], threshold[~keep] = -1, -1, 0
    return IntegerTree(feature, threshold, label, tree.classes, tree.low, tree.high,
                       tree.feature_names)


def _no_time() -> SolveResult:
    """The MIP not started: the time limit passed during the warm start (the master's rows
    and the start's cuts alone took 1-1.5 s on 20,000 rows)."""
    return SolveResult("no_solution", None, None, 0.0)


def _solve_master(master: RobustMaster, starts: list[IntegerTree], deadline: Deadline,
                  verbose: int) -> SolveResult:
    """SCIP on the master, each tree of ``starts`` given as a start with its cuts."""
    m = ScipModel(SolverOptions(threads=1, verbose=verbose), maximize=True)
    try:
        master.build(m)
        for tree in starts:
            x0 = master.start_values(tree)
            m.add_start(x0)
            m.add_rows(RobustCuts(master).separate(x0, integral=True))  # its cuts up front
        return m.solve(deadline)
    finally:
        m.free()


def solve_robust_mip(X: np.ndarray, y: np.ndarray, classes: np.ndarray, costs: np.ndarray,
                     budget: float, depth: int, lam: float, deadline: Deadline,
                     feature_names: list[str], weights: np.ndarray | None = None,
                     warm_start: bool = True, verbose: int = 0) -> FitResult:
    """The robust tree by the MIP (same inputs and :class:`FitResult` as
    :func:`.search.solve_robust_tree`): ``objective`` is the returned tree's worst case
    (recomputed by the adversary) minus the penalty, ``bound`` SCIP's dual bound, both in
    accuracy units; ``warm_start``: a short exact search's tree as the MIP's start."""
    start = time.perf_counter()
    master = RobustMaster(X, y, len(classes), costs, budget, depth, lam, weights)
    candidates: list[IntegerTree] = []
    stats: dict[str, Any] = {}
    if warm_start:
        warm = solve_robust_tree(X, y, classes, costs, budget, depth, lam,
                                 deadline.share(WARM_SHARE).within(WARM_SECONDS),
                                 feature_names, weights)
        candidates.append(warm.model)
        stats.update(warm_status=warm.status, warm_objective=warm.objective)
    result = _no_time() if deadline.expired() else _solve_master(master, candidates, deadline,
                                                                 verbose)
    if result.values is not None:
        candidates.append(master.tree(master.decode(result.values), feature_names, classes))
    if not candidates:  # nothing found in time: the best single leaf
        counts = np.bincount(y, weights=weights, minlength=len(classes))
        code = np.r_[np.full(master.n_inner, -1),
                     np.full(master.n_nodes, int(np.argmax(counts)))]
        candidates.append(master.tree(code, feature_names, classes))

    trees = [collapse(t) for t in candidates]
    corrects = [worst_case_correct(t, X, y, costs, budget, weights) for t in trees]
    scores = [c / master.total - lam * t.n_branches for c, t in zip(corrects, trees, strict=True)]
    k = max(range(len(trees)), key=lambda i: (scores[i], -trees[i].n_branches))  # ties: smaller
    best, objective, correct = trees[k], scores[k], corrects[k]
    bound = math.inf if result.bound is None else max(float(result.bound), objective)
    status = result.status
    if status == "no_solution":
        status = "interrupted" if deadline.stopped else "time_limit"
    stats.update(master.stats, method="mip", nodes=result.nodes, dual_bound=result.bound,
                 mip_objective=result.objective, splits=int(master.feat.size),
                 worst_case_correct=int(round(correct)) if weights is None else correct,
                 total_weight=master.total, branches=best.n_branches,
                 starts_accepted=result.stats.get("starts_accepted", []))
    return FitResult(best, status, objective, bound, time.perf_counter() - start, stats)
