"""Frequency counters and the depth-2 kernel behind one interface, compiled or numpy.

``"numba"`` uses :mod:`.kernels` (bitset popcounts for unit weights, sparse pair counting
otherwise; the kernel is one loop without temporaries);
``"numpy"`` (no compiler needed, slower) builds one Gram matrix per class with BLAS and
vectorizes the kernel over feature pairs as :mod:`optrees.trees.mip.d2s` does.
"""

from __future__ import annotations

import numpy as np

from ....compiled import numba_available, resolve_backend
from ....solvers.deadline import Deadline
from .data import BinaryData

__all__ = ["Counter", "depth2_numpy", "numba_available", "resolve_backend"]


class Counter:
    """Counters ``(G, t)`` of a row subset and the depth-≤2 optimum from them."""

    def __init__(self, data: BinaryData, backend: str = "auto") -> None:
        self.data = data
        self.backend = resolve_backend(backend)
        self.unit = bool(np.all(data.w == 1.0))
        self.scale = None if self.unit or data.gains is None else class_scale(data)
        if self.backend == "numba":
            from .kernels import depth2_kernel, gram_bits, gram_upper

            self._kernel = depth2_kernel
            self._pairs, self._bits = gram_upper, gram_bits

    def gram(self, rows: np.ndarray, deadline: Deadline | None = None
             ) -> tuple[np.ndarray, np.ndarray]:
        """``G`` (F x F x K) and ``t`` (K) of ``rows``: class weights, or with the data's
        ``gains`` the score of each prediction (both linear in the rows, so children's
        counters are still the parent's minus a sibling's); ``deadline`` as in
        :meth:`class_weights`."""
        return self.to_scores(*self.class_weights(rows, deadline))

    def to_scores(self, G: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Class-weight counters as prediction scores (the same arrays without gains)."""
        gains = self.data.gains
        return (G, t) if gains is None else (G @ gains, t @ gains)

    def class_weights(self, rows: np.ndarray, deadline: Deadline | None = None
                      ) -> tuple[np.ndarray, np.ndarray]:
        """``G`` (F x F x K: weight of class k with x_a = x_b = 1, upper triangle filled by
        the compiled counters) and the class weights ``t`` of ``rows``.  The numpy counters
        add products over blocks of :data:`GRAM_ROWS` rows of one class and raise
        :class:`TimeUp` when ``deadline`` has passed between blocks (one product over 120,000
        rows x 256 features took 1.6 s to 13 s, past short limits)."""
        d = self.data
        if self.backend == "numba":
            if self.unit:  # bitsets and popcounts
                return self._bits(d.indptr, d.indices, d.y, rows, d.n_classes, d.n_features)
            if self.scale is not None:  # the same, times each class's weight
                G, t = self._bits(d.indptr, d.indices, d.y, rows, d.n_classes, d.n_features)
                G *= self.scale
                return G, t * self.scale
            return self._pairs(d.indptr, d.indices, d.y, d.w, rows, d.n_classes, d.n_features)
        return gram_blocks(d.X, d.y, d.w, rows, d.n_classes, deadline)

    def depth2(self, G: np.ndarray, t: np.ndarray, leaf_penalty: float, depth: int,
               tol: float, C: np.ndarray | None = None, n_rows: int = 0, min_leaf: int = 1,
               budget: int | None = None) -> tuple[float, int, int, int]:
        """(value, root, left feature, right feature) of the best tree of depth ≤ ``depth``;
        side constraints as :func:`depth2_numpy` (``C``: row counters, for ``min_leaf`` > 1)."""
        if self.backend == "numba":
            v, a, bl, br = self._kernel(G, t, G if C is None else C, float(n_rows),
                                        float(leaf_penalty), int(depth), float(tol),
                                        int(min_leaf), 4 if budget is None else int(budget))
            return float(v), int(a), int(bl), int(br)
        return depth2_numpy(G, t, float(leaf_penalty), depth, tol, C, n_rows, min_leaf, budget)


GRAM_ROWS = 8192
"""Rows per product of :func:`gram_blocks` (the deadline is asked between products)."""

EXACT_FLOAT32 = 2.0 ** 24
"""Integers below this are exact in float32, and so is every sum of a block whose weights
are integers adding up to less (a product in float32 takes half the time of float64's)."""


def gram_blocks(X: np.ndarray, y: np.ndarray, w: np.ndarray, rows: np.ndarray,
                n_classes: int, deadline: Deadline | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    """``(G, t)`` of :meth:`Counter.class_weights` by numpy: per class, ``X' diag(w) X`` over
    its ``rows`` in blocks of :data:`GRAM_ROWS` (float32 where that is exact), ``deadline``
    asked before each block (:class:`TimeUp` once it has passed)."""
    F, K = X.shape[1], n_classes
    ys, ws = y[rows], w[rows]
    t = np.bincount(ys, weights=ws, minlength=K).astype(np.float64)
    G = np.zeros((F, F, K))
    order = np.argsort(ys, kind="stable")
    ends = np.searchsorted(ys[order], np.arange(K + 1))
    for k in range(K):
        part = order[ends[k]:ends[k + 1]]
        for start in range(0, len(part), GRAM_ROWS):
            if deadline is not None:
                deadline.check()
            block = part[start:start + GRAM_ROWS]
            wb = ws[block]
            exact = wb.sum() < EXACT_FLOAT32 and np.array_equal(wb, np.round(wb))
            Xb = X[rows[block]].astype(np.float32 if exact else np.float64)
            G[:, :, k] += Xb.T @ (Xb * wb.astype(Xb.dtype)[:, None])
    return G, t


def class_scale(data: BinaryData) -> np.ndarray | None:
    """Each class's weight when every row of a class weighs the same (a cost objective's rows
    without sample weights: :mod:`optrees.trees.problem.objectives.view`), else None: the
    compiled counters then count bitsets and scale them."""
    scale = np.ones(data.n_classes)
    scale[data.y] = data.w
    return scale if np.array_equal(scale[data.y], data.w) else None


def symmetric(G: np.ndarray) -> np.ndarray:
    """The full pair counters from their upper triangle (the compiled counters fill only
    ``a <= b``; a symmetric ``G`` comes back unchanged)."""
    F = G.shape[0]
    upper = np.triu(np.ones((F, F), dtype=bool))
    S = np.where(upper[:, :, None], G, 0.0)
    S = S + S.transpose(1, 0, 2)
    idx = np.arange(F)
    S[idx, idx] = G[idx, idx]
    return S


def depth2_numpy(G: np.ndarray, t: np.ndarray, L: float, depth: int, tol: float,
                 C: np.ndarray | None = None, n_rows: int = 0, min_leaf: int = 1,
                 budget: int | None = None, split_costs: tuple | None = None
                 ) -> tuple[float, int, int, int]:
    """Vectorized :func:`.kernels.depth2_kernel` over feature pairs (as :mod:`optrees.trees.mip.d2s`
    does): a split needs ``min_leaf`` rows on each side (row pair counts ``C``, ``F x F`` or
    ``F x F x K`` summed over classes, of the ``n_rows`` rows; unused when ``min_leaf`` is 1)
    and the tree at most ``budget`` leaves (None: 4).  ``split_costs`` = (``root`` (F),
    ``left``, ``right`` (F x F)): what splitting the root on ``a`` costs, and splitting its
    left / right child on ``b`` below it (feature costs, :mod:`.feature_costs`)."""
    G = symmetric(G)
    leaf = float(t.max()) - L if t.size else -L
    budget = 4 if budget is None else int(budget)
    F = G.shape[0]
    if depth == 0 or F == 0 or budget <= 1:
        return leaf, -1, -1, -1
    m = int(min_leaf)
    if m > 1:
        C = symmetric(C if C.ndim == 3 else C[:, :, None]).sum(axis=2)
        c = np.diag(C)                            # rows with x_a = 1
    d = np.einsum("aak->ak", G)                   # class weights with x_a = 1
    side = [t[None, :] - d, d]
    child_leaf = [s.max(axis=1) - L for s in side]
    child, feat = list(child_leaf), [np.full(F, -1), np.full(F, -1)]
    if depth >= 2 and budget >= 3:
        for s in (0, 1):
            if s == 1:
                q1, q0 = G, d[:, None, :] - G
            else:
                q1, q0 = d[None, :, :] - G, t - d[:, None, :] - d[None, :, :] + G
            split = q0.max(axis=2) + q1.max(axis=2) - 2.0 * L
            if split_costs is not None:
                split = split - split_costs[1 + s]
            if m > 1:
                n1 = C if s == 1 else c[None, :] - C
                n0 = c[:, None] - C if s == 1 else n_rows - c[:, None] - c[None, :] + C
                split[(n0 < m) | (n1 < m)] = -np.inf
            np.fill_diagonal(split, -np.inf)
            b = np.argmax(split, axis=1)
            sv = split[np.arange(F), b]
            use = sv > child_leaf[s] + tol
            child[s] = np.where(use, sv, child_leaf[s])
            feat[s] = np.where(use, b, -1)
    if budget >= 4:
        roots = child[0] + child[1]
    else:  # three leaves: a stump on one side only; two: two leaves
        left = child[0] + child_leaf[1]
        right = child_leaf[0] + child[1]
        roots = np.maximum(left, right)
        if budget == 2:
            roots = child_leaf[0] + child_leaf[1]
        keep_left = (budget == 3) & (left >= right)
        feat = [np.where(keep_left, feat[0], -1),
                np.where((budget == 3) & ~keep_left, feat[1], -1)]
    if split_costs is not None:
        roots = roots - split_costs[0]
    w1 = d.sum(axis=1)
    bad = (w1 <= 0.0) | (w1 >= t.sum())
    if m > 1:
        bad |= (c < m) | (n_rows - c < m)
    roots[bad] = -np.inf
    a = int(np.argmax(roots))
    if roots[a] > leaf + tol:
        return float(roots[a]), a, int(feat[0][a]), int(feat[1][a])
    return leaf, -1, -1, -1
