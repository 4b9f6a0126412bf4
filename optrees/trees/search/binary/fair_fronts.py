"""The fronts of the fair subtree search (:mod:`.fair`): points (score, gap coordinates) of
subtrees, kept best per distinct gap, paired under a floor; the depth-2 level built from
pair counts, and the Lagrangian partner bound of a sibling."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

_C = -1                    # last column of a total: rows (before: class weights, gap coords)
_KEY = 1e11                # d values closer than 1/_KEY count as one (d lies in [-1, 1])
_CHUNK = 1 << 20           # most pairs of front points materialized at once


@dataclass
class _Front:
    """Points (score, d) of subtrees of one row set (d: one row of gap coordinates per
    point), with what each point is: ``root``
    feature (-1: the row set is a leaf, ``a`` = 0 other class / 1 positive) and the indices
    ``a``, ``b`` of the two children's points in their side fronts."""

    score: np.ndarray
    d: np.ndarray
    root: np.ndarray
    a: np.ndarray
    b: np.ndarray

    @classmethod
    def empty(cls, D: int) -> _Front:
        i = np.zeros(0, dtype=np.int64)
        return cls(np.zeros(0), np.zeros((0, D)), i, i, i)

    def __len__(self) -> int:
        return len(self.score)


def _unique_d(score: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Indices of the best score for each distinct row of d (first one on ties)."""
    if len(d) == 0:
        return np.zeros(0, dtype=np.int64)
    key = np.rint(d * _KEY).astype(np.int64)
    order = np.lexsort((np.arange(len(d)), -score, *key.T[::-1]))
    k = key[order]
    keep = np.r_[True, (k[1:] != k[:-1]).any(axis=1)]
    return order[keep]


def _ranges(order: np.ndarray, lo: np.ndarray, hi: np.ndarray):
    """Chunks ``(ia, ib)`` of the pairs ``(a, order[k])`` for ``lo[a] <= k < hi[a]``."""
    count = np.maximum(hi - lo, 0)
    ends = np.cumsum(count)
    start = 0
    while start < len(lo):
        stop = int(np.searchsorted(ends, (ends[start - 1] if start else 0) + _CHUNK,
                                   side="right"))
        stop = max(stop, start + 1)
        k = count[start:stop]
        total = int(k.sum())
        if total:
            ia = np.repeat(np.arange(start, stop), k)
            first = np.repeat(np.cumsum(k) - k, k)
            yield ia, order[np.repeat(lo[start:stop], k) + np.arange(total) - first]
        start = stop


def _by_score(sa: np.ndarray, sb: np.ndarray, floor: float) -> tuple:
    """``_ranges`` arguments of every pair with ``sa[ia] + sb[ib] >= floor``."""
    order = np.argsort(-sb, kind="stable")
    count = np.searchsorted(-sb[order], sa - floor, side="right")  # sb >= floor - sa
    return order, np.zeros_like(count), count


def _by_window(da: np.ndarray, db: np.ndarray, w: float) -> tuple:
    """``_ranges`` arguments of every pair with ``|da[ia] + db[ib]| <= w``."""
    order = np.argsort(db, kind="stable")
    sorted_b = db[order]
    return (order, np.searchsorted(sorted_b, -w - da, side="left"),
            np.searchsorted(sorted_b, w - da, side="right"))


def _pairs(sa: np.ndarray, sb: np.ndarray, floor: float):
    """Chunks ``(ia, ib)`` of every pair with ``sa[ia] + sb[ib] >= floor``."""
    return _ranges(*_by_score(sa, sb, floor))


@dataclass(frozen=True)
class _Classes:
    """The positive class and the others: a leaf predicts the positive class (its weight
    counts, its rows' gap coordinates add up) or the heaviest other class (no share of the
    gap).  Totals hold the K class weights, then the D gap coordinates summed, then rows."""

    positive: int
    others: np.ndarray
    n_classes: int
    D: int

    def u(self, Q: np.ndarray) -> np.ndarray:
        """The gap coordinates (..., D) of totals ``Q``."""
        return Q[..., self.n_classes:self.n_classes + self.D]

    def split(self, Q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(positive weight, heaviest other weight, that class) of totals ``Q``."""
        if len(self.others) == 1:
            o = int(self.others[0])
            return Q[..., self.positive], Q[..., o], np.full(Q.shape[:-1], o)
        other = Q[..., self.others]
        k = other.argmax(axis=-1)
        return Q[..., self.positive], np.take_along_axis(other, k[..., None], -1)[..., 0], \
            self.others[k]


class _Side:
    """The depth-≤1 front of one row set from its totals ``T`` (class weights, D gap
    coordinates, rows) and, per feature h, the totals ``Q1`` (F x ...) of its rows with
    x_h = 1.  Point 0 is the other-class leaf,
    1 the positive leaf, ``2 + 3h`` the split on h with a positive right leaf, ``3 + 3h`` the
    split with a positive left leaf, ``4 + 3h`` (more than two classes) the split with two
    other-class leaves; splits leaving fewer than ``m`` rows on a side are left out."""

    def __init__(self, T: np.ndarray, Q1: np.ndarray, pen: float, m: int,
                 cls: _Classes) -> None:
        Q0 = T - Q1
        ok = (Q0[:, _C] >= m) & (Q1[:, _C] >= m)
        (tp, tn, self.t_other), (p0, n0, self.other0), (p1, n1, self.other1) = (
            cls.split(T), cls.split(Q0), cls.split(Q1))
        self.positive = cls.positive
        score = np.empty(2 + 3 * len(Q1))
        d = np.zeros((len(score), cls.D))
        score[:2] = tn - pen, tp - pen
        d[1] = cls.u(T)
        score[2::3] = n0 + p1 - 2 * pen
        d[2::3] = cls.u(Q1)
        score[3::3] = p0 + n1 - 2 * pen
        d[3::3] = cls.u(Q0)
        score[4::3] = n0 + n1 - 2 * pen  # with two classes: the other-class leaf, worse
        both_other = np.full(len(Q1), len(cls.others) > 1)
        valid = np.r_[True, True, np.column_stack([ok, ok, ok & both_other]).ravel()]
        self.index = np.flatnonzero(valid)
        self.score, self.d = score[self.index], d[self.index]

    def node(self, i: int) -> tuple | int:
        """Subtree of point ``i``: a leaf (its class index) or ``(h, left, right)``."""
        code = int(self.index[i])
        if code < 2:
            return self.positive if code else int(self.t_other)
        h, kind = divmod(code - 2, 3)
        left = self.positive if kind == 1 else int(self.other0[h])
        return (h, left, self.positive if kind == 0 else int(self.other1[h]))


class _Level2:
    """Depth-≤2 subtrees of one row set from its totals ``T`` (class weights, D gap
    coordinates, rows), its totals with x_g = 1 ``S1`` (F x ...) and with x_g = x_h = 1
    ``M`` (F x F x ...)."""

    def __init__(self, T: np.ndarray, S1: np.ndarray, M: np.ndarray, pen: float,
                 m: int, cls: _Classes) -> None:
        self.T, self.S1, self.M, self.pen, self.m, self.cls = T, S1, M, pen, m, cls
        self.ok = (S1[:, _C] >= m) & (T[_C] - S1[:, _C] >= m)
        self.leaf = cls.split(T)
        # per side of root g (x_g = 0, x_g = 1): (positive, other, u) of its totals and of
        # the quadrants x_h = 0 / 1 of each child split h (F x F), for the Lagrangian bounds
        # at any multiplier
        self._sides = []
        for T_side, Q1 in ((T - S1, S1[None, :, :] - M), (S1, M)):
            Q0 = T_side[:, None, :] - Q1
            ok = (Q0[..., _C] >= m) & (Q1[..., _C] >= m)
            parts = [(*cls.split(Q)[:2], cls.u(Q)) for Q in (T_side, Q0, Q1)]
            self._sides.append((parts, ok))
        self.best_side = self._sides_best(None)
        self.ub = self.phi(None)
        self._fronts: dict[int, tuple[_Side, _Side]] = {}

    def _sides_best(self, lam: np.ndarray | None) -> tuple[np.ndarray, ...]:
        """Best depth-≤1 score of each root's two sides, positive leaves worth
        ``P + lam . U`` (None: lam = 0)."""
        out = []
        for ((tp, tn, tu), (p0, n0, u0), (p1, n1, u1)), ok in self._sides:
            if lam is not None:
                tp, p0, p1 = tp + tu @ lam, p0 + u0 @ lam, p1 + u1 @ lam
            split = np.maximum(np.maximum(n0 + p1, p0 + n1), n0 + n1)
            split = np.where(ok, split, -math.inf).max(axis=1) - 2 * self.pen
            out.append(np.maximum(split, np.maximum(tp, tn) - self.pen))
        return tuple(out)

    def phi(self, lam: np.ndarray | None) -> float:
        """Best score + ``lam . d`` over all subtrees (unconstrained; ``lam`` None: the
        unconstrained optimum)."""
        tp, tn, _ = self.leaf
        if lam is not None:
            tp = tp + self.cls.u(self.T) @ lam
        left, right = self.best_side if lam is None else self._sides_best(lam)
        leaf = max(float(tp), float(tn)) - self.pen
        return max(leaf, float((left + right)[self.ok].max(initial=-math.inf)))

    def sides(self, g: int) -> tuple[_Side, _Side]:
        """The side fronts of root ``g`` (x_g = 0, x_g = 1), kept for the next floor."""
        if g not in self._fronts:
            self._fronts[g] = (
                _Side(self.T - self.S1[g], self.S1 - self.M[g], self.pen, self.m, self.cls),
                _Side(self.S1[g], self.M[g], self.pen, self.m, self.cls))
        return self._fronts[g]

    def front(self, floor: float, lo: np.ndarray, hi: np.ndarray,
              partner: _Partner | None = None) -> _Front:
        """Points with every coordinate of d in [lo, hi] scoring ≥ ``floor`` - (``partner``'s
        bound at d; 0 without a partner), best score per d."""
        def keep(s: np.ndarray, d: np.ndarray) -> np.ndarray:
            ok = ((d >= lo) & (d <= hi)).all(axis=1) & (
                s >= floor - (0.0 if partner is None else partner.ub))
            if partner is not None and ok.any():
                ok[ok] = s[ok] >= floor - partner.bound(d[ok])
            return ok

        parts = []
        leaf_s = np.array([self.leaf[1], self.leaf[0]]) - self.pen
        leaf_d = np.vstack([np.zeros(self.cls.D), self.cls.u(self.T)])
        ok = np.flatnonzero(keep(leaf_s, leaf_d))
        if ok.size:
            parts.append((leaf_s[ok], leaf_d[ok], np.full(ok.size, -1), ok,
                          np.zeros(ok.size, dtype=np.int64)))
        least = floor - (0.0 if partner is None else partner.ub)
        split = self.best_side[0] + self.best_side[1]
        for g in np.flatnonzero(self.ok & (split >= least)):
            A, B = self.sides(int(g))
            for ia, ib in _pairs(A.score, B.score, least):
                d = A.d[ia] + B.d[ib]
                s = A.score[ia] + B.score[ib]
                inside = keep(s, d)
                if not inside.any():
                    continue
                ia, ib, d, s = ia[inside], ib[inside], d[inside], s[inside]
                best = _unique_d(s, d)
                parts.append((s[best], d[best], np.full(best.size, g), ia[best], ib[best]))
        if not parts:
            return _Front.empty(self.cls.D)
        s, d, root, a, b = (np.concatenate(x) for x in zip(*parts, strict=True))
        best = _unique_d(s, d)
        return _Front(s[best], d[best], root[best], a[best], b[best])

    def node(self, front: _Front, i: int) -> tuple | int:
        """Subtree of point ``i`` of ``front``."""
        g = int(front.root[i])
        if g < 0:
            return self.cls.positive if front.a[i] else int(self.leaf[2])
        A, B = self.sides(g)
        return (g, A.node(int(front.a[i])), B.node(int(front.b[i])))


class _Partner:
    """Lagrangian bound on the best fair completion by a sibling row set: for a point of
    gap coordinates d, ``min_j phi_j + lam_j . d + pen_j`` (``phi_j``: the sibling's
    unconstrained optimum at multipliers ``lam_j``, ``pen_j`` their price); ``ub``: the
    sibling's unconstrained optimum."""

    def __init__(self, lams: np.ndarray, phis: np.ndarray, pens: np.ndarray,
                 ub: float) -> None:
        self.lams, self.phis, self.pens, self.ub = lams, phis, pens, ub

    def bound(self, d: np.ndarray) -> np.ndarray:
        out = np.full(len(d), self.ub)
        for lam, phi, pen in zip(self.lams, self.phis, self.pens, strict=True):
            np.minimum(out, phi + d @ lam + pen, out=out)
        return out
