"""The exact search over every threshold for an objective with additive row statistics:
branch and bound over the root split's sorted positions (inside a subproblem one feature
at a time; at the root of the whole problem the intervals of all features, least bound
first, so that a stopped search's bound rises).

A tree of depth ``d`` is a leaf or a root split with children of depth ``d - 1`` solved on
their rows (depth 1: :func:`~.stump.stump`, every split at once from prefix sums).  The
positions of one feature are searched by intervals, as in ConTree (Brita, van der Linden &
Demirović, arXiv 2501.07903): moving the split right adds rows to the left child and takes
them from the right one, and a subset's optimum (with no leaf-size limit) is at most its
superset's (the superset's tree restricted to it, empty leaves pruned, is no dearer).  So
for positions ``a <= p <= b`` and evaluated positions ``e <= a`` and ``e' >= b``,
``cost(p) >= free_left(e) + free_right(e')``: an interval whose bound reaches the incumbent
holds no better split.  Under ``min_leaf`` or a leaf budget the bounds are the children's
optima without them (those are monotone; the constrained ones are not).
"""

from __future__ import annotations

import bisect
import heapq
from dataclasses import dataclass, field

import numpy as np

from ....solvers.deadline import Deadline, TimeUp, check_deadline
from .data import GAIN, RegressionData, Tree, children
from .dense import DENSE_LIMIT, depth2
from .depth2_front import depth2_front, depth2_single
from .kernels import FEATURE_WORK_LIMIT, KERNEL_LIMIT, stump_compiled
from .stump import stump

ABOVE = ("above",)
"""The tree of a subproblem whose optimum is not below the upper bound it was given."""

TOLERANCE = 1e-12
"""An interval whose bound is within this of the incumbent is closed (costs are in units
of the root's total, about 1 for a normalised objective)."""

SEGMENT_ROWS = 32
"""Fewest rows of a subproblem whose k-means floor is computed (below, the exact depth-2
kernels cost about what the floor does)."""

TIE_SLACK = 1e-9
"""How far above a given start's cost the search still looks for trees (ties)."""


@dataclass
class Intervals:
    """The open position intervals of one feature of one subset, and the free costs of the
    children at the positions evaluated so far (sorted by position)."""

    f: int
    ranks: np.ndarray
    positions: np.ndarray
    stack: list[tuple[int, int]] = field(default_factory=list)
    done: list[int] = field(default_factory=list)
    free_left: list[float] = field(default_factory=list)
    free_right: list[float] = field(default_factory=list)

    def bound(self, i: int, j: int, leaf: float, floor: float) -> float:
        """Lower bound on the cost of every split at positions ``i..j`` of ``positions``
        (``leaf``: the least cost of a child, ``floor``: of both children together)."""
        a, b = self.positions[i], self.positions[j]
        k = bisect.bisect_right(self.done, a) - 1
        left = self.free_left[k] if k >= 0 else leaf
        k = bisect.bisect_left(self.done, b)
        right = self.free_right[k] if k < len(self.done) else leaf
        return max(left + right, floor)

    def record(self, p: int, free_left: float, free_right: float) -> None:
        k = bisect.bisect_left(self.done, p)
        self.done.insert(k, p)
        self.free_left.insert(k, free_left)
        self.free_right.insert(k, free_right)

    def open_bound(self, leaf: float, floor: float) -> float:
        """The least bound of the intervals still open (inf: none)."""
        return min((self.bound(i, j, leaf, floor) for i, j in self.stack), default=np.inf)


class RegressionSearch:
    """Optimal trees of a given depth on subsets of ``data``; a shared ``deadline`` raises
    :class:`TimeUp` from any depth (the caller keeps what was proved)."""

    def __init__(self, data: RegressionData, deadline: Deadline | None = None,
                 dense_limit: int = DENSE_LIMIT) -> None:
        self.data = data
        self.deadline = deadline
        self.dense_limit = dense_limit
        self.evaluations = 0
        self.pruned = 0  # subproblems closed by the objective's floors (k-means)

    def solve(self, order: np.ndarray, depth: int, min_leaf: int, ub: float = np.inf,
              budget: int | None = None) -> tuple[float, float, Tree]:
        """``(cost, free_cost, tree)`` of the best tree of depth <= ``depth`` with at most
        ``budget`` leaves (None: no limit) on the subset (``free_cost``: a lower bound on
        the optimum without leaf-size limit or budget, for supersets).  Above depth 1, with
        an upper bound ``ub`` below the optimum, ``tree`` is :data:`ABOVE` (none cheaper
        than ``ub``) and ``cost`` a lower bound on the optimum of at least ``ub`` (``ub``,
        or the k-means floor when that closed the subset unsearched)."""
        F, m = order.shape
        if budget is not None and budget >= 2 ** depth:
            budget = None
        if depth == 2:
            # exact whatever ub: its free cost bounds the neighbouring splits better than
            # a k-means floor would (closing such children by the floor cost evaluations)
            if self.data.kernel is not None and budget is None and not self.data.fronts \
                    and F * m * m <= FEATURE_WORK_LIMIT:
                return depth2_single(self.data, order, min_leaf, self.deadline)
            if self.data.kernel is not None and (m * F) ** 2 <= KERNEL_LIMIT:
                front = depth2_front(self.data, order, min_leaf, self.deadline)
                return front.at(self.data.penalty, budget)  # exact, every budget
            if budget is None and m * m * F <= self.dense_limit:
                return depth2(self.data, order, min_leaf)  # exact, vectorized
        floor = 2 * self.data.penalty
        floors = self.floors(order, depth) if depth >= 2 else None
        if floors is not None:
            least = float(floors[:budget].min())  # no tree of the budget is cheaper
            if least >= ub:
                self.pruned += 1
                return least, float(floors.min()), ABOVE
            if budget is None or budget >= 3:  # two leaves: a stump, never below `cost`
                floor = max(floor, float(floors[2:budget].min()))
        if self.data.kernel is not None:
            cost, free, tree = stump_compiled(self.data, order, min_leaf)
        else:
            cost, free, tree = stump(self.data, order, min_leaf)
        if budget == 1:
            cost, tree = self.leaf(order), None
        if depth <= 1 or m < 2:
            return cost, free, tree  # exact: as cheap as a bounded answer
        if ub < cost:
            cost, tree = ub, ABOVE
        for f in range(self.data.F if budget != 1 else 0):
            box = self.intervals(order, f, min_leaf)
            while box.stack:
                cost, tree = self.step(order, depth, min_leaf, box, cost, tree, floor, budget)
        if min_leaf > 1 or budget is not None:
            free = self.solve(order, depth, 1, ub)[0]
        else:
            free = cost
        return cost, free, tree

    def floors(self, order: np.ndarray, depth: int) -> np.ndarray | None:
        """``(2^depth,)``: for ``k`` leaves, a cost no tree of the subset with at most ``k``
        leaves beats, penalties included (the objective's ``segments``: for squared error
        the k-means bound); None without one, or for a subset smaller than
        :data:`SEGMENT_ROWS`."""
        if self.data.segments is None or order.shape[1] < SEGMENT_ROWS:
            return None
        costs = self.data.segments(self.data.stats[order[0]], 2 ** depth)
        if costs is None:
            return None
        return costs + self.data.penalty * np.arange(1, len(costs) + 1)

    def leaf(self, order: np.ndarray) -> float:
        """Cost of the subset as one leaf."""
        return float(self.data.leaf_cost(self.data.stats[order[0]].sum(axis=0))) \
            + self.data.penalty

    def intervals(self, order: np.ndarray, f: int, min_leaf: int) -> Intervals:
        """Feature ``f``'s split positions on the subset, all open."""
        positions = self.data.split_positions(order, f, min_leaf)
        box = Intervals(f, self.data.ranks(order, f), positions)
        if len(positions):
            box.stack.append((0, len(positions) - 1))
        return box

    def step(self, order: np.ndarray, depth: int, min_leaf: int, box: Intervals,
             cost: float, tree: Tree, floor: float, budget: int | None = None
             ) -> tuple[float, Tree]:
        """Close or halve the last open interval of ``box``: its middle split is solved
        (children of depth ``depth - 1``, sharing ``budget`` leaves); returns the
        incumbent.  On :class:`TimeUp` the interval stays open."""
        i, j = box.stack.pop()
        if box.bound(i, j, self.data.penalty, floor) >= cost - TOLERANCE:
            return cost, tree
        k = (i + j) // 2
        p = int(box.positions[k])
        try:
            if self.deadline is not None:
                self.deadline.check()
            left, right = children(order, box.ranks, p)
            if budget is None:
                # each child is solved against what the incumbent leaves it
                cl, fl, tl = self.solve(left, depth - 1, min_leaf, cost - self.data.penalty)
                cr, fr, tr = self.solve(right, depth - 1, min_leaf, cost - cl)
            else:
                cl, cr, tl, tr = self.divide(left, right, depth - 1, min_leaf, budget)
                fl = self.solve(left, depth - 1, 1, cost)[0]
                fr = self.solve(right, depth - 1, 1, cost)[0]
        except TimeUp:
            box.stack.append((i, j))
            raise
        self.evaluations += 1
        box.record(p, fl, fr)
        if cl + cr < cost - GAIN and tl is not ABOVE and tr is not ABOVE:
            cost, tree = cl + cr, (box.f, self.data.threshold(order, box.f, p), tl, tr)
        if k + 1 <= j:
            box.stack.append((k + 1, j))
        if i <= k - 1:
            box.stack.append((i, k - 1))
        return cost, tree


    def divide(self, left: np.ndarray, right: np.ndarray, depth: int, min_leaf: int,
               budget: int) -> tuple[float, float, Tree, Tree]:
        """The children's costs and trees (depth ``depth``) for the best division of
        ``budget`` leaves between them (each side at most what its depth holds)."""
        cap = 2 ** depth
        best = (np.inf, np.inf, ABOVE, ABOVE)
        for n_left in range(max(1, budget - cap), min(cap, budget - 1) + 1):
            cl, _, tl = self.solve(left, depth, min_leaf, np.inf, n_left)
            cr, _, tr = self.solve(right, depth, min_leaf, np.inf, budget - n_left)
            if cl + cr < best[0] + best[1]:
                best = (cl, cr, tl, tr)
        return best


ROOT_SHARE = 0.5
"""Share of the time left a limited search gives its start's root split first
(:func:`_improved_root`)."""


def _improved_root(data: RegressionData, depth: int, deadline: Deadline | None,
                   start: tuple[float, Tree], dense_limit: int) -> tuple[float, Tree, int]:
    """``start`` with the subtrees of its root split replaced by the searches' best trees
    of depth ``depth - 1`` on their rows (each from the start's own subtree, in its share of
    ROOT_SHARE of the time left) where that is cheaper; and the splits solved.  A search
    of depth 4 on 1,000 rows stopped before reaching that split in bound order and kept
    CART's tree (credit1k, 15 s: 0.5446; its root with depth-3 subtrees searched, 0.5029).
    Only the start improves: the search keeps its own order and tie-breaking."""
    tree = start[1]
    if tree is None or deadline is None or not deadline.limited:
        return start[0], tree, 0  # unlimited: the search proves the optimum anyway
    stage = deadline.share(ROOT_SHARE)
    go = data.X[:, tree[0]] <= tree[1]
    found = []
    for side, subtree, share in ((go, tree[2], 0.5), (~go, tree[3], 1.0)):
        part = RegressionData(data.X[side], data.stats[side, :-1], data.cost, data.penalty,
                              data.min_leaf, data.kernel, data.segments)
        found.append(search_tree(part, depth - 1, stage.share(share),
                                 (tree_cost(part, subtree, np.arange(part.n)), subtree),
                                 dense_limit=dense_limit))
    cost, splits = found[0].cost + found[1].cost, found[0].evaluations + found[1].evaluations
    if cost < start[0] - GAIN:
        return cost, (tree[0], tree[1], found[0].tree, found[1].tree), splits
    return start[0], tree, splits


def tree_cost(data: RegressionData, tree: Tree, rows: np.ndarray) -> float:
    """The cost of ``tree`` on ``rows``: its leaves' costs and penalties."""
    if tree is None:
        return float(data.leaf_cost(data.stats[rows].sum(axis=0))) + data.penalty
    go = data.X[rows, tree[0]] <= tree[1]
    return tree_cost(data, tree[2], rows[go]) + tree_cost(data, tree[3], rows[~go])


@dataclass
class RegressionFound:
    """A search's outcome: its best ``tree`` and ``cost``, a ``bound`` no tree of the depth
    beats, whether it is proved ``optimal``, the splits solved (``evaluations``) and the
    subproblems closed by their k-means floor unsearched (``pruned``)."""

    tree: Tree
    cost: float
    bound: float
    optimal: bool
    evaluations: int
    pruned: int = 0


def search_tree(data: RegressionData, depth: int, deadline: Deadline | None = None,
                incumbent: tuple[float, Tree] | None = None, lower: float = 0.0,
                dense_limit: int = DENSE_LIMIT, max_leaves: int | None = None,
                floors: np.ndarray | None = None) -> RegressionFound:
    """The best tree of depth <= ``depth`` over every threshold of ``data``, starting from
    ``incumbent`` (e.g. CART's cost and tree); ``lower``: a bound on the cost of any tree
    without penalties (e.g. the equivalent-points bound).  Stopped by ``deadline``, it
    returns its best tree and the least bound of the root splits not yet ruled out.
    ``dense_limit``: depth-2 subproblems of at most this ``m * m * F`` take the vectorized
    kernel (:mod:`.dense`), larger ones the interval search (both exact).  ``max_leaves``:
    the most leaves of the tree (None: no limit).  ``floors``: for ``k = 1, 2, ...`` leaves
    a cost no tree with at most ``k`` leaves beats without penalties (the k-means bound over
    the groups of identical rows), which raises the bound of every root split."""
    search = RegressionSearch(data, deadline, dense_limit)
    min_leaf = data.min_leaf
    budget = None if max_leaves is None or max_leaves >= 2 ** depth else max_leaves
    floor = lower + 2 * data.penalty
    least = lower + data.penalty  # of any tree, a leaf included
    if floors is not None:
        cap = min(len(floors), 2 ** depth if budget is None else budget)
        priced = np.asarray(floors[:cap]) + data.penalty * np.arange(1, cap + 1)
        least = max(least, float(priced.min()))
        if cap >= 3:  # a split's trees: two leaves are a stump, never below the start
            floor = max(floor, float(priced[2:].min()))
    try:  # the set-up (the roots' sort, stump and ranks) takes seconds on large data
        check_deadline(deadline)
        order = data.root()
        cost, _, tree = stump(data, order, min_leaf, deadline)
        if budget == 1:
            cost, tree = search.leaf(order), None
        boxes = []
        for f in range(data.F if depth >= 2 and budget != 1 else 0):
            check_deadline(deadline)
            boxes.append(search.intervals(order, f, min_leaf))
    except TimeUp:  # the start (or one leaf), unsearched; no split was solved
        cost, tree = incumbent if incumbent is not None else (np.inf, None)
        leaf = float(data.leaf_cost(data.stats.sum(axis=0))) + data.penalty
        if leaf < cost - GAIN:
            cost, tree = leaf, None
        return RegressionFound(tree, float(cost), float(min(cost, least)), False, 0)
    if incumbent is not None and depth >= 3 and budget is None:
        cost0, tree0, search.evaluations = _improved_root(data, depth, deadline, incumbent,
                                                          dense_limit)
        incumbent = (cost0, tree0)
    start = None
    if incumbent is not None and incumbent[0] < cost:
        # a little above the start's cost, so that the search still finds the trees that
        # tie with it, in its own order: the tree returned does not depend on the row order
        # CART saw (integer weights and repeated rows give the same tree)
        start = incumbent
        cost, tree = incumbent[0] + TIE_SLACK, incumbent[1]
    # the root's intervals of every feature, least bound first: a stopped search's bound
    # (the least open one) then rises as the search goes on
    def key(bound: float) -> float:  # rounding noise must not order equal bounds
        return round(bound, 9)

    heap = [(key(box.bound(i, j, data.penalty, floor)), f, i, j)
            for f, box in enumerate(boxes) for i, j in box.stack]
    heapq.heapify(heap)
    for box in boxes:
        box.stack.clear()
    stopped = False
    try:
        while heap:
            known, f, i, j = heapq.heappop(heap)
            box = boxes[f]
            now = box.bound(i, j, data.penalty, floor)
            if now >= cost - TOLERANCE:
                continue
            if key(now) > known:  # raised by later evaluations: back in its place
                heapq.heappush(heap, (key(now), f, i, j))
                continue
            box.stack.append((i, j))
            cost, tree = search.step(order, depth, min_leaf, box, cost, tree, floor, budget)
            for i2, j2 in box.stack:
                heapq.heappush(heap, (key(box.bound(i2, j2, data.penalty, floor)), f, i2, j2))
            box.stack.clear()
    except TimeUp:
        stopped = True  # the interval being solved is back on its box's stack
    if start is not None and (tree is start[1] or cost > start[0] + GAIN):
        cost, tree = start  # (a tree found within the slack but worse than the start: no)
    bound = min([cost] + [box.open_bound(data.penalty, floor) for box in boxes]
                + [boxes[f].bound(i, j, data.penalty, floor) for _, f, i, j in heap])
    bound = max(min(bound, cost), min(cost, least))
    return RegressionFound(tree, float(cost), float(bound), not stopped, search.evaluations,
                           search.pruned)
