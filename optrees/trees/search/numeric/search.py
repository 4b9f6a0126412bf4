"""Branch-and-bound over the root thresholds of a depth-2 tree (ConTree's interval search).

For a root feature ``f`` the candidate split points are the positions where the sorted values
change.  Evaluating a split point gives the objectives ``L(c)`` and ``R(c)`` of its optimal
depth-≤1 children; two bounds then discard others without evaluating them (arXiv 2501.07903,
§4.1-4.2, restated here for weights and a leaf penalty):

* similarity: moving samples of total weight ``W`` across the root threshold changes
  ``L + R`` by at most ``W`` (the gaining side gains at most their weight, the losing side can
  only lose), so split points within ``incumbent − (L(a) + R(a))`` weight of an evaluated
  point ``a`` cannot improve;
* subinterval: for ``a < c < b`` the left child of ``c`` is a subset of the left child of ``b``
  and the right child of ``c`` a subset of that of ``a``; optimal objectives are monotone under
  inclusion, so ``L(b) + R(a)`` bounds every split point strictly between them.

Intervals are searched breadth first from their midpoints; the first point evaluated on each
feature is its best stump threshold, which usually gives a strong incumbent at once.

With a minimum leaf size (rows) only split points leaving that many rows on each side are
candidates.  The subinterval bound on objectives still holds (a tree whose leaves are large
enough on a subset is so on a superset), but the similarity bound and the loss half of the
subinterval bound restrict a tree to fewer rows, where its leaves may become too small.  Those
two take the children's optima *without* the minimum leaf size instead (``evaluate.free``):
they bound the constrained optima from above, and the arguments above hold for them.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .data import SubsetView
from .depth1 import FeatureSplits
from .evaluate import Evaluator

__all__ = ["Intervals", "RootSearch", "search_root", "similar_interval", "split_points"]


@dataclass
class RootSearch:
    """Best root split found: feature ``-1`` when no split beats ``objective`` (the start)."""

    objective: float
    feature: int = -1
    rank: int = -1
    evaluations: int = 0


CELLS_PER_CHECK = 4_000_000
"""Compiled evaluations between two deadline checks cover about this many (row, column)
cells (a few milliseconds)."""


def search_root(view: SubsetView, w: np.ndarray, whole: FeatureSplits, child_bound: float,
                penalty: float, incumbent: float, evaluate: Evaluator,
                eps: float, ceiling: float = np.inf,
                check: Callable[[], None] | None = None) -> RootSearch:
    """Best root split with children of depth ≤ 1 that beats ``incumbent`` by more than eps.

    ``whole`` holds the best stump per feature of the view (feature order and seeds);
    ``child_bound`` bounds the objective of any child (the view's own best depth-≤1 tree).
    ``ceiling``: a known upper bound on the optimum; the search stops once it is reached.
    ``check``: called between evaluations (it raises to stop the search).  The minimum leaf
    size is the evaluator's own (``evaluate.min_leaf``, 1 when absent).  A compiled evaluator
    (:func:`.evaluate.make_evaluator` with numba) runs the whole search compiled
    (:func:`.kernels.root_search`), checking between batches of evaluations.
    """
    features = [int(f) for f in np.argsort(-whole.correct, kind="stable")
                if np.isfinite(whole.correct[f])]        # a constant column has no split
    kernel_ctx = getattr(evaluate, "kernel_ctx", None)
    free = getattr(evaluate, "free", evaluate)
    min_leaf = getattr(evaluate, "min_leaf", 1)
    if kernel_ctx is not None:
        return _search_compiled(kernel_ctx, free.kernel_ctx, features, whole, float(w.sum()),
                                child_bound, incumbent, ceiling, check)
    best = RootSearch(incumbent)
    for f in features:
        if best.objective >= ceiling - eps:
            break
        _search_feature(view, w, f, int(whole.n_left[f]), child_bound, penalty, best,
                        evaluate, free, eps, ceiling, check, min_leaf)
    return best


def _search_compiled(kernel_ctx: tuple, free_ctx: tuple, features: list[int],
                     whole: FeatureSplits, total: float, child_bound: float, incumbent: float,
                     ceiling: float, check: Callable[[], None] | None) -> RootSearch:
    """:func:`search_root` by :func:`.kernels.root_search`, resumed after each check."""
    from .kernels import RootState, root_search

    m, p = kernel_ctx[1].shape[1], kernel_ctx[1].shape[0]
    state = RootState(m, incumbent)
    batch = max(1, CELLS_PER_CHECK // max(1, m * p)) if check is not None else 2**62
    feats = np.asarray(features, dtype=np.int64)
    seeds = np.ascontiguousarray(whole.n_left, dtype=np.int64)
    while True:
        if check is not None:
            check()
        if root_search(kernel_ctx, free_ctx, feats, seeds, total, child_bound, ceiling,
                       state.arrays, batch):
            return RootSearch(state.objective, state.feature, state.rank, state.evaluations)


class Intervals:
    """The open intervals of a node's root features, ``(place, feature, lo, hi, a, b,
    bound)``: split points ``lo..hi`` of the feature in ``place`` of the node's feature order
    (``hi`` None: all of them, the feature not started) between evaluated points ``a`` and
    ``b`` (``-1``: none), whose optima are at most ``bound``.

    Taken feature by feature, each feature's breadth first (ConTree's order), or, with
    ``best_first`` (the root of the whole problem), highest bound first across features, so
    that a search stopped by its deadline has touched every feature and :meth:`bound` is as
    low as it can be; at depth ≥ 4 the first feature (the best stump's) still goes to its
    end first (:class:`.deep.NodeSearch` gives the measurements)."""

    def __init__(self, best_first: bool = False, depth: int = 3) -> None:
        self.items: list[tuple] = []
        self.best_first = best_first
        self.depth = depth
        self.seq = 0                                   # order among equal keys

    def __bool__(self) -> bool:
        return bool(self.items)

    def push(self, place: int, f: int, lo: int, hi: int | None, a: int, b: int,
             bound: float) -> None:
        """Queue one interval (the caller has checked that its bound matters)."""
        key = (0, place) if not self.best_first or (place == 0 and self.depth > 3) \
            else (1, -bound)
        self.seq += 1
        heapq.heappush(self.items, (key, self.seq, place, f, lo, hi, a, b, bound))

    def pop(self) -> tuple:
        """The next interval ``(place, feature, lo, hi, a, b, bound)``."""
        return heapq.heappop(self.items)[2:]

    def bound(self) -> float:
        """The largest bound of the queued intervals (-inf: none)."""
        return max((item[-1] for item in self.items), default=-np.inf)


def similar_interval(cw: np.ndarray, lo: int, hi: int, a: int, b: int, gap_a: float,
                     gap_b: float, eps: float) -> tuple[int, int]:
    """The split points of ``lo..hi`` the similarity bound keeps: more than ``gap_a`` weight
    right of evaluated point ``a`` and more than ``gap_b`` left of ``b`` (``-1``: none);
    ``gap``: the incumbent less the point's value (bound), ``cw``: weight left of each point."""
    if a >= 0:
        lo = max(lo, int(np.searchsorted(cw, cw[a] + gap_a + eps, side="right")))
    if b >= 0:
        hi = min(hi, int(np.searchsorted(cw, cw[b] - gap_b - eps, side="left")) - 1)
    return lo, hi


def split_points(view: SubsetView, w: np.ndarray, f: int,
                 min_leaf: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split points of ``f`` (number of samples going left) leaving ``min_leaf`` samples or
    more on each side, the weight left of each and the rank of the last row left of each
    (the split is ``rank[f] <= that rank``)."""
    order = view.order[f]
    ranks = view.rank[f, order]
    points = np.flatnonzero(ranks[1:] != ranks[:-1]) + 1
    points = points[(points >= min_leaf) & (points <= len(order) - min_leaf)]
    weight_left = np.cumsum(w[order])[points - 1]
    return points, weight_left, ranks[points - 1]


def _search_feature(view: SubsetView, w: np.ndarray, f: int, seed_left: int,
                    child_bound: float, penalty: float, best: RootSearch,
                    evaluate: Evaluator, free: Evaluator, eps: float,
                    ceiling: float = np.inf, check: Callable[[], None] | None = None,
                    min_leaf: int = 1) -> None:
    """Interval search over the split points of ``f``, improving ``best`` in place.

    Runs once per feature and node of a deep search (thousands of times): Python lists and
    :mod:`bisect` instead of numpy scalars (measured: a third of the loop's time)."""
    points_arr, cw_arr, rank_arr = split_points(view, w, f, min_leaf)
    ranks = rank_arr.tolist()                      # rank left of each point
    cw = cw_arr.tolist()
    n_points = len(cw)
    left_obj = [0.0] * n_points
    right_obj = [0.0] * n_points
    left_free, right_free = left_obj, right_obj    # optima without min_leaf: same lists if 1
    if min_leaf > 1:
        left_free, right_free = [0.0] * n_points, [0.0] * n_points
    seed = int(np.searchsorted(points_arr, seed_left))
    total = float(w.sum())
    min_loss = penalty                         # a child has at least one leaf
    queue = deque([(0, n_points - 1, -1, -1)])
    while queue and best.objective < ceiling - eps:
        lo, hi, a, b = queue.popleft()
        # subinterval bounds: losses grow and objectives grow with the child's sample set
        loss_lo = (cw[a] - left_free[a] if a >= 0 else min_loss) + \
            (total - cw[b] - right_free[b] if b >= 0 else min_loss)
        ub = min(total - loss_lo,
                 (left_obj[b] if b >= 0 else child_bound) +
                 (right_obj[a] if a >= 0 else child_bound))
        if ub <= best.objective + eps:
            continue
        # similarity bounds from the evaluated neighbours shrink the interval
        if a >= 0:
            gap = best.objective - (left_free[a] + right_free[a])
            lo = max(lo, bisect_right(cw, cw[a] + gap + eps))
        if b >= 0:
            gap = best.objective - (left_free[b] + right_free[b])
            hi = min(hi, bisect_left(cw, cw[b] - gap - eps) - 1)
        if lo > hi:
            continue
        mid = seed if lo <= seed <= hi else (lo + hi) // 2
        seed = -1
        r = ranks[mid]
        # a child needs more than best − (most the other child can score) to matter
        floor_l = best.objective - (total - cw[mid] - min_loss)
        floor_r = best.objective - (cw[mid] - min_loss)
        if check is not None:
            check()
        lv, rv = evaluate(f, r, floor_l, floor_r)
        left_obj[mid], right_obj[mid] = float(lv), float(rv)
        if min_leaf > 1:
            lf, rf = free(f, r, floor_l, floor_r)
            left_free[mid], right_free[mid] = float(lf), float(rf)
        best.evaluations += 1
        value = left_obj[mid] + right_obj[mid]
        if value > best.objective + eps:
            best.objective, best.feature, best.rank = value, f, r
        if lo < mid:
            queue.append((lo, mid - 1, a, mid))
        if mid < hi:
            queue.append((mid + 1, hi, mid, b))
