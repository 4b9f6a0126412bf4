"""Branch-and-bound search over root features with a cache (MurTree §4, STreeD §4.3).

Maximizes ``weighted correct - L * leaves``.  A subtree's value is at most its best leaf or
the weight of its rows minus two leaf penalties; a node's optimum is at most the best over
the leaf and every split of the sum of its children's bounds (MurTree's lower bounds,
mirrored for a maximum).
Subtrees of depth ≤ 2 are solved by the frequency-count kernel of :mod:`.counts`.

Side constraints (issue #19): ``min_leaf`` (a split needs that many rows on each side) and a
leaf budget (``max_leaves``: the search runs over (rows, depth, budget), STreeD's node-budget
recursion).  Both only remove trees, so the leaf and weight bounds stay valid; the similarity
bound does not (a tree of S' need not be feasible on S) and is off under a constraint.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ....solvers.deadline import Deadline, TimeUp
from .cache import SubtreeCache
from .counts import Counter
from .data import BinaryData
from .distributed import distributed_roots
from .roots import Roots, parallel_roots
from .tree import Node, from_depth2

__all__ = ["NODE3_WORK", "Result", "Search"]

_NO_PATH = np.empty(0, np.int64)

NODE3_WORK = 2e7
"""Largest ``F * (F^2 * K + rows * F)`` of a depth-3 node solved in one compiled call
(:mod:`.node3`), which does not look at the deadline; larger ones run
:meth:`Search._branch`, which checks it between root features.  Measured: ionosphere QT_5
(351 rows, 129 features, 2 classes, 1.0e7) one call of 0.1 s on a loaded 2-core machine."""


@dataclass
class Result:
    """A subtree, its value and a proven upper bound on the optimum (``== value``: exact)."""

    value: float
    node: Node
    upper: float


@dataclass
class SearchStats:
    """Work counters of one search."""

    nodes: int = 0
    kernels: int = 0
    grams: int = 0
    pruned: int = 0
    timed_out: bool = False
    extra: dict = field(default_factory=dict)

    def add(self, other: SearchStats) -> None:
        """Count ``other``'s work in this one (a thread's, :mod:`.roots`)."""
        self.nodes += other.nodes
        self.kernels += other.kernels
        self.grams += other.grams
        self.pruned += other.pruned
        self.timed_out = self.timed_out or other.timed_out


class Search:
    """Exact search for one data set, leaf penalty and deadline (results cached across calls)."""

    def __init__(self, data: BinaryData, leaf_penalty: float, backend: str = "auto",
                 deadline: Deadline | None = None, order: bool = True,
                 min_leaf: int = 1, threads: int = 1, client: Any = None) -> None:
        self.d = data
        # the top node's root loop on threads (:mod:`.roots`) or a Dask client's workers
        # (:mod:`.distributed`)
        self.threads, self.client = int(threads), client
        self.L = float(leaf_penalty)
        self.m = int(min_leaf)
        self.counter = Counter(data, backend)
        # row counts for min_leaf: the weights themselves when all are 1
        self.rows_counter = (
            self.counter if self.m <= 1 or (self.counter.unit and data.gains is None) else
            Counter(replace(data, w=np.ones_like(data.w), gains=None), backend))
        self.deadline = deadline
        self.order = order
        self._node3 = None  # the compiled depth-3 node (:mod:`.node3`), numba only
        # under the memo's root (the highest node of depth >= 4): the depth-2 sides of its
        # compiled depth-3 nodes by literal set, the root's depth and the literals on the
        # way down from it (``_path[i]``: the one chosen at depth ``_memo_depth - i``)
        self._memo = None
        self._memo_depth = 0
        self._path = np.empty(0, np.int64)
        if self.counter.backend == "numba":
            from . import node3
            from .memo import Memo

            self._new_memo, self._no_memo = Memo, Memo(16)
            self._seen = self._no_memo  # sides other threads found (read only, .roots)
            if node3.ready():  # else compiled later (.warmup.compile_node3)
                self._node3 = node3.depth3_node
            self._gains = (np.zeros((1, 1)) if data.gains is None
                           else np.ascontiguousarray(data.gains, dtype=np.float64))
            scale = self.counter.scale
            self._scale = np.zeros(0) if scale is None else scale
        self.cache = SubtreeCache(data.X.shape[0])
        self.stats = SearchStats()
        scale = 1.0 + float(data.w.sum()) + 2.0 ** 6 * abs(self.L)
        self.tol = 1e-9 * scale

    # ------------------------------------------------------------------ helpers
    def _gram(self, rows: np.ndarray):
        """Counters of ``rows``; :class:`TimeUp` when the deadline passes while the numpy
        counters run (:meth:`solve` then answers with the leaf and its bound)."""
        self.stats.grams += 1
        return self.counter.gram(rows, self.deadline)

    def _expired(self) -> bool:
        if self.deadline is not None and self.deadline.expired():
            self.stats.timed_out = True
            return True
        return False

    def _prior(self, key: bytes, depth: int, budget: int | None = None) -> float:
        """The cache's upper bound of a subproblem (inf when unknown); a budget's optimum is
        at most the unbudgeted one."""
        entry = self.cache.get(key, depth)
        bound = math.inf if entry is None else entry.upper
        if budget is not None:
            entry = self.cache.get(key, (depth, budget))
            bound = bound if entry is None else min(bound, entry.upper)
        return bound

    def _feasible_splits(self, XsT: np.ndarray, n_rows: int, weight1: np.ndarray,
                         total: float) -> np.ndarray:
        """Features whose split leaves weight on both sides and ``min_leaf`` rows on each."""
        ok = (weight1 > 0) & (weight1 < total)
        if self.m > 1:
            n1 = XsT.sum(axis=1)
            ok &= (n1 >= self.m) & (n_rows - n1 >= self.m)
        return ok

    # ------------------------------------------------------------------ search
    def solve(self, rows: np.ndarray, depth: int, lower: float = -math.inf,
              key: bytes | None = None, gram=None, cap: float = math.inf,
              budget: int | None = None) -> Result:
        """Best subtree of depth ≤ ``depth`` and at most ``budget`` leaves (None: any) on
        ``rows`` when it can beat ``lower`` (else any tree with a bound ≤ ``lower``);
        ``gram`` optionally supplies the counters lazily, ``cap`` is a known upper bound."""
        self.stats.nodes += 1
        L, tol = self.L, self.tol
        if key is None:
            key = self.cache.key(rows)
        if budget is not None and budget >= 2**depth:
            budget = None  # no tree of this depth has more leaves
        level = depth if budget is None else (depth, budget)
        if budget is not None:
            cap = min(cap, self._prior(key, depth))
        entry = self.cache.get(key, level)
        if entry is not None and entry.exact:
            return Result(entry.value, entry.node, entry.value)
        scores, weight = self.d.scores(rows)
        leaf = float(scores.max()) - L
        # a tree is this leaf or has ≥ 2 leaves (≤ weight - 2L): the leaf-support bound of
        # OSDT (Hu et al. 2019) in weight units
        upper = min(max(leaf, weight - 2.0 * L), cap)
        if entry is not None:
            upper = min(upper, entry.upper)
        if depth == 0 or budget == 1 or leaf >= upper - tol:  # a leaf is optimal
            self.cache.put_exact(key, level, leaf, None)
            return Result(leaf, None, leaf)
        if upper <= lower + tol:  # cannot beat what the caller has
            self.stats.pruned += 1
            return Result(leaf, None, upper)
        if depth <= 2:
            try:
                G, t = gram() if gram is not None else self._gram(rows)
            except TimeUp:  # the deadline passed while counting: the leaf, its bound
                self.stats.timed_out = True
                return Result(leaf, None, upper)
            self.stats.kernels += 1
            C = (self.rows_counter.gram(rows)[0] if self.rows_counter is not self.counter
                 else G)  # row counts (min_leaf)
            if budget is not None:  # one Gram answers every budget: cache them all
                return self._depth2_budgets(G, t, C, rows, depth, key, budget)
            v, a, bl, br = self.counter.depth2(G, t, L, depth, tol, C, len(rows), self.m,
                                               budget)
            node = from_depth2(a, bl, br)
            self.cache.put_exact(key, level, v, node)
            return Result(v, node, v)
        if budget is not None:
            return self._branch_budget(rows, depth, budget, key, leaf, upper, lower)
        if depth == 3 and self._node3 is not None and self.order and \
                self._compiled_node_fits(len(rows)) and not self._expired():
            return self._compiled3(rows, key, leaf, upper, lower)
        return self._branch(rows, depth, key, leaf, upper, lower)

    def _compiled_node_fits(self, n_rows: int) -> bool:
        """Whether a depth-3 node of ``n_rows`` rows is small enough for one compiled call
        (:data:`NODE3_WORK`): the deadline is not checked inside it."""
        F = self.d.n_features
        return F * (F * F * self.d.n_classes + n_rows * F) <= NODE3_WORK

    def _compiled3(self, rows: np.ndarray, key: bytes, leaf: float, upper: float,
                   lower: float) -> Result:
        """:meth:`_branch` at depth 3 in one compiled call (:mod:`.node3`)."""
        d = self.d
        if self._memo is None:
            path, memo = _NO_PATH, self._no_memo
        else:
            path, memo = np.sort(self._path), self._memo
            memo.make_room(2 * d.n_features)  # the most sides one node keeps
        v, bound, f, a0, l0, r0, a1, l1, r1, kernels = self._node3(
            d.X, d.indptr, d.indices, d.y, d.w, rows, d.n_classes, self._gains,
            d.gains is not None, self.counter.unit, self._scale, self.L, self.tol, self.m,
            leaf, upper, lower, path, *memo.arrays(), *self._seen.arrays()[:3])
        self.stats.kernels += kernels
        self.stats.grams += 1
        node = None if f < 0 else (int(f), from_depth2(a0, l0, r0), from_depth2(a1, l1, r1))
        v, bound = float(v), float(bound)
        if bound <= v + self.tol:
            self.cache.put_exact(key, 3, v, node)
            return Result(v, node, v)
        self.cache.put_bound(key, 3, bound)
        return Result(v, node, bound)

    def _depth2_budgets(self, G, t, C, rows: np.ndarray, depth: int, key: bytes,
                        budget: int) -> Result:
        """A depth-2 subproblem of a budgeted search: the kernel for each budget 2 .. 2^depth
        on the same counters, all cached (a search with ``max_leaves`` meets other budgets of
        the same rows; a budget's Gram costs far more than its kernel); the result for
        ``budget``."""
        out = None
        for b in range(2, 2**depth + 1):
            v, a, bl, br = self.counter.depth2(G, t, self.L, depth, self.tol, C, len(rows),
                                               self.m, b)
            node = from_depth2(a, bl, br)
            self.cache.put_exact(key, (depth, b) if b < 2**depth else depth, v, node)
            if b == budget:
                out = Result(v, node, v)
        return out

    def _branch(self, rows: np.ndarray, depth: int, key: bytes, leaf: float,
                upper: float, lower: float) -> Result:
        """Try every root feature (depth ≥ 3), pruning with the children's bounds against
        the better of the incumbent and the caller's ``lower`` (MurTree's upper bound)."""
        opened = self._memo is None and self.open_memo(depth)
        try:
            return self._branch_roots(rows, depth, key, leaf, upper, lower)
        finally:
            if opened:
                self._memo, self._memo_depth = None, 0

    def open_memo(self, depth: int) -> bool:
        """Make a node of ``depth`` the memo's root: the compiled depth-3 nodes below share
        their depth-2 sides (:mod:`.node3`); False where there is none (depth < 4, no
        compiled node, keys past 64 bits)."""
        base = 2 * self.d.n_features + 1  # the memo's keys: depth - 2 literals, base ``base``
        if depth < 4 or self._node3 is None or base ** (depth - 2) >= 2**62:
            return False
        self._memo, self._memo_depth = self._new_memo(64 * self.d.n_features), depth
        self._path = np.full(depth - 3, -1, np.int64)
        return True

    def _step(self, depth: int, literal: int) -> None:
        """Record the literal chosen at a node of ``depth`` under the memo's root."""
        if self._memo is not None and 3 < depth <= self._memo_depth:
            self._path[self._memo_depth - depth] = literal

    def _branch_roots(self, rows: np.ndarray, depth: int, key: bytes, leaf: float,
                      upper: float, lower: float) -> Result:
        """:meth:`_branch`'s loop over the root features (on :attr:`threads` threads at the
        top of a search, :mod:`.roots`)."""
        tol = self.tol
        try:
            roots = Roots.prepare(self, rows, depth)
        except TimeUp:  # the deadline passed while counting: the leaf, its bound
            self.stats.timed_out = True
            return Result(leaf, None, upper)
        if self.client is not None and len(roots.feats) > 1:
            best, best_node, parts, complete = distributed_roots(self, roots, leaf, upper,
                                                                 lower)
        elif self.threads > 1 and len(roots.feats) > 1:
            best, best_node, parts, complete = parallel_roots(self, roots, leaf, upper, lower)
        else:
            best, best_node, parts = leaf, None, leaf
            floor = max(leaf, lower)  # what a split must beat to matter
            complete, stop = True, False
            for j in range(len(roots.feats)):
                if floor >= upper - tol:
                    complete = False  # the rest is bounded by ``upper`` ≤ best
                    break
                # after the deadline the remaining features only get their cheap bounds
                stop = stop or self._expired()
                bound, value, node = roots.step(self, j, floor, stop)
                parts = max(parts, bound)
                if value > best + tol:
                    best, best_node = value, node
                    floor = max(floor, best)
        bound = min(upper, parts) if complete else upper
        if bound <= best + tol:
            self.cache.put_exact(key, depth, best, best_node)
            return Result(best, best_node, best)
        self.cache.put_bound(key, depth, bound)
        return Result(best, best_node, bound)

    def _branch_budget(self, rows: np.ndarray, depth: int, budget: int, key: bytes,
                       leaf: float, upper: float, lower: float) -> Result:
        """Every root feature and every split of the leaf budget between its sides (depth ≥
        3, ``budget`` < 2^depth): the children's bounds prune against the incumbent."""
        tol, d, L = self.tol, self.d, self.L
        XsT = np.ascontiguousarray(d.X[rows].T).view(bool)
        w = d.w[rows]
        ones = XsT.astype(np.float64) @ w
        feats = np.flatnonzero(self._feasible_splits(XsT, len(rows), ones, float(w.sum())))
        half = 2 ** (depth - 1)
        best, best_node, parts = leaf, None, leaf
        floor = max(leaf, lower)
        complete = True
        for f in feats.tolist():
            if floor >= upper - tol or self._expired():
                complete = False
                break
            mask = XsT[f]
            sides = (rows[~mask], rows[mask])
            keys = tuple(self.cache.key(r) for r in sides)
            scores1, weight1 = d.scores(sides[1])
            leaf1 = float(scores1.max()) - L
            prior1 = max(leaf1, weight1 - 2.0 * L)
            for k0 in range(max(1, budget - half), min(half, budget - 1) + 1):
                k1 = budget - k0
                u1 = min(prior1 if k1 > 1 else leaf1,
                         self._prior(keys[1], depth - 1, k1))
                r0 = self.solve(sides[0], depth - 1, floor - u1, keys[0], budget=k0)
                if r0.upper + u1 <= floor + tol:
                    parts = max(parts, r0.upper + u1)
                    self.stats.pruned += 1
                    continue
                r1 = self.solve(sides[1], depth - 1, floor - r0.value, keys[1], budget=k1)
                parts = max(parts, r0.upper + r1.upper)
                if r0.value + r1.value > best + tol:
                    best, best_node = r0.value + r1.value, (f, r0.node, r1.node)
                    floor = max(floor, best)
        bound = min(upper, parts) if complete else upper
        level = (depth, budget)
        if bound <= best + tol:
            self.cache.put_exact(key, level, best, best_node)
            return Result(best, best_node, best)
        self.cache.put_bound(key, level, bound)
        return Result(best, best_node, bound)

    def _child_grams(self, rows: np.ndarray, sides: tuple[np.ndarray, np.ndarray],
                     parent: dict) -> tuple:
        """Lazy counters of both sides: the smaller computed directly, the larger as the
        parent's minus the smaller's (MurTree §4.4's incremental frequency counts)."""
        small = 0 if sides[0].size <= sides[1].size else 1
        memo: dict[int, tuple] = {}

        def get(s: int):
            if s not in memo:
                if s == small:
                    memo[s] = self._gram(sides[s])
                else:
                    if "G" not in parent:
                        parent["G"] = self._gram(rows)
                    Gp, tp = parent["G"]
                    Gs, ts = get(small)
                    memo[s] = (Gp - Gs, tp - ts)
            return memo[s]

        return (lambda: get(0)), (lambda: get(1))

    def feature_bounds(self, rows: np.ndarray, height: int) -> tuple[np.ndarray, float]:
        """``(U, U_leaf)``: for every feature f, a proven bound on the best depth-``height``
        subtree of ``rows`` that splits on f at its root (the optimum unless the deadline
        cut a side short), and the leaf's value: the coefficients of the split-bound rows
        (mip/accel/split_bound.py) at a node of any height ``height`` ≥ 1."""
        d = self.d
        u_leaf = float(d.scores(rows)[0].max()) - self.L
        U = np.empty(d.n_features)
        for f in range(d.n_features):
            mask = d.X[rows, f] == 1
            sides = [self.solve(r, height - 1) for r in (rows[~mask], rows[mask])]
            U[f] = sides[0].upper + sides[1].upper
        return U, u_leaf
