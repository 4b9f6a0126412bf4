"""Evaluators of one root split: objectives of its optimal depth-≤1 children.

Two interchangeable backends with the same answer: ``"numba"`` (:mod:`.kernels`, one compiled
pass with pruning) and ``"numpy"`` (two vectorized :func:`.depth1.best_splits` sweeps, no
compiler needed).  ``"auto"`` takes numba when it is importable.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...._numbers import clean_midpoints
from ....compiled import numba_available, resolve_backend
from .data import SubsetView
from .depth1 import FeatureSplits, best_child, best_splits

__all__ = ["Evaluator", "StumpFinder", "make_evaluator", "numba_available", "resolve_backend"]

Evaluator = Callable[[int, int, float, float], tuple[float, float]]


class StumpFinder:
    """Best stump per feature of the view's rows, or of a member subset of them
    (:func:`.depth1.best_splits`); with ``"numba"`` the columns are sorted with their labels
    once (``arrays``, shared with :func:`make_evaluator`) and the sweep is compiled."""

    def __init__(self, view: SubsetView, y: np.ndarray, w: np.ndarray, cw: np.ndarray,
                 backend: str, min_leaf: int = 1) -> None:
        self.view, self.cw, self.backend, self.min_leaf = view, cw, backend, min_leaf
        self.arrays: tuple | None = None
        if backend == "numba":
            from .kernels import sorted_columns

            self.arrays = sorted_columns(view.order, view.rank, y, w, np.arange(view.p))[1:]

    def __call__(self, member: np.ndarray | None = None) -> FeatureSplits:
        """:func:`.depth1.best_splits` of the rows with ``member`` true (all when None)."""
        if self.arrays is None or self.view.p == 0 or self.view.n < 2:
            return best_splits(self.view, self.cw, member, self.min_leaf)
        from .kernels import member_stumps

        order, _, rank_s, y_s, w_s = self.arrays
        if member is None:
            member = np.ones(self.view.n, dtype=np.bool_)
        totals, correct, lo, hi, lcls, rcls, n_left = member_stumps(
            order, rank_s, y_s, w_s, member, self.cw.shape[1], self.min_leaf)
        fs = np.arange(self.view.p)
        X = self.view.X
        threshold = clean_midpoints(X[order[fs, lo], fs], X[order[fs, hi], fs])
        threshold[~np.isfinite(correct)] = np.nan
        return FeatureSplits(totals, correct, threshold, lcls, rcls, n_left)


def make_evaluator(view: SubsetView, y: np.ndarray, w: np.ndarray, cw: np.ndarray,
                   leaf_penalty: float, eps: float, backend: str,
                   sweep_order: np.ndarray | None = None,
                   arrays: tuple | None = None, min_leaf: int = 1,
                   leaf_side: int = -1) -> Evaluator:
    """``evaluate(f, r, floor_left, floor_right)`` → ``max(floor, objective)`` of the optimal
    depth-≤1 children (leaves of ``min_leaf`` rows or more) of the root split
    ``rank[f] <= r``; at or below its floor a child's value is only a bound (the search
    needs no more).  ``sweep_order``: columns in the order the compiled pass tries them
    (default 0..p-1); ``arrays``: the sorted columns of a :class:`StumpFinder` of the same
    view (built here when None).  Under ``min_leaf`` > 1 its attribute ``free`` evaluates
    without it (the bounds of :mod:`.search` that move rows need those optima; without a
    minimum leaf size there is no ``free``: the evaluator is its own).
    ``leaf_side`` 0 or 1 keeps that child a leaf (trees of three leaves, :mod:`.budget`)."""
    sweep = np.arange(view.p) if sweep_order is None else sweep_order
    if backend == "numba" and arrays is None:
        from .kernels import sorted_columns

        arrays = sorted_columns(view.order, view.rank, y, w, sweep)[1:]
    evaluate = _evaluator(view, cw, leaf_penalty, eps, backend, sweep, arrays, min_leaf,
                          leaf_side)
    if min_leaf > 1:  # (none when it would be the evaluator itself: a reference cycle
        # keeps its sorted columns alive until the cyclic GC runs; at 10^6 rows, gigabytes)
        evaluate.free = _evaluator(view, cw, leaf_penalty, eps, backend, sweep, arrays, 1,
                                   leaf_side)
    return evaluate


def _evaluator(view: SubsetView, cw: np.ndarray, leaf_penalty: float, eps: float,
               backend: str, sweep: np.ndarray, arrays: tuple | None,
               min_leaf: int, leaf_side: int) -> Evaluator:
    """:func:`make_evaluator` for one minimum leaf size (``evaluate.min_leaf``)."""
    if backend == "numba":
        from .kernels import child_objectives

        ctx = (np.ascontiguousarray(sweep, dtype=np.int64),) + tuple(arrays) + (
            cw.shape[1], leaf_penalty, eps, min_leaf, leaf_side)

        def evaluate(f: int, r: int, floor_l: float, floor_r: float) -> tuple[float, float]:
            """Compiled pass over every column for both children."""
            return child_objectives(f, r, floor_l, floor_r, ctx)

        evaluate.kernel_ctx = ctx    # lets :func:`.search.search_root` run compiled as a whole
    else:
        def evaluate(f: int, r: int, floor_l: float, floor_r: float) -> tuple[float, float]:
            """Two vectorized depth-1 sweeps, one per child."""
            left = view.rank[f] <= r
            return tuple(max(floor, _child(view, cw, member, min_leaf, leaf_penalty,
                                           side == leaf_side))
                         for side, (floor, member) in enumerate(((floor_l, left),
                                                                 (floor_r, ~left))))
    evaluate.min_leaf = min_leaf
    return evaluate


def _child(view: SubsetView, cw: np.ndarray, member: np.ndarray, min_leaf: int,
           leaf_penalty: float, leaf_only: bool) -> float:
    """Objective of the optimal depth-≤1 tree (a leaf when ``leaf_only``) of ``member``."""
    if leaf_only:
        return float(cw[member].sum(axis=0).max(initial=0.0)) - leaf_penalty
    return best_child(best_splits(view, cw, member, min_leaf, thresholds=False),
                      leaf_penalty).objective
