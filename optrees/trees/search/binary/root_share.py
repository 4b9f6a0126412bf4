"""The depth-3 children of one depth-4 node of the λ-path with their cells shared across the
node's root features (:mod:`.root_kernels`): the memo of three-literal cells, the features
whose cells it holds, and count buffers, kept for the node's whole root loop."""

from __future__ import annotations

import numpy as np

from .data import BinaryData
from .root_kernels import count_bits, count_new, memo_size, root_sides

__all__ = ["SharedRoots"]


class SharedRoots:
    """Root features of a depth-4 node on ``rows`` (triple counts ``parent``: :meth:`.leaf_fronts.
    FrontSearch._products`) searched one after another, each side's depth-2 fronts from the
    cells the memo lacks; ``min_leaf`` ``m``, tolerances ``tol`` (ties) and ``wtol`` (an empty
    side's weight)."""

    def __init__(self, data: BinaryData, rows: np.ndarray, parent: tuple, m: int,
                 tol: float, wtol: float) -> None:
        self.d, self.rows, self.m, self.tol, self.wtol = data, rows, m, tol, wtol
        self.Tp, self.tp, self.Np = parent
        F, K = data.n_features, data.n_classes
        self.unit = bool(np.all(data.w == 1.0))  # counted with bitsets
        self.done = np.zeros(F, dtype=bool)  # roots whose cells are in the memo
        self.memo_c = np.empty(memo_size(F))
        self.memo_arg = np.empty(memo_size(F), dtype=np.int64)
        self.Ts = np.zeros((K, F, F, F))  # (entries not counted are never read)
        self.Gs, self.ts = np.empty((K, F, F)), np.empty(K)
        if self.Np is not None:  # row counts for min_leaf: one class, unit weights
            self.Ns, self.NGs = np.zeros((1, F, F, F)), np.zeros((1, F, F))
            self.ones, self.zeros = np.ones(len(data.w)), np.zeros(len(data.y), np.int64)

    def children(self, f: int, mask: np.ndarray) -> list[tuple]:
        """Side ``x_f = 0`` and side ``x_f = 1`` of root ``f`` (``mask``: the node's rows with
        ``x_f = 1``), each as (rows, class weights with ``x_g = 1`` (K x F), class weights,
        row counts with ``x_g = 1`` or None, :func:`.front_kernels.node_sides`' outputs)."""
        d = self.d
        parts = (self.rows[~mask], self.rows[mask])
        small = 0 if len(parts[0]) <= len(parts[1]) else 1  # ties: side 0, as before
        new = ~self.done
        new[f] = False
        if self.unit:
            count_bits(d.indptr, d.indices, d.y, parts[small], new, d.n_classes, self.Ts,
                       self.Gs, self.ts)
        else:
            count_new(d.indptr, d.indices, d.y, d.w, parts[small], new, d.n_classes,
                      self.Ts, self.Gs, self.ts)
        use_rows = self.Np is not None
        if use_rows and self.unit:  # whole numbers: the class counts' sums are exact
            np.sum(self.Ts, axis=0, out=self.Ns[0])
            np.sum(self.Gs, axis=0, out=self.NGs[0])
        elif use_rows:
            count_new(d.indptr, d.indices, self.zeros, self.ones, parts[small], new, 1,
                      self.Ns, self.NGs, np.empty(1))
        if use_rows:
            Np, Ns, NGs = self.Np, self.Ns, self.NGs
        else:
            Np, Ns, NGs = np.zeros((1, 1, 1)), np.zeros((1, 1, 1, 1)), np.zeros((1, 1, 1))
        outs = root_sides(f, small, self.Tp, self.tp, self.Ts, self.Gs, self.ts, Np, Ns,
                          NGs, float(len(self.rows)), float(len(parts[small])), new,
                          use_rows, self.m, self.tol, self.wtol, self.memo_c, self.memo_arg)
        self.done[f] = True
        # the counts :meth:`.leaf_fronts.FrontSearch._fronts3` reads off a side's triples
        idx = np.arange(self.d.n_features)
        Dp = self.Tp[:, idx, idx, idx]
        Ds = self.Gs[:, idx, idx]
        D = [None, None]
        D[small], D[1 - small] = Ds, Dp - Ds
        t = [None, None]
        t[small], t[1 - small] = self.ts.copy(), self.tp - self.ts
        N = [None, None]
        if self.Np is not None:
            Ns = self.NGs[0][idx, idx]
            N[small], N[1 - small] = Ns, self.Np[idx, idx, idx] - Ns
        return [(parts[s], D[s], t[s], N[s], outs[2 * s:2 * s + 2]) for s in (0, 1)]
