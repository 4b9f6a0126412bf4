"""Exact trees on 0/1 features for an objective with three additive row statistics
(squared error, survival), depths 1-4 (issue #43): a dynamic program over row subsets in
the manner of MurTree/STreeD, compiled (:mod:`.binary_kernels`).

Depth <= 2 is one pass over pair sums; depth 3 loops over root features with both
children's depth-2 optima cached by subset; depth 4 loops over root features here, in
Python, solving each child at depth 3 against what the incumbent leaves it, and checks the
deadline between children.  A subtree is pruned when no split can pay for its second leaf
or the sibling already costs the incumbent.  Every test is ``x_f <= 0.5`` (left: 0).

Leaf budgets (``max_leaves``) are not handled here: the interval search takes them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ....solvers.deadline import Deadline, TimeUp
from . import binary_kernels as k
from .data import GAIN, Tree
from .search import RegressionFound
from .specialise import AdditiveObjective

MAX_BINARY_DEPTH = 4
"""Deepest tree of this search (the root of depth 4 is the only Python level)."""

INTERRUPTIBLE_WORK = 2e7
"""A depth-3 child of the depth-4 root with ``rows * F^2`` above this loops over its root
features in Python, between deadline checks (100,000 x 40 random 0/1 columns: one compiled
child took 1-1.5 s, the stop came 1.7 s late)."""


@dataclass
class BinaryRegression:
    """A 0/1 matrix ``X`` (n x F), row statistics ``stats`` (n x 3: for squared error
    w, w y, w y^2), the ``penalty`` per leaf, ``min_leaf`` (rows per leaf) and the
    ``objective`` whose ``leaf_cost_kernel`` costs a leaf (None: squared error)."""

    X: np.ndarray
    stats: np.ndarray
    penalty: float = 0.0
    min_leaf: int = 1
    seed: int = 0
    objective: AdditiveObjective | None = None

    def __post_init__(self) -> None:
        self.k = k.for_objective(self.objective)
        self.X = np.ascontiguousarray(self.X, dtype=np.uint8)
        self.n, self.F = self.X.shape
        self.S = np.ascontiguousarray(
            np.hstack([np.asarray(self.stats, dtype=np.float64), np.ones((self.n, 1))]))
        self.ptr, self.ones = self.k._ones(self.X)
        self.ml = float(self.min_leaf)
        self._z: np.ndarray | None = None
        self._cache: dict | None = None

    @property
    def z(self) -> np.ndarray:
        """Two random 64-bit keys per row (a subset's key: their sums)."""
        if self._z is None:
            rng = np.random.default_rng(self.seed)
            self._z = rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max,
                                   size=(self.n, 2), dtype=np.int64)
        return self._z

    @property
    def cache(self) -> dict:
        """Depth-2 optima by subset key (made at first use: depth <= 2 needs none)."""
        if self._cache is None:
            self._cache = k.new_cache()
        return self._cache

    def subset(self, rows: np.ndarray) -> BinaryRegression:
        """The same problem on ``rows`` only (the whole of it when they are all rows)."""
        if len(rows) == self.n:
            return self
        return BinaryRegression(self.X[rows], self.stats[rows], self.penalty, self.min_leaf,
                                self.seed, self.objective)

    def leaf(self, rows: np.ndarray) -> float:
        """Cost of the subset as one leaf."""
        a, b, c = self.S[rows, :3].sum(axis=0)
        return float(self.k._leaf.py_func(a, b, c)) + self.penalty

    def solve2(self, rows: np.ndarray) -> tuple[float, int, int, int]:
        return self.k._solve2(rows, self.X, self.ptr, self.ones, self.S, self.z, self.cache,
                              np.empty((self.F, self.F, 4)), self.ml, self.penalty, GAIN)

    def root2(self, rows: np.ndarray) -> tuple[float, int, int, int]:
        """:meth:`solve2` of the whole data, not cached."""
        P = np.empty((self.F, self.F, 4))
        self.k._pairs(rows, self.ptr, self.ones, self.S, P)
        return self.k._depth2(P, self.S[rows].sum(axis=0), self.ml, self.penalty, GAIN)

    def solve3(self, rows: np.ndarray, ub: float, deadline: Deadline | None = None
               ) -> tuple[float, int]:
        """``(cost, root)`` of the best depth-3 tree of the subset if it costs less than
        ``ub`` (else a cost >= ``ub``).  A large subset loops over its root features here,
        checking ``deadline`` between them (the compiled loop cannot be stopped); the same
        order and answer."""
        if deadline is None or len(rows) * self.F * self.F <= INTERRUPTIBLE_WORK:
            return self.k._depth3(rows, self.X, self.ptr, self.ones, self.S, self.z,
                                  self.cache, self.ml, self.penalty, GAIN, ub)
        pen = self.penalty
        T = self.S[rows].sum(axis=0)
        best, root = self.leaf(rows), -1
        Ppar = np.empty((self.F, self.F, 4))
        self.k._pairs(rows, self.ptr, self.ones, self.S, Ppar)
        P = np.empty_like(Ppar)
        kp = self.k._key(rows, self.z)
        for f in self.k._stump_order(rows, self.X, self.S, pen):
            n1 = Ppar[f, f, 3]
            if min(n1, T[3] - n1) < max(self.ml, 0.5):
                continue
            if 2.0 * pen >= min(best, ub) - GAIN:
                break
            deadline.check()
            left, right = self.k._split(rows, self.X, f)
            cl, cr = self.k._children2(left, right, kp, Ppar, T, self.ptr, self.ones, self.S,
                                       self.z, self.cache, P, self.ml, pen, GAIN)
            if cl + cr < best - GAIN:
                best, root = cl + cr, int(f)
        return best, root

    def tree(self, rows: np.ndarray, depth: int, root: int | None = None,
             below: tuple[int, int] | None = None) -> Tree:
        """The optimal tree of the subset at ``depth`` (``root``: its split when chosen
        already; ``below``: its children's roots, when known), rebuilt from the cache (the
        depth-3 pass runs again, on cached children)."""
        if depth == 1:
            return _stump_tree(self.k._depth1(rows, self.X, self.S, self.ml, self.penalty,
                                              GAIN)[1])
        if depth == 2:
            _, f, gl, gr = self.root2(rows) if len(rows) == self.n else self.solve2(rows)
            if f < 0:
                return None
            return (f, 0.5, _stump_tree(gl), _stump_tree(gr))
        f = self.solve3(rows, np.inf)[1] if root is None else root
        if f < 0:
            return None
        left, right = self.k._split(rows, self.X, f)
        fl, fr = (None, None) if below is None else below
        return (f, 0.5, self.tree(left, depth - 1, fl), self.tree(right, depth - 1, fr))


def _stump_tree(f: int) -> Tree:
    return None if f < 0 else (int(f), 0.5, None, None)


def search_binary(data: BinaryRegression, depth: int, deadline: Deadline | None = None,
                  lower: float = 0.0) -> RegressionFound:
    """The best tree of depth <= ``depth`` (1-4) of ``data``; ``lower``: a bound on any
    tree's cost without penalties.  Stopped by ``deadline`` (checked between the root's
    children): the best tree found and ``min(its cost, lower + 2 penalties)``, what any
    tree with a split costs at least."""
    if not 1 <= depth <= MAX_BINARY_DEPTH:
        raise ValueError(f"the 0/1 regression search takes depths 1-{MAX_BINARY_DEPTH}")
    rows = np.arange(data.n, dtype=np.int64)
    pen = data.penalty
    if depth == 1:
        cost, f = data.k._depth1(rows, data.X, data.S, data.ml, pen, GAIN)
        return RegressionFound(_stump_tree(f), float(cost), float(cost), True, 1)
    if depth == 2:  # one pass, no deadline check needed
        cost, f, gl, gr = data.root2(rows)
        tree = None if f < 0 else (int(f), 0.5, _stump_tree(gl), _stump_tree(gr))
        return RegressionFound(tree, float(cost), float(cost), True, 1)
    best, root = data.leaf(rows), -1
    order = data.k._stump_order(rows, data.X, data.S, pen)
    if depth == 3:
        Ppar = np.empty((data.F, data.F, 4))
        data.k._pairs(rows, data.ptr, data.ones, data.S, Ppar)
        P = np.empty_like(Ppar)
        T = data.S.sum(axis=0)
        kp = data.k._key(rows, data.z)
    counts = data.S[:, 3] @ data.X
    stopped, evaluations, below = False, 0, None
    try:
        for f in order:
            if deadline is not None:
                deadline.check()
            bound = best
            if 2 * pen >= bound - GAIN:
                break
            n1 = counts[f]
            if min(n1, data.n - n1) < max(data.min_leaf, 1):
                continue
            left, right = data.k._split(rows, data.X, f)
            if depth == 3:
                cl, cr = data.k._children2(left, right, kp, Ppar, T, data.ptr, data.ones, data.S,
                                           data.z, data.cache, P, data.ml, pen, GAIN)
            else:
                cl, fl = data.solve3(left, bound - pen, deadline)
                if cl + pen >= bound - GAIN:
                    evaluations += 1
                    continue
                if deadline is not None:
                    deadline.check()
                cr, fr = data.solve3(right, bound - cl, deadline)
            evaluations += 1
            if cl + cr < best - GAIN:  # both below their bounds then: exact, roots known
                best, root = cl + cr, int(f)
                below = None if depth == 3 else (int(fl), int(fr))
    except TimeUp:
        stopped = True
    tree = data.tree(rows, depth, root, below) if root >= 0 else None
    # a stopped search: any tree with a split costs at least lower + 2 penalties
    bound = min(best, lower + 2 * pen) if stopped else best
    return RegressionFound(tree, float(best), float(bound), not stopped, evaluations)
