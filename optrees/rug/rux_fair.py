"""A stopped FairRUG fit of RUX: the scales of the ensemble's vote that keep FairRUG's rows.

FairRUG's rows ((11)-(12), (15)-(16) of [RUG]) cap, per family of index sets (one per class
for DMC, the positive class for EOP, all rows for ODM), the difference of two groups' weighted
means of the slacks ``v``: ``mean_g v - mean_h v <= eps``.  Along the vote's ray ``w = t * 1``
the model's own slacks are ``v_i(t) = max(0, 1 - t s_i)`` (``s_i``: row i's margin under the
unit vote), so each group mean is piecewise linear in ``t`` with kinks at ``1 / s_i`` -- but
a *difference* of two such means is neither convex nor monotone, so the scales keeping every
row are a union of intervals, not one interval that a bisection on ``t`` would find.

:func:`fair_scales` finds them exactly: between two consecutive kinks every mean, every row
and the objective of (3) are linear in ``t``, so each row holds on one sub-interval of the
segment (a root of a linear function), the rows together on their intersection, and the
objective is least at one of its ends.  The candidates come out best first; the caller
evaluates each from the definition (:meth:`FairRows.holds` on the recomputed slacks) and
keeps the first that holds.  ``t = 0`` (the majority class, every slack 1, every mean 1) is
always feasible and is the fallback.

The slacks are the model's own (no slack is raised above ``max(0, 1 - margin)``): the LP may
raise slacks to meet a cap, but then the caps say nothing about the rule set returned.  The
slacks only approximate the errors, so the caller also compares the vote's *realised* gap
(:meth:`FairRows.realised`, the same for every ``t > 0``) with the majority class's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

FAIR_TOL = 1e-12
"""Rounding allowed when a row is evaluated from its definition (means of numbers in [0, 1]
and above, summed in floating point): a scale on the boundary of a row meets it exactly in
real arithmetic and within about 1e-16 in floating point."""

MIN_GAIN = 1e-9
"""Relative gain in (3) over the majority class below which a scale is not taken: with a cap
of 0 the rows' rounding (1e-16) let a scale of 5e-15 through, the vote's predictions at a
gain of 6e-12."""


@dataclass
class FairRows:
    """FairRUG's rows over training rows: per family, per group, the indices of its rows;
    the rows' weights ``w``; the cap ``epsilon``.  Groups of no weight are left out, as
    :func:`.fairness.fairness_rows` leaves them out of the LP."""

    families: list[list[np.ndarray]]
    w: np.ndarray
    epsilon: float

    def gaps(self, v: np.ndarray) -> np.ndarray:
        """Per family, the largest ``mean_g v - mean_h v`` over its groups (weighted means):
        every row of the family holds iff this is ``<= epsilon``."""
        out = []
        for fam in self.families:
            means = [float(self.w[idx] @ v[idx]) / float(self.w[idx].sum())
                     for idx in fam if float(self.w[idx].sum()) > 0]
            out.append(max(means) - min(means) if len(means) > 1 else 0.0)
        return np.asarray(out, dtype=float)

    def holds(self, v: np.ndarray) -> bool:
        """Whether slacks ``v`` meet every row (within :data:`FAIR_TOL`)."""
        return bool((self.gaps(v) <= self.epsilon + FAIR_TOL).all())

    def realised(self, wrong: np.ndarray) -> float:
        """The realised training gap of predictions erring on rows ``wrong`` (bool): the
        rows' largest difference of weighted group *error rates* -- DMC's per class, ODM's
        overall, EOP's on the positive class (:func:`optrees.metrics.fairness_gap`)."""
        return float(self.gaps(np.asarray(wrong, dtype=float)).max(initial=0.0))

    def sets(self) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
        """(the n x sets matrix of ``w_i / W_set``, first set and second set of each row
        ``mean_first - mean_second <= eps``) over the groups of positive weight."""
        cols, pg, ph = [], [], []
        for fam in self.families:
            ids = []
            for idx in fam:
                total = float(self.w[idx].sum())
                if total > 0:
                    ids.append(len(cols))
                    cols.append((idx, self.w[idx] / total))
            pg += [g for g in ids for h in ids if g != h]
            ph += [h for g in ids for h in ids if g != h]
        n = len(self.w)
        rows = np.concatenate([idx for idx, _ in cols]) if cols else np.zeros(0, np.int64)
        vals = np.concatenate([val for _, val in cols]) if cols else np.zeros(0)
        which = np.repeat(np.arange(len(cols)), [len(idx) for idx, _ in cols])
        P = sp.csr_matrix((vals, (rows, which)), shape=(n, len(cols)))
        return P, np.asarray(pg, dtype=np.int64), np.asarray(ph, dtype=np.int64)


def fair_scales(s: np.ndarray, w: np.ndarray, rule_cost: float, rows: FairRows
                ) -> np.ndarray:
    """Scales ``t > 0`` of the vote whose slacks ``max(0, 1 - t s)`` keep ``rows`` (in exact
    arithmetic) and lower ``t * rule_cost + sum_i w_i max(0, 1 - t s_i)`` below its value at
    0, best first: per segment between kinks, the end of the segment's feasible interval
    where the (linear) objective is least, then its middle (strictly inside, for when
    rounding puts the end just outside a row).  Empty when no scale gains."""
    up = s > 0
    if not up.any():
        return np.zeros(0)
    kinks = np.unique(1.0 / s[up])
    T = np.concatenate([[0.0], kinks])  # segment j: [T[j], T[j + 1]]
    p = len(kinks)
    # rows whose slack is 0 from segment j on (kink == T[j]); others never reach 0
    seg = np.full(len(s), p + 1)
    seg[up] = np.searchsorted(T, 1.0 / s[up], side="left")
    at = sp.csr_matrix((np.ones(len(s)), (np.minimum(seg, p + 1), np.arange(len(s)))),
                       shape=(p + 2, len(s)))[:p]  # at[j, i]: row i reaches 0 at T[j]

    def gone(x: np.ndarray | sp.spmatrix) -> np.ndarray:
        """Per segment j, the sum of ``x``'s entries of the rows at 0 on segment j."""
        return np.cumsum(x.toarray() if sp.issparse(x) else np.asarray(x), axis=0)

    # objective on segment j: F0_j - B0_j t + rule_cost t
    F0 = float(w.sum()) - gone(at @ w)
    B0 = float(w @ s) - gone(at @ (w * s))
    lo, hi = T[:-1].copy(), T[1:].copy()
    ok = np.ones(p, dtype=bool)
    P, pg, ph = rows.sets()
    if len(pg):
        a = np.asarray(P.sum(axis=0)).ravel() - gone(at @ P)  # means: a - b t
        b = np.asarray(P.T @ s).ravel() - gone(at @ sp.csr_matrix(P.multiply(s[:, None])))
        alpha, beta = a[:, pg] - a[:, ph], -(b[:, pg] - b[:, ph])  # row: alpha + beta t
        with np.errstate(divide="ignore", invalid="ignore"):
            root = (rows.epsilon - alpha) / beta
        lo = np.maximum(lo, np.where(beta < 0, root, -np.inf).max(axis=1))
        hi = np.minimum(hi, np.where(beta > 0, root, np.inf).min(axis=1))
        ok &= ~((beta == 0) & (alpha > rows.epsilon)).any(axis=1)
    ok &= lo <= hi
    slope = rule_cost - B0
    end = np.where(slope >= 0, lo, hi)
    t = np.concatenate([end[ok], 0.5 * (lo + hi)[ok]])
    seg_of = np.concatenate([np.flatnonzero(ok)] * 2)
    value = F0[seg_of] + slope[seg_of] * t
    keep = (t > 0) & (value < float(w.sum()) * (1.0 - MIN_GAIN))
    order = np.lexsort((t[keep], value[keep]))
    return t[keep][order]
