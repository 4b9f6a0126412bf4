"""Optimal trees with at most ``budget`` leaves over every threshold (``max_leaves``, issue #19).

The optimum ``V(S, d, B)`` of depth ``d`` and at most ``B`` leaves on rows ``S`` is the better
of the majority leaf and, over every root split ``c`` and every division ``k + (B − k)`` of the
budget between its children, ``V(L_c, d−1, k) + V(R_c, d−1, B−k)`` (STreeD's node-budget
recursion, here over numeric thresholds).  A budget of ``2^d`` or more constrains nothing; the
unbudgeted searches of :mod:`.deep` and :mod:`.depth2` take it.

Per root feature the split points are searched interval by interval from the middle, as in
:mod:`.deep`, with the same two bounds; both hold for every division ``k`` of the budget, so
for the maximum over divisions too:

* subinterval: for ``a < c < b``, ``L_c ⊆ L_b`` and ``R_c ⊆ R_a``, and ``V(·, d, k)`` only grows
  with the row set (a tree of the smaller set, applied to the larger, has as many leaves and
  at least the same correct weight), so ``V(c) ≤ max_k V(L_b, k) + V(R_a, B−k)``; the losses
  (weight − objective) grow too, which bounds ``V(c)`` from the other side;
* similarity: moving rows of weight ``W`` across the threshold raises every division's sum
  by at most ``W``, so split points within ``incumbent − V(a)`` weight of ``a`` cannot improve.

Children are solved against floors (what they must exceed for the split to beat the
incumbent), so a stored child value may be an upper bound only; the bounds above stay valid.
Under a minimum leaf size only the objective half of the subinterval bound is used: the other
two restrict a tree to fewer rows, where its leaves may become too small.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .context import Context, Subset
from .deep import solve_subtree
from .depth1 import FeatureSplits, best_child, split_threshold
from .depth2 import leaf_node, root_split_tree, stump_node
from .evaluate import StumpFinder, make_evaluator
from .search import Intervals, search_root, similar_interval, split_points
from .tree import Node

__all__ = ["BudgetSearch", "solve_budget"]


def solve_budget(ctx: Context, sub: Subset, depth: int, budget: int,
                 floor: float) -> tuple[float, Node | None]:
    """``(max(floor, v), tree)`` for the optimal objective ``v`` of a tree of depth ≤ ``depth``
    with at most ``budget`` leaves on the subset; ``tree`` is given when ``v > floor``."""
    depth = min(depth, budget - 1)        # a tree of B leaves is at most B − 1 deep
    if budget >= 2 ** depth or sub.view.n < 2:   # (budget 1 gives depth 0: a leaf)
        return _unbudgeted(ctx, sub, depth, floor)
    return BudgetSearch(ctx, sub, depth, budget, floor).run()


def _unbudgeted(ctx: Context, sub: Subset, depth: int, floor: float
                ) -> tuple[float, Node | None]:
    """:func:`solve_budget` when the budget constrains nothing."""
    if depth >= 2:
        return solve_subtree(ctx, sub, depth, floor)
    if depth == 1 and sub.view.n >= 2:
        finder = StumpFinder(sub.view, sub.ys, sub.ws, sub.cw, ctx.backend, ctx.min_leaf)
        child = best_child(finder(), ctx.pen)
        value, tree = child.objective, stump_node(child, sub.majority)
    else:
        value, tree = sub.leaf_correct - ctx.pen, leaf_node(sub)
    return (value, tree) if value > floor + ctx.eps else (floor, None)


@dataclass
class _Feature:
    """A started root feature: its split points and bounds on the children of each evaluated
    point per leaf count (``lv``/``rv``) and on the point's optimum (``value``)."""

    points: np.ndarray
    cw: np.ndarray            # weight left of each point
    ranks: np.ndarray         # rank of the last row left of each point
    lv: np.ndarray
    rv: np.ndarray
    value: np.ndarray

    @classmethod
    def of(cls, sub: Subset, f: int, min_leaf: int, budget: int) -> _Feature:
        """Feature ``f`` of the subset, nothing evaluated yet."""
        points, cw, ranks = split_points(sub.view, sub.ws, f, min_leaf)
        n = len(points)
        return cls(points, cw, ranks, np.full((n, budget + 1), np.inf),
                   np.full((n, budget + 1), np.inf), np.full(n, np.inf))


class BudgetSearch:
    """The search at one node for ``2 ≤ budget < 2^depth``; its state (incumbent, open
    intervals) stays readable after :class:`.context.Interrupted` (:meth:`open_bound`).
    ``best_first``: the root of the whole problem takes its intervals highest bound first
    (:class:`.search.Intervals`)."""

    def __init__(self, ctx: Context, sub: Subset, depth: int, budget: int, floor: float,
                 incumbent: Node | None = None, best_first: bool = False) -> None:
        self.ctx, self.sub, self.depth, self.budget = ctx, sub, depth, budget
        self.best, self.tree = floor, incumbent     # ``incumbent`` scores ``floor`` if given
        most = 2 ** (depth - 1)                     # most leaves a child can have
        self.divisions = [(k, budget - k) for k in range(max(1, budget - most),
                                                          min(most, budget - 1) + 1)]
        self.similar = ctx.min_leaf <= 1            # similarity and loss bounds allowed
        self.queue = Intervals(best_first, depth)
        self.features: dict[int, _Feature] = {}
        self.current = -np.inf
        self.started = False

    def open_bound(self) -> float:
        """Upper bound on the node's optimum from everything not yet searched."""
        if not self.started:
            return max(self.best, self.sub.leaf_correct - self.ctx.pen,
                       self.sub.total - 2.0 * self.ctx.pen)   # a split has two leaves
        return max(self.best, self.current, self.queue.bound())

    def run(self) -> tuple[float, Node | None]:
        """Search every root feature; ``(best, tree)`` (tree None if nothing beat the floor)."""
        ctx, sub, eps = self.ctx, self.sub, self.ctx.eps
        leaf = sub.leaf_correct - ctx.pen
        if leaf > self.best + eps:
            self.best, self.tree = leaf, leaf_node(sub)
        self.finder = StumpFinder(sub.view, sub.ys, sub.ws, sub.cw, ctx.backend, ctx.min_leaf)
        whole = self.finder()
        if self.depth == 2:                  # budget 3: one child a leaf, the other a stump
            # not ``started``: stopped inside, the bound is what the leaf count allows (the
            # root searches keep no open intervals)
            self._three_leaves(whole)
            return self.best, self.tree
        order = [int(f) for f in np.argsort(-whole.correct, kind="stable")
                 if np.isfinite(whole.correct[f])]
        self.started = True
        start = self._bound(-1, -1, None, None, None)
        if start > self.best + eps:
            for place, f in enumerate(order):
                self.queue.push(place, f, 0, None, -1, -1, start)
        while self.queue:
            self._step(*self.queue.pop())
        return self.best, self.tree

    def _three_leaves(self, whole: FeatureSplits) -> None:
        """Depth 2, budget 3: the compiled depth-2 root search (:func:`.search.search_root`)
        twice, once with each child kept a leaf; the better split becomes the incumbent."""
        ctx, sub = self.ctx, self.sub
        shallow = best_child(whole, ctx.pen)
        sweep = np.argsort(-whole.correct, kind="stable")
        for leaf_side in (0, 1):
            evaluate = make_evaluator(sub.view, sub.ys, sub.ws, sub.cw, ctx.pen, ctx.eps,
                                      ctx.backend, sweep, self.finder.arrays, ctx.min_leaf,
                                      leaf_side)
            found = search_root(sub.view, sub.ws, whole, shallow.objective, ctx.pen,
                                self.best, evaluate, ctx.eps, check=ctx.check)
            ctx.evaluations += found.evaluations
            if found.feature >= 0:
                self.best = found.objective
                self.tree = root_split_tree(ctx, sub, self.finder, found.feature, found.rank,
                                            leaf_side)

    def _bound(self, a: int, b: int, cw: np.ndarray, lv: np.ndarray, rv: np.ndarray) -> float:
        """Subinterval bound on the split points strictly between evaluated ``a`` and ``b``
        (``-1``: none); ``lv[i, k]``/``rv[i, k]`` bound the children of point ``i`` with ``k``
        leaves."""
        pen, total = self.ctx.pen, self.sub.total
        objective = -np.inf
        loss = np.inf
        for k0, k1 in self.divisions:
            objective = max(objective, (lv[b, k0] if b >= 0 else total - pen)
                            + (rv[a, k1] if a >= 0 else total - pen))
            loss = min(loss, (cw[a] - lv[a, k0] if a >= 0 else pen)
                       + (total - cw[b] - rv[b, k1] if b >= 0 else pen))
        # whatever the leaf size: the children's weights sum to the total, each has a leaf
        objective = min(objective, total - 2.0 * pen)
        return min(objective, total - loss) if self.similar else objective

    def _step(self, place: int, f: int, lo: int, hi: int | None, a: int, b: int,
              ub: float) -> None:
        """Evaluate the middle split point of an open interval, as in :mod:`.deep`, and
        queue the two halves left of it and right of it."""
        ctx, eps = self.ctx, self.ctx.eps
        if ub <= self.best + eps:
            return
        feat = self.features.get(f)
        if feat is None:
            feat = self.features[f] = _Feature.of(self.sub, f, ctx.min_leaf, self.budget)
        if hi is None:
            hi = len(feat.points) - 1
        cw, lv, rv, value = feat.cw, feat.lv, feat.rv, feat.value
        if self.similar:
            lo, hi = similar_interval(cw, lo, hi, a, b, self.best - value[a],
                                      self.best - value[b], eps)
        if lo > hi:
            return
        self.current = ub
        mid = (lo + hi) // 2
        ctx.check()
        half = max(cw[mid] - cw[lo], cw[hi] - cw[mid])
        self._evaluate(f, int(feat.ranks[mid]), mid, a, b, cw, lv, rv, half)
        ctx.evaluations += 1
        value[mid] = max(lv[mid, k0] + rv[mid, k1] for k0, k1 in self.divisions)
        self.current = -np.inf
        for lo2, hi2, a2, b2 in ((lo, mid - 1, a, mid), (mid + 1, hi, mid, b)):
            if lo2 <= hi2:
                bound = min(ub, self._bound(a2, b2, cw, lv, rv))
                if bound > self.best + eps:
                    self.queue.push(place, f, lo2, hi2, a2, b2, bound)

    def _evaluate(self, f: int, r: int, mid: int, a: int, b: int, cw: np.ndarray,
                  lv: np.ndarray, rv: np.ndarray, half: float) -> None:
        """Children of the split ``rank[f] <= r`` for every division of the budget: their
        bounds into ``lv[mid]``/``rv[mid]``, and the split as incumbent when it beats it;
        ``half``: the weight between this point and the far end of its interval."""
        ctx, sub, eps = self.ctx, self.sub, self.ctx.eps
        pen, total = ctx.pen, sub.total
        # what the neighbours allow each child per leaf count (subinterval, similarity)
        l_ub = np.full(self.budget + 1, cw[mid] - pen)
        r_ub = np.full(self.budget + 1, total - cw[mid] - pen)
        if b >= 0:
            l_ub = np.minimum(l_ub, lv[b])
            r_ub = np.minimum(r_ub, rv[b] + cw[b] - cw[mid]) if self.similar else r_ub
        if a >= 0:
            r_ub = np.minimum(r_ub, rv[a])
            l_ub = np.minimum(l_ub, lv[a] + cw[mid] - cw[a]) if self.similar else l_ub
        children = _Children(self, f, r)
        # each child's largest budget first: it bounds the smaller ones and often answers
        # them (its tree may have fewer leaves)
        k0s, k1s = [k0 for k0, _ in self.divisions], [k1 for _, k1 in self.divisions]
        children.solve(0, max(k0s), self.best - r_ub[k1s].max(), l_ub[max(k0s)])
        children.solve(1, max(k1s), self.best - l_ub[k0s].max(), r_ub[max(k1s)])
        # per division ConTree's order of :meth:`.deep.NodeSearch._evaluate`: the heavier
        # child first, the lighter one with the slack ``half`` (one failure closes the
        # interval when every division fails)
        first = 0 if cw[mid] >= total - cw[mid] else 1
        second = 1 - first
        ubs, stored = (l_ub, r_ub), (lv, rv)
        for division in self.divisions:
            k1, k2 = division[first], division[second]
            v1, t1 = children.solve(first, k1, self.best - ubs[second][k2], ubs[first][k1])
            floor2 = self.best - v1 - half
            if t1 is None and floor2 >= ubs[second][k2] - eps:
                v2, t2 = min(ubs[second][k2], children.bound(second, k2)), None
            else:
                v2, t2 = children.solve(second, k2, floor2, ubs[second][k2])
            stored[first][mid, k1] = min(stored[first][mid, k1], v1)
            stored[second][mid, k2] = min(stored[second][mid, k2], v2)
            if t1 is not None and t2 is not None and v1 + v2 > self.best + eps:
                thr = split_threshold(sub.view.X[:, f], sub.view.rank[f] <= r)
                left, right = (t1, t2) if first == 0 else (t2, t1)
                self.best = v1 + v2
                self.tree = Node(sub.majority, f, thr, left, right)


class _Children:
    """The two children of one root split, built on first use, and what is known of their
    optima per leaf count; depth-1 children are read off the parent's
    :class:`.evaluate.StumpFinder` (no subset of their own)."""

    def __init__(self, search: BudgetSearch, f: int, r: int) -> None:
        self.search, self.f, self.r = search, f, r
        self.local = search.sub.view.rank[f] <= r            # left side, parent's rows
        self.subsets: list[Subset | None] = [None, None]
        # per side: leaf count -> (value, tree); tree None: value only bounds the optimum
        self.known: list[dict] = [{}, {}]

    def bound(self, side: int, budget: int) -> float:
        """Least known upper bound on the child's optimum with ``budget`` leaves (optima only
        grow with the budget)."""
        return min((v for k, (v, _) in self.known[side].items() if k >= budget),
                   default=np.inf)

    def solve(self, side: int, budget: int, floor: float,
              ceiling: float = np.inf) -> tuple[float, Node | None]:
        """``(value, tree)`` of child ``side`` (0 left, 1 right) with at most ``budget``
        leaves: its optimum and tree when that beats ``floor``, else ``(bound, None)`` with
        an upper bound ≤ ``floor``; ``ceiling`` is a known upper bound on the optimum."""
        eps = self.search.ctx.eps
        for k, (value, tree) in self.known[side].items():
            if k >= budget and tree is not None and tree.n_leaves <= budget:
                return (value, tree) if value > floor + eps else (min(value, floor), None)
        cap = min(ceiling, self.bound(side, budget))
        if cap <= floor + eps:
            return cap, None
        value, tree = self._solve(side, budget, floor)
        value = value if tree is not None else min(value, cap)
        self.known[side][budget] = (value, tree)
        return value, tree

    def _solve(self, side: int, budget: int, floor: float) -> tuple[float, Node | None]:
        """:func:`solve_budget` of the child, without what is known."""
        s = self.search
        ctx, depth = s.ctx, s.depth - 1
        member = self.local if side == 0 else ~self.local
        if depth == 1:
            cw = s.sub.cw[member]
            totals = cw.sum(axis=0)
            majority = int(totals.argmax()) if totals.size else 0
            value, tree = float(totals.max(initial=0.0)) - ctx.pen, Node(majority)
            if budget >= 2 and np.count_nonzero(member) >= 2:
                child = best_child(s.finder(member), ctx.pen)
                value, tree = child.objective, stump_node(child, majority)
            return (value, tree) if value > floor + ctx.eps else (floor, None)
        if self.subsets[side] is None:
            in_left = ctx.data.rank[self.f] <= self.r
            self.subsets[side] = ctx.subset(s.sub.mask & (in_left if side == 0 else ~in_left))
        return solve_budget(ctx, self.subsets[side], depth, budget, floor)
