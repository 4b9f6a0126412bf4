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


@njit(cache=True, nogil=True)
def child_objectives(root: int, root_rank: int, floor_left: float, floor_right: float,
                     ctx: tuple) -> tuple[float, float]:
    """``max(floor, objective)`` (objective = correct − penalty·leaves) of the optimal
    depth-≤1 children of the root split ``rank[root] <= root_rank``.

    A child whose optimum cannot exceed its floor is not searched exactly (as ConTree passes
    its upper bound down); ``ctx`` = :func:`sorted_columns` + (K, penalty, eps, min_leaf):
    a stump's leaves get at least ``min_leaf`` rows each.  The skip rule bounds every
    threshold, feasible or not, so it stays valid under ``min_leaf``.  The two
    sides' sweep states live in scalars, written out once per side (measured 10-25 % faster
    than two-element arrays indexed by the side).
    """
    sweep, order, rank, rank_s, y_s, w_s, n_classes, penalty, eps, min_leaf = ctx
    p, m = order.shape
    side = np.empty(m, dtype=np.int8)
    totals = np.zeros((2, n_classes))
    rows0 = 0
    for j in range(m):
        i = order[root, j]
        s = 0 if rank_s[root, j] <= root_rank else 1
        side[i] = s
        rows0 += 1 - s
        totals[s, y_s[root, j]] += w_s[root, j]
    rows1 = m - rows0
    size0 = totals[0].sum()
    size1 = totals[1].sum()
    # correct weight a stump must exceed to beat the leaf / the floor, per side
    best0 = max(totals[0].max() + penalty, floor_left + 2.0 * penalty)
    best1 = max(totals[1].max() + penalty, floor_right + 2.0 * penalty)
    done0 = best0 >= size0 - eps or rows0 < 2 * min_leaf
    done1 = best1 >= size1 - eps or rows1 < 2 * min_leaf
    cnt0 = np.zeros(n_classes)
    cnt1 = np.zeros(n_classes)
    tot0 = totals[0].copy()
    tot1 = totals[1].copy()
    for g in sweep:
        if done0 and done1:
            break
        cnt0[:] = 0.0
        cnt1[:] = 0.0
        prev0 = -1
        prev1 = -1
        seen0 = 0.0
        seen1 = 0.0
        left0 = 0                               # rows seen (left of the threshold), per side
        left1 = 0
        add0 = 0.0
        add1 = 0.0
        need0 = -1.0
        need1 = -1.0
        stop0 = done0
        stop1 = done1
        og = order[g]
        rg = rank_s[g]
        yg = y_s[g]
        wg = w_s[g]
        for j in range(m):
            r = rg[j]
            wt = wg[j]
            if side[og[j]] == 0:
                if stop0:
                    if stop1:
                        break
                    continue
                # evaluate the threshold before this row only if enough weight was added
                # since the last one to beat the side's incumbent (the skip rule), and
                # both leaves keep min_leaf rows
                if left0 > rows0 - min_leaf:
                    stop0 = True              # no feasible threshold further on
                    continue
                if r != prev0 and add0 > need0 and left0 >= min_leaf:
                    bl = -np.inf
                    br = -np.inf
                    for k in range(n_classes):
                        if cnt0[k] > bl:
                            bl = cnt0[k]
                        rr = tot0[k] - cnt0[k]
                        if rr > br:
                            br = rr
                    c = bl + br
                    if c > best0 + eps:
                        best0 = c
                    need0 = best0 - c
                    add0 = 0.0
                    # the rest of the side cannot lift a later threshold above it
                    if size0 - seen0 <= need0 + eps:
                        stop0 = True
                        continue
                cnt0[yg[j]] += wt
                seen0 += wt
                left0 += 1
                add0 += wt
                prev0 = r
            else:                                   # the same for the right side
                if stop1:
                    if stop0:
                        break
                    continue
                if left1 > rows1 - min_leaf:
                    stop1 = True
                    continue
                if r != prev1 and add1 > need1 and left1 >= min_leaf:
                    bl = -np.inf
                    br = -np.inf
                    for k in range(n_classes):
                        if cnt1[k] > bl:
                            bl = cnt1[k]
                        rr = tot1[k] - cnt1[k]
                        if rr > br:
                            br = rr
                    c = bl + br
                    if c > best1 + eps:
                        best1 = c
                    need1 = best1 - c
                    add1 = 0.0
                    if size1 - seen1 <= need1 + eps:
                        stop1 = True
                        continue
                cnt1[yg[j]] += wt
                seen1 += wt
                left1 += 1
                add1 += wt
                prev1 = r
    return best0 - 2.0 * penalty, best1 - 2.0 * penalty


@njit(cache=True, nogil=True)
def member_stumps(order: np.ndarray, rank_s: np.ndarray, y_s: np.ndarray, w_s: np.ndarray,
                  member: np.ndarray, n_classes: int, min_leaf: int) -> tuple:
    """Compiled :func:`.depth1.best_splits`: the best stump per feature of the rows with
    ``member`` true whose leaves get ``min_leaf`` of them each, from the sorted arrays of
    :func:`sorted_columns`.

    Returns class totals ``(K,)`` and per feature: correct weight (``-inf`` if constant), the
    sorted positions of the last row left and the first row right of the best threshold, the
    two leaf classes and the number of member rows going left.  Ties go to the first
    threshold and the first class, as in the vectorized version.
    """
    p, m = order.shape
    totals = np.zeros(n_classes)
    size = 0
    for j in range(m):
        if member[order[0, j]]:
            totals[y_s[0, j]] += w_s[0, j]
            size += 1
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
            if count > size - min_leaf:
                break                                   # no feasible threshold further on
            if count >= min_leaf and r != prev:
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
