"""Survival: a leaf's rows share one hazard ratio ``theta`` against a baseline cumulative
hazard ``Lambda0`` estimated once on all training rows (Nelson–Aalen), and the leaf costs the
Poisson deviance of its rows at the best ``theta`` (LeBlanc & Crowley 1992, full likelihood;
the leaf loss of STreeD's survival analysis, Huisman, van der Linden & Demirović).

Row ``i`` (weight ``w``, event ``d`` in {0, 1}, hazard ``h = Lambda0(t_i)``) costs
``w (theta h - d - d log(theta h))`` >= 0.  Minimised over ``theta`` the leaf's sum is
``theta = D / L`` with ``D = sum w d`` and ``L = sum w h``, and the cost is
``C + D log(L / D)`` with ``C = -sum w d log h`` (0 when ``D = 0``): additive statistics
``(w d, w h, -w d log h)``, so the regression search over every threshold solves it
(:mod:`optrees.trees.search.regression`).  The cost is homogeneous of degree 1 in the
weights, so scaling the statistics scales every tree's cost alike.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .squared_error import identical_rows


@dataclass(frozen=True)
class Baseline:
    """A baseline cumulative hazard as a right-continuous step function: ``values[k]`` from
    ``times[k]`` on (the event times), ``floor`` before the first one."""

    times: np.ndarray
    values: np.ndarray
    floor: float

    def __call__(self, t: np.ndarray) -> np.ndarray:
        """``Lambda0(t)`` at each of ``t``."""
        k = np.searchsorted(self.times, np.asarray(t, dtype=np.float64), side="right") - 1
        return np.where(k >= 0, self.values[np.maximum(k, 0)], self.floor)


def nelson_aalen(time: np.ndarray, event: np.ndarray, w: np.ndarray | None = None
                 ) -> Baseline:
    """The weighted Nelson–Aalen estimate ``sum_{t_k <= t} d_k / r_k`` (``d_k``: weight of
    the events at the k-th distinct time, ``r_k``: weight of the rows with time >= it), with
    ``1 / (W + 1)`` before the first event (``W``: total weight), as STreeD does to keep
    ``log Lambda0`` finite; integer weights act as duplicated rows."""
    time = np.asarray(time, dtype=np.float64)
    event = np.asarray(event, dtype=np.float64)
    w = np.ones(len(time)) if w is None else np.asarray(w, dtype=np.float64)
    distinct, which = np.unique(time, return_inverse=True)
    died = np.bincount(which, weights=w * event, minlength=len(distinct))
    leaving = np.bincount(which, weights=w, minlength=len(distinct))
    at_risk = np.cumsum(leaving[::-1])[::-1]
    hazard = np.cumsum(died / at_risk)
    has = died > 0
    return Baseline(distinct[has], hazard[has], 1.0 / (float(w.sum()) + 1.0))


class SurvivalLoss:
    """The leaf loss of survival trees given a fitted :class:`Baseline` (from
    :meth:`fit`).  The search reads ``n_stats``, :meth:`row_stats`, :meth:`leaf_cost` (on
    floats, for the compiled searches: :meth:`leaf_cost_kernel`) and :meth:`prediction`;
    targets are ``(n, 2)`` arrays of ``(event, time)``."""

    name = "survival"
    n_stats = 3

    def __init__(self, baseline: Baseline) -> None:
        self.baseline = baseline

    @classmethod
    def fit(cls, y: np.ndarray, w: np.ndarray | None = None) -> SurvivalLoss:
        """The loss with the Nelson–Aalen baseline of the targets ``y`` (``(n, 2)``: event,
        time) and weights ``w``."""
        y = np.asarray(y, dtype=np.float64)
        return cls(nelson_aalen(y[:, 1], y[:, 0], w))

    def row_stats(self, y: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
        """``(n, 3)`` array of each row's ``(w d, w h, -w d log h)``, ``h = Lambda0(t)``."""
        y = np.asarray(y, dtype=np.float64)
        event = y[:, 0]
        w = np.ones(len(y)) if w is None else np.asarray(w, dtype=np.float64)
        h = self.baseline(y[:, 1])
        return np.stack([w * event, w * h, -w * event * np.log(h)], axis=-1)

    @staticmethod
    def leaf_cost(S: np.ndarray) -> np.ndarray:
        """Deviance of leaves with summed statistics ``S[..., :3]`` at their best ``theta``:
        ``C + D log(L / D)`` (``C`` for ``D = 0``, which is 0), clipped at 0 against
        rounding (every row's term is >= 0)."""
        S = np.asarray(S, dtype=np.float64)
        D, L, C = S[..., 0], S[..., 1], S[..., 2]
        ratio = np.divide(L, D, out=np.ones(D.shape), where=(D > 0) & (L > 0))
        return np.maximum(C + D * np.log(ratio), 0.0)

    @staticmethod
    def leaf_cost_kernel(D: float, L: float, C: float) -> float:
        """:meth:`leaf_cost` of one leaf, on floats: the compiled searches' leaf cost
        (numba compiles it into them, :mod:`optrees.trees.search.regression.specialise`)."""
        if D > 0.0 and L > 0.0:
            C = C + D * math.log(L / D)
        return C if C > 0.0 else 0.0

    @staticmethod
    def prediction(S: np.ndarray) -> np.ndarray:
        """The hazard ratio ``theta = D / L`` of leaves with statistics ``S``; with no event,
        ``0.5 / L`` (half an event, LeBlanc & Crowley p. 416, as STreeD), 0 when empty."""
        S = np.asarray(S, dtype=np.float64)
        D, L = S[..., 0], S[..., 1]
        events = np.where(D > 0, D, 0.5)
        return np.divide(events, L, out=np.zeros(L.shape), where=L > 0)

    def lower_bound(self, X: np.ndarray, y: np.ndarray, w: np.ndarray | None = None
                    ) -> float:
        """The equivalent-points bound: rows with identical features share a leaf in every
        tree, and a leaf costs at least the sum of its groups' optima (a minimum of a sum is
        at least the sum of minima), so no tree costs less than the groups' total."""
        X = np.asarray(X)
        if len(X) == 0:
            return 0.0
        group = identical_rows(X)
        stats = self.row_stats(y, w)
        sums = np.stack([np.bincount(group, weights=column) for column in stats.T], axis=-1)
        return float(self.leaf_cost(sums).sum())
