"""Leaf-count fronts of 0/1 subproblems as vectors: a subproblem's best weighted correct for
every leaf budget at once (issue #44's λ-path).

A front ``v`` of a row subset at depth ``d`` has ``v[k - 1]`` = the largest weighted correct
of a tree of depth <= ``d`` with at most ``k`` leaves, ``k = 1 .. 2^d``.  At a split the
children's fronts combine by a (max, +) convolution, ``v[k] = max_{i + j = k} v0[i] + v1[j]``
(STreeD's node-budget recursion, van der Linden et al. 2023, §4, with every budget kept), and
a node's front is the elementwise best over its root features and its leaf.

Depth-2 fronts come from pair counts (MurTree §4.4's frequency counts, the accelerated
BendOCT paper's B.1 eqs. 27-30 for the counts of each side), vectorised over a batch of
subsets; a depth-3 node counts triples ``x_f x_a x_b`` once (one BLAS product) and so has the
pair counts of both sides of every root feature ``f`` in one array.  Depth >= 4 loops over
root features in Python.  Sample weights and ``min_leaf`` (rows on each side of a split) are
honoured throughout; the fronts are exact unless the deadline stopped them (then ``upper``
holds proven bounds).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ....solvers.deadline import Deadline
from .cache import SubtreeCache
from .data import BinaryData
from .tree import Node

__all__ = ["FrontSearch", "SubFront", "convolve"]

_CHUNK = 1 << 20
"""Most float64 entries of one temporary of the batched depth-2 fronts (8 MB)."""


@dataclass
class SubFront:
    """A subproblem's front: ``vals[k - 1]`` the best weighted correct with at most ``k``
    leaves, ``upper`` a proven bound on each (``== vals`` when ``exact``) and ``trees[k - 1]``
    a tree scoring ``vals[k - 1]`` with the fewest leaves of the ties found."""

    vals: np.ndarray
    upper: np.ndarray
    trees: list[Node]

    @property
    def exact(self) -> bool:
        return bool(np.all(self.upper <= self.vals))


def convolve(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(max, +) convolution of fronts ``a`` (n x p) and ``b`` (n x q) over their last axis:
    ``out[:, s] = max_{i + j = s} a[:, i] + b[:, j]`` (leaf counts ``i + 1`` and ``j + 1``
    make ``s + 2``), and the first ``i`` reaching it."""
    p, q = a.shape[-1], b.shape[-1]
    M = a[:, :, None] + b[:, None, :]
    vals = np.empty((a.shape[0], p + q - 1))
    arg = np.empty((a.shape[0], p + q - 1), dtype=np.int64)
    for s in range(p + q - 1):
        i = np.arange(max(0, s - q + 1), min(p - 1, s) + 1)
        cells = M[:, i, s - i]
        j = cells.argmax(axis=1)
        vals[:, s] = cells[np.arange(len(j)), j]
        arg[:, s] = i[j]
    return vals, arg


@dataclass
class _Depth2:
    """Batched depth-<=2 fronts: ``vals`` (B x 2^depth), for each budget the root (-1: the
    tree of the budget below), and for each root the best child split of each side (-1: a
    leaf) and, for three leaves, whether side 0 takes the split."""

    vals: np.ndarray
    root: np.ndarray
    child0: np.ndarray | None
    child1: np.ndarray | None
    three_left: np.ndarray | None

    def tree(self, j: int, budget: int) -> Node:
        """The tree of subset ``j`` at ``budget`` leaves."""
        while budget > 1 and self.root[j, budget - 1] < 0:
            budget -= 1
        if budget == 1:
            return None
        a = int(self.root[j, budget - 1])
        if budget == 2:
            return (a, None, None)
        b0, b1 = int(self.child0[j, a]), int(self.child1[j, a])
        left = None if b0 < 0 else (b0, None, None)
        right = None if b1 < 0 else (b1, None, None)
        if budget == 3:
            return (a, left, None) if self.three_left[j, a] else (a, None, right)
        return (a, left, right)


def _best_of(cand: np.ndarray, below: np.ndarray, tol: float) -> tuple[np.ndarray, np.ndarray]:
    """Each row's best candidate (B x F, -inf: infeasible) if it beats ``below`` by more than
    ``tol``: (new value, its index or -1)."""
    if cand.shape[1] == 0:
        return below.copy(), np.full(len(below), -1)
    arg = cand.argmax(axis=1)
    best = cand[np.arange(len(arg)), arg]
    better = best > below + tol
    return np.where(better, best, below), np.where(better, arg, -1)


def depth2_fronts(S: np.ndarray, t: np.ndarray, N: np.ndarray | None, n: np.ndarray | None,
                  m: int, depth: int, tol: float, wtol: float) -> _Depth2:
    """Fronts of depth ``depth`` (1 or 2) of ``B`` subsets from their counts, class first
    (reductions over a short last axis are slow in numpy): ``S`` (K x B x F x F) the weight
    of class k with ``x_a = x_b = 1`` (symmetric; the diagonal: ``x_a = 1``), ``t`` (K x B)
    the class weights; with ``m`` > 1 also the row counts ``N`` (B x F x F) and ``n`` (B) for
    ``min_leaf``.  A split needs weight ``> wtol`` on both sides."""
    B, F = S.shape[1], S.shape[2]
    idx = np.arange(F)
    D = S[:, :, idx, idx]                                   # weight with x_a = 1
    leaf = t.max(axis=0)
    l1 = D.max(axis=0)                                      # the leaf of side x_a = 1
    l0 = (t[:, :, None] - D).max(axis=0)                    # ... and of x_a = 0
    W1 = D.sum(axis=0)
    feas = (W1 > wtol) & (t.sum(axis=0)[:, None] - W1 > wtol)
    if N is not None:
        n1 = N[:, idx, idx]
        feas &= (n1 >= m) & (n[:, None] - n1 >= m)
    size = 2 ** depth
    vals = np.empty((B, size))
    root = np.full((B, size), -1)
    vals[:, 0] = leaf
    vals[:, 1], root[:, 1] = _best_of(np.where(feas, l0 + l1, -np.inf), leaf, tol)
    if depth < 2:
        return _Depth2(vals, root, None, None, None)
    # one more split on b under each side of a (eqs. 27-30 of accelerated BendOCT, B.1)
    Da, Db = D[:, :, :, None], D[:, :, None, :]
    c1ab = S.max(axis=0) + (Da - S).max(axis=0)
    c0ab = (Db - S).max(axis=0) + (t[:, :, None, None] - Da - Db + S).max(axis=0)
    if N is not None:
        na, nb = n1[:, :, None], n1[:, None, :]
        c1ab[(N < m) | (na - N < m)] = -np.inf
        c0ab[(nb - N < m) | (n[:, None, None] - na - nb + N < m)] = -np.inf
    c1, child1 = _best_of(c1ab.reshape(B * F, F), l1.reshape(-1), tol)
    c0, child0 = _best_of(c0ab.reshape(B * F, F), l0.reshape(-1), tol)
    c1, c0 = c1.reshape(B, F), c0.reshape(B, F)
    left = c0 + l1 >= l0 + c1  # three leaves: a stump on the side that gains more
    three = np.where(feas, np.maximum(c0 + l1, l0 + c1), -np.inf)
    vals[:, 2], root[:, 2] = _best_of(three, vals[:, 1], tol)
    vals[:, 3], root[:, 3] = _best_of(np.where(feas, c0 + c1, -np.inf), vals[:, 2], tol)
    return _Depth2(vals, root, child0.reshape(B, F), child1.reshape(B, F), left)


class FrontSearch:
    """The fronts of one data set's row subsets (``min_leaf`` rows on each side of a split;
    the deadline is looked at between root features and before each depth-3 node)."""

    def __init__(self, data: BinaryData, min_leaf: int = 1,
                 deadline: Deadline | None = None) -> None:
        self.d = data
        self.m = int(min_leaf)
        self.deadline = deadline
        self.X = data.X.astype(np.float64)
        self.unit = bool(np.all(data.w == 1.0))
        self.tol = 1e-9 * (1.0 + float(data.w.sum()))
        positive = data.w[data.w > 0]
        self.wtol = 0.5 * float(positive.min()) if positive.size else 0.0
        self.cache: dict[tuple[bytes, int], SubFront] = {}
        self.timed_out = False

    def _expired(self) -> bool:
        if self.deadline is not None and self.deadline.expired():
            self.timed_out = True
        return self.timed_out

    # ------------------------------------------------------------------ counts
    def _products(self, rows: np.ndarray, triples: bool) -> tuple:
        """Class-weight counts of ``rows``: pairs ``G`` (K x F x F), or triples ``T`` (K x F
        x F x F, ``T[k, f, a, b]`` over ``x_f x_a x_b = 1``) whose ``T[:, a, a, b]`` are pairs;
        the class weights ``t``; row counts of the same shape (None unless ``min_leaf`` > 1)."""
        d = self.d
        X, y, w = self.X[rows], d.y[rows], d.w[rows]
        F, K = d.n_features, d.n_classes
        shape = (F, F, F) if triples else (F, F)
        C = np.zeros((K,) + shape)
        for k in range(K):
            sel = y == k
            if sel.any():
                C[k] = _moments(X[sel], w[sel], triples)
        t = np.bincount(y, weights=w, minlength=K).astype(np.float64)
        N = None
        if self.m > 1:
            N = C.sum(axis=0) if self.unit else _moments(X, np.ones(len(rows)), triples)
        return C, t, N

    # ------------------------------------------------------------------ fronts
    def front(self, rows: np.ndarray, depth: int) -> SubFront:
        """The front of ``rows`` at ``depth`` (``2^depth`` budgets)."""
        d = self.d
        t = np.bincount(d.y[rows], weights=d.w[rows], minlength=d.n_classes)
        leaf = float(t.max())
        if depth == 0 or d.n_features == 0:
            size = 2 ** depth
            return SubFront(np.full(size, leaf), np.full(size, leaf), [None] * size)
        if self._expired():  # only the leaf: any tree scores at most the rows' weight
            upper = np.full(2 ** depth, float(t.sum()))
            upper[0] = leaf
            return SubFront(np.full(2 ** depth, leaf), upper, [None] * 2 ** depth)
        if depth <= 2:
            G, t, N = self._products(rows, False)
            fr = depth2_fronts(G[:, None], t[:, None], None if N is None else N[None],
                               np.array([len(rows)]), self.m, depth, self.tol, self.wtol)
            return SubFront(fr.vals[0], fr.vals[0].copy(),
                            [fr.tree(0, k) for k in range(1, 2 ** depth + 1)])
        if depth == 3:
            return self._front3(rows, self._products(rows, True))
        key = SubtreeCache.key(rows)
        got = self.cache.get((key, depth))
        if got is None:
            got = self._branch(rows, depth, leaf)
            if got.exact:
                self.cache[(key, depth)] = got
        return got

    def _front3(self, rows: np.ndarray, counts: tuple) -> SubFront:
        """A depth-3 node from its triple ``counts`` (:meth:`_products`): both sides of
        every root feature at once."""
        T, t, N3 = counts
        leaf = float(t.max())
        F = self.d.n_features
        idx = np.arange(F)
        G = T[:, idx, idx]                      # pairs of ``rows``: x_a x_a x_b = x_a x_b
        D = G[:, idx, idx]                      # (K x F) weight with x_f = 1
        n = len(rows)
        NG = None if N3 is None else N3[idx, idx]
        n1 = None if NG is None else NG[idx, idx]
        fr1 = self._batched(T, D, N3, n1)
        fr0 = self._batched(G[:, None] - T, t[:, None] - D,
                            None if N3 is None else NG[None] - N3,
                            None if n1 is None else n - n1)
        W1 = D.sum(axis=0)
        feas = (W1 > self.wtol) & (t.sum() - W1 > self.wtol)
        if n1 is not None:
            feas &= (n1 >= self.m) & (n - n1 >= self.m)
        return self._combine(leaf, 3, np.flatnonzero(feas), fr0.vals, fr1.vals,
                             lambda f, s, k: (fr1 if s else fr0).tree(f, k))

    def _batched(self, S: np.ndarray, t: np.ndarray, N: np.ndarray | None,
                 n: np.ndarray | None) -> _Depth2:
        """:func:`depth2_fronts` of the subsets along ``S``'s second axis, in chunks."""
        K, B, F = S.shape[0], S.shape[1], S.shape[2]
        step = max(1, _CHUNK // max(1, F * F * K))
        parts = [depth2_fronts(S[:, i:i + step], t[:, i:i + step],
                               None if N is None else N[i:i + step],
                               None if n is None else n[i:i + step], self.m, 2, self.tol,
                               self.wtol)
                 for i in range(0, B, step)]
        if len(parts) == 1:
            return parts[0]
        return _Depth2(*(np.concatenate([getattr(p, f) for p in parts])
                         for f in ("vals", "root", "child0", "child1", "three_left")))

    def _branch(self, rows: np.ndarray, depth: int, leaf: float) -> SubFront:
        """A node of depth >= 4: each root feature's sides by recursion, in feature order."""
        d = self.d
        XsT = d.X[rows].T.astype(bool)
        w = d.w[rows]
        W1 = XsT.astype(np.float64) @ w
        ok = (W1 > self.wtol) & (float(w.sum()) - W1 > self.wtol)
        if self.m > 1:
            n1 = XsT.sum(axis=1)
            ok &= (n1 >= self.m) & (len(rows) - n1 >= self.m)
        feats = np.flatnonzero(ok)
        half = 2 ** (depth - 1)
        sides: dict[int, tuple[SubFront, SubFront]] = {}
        stopped = False
        parent = self._products(rows, True) if depth == 4 else None
        for f in feats.tolist():
            if self._expired():
                stopped = True
                break
            sides[f] = self._children(rows, XsT[f], depth, parent)
        done = np.array(sorted(sides), dtype=np.int64)
        v0 = np.array([sides[f][0].vals for f in done]).reshape(-1, half)
        v1 = np.array([sides[f][1].vals for f in done]).reshape(-1, half)
        out = self._combine(leaf, depth, done, v0, v1,
                            lambda f, s, k: sides[f][s].trees[k - 1], index=True)
        u0 = np.array([sides[f][0].upper for f in done]).reshape(-1, half)
        u1 = np.array([sides[f][1].upper for f in done]).reshape(-1, half)
        if len(done):
            out.upper[1:] = np.maximum(out.upper[1:], convolve(u0, u1)[0].max(axis=0))
        if stopped:  # the features not tried: any tree scores at most the rows' weight
            out.upper[1:] = np.maximum(out.upper[1:], float(w.sum()))
        return out

    def _children(self, rows: np.ndarray, mask: np.ndarray, depth: int,
                  parent: tuple | None) -> tuple[SubFront, SubFront]:
        """The fronts of ``rows`` with ``x_f = 0`` and ``= 1`` (``mask``); under a depth-4
        node the smaller side's triples are counted, the larger's are the ``parent``'s minus
        them (MurTree §4.4's incremental counts)."""
        parts = (rows[~mask], rows[mask])
        if parent is None:
            return self.front(parts[0], depth - 1), self.front(parts[1], depth - 1)
        small = 0 if len(parts[0]) <= len(parts[1]) else 1
        counts: list = [None, None]
        counts[small] = self._products(parts[small], True)
        counts[1 - small] = tuple(None if p is None else p - c
                                  for p, c in zip(parent, counts[small], strict=True))
        return self._front3(parts[0], counts[0]), self._front3(parts[1], counts[1])

    def _combine(self, leaf: float, depth: int, feats: np.ndarray, v0: np.ndarray,
                 v1: np.ndarray, tree_of, index: bool = False) -> SubFront:
        """A node's front from its root features' side fronts (``v0``, ``v1``: one row per
        feature of ``feats``, or per feature index with ``index`` False): for each budget the
        first feature and budget split that beats the budget below by more than ``tol``."""
        size = 2 ** depth
        vals = np.full(size, leaf)
        trees: list[Node] = [None] * size
        if len(feats):
            rows_of = np.arange(len(feats)) if index else feats
            conv, arg = convolve(v0[rows_of], v1[rows_of])  # budgets 2 .. size
            for k in range(2, size + 1):
                col = conv[:, k - 2]
                j = int(col.argmax())
                if col[j] > vals[k - 2] + self.tol:
                    i0 = int(arg[j, k - 2]) + 1
                    f = int(feats[j])
                    vals[k - 1] = col[j]
                    trees[k - 1] = (f, tree_of(f, 0, i0), tree_of(f, 1, k - i0))
                else:
                    vals[k - 1], trees[k - 1] = vals[k - 2], trees[k - 2]
        return SubFront(vals, vals.copy(), trees)


def _moments(X: np.ndarray, w: np.ndarray, triples: bool) -> np.ndarray:
    """``sum_i w_i x_ia x_ib`` (F x F) or ``sum_i w_i x_if x_ia x_ib`` (F x F x F) over the
    rows of the 0/1 matrix ``X`` (as float), the latter in row chunks of bounded memory."""
    F = X.shape[1]
    Xw = X * w[:, None]
    if not triples:
        return X.T @ Xw
    out = np.zeros((F, F * F))
    step = max(1, _CHUNK // max(1, F * F))
    for i in range(0, X.shape[0], step):
        Z = (Xw[i:i + step, :, None] * X[i:i + step, None, :]).reshape(-1, F * F)
        out += X[i:i + step].T @ Z
    return out.reshape(F, F, F)
