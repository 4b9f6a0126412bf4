"""Depth 1 and 2 over every threshold, compiled (numba).  Depth 2: root splits of every
feature, and for each the leaf and best stump of each side, by one scan of each feature's
sorted rows per root position (O(F m), with no temporaries); each root feature's positions
are searched by intervals, closed by bounds from their evaluated neighbours (ConTree's
depth-2 pruning), so that far fewer than the ``F m`` root positions are costed.  Two
searches: the front of every leaf count (:mod:`.depth2_front`, shared by the λ of a path)
and one penalty's optimum (:func:`depth2_bounded`, a single fit).  Depth 1: one scan per
feature (the interval search's step on large subsets).

The same answer as :func:`~.dense.depth2` (tests hold them to it); it runs when numba is
importable, for every depth-2 subproblem of a depth-3 search.  The statistics are three
additive ones and the count; the leaf cost ``_leaf`` is squared error's ``(w, w y, w y^2)``
here, and another objective's in the copies :func:`for_objective` makes
(:mod:`.specialise`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from types import ModuleType, SimpleNamespace

import numpy as np

from ....compiled import numba_installed
from ....solvers.deadline import Deadline, check_deadline
from .data import GAIN, RegressionData, Tree, children
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


def _sides(X: np.ndarray, S: np.ndarray, order: np.ndarray, ranks: np.ndarray,
           prefix: np.ndarray, p: int, min_leaf: int, out: np.ndarray) -> None:
    """Into ``out``, without penalties, for the children of the root split after sorted
    position ``p`` (``ranks``: every entry's rank in the root feature's order, ``prefix``:
    the cumulative statistics along it): the left child's cost as a leaf, its best stump
    with ``min_leaf`` and without (inf: none), then the right child's.  One scan of each
    feature's sorted rows, O(F m)."""
    F, m = order.shape
    lw, lwy, lwy2 = prefix[p, 0], prefix[p, 1], prefix[p, 2]
    rw, rwy, rwy2 = prefix[m - 1, 0] - lw, prefix[m - 1, 1] - lwy, prefix[m - 1, 2] - lwy2
    n_left, n_right = p + 1, m - p - 1
    left = left_free = right = right_free = np.inf
    for g in range(F):
        aw = awy = awy2 = 0.0   # the left child's rows before q in g's order
        bw = bwy = bwy2 = 0.0   # the right child's
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
                    left = min(left, c)
            if 0 < bn < n_right:
                c = _leaf(bw, bwy, bwy2) + _leaf(rw - bw, rwy - bwy, rwy2 - bwy2)
                right_free = min(right_free, c)
                if bn >= min_leaf and n_right - bn >= min_leaf:
                    right = min(right, c)
    out[0], out[1], out[2] = _leaf(lw, lwy, lwy2), left, left_free
    out[3], out[4], out[5] = _leaf(rw, rwy, rwy2), right, right_free


def _rank_by(X: np.ndarray, S: np.ndarray, order: np.ndarray, f: int, scratch: np.ndarray,
             ranks: np.ndarray, prefix: np.ndarray, positions: np.ndarray) -> int:
    """For root feature ``f``: ``ranks`` (every entry's rank in ``f``'s order), ``prefix``
    (cumulative statistics along it) and ``positions`` (those where a threshold lies);
    returns how many positions."""
    F, m = order.shape
    aw = awy = awy2 = 0.0
    for j in range(m):
        r = order[f, j]
        scratch[r] = j
        aw += S[r, 0]
        awy += S[r, 1]
        awy2 += S[r, 2]
        prefix[j, 0], prefix[j, 1], prefix[j, 2] = aw, awy, awy2
    for g in range(F):
        for q in range(m):
            ranks[g, q] = scratch[order[g, q]]
    n_pos = 0
    for p in range(m - 1):
        if X[order[f, p], f] < X[order[f, p + 1], f]:
            positions[n_pos] = p
            n_pos += 1
    return n_pos


def _front_block(X: np.ndarray, S: np.ndarray, order: np.ndarray, scratch: np.ndarray,
                 f0: int, f1: int, min_leaf: int, gain: float, best: np.ndarray) -> None:
    """Root features ``f0 .. f1 - 1`` of a depth-2 front (:mod:`.depth2_front`), folded
    into ``best``: ``[cost, f, p, left side splits]`` of the best 3-leaf root split,
    ``[cost, f, p]`` of the best 4-leaf one, then the least 3- and 4-leaf costs without
    ``min_leaf``; a split replaces the best only when cheaper by more than ``gain``.

    Each feature's positions are searched by intervals (middle first, left half before the
    right; ConTree's depth-2 pruning): as rows join a child its leaf cost and its best
    tree of depth <= 1 without ``min_leaf`` never fall, so the evaluated neighbours of an
    interval bound every 3- and 4-leaf tree inside it, with the limit or without; it is
    closed when both bounds reach the best (the best without the limit is never above the
    best with it).  ``scratch``: ``(n,)`` integers."""
    F, m = order.shape
    ranks = np.empty((F, m), dtype=np.int64)
    prefix = np.empty((m, 3))
    positions = np.empty(m, dtype=np.int64)
    # an open interval: positions i..j, and from its neighbours the left child's leaf and
    # least depth-1 costs, then the right child's (0 for a missing neighbour)
    stack = np.empty((m + 1, 6))
    sides = np.empty(6)
    for f in range(f0, f1):
        n_pos = _rank_by(X, S, order, f, scratch, ranks, prefix, positions)
        top = 0
        stack[0, 0], stack[0, 1] = 0, n_pos - 1
        stack[0, 2:] = 0.0
        while top >= 0 and n_pos > 0:
            i, j = int(stack[top, 0]), int(stack[top, 1])
            L0, D0, R0, E0 = stack[top, 2], stack[top, 3], stack[top, 4], stack[top, 5]
            top -= 1
            if min(D0 + R0, L0 + E0) >= best[0] - gain and D0 + E0 >= best[4] - gain:
                continue
            k = (i + j) // 2
            p = positions[k]
            _sides(X, S, order, ranks, prefix, p, min_leaf, sides)
            L, Ls, Lf, R, Rs, Rf = sides[0], sides[1], sides[2], sides[3], sides[4], sides[5]
            best[7] = min(best[7], min(Lf + R, L + Rf))
            best[8] = min(best[8], Lf + Rf)
            if p + 1 >= min_leaf and m - p - 1 >= min_leaf:
                three = min(Ls + R, L + Rs)
                if three < best[0] - gain:
                    best[0], best[1], best[2] = three, f, p
                    best[3] = 1.0 if Ls + R <= L + Rs else 0.0
                if Ls + Rs < best[4] - gain:
                    best[4], best[5], best[6] = Ls + Rs, f, p
            D, E = min(L, Lf), min(R, Rf)
            if k + 1 <= j:  # the left child gains rows there: its costs bound from below
                top += 1
                stack[top, 0], stack[top, 1] = k + 1, j
                stack[top, 2], stack[top, 3], stack[top, 4], stack[top, 5] = L, D, R0, E0
            if i <= k - 1:
                top += 1
                stack[top, 0], stack[top, 1] = i, k - 1
                stack[top, 2], stack[top, 3], stack[top, 4], stack[top, 5] = L0, D0, R, E


def _depth2_bounded(X: np.ndarray, S: np.ndarray, order: np.ndarray, scratch: np.ndarray,
                    min_leaf: int, penalty: float, gain: float, f0: int, f1: int,
                    best: np.ndarray) -> None:
    """Root features ``f0 .. f1 - 1`` of the best tree of depth <= 2 on the subset with
    ``penalty`` per leaf, folded into ``best``: ``[cost, free_cost, f, p, g, q]``, the root
    split of feature ``f`` after sorted position ``p`` with the best leaf or stump on each
    side, or (``f`` -1) the best leaf or stump (``g``, ``q``; -1: a leaf); ``free_cost``:
    the optimum without ``min_leaf``.  ``f0`` 0 starts ``best`` from the greedy tree (the
    best stump, then the best stump on each side).  One penalty, so one incumbent: the
    intervals of :func:`_front_block` close sooner (the optimum without the limit is never
    above the one with it, so the same test serves both).  ``scratch``: ``(n,)`` integers."""
    F, m = order.shape
    ranks = np.empty((F, m), dtype=np.int64)
    prefix = np.empty((m, 3))
    positions = np.empty(m, dtype=np.int64)
    stack = np.empty((m + 1, 4))  # i, j, the left and right children's least costs
    sides = np.empty(6)
    if f0 == 0:
        cost, free, g0, q0 = _stump(X, S, order, min_leaf, penalty, gain)
        best[0], best[1], best[2], best[3], best[4], best[5] = cost, free, -1, -1, g0, q0
        if g0 >= 0:
            _rank_by(X, S, order, g0, scratch, ranks, prefix, positions)
            _sides(X, S, order, ranks, prefix, q0, min_leaf, sides)
            greedy = _with_stump(sides[0], sides[1], penalty, gain) \
                + _with_stump(sides[3], sides[4], penalty, gain)
            if greedy < cost - gain:
                best[0], best[2], best[3] = greedy, g0, q0
    for f in range(f0, f1 if m > 1 else f0):
        n_pos = _rank_by(X, S, order, f, scratch, ranks, prefix, positions)
        top = 0
        stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = 0, n_pos - 1, penalty, penalty
        while top >= 0 and n_pos > 0:
            i, j, bl, br = int(stack[top, 0]), int(stack[top, 1]), stack[top, 2], stack[top, 3]
            top -= 1
            if bl + br >= best[0] - gain:
                continue
            k = (i + j) // 2
            p = positions[k]
            _sides(X, S, order, ranks, prefix, p, min_leaf, sides)
            left = _with_stump(sides[0], sides[1], penalty, gain)
            right = _with_stump(sides[3], sides[4], penalty, gain)
            if p + 1 >= min_leaf and m - p - 1 >= min_leaf and left + right < best[0] - gain:
                best[0], best[2], best[3] = left + right, f, p
            free_left = min(sides[0], sides[2] + penalty) + penalty
            free_right = min(sides[3], sides[5] + penalty) + penalty
            best[1] = min(best[1], free_left + free_right)
            if k + 1 <= j:  # the left child gains rows there: its free cost bounds it
                top += 1
                stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = \
                    k + 1, j, free_left, br
            if i <= k - 1:
                top += 1
                stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3] = \
                    i, k - 1, bl, free_right


def _with_stump(leaf: float, stump: float, penalty: float, gain: float) -> float:
    """A child's least cost with ``penalty`` per leaf: its best stump when that pays for
    the extra leaf by more than ``gain``, else one leaf."""
    return stump + 2 * penalty if stump + penalty < leaf - gain else leaf + penalty


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
    global _leaf, _sides, _rank_by, _front_block, _depth2_bounded, _with_stump, _stump
    global _JITTED
    if _JITTED:
        return
    from numba import njit

    # _leaf first: the others call it, and numba resolves it when they compile
    _leaf = njit(cache=True)(_leaf)
    _sides = njit(cache=True)(_sides)
    _rank_by = njit(cache=True)(_rank_by)
    _with_stump = njit(cache=True)(_with_stump)
    _stump = njit(cache=True)(_stump)
    _front_block = njit(cache=True)(_front_block)
    _depth2_bounded = njit(cache=True)(_depth2_bounded)
    _JITTED = True


LEAF_KERNELS = ("_sides", "_front_block", "_stump", "_depth2_bounded")
"""The kernels calling ``_leaf`` (copied per objective by :func:`for_objective`)."""

ENTRY_POINTS = ("_front_block", "_stump", "_depth2_bounded")
"""The kernels called from Python: their signatures say whether the set is loaded (a
callee such as ``_sides`` is compiled into its caller and never gets one)."""


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
    kernel._depth2_bounded(X, S, order, np.zeros(3, dtype=np.int64), 1, 0.0, GAIN, 0, 1,
                           np.empty(6))


BLOCK_WORK = 20_000_000
"""Inner steps (``F m^2`` per root feature, at most) of one compiled depth-2 call
(:func:`_depth2_bounded`, :func:`_front_block`): the deadline is checked between calls (an
unpruned front of 500 rows and 12 features took about 0.4 s)."""

FEATURE_WORK_LIMIT = 500_000_000
"""Most inner steps (``F m^2``) of one root feature, which no deadline check interrupts:
larger subsets go to the interval search, which checks it at every split."""


def feature_blocks(order: np.ndarray, deadline: Deadline | None
                   ) -> Iterator[tuple[int, int]]:
    """The root features ``f0 .. f1 - 1`` of each compiled depth-2 call on the subset
    ``order``, at most :data:`BLOCK_WORK` inner steps each; ``deadline`` checked before
    each."""
    F, m = order.shape
    step = max(1, BLOCK_WORK // (F * m * m))
    for f0 in range(0, F, step):
        check_deadline(deadline)
        yield f0, min(F, f0 + step)


def depth2_bounded(data: RegressionData, order: np.ndarray, min_leaf: int,
                   deadline: Deadline | None = None) -> tuple[float, float, Tree]:
    """``(cost, free_cost, tree)`` of the best tree of depth <= 2 on the subset with
    ``data.penalty`` per leaf (as :meth:`~.search.RegressionSearch.solve`), by the pruned
    compiled search of one penalty, ``deadline`` checked between blocks of root features
    (:data:`BLOCK_WORK`): a single fit's, where :mod:`.depth2_front` keeps every leaf
    count for the searches that share it."""
    best = np.empty(6)
    for f0, f1 in feature_blocks(order, deadline):
        data.kernel._depth2_bounded(data.X, data.stats, order, data._rank, min_leaf,
                                    data.penalty, GAIN, f0, f1, best)
    cost, free, f, p, g, q = float(best[0]), float(best[1]), *(int(v) for v in best[2:])
    if f >= 0:
        left, right = children(order, data.ranks(order, f), p)
        tree = (f, data.threshold(order, f, p), stump_compiled(data, left, min_leaf)[2],
                stump_compiled(data, right, min_leaf)[2])
    else:
        tree = None if g < 0 else (g, data.threshold(order, g, q), None, None)
    return cost, min(free, cost), tree
