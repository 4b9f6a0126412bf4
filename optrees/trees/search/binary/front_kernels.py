"""Compiled (numba) twins of :mod:`.leaf_fronts`' two hot loops: the triple counts of a row
subset and the depth-2 fronts of both sides of every root feature of a depth-3 node; the
same outputs and tie-breaking as the numpy code, without its temporaries (each (a, b) pair
is read once, over the classes in a loop)."""

from __future__ import annotations

import numpy as np
from numba import njit

from .... import compiled

__all__ = ["compile_all", "node_sides", "ready", "triple_counts"]

ENTRIES = ("node_sides", "triple_counts")


@njit(cache=True, nogil=True)
def triple_counts(indptr, indices, y, w, rows, n_classes, n_features):
    """``T[k, f, a, b]`` = weight of the class-k rows of ``rows`` with ``x_f = x_a = x_b =
    1`` (all orders filled), from each row's 1-features (sorted in ``indices``): each
    unordered triple is counted once, O(sum of m_i^3 / 6) for a row with ``m_i`` ones, then
    copied to its other orders."""
    F = n_features
    T = np.zeros((n_classes, F, F, F))
    for r in range(rows.shape[0]):
        i = rows[r]
        k = y[i]
        wi = w[i]
        lo, hi = indptr[i], indptr[i + 1]
        for p in range(lo, hi):
            f = indices[p]
            for q in range(p, hi):
                a = indices[q]
                for s in range(q, hi):
                    T[k, f, a, indices[s]] += wi
    for k in range(n_classes):
        for f in range(F):
            for a in range(f, F):
                for b in range(a, F):
                    v = T[k, f, a, b]
                    if v != 0.0:
                        T[k, f, b, a] = v
                        T[k, a, f, b] = v
                        T[k, a, b, f] = v
                        T[k, b, f, a] = v
                        T[k, b, a, f] = v
    return T


@njit(cache=True, nogil=True)
def _front2(S, t, N, n, use_rows, m, tol, wtol, vals, root, child0, child1, left):
    """One subset's depth-2 front from ``S`` (K x F x F), ``t`` (K), row counts ``N`` (F x
    F) and ``n`` (read when ``use_rows``), written into ``vals`` / ``root`` (4) and
    ``child0`` / ``child1`` / ``left`` (F)."""
    K, F = S.shape[0], S.shape[1]
    D = np.empty((K, F))
    leaf = -np.inf
    tot = 0.0
    for k in range(K):
        leaf = max(leaf, t[k])
        tot += t[k]
        for a in range(F):
            D[k, a] = S[k, a, a]
    best2, best3, best4 = -np.inf, -np.inf, -np.inf
    r2, r3, r4 = -1, -1, -1
    for a in range(F if leaf < tot else 0):  # one class only: the leaf is every optimum
        W1 = 0.0
        l1 = -np.inf
        l0 = -np.inf
        for k in range(K):
            W1 += D[k, a]
            l1 = max(l1, D[k, a])
            l0 = max(l0, t[k] - D[k, a])
        if not (W1 > wtol and tot - W1 > wtol):
            continue
        na = 0.0
        if use_rows:
            na = N[a, a]
            if na < m or n - na < m:
                continue
        if l0 + l1 > best2:
            best2, r2 = l0 + l1, a
        if max(l0 + W1, (tot - W1) + l1) <= best3 and tot <= best4:
            continue  # a side scores at most its weight: a cannot beat 3 or 4 leaves' best
        # one more split on b under each side of a (B.1 eqs. 27-30)
        c1, b1, c0, b0 = -np.inf, -1, -np.inf, -1
        for b in range(F):
            ok1 = True
            ok0 = True
            if use_rows:
                nab = N[a, b]
                nb = N[b, b]
                ok1 = nab >= m and na - nab >= m
                ok0 = nb - nab >= m and n - na - nb + nab >= m
            m1 = -np.inf
            m0 = -np.inf
            p1 = -np.inf
            p0 = -np.inf
            for k in range(K):
                s = S[k, a, b]
                m1 = max(m1, s)
                m0 = max(m0, D[k, a] - s)
                p1 = max(p1, D[k, b] - s)
                p0 = max(p0, t[k] - D[k, a] - D[k, b] + s)
            if ok1 and m1 + m0 > c1:
                c1, b1 = m1 + m0, b
            if ok0 and p1 + p0 > c0:
                c0, b0 = p1 + p0, b
        if not c1 > l1 + tol:
            c1, b1 = l1, -1
        if not c0 > l0 + tol:
            c0, b0 = l0, -1
        child1[a] = b1
        child0[a] = b0
        left[a] = c0 + l1 >= l0 + c1
        three = max(c0 + l1, l0 + c1)
        if three > best3:
            best3, r3 = three, a
        if c0 + c1 > best4:
            best4, r4 = c0 + c1, a
    vals[0] = leaf
    below = leaf
    for budget, best, r in ((1, best2, r2), (2, best3, r3), (3, best4, r4)):
        if r >= 0 and best > below + tol:
            below = best
            root[budget] = r
        vals[budget] = below


@njit(cache=True, nogil=True)
def _outputs(B, F):
    """Empty outputs of ``B`` depth-2 fronts over ``F`` features."""
    return (np.empty((B, 4)), np.full((B, 4), -1), np.full((B, F), -1),
            np.full((B, F), -1), np.zeros((B, F), np.bool_))


@njit(cache=True, nogil=True)
def node_sides(T, t, N3, n, use_rows, m, tol, wtol):
    """The depth-2 fronts of both sides of every root feature ``f`` of a depth-3 node from
    its triple counts ``T`` (K x F x F x F), class weights ``t`` (K), row triples ``N3`` and
    rows ``n`` (read when ``use_rows``): side 1 is ``T[:, f]``, side 0 the node's pairs
    ``T[:, a, a, b]`` minus it.  Outputs as :func:`depth2_fronts_kernel`'s, side 0's then
    side 1's, each over f."""
    K, F = T.shape[0], T.shape[1]
    out0 = _outputs(F, F)
    out1 = _outputs(F, F)
    G = np.empty((K, F, F))
    for k in range(K):
        for a in range(F):
            for b in range(F):
                G[k, a, b] = T[k, a, a, b]
    NG = np.empty((F, F))
    if use_rows:
        for a in range(F):
            for b in range(F):
                NG[a, b] = N3[a, a, b]
    S0 = np.empty((K, F, F))
    N0 = np.empty((F, F))
    t1 = np.empty(K)
    t0 = np.empty(K)
    tot = 0.0
    for k in range(K):
        tot += t[k]
    for f in range(F):
        W1 = 0.0
        for k in range(K):
            W1 += G[k, f, f]
        if not (W1 > wtol and tot - W1 > wtol) or \
                (use_rows and (NG[f, f] < m or n - NG[f, f] < m)):
            out0[0][f, :] = 0.0  # f cannot split the node: its sides are never read
            out1[0][f, :] = 0.0
            continue
        for k in range(K):
            t1[k] = G[k, f, f]
            t0[k] = t[k] - t1[k]
            for a in range(F):
                for b in range(F):
                    S0[k, a, b] = G[k, a, b] - T[k, f, a, b]
        n1 = 0.0
        if use_rows:
            n1 = NG[f, f]
            for a in range(F):
                for b in range(F):
                    N0[a, b] = NG[a, b] - N3[f, a, b]
        _front2(S0, t0, N0, n - n1, use_rows, m, tol, wtol,
                out0[0][f], out0[1][f], out0[2][f], out0[3][f], out0[4][f])
        _front2(T[:, f], t1, N3[f] if use_rows else N0, n1, use_rows, m, tol, wtol,
                out1[0][f], out1[1][f], out1[2][f], out1[3][f], out1[4][f])
    return out0, out1


def ready() -> bool:
    """Both kernels are compiled in this process or cached on disk."""
    import sys

    return compiled.kernels_ready(sys.modules[__name__], ENTRIES)


def compile_all() -> None:
    """Compile (or load) both kernels on a tiny input."""
    indptr = np.array([0, 1, 2], np.int64)
    indices = np.array([0, 1], np.int64)
    y = np.array([0, 1], np.int64)
    w = np.ones(2)
    T = triple_counts(indptr, indices, y, w, np.arange(2, dtype=np.int64), 2, 2)
    node_sides(T, np.ones(2), np.zeros((2, 2, 2)), 2.0, False, 1, 1e-9, 0.5)
