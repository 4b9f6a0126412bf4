"""Split-bound cuts: D2S bounds for every choice at a node of height 3 (our extension of §5.4).

Cut (24) bounds the samples I(P) of an integral path P by the optimum of one depth-2 subtree,
so it needs the path's last split fixed.  One level higher, at a node n of height 3 reached by
an integral path P, a depth-3 subtree either is a leaf or splits on some feature f and puts a
depth-2 subtree on each side.  D2S gives the best of each, U_f = D2S(P + (f, 0)) +
D2S(P + (f, 1)) and U_leaf = one leaf, and (3b) makes exactly one choice at n, so

    sum_{i in I(P)} g_i - L * sum_{m below n} p_m
        <= sum_f U_f b_nf + U_leaf p_n + M * relax^P                                 (SB)

(L = lambda-bar in samples, relax^P of (23) without its "deeper leaf" part: a depth-3 subtree
may use every level below n).  M = |I(P)| - min(0, min U) makes it void off the path.  The LP
can only average the U's, so at depth 3 (P empty, relax = 0) the root LP bound is the optimum
itself; at depth 4 and more every integral path to a height-3 node is closed the same way.
"""

from __future__ import annotations

import numpy as np

from ....solvers.base import Row
from ....solvers.deadline import Deadline, TimeUp
from ...problem.tree_problem import HeapTree
from ..d2s import split_scores
from .path_bound import descendants, integral_paths
from .subtrees import SubtreeCache, graft, height

WORK_PER_SECOND = 2e10
"""Conservative speed of :func:`split_scores` in K * |I(P)| * F^3 (measured 3e10 on a loaded
2-core machine)."""


class SplitBoundCuts:
    """Rows (SB) for the integral paths to height-3 nodes; each path's row is added once.

    The bounds cost O(K |I(P)| F^3): a separator call skips paths whose bounds would take more
    than ``max_seconds`` (estimated) or the time left of ``deadline`` (SCIP sees its time
    limit only between callbacks: without it a call begun 0.1 s before the limit ran 0.77 s
    past it), the root row more than a quarter of the time left; the root row's bounds also
    stop at the build's deadline (:meth:`root_row`).
    """

    def __init__(self, form, cache: SubtreeCache, tol: float = 1e-6,
                 max_seconds: float = 0.5, deadline: Deadline | None = None) -> None:
        self.f = form
        self.cache = cache
        self.tol = tol
        self.max_seconds = max_seconds
        self.deadline = deadline
        self.n_skipped = 0
        self.added: set[tuple] = set()
        self._bounds: dict[frozenset, tuple[np.ndarray, float, np.ndarray]] = {}
        self.n_cuts = 0

    def bounds(self, path: tuple[tuple[int, int], ...], deadline: Deadline | None = None
               ) -> tuple[np.ndarray, float, np.ndarray]:
        """(U_f for every feature f, U_leaf, the samples I(P)) for the samples following
        ``path``.  ``deadline`` (never one inside the solver's callbacks): asked between
        blocks of features, :class:`TimeUp` once passed, and then nothing is stored."""
        key = frozenset(path)
        if key not in self._bounds:
            p = self.f.p
            idx = self.cache.rows(path)
            left, right = split_scores(p.X, p.y, p.n_classes, self.cache.leaf_penalty, idx,
                                       weights=p.row_weights, deadline=deadline)
            leaf = self.cache.solve(path, 0, deadline)[0].score
            self._bounds[key] = (left + right, leaf, idx)
        return self._bounds[key]

    def affordable(self, path: tuple[tuple[int, int], ...], seconds: float | None) -> bool:
        """Whether the bounds of ``path`` are cached or estimated to take <= ``seconds``."""
        if seconds is None or frozenset(path) in self._bounds:
            return True
        p = self.f.p
        work = p.n_classes * len(self.cache.rows(path)) * float(p.n_features) ** 3
        if work <= WORK_PER_SECOND * seconds:
            return True
        self.n_skipped += 1
        return False

    def row(self, n: int, path: list[tuple[int, int, int]]) -> Row:
        """Row (SB) for node n at the end of ``path`` ((node, feature, direction) triples)."""
        f, p = self.f, self.f.p
        literals = tuple((feat, d) for _, feat, d in path)
        U, u_leaf, idx = self.bounds(literals)
        below = np.array(descendants(n, p.n_nodes)) - 1
        ids = [f.g[idx], f.p_leaf[below], f.b[n - 1], [f.p_leaf[n - 1]]]
        w = p.weights[idx]  # sample weights: the g_i count w_i, as in the objective
        coefs = [w, np.full(len(below), -self.cache.leaf_penalty), -U, [-u_leaf]]
        if path:  # relax^P (23): another feature or a leaf at a node of the path
            big = float(w.sum()) - min(0.0, float(U.min()), u_leaf)
            relax = np.concatenate([np.r_[f.p_leaf[m - 1], np.delete(f.b[m - 1], feat)]
                                    for m, feat, _ in path])
            ids.append(relax)
            coefs.append(np.full(len(relax), -big))
        return Row(np.concatenate(ids).astype(np.int64), np.concatenate(coefs), rhs=0.0)

    def root_row(self, deadline: Deadline | None = None) -> Row | None:
        """(SB) at the root when it has height 3 (depth 3), added to the model up front, if
        its D2S bounds look affordable in a quarter of the time left.  The estimate can be
        far off (a 100 s build on 150,000 rows took 120.8 s), so the bounds also ask
        ``deadline`` as they go: once it has passed, no row (the model stays valid)."""
        left = None if deadline is None else deadline.seconds()
        budget = None if left is None else 0.25 * left
        if self.f.p.depth != 3 or not self.affordable((), budget):
            return None
        try:
            self.bounds((), deadline)
        except TimeUp:
            self.n_skipped += 1
            return None
        self.added.add(())
        self.n_cuts += 1
        return self.row(1, [])

    def separate(self, x: np.ndarray) -> list[Row]:
        """Rows (SB) violated by ``x`` for the integral paths ending at height-3 nodes."""
        f = self.f
        rows = []
        for n, path in integral_paths(f.p, x[f.b], self.tol):
            key = tuple(path)
            if height(f.p, n) != 3 or key in self.added:
                continue
            seconds = self.max_seconds
            if self.deadline is not None and self.deadline.limited:
                seconds = min(seconds, self.deadline.remaining())
            if not self.affordable(tuple((feat, d) for _, feat, d in path), seconds):
                continue
            r = self.row(n, path)
            if float(np.dot(r.coefs, x[r.ids])) > self.tol:
                self.added.add(key)
                rows.append(r)
        self.n_cuts += len(rows)
        return rows

    def best_root_tree(self, deadline: Deadline | None = None) -> HeapTree | None:
        """At depth 3 the optimal tree itself: the best root choice with D2S subtrees
        (``deadline``: their D2S raises :class:`TimeUp` once it has passed)."""
        p = self.f.p
        if p.depth != 3 or frozenset() not in self._bounds:  # only once the root row exists
            return None
        U, u_leaf, _ = self.bounds(())
        label = np.full(p.n_nodes, int(np.argmax(p.class_counts())))
        split = np.full(p.n_internal, -1)
        if u_leaf >= U.max():
            return HeapTree(split, label)
        root = int(np.argmax(U))
        split[0] = root
        tree = HeapTree(split, label)
        for child, d in ((2, 0), (3, 1)):
            tree = graft(tree, child, self.cache.solve(((root, d),), 2, deadline)[0].tree)
        return tree
