"""Leaf-count fronts of 0/1 subproblems as vectors: a subproblem's best weighted correct for
every leaf budget at once (issue #44's λ-path).

A front ``v`` of a row subset at depth ``d`` has ``v[k - 1]`` = the largest weighted correct
of a tree of depth <= ``d`` with at most ``k`` leaves, ``k = 1 .. 2^d``.  At a split the
children's fronts combine by a (max, +) convolution, ``v[k] = max_{i + j = k} v0[i] + v1[j]``
(STreeD's node-budget recursion, van der Linden et al. 2023, §4, with every budget kept), and
a node's front is the elementwise best over its root features and its leaf.

Depth-2 fronts come from pair counts (MurTree §4.4's frequency counts, the accelerated
BendOCT paper's B.1 eqs. 27-30 for the counts of each side), vectorised over a batch of
subsets; a depth-3 node counts triples ``x_f x_a x_b`` once and so has the pair counts of
both sides of every root feature ``f`` in one array (compiled in :mod:`.front_kernels` when
numba runs, else BLAS products and batched numpy).  A depth-4 node's depth-3 children
share their three-literal cells across its root features when compiled
(:mod:`.root_share`: each cell searched once, not three times), else are batched; its
sides' bounds at 2 and 3 leaves are their depth-2 fronts.  Deeper nodes loop over root
features in Python.  Sample weights and ``min_leaf``
(rows on each side of a split) are honoured throughout; the fronts are exact unless the
deadline stopped them (then ``upper`` holds proven bounds).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from ....compiled import backend_for, resolve_backend
from ....solvers.deadline import Deadline
from .cache import row_key
from .data import BinaryData
from .front_bounds import RootBounds, convolve
from .tree import Node

__all__ = ["FrontSearch", "SubFront"]

_CHUNK = 1 << 20
"""Most float64 entries of one temporary of the batched depth-2 fronts (8 MB)."""


@dataclass
class SubFront:
    """A subproblem's front: ``vals[k - 1]`` the best weighted correct with at most ``k``
    leaves, ``upper`` a proven bound on each (``== vals`` when ``exact``) and ``trees[k - 1]``
    a tree scoring ``vals[k - 1]`` with the fewest leaves of the ties found."""

    vals: np.ndarray
    upper: np.ndarray
    trees: Sequence[Node]

    @property
    def exact(self) -> bool:
        return bool(np.all(self.upper <= self.vals))


class _Trees(Sequence):
    """A front's trees by budget, each made on first use by ``make(budget)``; budgets with
    the same ``key(budget)`` (the budget whose tree they inherit) share one object."""

    def __init__(self, make: Callable[[Any], Node], size: int,
                 key: Callable[[int], Hashable]) -> None:
        self._make, self._size, self._key, self._made = make, size, key, {}

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._size))]
        if not -self._size <= i < self._size:
            raise IndexError(i)
        k = self._key(i % self._size + 1)
        if k not in self._made:
            self._made[k] = self._make(k)
        return self._made[k]


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
                 deadline: Deadline | None = None, backend: str = "auto") -> None:
        self.d = data
        self.backend = _backend(backend, deadline)
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
        F, K = d.n_features, d.n_classes
        if triples and self.backend == "numba":
            from .front_kernels import triple_counts
            from .root_kernels import triple_bits

            C = (triple_bits(d.indptr, d.indices, d.y, rows, K, F) if self.unit else
                 triple_counts(d.indptr, d.indices, d.y, d.w, rows, K, F))
            t = np.bincount(d.y[rows], weights=d.w[rows], minlength=K).astype(np.float64)
            N = None
            if self.m > 1:
                N = C.sum(axis=0) if self.unit else triple_counts(
                    d.indptr, d.indices, np.zeros_like(d.y), np.ones_like(d.w), rows, 1, F)[0]
            return C, t, N
        X, y, w = self.X[rows], d.y[rows], d.w[rows]
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
        key = row_key(rows)
        got = self.cache.get((key, depth))
        if got is None:
            got = self._branch(rows, depth, leaf)
            if got.exact:
                self.cache[(key, depth)] = got
        return got

    def _front3(self, rows: np.ndarray, counts: tuple) -> SubFront:
        """A depth-3 node from its triple ``counts`` (:meth:`_products`)."""
        return self._fronts3([(rows, counts)])[0]

    def _fronts3(self, nodes: list[tuple[np.ndarray, tuple]],
                 sides: list[_Depth2] | None = None) -> list[SubFront]:
        """Depth-3 nodes (rows, triple counts), batched: both sides of every root feature of
        every node (sides ``x_f = 1``: the triples ``T[:, f]``; sides ``x_f = 0``: the
        node's pairs minus them; ``sides``: their :meth:`_node_sides` when known), then one
        (max, +) pick for all nodes."""
        idx = np.arange(self.d.n_features)
        counts = [(rows, T[:, idx, idx, idx], t, None if N3 is None else N3[idx, idx, idx])
                  for rows, (T, t, N3) in nodes]
        return self._picked3(counts, self._node_sides(nodes) if sides is None else sides)

    def _picked3(self, counts: list[tuple], fr: list[_Depth2]) -> list[SubFront]:
        """Depth-3 nodes' fronts from each one's (rows, class weights with ``x_f = 1``
        (K x F), class weights, row counts with ``x_f = 1`` or None) and the depth-2 fronts
        ``fr`` of both sides of its root features (:meth:`_node_sides`)."""
        F, m, wtol = self.d.n_features, self.m, self.wtol
        idx = np.arange(F)
        leaf, feas, stump = [], [], []
        for rows, D, t, c in counts:
            stump.append(D.max(axis=0) + (t[:, None] - D).max(axis=0))
            W1 = D.sum(axis=0)
            ok = (W1 > wtol) & (t.sum() - W1 > wtol)
            if c is not None:
                ok &= (c >= m) & (len(rows) - c >= m)
            leaf.append(float(t.max()))
            feas.append(ok)
        R = len(counts)
        picks = _Picks.of(np.array(leaf), np.array(feas), fr[0].vals.reshape(R, F, 4),
                          fr[1].vals.reshape(R, F, 4), self.tol, np.array(stump))
        out = []
        for r in range(R):  # trees made when asked: most depth-3 nodes' are never read
            def tree(k: int, r: int = r) -> Node:
                return picks.tree(r, k, lambda f, s, b: fr[s].tree(r * F + f, b), idx)
            out.append(SubFront(picks.vals[r], picks.vals[r].copy(),
                                _Trees(tree, 8, partial(picks.resolve, r))))
        return out

    def _node_sides(self, nodes: list[tuple[np.ndarray, tuple]]) -> list[_Depth2]:
        """The depth-2 fronts of side 0 and side 1 of every root feature of every node, in
        the order (node, feature)."""
        F = self.d.n_features
        idx = np.arange(F)
        if self.backend == "numba":
            from .front_kernels import node_sides

            outs = []
            for rows, (T, t, N3) in nodes:
                use_rows = N3 is not None
                outs.append(node_sides(T, t, N3 if use_rows else np.zeros((1, 1, 1)),
                                       float(len(rows)), use_rows, self.m, self.tol,
                                       self.wtol))
            return [_Depth2(*(np.concatenate([o[s][i] for o in outs]) for i in range(5)))
                    for s in (0, 1)]
        sides: list[list] = [[[], [], [], []], [[], [], [], []]]  # S, t, N, n of each side
        for rows, (T, t, N3) in nodes:
            G = T[:, idx, idx]                  # pairs of ``rows``: x_a x_a x_b = x_a x_b
            D = G[:, idx, idx]                  # (K x F) weight with x_f = 1
            for side, part in ((1, (T, D)), (0, (G[:, None] - T, t[:, None] - D))):
                sides[side][0].append(part[0])
                sides[side][1].append(part[1])
            if N3 is not None:
                NG = N3[idx, idx]
                c, n = NG[idx, idx], len(rows)
                for side, part in ((1, (N3, c)), (0, (NG[None] - N3, n - c))):
                    sides[side][2].append(part[0])
                    sides[side][3].append(part[1])
        return [self._batched(np.concatenate(S, axis=1), np.concatenate(t, axis=1),
                              np.concatenate(N) if N else None,
                              np.concatenate(n) if n else None)
                for S, t, N, n in sides]

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
        """A node of depth >= 4: its root features in the order the penalised search tries
        them (best stump first), each one's sides by recursion (depth 4: batched depth-3
        nodes), skipping a feature whose bounds (:class:`.front_bounds.RootBounds`) cannot
        beat the node's front so far at any leaf count."""
        d = self.d
        XsT = d.X[rows].T.astype(bool)
        w = d.w[rows]
        W1 = XsT.astype(np.float64) @ w
        ok = (W1 > self.wtol) & (float(w.sum()) - W1 > self.wtol)
        if self.m > 1:
            n1 = XsT.sum(axis=1)
            ok &= (n1 >= self.m) & (len(rows) - n1 >= self.m)
        D = np.stack([XsT.astype(np.float64) @ np.where(d.y[rows] == k, w, 0.0)
                      for k in range(d.n_classes)])  # class weights with x_f = 1
        t = np.bincount(d.y[rows], weights=w, minlength=d.n_classes)
        stump = D.max(axis=0) + (t[:, None] - D).max(axis=0)
        feats = np.flatnonzero(ok)
        todo = feats[np.argsort(-stump[feats], kind="stable")]
        half = 2 ** (depth - 1)
        bounds = RootBounds(XsT, w, t, D, half, similar=self.m == 1)
        best = np.full(2 * half, leaf)  # the node's front over the features searched
        sides: dict[int, tuple[SubFront, SubFront]] = {}
        parent = self._products(rows, True) if depth == 4 and len(todo) else None
        shallow = None  # depth 4: the node's depth-3 front, exact at <= 4 leaves
        if parent is not None:  # each side's best of <= 3 leaves: its depth-2 front's
            small = self._node_sides([(rows, parent)])
            bounds.few_leaves(small[0].vals, small[1].vals, 3 * self.tol)
            # a tree of k <= 4 leaves has depth <= 3: every root's best there is known, so
            # only a root that beats the depth-3 front at some leaf count is searched
            shallow = self._fronts3([(rows, parent)], small)[0]
            best[:half] = shallow.vals  # (a depth-3 front has half the leaf counts)
            best[half:] = shallow.vals[-1]
        shared = None  # depth 4, compiled: the children's cells shared across root features
        if parent is not None and self.backend == "numba":
            from .root_share import SharedRoots

            shared = SharedRoots(d, rows, parent, self.m, self.tol, self.wtol)
        # depth-3 children several roots at a time (bounded memory), after the first root
        # alone: its front, the best stump's, often prunes most of the rest
        group = self._group() if depth == 4 else 1
        first = depth == 4
        stopped = False
        while len(todo):
            if self._expired():
                stopped = True
                break
            todo = todo[bounds.can_improve(todo, best, self.tol, 1 if shallow is None else 4)]
            if not len(todo):
                break
            take = 1 if first else group
            first = False
            fs, todo = todo[:take].tolist(), todo[take:]
            if shared is not None:
                self._shared3(shared, XsT, fs, sides)
            elif depth == 4:
                self._children3(rows, XsT, parent, fs, sides)
            else:
                for f in fs:
                    mask = XsT[f]
                    sides[f] = (self.front(rows[~mask], depth - 1),
                                self.front(rows[mask], depth - 1))
            for f in fs:
                bounds.add(f, sides[f][0].upper, sides[f][1].upper)
            conv, _ = convolve(np.array([sides[f][0].vals for f in fs]),
                               np.array([sides[f][1].vals for f in fs]))
            best[1:] = np.maximum(best[1:], conv.max(axis=0))
            best = np.maximum.accumulate(best)
        done = np.array(sorted(sides), dtype=np.int64)
        v0 = np.array([sides[f][0].vals for f in done]).reshape(1, -1, half)
        v1 = np.array([sides[f][1].vals for f in done]).reshape(1, -1, half)
        picks = _Picks.of(np.array([leaf]), np.ones((1, len(done)), bool), v0, v1, self.tol,
                          stump[done][None])
        trees = _Trees(lambda k: picks.tree(0, k, lambda j, s, b: sides[int(done[j])][s]
                                            .trees[b - 1], done),
                       2 * half, partial(picks.resolve, 0))
        out = SubFront(picks.vals[0], picks.vals[0].copy(), trees)
        if shallow is not None:
            out = _with_shallow(out, shallow, self.tol)
        u0 = np.array([sides[f][0].upper for f in done]).reshape(-1, half)
        u1 = np.array([sides[f][1].upper for f in done]).reshape(-1, half)
        if len(done):
            out.upper[1:] = np.maximum(out.upper[1:], convolve(u0, u1)[0].max(axis=0))
        if stopped:  # the features not tried: any tree scores at most the rows' weight
            out.upper[1:] = np.maximum(out.upper[1:], float(w.sum()))
        return out

    def _group(self) -> int:
        """Root features of a depth-4 node whose depth-3 sides are batched together (each
        side's triple counts held at once: bounded memory)."""
        F, K = self.d.n_features, self.d.n_classes
        return max(1, 4 * _CHUNK // max(1, 2 * K * F ** 3))

    def _shared3(self, shared, XsT: np.ndarray, fs: list[int],
                 sides: dict[int, tuple[SubFront, SubFront]]) -> None:
        """:meth:`_children3` with the cells shared across root features
        (:class:`.root_share.SharedRoots`)."""
        counts, outs = [], []
        for f in fs:
            for rows, D, t, c, out in shared.children(f, XsT[f]):
                counts.append((rows, D, t, c))
                outs.append(out)
        fr = [_Depth2(*(np.concatenate([o[s][i] for o in outs]) for i in range(5)))
              for s in (0, 1)]
        got = self._picked3(counts, fr)
        for i, f in enumerate(fs):
            sides[f] = (got[2 * i], got[2 * i + 1])

    def _children3(self, rows: np.ndarray, XsT: np.ndarray, parent: tuple,
                   fs: list[int], sides: dict[int, tuple[SubFront, SubFront]]) -> None:
        """The depth-3 fronts of both sides of the root features ``fs`` of a depth-4 node
        (its triple counts ``parent``), into ``sides``; the smaller side's triples are
        counted, the larger's are the node's minus them (MurTree §4.4's incremental
        counts)."""
        nodes = []
        for f in fs:
            mask = XsT[f]
            parts = (rows[~mask], rows[mask])
            small = 0 if len(parts[0]) <= len(parts[1]) else 1
            counts: list = [None, None]
            counts[small] = self._products(parts[small], True)
            counts[1 - small] = tuple(None if p is None else p - c
                                      for p, c in zip(parent, counts[small], strict=True))
            nodes += [(parts[0], counts[0]), (parts[1], counts[1])]
        got = self._fronts3(nodes)
        for i, f in enumerate(fs):
            sides[f] = (got[2 * i], got[2 * i + 1])


@dataclass
class _Picks:
    """A batch of nodes' fronts from their root features' side fronts: ``vals`` (R x 2h)
    and for each budget the root feature's index (-1: the tree of the budget below) and the
    leaves of its side 0 (the rest go to side 1)."""

    vals: np.ndarray
    root: np.ndarray
    split: np.ndarray

    @classmethod
    def of(cls, leaf: np.ndarray, feas: np.ndarray, v0: np.ndarray, v1: np.ndarray,
           tol: float, stump: np.ndarray | None = None) -> _Picks:
        """``leaf`` (R), ``feas`` (R x F: the feature can split the node), ``v0`` / ``v1``
        (R x F x h: its sides' fronts).  Each budget takes the first feature and budget
        split that beats the budget below by more than ``tol`` (ties keep fewer leaves);
        features in decreasing ``stump`` value (R x F, stable), as the penalised search
        tries them (:meth:`.search.Search._branch`), so a tie goes to the tree a fit finds."""
        R, F, h = v0.shape
        vals = np.empty((R, 2 * h))
        vals[:, 0] = leaf
        root = np.full((R, 2 * h), -1)
        split = np.zeros((R, 2 * h), dtype=np.int64)
        if F == 0:
            vals[:] = leaf[:, None]
            return cls(vals, root, split)
        conv, arg = convolve(v0.reshape(R * F, h), v1.reshape(R * F, h))
        conv, arg = conv.reshape(R, F, 2 * h - 1), arg.reshape(R, F, 2 * h - 1)
        conv[~feas] = -np.inf
        if stump is not None:  # the first of a tie: in the search's order
            order = np.argsort(-stump, axis=1, kind="stable")
            conv = np.take_along_axis(conv, order[:, :, None], axis=1)
            arg = np.take_along_axis(arg, order[:, :, None], axis=1)
        bf = conv.argmax(axis=1)                                   # R x (2h - 1)
        best = np.take_along_axis(conv, bf[:, None, :], axis=1)[:, 0]
        bi = np.take_along_axis(arg, bf[:, None, :], axis=1)[:, 0]
        if stump is not None:
            bf = np.take_along_axis(order, bf, axis=1)
        for k in range(2, 2 * h + 1):
            better = best[:, k - 2] > vals[:, k - 2] + tol
            vals[:, k - 1] = np.where(better, best[:, k - 2], vals[:, k - 2])
            root[:, k - 1] = np.where(better, bf[:, k - 2], -1)
            split[:, k - 1] = bi[:, k - 2] + 1
        return cls(vals, root, split)

    def resolve(self, r: int, k: int) -> int:
        """The budget whose tree node ``r``'s budget ``k`` keeps (the largest <= ``k``
        that improved on the one below, or 1)."""
        while k > 1 and self.root[r, k - 1] < 0:
            k -= 1
        return k

    def tree(self, r: int, k: int, tree_of, names: np.ndarray) -> Node:
        """Node ``r``'s tree at ``k`` leaves; ``tree_of(j, side, leaves)`` gives the sides
        of root index ``j``, ``names[j]`` its feature."""
        k = self.resolve(r, k)
        if k == 1:
            return None
        j, i0 = int(self.root[r, k - 1]), int(self.split[r, k - 1])
        return (int(names[j]), tree_of(j, 0, i0), tree_of(j, 1, k - i0))


def _with_shallow(deep: SubFront, shallow: SubFront, tol: float) -> SubFront:
    """A depth-4 node's front from its searched root features (``deep``) and its depth-3
    front (``shallow``, whose trees are depth-4 trees too): at each budget the better by
    more than ``tol`` (``deep`` at a tie), and a budget that does not beat the one below
    keeps its tree (fewest leaves of the ties)."""
    size, h = len(deep.vals), len(shallow.vals)
    vals = np.empty(size)
    keys: list[tuple[bool, int]] = []  # (from shallow, the budget whose tree it is)
    for k in range(1, size + 1):
        s = shallow.vals[min(k, h) - 1]
        v, key = (s, (True, k)) if s > deep.vals[k - 1] + tol else (deep.vals[k - 1],
                                                                   (False, k))
        if k > 1 and v <= vals[k - 2] + tol:
            v, key = vals[k - 2], keys[-1]
        vals[k - 1] = v
        keys.append(key)

    def tree(key: tuple[bool, int]) -> Node:
        low, k = key
        return shallow.trees[min(k, h) - 1] if low else deep.trees[k - 1]

    return SubFront(vals, vals.copy(), _Trees(tree, size, lambda k: keys[k - 1]))


def _backend(backend: str, deadline: Deadline | None) -> str:
    """The compiled kernels (:mod:`.front_kernels`, :mod:`.root_kernels`) when numba can
    run them without a compilation the deadline cannot afford
    (:func:`optrees.compiled.backend_for`)."""
    if resolve_backend(backend) == "numpy":
        return "numpy"
    from . import front_kernels, root_kernels

    def ready() -> bool:
        return front_kernels.ready() and root_kernels.ready()

    def compile_all() -> None:
        front_kernels.compile_all()
        root_kernels.compile_all()

    return backend_for(deadline if deadline is not None else Deadline(), ready, compile_all)


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
