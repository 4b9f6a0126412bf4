"""Compiled depth-3 children of a depth-4 node of the λ-path, sharing their cells across the
node's root features (issue #44: the path's cost against one fit).

A depth-3 node's front needs the best stump of each cell ``x_g = s1, x_a = s2`` of its rows
(:func:`.front_kernels._cell_stumps`).  Under a depth-4 node, side ``x_f = s`` of root ``f``
has the cells ``{x_f = s, x_g = s1, x_a = s2}``: the same row set as side ``x_g = s1`` of root
``g``'s cell ``{x_f = s, x_a = s2}``, so searching every root feature of the node found each
three-literal cell's stump three times, each from a full ``K x F^3`` count of triples.  Here
root ``f`` counts and searches only the cells of pairs ``g < a`` that no root searched before
it took (the rest are read from a memo by literal set), and the larger side's counts are the
node's minus the smaller's inside the loop (no ``K x F^3`` difference array).  Over every
root feature that is about a third of the cells; the fronts are those of
:func:`.front_kernels.node_sides` on each side (the same formulas and order; a cell met
again has the stump of its first search, equal up to float rounding of non-integer weights).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .... import compiled
from .front_kernels import _side_front
from .kernels import _popcount, class_bits

__all__ = ["compile_all", "count_bits", "count_new", "memo_size", "new_cells", "ready",
           "root_sides", "triple_bits"]

ENTRIES = ("count_bits", "count_new", "new_cells", "root_sides", "triple_bits")


def memo_size(n_features: int) -> int:
    """Entries of the memo of a node with ``n_features`` features: 8 sign patterns of each
    set of three features."""
    F = n_features
    return 8 * (F * (F - 1) * (F - 2) // 6)


@njit(cache=True, nogil=True)
def _slot(f, s, g, s1, a, s2):
    """The memo's index of the cell ``{x_f = s, x_g = s1, x_a = s2}`` (distinct features):
    the features sorted, the sets of three packed, then the three signs in that order."""
    if f > g:
        f, s, g, s1 = g, s1, f, s
    if g > a:
        g, s1, a, s2 = a, s2, g, s1
    if f > g:
        f, s, g, s1 = g, s1, f, s
    return 8 * (a * (a - 1) * (a - 2) // 6 + g * (g - 1) // 2 + f) + 4 * s + 2 * s1 + s2


@njit(cache=True, nogil=True)
def count_new(indptr, indices, y, w, rows, new, K, Ts, G, t):
    """Counts of ``rows`` (each row's 1-features sorted in ``indices``): ``Ts[k, i, j, l]``
    the class-k weight with ``x_i = x_j = x_l = 1`` for ``i < j < l`` of which at least two
    are ``new`` (the triples the cells of new pairs read, :func:`_new_cells`; other entries
    untouched), the pairs ``G[k, a, b]`` (every order) and class weights ``t``, each summed
    in row order as :func:`.front_kernels.triple_counts` sums them."""
    F = new.shape[0]
    for i in range(F):
        for j in range(i + 1, F):
            if new[i] or new[j]:
                for h in range(j + 1, F):
                    if new[h] or (new[i] and new[j]):
                        for k in range(K):
                            Ts[k, i, j, h] = 0.0
    for k in range(K):
        t[k] = 0.0
        for a in range(F):
            for b in range(F):
                G[k, a, b] = 0.0
    for r in range(rows.shape[0]):
        i = rows[r]
        k = y[i]
        wi = w[i]
        t[k] += wi
        lo, hi = indptr[i], indptr[i + 1]
        for p in range(lo, hi):
            g = indices[p]
            for q in range(lo, hi):
                G[k, g, indices[q]] += wi
            for q in range(p + 1, hi):
                a = indices[q]
                both = new[g] and new[a]
                if not (both or new[g] or new[a]):
                    continue
                for s in range(q + 1, hi):
                    b = indices[s]
                    if both or new[b]:
                        Ts[k, g, a, b] += wi


@njit(cache=True, nogil=True)
def count_bits(indptr, indices, y, rows, new, K, Ts, G, t):
    """:func:`count_new` for unit weights, from one bitset per (class, feature) over the
    rows (MurTree §4.4's counts, as :func:`.kernels.gram_bits`): each triple a popcount of
    three bitsets, ``F^3 / 6`` of them at most instead of each row's ``m^3 / 6``; the same
    counts (whole numbers) in the same entries."""
    F = new.shape[0]
    B, words, counts = class_bits(indptr, indices, y, rows, K, F)
    for k in range(K):
        t[k] = counts[k]
    v = np.empty(B.shape[2], np.uint64)
    for k in range(K):
        m = words[k]
        for i in range(F):
            bi = B[k, i]
            for j in range(i, F):
                c = _and_count(bi, B[k, j], v, m)
                G[k, i, j] = c
                G[k, j, i] = c
                if j == i or not (new[i] or new[j]):
                    continue
                for h in range(j + 1, F):
                    if new[h] or (new[i] and new[j]):
                        bh = B[k, h]
                        e = np.uint64(0)
                        for q in range(m if c else 0):
                            e += _popcount(v[q] & bh[q])
                        Ts[k, i, j, h] = e


@njit(cache=True, nogil=True, inline="always")
def _and_count(bi, bj, v, m):
    """``v[:m] = bi & bj`` (the rows with both features, for the triples of the pair) and
    its popcount."""
    c = np.uint64(0)
    for q in range(m):
        v[q] = bi[q] & bj[q]
        c += _popcount(v[q])
    return c


@njit(cache=True, nogil=True)
def triple_bits(indptr, indices, y, rows, K, F):
    """:func:`.front_kernels.triple_counts` for unit weights: ``T[k, f, a, b]`` (every
    order) from a popcount of three class bitsets per unordered triple, ``F^3 / 6`` of them
    instead of each row's ``m^3 / 6`` adds; the same whole numbers."""
    B, words, _ = class_bits(indptr, indices, y, rows, K, F)
    T = np.zeros((K, F, F, F))
    v = np.empty(B.shape[2], np.uint64)
    for k in range(K):
        m = words[k]
        for i in range(F):
            bi = B[k, i]
            for j in range(i, F):
                c = _and_count(bi, B[k, j], v, m)
                if c == 0:
                    continue  # (every triple holding i and j is 0 too)
                T[k, i, i, j] = T[k, i, j, i] = T[k, j, i, i] = c
                T[k, i, j, j] = T[k, j, i, j] = T[k, j, j, i] = c
                for h in range(j + 1, F):
                    bh = B[k, h]
                    e = np.uint64(0)
                    for q in range(m):
                        e += _popcount(v[q] & bh[q])
                    T[k, i, j, h] = T[k, i, h, j] = T[k, j, i, h] = e
                    T[k, j, h, i] = T[k, h, i, j] = T[k, h, j, i] = e
    return T


@njit(cache=True, nogil=True)
def new_cells(f, small, Tp, Ts, Gs, G, D, t, Np, Ns, NGs, NG, nn, new, use_rows, m, tol,
              memo_c, memo_arg):
    """The stumps of the cells ``{x_f = s, x_g = s1, x_a = s2}`` of every pair ``g < a`` of
    ``new`` features, both children ``s`` of root ``f`` in one pass, into the memo: the
    value and split of :func:`.front_kernels._cell_stumps` on child ``s``'s counts (``G``,
    ``D``, ``t``, row counts ``NG`` and ``nn``; triples: the ``small`` child's ``Ts`` /
    ``Ns`` from :func:`count_new` / :func:`count_bits` with pairs ``Gs`` / ``NGs``, the
    other's the node's ``Tp`` / ``Np`` minus them) (``b`` in increasing order
    for each pair, so the same first of ties).  For each ``g`` the pairs ``(g, a)`` advance
    together over ``b``: the counts read run along ``a``, contiguous."""
    K, F = Tp.shape[0], Tp.shape[1]
    tot = np.empty((F, 8, K))
    rows = np.zeros((F, 8))
    pure = np.zeros((F, 8), np.bool_)
    mixed = np.zeros(F, np.bool_)
    live = np.zeros((F, 2), np.bool_)  # child s has a cell that is not pure
    best = np.empty((F, 8))
    barg = np.empty((F, 8), np.int64)
    inside = np.empty((8, K))
    rows_in = np.zeros(8)
    x = np.empty(2)
    nx = np.empty(2)
    for g in range(F):
        if not new[g]:
            continue
        for a in range(g + 1, F):
            mixed[a] = live[a, 0] = live[a, 1] = False
            if not new[a]:
                continue
            for s in range(2):
                for k in range(K):  # cells (0, 0), (0, 1), (1, 0), (1, 1) of side s
                    gg = G[s, k, g, a]
                    tot[a, 4 * s, k] = t[s, k] - D[s, k, g] - D[s, k, a] + gg
                    tot[a, 4 * s + 1, k] = D[s, k, a] - gg
                    tot[a, 4 * s + 2, k] = D[s, k, g] - gg
                    tot[a, 4 * s + 3, k] = gg
                if use_rows:
                    gg = NG[s, g, a]
                    rows[a, 4 * s] = nn[s] - NG[s, g, g] - NG[s, a, a] + gg
                    rows[a, 4 * s + 1] = NG[s, a, a] - gg
                    rows[a, 4 * s + 2] = NG[s, g, g] - gg
                    rows[a, 4 * s + 3] = gg
            for e in range(8):  # a pure cell's stump cannot beat its leaf: not searched
                top = -np.inf
                total = 0.0
                for k in range(K):
                    top = max(top, tot[a, e, k])
                    total += tot[a, e, k]
                pure[a, e] = total - top <= tol
                live[a, e // 4] = live[a, e // 4] or not pure[a, e]
                mixed[a] = mixed[a] or not pure[a, e]
                best[a, e] = -np.inf
                barg[a, e] = -1
        for b in range(F):
            for a in range(g + 1, F):
                if not mixed[a]:
                    continue
                for k in range(K):  # ... with x_b = 1
                    if b < g:  # the smaller side's triples, stored sorted (count_new)
                        xs = Ts[k, b, g, a]
                    elif b == g or b == a:
                        xs = Gs[k, g, a]
                    elif b < a:
                        xs = Ts[k, g, b, a]
                    else:
                        xs = Ts[k, g, a, b]
                    x[small] = xs
                    x[1 - small] = Tp[k, g, b, a] - xs
                    for s in range(2):
                        if not live[a, s]:
                            continue  # every cell of child s is pure: none is read
                        inside[4 * s, k] = (D[s, k, b] - G[s, k, g, b] - G[s, k, b, a]
                                            + x[s])
                        inside[4 * s + 1, k] = G[s, k, b, a] - x[s]
                        inside[4 * s + 2, k] = G[s, k, g, b] - x[s]
                        inside[4 * s + 3, k] = x[s]
                if use_rows:
                    if b < g:
                        xs = Ns[0, b, g, a]
                    elif b == g or b == a:
                        xs = NGs[0, g, a]
                    elif b < a:
                        xs = Ns[0, g, b, a]
                    else:
                        xs = Ns[0, g, a, b]
                    nx[small] = xs
                    nx[1 - small] = Np[g, b, a] - xs
                    for s in range(2):
                        rows_in[4 * s] = NG[s, b, b] - NG[s, g, b] - NG[s, b, a] + nx[s]
                        rows_in[4 * s + 1] = NG[s, b, a] - nx[s]
                        rows_in[4 * s + 2] = NG[s, g, b] - nx[s]
                        rows_in[4 * s + 3] = nx[s]
                for e in range(8):
                    if pure[a, e] or use_rows and (rows_in[e] < m or
                                                   rows[a, e] - rows_in[e] < m):
                        continue
                    m1 = -np.inf
                    m0 = -np.inf
                    for k in range(K):
                        m1 = max(m1, inside[e, k])
                        m0 = max(m0, tot[a, e, k] - inside[e, k])
                    if m1 + m0 > best[a, e]:
                        best[a, e] = m1 + m0
                        barg[a, e] = b
        for a in range(g + 1, F):
            if not new[a]:
                continue
            for e in range(8):
                s, s1, s2 = e // 4, (e // 2) % 2, e % 2
                slot = _slot(f, s, g, s1, a, s2)
                memo_c[slot] = best[a, e]
                memo_arg[slot] = barg[a, e]


@njit(cache=True, nogil=True)
def root_sides(f, G, D, t, NG, nn, use_rows, m, tol, wtol, memo_c, memo_arg):
    """The depth-2 fronts of both sides of every root ``g`` of both depth-3 children
    (``x_f = 0``, ``x_f = 1``) of root ``f`` of a depth-4 node, from the children's pairs
    ``G`` (2 x K x F x F), singles ``D``, class weights ``t``, row pairs ``NG`` (read when
    ``use_rows``) and rows ``nn``, and the memo's cells (:func:`new_cells` has put those
    of root ``f``'s new pairs there).  Returns :func:`.front_kernels.node_sides`' five
    outputs, each with two leading axes: the child and the side of its root ``g``."""
    K, F = G.shape[1], G.shape[2]
    # outputs by (child s, side of its root g, g): node_sides' five arrays, one call site
    vals = np.empty((2, 2, F, 4))
    root = np.full((2, 2, F, 4), -1)
    child0 = np.full((2, 2, F, F), -1)
    child1 = np.full((2, 2, F, F), -1)
    left = np.zeros((2, 2, F, F), np.bool_)
    c = np.full((4, F, F), -np.inf)
    arg = np.full((4, F, F), -1)
    for s in range(2):
        for g in range(F):  # the cells of child s, as its own _cell_stumps lays them out
            for a in range(g + 1, F):
                if g == f or a == f:
                    continue  # never read: f leaves one of its own sides empty
                for e in range(4):
                    slot = _slot(f, s, g, e // 2, a, e % 2)
                    c[e, g, a] = memo_c[slot]
                    arg[e, g, a] = memo_arg[slot]
        tot = 0.0
        for k in range(K):
            tot += t[s, k]
        for g in range(F):
            W1 = 0.0
            for k in range(K):
                W1 += D[s, k, g]
            if not (W1 > wtol and tot - W1 > wtol) or \
                    (use_rows and (NG[s, g, g] < m or nn[s] - NG[s, g, g] < m)):
                for j in range(4):  # g cannot split the child: its sides are never read
                    vals[s, 0, g, j] = vals[s, 1, g, j] = 0.0
                continue
            for side in range(2):
                _side_front(side, g, c, arg, G[s], D[s], t[s], NG[s], nn[s], use_rows, m,
                            tol, wtol, vals[s, side, g], root[s, side, g],
                            child0[s, side, g], child1[s, side, g], left[s, side, g])
    return vals, root, child0, child1, left


def ready() -> bool:
    """Both kernels are compiled in this process or cached on disk."""
    import sys

    return compiled.kernels_ready(sys.modules[__name__], ENTRIES)


def compile_all() -> None:
    """Compile (or load) both kernels on a tiny input (three features, one root)."""
    indptr = np.array([0, 3, 3], np.int64)
    indices = np.array([0, 1, 2], np.int64)
    y = np.array([0, 1], np.int64)
    w = np.ones(2)
    new = np.array([False, True, True])
    Ts, Gs, ts = np.zeros((2, 3, 3, 3)), np.zeros((2, 3, 3)), np.zeros(2)
    rows = np.array([0], np.int64)
    count_bits(indptr, indices, y, rows, new, 2, Ts, Gs, ts)
    triple_bits(indptr, indices, y, rows, 2, 3)
    count_new(indptr, indices, y, w, rows, new, 2, Ts, Gs, ts)
    Tp = Ts.copy()
    Tp[0] = 1.0
    memo_c, memo_arg = np.empty(memo_size(3)), np.empty(memo_size(3), np.int64)
    G, D, t = np.ones((2, 2, 3, 3)), np.ones((2, 2, 3)), np.ones((2, 2))
    NG, nn = np.zeros((2, 1, 1)), np.ones(2)
    new_cells(0, 1, Tp, Ts, Gs, G, D, t, np.zeros((1, 1, 1)), np.zeros((1, 1, 1, 1)),
              np.zeros((1, 1, 1)), NG, nn, new, False, 1, 1e-9, memo_c, memo_arg)
    root_sides(0, G, D, t, NG, nn, False, 1, 1e-9, 0.5, memo_c, memo_arg)
