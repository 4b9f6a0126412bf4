"""Branch-and-bound over the root thresholds of a depth-``d ≥ 3`` tree (ConTree's general case).

At a node of depth budget ``d`` the candidates are its majority leaf and every root split
``rank[f] <= r`` with optimal depth-``(d-1)`` children, found recursively (the depth-2 solver
of :mod:`.depth2` at the bottom).  Per feature the split points (positions where the sorted
values change) are searched interval by interval from the midpoint, exactly as the depth-2
root search of :mod:`.search`, with the same two bounds (ConTree, arXiv 2501.07903, §4.1-4.2,
restated for weights and a leaf penalty):

* similarity: moving rows of total weight ``W`` across the threshold changes the sum of the
  children's optima by at most ``W``, so split points within ``incumbent − value`` weight of
  an evaluated point cannot improve;
* subinterval: for ``a < c < b`` the left child of ``c`` is a subset of the left child of
  ``b`` and the right child a subset of the right child of ``a``; optima only grow with the
  row set (and losses too), which bounds every point strictly between ``a`` and ``b``.

Children are solved against floors (what they must exceed for the split to beat the
incumbent, ConTree's upper bound passed down), so a child's value may only be an upper bound;
both bounds above remain valid with upper bounds in place of exact values.  The two children
of a split are solved as ConTree's ``solve_split`` does (:meth:`NodeSearch._evaluate`: the
heavier first; the lighter one with a slack that lets one failed child close its whole
interval), each with two head starts that are not in the paper: the children trees of the
evaluated neighbouring split points re-fitted to its rows (:func:`.tree.refit`; neighbours
differ by a few rows, so this is often already optimal) and a ceiling from the neighbours'
values (both bounds above applied to one child), at which its search stops.  Every
evaluation checks the deadline; :meth:`NodeSearch.open_bound` then bounds what was left
unsearched, the root of the whole problem taking its intervals highest bound first so that
this bound keeps falling (:class:`NodeSearch`).

With a minimum leaf size the candidates are the split points leaving enough rows on both
sides, and the bounds that restrict a tree to fewer rows (similarity, the loss half of the
subinterval bound) take the children's optima without the minimum leaf size, as in
:mod:`.search`: each evaluated child is also searched without it, only to beat its
constrained value (:meth:`NodeSearch._free`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .context import Context, LateIncumbent, Subset
from .depth1 import split_threshold
from .depth2 import leaf_node, solve_depth2
from .evaluate import StumpFinder
from .search import Intervals, similar_interval, split_points
from .tree import Node, refit

__all__ = ["NodeSearch", "solve_subtree"]


def solve_subtree(ctx: Context, sub: Subset, depth: int, floor: float,
                  incumbent: tuple[float, Node] | None = None,
                  ceiling: float = np.inf) -> tuple[float, Node | None]:
    """``(max(floor, v), tree)`` for the optimal depth-≤``depth`` objective ``v`` of the
    subset; ``tree`` is given when ``v > floor`` (else None).  ``incumbent``: a tree of the
    subset and its score to start from; ``ceiling``: a known upper bound on ``v``."""
    if depth <= 2:
        if depth < 2:
            raise ValueError("the deep search needs depth ≥ 2")
        return solve_depth2(ctx, sub, floor, incumbent=incumbent, ceiling=ceiling)
    if incumbent is not None and incumbent[0] > floor + ctx.eps:
        return NodeSearch(ctx, sub, depth, incumbent[0], incumbent[1], ceiling).run()
    return NodeSearch(ctx, sub, depth, floor, ceiling=ceiling).run()


@dataclass
class _Feature:
    """A started feature of a node: its split points and what their evaluation gave."""

    points: np.ndarray        # split points (rows going left)
    cw: np.ndarray            # weight left of each point
    ranks: np.ndarray         # rank of the last row left of each point
    left_ub: np.ndarray       # upper bounds on the children's optima, per evaluated point
    right_ub: np.ndarray
    free: tuple               # both without the minimum leaf size (the same arrays if none)
    trees: list               # children found per point: head starts for its neighbours

    @classmethod
    def of(cls, sub: Subset, f: int, min_leaf: int, separate_free: bool) -> _Feature:
        """Feature ``f`` of the subset, nothing evaluated yet."""
        points, cw, ranks = split_points(sub.view, sub.ws, f, min_leaf)
        left_ub, right_ub = np.empty(len(points)), np.empty(len(points))
        free = (np.empty(len(points)), np.empty(len(points))) if separate_free else \
            (left_ub, right_ub)
        return cls(points, cw, ranks, left_ub, right_ub, free, [None] * len(points))


class NodeSearch:
    """The search at one node; its state (incumbent, open intervals) stays readable after an
    :class:`.context.Interrupted` so the caller can still report a tree and an upper bound.

    Intervals are taken in :class:`.search.Intervals`' order: feature by feature below the
    root of the whole problem, highest bound first at it (``best_first``).  Measured
    (evaluations of depth-2 root splits, against feature by feature): depth 3 breast-cancer
    42,850 → 37,977, seismic-bumps 98,921 → 87,382, letter 8,412 → 8,308, ionosphere 68,070
    → 68,082; HTRU_2 depth 3 stopped at 60 s with 0.9808 and bound 0.9810 instead of 1.0.
    Depth 4 best first from the start cost 3-7× where one feature holds a perfect tree
    (breast-cancer 32,006 → 210,199, banknote 2,909 → 8,729); with the first feature first
    it is unchanged there and ionosphere takes 1,255,729 against 1,227,977."""

    def __init__(self, ctx: Context, sub: Subset, depth: int, floor: float,
                 incumbent: Node | None = None, ceiling: float = np.inf,
                 best_first: bool = False, late: LateIncumbent | None = None) -> None:
        self.ctx, self.sub, self.depth = ctx, sub, depth
        self.late = late                          # a tree of this node computed later
        self.best, self.tree = floor, incumbent   # ``incumbent`` scores ``floor`` if given
        self.ceiling = ceiling                    # known upper bound: stop once reached
        pen = ctx.pen
        # any child's depth-(d-1) objective is at most this (refined for d = 3 in run())
        self.child_bound = sub.total - pen
        self.feature_bound = sub.total - 2.0 * pen    # a root split has ≥ 2 leaves
        self.queue = Intervals(best_first, depth)      # open intervals
        self.features: dict[int, _Feature] = {}        # the started features' points
        self.current = -np.inf                         # bound of the interval being evaluated
        self.started = False
        # the same problem without the minimum leaf size (None: there is none)
        self.free_ctx = replace(ctx, min_leaf=1) if ctx.min_leaf > 1 else None

    # ------------------------------------------------------------------ bounds
    def open_bound(self) -> float:
        """Upper bound on the node's optimum from everything not yet searched."""
        if not self.started:
            return max(self.best, self.sub.total - self.ctx.pen)
        return max(self.best, self.current, self.queue.bound())

    # ------------------------------------------------------------------ search
    def run(self) -> tuple[float, Node | None]:
        """Search every feature; return ``(best, tree)`` (tree None if nothing beat the floor)."""
        ctx, sub, eps = self.ctx, self.sub, self.ctx.eps
        if min(self.ceiling, sub.total - ctx.pen) <= self.best + eps:
            self.started = True
            return self.best, self.tree
        leaf = sub.leaf_correct - ctx.pen
        if leaf > self.best + eps:
            self.best, self.tree = leaf, leaf_node(sub)
        finder = StumpFinder(sub.view, sub.ys, sub.ws, sub.cw, ctx.backend, ctx.min_leaf)
        whole = finder()
        if self.depth == 3:
            # the depth-2 optimum is a depth-3 candidate and bounds every depth-2 child
            value, tree = solve_depth2(ctx, sub, self.best, finder, whole, ceiling=self.ceiling)
            self.child_bound = min(self.child_bound, value)
            if tree is not None:
                self.best, self.tree = value, tree
        order = [int(f) for f in np.argsort(-whole.correct, kind="stable")
                 if np.isfinite(whole.correct[f])]
        self.started = True
        if sub.view.n >= 2:
            start = min(self.feature_bound, 2.0 * self.child_bound)
            for place, f in enumerate(order):
                self._queue(place, f, 0, None, -1, -1, start)
        while self.queue and self.best < self.ceiling - eps:
            self.adopt_late()
            self._step(*self.queue.pop())
        self.queue = Intervals()
        return self.best, self.tree

    def adopt_late(self) -> None:
        """Take the late incumbent once it is computed and better (as if an evaluation had
        found it: every bound stays valid, the pruning only gets stronger)."""
        late = self.late
        if late is not None and late.result is not None:
            self.late = None
            if late.result[0] > self.best + self.ctx.eps:
                self.best, self.tree = late.result

    def _queue(self, place: int, f: int, lo: int, hi: int | None, a: int, b: int,
               ub: float) -> None:
        """Queue an interval (:class:`.search.Intervals`) unless its bound ``ub`` already
        rules it out."""
        if ub > self.best + self.ctx.eps:
            self.queue.push(place, f, lo, hi, a, b, ub)

    def _push(self, place: int, f: int, feat: _Feature, lo: int, hi: int, a: int,
              b: int, outer: float) -> None:
        """Queue ``lo..hi`` of a started feature with its subinterval bound (at most
        ``outer``, the bound of the interval it came from)."""
        pen, total, cb = self.ctx.pen, self.sub.total, self.child_bound
        cw, free = feat.cw, feat.free
        # losses (weight − objective) only grow with the row set: left(c) ⊇ left(a) ...
        loss = (cw[a] - free[0][a] if a >= 0 else pen) + \
            (total - cw[b] - free[1][b] if b >= 0 else pen)
        # ... and objectives too: left(c) ⊆ left(b), right(c) ⊆ right(a)
        ub = min(outer, total - loss, (feat.left_ub[b] if b >= 0 else cb) +
                 (feat.right_ub[a] if a >= 0 else cb))
        self._queue(place, f, lo, hi, a, b, ub)

    def _step(self, place: int, f: int, lo: int, hi: int | None, a: int, b: int,
              ub: float) -> None:
        """Evaluate the middle split point of an open interval and queue the two halves
        left of it and right of it.  The middle point first, as ConTree does, not the best
        stump's threshold as the depth-2 search does (breast-cancer depth 4: 3.4 → 1.5 s by
        this alone; that threshold splits it 379 / 190 rows)."""
        ctx, eps, pen, total = self.ctx, self.ctx.eps, self.ctx.pen, self.sub.total
        if ub <= self.best + eps:
            return
        feat = self.features.get(f)
        if feat is None:
            feat = self.features[f] = _Feature.of(self.sub, f, ctx.min_leaf,
                                                  self.free_ctx is not None)
        if hi is None:
            hi = len(feat.points) - 1
        cw, free = feat.cw, feat.free
        # similarity bounds from the evaluated neighbours shrink the interval
        lo, hi = similar_interval(
            cw, lo, hi, a, b, self.best - (free[0][a] + free[1][a]) if a >= 0 else 0.0,
            self.best - (free[0][b] + free[1][b]) if b >= 0 else 0.0, eps)
        if lo > hi:
            return
        self.current = ub
        mid = (lo + hi) // 2
        ctx.check()
        # the children of ``mid`` are subsets of those of the evaluated neighbours (the
        # subinterval bound) and differ from them by the rows in between (similarity)
        l_ub = min(cw[mid] - pen, self.child_bound)
        r_ub = min(total - cw[mid] - pen, self.child_bound)
        if a >= 0:
            l_ub = min(l_ub, free[0][a] + cw[mid] - cw[a])
            r_ub = min(r_ub, feat.right_ub[a])
        if b >= 0:
            l_ub = min(l_ub, feat.left_ub[b])
            r_ub = min(r_ub, free[1][b] + cw[b] - cw[mid])
        near = [feat.trees[k] for k in (a, b) if k >= 0 and feat.trees[k] is not None]
        half = max(cw[mid] - cw[lo], cw[hi] - cw[mid])   # weight to the interval's ends
        feat.left_ub[mid], feat.right_ub[mid], feat.trees[mid], l_free, r_free = \
            self._evaluate(f, int(feat.ranks[mid]), l_ub, r_ub, near, half)
        if self.free_ctx is not None:
            free[0][mid], free[1][mid] = l_free, r_free
        self.current = -np.inf
        if lo < mid:
            self._push(place, f, feat, lo, mid - 1, a, mid, ub)
        if mid < hi:
            self._push(place, f, feat, mid + 1, hi, mid, b, ub)

    def _evaluate(self, f: int, r: int, l_ub: float, r_ub: float, near: list,
                  half: float) -> tuple[float, float, tuple | None, float, float]:
        """Upper bounds on the optimal children of the split ``rank[f] <= r`` (exact when
        found), the children's trees (None when pruned) and, under a minimum leaf size, upper
        bounds on the children's optima without it (:meth:`_free`); the split becomes the
        incumbent when it beats it.  ``l_ub``/``r_ub`` bound the children; ``near`` holds the
        children trees of evaluated neighbouring split points, which re-fitted to these rows
        give each child a head start (neighbouring children differ by a few rows only);
        ``half``: the weight between this point and the far end of its interval.

        ConTree's order (``GeneralSolver::solve_split``): the heavier child first, against the
        incumbent less the most its sibling can score; then the other against the incumbent
        less the first one's value less ``half``.  When that floor is not met the split is
        bounded by ``incumbent − half``, and the similarity bound drops the whole interval
        at once; children are never solved exactly for their own sake.  Measured with the
        middle-point start (breast-cancer depth 4, evaluations of depth-2 root splits):
        85,879 before, 32,006 after (ConTree 30,019); ionosphere depth 4 proved in 28 s
        (ConTree 27.6 s; before: not in 60 s)."""
        if self.free_ctx is not None:
            return self._evaluate_min_leaf(f, r, l_ub, r_ub, near)
        ctx, sub, eps = self.ctx, self.sub, self.ctx.eps
        in_left = ctx.data.rank[f] <= r
        children = (ctx.subset(sub.mask & in_left), ctx.subset(sub.mask & ~in_left))
        bounds = (l_ub, r_ub)
        first = 0 if children[0].total >= children[1].total else 1
        second = 1 - first
        values: list[float] = [0.0, 0.0]
        trees: list[Node | None] = [None, None]
        for side, floor in ((first, self.best - bounds[second]), (second, None)):
            if floor is None:                      # the lighter child, with the slack
                floor = self.best - values[first] - half
                if trees[first] is None and floor >= bounds[second] - eps:
                    values[second] = bounds[second]    # it cannot lower its bound further
                    break
            child = children[side]
            values[side], trees[side] = solve_subtree(
                ctx, child, self.depth - 1, floor,
                self._head_start(child, [t[side] for t in near]), bounds[side])
            if trees[side] is None:
                values[side] = min(values[side], bounds[side])
        lv, rv = values
        if trees[0] is None or trees[1] is None:
            return lv, rv, None, lv, rv
        if lv + rv > self.best + eps:
            self.best = lv + rv
            self.tree = self._split_node(f, r, trees[0], trees[1])
        return lv, rv, (trees[0], trees[1]), lv, rv

    def _evaluate_min_leaf(self, f: int, r: int, l_ub: float, r_ub: float,
                           near: list) -> tuple[float, float, tuple | None, float, float]:
        """:meth:`_evaluate` under a minimum leaf size: the left child first, then the right.
        Children must beat ``incumbent − (most the sibling can score) − slack`` to matter.
        Measured (breast-cancer, ionosphere, banknote, before the scheme of
        :meth:`_evaluate`): depth-2 children are best solved exactly (their exact values feed
        the similarity bound, slack ∞); deeper children against the floor (slack 0)."""
        ctx, sub, eps = self.ctx, self.sub, self.ctx.eps
        in_left = ctx.data.rank[f] <= r
        slack = np.inf if self.depth == 3 else 0.0
        left = ctx.subset(sub.mask & in_left)
        lv, lt = solve_subtree(ctx, left, self.depth - 1, self.best - r_ub - slack,
                               self._head_start(left, [t[0] for t in near]), l_ub)
        if lt is None:                 # the left child cannot make up the gap: split pruned
            lv = min(lv, l_ub)
            return lv, r_ub, None, self._free(left, lv), sub.total - left.total - ctx.pen
        right = ctx.subset(sub.mask & ~in_left)
        rv, rt = solve_subtree(ctx, right, self.depth - 1, self.best - lv - slack,
                               self._head_start(right, [t[1] for t in near]), r_ub)
        if rt is None:
            rv = min(rv, r_ub)
            return lv, rv, None, self._free(left, lv), self._free(right, rv)
        if lv + rv > self.best + eps:
            self.best = lv + rv
            self.tree = self._split_node(f, r, lt, rt)
        return lv, rv, (lt, rt), self._free(left, lv), self._free(right, rv)

    def _split_node(self, f: int, r: int, left: Node, right: Node) -> Node:
        """The node splitting this subset at ``rank[f] <= r`` into ``left`` and ``right``."""
        thr = split_threshold(self.sub.view.X[:, f], self.sub.view.rank[f] <= r)
        return Node(self.sub.majority, f, thr, left, right)

    def _free(self, child: Subset, value: float) -> float:
        """Upper bound on the child's optimum without the minimum leaf size, given an upper
        bound ``value`` on its optimum with it: ``max(value, free optimum)``, by a search that
        only has to beat ``value`` (``value`` itself when there is no minimum leaf size)."""
        if self.free_ctx is None:
            return value
        return solve_subtree(self.free_ctx, child, self.depth - 1, value)[0]

    def _head_start(self, child: Subset, trees: list[Node]) -> tuple[float, Node] | None:
        """The best of ``trees`` re-fitted to the child's rows (:func:`.tree.refit`)."""
        best = None
        rows = np.arange(child.view.n)
        for tree in trees:
            cand = refit(tree, child.view.X, child.ys, child.ws, self.ctx.n_classes, rows,
                         self.ctx.pen, self.ctx.min_leaf)
            if best is None or cand[0] > best[0]:
                best = cand
        return best
