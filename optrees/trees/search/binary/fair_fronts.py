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
    """The priced classes and the others: a leaf predicts a priced class ``j`` (its weight
    counts, and its rows' coordinates ``u``, summed and mapped by ``maps[j]``, are its share
    ``d`` of the constrained quantities) or the heaviest other class (``d = 0``; weight -inf
    when every class is priced).  Fairness prices one class (the positive one, ``maps`` the
    identity); treatment budgets price each budgeted class, ``d = u e_j``.  With ``leaves``,
    ``d`` has one more coordinate, last, to which every leaf adds 1 (its leaf count, for a
    leaf budget).  Totals hold the K class weights, then the ``Du`` row coordinates summed,
    then rows."""

    priced: np.ndarray
    others: np.ndarray
    n_classes: int
    maps: np.ndarray  # (m, Du, D rows' coordinates)
    leaves: bool = False

    @classmethod
    def fair(cls, positive: int, n_classes: int, D: int) -> _Classes:
        """One priced class whose leaves carry the D gap coordinates themselves."""
        return cls(np.array([positive]),
                   np.array([k for k in range(n_classes) if k != positive]), n_classes,
                   np.eye(D)[None])

    @classmethod
    def budgets(cls, budgeted: list[int], n_classes: int, predicted: int,
                leaves: bool = False) -> _Classes:
        """Budgeted classes ``j`` whose leaves carry their rows' one coordinate (the budget
        weight) in coordinate ``j``; classes ``predicted..`` are never predicted; with
        ``leaves``, the leaf count last."""
        m = len(budgeted)
        return cls(np.array(budgeted), np.array([k for k in range(predicted)
                                                 if k not in budgeted], dtype=np.int64),
                   n_classes, np.eye(m)[:, None, :], leaves)

    @property
    def D(self) -> int:
        return self.maps.shape[2] + int(self.leaves)

    @property
    def combos(self) -> np.ndarray:
        """The leaf options (left, right) of a depth-1 split (0: other, 1 + j: priced j)
        that no leaf dominates: not one priced class twice, two other-class leaves only
        with several other classes."""
        m = len(self.priced)
        pairs = [(a, b) for a in range(m + 1) for b in range(m + 1) if a != b]
        if len(self.others) > 1:
            pairs.append((0, 0))
        return np.array(pairs, dtype=np.int64)

    def u(self, Q: np.ndarray) -> np.ndarray:
        """The row coordinates (..., Du) summed in totals ``Q``."""
        return Q[..., self.n_classes:self.n_classes + self.maps.shape[1]]

    def d(self, U: np.ndarray) -> np.ndarray:
        """The share (..., m, D) of each priced option of row coordinates ``U`` (..., Du)
        (the leaf count, if counted, 0: rows do not add to it)."""
        d = np.einsum("...u,jud->...jd", U, self.maps)
        if self.leaves:
            d = np.concatenate([d, np.zeros((*d.shape[:-1], 1))], axis=-1)
        return d

    def other(self, Q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(heaviest other weight, that class) of totals ``Q`` (-inf, -1 without one)."""
        if len(self.others) == 0:
            return np.full(Q.shape[:-1], -math.inf), np.full(Q.shape[:-1], -1)
        if len(self.others) == 1:
            o = int(self.others[0])
            return Q[..., o], np.full(Q.shape[:-1], o)
        other = Q[..., self.others]
        k = other.argmax(axis=-1)
        return np.take_along_axis(other, k[..., None], -1)[..., 0], self.others[k]

    def options(self, Q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Score (..., m + 1) and share d (..., m + 1, D) of each leaf option of totals
        ``Q`` (0: the other class, 1 + j: priced class j), and the other class."""
        other, k = self.other(Q)
        score = np.concatenate([other[..., None], Q[..., self.priced]], axis=-1)
        d = self.d(self.u(Q))
        d = np.concatenate([np.zeros((*d.shape[:-2], 1, self.D)), d], axis=-2)
        if self.leaves:
            d[..., -1] = 1.0
        return score, d, k

    def parts(self, Q: np.ndarray) -> tuple[np.ndarray, list, list]:
        """(other weight, each priced class's weight, each row coordinate) of totals ``Q``,
        contiguous arrays of shape ``Q.shape[:-1]``: what :meth:`best` reads, often."""
        K, Du = self.n_classes, self.maps.shape[1]
        return (np.array(self.other(Q)[0]),
                [np.array(Q[..., k]) for k in self.priced],
                [np.array(Q[..., K + u]) for u in range(Du)])

    def best(self, parts: tuple, lam: np.ndarray | None) -> np.ndarray:
        """The best leaf of :meth:`parts`, priced leaves worth ``weight + lam . d``
        (elementwise over the priced classes: a reduction over a short last axis is slow)."""
        other, P, U = parts
        out = other.copy()
        if lam is None:
            for p in P:
                np.maximum(out, p, out=out)
            return out
        worth = self.maps @ lam[:self.maps.shape[2]]  # (m, Du): lam . d per unit of u
        for p, w in zip(P, worth, strict=True):
            v = p.copy()
            for u, c in zip(U, w, strict=True):
                if c != 0.0:
                    v += c * u
            np.maximum(out, v, out=out)
        return out + lam[-1] if self.leaves else out

    def label(self, option: int, other: int) -> int:
        """The class of leaf option ``option`` (0: ``other``)."""
        return int(other) if option == 0 else int(self.priced[option - 1])


class _Side:
    """The depth-≤1 front of one row set from its totals ``T`` (class weights, row
    coordinates, rows) and, per feature h, the totals ``Q1`` (F x ...) of its rows with
    x_h = 1.  Points ``0..m`` are the leaves (:meth:`_Classes.options`), then per feature h
    one split per leaf pair of :attr:`_Classes.combos`; splits leaving fewer than ``m`` rows
    on a side, and options of weight -inf, are left out."""

    def __init__(self, T: np.ndarray, Q1: np.ndarray, pen: float, m: int,
                 cls: _Classes) -> None:
        Q0 = T - Q1
        ok = (Q0[:, _C] >= m) & (Q1[:, _C] >= m)
        (sT, dT, self.t_other), (s0, d0, self.other0), (s1, d1, self.other1) = (
            cls.options(T), cls.options(Q0), cls.options(Q1))
        self.cls, self.combos = cls, cls.combos
        a, b = self.combos.T
        score = np.concatenate([sT - pen, (s0[:, a] + s1[:, b]).ravel() - 2 * pen])
        d = np.concatenate([dT, (d0[:, a] + d1[:, b]).reshape(-1, cls.D)])
        valid = np.r_[np.ones(len(sT), dtype=bool), np.repeat(ok, len(self.combos))]
        self.index = np.flatnonzero(valid & np.isfinite(score))
        self.score, self.d = score[self.index], d[self.index]

    def node(self, i: int) -> tuple | int:
        """Subtree of point ``i``: a leaf (its class index) or ``(h, left, right)``."""
        code, leaves = int(self.index[i]), len(self.cls.priced) + 1
        if code < leaves:
            return self.cls.label(code, self.t_other)
        h, c = divmod(code - leaves, len(self.combos))
        a, b = self.combos[c]
        return (h, self.cls.label(a, self.other0[h]), self.cls.label(b, self.other1[h]))


class _Level2:
    """Depth-≤2 subtrees of one row set from its totals ``T`` (class weights, row
    coordinates, rows), its totals with x_g = 1 ``S1`` (F x ...) and with x_g = x_h = 1
    ``M`` (F x F x ...)."""

    def __init__(self, T: np.ndarray, S1: np.ndarray, M: np.ndarray, pen: float,
                 m: int, cls: _Classes) -> None:
        self.T, self.S1, self.M, self.pen, self.m, self.cls = T, S1, M, pen, m, cls
        self.ok = (S1[:, _C] >= m) & (T[_C] - S1[:, _C] >= m)
        self.leaf = cls.options(T)
        self._leaf_parts = cls.parts(T)
        # per side of root g (x_g = 0, x_g = 1): the leaf parts of its totals and of the
        # quadrants x_h = 0 / 1 of each child split h (F x F), for the Lagrangian bounds at
        # any multiplier
        self._sides = []
        for T_side, Q1 in ((T - S1, S1[None, :, :] - M), (S1, M)):
            Q0 = T_side[:, None, :] - Q1
            ok = (Q0[..., _C] >= m) & (Q1[..., _C] >= m)
            self._sides.append(([cls.parts(Q) for Q in (T_side, Q0, Q1)], ok))
        self.best_side = self._sides_best(None)
        self.ub = self.phi(None)
        self._fronts: dict[int, tuple[_Side, _Side]] = {}

    def _sides_best(self, lam: np.ndarray | None) -> tuple[np.ndarray, ...]:
        """Best depth-≤1 score of each root's two sides, priced leaves worth
        ``weight + lam . d`` (None: lam = 0)."""
        out = []
        for (whole, q0, q1), ok in self._sides:
            split = self.cls.best(q0, lam) + self.cls.best(q1, lam)
            split = np.where(ok, split, -math.inf).max(axis=1) - 2 * self.pen
            out.append(np.maximum(split, self.cls.best(whole, lam) - self.pen))
        return tuple(out)

    def phi(self, lam: np.ndarray | None) -> float:
        """Best score + ``lam . d`` over all subtrees (unconstrained; ``lam`` None: the
        unconstrained optimum)."""
        left, right = self.best_side if lam is None else self._sides_best(lam)
        leaf = float(self.cls.best(self._leaf_parts, lam)) - self.pen
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
        leaf_s, leaf_d = self.leaf[0] - self.pen, self.leaf[1]
        ok = np.flatnonzero(keep(leaf_s, leaf_d))  # (an option of weight -inf fails)
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
            return self.cls.label(int(front.a[i]), self.leaf[2])
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
