"""The depth-3 children of one depth-4 node of the λ-path with their cells shared across the
node's root features (:mod:`.root_kernels`): the memo of three-literal cells, the features
whose cells it holds, and count buffers, kept for the node's whole root loop."""

from __future__ import annotations

import numpy as np

from .data import BinaryData
from .root_kernels import count_bits, count_new, memo_size, new_cells, root_sides

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
        idx = np.arange(F)
        self.Gp = self.Tp[:, idx, idx, :]  # the node's pairs: x_a x_a x_b = x_a x_b
        if self.Np is not None:
            self.NGp = self.Np[idx, idx, :]
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
        # both children's pairs, singles and class weights: the small one's counted, the
        # other's the node's minus them
        G, t = np.empty((2,) + self.Gs.shape), np.empty((2, d.n_classes))
        G[small], G[1 - small] = self.Gs, self.Gp - self.Gs
        t[small], t[1 - small] = self.ts, self.tp - self.ts
        idx = np.arange(d.n_features)
        D = np.ascontiguousarray(G[:, :, idx, idx])
        NG, nn = np.zeros((2, 1, 1)), np.empty(2)
        nn[small], nn[1 - small] = len(parts[small]), len(self.rows) - len(parts[small])
        if use_rows:
            NG = np.empty((2,) + self.NGs[0].shape)
            NG[small], NG[1 - small] = self.NGs[0], self.NGp - self.NGs[0]
        new_cells(f, small, self.Tp, self.Ts, self.Gs, G, D, t, Np, Ns, NGs, NG, nn, new,
                  use_rows, self.m, self.tol, self.memo_c, self.memo_arg)
        outs = root_sides(f, G, D, t, NG, nn, use_rows, self.m, self.tol, self.wtol,
                          self.memo_c, self.memo_arg)
        self.done[f] = True
        N = [None, None] if not use_rows else [NG[0][idx, idx], NG[1][idx, idx]]
        return [(parts[s], D[s], t[s], N[s], [tuple(o[s, j] for o in outs) for j in (0, 1)])
                for s in (0, 1)]
