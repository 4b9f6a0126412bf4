"""Depth 1 and 2 over every threshold, compiled (numba).  Depth 2: every root split of
every feature, and for each the leaf and best stump of each side, by one scan of each
feature's sorted rows per root position (O(F^2 m^2) for m rows, F features, with no
temporaries), combined into a front of leaf counts by :mod:`.depth2_front`; depth 1: one
scan per feature (the interval search's step on large subsets).

The same answer as :func:`~.dense.depth2` (tests hold them to it); it runs when numba is
importable, for every depth-2 subproblem of a depth-3 search.  The statistics are three
additive ones and the count; the leaf cost ``_leaf`` is squared error's ``(w, w y, w y^2)``
here, and another objective's in the copies :func:`for_objective` makes
(:mod:`.specialise`).
"""

from __future__ import annotations

import sys
from types import ModuleType, SimpleNamespace

import numpy as np

from ....compiled import numba_installed
from .data import GAIN, RegressionData, Tree
from .specialise import AdditiveObjective, specialise

KERNEL_LIMIT = 200_000_000
"""Largest ``(m F)^2`` the kernel takes (under a second, not interruptible); larger ones go
to the interval search, which checks the deadline at every split."""

_JITTED = False
"""Whether :func:`jit` has decorated the kernels (numba is imported then, not before: a fit
that never runs them never pays numba's import)."""


def _leaf(w: float, wy: float, wy2: float) -> float:
    """Squared error of a leaf with summed statistics ``(w, w y, w y^2)``."""
    if w <= 0.0:
        return 0.0
    value = wy2 - wy * wy / w
    return value if value > 0.0 else 0.0


def _root_fronts(X: np.ndarray, S: np.ndarray, order: np.ndarray, ranks: np.ndarray,
                 f: int, min_leaf: int) -> np.ndarray:
    """``(m - 1, 6)``: for each root position of feature ``f``, without penalties, the left
    child's cost as a leaf, its best stump with ``min_leaf`` and without (columns 0-2), and
    the right child's (3-5); every column inf where a position splits no value, a stump
    column inf where its child has no split."""
    F, m = order.shape
    out = np.full((m - 1, 6), np.inf)
    lw = lwy = lwy2 = 0.0
    tw = twy = twy2 = 0.0
    for j in range(m):
        r = order[f, j]
        tw += S[r, 0]
        twy += S[r, 1]
        twy2 += S[r, 2]
    for p in range(m - 1):
        r = order[f, p]
        lw += S[r, 0]
        lwy += S[r, 1]
        lwy2 += S[r, 2]
        if not X[order[f, p], f] < X[order[f, p + 1], f]:
            continue
        n_left, n_right = p + 1, m - p - 1
        rw, rwy, rwy2 = tw - lw, twy - lwy, twy2 - lwy2
        left_limited = left_free = right_limited = right_free = np.inf
        for g in range(F):
            aw = awy = awy2 = 0.0   # left child's rows before q in g's order
            bw = bwy = bwy2 = 0.0   # right child's
            an = bn = 0
            for q in range(m - 1):
                s = order[g, q]
                if ranks[g, q] <= p:
                    aw += S[s, 0]
                    awy += S[s, 1]
                    awy2 += S[s, 2]
                    an += 1
                else:
                    bw += S[s, 0]
                    bwy += S[s, 1]
                    bwy2 += S[s, 2]
                    bn += 1
                if not X[s, g] < X[order[g, q + 1], g]:
                    continue
                if 0 < an < n_left:
                    c = _leaf(aw, awy, awy2) + _leaf(lw - aw, lwy - awy, lwy2 - awy2)
                    left_free = min(left_free, c)
                    if an >= min_leaf and n_left - an >= min_leaf:
                        left_limited = min(left_limited, c)
                if 0 < bn < n_right:
                    c = _leaf(bw, bwy, bwy2) + _leaf(rw - bw, rwy - bwy, rwy2 - bwy2)
                    right_free = min(right_free, c)
                    if bn >= min_leaf and n_right - bn >= min_leaf:
                        right_limited = min(right_limited, c)
        out[p, 0] = _leaf(lw, lwy, lwy2)
        out[p, 1] = left_limited
        out[p, 2] = left_free
        out[p, 3] = _leaf(rw, rwy, rwy2)
        out[p, 4] = right_limited
        out[p, 5] = right_free
    return out


def _front_block(X: np.ndarray, S: np.ndarray, order: np.ndarray, scratch: np.ndarray,
                 f0: int, f1: int, min_leaf: int, gain: float, best: np.ndarray) -> None:
    """Root features ``f0 .. f1 - 1`` of a depth-2 front (:mod:`.depth2_front`), folded
    into ``best``: ``[cost, f, p, left side splits]`` of the best 3-leaf root split,
    ``[cost, f, p]`` of the best 4-leaf one, then the least 3- and 4-leaf costs without
    ``min_leaf``; a feature's split replaces the best only when cheaper by more than
    ``gain``, and within a feature the first position within ``gain`` of its least is
    taken.  ``scratch``: ``(n,)`` integers, every row's rank in the root feature's order."""
    F, m = order.shape
    ranks = np.empty((F, m), dtype=np.int64)
    three = np.empty(m - 1)
    four = np.empty(m - 1)
    for f in range(f0, f1):
        for j in range(m):
            scratch[order[f, j]] = j
        for g in range(F):
            for q in range(m):
                ranks[g, q] = scratch[order[g, q]]
        roots = _root_fronts(X, S, order, ranks, f, min_leaf)
        least3 = least4 = np.inf
        for p in range(m - 1):
            L, Ls, Lf, R, Rs, Rf = roots[p, 0], roots[p, 1], roots[p, 2], \
                roots[p, 3], roots[p, 4], roots[p, 5]
            best[7] = min(best[7], min(Lf + R, L + Rf))
            best[8] = min(best[8], Lf + Rf)
            if p + 1 >= min_leaf and m - p - 1 >= min_leaf:
                three[p], four[p] = min(Ls + R, L + Rs), Ls + Rs
            else:
                three[p] = four[p] = np.inf
            least3, least4 = min(least3, three[p]), min(least4, four[p])
        for p in range(m - 1):  # the first position within gain of the feature's least
            if three[p] <= least3 + gain:
                if three[p] < best[0] - gain:
                    best[0], best[1], best[2] = three[p], f, p
                    best[3] = 1.0 if roots[p, 1] + roots[p, 3] <= roots[p, 0] + roots[p, 4] \
                        else 0.0
                break
        for p in range(m - 1):
            if four[p] <= least4 + gain:
                if four[p] < best[4] - gain:
                    best[4], best[5], best[6] = four[p], f, p
                break


def _stump(X: np.ndarray, S: np.ndarray, order: np.ndarray, min_leaf: int,
           penalty: float, gain: float) -> tuple[float, float, int, int]:
    """``(cost, free_cost, feature, position)`` of the best leaf or stump of the subset
    (feature -1: the leaf), as :func:`~.stump.stump`."""
    F, m = order.shape
    tw = twy = twy2 = 0.0
    for j in range(m):
        r = order[0, j]
        tw += S[r, 0]
        twy += S[r, 1]
        twy2 += S[r, 2]
    leaf = free = _leaf(tw, twy, twy2) + penalty
    cost = np.inf
    best_f = best_p = -1
    for g in range(F):
        aw = awy = awy2 = 0.0
        for q in range(m - 1):
            s = order[g, q]
            aw += S[s, 0]
            awy += S[s, 1]
            awy2 += S[s, 2]
            if not X[s, g] < X[order[g, q + 1], g]:
                continue
            c = _leaf(aw, awy, awy2) + _leaf(tw - aw, twy - awy, twy2 - awy2) + 2 * penalty
            free = min(free, c)
            if q + 1 >= min_leaf and m - q - 1 >= min_leaf and c < cost - gain:
                cost, best_f, best_p = c, g, q
    if not cost < leaf - gain:  # a split must pay for its extra leaf
        return leaf, free, -1, -1
    return cost, free, best_f, best_p


def imported() -> bool:
    """Whether :func:`jit` has run (numba is imported in this process then)."""
    return _JITTED


def jit() -> None:
    """Decorate the kernels with numba (once; the machine code is compiled or loaded from
    numba's cache at their first call)."""
    global _leaf, _root_fronts, _front_block, _stump, _JITTED
    if _JITTED:
        return
    from numba import njit

    # _leaf first: the other two call it, and numba resolves it when they compile
    _leaf = njit(cache=True)(_leaf)
    _root_fronts = njit(cache=True)(_root_fronts)
    _front_block = njit(cache=True)(_front_block)
    _stump = njit(cache=True)(_stump)
    _JITTED = True


LEAF_KERNELS = ("_root_fronts", "_front_block", "_stump")
"""The kernels calling ``_leaf`` (copied per objective by :func:`for_objective`)."""

ENTRY_POINTS = ("_front_block", "_stump")
"""The kernels called from Python: their signatures say whether the set is loaded (a
callee such as ``_root_fronts`` is compiled into its caller and never gets one)."""


def for_objective(objective: AdditiveObjective) -> ModuleType | SimpleNamespace:
    """The compiled kernels of ``objective`` (its ``name`` and ``leaf_cost_kernel``): this
    module for squared error, else copies made for it (:func:`~.specialise.specialise`)."""
    jit()
    if objective.name == "squared_error":
        return sys.modules[__name__]
    return specialise(sys.modules[__name__], LEAF_KERNELS, objective.name,
                      objective.leaf_cost_kernel)


def available() -> bool:
    """Whether the compiled kernel can run (numba importable; checked without importing
    it)."""
    return numba_installed()


def loaded(kernel: ModuleType | SimpleNamespace | None = None) -> bool:
    """The kernels (this module's when None) have machine code in this process already
    (nothing left to pay)."""
    if kernel is None:
        if not _JITTED:
            return False
        kernel = sys.modules[__name__]
    return all(bool(getattr(kernel, name).signatures) for name in ENTRY_POINTS)


def stump_compiled(data: RegressionData, order: np.ndarray, min_leaf: int
                   ) -> tuple[float, float, Tree]:
    """:func:`~.stump.stump`, compiled (the kernels ``data.kernel``)."""
    cost, free, f, p = data.kernel._stump(data.X, data.stats, order, min_leaf, data.penalty,
                                          GAIN)
    if f < 0:
        return cost, free, None
    return cost, free, (f, data.threshold(order, f, p), None, None)


def compile_kernel(kernel: ModuleType | SimpleNamespace | None = None) -> None:
    """Compile (or load from numba's cache) the kernels (this module's when None) on a tiny
    problem."""
    if not available():
        return
    jit()
    kernel = sys.modules[__name__] if kernel is None else kernel
    X = np.array([[0.0], [1.0], [2.0]])
    S = np.array([[1.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 2.0, 4.0, 1.0]])
    order = np.array([[0, 1, 2]])
    kernel._front_block(X, S, order, np.zeros(3, dtype=np.int64), 0, 1, 1, GAIN,
                        np.full(9, np.inf))
    kernel._stump(X, S, order, 1, 0.0, GAIN)
