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
constant ``sum b - sum_{a < b} (b - a)``.  :func:`.numeric.outside.best_using` bounds the
trees of that problem which test the coarse columns, over every threshold (depth ≤ 2).
At depth 1 no bound is needed: :func:`better_fair_stump` enumerates the stumps on the coarse
columns at every threshold.
"""

from __future__ import annotations

import numpy as np

from ..solvers.deadline import Deadline, TimeUp
from .compiled import resolve_backend
from .numeric.data import NumericData
from .numeric.outside import best_using
from .subtrees.fair import fair_price, golden_min, meets_bound

__all__ = ["MAX_CERTIFIED_DEPTH", "better_fair_stump", "certify_every_threshold"]

MAX_CERTIFIED_DEPTH = 2
"""Deepest tree the certificate takes (depth 3 would solve depth-2 searches per root)."""


def certify_every_threshold(X: np.ndarray, coarse: np.ndarray, y: np.ndarray,
                            w: np.ndarray, coords: np.ndarray, cells: list[list[int]],
                            epsilon: float, positive: int, score: float, depth: int,
                            leaf_penalty: float = 0.0, start: np.ndarray | None = None,
                            deadline: Deadline | None = None,
                            backend: str = "auto") -> float | None:
    """A bound, at most ``score``, on the fair trees of depth ≤ ``depth`` over two classes
    ``y`` (0/1) that test a column of the float matrix ``X`` with ``coarse`` true, at any
    threshold (``score``: the fair optimum over the other trees, in weighted correct −
    penalty · leaves); None when no multipliers found within :data:`ROUNDS` bring the
    bound that low, or the deadline expires.  ``coords``/``cells``: the rows' gap
    coordinates and their cells (:meth:`.fairness.TreeFairness.coordinates`), bounded by
    ``epsilon``; ``start``: the first multipliers (default 0).

    The multipliers follow Kelley's cutting planes: each bound's best tree T (score s_T,
    coordinates d_T) shows ``bound(lam) >= s_T + lam . d_T + price(lam)`` for every lam;
    the next lam minimizes the largest of these.  With one coordinate that minimum is
    exact, and once it is above ``score`` no multiplier can certify."""
    if depth > MAX_CERTIFIED_DEPTH or not 0 < depth:
        raise ValueError(f"the certificate takes depth 1..{MAX_CERTIFIED_DEPTH}, got {depth}")
    data = NumericData(X)
    D = coords.shape[1]
    tol = 1e-9 * (1.0 + float(w.sum()))
    scale = 4.0 * max(1.0, float(w.sum()))           # the front search's range (its dual)
    check = None if deadline is None else deadline.check
    backend = resolve_backend(backend)
    lam = np.zeros(D) if start is None else np.asarray(start, dtype=float)
    center, least = lam, np.inf                      # the multipliers of the lowest bound
    step = max(float(np.abs(lam).max(initial=0.0)), 0.05 * float(w.sum()))
    points: list[tuple[float, np.ndarray]] = []     # (s_T, d_T) of the trees found
    for _ in range(ROUNDS):
        a = w * (y == positive) + coords @ lam
        b = w * (y != positive)
        c = a - b
        label = np.where(c > 0, positive, 1 - positive).astype(np.int64)
        base = float(b.sum() + c[c < 0].sum())       # max(a, b) = b + max(0, c) per leaf
        price = fair_price(lam, cells, epsilon)
        try:
            found = best_using(data, label, np.abs(c), 2, coarse, depth, leaf_penalty,
                               score - base - price, backend, check)
        except TimeUp:
            return None
        if found.labels is None:                     # nothing above the floor
            return score
        if base + price + found.value < least:
            center, least = lam, base + price + found.value
        d = coords.T @ (found.labels == positive)
        points.append((base + found.value - float(lam @ d), d))
        if D == 1 and _model_minimum(points, cells, epsilon, 0.0, scale)[1] > score + tol:
            return None                              # no multiplier brings it to score
        # the next multipliers: the model's minimum within a box around the best so far,
        # twice as wide while that minimum lies on its edge (Kelley's method, box step)
        lam, _ = _model_minimum(points, cells, epsilon, center, step)
        if np.abs(lam - center).max() >= 0.999 * step:
            step *= 2.0
    return None


ROUNDS = 8
"""Most multipliers the certificate tries (each one bound over every threshold)."""


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

