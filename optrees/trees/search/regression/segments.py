"""The k-means lower bound of squared error (OSRT: Zhang, McTavish, Rudin et al., "Optimal
Sparse Regression Trees", AAAI 2023, the k-Means Equivalent Points Lower Bound).

A tree with at most ``k`` leaves partitions its rows into at most ``k`` groups, each costing
its weighted sum of squared deviations from the group mean; so its SSE is at least the
least SSE of any partition of the rows into ``k`` groups, which ignores the features: the
optimal weighted 1-D k-means of the targets.  In one dimension an optimal partition is
into runs of the targets sorted (each group an interval of values), so a dynamic programme
over the sorted targets is exact:

    D_1(j) = c(0, j),   D_k(j) = min_{i < j} D_{k-1}(i) + c(i, j),

``c(i, j)`` the SSE of sorted rows ``i..j-1`` from prefix sums of ``(w, w y, w y^2)``.  Rows
that must share a leaf (identical features) can enter as one *atom* with their summed
statistics: the atom's own SSE is then counted in every group, which is OSRT's combination
with the equivalent-points bound.  The split point ``argmin_i`` is monotone in ``j`` (the
cost has the quadrangle inequality), so each layer is computed by divide and conquer in
O(m log m) (the compiled kernel); the numpy form is the plain O(m^2) layer, for small sets.
"""

from __future__ import annotations

import numpy as np

from ....compiled import numba_installed

NUMPY_LIMIT = 500
"""Most atoms the numpy programme takes (O(k m^2) work and O(m^2) memory); larger sets get
no bound without numba."""

SAFETY = 1e-9
"""Subtracted from every bound: the divide-and-conquer layer may miss the least split by a
rounding tie, and a bound a hair above the optimum would prune it (costs are about 1)."""

_JITTED = False


def _layers(W: np.ndarray, WY: np.ndarray, WY2: np.ndarray, k_max: int) -> np.ndarray:
    """``(k_max,)``: ``D_k(m)`` for ``k = 1..k_max`` from prefix sums (length ``m + 1``,
    first entry 0) of the sorted atoms, by divide and conquer per layer."""
    m = len(W) - 1
    out = np.full(k_max, np.inf)
    prev = np.empty(m + 1)
    for j in range(m + 1):
        prev[j] = _cost(W, WY, WY2, 0, j)
    out[0] = prev[m]
    cur = np.empty(m + 1)
    stack = np.empty((256, 4), dtype=np.int64)  # depth-first: about 2 log2(m) entries
    for k in range(2, min(k_max, m) + 1):
        cur[:] = np.inf
        stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = k, m, k - 1, m - 1
        top = 1
        while top > 0:
            top -= 1
            lo, hi, ol, oh = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
            if lo > hi:
                continue
            mid = (lo + hi) // 2
            best, arg = np.inf, ol
            for i in range(ol, min(mid - 1, oh) + 1):
                v = prev[i] + _cost(W, WY, WY2, i, mid)
                if v < best:
                    best, arg = v, i
            cur[mid] = best
            stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = lo, mid - 1, ol, arg
            stack[top + 1, 0], stack[top + 1, 1] = mid + 1, hi
            stack[top + 1, 2], stack[top + 1, 3] = arg, oh
            top += 2
        prev, cur = cur, prev
        out[k - 1] = prev[m]
    return out


def _cost(W: np.ndarray, WY: np.ndarray, WY2: np.ndarray, i: int, j: int) -> float:
    """SSE of sorted atoms ``i..j-1`` (0 for none)."""
    w = W[j] - W[i]
    if w <= 0.0:
        return 0.0
    wy = WY[j] - WY[i]
    value = WY2[j] - WY2[i] - wy * wy / w
    return value if value > 0.0 else 0.0


def _layers_numpy(W: np.ndarray, WY: np.ndarray, WY2: np.ndarray, k_max: int) -> np.ndarray:
    """:func:`_layers` by the plain programme: each layer is a min over an ``(m+1)^2``
    table of ``prev[i] + c(i, j)`` (``i < j``)."""
    m = len(W) - 1
    w = W[None, :] - W[:, None]
    wy = WY[None, :] - WY[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        c = np.where(w > 0, WY2[None, :] - WY2[:, None] - np.where(w > 0, wy * wy / w, 0.0),
                     0.0)
    c = np.maximum(c, 0.0)
    c[np.tril_indices(m + 1)] = np.inf  # i < j only
    out = np.full(k_max, np.inf)
    prev = c[0].copy()
    prev[0] = 0.0
    out[0] = prev[m]
    for k in range(2, min(k_max, m) + 1):
        prev = (prev[:, None] + c).min(axis=0)
        out[k - 1] = prev[m]
    return out


def segment_costs(S: np.ndarray, k_max: int, compiled: bool = False) -> np.ndarray | None:
    """``(k_max,)``: for ``k = 1..k_max`` the least weighted SSE of the atoms with summed
    statistics ``S[:, :3] = (w, w y, w y^2)`` partitioned into at most ``k`` groups (an atom
    never divided), less :data:`SAFETY`; a lower bound on the SSE of any tree with at most
    ``k`` leaves whose leaves keep each atom whole.  None when too large for numpy
    (``compiled`` False and more than :data:`NUMPY_LIMIT` atoms)."""
    S = np.asarray(S, dtype=np.float64)
    S = S[S[:, 0] > 0]
    m = len(S)
    if not compiled and m > NUMPY_LIMIT:
        return None
    if m == 0:
        return np.zeros(k_max)
    order = np.argsort(S[:, 1] / S[:, 0], kind="stable")
    prefix = np.zeros((m + 1, 3))
    np.cumsum(S[order, :3], axis=0, out=prefix[1:])
    W, WY, WY2 = (np.ascontiguousarray(prefix[:, c]) for c in range(3))
    out = (_layers if compiled and _jit() else _layers_numpy)(W, WY, WY2, k_max)
    out = np.minimum.accumulate(out)  # at most k groups: fewer allowed
    return np.maximum(out - SAFETY, 0.0)


def available() -> bool:
    """Whether the compiled programme can run (numba importable)."""
    return numba_installed()


def _jit() -> bool:
    """Compile (or load from numba's cache) :func:`_layers` once; False without numba."""
    global _layers, _cost, _JITTED
    if _JITTED:
        return True
    if not available():
        return False
    from numba import njit

    _cost = njit(cache=True)(_cost)
    _layers = njit(cache=True)(_layers)
    _JITTED = True
    return True


def compile_kernel() -> None:
    """Compile or load the kernel on a tiny problem (``python -m optrees.compile_all``)."""
    if _jit():
        segment_costs(np.array([[1.0, 0.0, 0.0], [1.0, 1.0, 1.0]]), 2, compiled=True)
