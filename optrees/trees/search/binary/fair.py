"""Optimal binary trees of depth ≤ 3 under one group-fairness bound, by dynamic programming
over fronts (issue #19; the group-fairness task of STreeD, van der Linden et al. 2023).

A tree's rate gap between two groups is a sum over the leaves that predict the positive
class: ``gap = sum_{leaves labelled positive} sum_{i in leaf} u_i`` with
``u_i = w_i / W_A`` for a row of group A in the compared cell, ``-w_i / W_B`` for group B
(:meth:`TreeFairness.pairs`).  So each subtree is a point (score, d): weighted correct minus
the leaf penalty, and its share d of the gap; the points of a tree's two subtrees add up, and
only ``|d| <= epsilon`` at the root counts.  A leaf predicts the positive class or, with no
share of the gap, the heaviest other class (any number of classes).  One point of a row set
beats another only at the same d, so a *front* keeps the best score per distinct d.

Fronts stay small because of a *floor*: a subtree point that cannot reach the floor even with
the best fair completion its sibling could give (bounded below) is dropped.  The floor
starts just below a bound on the optimum and drops until some fair tree reaches it; the
best tree above the floor is then optimal (every tree scoring more was kept).  Depth-2
subtrees are built from the pair counts of their rows (:class:`~.counts.Counter`,
compiled); depth 3 tries each root feature, best bound first, against the incumbent.

Bounds are Lagrangian: for any multiplier λ, a fair tree scores at most
``max_tree (score + λ d) + |λ| epsilon`` (as ``|d| <= epsilon``), and the maximum is an
unconstrained tree problem whose positive leaves are worth ``P + λ U``.  Minimizing over λ
(the bound is convex in λ) bounds each root; the same multipliers bound the best fair
completion of a point by its sibling, which cuts the fronts.
"""

from __future__ import annotations

import math
import time

import numpy as np

from ....solvers.deadline import Deadline, TimeUp
from ...problem.tree_problem import HeapTree
from .counts import Counter, symmetric
from .data import BinaryData
from .entry import SubtreeSolution, solve_subtree
from .fair_fronts import (
    _C,
    _by_score,
    _by_window,
    _Classes,
    _Front,
    _Level2,
    _Partner,
    _ranges,
    _Side,
)

__all__ = ["MAX_FAIR_COORDINATES", "MAX_FAIR_DEPTH", "fair_price", "golden_min",
           "meets_bound", "solve_fair_subtree"]

MAX_FAIR_DEPTH = 3
"""Deepest tree the front search takes (deeper fronts grow too large to enumerate)."""
MAX_FAIR_COORDINATES = 8
"""Most gap coordinates (groups - 1 per cell) the estimators give the front search; fronts
are keyed by all of them, so they grow with their number (adult, five races, 30,162 rows:
equalized odds (8) at depth 2 in 0.8 s; statistical parity (4) at depth 3 in 29 s, where
the MIP proves neither within 300 s)."""

_MARGIN = 0.002            # first floor: this share of the total weight below the bound
_DUAL_STEPS = 30           # golden-section steps of the Lagrangian bound


class _FairSearch:
    """One fit: rows, their columns (class weights, row coordinates ``C``, 1), the priced
    classes ``cls`` (whose leaves' shares ``d`` of the coordinates are bounded), the bound
    ``eps`` per cell of ``d`` (one number or one per cell) and the incumbent (score,
    subtree)."""

    def __init__(self, data: BinaryData, C: np.ndarray, cells: list[list[int]],
                 eps: float | np.ndarray, cls: _Classes, pen: float, m: int,
                 deadline: Deadline | None, backend: str) -> None:
        K, w = data.n_classes, data.w
        n, Du = C.shape
        self.cls, self.cells = cls, cells
        # per row: its weight in its class's column, its coordinates, one row
        self.V = np.zeros((n, K + Du + 1))
        self.V[np.arange(n), data.y] = w
        self.V[:, K:K + Du], self.V[:, _C] = C, 1.0
        self.eps = np.broadcast_to(np.asarray(eps, dtype=np.float64), (len(cells),))
        self.eps_d = np.zeros(cls.D)  # the bound of each coordinate's cell
        for c, cell in enumerate(cells):
            self.eps_d[cell] = self.eps[c]
        self.pen, self.m, self.deadline = pen, m, deadline
        self.tol = 1e-9 * max(1.0, float(w.sum()))
        self.dtol = 1e-9
        self.scale = max(1.0, float(w.sum()))
        # pair counts over pseudo-classes (class x role); a role is a row's gap coordinates
        # per unit of weight (0 for rows not compared; one role per cell and group)
        per_weight = np.divide(C, w[:, None], out=np.zeros_like(C), where=w[:, None] > 0)
        self.ratio, role = np.unique(np.round(per_weight, 15), axis=0, return_inverse=True)
        role = role.ravel()
        R = len(self.ratio)
        if not np.allclose(self.ratio[role] * w[:, None], C, rtol=1e-9, atol=1e-15):
            raise ValueError("gap coordinates must be a constant multiple of the weight "
                             "within each group (as TreeFairness.coordinates gives)")
        self.counter = Counter(BinaryData.make(data.X, R * data.y + role, w, R * K), backend)
        self.rows = (None if self.counter.unit
                     else Counter(BinaryData.make(data.X, np.zeros(n, np.int64)), backend))
        # the best leaf within the bound (under fairness every leaf: one class everywhere
        # has gap 0); ties go to the last option, the priced class; none: (-inf, -1)
        score, d, other = cls.options(self.V.sum(axis=0))
        score = np.where(self.fair(d) & np.isfinite(score), score - pen, -math.inf)
        i = len(score) - 1 - int(np.argmax(score[::-1]))
        self.best: tuple[float, tuple | int] = (
            (float(score[i]), cls.label(i, other)) if np.isfinite(score[i]) else
            (-math.inf, -1))
        self.pairs = 0
        self.roots_pruned = 0
        self.root_bounds: np.ndarray | None = None  # depth 3: per root, -inf once solved
        self.multipliers = np.zeros(cls.D)  # of the last Lagrangian bound (:meth:`dual`)

    def run(self, depth: int, bound: float) -> tuple[float, bool]:
        """Search the constrained trees of ``depth`` (<= 3): ``(bound, done)``, the upper
        bound ``bound`` tightened by the search's own, and whether it finished before the
        deadline (``self.best`` holds the best tree found either way)."""
        try:
            if depth >= 1:
                self.depth1()
            if depth == 2:
                bound = min(bound, self.depth2())
            if depth == 3:
                self.depth2()  # a first incumbent
                bound = min(bound, max(self.depth3(), self.best[0]))
            return bound, True
        except TimeUp:
            if depth == 3 and self.root_bounds is not None:
                bound = min(bound, max(float(self.root_bounds.max()), self.best[0]))
            return bound, False

    def check(self) -> None:
        if self.deadline is not None:
            self.deadline.check()

    def fair(self, d: np.ndarray) -> np.ndarray:
        """:func:`meets_bound` of the rows of ``d``."""
        return meets_bound(d, self.cells, self.eps + self.dtol)

    def price(self, lam: np.ndarray) -> float:
        """:func:`fair_price` of ``lam``."""
        return fair_price(lam, self.cells, self.eps)

    def _quantities(self, Q: np.ndarray, C: np.ndarray) -> np.ndarray:
        """(class weights, gap coordinates, rows) from the pseudo-class totals ``Q``
        (..., R K) and row counts ``C``."""
        by_role = Q.reshape(*Q.shape[:-1], -1, len(self.ratio))   # (..., K, role)
        U = by_role.sum(axis=-2) @ self.ratio
        return np.concatenate([by_role.sum(axis=-1), U,
                               np.asarray(C, dtype=float)[..., None]], axis=-1)

    def level2(self, rows: np.ndarray) -> _Level2:
        """The depth-≤2 subtrees of ``rows`` from their pair counts."""
        G, t = self.counter.gram(rows)
        G = symmetric(G)
        if self.rows is None:
            C, n = G.sum(axis=2), float(t.sum())
        else:
            Cg, _ = self.rows.gram(rows)
            C, n = symmetric(Cg)[:, :, 0], float(len(rows))
        M = self._quantities(G, C)
        idx = np.arange(M.shape[0])
        T = self._quantities(t, np.asarray(n))
        return _Level2(T, M[idx, idx], M, self.pen, self.m, self.cls)

    def dual(self, levels: list[_Level2]) -> tuple[float, list[_Partner]]:
        """min over lam of sum phi(lam) + price(lam) (convex in lam; golden section along
        each coordinate in turn, twice with several coordinates): a bound on the best fair
        tree made of ``levels``, and each level's bound as a partner of the others."""
        D = self.cls.D
        lams, phis, prices = [np.zeros(D)], [[lv.ub for lv in levels]], [0.0]

        def h(lam: np.ndarray) -> float:
            self.check()  # (each step prices every pair of the levels)
            lams.append(lam)
            phis.append([lv.phi(lam) for lv in levels])
            prices.append(self.price(lam))
            return sum(phis[-1]) + prices[-1]

        lam = np.zeros(D)
        steps = _DUAL_STEPS if D == 1 else _DUAL_STEPS // 2
        for j in [k for _ in range(1 if D == 1 else 2) for k in range(D)]:
            def along(t: float, base: np.ndarray = lam, j: int = j) -> float:
                x = base.copy()
                x[j] = t
                return h(x)

            lam = lam.copy()
            lam[j] = golden_min(along, -4 * self.scale, 4 * self.scale, steps)
        totals = [sum(p) + q for p, q in zip(phis, prices, strict=True)]
        self.multipliers = lams[int(np.argmin(totals))]
        L, P, Q = np.array(lams), np.array(phis), np.array(prices)
        partners = [_Partner(L, P[:, k], Q, levels[k].ub) for k in range(len(levels))]
        return min(totals), partners

    def _floors(self, ub: float):
        """Floors from just below ``ub`` down to the incumbent (strictly above it)."""
        margin = _MARGIN * self.scale
        while True:
            floor = max(self.best[0] + self.tol, ub - margin)
            if floor > ub + self.tol:
                return
            yield floor
            if floor <= self.best[0] + self.tol:
                return
            ub, margin = floor, 4 * margin

    def depth1(self) -> None:
        X = self.counter.data.X.astype(np.float64)
        side = _Side(self.V.sum(axis=0), X.T @ self.V, self.pen, self.m, self.cls)
        fair = self.fair(side.d)
        if fair.any():
            i = int(np.flatnonzero(fair)[np.argmax(side.score[fair])])
            self._offer(float(side.score[i]), side.node(i))

    def depth2(self) -> float:
        """The best fair depth-≤2 tree; returns its Lagrangian bound."""
        self.check()  # the pair counts alone take seconds on large data
        level = self.level2(np.arange(len(self.V)))
        ub, _ = self.dual([level])
        w = self.eps_d + self.dtol
        for floor in self._floors(ub):
            self.check()
            front = level.front(floor - self.tol, -w, w)
            self.pairs += len(front)
            fair = np.flatnonzero(self.fair(front.d))
            if fair.size:
                i = int(fair[np.argmax(front.score[fair])])
                self._offer(float(front.score[i]), level.node(front, i))
                break
        return ub

    def _root_sides(self, f: int) -> tuple[list[np.ndarray], list[_Level2]] | None:
        x = self.counter.data.X[:, f] == 1
        sides = [np.flatnonzero(~x), np.flatnonzero(x)]
        if min(len(sides[0]), len(sides[1])) < max(1, self.m):
            return None
        return sides, [self.level2(rows) for rows in sides]

    def depth3(self) -> float:
        """Every root feature whose Lagrangian bound beats the incumbent, best bound first;
        returns the largest bound of a root (-inf: none)."""
        F = self.counter.data.n_features
        bounds = np.full(F, -math.inf)
        for f in range(F):
            self.check()
            found = self._root_sides(f)
            if found is not None:
                bounds[f] = self.dual(found[1])[0]
        self.root_bounds = bounds  # valid only once every root has its bound
        for f in np.argsort(-bounds, kind="stable"):
            if bounds[f] <= self.best[0] + self.tol:
                self.roots_pruned += 1
                continue
            self.check()
            self._root(int(f))
            bounds[f] = -math.inf  # solved
        return float(bounds.max())

    def _root(self, f: int) -> None:
        """The best fair tree with root ``f`` if it beats the incumbent."""
        rows, sides = self._root_sides(f)
        ub, partners = self.dual(sides)
        w = self.eps_d + self.dtol
        # the sibling's shares lie between the sums of its rows' least and most share
        shares = [self.cls.d(self.cls.u(self.V[r])) for r in rows[::-1]]  # (n, m, D)
        windows = [(-w - np.maximum(v.max(axis=1), 0).sum(axis=0),
                    w - np.minimum(v.min(axis=1), 0).sum(axis=0)) for v in shares]
        if self.cls.leaves:  # the sibling, of depth <= 2, has 1 to 4 leaves
            for lo, hi in windows:
                lo[-1], hi[-1] = lo[-1] - 4, hi[-1] - 1
        for floor in self._floors(ub):
            self.check()
            fronts = [lv.front(floor - self.tol, lo, hi, partner)
                      for lv, (lo, hi), partner in zip(sides, windows, partners[::-1],
                                                       strict=True)]
            if self._combine(f, sides, fronts, floor):
                return

    def _combine(self, f: int, sides: list[_Level2], fronts: list[_Front], floor: float) -> bool:
        """Offer the best fair pair of the two fronts scoring ≥ ``floor``; whether one
        exists."""
        A, B = fronts
        found = (-math.inf, -1, -1)
        # enumerate the pairs above the floor, or those whose first coordinate can be fair,
        # whichever are fewer (|x_0| <= eps is necessary)
        ranges = [_by_score(A.score, B.score, floor - self.tol)]
        if self.cls.D:
            ranges.append(_by_window(A.d[:, 0], B.d[:, 0], self.eps_d[0] + self.dtol))
        sizes = [int(np.maximum(hi - lo, 0).sum()) for _, lo, hi in ranges]
        for ia, ib in _ranges(*ranges[int(np.argmin(sizes))]):
            self.pairs += len(ia)
            s = A.score[ia] + B.score[ib]
            keep = s >= floor - self.tol
            ia, ib, s = ia[keep], ib[keep], s[keep]
            fair = self.fair(A.d[ia] + B.d[ib])
            if fair.any():
                s = s[fair]
                k = int(np.argmax(s))
                if s[k] > found[0]:
                    found = (float(s[k]), int(ia[fair][k]), int(ib[fair][k]))
        if found[1] < 0:
            return False
        self._offer(found[0], (f, sides[0].node(A, found[1]), sides[1].node(B, found[2])))
        return True

    def _offer(self, score: float, node: tuple | int) -> None:
        if score > self.best[0] + self.tol:
            self.best = (score, node)


def meets_bound(d: np.ndarray, cells: list[list[int]], epsilon) -> np.ndarray:
    """Which rows of gap coordinates ``d`` meet the bound: in every cell the largest rate
    minus the smallest (the reference group's coordinate is 0) is at most ``epsilon`` (one
    number, or one per cell)."""
    ok = np.ones(len(d), dtype=bool)
    eps = np.broadcast_to(np.asarray(epsilon, dtype=np.float64), (len(cells),))
    for cell, e in zip(cells, eps, strict=True):
        x = d[:, cell]
        ok &= np.maximum(x.max(axis=1), 0) - np.minimum(x.min(axis=1), 0) <= e
    return ok


def fair_price(lam: np.ndarray, cells: list[list[int]], eps) -> float:
    """eps x the multipliers' price (``eps`` one number or one per cell): per cell, the
    positive parts of ``lam`` and of the reference group's -sum(lam); a fair tree has
    ``-lam . d <= price``, so ``score <= score + lam . d + price`` bounds it for any
    ``lam``."""
    eps = np.broadcast_to(np.asarray(eps, dtype=np.float64), (len(cells),))
    return sum(float(e) * (float(np.maximum(lam[c], 0).sum()) + max(-float(lam[c].sum()), 0))
               for c, e in zip(cells, eps, strict=True))


def golden_min(f, a: float, b: float, steps: int) -> float:
    """Golden-section minimizer of a convex ``f`` on [a, b] after ``steps`` steps."""
    r = (math.sqrt(5) - 1) / 2
    c, d = b - r * (b - a), a + r * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(steps):
        if fc <= fd:
            b, d, fd = d, c, fc
            c = b - r * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + r * (b - a)
            fd = f(d)
    return c if fc <= fd else d


def _heap(node: tuple | int, depth: int) -> HeapTree:
    """HeapTree of ``depth`` levels for a subtree whose leaves are class indices."""
    split = np.full(2**depth - 1, -1, dtype=np.int64)
    label = np.zeros(2 ** (depth + 1) - 1, dtype=np.int64)

    def fill(n: int, sub: tuple | int) -> int:
        if isinstance(sub, int):
            label[n - 1] = sub
            for c in (2 * n, 2 * n + 1):
                if c <= len(label):
                    fill(c, sub)
            return label[n - 1]
        split[n - 1] = sub[0]
        label[n - 1] = fill(2 * n, sub[1])
        fill(2 * n + 1, sub[2])
        return label[n - 1]

    fill(1, node)
    return HeapTree(split, label)


def solve_fair_subtree(X, y, depth: int, coef: np.ndarray, epsilon: float, positive: int = 1,
                       leaf_penalty: float = 0.0, sample_weight=None, min_leaf: int = 1,
                       deadline: Deadline | None = None, backend: str = "auto",
                       n_classes: int | None = None,
                       cells: list[list[int]] | None = None) -> SubtreeSolution:
    """Maximize ``weighted correct - leaf_penalty * leaves`` over trees of depth ≤ ``depth``
    (≤ :data:`MAX_FAIR_DEPTH`) on 0/1 features ``X`` and classes ``y`` (0..n_classes-1,
    default max(y) + 1, at least 2) whose gap coordinates ``x = coef.T @ [prediction ==
    positive]`` meet ``max(0, max x_c) - min(0, min x_c) <= epsilon`` in every cell c.

    ``coef``: one rate difference between two groups (n,), or the gap coordinates of
    :meth:`TreeFairness.coordinates` (n x D) with their ``cells`` (default: each column its
    own cell, i.e. ``|x_j| <= epsilon``).  ``min_leaf`` rows on each side of every split.
    When ``deadline`` expires the best fair tree found is returned with a valid bound and
    ``optimal=False``.  ``backend``: that of the unconstrained search run first
    (:func:`solve_subtree`).
    """
    depth = int(depth)
    if not 0 <= depth <= MAX_FAIR_DEPTH:
        raise ValueError(f"the fair front search takes depth 0..{MAX_FAIR_DEPTH}, got {depth}")
    t0 = time.perf_counter()
    if n_classes is None:
        n_classes = max(2, int(np.max(y, initial=0)) + 1)
    data = BinaryData.make(X, y, sample_weight, n_classes)
    u = np.asarray(coef, dtype=np.float64)
    if u.ndim == 1:
        u = u[:, None]
    if u.ndim != 2 or len(u) != len(data.y):
        raise ValueError(f"coef must hold one number or row of numbers per row, got shape "
                         f"{np.shape(coef)}")
    cells = [[j] for j in range(u.shape[1])] if cells is None else cells
    pen = float(leaf_penalty)
    search = _FairSearch(data, u, cells, float(epsilon),
                         _Classes.fair(int(positive), data.n_classes, u.shape[1]), pen,
                         int(min_leaf), deadline, backend)
    # the unconstrained optimum bounds the fair one, and is the answer when it is fair
    free = solve_subtree(data.X, data.y, depth, pen, sample_weight=sample_weight,
                         n_classes=data.n_classes,
                         deadline=deadline, backend=backend, min_leaf=min_leaf)
    bound, done = free.bound, False
    predicted = free.tree.label[free.tree.terminal(data.X) - 1] == positive
    if free.optimal and search.fair((predicted @ u)[None, :])[0]:
        tree, score, done = free.tree, free.score, True
    else:
        bound, done = search.run(depth, bound)
        score, node = search.best
        tree = _heap(node, depth)
    if done:
        bound = score
    stats = {"seconds": time.perf_counter() - t0, "nodes": search.pairs, "cache_entries": 0,
             "backend": "fronts", "unconstrained_fair": tree is free.tree,
             "roots_pruned": search.roots_pruned,
             "multipliers": search.multipliers.tolist()}
    return SubtreeSolution(tree, float(score), float(max(bound, score)), done, stats)
