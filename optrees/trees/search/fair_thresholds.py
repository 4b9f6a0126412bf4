"""Is a fair tree over a few thresholds optimal over every threshold? A Lagrangian certificate.

The fair front search (:mod:`.subtrees.fair`) runs over 0/1 columns, and a numeric column
with many values gets quantile cuts instead of all its thresholds when the columns would
pass its budget.  Its optimum ``z`` then holds over every threshold if no fair tree that
tests such a column scores more.  For any multipliers ``lam`` a fair tree has
``score <= score + lam . d + price(lam)`` (:func:`.subtrees.fair.fair_price`; ``d`` its gap
coordinates), and with two classes ``max_tree (score + lam . d)`` is an ordinary weighted
tree problem: a row worth ``a_i = w_i [y_i = positive] + lam . u_i`` when predicted
positive and ``b_i = w_i [y_i != positive]`` otherwise is a row of class
``positive`` if ``a_i > b_i`` (else the other) and weight ``|a_i - b_i|``, plus the
constant ``sum b - sum_{a < b} (b - a)``.  At depth ≤ 2 :func:`.numeric.outside.best_using`
bounds the trees of that problem which test the coarse columns, over every threshold; at
depth 3 the numeric search (:func:`.numeric.solver.solve_numeric`) bounds all trees, and a
tree it finds that is fair and better than ``z`` is kept (its thresholds then join the
columns).  At depth 1 no bound is needed: :func:`better_fair_stump` enumerates the stumps
on the coarse columns at every threshold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...compiled import resolve_backend
from ...solvers.deadline import Deadline, TimeUp
from .binary.fair import fair_price, golden_min, meets_bound
from .numeric.data import NumericData
from .numeric.entry import solve_numeric
from .numeric.outside import best_using

__all__ = ["MAX_CERTIFIED_DEPTH", "Certificate", "FairTree", "better_fair_stump"]

MAX_CERTIFIED_DEPTH = 3
"""Deepest tree the certificate takes (depth ≤ 2: trees testing a coarse column; 3: all)."""

ROUNDS = 8
"""Most multipliers one :meth:`Certificate.run` tries (each one bound over every threshold)."""


@dataclass
class FairTree:
    """A fair tree over every threshold: its ``score`` (weighted correct − penalty ·
    leaves) and its tests ``(feature, t)``, rows with ``x <= t`` going left."""

    score: float
    tests: list[tuple[int, float]]


class Certificate:
    """The Lagrangian certificate of one fair fit, kept across its rounds (a bound once
    proved holds whatever the columns): is no fair tree of depth ≤ ``depth`` over two
    classes ``y`` (0/1) better than a given score, at any threshold of the float matrix
    ``X``?  At depth ≤ 2 only the trees that test a column with ``coarse`` true are bounded
    (the score is then the optimum over the others); at depth 3 all trees are, with leaves
    of at least ``min_leaf`` rows.  ``coords``/``cells``: the rows' gap coordinates and
    their cells (:meth:`.fairness.TreeFairness.coordinates`), bounded by ``epsilon``.

    The multipliers follow Kelley's cutting planes: each bound's best tree T (score s_T,
    coordinates d_T) shows ``bound(lam) >= s_T + lam . d_T + price(lam)`` for every lam;
    the next lam minimizes the largest of these.  With one coordinate that minimum is
    exact, and once it is above the score no multiplier can certify."""

    def __init__(self, X: np.ndarray, coarse: np.ndarray, y: np.ndarray, w: np.ndarray,
                 coords: np.ndarray, cells: list[list[int]], epsilon: float, positive: int,
                 depth: int, leaf_penalty: float = 0.0, min_leaf: int = 1,
                 backend: str = "auto") -> None:
        if not 0 < depth <= MAX_CERTIFIED_DEPTH:
            raise ValueError(f"the certificate takes depth 1..{MAX_CERTIFIED_DEPTH}, got "
                             f"{depth}")
        self.X, self.data = X, NumericData(X)
        self.coarse, self.y, self.w = np.asarray(coarse, dtype=bool), y, w
        self.coords, self.cells, self.epsilon, self.positive = coords, cells, epsilon, positive
        self.depth, self.pen, self.min_leaf = depth, float(leaf_penalty), int(min_leaf)
        self.backend = resolve_backend(backend)
        self.tol = 1e-9 * (1.0 + float(w.sum()))
        self.bound = math.inf                        # the lowest bound proved so far
        self.better: FairTree | None = None          # the best fair tree found (depth 3)
        self.points: list[tuple[float, np.ndarray]] = []   # (s_T, d_T) of the trees found
        self.tried: list[np.ndarray] = []           # multipliers whose search finished
        self.center = np.zeros(coords.shape[1])      # the multipliers of the lowest bound
        self.step = 0.05 * float(w.sum())

    def run(self, score: float, start: np.ndarray | None = None,
            deadline: Deadline | None = None) -> bool:
        """Whether no fair tree (depth ≤ 2: testing a coarse column) scores more than
        ``score``, trying at most :data:`ROUNDS` multipliers from ``start`` (when not tried
        yet; else the model's minimum, or 0) until the bound falls to ``score``; False when
        none does within them or the deadline expires (a search it stops still leaves its
        tree and bound)."""
        if self.bound <= score + self.tol:
            return True
        if deadline is not None and deadline.expired():
            return False
        D = self.coords.shape[1]
        if start is not None and not any(np.array_equal(start, x) for x in self.tried):
            lam = np.asarray(start, dtype=float)
            self.step = max(self.step, float(np.abs(lam).max(initial=0.0)))
        elif self.points:
            lam = self._model_minimum(self.center, self.step)[0]
        else:
            lam = self.center
        for _ in range(ROUNDS):
            if D == 1 and self.points and \
                    self._model_minimum(0.0, 4.0 * max(1.0, float(self.w.sum())))[1] > \
                    score + self.tol:
                return False                         # no multiplier brings it to score
            a = self.w * (self.y == self.positive) + self.coords @ lam
            b = self.w * (self.y != self.positive)
            c = a - b
            label = np.where(c > 0, self.positive, 1 - self.positive).astype(np.int64)
            base = float(b.sum() + c[c < 0].sum())   # max(a, b) = b + max(0, c) per leaf
            price = fair_price(lam, self.cells, self.epsilon)
            try:
                value, d, s_t, stopped = self._bound(label, np.abs(c), score - base - price,
                                                     deadline)
            except TimeUp:
                return False
            if base + price + value < self.bound:
                self.center, self.bound = lam, base + price + value
            if self.bound <= score + self.tol:
                return True
            if d is not None:
                self.points.append((base + value - float(lam @ d) if s_t is None else s_t, d))
            if stopped:
                return False
            self.tried.append(lam)
            # the next multipliers: the model's minimum within a box around the best so far,
            # twice as wide while that minimum lies on its edge (Kelley's method, box step)
            lam, _ = self._model_minimum(self.center, self.step)
            if np.abs(lam - self.center).max() >= 0.999 * self.step:
                self.step *= 2.0
        return False

    def _bound(self, label: np.ndarray, weight: np.ndarray, floor: float,
               deadline: Deadline | None
               ) -> tuple[float, np.ndarray | None, float | None, bool]:
        """The bound of the weighted problem, the gap coordinates of its best tree (None:
        nothing above ``floor``), that tree's own score when the bound is not it (else
        None), and whether a deadline stopped the search."""
        if self.depth <= 2:
            check = None if deadline is None else deadline.check
            found = best_using(self.data, label, weight, 2, self.coarse, self.depth, self.pen,
                               floor, self.backend, check)
            d = None if found.labels is None else self._coordinates(found.labels)
            return found.value, d, None, False
        tree = solve_numeric(self.data, label, n_classes=2, sample_weight=weight,
                             leaf_penalty=self.pen, max_depth=self.depth, backend=self.backend,
                             deadline=deadline, min_leaf=self.min_leaf)
        labels = tree.predict(self.X)
        score = float(self.w @ (labels == self.y)) - self.pen * tree.n_leaves
        d = self._coordinates(labels)
        fair = meets_bound(d[None, :], self.cells, self.epsilon + 1e-9)[0]
        if fair and (self.better is None or score > self.better.score + self.tol):
            self.better = FairTree(score, [(int(f), float(t)) for f, t in
                                           zip(tree.feature, tree.threshold, strict=True)
                                           if f >= 0])
        return tree.upper_bound, d, score, not tree.optimal

    def _coordinates(self, labels: np.ndarray) -> np.ndarray:
        """Gap coordinates of the tree that gives rows ``labels``."""
        return self.coords.T @ (labels == self.positive)

    def _model_minimum(self, center: np.ndarray | float,
                       step: float) -> tuple[np.ndarray, float]:
        """:func:`_model_minimum` over the trees found so far."""
        return _model_minimum(self.points, self.cells, self.epsilon, center, step)


def _model_minimum(points: list[tuple[float, np.ndarray]], cells: list[list[int]],
                   epsilon: float, center: np.ndarray | float,
                   step: float) -> tuple[np.ndarray, float]:
    """lam within ``step`` of ``center`` (each coordinate) minimizing the convex
    piecewise-linear model ``max_T (s_T + lam . d_T) + price(lam)`` (golden section along
    each coordinate in turn, exact for one coordinate), and its value."""
    s = np.array([p[0] for p in points])
    d = np.array([p[1] for p in points])
    D = d.shape[1]
    center = np.broadcast_to(np.asarray(center, dtype=float), (D,))

    def model(x: np.ndarray) -> float:
        return float((s + d @ x).max()) + fair_price(x, cells, epsilon)

    lam = center.copy()
    for j in [k for _ in range(1 if D == 1 else 3) for k in range(D)]:
        def along(t: float, j: int = j) -> float:
            x = lam.copy()
            x[j] = t
            return model(x)

        lam[j] = golden_min(along, center[j] - step, center[j] + step, 80)
    return lam, model(lam)


def better_fair_stump(X: np.ndarray, coarse: np.ndarray, y: np.ndarray, w: np.ndarray,
                      coords: np.ndarray, cells: list[list[int]], epsilon: float,
                      positive: int, score: float, leaf_penalty: float = 0.0,
                      min_leaf: int = 1) -> tuple[int, float] | None:
    """The best fair stump over two classes ``y`` on a column of ``X`` with ``coarse``
    true, at any threshold with ``min_leaf`` rows on each side, if it scores more than
    ``score``: ``(column, v)``, the rows with ``x >= v`` on its right (None: no such
    stump).  Enumerated: per column, prefix sums over its sorted rows give every split's
    class weights and gap coordinates on each side."""
    tol = 1e-9 * (1.0 + float(w.sum()))
    best: tuple[float, int, float] | None = None
    V = np.column_stack([w * (y == positive), w * (y != positive), coords])
    for j in np.flatnonzero(coarse):
        order = np.argsort(X[:, j], kind="stable")
        xs = X[order, j]
        left = np.cumsum(V[order], axis=0)[:-1]      # the first k + 1 rows go left
        k = np.flatnonzero((xs[1:] > xs[:-1]) & (np.arange(1, len(xs)) >= min_leaf)
                           & (np.arange(len(xs) - 1, 0, -1) >= min_leaf))
        if not k.size:
            continue
        L = left[k]
        R = V.sum(axis=0) - L
        # the positive leaf on the left, or on the right (two equal leaves are a leaf)
        for value, d in ((L[:, 0] + R[:, 1], L[:, 2:]), (L[:, 1] + R[:, 0], R[:, 2:])):
            fair = meets_bound(d, cells, epsilon + 1e-9)
            value = np.where(fair, value - 2.0 * leaf_penalty, -np.inf)
            i = int(np.argmax(value))
            if value[i] > score + tol and (best is None or value[i] > best[0]):
                best = (float(value[i]), int(j), float(xs[k[i] + 1]))
    return None if best is None else best[1:]

