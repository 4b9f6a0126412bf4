"""Trees on 0/1 features, compiled (numba): depth 2 from pair sums, depth 3 as a loop over
root features with cached depth-2 children (issue #43, STreeD-style).

Row statistics are three additive ones and the count, ``S[i] = (w, w y, w y^2, 1)`` for
squared error, whose leaf cost ``_leaf`` is this module's; another objective's kernels are
copies with its own leaf cost (:func:`for_objective`, :mod:`.specialise`).  For a row
subset, ``P[f, g]`` (f <= g) sums the statistics of its rows with ``x_f = x_g = 1``
(``P[f, f]``: with ``x_f = 1``); with the subset's total ``T`` every cell of a depth-2 tree
is one of ``P[f, g]``, ``P[f, f] - P[f, g]``, ``P[g, g] - P[f, g]`` or
``T - P[f, f] - P[g, g] + P[f, g]``, so the best depth-2 tree costs O(F^2) once ``P`` is
known (O(m k^2), k ones per row).  A child's ``P`` is its parent's less its sibling's: only
the smaller side is summed.

A subset is named by two 64-bit sums of random per-row keys (``z``, wrapping): the depth-2
cache's key.  Two different subsets share it with probability about 2^-128 per pair.
"""

from __future__ import annotations

import sys
from types import ModuleType, SimpleNamespace

import numpy as np

from .specialise import AdditiveObjective, specialise

_JITTED = False
_LOADED = False


def _leaf(w: float, wy: float, wy2: float) -> float:
    """Squared error of a leaf with summed statistics ``(w, w y, w y^2)``."""
    if w <= 0.0:
        return 0.0
    value = wy2 - wy * wy / w
    return value if value > 0.0 else 0.0


def _ones(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(ptr, ones)``: the features of row ``r`` that are 1 are ``ones[ptr[r]:ptr[r+1]]``,
    increasing."""
    n, F = X.shape
    ptr = np.zeros(n + 1, dtype=np.int64)
    for r in range(n):
        c = 0
        for f in range(F):
            if X[r, f]:
                c += 1
        ptr[r + 1] = ptr[r] + c
    ones = np.empty(ptr[n], dtype=np.int64)
    for r in range(n):
        a = ptr[r]
        for f in range(F):
            if X[r, f]:
                ones[a] = f
                a += 1
    return ptr, ones


def _key(rows: np.ndarray, z: np.ndarray) -> tuple[int, int]:
    a = np.int64(0)
    b = np.int64(0)
    for r in rows:
        a += z[r, 0]
        b += z[r, 1]
    return a, b


def _total(rows: np.ndarray, S: np.ndarray) -> np.ndarray:
    T = np.zeros(4)
    for r in rows:
        for k in range(4):
            T[k] += S[r, k]
    return T


def _column_sums(rows: np.ndarray, X: np.ndarray, S: np.ndarray) -> np.ndarray:
    """``C[f]``: the statistics summed over the subset's rows with ``x_f = 1``."""
    C = np.zeros((X.shape[1], 4))
    for r in rows:
        for f in range(X.shape[1]):
            if X[r, f]:
                for k in range(4):
                    C[f, k] += S[r, k]
    return C


def _pairs(rows: np.ndarray, ptr: np.ndarray, ones: np.ndarray, S: np.ndarray,
           P: np.ndarray) -> None:
    """``P[f, g]`` (f <= g) of the subset ``rows`` (``ones[ptr[r]:ptr[r+1]]``: the features
    of row ``r`` that are 1, increasing); written through a flat view (18 % faster than
    indexing ``P[f, g, k]``: attrition, 96 features)."""
    F = P.shape[0]
    Q = P.reshape(F * F * 4)
    Q[:] = 0.0
    for r in rows:
        s0, s1, s2, s3 = S[r, 0], S[r, 1], S[r, 2], S[r, 3]
        a1 = ptr[r + 1]
        for a in range(ptr[r], a1):
            base = ones[a] * F * 4
            for b in range(a, a1):
                i = base + ones[b] * 4
                Q[i] += s0
                Q[i + 1] += s1
                Q[i + 2] += s2
                Q[i + 3] += s3


def _best_side(P: np.ndarray, side: np.ndarray, f: int, x: int, min_leaf: float,
               penalty: float, gain: float) -> tuple[float, int]:
    """Best leaf or stump of the rows of the subset with ``x_f = x`` (statistics ``side``);
    ``(cost, g)`` with ``g = -1`` for the leaf."""
    F = P.shape[0]
    best = _leaf(side[0], side[1], side[2]) + penalty
    where = -1
    n = side[3]
    for g in range(F):
        if g == f:
            continue
        lo, hi = (f, g) if f < g else (g, f)
        # a: the side's rows with x_g = 1
        if x == 1:
            aw, awy, awy2, an = P[lo, hi, 0], P[lo, hi, 1], P[lo, hi, 2], P[lo, hi, 3]
        else:
            aw = P[g, g, 0] - P[lo, hi, 0]
            awy = P[g, g, 1] - P[lo, hi, 1]
            awy2 = P[g, g, 2] - P[lo, hi, 2]
            an = P[g, g, 3] - P[lo, hi, 3]
        bn = n - an
        if an < min_leaf or bn < min_leaf or an < 0.5 or bn < 0.5:
            continue
        c = (_leaf(aw, awy, awy2) + _leaf(side[0] - aw, side[1] - awy, side[2] - awy2)
             + 2.0 * penalty)
        if c < best - gain:
            best, where = c, g
    return best, where


def _depth2(P: np.ndarray, T: np.ndarray, min_leaf: float, penalty: float, gain: float
            ) -> tuple[float, int, int, int]:
    """``(cost, f, g_left, g_right)``: the best tree of depth <= 2 of a subset with pair sums
    ``P`` and total ``T`` (f = -1: a leaf; g = -1: that child is a leaf; left: ``x_f = 0``)."""
    F = P.shape[0]
    best = _leaf(T[0], T[1], T[2]) + penalty
    bf = bl = br = -1
    left = np.empty(4)
    for f in range(F):
        right = P[f, f]
        for k in range(4):
            left[k] = T[k] - right[k]
        if right[3] < min_leaf or left[3] < min_leaf or right[3] < 0.5 or left[3] < 0.5:
            continue
        cr, gr = _best_side(P, right, f, 1, min_leaf, penalty, gain)
        if cr + penalty >= best - gain:
            continue
        cl, gl = _best_side(P, left, f, 0, min_leaf, penalty, gain)
        if cl + cr < best - gain:
            best, bf, bl, br = cl + cr, f, gl, gr
    return best, bf, bl, br


def _depth1(rows: np.ndarray, X: np.ndarray, S: np.ndarray, min_leaf: float,
            penalty: float, gain: float) -> tuple[float, int]:
    """``(cost, f)``: the best leaf (f = -1) or stump of the subset."""
    F = X.shape[1]
    T = _total(rows, S)
    C = _column_sums(rows, X, S)
    best = _leaf(T[0], T[1], T[2]) + penalty
    bf = -1
    for f in range(F):
        n1 = C[f, 3]
        n0 = T[3] - n1
        if n1 < min_leaf or n0 < min_leaf or n1 < 0.5 or n0 < 0.5:
            continue
        c = (_leaf(C[f, 0], C[f, 1], C[f, 2])
             + _leaf(T[0] - C[f, 0], T[1] - C[f, 1], T[2] - C[f, 2]) + 2.0 * penalty)
        if c < best - gain:
            best, bf = c, f
    return best, bf


def _split(rows: np.ndarray, X: np.ndarray, f: int) -> tuple[np.ndarray, np.ndarray]:
    """The subset's rows with ``x_f = 0`` and with ``x_f = 1`` (one pass, in order)."""
    left = np.empty(len(rows), dtype=np.int64)
    right = np.empty(len(rows), dtype=np.int64)
    i = j = 0
    for r in rows:
        if X[r, f]:
            right[j] = r
            j += 1
        else:
            left[i] = r
            i += 1
    return left[:i], right[:j]


def _stump_order(rows: np.ndarray, X: np.ndarray, S: np.ndarray, penalty: float
                 ) -> np.ndarray:
    """Features by increasing cost of their stump on the subset (good splits first)."""
    F = X.shape[1]
    T = _total(rows, S)
    C = _column_sums(rows, X, S)
    cost = np.empty(F)
    for f in range(F):
        cost[f] = (_leaf(C[f, 0], C[f, 1], C[f, 2])
                   + _leaf(T[0] - C[f, 0], T[1] - C[f, 1], T[2] - C[f, 2]))
    return np.argsort(cost, kind="mergesort")


def _solve2(rows: np.ndarray, X: np.ndarray, ptr: np.ndarray, ones: np.ndarray,
            S: np.ndarray, z: np.ndarray, cache: dict, P: np.ndarray, min_leaf: float,
            penalty: float, gain: float) -> tuple[float, int, int, int]:
    """:func:`_depth2` of the subset ``rows``, cached by its key."""
    key = _key(rows, z)
    if key in cache:
        return cache[key]
    _pairs(rows, ptr, ones, S, P)
    found = _depth2(P, _total(rows, S), min_leaf, penalty, gain)
    cache[key] = found
    return found


def _children2(left: np.ndarray, right: np.ndarray, kp: tuple[int, int], Ppar: np.ndarray,
               Tpar: np.ndarray, ptr: np.ndarray, ones: np.ndarray, S: np.ndarray,
               z: np.ndarray, cache: dict, P: np.ndarray, min_leaf: float, penalty: float,
               gain: float) -> tuple[float, float]:
    """Depth-2 costs of both children of a split of a subset with key ``kp`` and pair sums
    ``Ppar``: the smaller child summed, the other by difference (each cached; the larger
    child's key too is the parent's less the smaller's)."""
    small_is_left = len(left) <= len(right)
    ks = _key(left if small_is_left else right, z)
    ko = (kp[0] - ks[0], kp[1] - ks[1])
    kl, kr = (ks, ko) if small_is_left else (ko, ks)
    hit_l, hit_r = kl in cache, kr in cache
    if not (hit_l and hit_r):
        small = left if len(left) <= len(right) else right
        _pairs(small, ptr, ones, S, P)
        Ts = _total(small, S)
        found_s = _depth2(P, Ts, min_leaf, penalty, gain)
        flat, parent = P.reshape(P.size), Ppar.reshape(Ppar.size)
        for i in range(P.size):
            flat[i] = parent[i] - flat[i]
        found_o = _depth2(P, Tpar - Ts, min_leaf, penalty, gain)
        if len(left) <= len(right):
            cache[kl], cache[kr] = found_s, found_o
        else:
            cache[kl], cache[kr] = found_o, found_s
    return cache[kl][0], cache[kr][0]


def _depth3(rows: np.ndarray, X: np.ndarray, ptr: np.ndarray, ones: np.ndarray,
            S: np.ndarray, z: np.ndarray, cache: dict, min_leaf: float, penalty: float,
            gain: float, ub: float) -> tuple[float, int]:
    """``(cost, f)`` of the best tree of depth <= 3 of the subset (f = -1: a leaf), if one
    costs less than ``ub``; else a cost >= ``ub`` (the optimum is >= ``ub`` then)."""
    F = X.shape[1]
    T = _total(rows, S)
    best = _leaf(T[0], T[1], T[2]) + penalty
    bf = -1
    if best < 2.0 * penalty + gain:  # no split pays for its second leaf
        return best, bf
    Ppar = np.empty((F, F, 4))
    _pairs(rows, ptr, ones, S, Ppar)
    P = np.empty((F, F, 4))
    kp = _key(rows, z)
    for f in _stump_order(rows, X, S, penalty):
        n1 = Ppar[f, f, 3]
        n0 = T[3] - n1
        if n1 < min_leaf or n0 < min_leaf or n1 < 0.5 or n0 < 0.5:
            continue
        bound = min(best, ub)
        if 2.0 * penalty >= bound - gain:
            break
        left, right = _split(rows, X, f)
        cl, cr = _children2(left, right, kp, Ppar, T, ptr, ones, S, z, cache, P, min_leaf,
                            penalty, gain)
        if cl + cr < best - gain:
            best, bf = cl + cr, f
    return best, bf


def imported() -> bool:
    """Whether :func:`jit` has run (numba is imported in this process then)."""
    return _JITTED


def jit() -> None:
    """Decorate the kernels with numba (once; compiled or loaded from the cache at the first
    call)."""
    global _leaf, _ones, _key, _total, _column_sums, _pairs, _best_side, _depth2, _depth1
    global _split, _stump_order
    global _solve2, _children2, _depth3, _JITTED
    if _JITTED:
        return
    from numba import njit

    _leaf = njit(cache=True)(_leaf)
    _ones = njit(cache=True)(_ones)
    _key = njit(cache=True)(_key)
    _total = njit(cache=True)(_total)
    _column_sums = njit(cache=True)(_column_sums)
    _pairs = njit(cache=True)(_pairs)
    _best_side = njit(cache=True)(_best_side)
    _depth2 = njit(cache=True)(_depth2)
    _depth1 = njit(cache=True)(_depth1)
    _split = njit(cache=True)(_split)
    _stump_order = njit(cache=True)(_stump_order)
    _solve2 = njit(cache=True)(_solve2)
    _children2 = njit(cache=True)(_children2)
    _depth3 = njit(cache=True)(_depth3)
    _JITTED = True


ENTRY_POINTS = ["_ones", "_key", "_depth1", "_depth2", "_solve2", "_depth3", "_split",
                "_children2",
                "_pairs", "_stump_order"]

LEAF_KERNELS = ("_best_side", "_depth2", "_depth1", "_stump_order", "_solve2", "_children2",
                "_depth3")
"""The kernels that call ``_leaf`` (directly or through another); the others
(``_ones``, ``_key``, ``_total``, ``_column_sums``, ``_pairs``, ``_split``) serve every
objective."""


def for_objective(objective: AdditiveObjective | None
                  ) -> ModuleType | SimpleNamespace:
    """The compiled kernels of ``objective`` (its ``name`` and ``leaf_cost_kernel``): this
    module for squared error, else copies made for it, with this module's
    objective-free kernels."""
    jit()
    module = sys.modules[__name__]
    if objective is None or objective.name == "squared_error":
        return module
    kernels = specialise(module, LEAF_KERNELS, objective.name, objective.leaf_cost_kernel)
    for name in set(ENTRY_POINTS) - set(LEAF_KERNELS):
        setattr(kernels, name, getattr(module, name))
    return kernels


def new_cache() -> dict:
    """An empty depth-2 cache (a numba typed dict: subset key -> :func:`_depth2`'s answer)."""
    from numba import types
    from numba.typed import Dict

    return Dict.empty(key_type=types.UniTuple(types.int64, 2),
                      value_type=types.Tuple((types.float64, types.int64, types.int64,
                                              types.int64)))


def compile_kernels(kernels: ModuleType | SimpleNamespace | None = None) -> None:
    """Compile (or load from numba's cache) every entry point (of this module when None) on
    a tiny problem, so that :func:`loaded` holds afterwards."""
    jit()
    k = sys.modules[__name__] if kernels is None else kernels
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]], dtype=np.uint8)
    S = np.array([[1.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 2.0, 4.0, 1.0],
                  [1.0, 3.0, 9.0, 1.0]])
    ptr, ones = k._ones(X)
    z = np.arange(8, dtype=np.int64).reshape(4, 2)
    everything = np.arange(4, dtype=np.int64)
    cache = new_cache()
    k._depth1(everything, X, S, 1.0, 0.0, 0.0)
    k._solve2(everything, X, ptr, ones, S, z, cache, np.empty((2, 2, 4)), 1.0, 0.0, 0.0)
    k._depth3(everything, X, ptr, ones, S, z, cache, 1.0, 0.0, 0.0, np.inf)
    left, right = k._split(everything, X, 0)
    P = np.empty((2, 2, 4))
    k._pairs(everything, ptr, ones, S, P)
    k._depth2(P, S.sum(axis=0), 1.0, 0.0, 0.0)
    k._children2(left, right, k._key(everything, z), P, S.sum(axis=0), ptr, ones, S, z,
                 new_cache(), np.empty_like(P), 1.0, 0.0, 0.0)
    k._stump_order(everything, X, S, 0.0)


_LOADED_SETS: set[int] = set()
"""Kernel sets other than this module's found loaded (by id; they live for the process)."""


def loaded(kernels: ModuleType | SimpleNamespace | None = None) -> bool:
    """The kernels (this module's when None) have machine code in this process already
    (checked once true: reading the dispatchers' signatures costs half a millisecond a
    fit)."""
    global _LOADED
    if kernels is None or kernels is sys.modules[__name__]:
        if not _LOADED:
            _LOADED = _JITTED and all(bool(globals()[name].signatures)
                                      for name in ENTRY_POINTS)
        return _LOADED
    if id(kernels) not in _LOADED_SETS:
        if not all(bool(getattr(kernels, name).signatures) for name in ENTRY_POINTS):
            return False
        _LOADED_SETS.add(id(kernels))
    return True
