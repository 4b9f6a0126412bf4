"""Compiled (numba) inner loop of the depth-2 search: the optimal children of one root split.

Same mathematics as :func:`.depth1.best_splits` applied to both children at once, but as one
pass over every presorted column that routes each sample to its side and only evaluates a
threshold when it can beat the side's incumbent: after a threshold scoring ``c`` below the
incumbent ``b``, the next ``b - c`` units of weight cannot lift a stump above ``b``, because
moving a sample of weight ``w`` to the left raises ``max_k L_k + max_k R_k`` by at most ``w``
(the skip rule of ConTree's specialized depth-two solver, arXiv 2501.07903, §4.3).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["child_objectives", "sorted_columns"]


def sorted_columns(order: np.ndarray, rank: np.ndarray, y: np.ndarray, w: np.ndarray,
                   sweep_order: np.ndarray) -> tuple:
    """Context of :func:`child_objectives`: every column's ranks, labels and weights in sorted
    order, so the sweep reads memory sequentially, and the order in which columns are swept
    (best stump first: a high incumbent early lets the skip rule skip more)."""
    rows = np.arange(order.shape[0])[:, None]
    return (np.ascontiguousarray(sweep_order, dtype=np.int64), np.ascontiguousarray(order),
            np.ascontiguousarray(rank),
            np.ascontiguousarray(rank[rows, order]), np.ascontiguousarray(y[order], np.int32),
            np.ascontiguousarray(w[order], np.float64))


@njit(cache=True, nogil=True, inline="always")
def _stump_correct(cnt: np.ndarray, totals: np.ndarray, s: int) -> float:
    """``max_k L_k + max_k (T_k - L_k)`` for side ``s``: the stump's correct weight."""
    best_l = -np.inf
    best_r = -np.inf
    for k in range(cnt.shape[1]):
        if cnt[s, k] > best_l:
            best_l = cnt[s, k]
        right = totals[s, k] - cnt[s, k]
        if right > best_r:
            best_r = right
    return best_l + best_r


@njit(cache=True, nogil=True)
def child_objectives(root: int, root_rank: int, floor_left: float, floor_right: float,
                     ctx: tuple) -> tuple[float, float]:
    """``max(floor, objective)`` (objective = correct − penalty·leaves) of the optimal
    depth-≤1 children of the root split ``rank[root] <= root_rank``.

    A child whose optimum cannot exceed its floor is not searched exactly (as ConTree passes
    its upper bound down); ``ctx`` = :func:`sorted_columns` + (K, penalty, eps).
    """
    sweep, order, rank, rank_s, y_s, w_s, n_classes, penalty, eps = ctx
    p, m = order.shape
    side = np.empty(m, dtype=np.int8)
    totals = np.zeros((2, n_classes))
    for j in range(m):
        i = order[root, j]
        s = 0 if rank_s[root, j] <= root_rank else 1
        side[i] = s
        totals[s, y_s[root, j]] += w_s[root, j]
    size = np.empty(2)
    best = np.empty(2)       # correct weight a stump must exceed to beat the leaf / incumbent
    done = np.zeros(2, dtype=np.bool_)
    floors = (floor_left, floor_right)
    for s in range(2):
        size[s] = totals[s].sum()
        best[s] = max(totals[s].max() + penalty, floors[s] + 2.0 * penalty)
        done[s] = best[s] >= size[s] - eps
    cnt = np.zeros((2, n_classes))
    prev = np.empty(2, dtype=np.int64)
    seen = np.empty(2)       # weight of the side already swept
    added = np.empty(2)      # weight added since the last evaluated threshold
    need = np.empty(2)       # evaluate again only once added > need
    stop = np.empty(2, dtype=np.bool_)
    for g in sweep:
        if done[0] and done[1]:
            break
        cnt[:] = 0.0
        prev[:] = -1
        seen[:] = 0.0
        added[:] = 0.0
        need[:] = -1.0
        stop[0], stop[1] = done[0], done[1]
        for j in range(m):
            s = side[order[g, j]]
            if stop[s]:
                if stop[1 - s]:
                    break
                continue
            r = rank_s[g, j]
            if r != prev[s] and added[s] > need[s] and prev[s] != -1:
                c = _stump_correct(cnt, totals, s)
                if c > best[s] + eps:
                    best[s] = c
                need[s] = best[s] - c
                added[s] = 0.0
                # the rest of the side cannot lift a later threshold above the incumbent
                if size[s] - seen[s] <= need[s] + eps:
                    stop[s] = True
                    continue
            wt = w_s[g, j]
            cnt[s, y_s[g, j]] += wt
            seen[s] += wt
            added[s] += wt
            prev[s] = r
    return best[0] - 2.0 * penalty, best[1] - 2.0 * penalty


@njit(cache=True, nogil=True)
def member_stumps(order: np.ndarray, rank_s: np.ndarray, y_s: np.ndarray, w_s: np.ndarray,
                  member: np.ndarray, n_classes: int) -> tuple:
    """Compiled :func:`.depth1.best_splits`: the best stump per feature of the rows with
    ``member`` true, from the sorted arrays of :func:`sorted_columns`.

    Returns class totals ``(K,)`` and per feature: correct weight (``-inf`` if constant), the
    sorted positions of the last row left and the first row right of the best threshold, the
    two leaf classes and the number of member rows going left.  Ties go to the first
    threshold and the first class, as in the vectorized version.
    """
    p, m = order.shape
    totals = np.zeros(n_classes)
    for j in range(m):
        if member[order[0, j]]:
            totals[y_s[0, j]] += w_s[0, j]
    correct = np.full(p, -np.inf)
    lo = np.zeros(p, dtype=np.int64)
    hi = np.zeros(p, dtype=np.int64)
    left_class = np.zeros(p, dtype=np.int64)
    right_class = np.zeros(p, dtype=np.int64)
    n_left = np.zeros(p, dtype=np.int64)
    cnt = np.zeros(n_classes)
    for g in range(p):
        cnt[:] = 0.0
        prev = -1
        last = -1
        count = 0
        for j in range(m):
            if not member[order[g, j]]:
                continue
            r = rank_s[g, j]
            if prev != -1 and r != prev:
                best_l, k_l, best_r, k_r = -np.inf, 0, -np.inf, 0
                for k in range(n_classes):
                    if cnt[k] > best_l:
                        best_l, k_l = cnt[k], k
                    right = totals[k] - cnt[k]
                    if right > best_r:
                        best_r, k_r = right, k
                if best_l + best_r > correct[g]:
                    correct[g] = best_l + best_r
                    lo[g], hi[g], left_class[g], right_class[g] = last, j, k_l, k_r
                    n_left[g] = count
            cnt[y_s[g, j]] += w_s[g, j]
            prev = r
            last = j
            count += 1
    return totals, correct, lo, hi, left_class, right_class, n_left
