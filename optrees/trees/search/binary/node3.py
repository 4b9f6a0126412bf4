"""Compiled depth-3 node of the 0/1 search: the best depth-≤3 subtree of a row subset in one
numba call, from the depth-2 kernel over each root feature (MurTree §4 with the bounds of
:meth:`.search.Search._branch`).

A depth-3 node solved in Python costs tens of µs per root feature in bookkeeping (row
subsets, cache keys, bounds in numpy) around a depth-2 kernel of a few µs; here the root
features, both sides' counters (the smaller side counted, the larger one the parent's minus
it, MurTree §4.4) and the bounds stay in one loop.  The answer is the one :meth:`_branch`
gives: the same feature order (decreasing stump value, stable), the same leaf / split
tie-breaking (a split must beat the best by more than ``tol``) and the same pruning bounds
(a pruned feature can never win).  Depth-2 sides are not cached by row set: under one node of
depth ≥ 4 (the memo's root) the depth-3 nodes share them by the set of literals that leads
there from the root (:mod:`.memo`), which finds what a cache by row set finds there (the same
set reached by splitting f then g or g then f; at depth 5, the three orders of three
literals under three depth-4 nodes).

Compiling it is long (it links the counters and the depth-2 kernel again), so it is compiled
only on request (:mod:`.warmup`); until then the searches run :meth:`_branch`.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from ....compiled import kernels_ready
from .kernels import depth2_kernel, gram_bits, gram_upper
from .memo import memo_find, memo_put, set_key

__all__ = ["depth3_node"]

_ready: list[bool] = []  # whether depth3_node runs without compiling (asked once)


def ready() -> bool:
    """:func:`depth3_node` is compiled in this process or cached on disk (asked of numba's
    cache once per process; :func:`.warmup.node3_ready` says why it matters)."""
    if not _ready:
        _ready.append(kernels_ready(sys.modules[__name__], ["depth3_node"]))
    return _ready[0]


def set_ready() -> None:
    """Let the searches call :func:`depth3_node` (compiling it on their first call)."""
    _ready[:] = [True]


@njit(cache=True, nogil=True)
def _class_gram(indptr, indices, y, w, rows, n_classes, n_features, bits, scale):
    """Class weights of ``rows`` by feature pair (upper triangle) and by class; ``bits``:
    every row of class k weighs ``scale[k]`` (bitset counters, then scaled)."""
    if not bits:
        return gram_upper(indptr, indices, y, w, rows, n_classes, n_features)
    G, t = gram_bits(indptr, indices, y, rows, n_classes, n_features)
    if scale.shape[0] == n_classes:
        for a in range(n_features):
            for b in range(a, n_features):
                for k in range(n_classes):
                    G[a, b, k] *= scale[k]
        for k in range(n_classes):
            t[k] *= scale[k]
    return G, t


@njit(cache=True, nogil=True)
def _to_scores(G, t, gains, use_gains):
    """The score of each prediction from class weights (``G @ gains`` on the upper
    triangle); the arrays themselves without gains."""
    if not use_gains:
        return G, t
    F, K = G.shape[0], G.shape[2]
    S = np.zeros((F, F, K))
    for a in range(F):
        for b in range(a, F):
            for c in range(K):
                g = G[a, b, c]
                if g != 0.0:
                    for k in range(K):
                        S[a, b, k] += g * gains[c, k]
    s = np.zeros(K)
    for c in range(K):
        for k in range(K):
            s[k] += t[c] * gains[c, k]
    return S, s


@njit(cache=True, nogil=True)
def _sides(X, indptr, indices, y, w, rows, f, side, n_classes, bits, scale, gains, use_gains,
           G, t, Gw, NCp, count_rows, m):
    """Scores and row counters of both sides of ``rows`` split on ``f``: the smaller side
    counted, the larger one the parent's minus it (MurTree §4.4); ``(S0, t0, C0, S1, t1,
    C1, rows with x_f = 1)``."""
    n = rows.shape[0]
    F = X.shape[1]
    n1 = 0
    for i in range(n):  # ``side``: the rows with x_f = 1 first
        if X[rows[i], f] == 1:
            side[n1] = rows[i]
            n1 += 1
    small_is_one = n1 < n - n1  # ties: side 0, as Search._child_grams
    if small_is_one:
        sub = side[:n1].copy()
    else:
        sub = np.empty(n - n1, np.int64)
        q = 0
        for i in range(n):
            if X[rows[i], f] == 0:
                sub[q] = rows[i]
                q += 1
    Gs, ts = _class_gram(indptr, indices, y, w, sub, n_classes, F, bits, scale)
    Ss, ss = _to_scores(Gs, ts, gains, use_gains)
    So = G - Ss  # the larger side: the parent's minus the smaller's (scores are linear)
    so = t - ss
    Cs = Gs
    Co = Gw - Gs if m > 1 else Gs  # row counts are read under min_leaf only
    if count_rows:
        Cs, _ = gram_upper(indptr, indices, y, np.ones(y.shape[0]), sub, n_classes, F)
        Co = NCp - Cs
    if small_is_one:
        return So, so, Co, Ss, ss, Cs, n1
    return Ss, ss, Cs, So, so, Co, n1


@njit(cache=True, nogil=True)
def _child(S, s, C, n_rows, weight, cap, lower, L, tol, m):
    """A depth-2 side as :meth:`.search.Search.solve` treats it: (value, upper bound, root,
    left, right, kernel run?).  Its leaf when no split can beat it, the leaf with the bound
    ``min(weight - 2L, cap)`` when that cannot beat ``lower``, else the kernel's optimum."""
    leaf = -np.inf
    for k in range(s.shape[0]):
        leaf = max(leaf, s[k])
    leaf -= L
    upper = min(max(leaf, weight - 2.0 * L), cap)
    if leaf >= upper - tol:
        return leaf, leaf, -1, -1, -1, False
    if upper <= lower + tol:
        return leaf, upper, -1, -1, -1, False
    v, a, bl, br = depth2_kernel(S, s, C, n_rows, L, 2, tol, m, 4)
    return v, v, a, bl, br, True


@njit(cache=True, nogil=True, inline="always")
def _known(use, key, seen_keys, seen_values, seen_trees, keys, values, trees):
    """``(found, value, root, left, right)`` of the side ``key`` in the read-only table
    ``seen_*`` or this node's table (``found`` False when neither holds it or no memo)."""
    if use:
        s = memo_find(seen_keys, key)
        if s >= 0:
            return True, seen_values[s], seen_trees[s, 0], seen_trees[s, 1], seen_trees[s, 2]
        s = memo_find(keys, key)
        if s >= 0:
            return True, values[s], trees[s, 0], trees[s, 1], trees[s, 2]
    return False, 0.0, -1, -1, -1


@njit(cache=True, nogil=True)
def depth3_node(X, indptr, indices, y, w, rows, n_classes, gains, use_gains, unit, scale, L,
                tol, m, leaf, upper, lower, path, memo_keys, memo_values, memo_trees,
                memo_used, seen_keys, seen_values, seen_trees):
    """Best subtree of depth ≤ 3 on ``rows`` that beats ``max(leaf, lower)``, as
    :meth:`.search.Search._branch` finds it at depth 3 (``leaf``: the leaf's value, ``upper``:
    a proven bound).  Returns ``(value, bound, root, left (a, bl, br), right (a, bl, br),
    depth-2 kernels run)``; ``root`` -1 for the leaf; ``bound`` == ``value`` when exact.
    ``unit``: all weights 1 (bitset counters); ``scale`` (one weight per class, or empty):
    every row weighs its class's (bitset counters too); ``m``: ``min_leaf`` rows per side.
    ``path`` (sorted; empty: no memo): the literals (2f + v for x_f = v) that lead from the
    memo's root to this node; ``memo_*`` (:class:`.memo.Memo`'s arrays) then hold the
    optimum and tree (root, left, right) of each depth-2 side met under that root, by its
    literal set (the cache of :class:`.search.Search` for depth-2 sides); ``seen_*``: a
    table of the same kind that is only read (the sides other threads found, :mod:`.roots`)."""
    F = X.shape[1]
    n = rows.shape[0]
    bits = unit or scale.shape[0] == n_classes
    Gw, tw = _class_gram(indptr, indices, y, w, rows, n_classes, F, bits, scale)
    G, t = _to_scores(Gw, tw, gains, use_gains)
    K = t.shape[0]
    total = 0.0
    for k in range(K):
        total += tw[k]
    # row counters for min_leaf: the class weights when every weight is 1
    count_rows = m > 1 and not unit
    ones_w = np.ones(y.shape[0])
    NCp = Gw
    if count_rows:
        NCp, _ = gram_upper(indptr, indices, y, ones_w, rows, n_classes, F)
    P = np.zeros((F, F))  # weight with x_a = x_b = 1 (symmetric)
    for a in range(F):
        for b in range(a, F):
            p = 0.0
            for c in range(Gw.shape[2]):
                p += Gw[a, b, c]
            P[a, b] = p
            P[b, a] = p
    # feasible root features and their stump values
    feats = np.empty(F, np.int64)
    stump = np.empty(F)
    nf = 0
    for f in range(F):
        w1 = P[f, f]
        if w1 <= 0.0 or w1 >= total:
            continue
        if m > 1:
            n1 = 0.0
            for c in range(NCp.shape[2]):
                n1 += NCp[f, f, c]
            if n1 < m or n - n1 < m:
                continue
        m1 = -np.inf
        m0 = -np.inf
        for k in range(K):
            m1 = max(m1, G[f, f, k])
            m0 = max(m0, t[k] - G[f, f, k])
        feats[nf] = f
        stump[nf] = -(m1 + m0)
        nf += 1
    order = np.argsort(stump[:nf], kind="mergesort")
    feats = feats[:nf][order]
    ub0 = np.empty(nf)
    ub1 = np.empty(nf)
    best = leaf
    bf, a0, l0, r0, a1, l1, r1 = -1, -1, -1, -1, -1, -1, -1
    parts = leaf
    floor = max(leaf, lower)
    complete = True
    kernels = 0
    side = np.empty(n, np.int64)
    use_memo = path.shape[0] > 0
    base = 2 * F + 1
    for j in range(nf):
        if floor >= upper - tol:
            complete = False
            break
        f = feats[j]
        w1 = P[f, f]
        w0 = total - w1
        s1 = -np.inf
        s0 = -np.inf
        for k in range(K):
            s1 = max(s1, G[f, f, k])
            s0 = max(s0, t[k] - G[f, f, k])
        u0 = max(s0 - L, w0 - 2.0 * L)
        u1 = max(s1 - L, w1 - 2.0 * L)
        if m <= 1:  # similarity bound (MurTree §4.6): invalid under min_leaf
            for i in range(j):
                g = feats[i]
                u0 = min(u0, ub0[i] + P[g, g] - P[g, f])  # x_g = 1, x_f = 0
                u1 = min(u1, ub1[i] + P[f, f] - P[f, g])  # x_f = 1, x_g = 0
        # depth-2 sides met before under the memo's root (their literal set): exact
        key0 = set_key(path, 2 * f, base) if use_memo else 0
        key1 = set_key(path, 2 * f + 1, base) if use_memo else 0
        have0, s0v, s0a, s0l, s0r = _known(use_memo, key0, seen_keys, seen_values, seen_trees,
                                        memo_keys, memo_values, memo_trees)
        have1, s1v, s1a, s1l, s1r = _known(use_memo, key1, seen_keys, seen_values, seen_trees,
                                        memo_keys, memo_values, memo_trees)
        if have0:
            u0 = min(u0, s0v)
        if have1:
            u1 = min(u1, s1v)
        ub0[j] = u0
        ub1[j] = u1
        if u0 + u1 <= floor + tol:
            parts = max(parts, u0 + u1)
            continue
        counted = False
        if have0:
            v0 = b0 = s0v
            x0, y0, z0 = s0a, s0l, s0r
        else:
            S0, t0, C0, S1, t1, C1, n1 = _sides(X, indptr, indices, y, w, rows, f, side,
                                                n_classes, bits, scale, gains, use_gains,
                                                G, t, Gw, NCp, count_rows, m)
            counted = True
            v0, b0, x0, y0, z0, k0 = _child(S0, t0, C0, float(n - n1), w0, u0, floor - u1,
                                            L, tol, m)
            kernels += k0
            if use_memo and b0 == v0:
                memo_put(memo_keys, memo_values, memo_trees, memo_used, key0, v0, x0, y0, z0)
        ub0[j] = b0
        if b0 + u1 <= floor + tol:
            parts = max(parts, b0 + u1)
            continue
        if have1:
            v1 = b1 = s1v
            x1, y1, z1 = s1a, s1l, s1r
        else:
            if not counted:
                S0, t0, C0, S1, t1, C1, n1 = _sides(X, indptr, indices, y, w, rows, f, side,
                                                    n_classes, bits, scale, gains, use_gains,
                                                    G, t, Gw, NCp, count_rows, m)
            v1, b1, x1, y1, z1, k1 = _child(S1, t1, C1, float(n1), w1, u1, floor - v0,
                                            L, tol, m)
            kernels += k1
            if use_memo and b1 == v1:
                memo_put(memo_keys, memo_values, memo_trees, memo_used, key1, v1, x1, y1, z1)
        ub1[j] = b1
        parts = max(parts, b0 + b1)
        if v0 + v1 > best + tol:
            best = v0 + v1
            bf, a0, l0, r0, a1, l1, r1 = f, x0, y0, z0, x1, y1, z1
            floor = max(floor, best)
    bound = min(upper, parts) if complete else upper
    if bound <= best + tol:
        bound = best
    return best, bound, bf, a0, l0, r0, a1, l1, r1, kernels
