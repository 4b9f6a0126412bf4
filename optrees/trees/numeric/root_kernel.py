"""Compiled (numba) depth-2 root search: :func:`.search.search_root`'s interval search in one
call per batch of evaluations, instead of Python around every compiled evaluation.

Same search, same order, same answers as the Python loop of :mod:`.search` (the numpy
backend), which stays the readable reference; the bounds are explained there.  Measured on
banknote at depth 3: the Python loop cost more than the 2,454 compiled evaluations it drove.
The search pauses after ``max_evals`` evaluations and resumes from its state arrays, so the
caller can check the deadline between batches.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import child_objectives

__all__ = ["RootState", "root_search"]

# slots of the integer state
_FEATURE, _HEAD, _TAIL, _POINTS, _SEED, _BEST_F, _BEST_R, _EVALS = range(8)


class RootState:
    """Resumable state of :func:`root_search` for a view of ``m`` rows: the position in the
    feature list, the queue of open intervals of the current feature and its evaluated
    points, and the incumbent (``objective`` / ``feature`` / ``rank``)."""

    def __init__(self, m: int, incumbent: float) -> None:
        self.ints = np.zeros(8, dtype=np.int64)
        self.ints[_POINTS] = -1                     # current feature not prepared yet
        self.ints[_BEST_F] = self.ints[_BEST_R] = -1
        self.best = np.array([incumbent])
        self.cw = np.empty(m)                       # weight left of each split point
        self.ranks = np.empty(m, dtype=np.int64)    # rank left of each split point
        self.left = np.empty(m)                     # children objectives at evaluated points
        self.right = np.empty(m)
        self.left_free = np.empty(m)                # the same without the minimum leaf size
        self.right_free = np.empty(m)
        self.queue = np.empty((2 * m + 2, 4), dtype=np.int64)   # (lo, hi, a, b) per interval

    @property
    def arrays(self) -> tuple:
        """The arrays :func:`root_search` reads and writes."""
        return (self.ints, self.best, self.cw, self.ranks, self.left, self.right,
                self.left_free, self.right_free, self.queue)

    @property
    def objective(self) -> float:
        return float(self.best[0])

    @property
    def feature(self) -> int:
        return int(self.ints[_BEST_F])

    @property
    def rank(self) -> int:
        return int(self.ints[_BEST_R])

    @property
    def evaluations(self) -> int:
        return int(self.ints[_EVALS])


@njit(cache=True, nogil=True)
def root_search(ctx: tuple, free_ctx: tuple, features: np.ndarray, seeds: np.ndarray,
                total: float, child_bound: float, ceiling: float, state: tuple,
                max_evals: int) -> bool:
    """Search the split points of ``features`` (in that order) for a root split whose
    optimal depth-≤1 children beat the incumbent in ``state``; ``seeds[f]``: rows left of
    ``f``'s best stump (its first point); ``total``: the rows' weight; ``ctx``:
    :func:`.kernels.sorted_columns` + (K, penalty, eps, min_leaf), ``free_ctx`` the same with
    min_leaf 1 (the bounds that move rows need the children's unconstrained optima).  True
    when done, False when paused after ``max_evals`` evaluations."""
    _, _, _, rank_s, _, w_s, _, penalty, eps, min_leaf = ctx
    ints, best, cw, ranks, left, right, left_free, right_free, queue = state
    m = rank_s.shape[1]
    min_loss = penalty                          # a child has at least one leaf
    done = 0
    while ints[_FEATURE] < features.shape[0]:
        if best[0] >= ceiling - eps:
            return True
        f = features[ints[_FEATURE]]
        if ints[_POINTS] < 0:                   # prepare the feature's split points
            n_points = 0
            acc = 0.0
            seed = -1
            for j in range(1, m):
                acc += w_s[f, j - 1]
                if rank_s[f, j] != rank_s[f, j - 1] and min_leaf <= j <= m - min_leaf:
                    if seed < 0 and j >= seeds[f]:
                        seed = n_points         # first point with at least seed rows left
                    cw[n_points] = acc
                    ranks[n_points] = rank_s[f, j - 1]
                    n_points += 1
            ints[_POINTS] = n_points
            ints[_SEED] = seed if seed >= 0 else n_points
            ints[_HEAD], ints[_TAIL] = 0, 0
            _push(queue, ints, 0, n_points - 1, -1, -1)
        n_points = ints[_POINTS]
        while ints[_HEAD] < ints[_TAIL] and best[0] < ceiling - eps:
            if done >= max_evals:
                return False
            head = ints[_HEAD]
            lo, hi, a, b = queue[head, 0], queue[head, 1], queue[head, 2], queue[head, 3]
            ints[_HEAD] += 1
            # subinterval bounds: losses and objectives grow with the child's rows
            loss_lo = ((cw[a] - left_free[a]) if a >= 0 else min_loss) + \
                ((total - cw[b] - right_free[b]) if b >= 0 else min_loss)
            ub = min(total - loss_lo, (left[b] if b >= 0 else child_bound) +
                     (right[a] if a >= 0 else child_bound))
            if ub <= best[0] + eps:
                continue
            # similarity bounds from the evaluated neighbours shrink the interval
            if a >= 0:
                gap = best[0] - (left_free[a] + right_free[a])
                lo = max(lo, np.searchsorted(cw[:n_points], cw[a] + gap + eps, side="right"))
            if b >= 0:
                gap = best[0] - (left_free[b] + right_free[b])
                hi = min(hi, np.searchsorted(cw[:n_points], cw[b] - gap - eps) - 1)
            if lo > hi:
                continue
            seed = ints[_SEED]
            mid = seed if lo <= seed <= hi else (lo + hi) // 2
            ints[_SEED] = -1
            r = ranks[mid]
            floor_l = best[0] - (total - cw[mid] - min_loss)
            floor_r = best[0] - (cw[mid] - min_loss)
            left[mid], right[mid] = child_objectives(f, r, floor_l, floor_r, ctx)
            if min_leaf > 1:
                left_free[mid], right_free[mid] = child_objectives(f, r, floor_l, floor_r,
                                                                   free_ctx)
            else:
                left_free[mid], right_free[mid] = left[mid], right[mid]
            ints[_EVALS] += 1
            done += 1
            value = left[mid] + right[mid]
            if value > best[0] + eps:
                best[0], ints[_BEST_F], ints[_BEST_R] = value, f, r
            if lo < mid:
                _push(queue, ints, lo, mid - 1, a, mid)
            if mid < hi:
                _push(queue, ints, mid + 1, hi, mid, b)
        ints[_FEATURE] += 1
        ints[_POINTS] = -1
    return True


@njit(cache=True, nogil=True)
def _push(queue: np.ndarray, ints: np.ndarray, lo: int, hi: int, a: int, b: int) -> None:
    """Append the interval ``lo..hi`` between evaluated points ``a`` and ``b`` to the queue."""
    t = ints[_TAIL]
    queue[t, 0], queue[t, 1], queue[t, 2], queue[t, 3] = lo, hi, a, b
    ints[_TAIL] = t + 1
