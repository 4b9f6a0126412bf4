"""The exact search for the optimal robust tree: complete structures by decreasing bound
(:mod:`.streams`; nominal accuracy first, then root split by root split, bounded by the
sides' robust optima under splits of the budget, see the package docstring), each
structure's leaf labellings by decreasing nominal accuracy, each labelling's worst case by
the adversary's knapsack (:mod:`.adversary`); it stops when the best remaining bound cannot
beat the best worst case (certified) or at the deadline."""

from __future__ import annotations

import heapq
import itertools
import math
import time
from typing import Any

import numpy as np

from ..models.result import FitResult
from ..models.robust_tree import IntegerTree
from ..solvers.deadline import Deadline, TimeUp
from .adversary import box_distances, flipped_weight, misclassification_costs
from .streams import roots, structures

MAX_LABELLINGS = 1 << 16  # classes ** leaves; more is refused by the estimator
CHUNK = 256  # labellings whose worst case is computed at once
SIDE_CHUNK = 32  # the same for a side's structure, whose best labelling comes early
# shares of the budget the root bounds give the left side, tried in this order
SIDE_SHARES = (0.5, 0.25, 0.75, 0.0, 1.0)
# a root's bounds in the order tried: a share, or a side's rows crossed into the other side
# ("purer": the side of the higher nominal accuracy, whose rows flip more cheaply across)
ROOT_BOUNDS = (0.5, "purer", 0.25, 0.75, 0.0, 1.0, "other")
GRID = np.array(sorted(SIDE_SHARES))  # the same, for the pair bounds (symmetric)
HALF = int(np.searchsorted(GRID, 0.5))
ZEROS = np.zeros(len(GRID))  # the values of an empty side
SIDE_TIME = 0.02  # of the time left: one side's search (at first)
SIDE_RETRY = 4.0  # a stopped root bound is tried again later with this many times the time
SIDE_TIME_MAX = 0.08  # but not more than this share of the time left
WARM_SHARE = 0.2  # of the time: structures by nominal bound first, for an incumbent
WARM_SECONDS = 2.0  # at most: without a limit the walk alone could run for minutes where
# the root phase proves in seconds; with 12 s (the share of 60 s), depth 3 at 60 s spent
# those 12 s for nothing on monk3 (12.3 s against 2.3 s to prove), car (25.5 / 36.9 /
# 38.5 s against 15.6 / 30.1 / 37.3 s) and tic-tac-toe (53.6 s against 44.8 s)


def split_table(low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every test ``x[f] <= t``, ``t`` in ``low_f .. high_f - 1``: features and thresholds."""
    feats = [f for f in range(len(low)) for _ in range(int(low[f]), int(high[f]))]
    thresholds = [t for f in range(len(low)) for t in range(int(low[f]), int(high[f]))]
    return np.array(feats, dtype=np.int64), np.array(thresholds, dtype=np.int64)


def _flatten(structure: Any, depth: int) -> np.ndarray:
    """The split index of each internal node of a complete tree, in heap order."""
    out = np.empty(2 ** depth - 1, dtype=np.int64)
    stack = [(0, structure)]
    while stack:
        node, (s, left, right) = stack.pop()
        out[node] = s
        if left is not None:
            stack += [(2 * node + 1, left), (2 * node + 2, right)]
    return out


def _branch_counts(labellings: np.ndarray, depth: int) -> np.ndarray:
    """Branch nodes left in each labelled complete tree once every subtree whose leaves
    share one label is a leaf."""
    count = np.zeros(len(labellings), dtype=np.int64)
    width = 2
    while width <= labellings.shape[1]:
        blocks = labellings.reshape(len(labellings), -1, width)
        count += (blocks != blocks[:, :, :1]).any(axis=2).sum(axis=1)
        width *= 2
    return count


class RobustSearch:
    """One search: the data as integer matrix ``X``, class indices ``y`` (of ``n_classes``),
    ``costs`` ``(n, F)``, ``budget`` and ``lam`` (penalty per branch node, accuracy units);
    ``low`` / ``high``: the range perturbed values stay in (default: the rows' range);
    ``weights``: positive row weights (None: 1 each; the copies' model of
    :mod:`.adversary`). Scores are in units of weight. ``offset`` (bounds only, see
    :meth:`crossed`): what flipping each row costs on top of moving it, None for 0; a row
    with an offset > 0 counts as correct in every leaf when nothing is paid (nominally)."""

    def __init__(self, X: np.ndarray, y: np.ndarray, n_classes: int, costs: np.ndarray,
                 budget: float, depth: int, lam: float, low: np.ndarray | None = None,
                 high: np.ndarray | None = None, weights: np.ndarray | None = None,
                 offset: np.ndarray | None = None) -> None:
        self.X, self.y, self.K, self.costs = X, y, n_classes, costs
        self.budget, self.depth, self.weights = budget, depth, weights
        self.offset = offset
        self.n = float(len(y)) if weights is None else float(weights.sum())  # total weight
        self.penalty = lam * self.n  # in weight per branch node
        self.low = X.min(axis=0) if low is None else low
        self.high = X.max(axis=0) if high is None else high
        self.feat, self.thr = split_table(self.low, self.high)
        self.goes_left = X[:, self.feat] <= self.thr[None, :]
        self.onehot = np.eye(n_classes)[y]
        self.rows = np.arange(len(y))
        if offset is not None:  # correct under any label until its offset is paid
            self.onehot[offset > 0] = 1.0
        if weights is not None:
            self.onehot *= weights[:, None]
        L = 2 ** depth
        self.labellings = np.array(list(itertools.product(range(n_classes), repeat=L)),
                                   dtype=np.int64)
        self.branches = _branch_counts(self.labellings, depth)
        self.best = (-math.inf, None)  # (score in rows, (splits, labelling))
        self.stats = {"structures": 0, "labellings": 0, "side_solves": 0,
                      "side_structures": 0, "pairs_pruned": 0}
        self.deadline: Deadline | None = None
        # (feature, where the side's rows end, left, share of the budget) -> (side's bound,
        # proved, share of the time it had)
        self._side_memo: dict[tuple[int, int, bool, float], tuple[float, bool, float]] = {}
        self._side_grids: dict[tuple[int, bool], dict[Any, np.ndarray] | None] = {}

    def constant(self) -> None:
        """The one-leaf trees: no leaf of another label, so nothing can be flipped."""
        counts = np.bincount(self.y, weights=self.weights, minlength=self.K)
        if self.offset is not None:  # rows of other labels flip at their offsets
            wrong = np.arange(self.K)[:, None] != self.y[None, :]
            c = np.where(wrong, self.offset[None, :], math.inf)
            counts = self.n - flipped_weight(c, self.weights, self.budget)
        k = int(np.argmax(counts))
        self.best = (float(counts[k]), (np.full(2 ** self.depth - 1, -1), np.full(
            2 ** self.depth, k)))

    def boxes(self, splits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The leaves' boxes of a complete tree, left to right (training range met)."""
        return self.boxes_of(self.feat[splits], self.thr[splits])

    def boxes_of(self, feat: np.ndarray, thr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The leaves' boxes of the complete tree testing ``x[feat[n]] <= thr[n]`` at node
        ``n`` (heap order), met with this search's range."""
        L = 2 ** self.depth
        lo = np.tile(self.low, (L, 1)).astype(np.float64)
        hi = np.tile(self.high, (L, 1)).astype(np.float64)
        for j in range(L):
            node = L - 1 + j
            while node > 0:
                parent = (node - 1) // 2
                f, t = feat[parent], thr[parent]
                if node == 2 * parent + 1:
                    hi[j, f] = min(hi[j, f], t)
                else:
                    lo[j, f] = max(lo[j, f], t + 1)
                node = parent
        return lo, hi

    def best_values(self, feat: np.ndarray, thr: np.ndarray) -> np.ndarray:
        """Upper bounds on the worst-case correct weight of the best labelling of one
        structure (no penalty) at the budgets ``GRID * budget``: labellings by decreasing
        nominal accuracy until that bound meets the best at half the budget (exact there);
        elsewhere the best found or the next labelling's nominal bound, whichever is
        larger."""
        lo, hi = self.boxes_of(feat, thr)
        nominal = self._nominal(feat, thr)
        order = np.argsort(-nominal, kind="stable")
        dist = box_distances(self.X.astype(np.float64), self.costs, lo, hi)
        best = np.zeros(len(GRID))
        rest = 0.0  # nominal bound of the labellings not evaluated
        for start in range(0, len(order), SIDE_CHUNK):
            chunk = order[start:start + SIDE_CHUNK]
            if nominal[chunk[0]] <= best[HALF] + 1e-9:
                rest = float(nominal[chunk[0]])
                break
            c = self.costs_of(dist, chunk)
            for k, share in enumerate(GRID):
                flipped = flipped_weight(c, self.weights, share * self.budget)
                best[k] = max(best[k], float(self.n - flipped.min()))
        return np.maximum(best, rest)

    def _nominal(self, feat: np.ndarray, thr: np.ndarray) -> np.ndarray:
        """Correct rows of each labelling of the complete tree testing ``x[feat[n]] <=
        thr[n]`` (no shift): a row lies in the box of the leaf its path reaches, since every
        row is within the search's range (the rows' own at the root, a side's rows within
        the side's, a crossed side's rows clipped into it)."""
        node = np.zeros(len(self.y), dtype=np.int64)
        for _ in range(self.depth):  # heap order: children of n are 2n + 1, 2n + 2
            node = 2 * node + 1 + (self.X[self.rows, feat[node]] > thr[node])
        leaf = node - (2 ** self.depth - 1)
        counts = np.stack([np.bincount(leaf, weights=self.onehot[:, k],
                                       minlength=2 ** self.depth) for k in range(self.K)],
                          axis=1)  # (L, K)
        return counts[np.arange(counts.shape[0]), self.labellings].sum(axis=1)

    def costs_of(self, dist: np.ndarray, chunk: np.ndarray) -> np.ndarray:
        """``(B, n)``: each row's cheapest misclassification under each labelling of
        ``chunk``, given the rows' distances ``dist`` to the leaves (plus the offsets)."""
        c = misclassification_costs(dist, self.labellings[chunk], self.y)
        return c if self.offset is None else c + self.offset

    def flipped(self, c: np.ndarray) -> np.ndarray:
        """Most weight the adversary misclassifies, for each labelling's costs ``c``."""
        return flipped_weight(c, self.weights, self.budget)

    def evaluate(self, splits: np.ndarray) -> None:
        """Every labelling of one structure whose nominal bound beats the best so far."""
        self.stats["structures"] += 1
        lo, hi = self.boxes(splits)
        nominal = self._nominal(self.feat[splits], self.thr[splits])
        upper = nominal - self.penalty * self.branches
        keep = np.nonzero(upper > self.best[0] + 1e-9)[0]
        if keep.size == 0:
            return
        keep = keep[np.argsort(-upper[keep], kind="stable")]
        dist = box_distances(self.X.astype(np.float64), self.costs, lo, hi)
        for start in range(0, keep.size, CHUNK):
            chunk = keep[start:start + CHUNK]
            chunk = chunk[upper[chunk] > self.best[0] + 1e-9]
            if chunk.size == 0:
                return
            self.stats["labellings"] += int(chunk.size)
            c = self.costs_of(dist, chunk)
            score = self.n - self.flipped(c) - self.penalty * self.branches[chunk]
            b = int(np.argmax(score))
            if score[b] > self.best[0] + 1e-9:
                self.best = (float(score[b]), (splits.copy(), self.labellings[chunk[b]]))

    def run(self, deadline: Deadline) -> tuple[str, float]:
        """Search until proved or ``deadline``; returns (status, bound in weight). With a
        budget and depth >= 2, structures come by nominal bound for a share of the time
        (a quick incumbent, and a proof when the adversary changes little), then root split
        by root split, best bound first (:meth:`_roots_phase`)."""
        self.constant()
        if self.feat.size == 0:
            return "optimal", self.best[0]
        self.deadline = deadline
        rows = np.arange(len(self.y))
        try:  # every root's streams: P^2 work or more, stopped at the deadline
            nominal = structures(self.goes_left, self.onehot, rows, self.depth, deadline)
        except TimeUp:  # no structure ranked yet: every row correct is the bound
            return ("interrupted" if deadline.stopped else "time_limit"), self.n
        if self.depth == 1 or self.budget == 0:
            return self._walk(nominal, deadline)
        warm = deadline.share(WARM_SHARE)
        status, bound = self._walk(nominal, warm.within(WARM_SECONDS))
        if status == "optimal" or deadline.expired():
            return status, bound
        self.deadline = deadline
        try:
            status, second = self._roots_phase(rows, deadline)
        except TimeUp:
            status, second = ("interrupted" if deadline.stopped else "time_limit"), bound
        return status, min(bound, second)  # both bound every tree

    def _roots_phase(self, rows: np.ndarray, deadline: Deadline) -> tuple[str, float]:
        """Root splits best bound first. A root's bound starts at its nominal one and is
        lowered by the sides' robust optima under shares of the budget (``SIDE_SHARES``,
        :meth:`share_bound`), one share at a time; once all are in, its structures are
        evaluated in the order of the sides' half-budget values (:meth:`side_values`), the
        next one's value bounding the rest. Proved when the best root bound meets the best
        tree found."""
        root_of = {r.split: r for r in roots(self.goes_left, self.onehot, rows, self.depth,
                                             self.side_values, deadline=deadline)}
        pair = {s: self.pair_values(s) for s in root_of}
        # the root bounds still to try, each with its share of the time left
        pending = {s: [(kind, SIDE_TIME) for kind in ROOT_BOUNDS] for s in root_of}
        # (-bound, split, next structure)
        heap = [(-r.nominal(), s, 0) for s, r in root_of.items()]
        heapq.heapify(heap)
        while heap:
            cap, s, i = -heap[0][0], heap[0][1], heap[0][2]
            if cap <= self.best[0] + 1e-9:
                return "optimal", self.best[0]
            if deadline.expired():
                return ("interrupted" if deadline.stopped else "time_limit"), cap
            heapq.heappop(heap)
            if pending[s]:  # a tighter bound before any structure
                kind, share = pending[s].pop(0)
                value, proved = self.root_bound(root_of[s], kind, share)
                if not proved and share < SIDE_TIME_MAX:  # stopped: again later, longer
                    pending[s].append((kind, min(share * SIDE_RETRY, SIDE_TIME_MAX)))
                heapq.heappush(heap, (-min(cap, value), s, i))
                continue
            item = root_of[s].stream.item(i)
            if item is None:
                continue  # every structure of this root evaluated
            cap = min(cap, item[0])  # this and every later structure of the root
            if cap > self.best[0] + 1e-9:
                if pair[s](item[1]) > self.best[0] + 1e-9:  # else no labelling can beat it
                    self.evaluate(_flatten(item[1], self.depth))
                else:
                    self.stats["pairs_pruned"] += 1
                heapq.heappush(heap, (-cap, s, i + 1))
        return "optimal", self.best[0]

    def root_bound(self, root: Any, kind: float | str, share: float = SIDE_TIME
                   ) -> tuple[float, bool]:
        """The bound ``kind`` of :data:`ROOT_BOUNDS` on every tree with this root: a share
        of the budget (:meth:`share_bound`) or the rows of one side crossed into the other
        (:meth:`cross_bound`), each search given ``share`` of the time left; and whether
        its searches proved their optima (else the bound may still go down)."""
        if not isinstance(kind, str):
            left = self._side_value(root, True, kind, share)
            right = self._side_value(root, False, 1.0 - kind, share)
            return left[0] + right[0], left[1] and right[1]
        w = np.ones(len(self.y)) if self.weights is None else self.weights
        on_left = self.goes_left[:, root.split]
        purity = [_share(stream.item(0), w[side].sum())
                  for stream, side in ((root.left, on_left), (root.right, ~on_left))]
        left_purer = purity[0] >= purity[1]
        # the purer side's rows cross into the other: the problem on the other side
        into_left = not left_purer if kind == "purer" else left_purer
        return self._cross(root.split, into_left, share)

    def share_bound(self, root: Any, e: float) -> float:
        """A bound on every tree with this root split: the adversary that spends ``e`` of
        the budget within the left side and the rest within the right flips at least the
        best sides' flips, so worst-case correct ``<= C_L(e B) + C_R((1 - e) B)`` with ``C``
        the best side's robust optimum (its nominal one at budget 0)."""
        return self.root_bound(root, e)[0]

    def _side_value(self, root: Any, left: bool, e: float, share: float
                    ) -> tuple[float, bool]:
        """The side's bound at ``e`` of the budget and whether it is proved (memo: searched
        again only when it was stopped and ``share`` gives it more time)."""
        key = (*self._side_key(root.split, left), e)
        old = self._side_memo.get(key)
        if old is not None and (old[1] or old[2] >= share):
            return old[0], old[1]
        if e == 0.0:
            head = (root.left if left else root.right).item(0)
            value, proved = (head[0] if head is not None else 0.0), True
        else:
            value, proved = self.side_best(root.split, left, e * self.budget, share, True)
        if old is not None:
            value = min(value, old[0])  # both bound the side
        self._side_memo[key] = (value, proved, share)
        return value, proved

    def _walk(self, stream: Any, deadline: Deadline) -> tuple[str, float]:
        """Evaluate the structures of ``stream`` until its bound meets the best found."""
        self.deadline = deadline
        i = 0
        while True:
            item = stream.item(i)
            if item is None or item[0] <= self.best[0] + 1e-9:
                return "optimal", self.best[0]
            if deadline.expired():
                return ("interrupted" if deadline.stopped else "time_limit"), item[0]
            self.evaluate(_flatten(item[1], self.depth))
            i += 1

    def side(self, s: int, left: bool, budget: float, tight: bool = False
             ) -> RobustSearch | None:
        """The search on one side of root split ``s`` with the side as the range (the
        adversary keeps every row within it); None when no row is there. ``tight``: the
        range of the split's feature ends at the side's rows (:meth:`_side_key`)."""
        f, t = self.feat[s], self.thr[s]
        low, high = self.low.copy(), self.high.copy()
        rows = self.goes_left[:, s] if left else ~self.goes_left[:, s]
        if not rows.any():
            return None
        if left:
            high[f] = self.X[rows, f].max() if tight else min(high[f], t)
        else:
            low[f] = self.X[rows, f].min() if tight else max(low[f], t + 1)
        return RobustSearch(self.X[rows], self.y[rows], self.K, self.costs[rows], budget,
                            self.depth - 1, 0.0, low, high,
                            None if self.weights is None else self.weights[rows],
                            None if self.offset is None else self.offset[rows])

    def crossed(self, s: int, left: bool) -> RobustSearch:
        """The search on one side of root split ``s`` whose rows stay on it, with every row
        of the other side added as a ghost: moved just across the split (``x[f] = t`` or
        ``t + 1``, in the side's range) with what that costs as its offset. A leaf box ``b``
        of the side lies beyond the split, so moving the row itself into ``b`` costs exactly
        its offset plus moving the ghost into ``b`` (coordinate ``f`` passes the split on
        the way, the others are the row's)."""
        f, t = self.feat[s], self.thr[s]
        low, high = self.low.copy(), self.high.copy()
        if left:
            high[f] = min(high[f], t)
        else:
            low[f] = max(low[f], t + 1)
        X = self.X.copy()
        X[:, f] = np.clip(X[:, f], low[f], high[f])
        steps = np.abs(X[:, f] - self.X[:, f]).astype(np.float64)
        moved = np.multiply(self.costs[:, f], steps, out=np.zeros(len(steps)),
                            where=steps > 0)  # inf * 0 steps is no cost
        offset = moved if self.offset is None else self.offset + moved
        return RobustSearch(X, self.y, self.K, self.costs, self.budget, self.depth - 1, 0.0,
                            low, high, self.weights, offset)

    def cross_bound(self, s: int, left: bool) -> float:
        """:meth:`_cross`'s bound (for tests)."""
        return self._cross(s, left, SIDE_TIME)[0]

    def _cross(self, s: int, left: bool, share: float) -> tuple[float, bool]:
        """A bound on every tree with root split ``s``: the adversary that moves every row of
        the other side across (and on into the side's leaves, each at its ghost's cost,
        :meth:`crossed`) and every row of side ``left`` within it flips at most what the
        free one flips, and its best response to the tree is one on the crossed side's
        problem, whose optimum (the search's bound) is thus at least the tree's worst
        case."""
        self.stats["side_solves"] += 1
        assert self.deadline is not None
        status, bound = self.crossed(s, left).run(self.deadline.share(share))
        return bound, status == "optimal"

    def _side_key(self, s: int, left: bool) -> tuple[int, int, bool]:
        """What a tight side of root split ``s`` depends on: its feature and where the
        side's rows end (the thresholds of one gap between the rows' values share it).
        Tight sides bound the root's trees too: keeping the rows out of the gap as well is
        one more adversary, and a side's tree met with the tight range is a tree of it."""
        f = int(self.feat[s])
        rows = self.goes_left[:, s] if left else ~self.goes_left[:, s]
        if not rows.any():
            return f, -1, left
        return f, int(self.X[rows, f].max() if left else self.X[rows, f].min()), left

    def side_best(self, s: int, left: bool, budget: float, share: float = SIDE_TIME,
                  tight: bool = False) -> tuple[float, bool]:
        """An upper bound on the worst-case correct rows of the best depth-(d-1) tree on one
        side of root split ``s`` when the adversary keeps every row within that side (the
        side's search; its bound if stopped)."""
        side = self.side(s, left, budget, tight)
        if side is None:
            return 0.0, True
        self.stats["side_solves"] += 1
        assert self.deadline is not None
        status, bound = side.run(self.deadline.share(share))
        return bound, status == "optimal"

    def side_values(self, s: int, left: bool) -> Any:
        """What a side structure of root split ``s`` can contribute: its best labelling's
        worst case when half the budget is spent within the side (the other half within the
        other side, so the two sides' values add up to a bound on the whole tree). The
        values at the other shares of ``GRID`` are kept for :meth:`pair_values`."""
        side = self.side(s, left, self.budget)
        if side is None:
            self._side_grids[(s, left)] = None  # no rows: worth 0 at every budget
            return lambda structure: 0.0
        memo = self._side_grids.setdefault((s, left), {})

        def value(structure: Any) -> float:
            if self.deadline is not None and self.deadline.expired():
                return math.inf  # no time: the nominal bound stands
            self.stats["side_structures"] += 1
            flat = _flatten(structure, self.depth - 1)
            memo[structure] = side.best_values(self.feat[flat], self.thr[flat])
            return float(memo[structure][HALF])

        return value

    def pair_values(self, s: int) -> Any:
        """A bound on a structure with root split ``s`` from its sides' values at every
        split of the budget in ``GRID``: ``min_e V_L(e B) + V_R((1 - e) B)`` (each ``e`` is
        one adversary); inf when a side was not valued (no time)."""
        grids = (self._side_grids.get((s, True), {}), self._side_grids.get((s, False), {}))

        def value(structure: Any) -> float:
            a, b = (ZEROS if grids[k] is None else grids[k].get(structure[1 + k])
                    for k in (0, 1))
            if a is None or b is None:  # a side structure not valued
                return math.inf
            return float((a + b[::-1]).min())  # GRID is symmetric: b[::-1] is at 1 - e

        return value

    def tree(self, feature_names: list[str], classes: np.ndarray) -> IntegerTree:
        """The best tree found, with every single-label subtree made a leaf."""
        splits, labelling = self.best[1]
        size = 2 ** (self.depth + 1) - 1
        feature = np.full(size, -1, dtype=np.int64)
        threshold = np.zeros(size, dtype=np.int64)
        label = np.full(size, -1, dtype=np.int64)
        L = 2 ** self.depth

        def leaves_under(node: int) -> np.ndarray:
            level = int(math.floor(math.log2(node + 1)))
            width = 2 ** (self.depth - level)
            first = (node + 1) * width - 1 - (L - 1)
            return labelling[first:first + width]

        stack = [0]
        while stack:
            node = stack.pop()
            below = leaves_under(node)
            if (below == below[0]).all():
                label[node] = below[0]
                continue
            feature[node] = self.feat[splits[node]]
            threshold[node] = self.thr[splits[node]]
            stack += [2 * node + 1, 2 * node + 2]
        return IntegerTree(feature, threshold, label, classes, self.low.copy(),
                           self.high.copy(), list(feature_names))


def solve_robust_tree(X: np.ndarray, y: np.ndarray, classes: np.ndarray, costs: np.ndarray,
                      budget: float, depth: int, lam: float, deadline: Deadline,
                      feature_names: list[str], weights: np.ndarray | None = None
                      ) -> FitResult:
    """The tree of depth <= ``depth`` with the best worst-case accuracy (correct weight over
    the total weight) minus ``lam`` per branch node (checked inputs: integer ``X``, class
    indices ``y``, costs ``>= 0``, ``weights`` None or > 0). ``objective`` and ``bound`` are
    in accuracy units; ``stats["worst_case_correct"]`` is a weight (rows without weights)."""
    start = time.perf_counter()
    search = RobustSearch(X, y, len(classes), costs, budget, depth, lam, weights=weights)
    status, bound = search.run(deadline)
    model = search.tree(feature_names, classes)
    n = search.n
    correct = search.best[0] + search.penalty * model.n_branches
    stats: dict[str, Any] = dict(search.stats, splits=int(search.feat.size),
                                 worst_case_correct=(int(round(correct)) if weights is None
                                                     else correct),
                                 total_weight=n, branches=model.n_branches,
                                 method="search")
    return FitResult(model, status, search.best[0] / n, max(bound, search.best[0]) / n,
                     time.perf_counter() - start, stats)


def _share(head: Any, total: float) -> float:
    """The best leaf's error as a share of its side's weight (0 for a side without weight:
    all its rows weigh 0, or no stream value yet)."""
    return head[0] / total if head is not None and total > 0 else 0.0
