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
    1`` (all orders filled), from each row's 1-features (sorted in ``indices``).  Rows with
    many ones count each unordered triple once (``m_i^3 / 6`` for a row with ``m_i`` ones)
    and copy it to its other orders slab by slab (about ``K F^3`` more); sparse rows, where
    that copy would cost more than the ``m_i^3`` of every order, count every order."""
    F = n_features
    T = np.zeros((n_classes, F, F, F))
    every_order = 0.0
    for r in range(rows.shape[0]):
        m = indptr[rows[r] + 1] - indptr[rows[r]]
        every_order += float(m) * m * m
    all_orders = every_order < every_order / 6.0 + 2.0 * n_classes * float(F) ** 3
    for r in range(rows.shape[0]):
        i = rows[r]
        k = y[i]
        wi = w[i]
        lo, hi = indptr[i], indptr[i + 1]
        for p in range(lo, hi):
            f = indices[p]
            for q in range(lo if all_orders else p, hi):
                a = indices[q]
                for s in range(lo if all_orders else q, hi):
                    T[k, f, a, indices[s]] += wi
    if all_orders:
        return T
    for k in range(n_classes):  # slab by slab (rows copied in loops: a slice copy here
        # tripled the compile time)
        for f in range(F):
            for a in range(f, F):  # [f, a, b] for f <= a <= b: make slab f symmetric there
                for b in range(a + 1, F):
                    T[k, f, b, a] = T[k, f, a, b]
            for a in range(f):  # rows a < f: slab a is complete, and [f, a] = [a, f]
                for b in range(F):
                    T[k, f, a, b] = T[k, a, f, b]
            for a in range(f, F):  # the rest: [f, a, b] = [f, b, a] for b < f
                for b in range(f):
                    T[k, f, a, b] = T[k, f, b, a]
    return T


@njit(cache=True, nogil=True)
def _cell_stumps(T, G, D, t, N3, NG, n, use_rows, m, tol):
    """The best stump of every cell ``x_f = s1, x_a = s2`` of a depth-3 node (``f < a``,
    index ``2 s1 + s2``): its value ``c[e, f, a]`` (the larger class weight on each side of
    the split, summed) and split column ``arg[e, f, a]`` (the first of ties; -inf / -1: none
    keeps ``m`` rows a side, or the cell is pure within ``tol``).  Side ``s1`` of root ``f``
    and side ``s2`` of root ``a`` are the same rows, so each cell is searched once, not
    twice."""
    K, F = T.shape[0], T.shape[1]
    c = np.full((4, F, F), -np.inf)
    arg = np.full((4, F, F), -1)
    tot = np.empty((4, K))
    inside = np.empty((4, K))
    rows = np.zeros(4)
    rows_in = np.zeros(4)
    pure = np.zeros(4, np.bool_)
    for f in range(F):
        for a in range(f + 1, F):
            for k in range(K):  # the cells' class weights: (0, 0), (0, 1), (1, 0), (1, 1)
                g = G[k, f, a]
                tot[0, k] = t[k] - D[k, f] - D[k, a] + g
                tot[1, k] = D[k, a] - g
                tot[2, k] = D[k, f] - g
                tot[3, k] = g
            if use_rows:
                g = NG[f, a]
                rows[0] = n - NG[f, f] - NG[a, a] + g
                rows[1] = NG[a, a] - g
                rows[2] = NG[f, f] - g
                rows[3] = g
            mixed = False
            for e in range(4):  # a pure cell's stump cannot beat its leaf: not searched
                top = -np.inf
                total = 0.0
                for k in range(K):
                    top = max(top, tot[e, k])
                    total += tot[e, k]
                pure[e] = total - top <= tol
                mixed = mixed or not pure[e]
            for b in range(F if mixed else 0):
                for k in range(K):  # ... with x_b = 1
                    x = T[k, f, a, b]
                    inside[0, k] = D[k, b] - G[k, f, b] - G[k, a, b] + x
                    inside[1, k] = G[k, a, b] - x
                    inside[2, k] = G[k, f, b] - x
                    inside[3, k] = x
                if use_rows:
                    x = N3[f, a, b]
                    rows_in[0] = NG[b, b] - NG[f, b] - NG[a, b] + x
                    rows_in[1] = NG[a, b] - x
                    rows_in[2] = NG[f, b] - x
                    rows_in[3] = x
                for e in range(4):
                    if pure[e] or use_rows and (rows_in[e] < m or rows[e] - rows_in[e] < m):
                        continue
                    m1 = -np.inf
                    m0 = -np.inf
                    for k in range(K):
                        m1 = max(m1, inside[e, k])
                        m0 = max(m0, tot[e, k] - inside[e, k])
                    if m1 + m0 > c[e, f, a]:
                        c[e, f, a] = m1 + m0
                        arg[e, f, a] = b
    return c, arg


@njit(cache=True, nogil=True)
def _side_front(s1, f, c, arg, G, D, t, NG, n, use_rows, m, tol, wtol,
                vals, root, child0, child1, left):
    """The depth-2 front of side ``s1`` of root ``f`` of a depth-3 node, from its cells'
    stumps (:func:`_cell_stumps`), into ``vals`` / ``root`` (4) and ``child0`` / ``child1``
    / ``left`` (F): eqs. 27-30 of accelerated BendOCT (B.1), with the order and ties of
    :func:`.leaf_fronts.depth2_fronts`."""
    K, F = D.shape[0], D.shape[1]
    ts = np.empty(K)
    leaf = -np.inf
    tot = 0.0
    for k in range(K):
        ts[k] = D[k, f] if s1 else t[k] - D[k, f]
        leaf = max(leaf, ts[k])
        tot += ts[k]
    n_side = 0.0
    if use_rows:
        n_side = NG[f, f] if s1 else n - NG[f, f]
    best2, best3, best4 = -np.inf, -np.inf, -np.inf
    r2, r3, r4 = -1, -1, -1
    for a in range(F if leaf < tot else 0):  # one class only: the leaf is every optimum
        if a == f:
            continue  # f leaves one of its own sides empty
        W1 = 0.0
        l1 = -np.inf
        l0 = -np.inf
        for k in range(K):
            w1 = G[k, f, a] if s1 else D[k, a] - G[k, f, a]  # the side's weight with x_a = 1
            W1 += w1
            l1 = max(l1, w1)
            l0 = max(l0, ts[k] - w1)
        if not (W1 > wtol and tot - W1 > wtol):
            continue
        if use_rows:
            na = NG[f, a] if s1 else NG[a, a] - NG[f, a]
            if na < m or n_side - na < m:
                continue
        if l0 + l1 > best2:
            best2, r2 = l0 + l1, a
        # the stumps under side 1 (x_a = 1) and side 0 of a: cells (s1, 1) and (s1, 0)
        if f < a:
            c1, b1 = c[2 * s1 + 1, f, a], arg[2 * s1 + 1, f, a]
            c0, b0 = c[2 * s1, f, a], arg[2 * s1, f, a]
        else:
            c1, b1 = c[2 + s1, a, f], arg[2 + s1, a, f]
            c0, b0 = c[s1, a, f], arg[s1, a, f]
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
    rows ``n`` (read when ``use_rows``).  Outputs as :func:`.leaf_fronts.depth2_fronts`'s,
    side 0's then side 1's, each over f."""
    K, F = T.shape[0], T.shape[1]
    out0 = _outputs(F, F)
    out1 = _outputs(F, F)
    G = np.empty((K, F, F))
    D = np.empty((K, F))
    for k in range(K):
        for a in range(F):
            D[k, a] = T[k, a, a, a]
            for b in range(F):
                G[k, a, b] = T[k, a, a, b]
    NG = np.zeros((F, F))
    if use_rows:
        for a in range(F):
            for b in range(F):
                NG[a, b] = N3[a, a, b]
    c, arg = _cell_stumps(T, G, D, t, N3, NG, n, use_rows, m, tol)
    tot = 0.0
    for k in range(K):
        tot += t[k]
    for f in range(F):
        W1 = 0.0
        for k in range(K):
            W1 += D[k, f]
        if not (W1 > wtol and tot - W1 > wtol) or \
                (use_rows and (NG[f, f] < m or n - NG[f, f] < m)):
            out0[0][f, :] = 0.0  # f cannot split the node: its sides are never read
            out1[0][f, :] = 0.0
            continue
        _side_front(0, f, c, arg, G, D, t, NG, n, use_rows, m, tol, wtol,
                    out0[0][f], out0[1][f], out0[2][f], out0[3][f], out0[4][f])
        _side_front(1, f, c, arg, G, D, t, NG, n, use_rows, m, tol, wtol,
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
