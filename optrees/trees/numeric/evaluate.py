"""Evaluators of one root split: objectives of its optimal depth-≤1 children.

Two interchangeable backends with the same answer: ``"numba"`` (:mod:`.kernels`, one compiled
pass with pruning) and ``"numpy"`` (two vectorized :func:`.depth1.best_splits` sweeps, no
compiler needed).  ``"auto"`` takes numba when it is importable.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .data import SubsetView
from .depth1 import best_child, best_splits

__all__ = ["Evaluator", "make_evaluator", "numba_available", "resolve_backend"]

Evaluator = Callable[[int, int, float, float], tuple[float, float]]


def numba_available() -> bool:
    """Whether the compiled backend can be used (numba importable)."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def resolve_backend(backend: str) -> str:
    """``"auto"`` → ``"numba"`` if importable else ``"numpy"``; validates explicit names."""
    if backend == "auto":
        return "numba" if numba_available() else "numpy"
    if backend not in ("numba", "numpy"):
        raise ValueError(f"backend must be 'auto', 'numba' or 'numpy', got {backend!r}")
    if backend == "numba" and not numba_available():
        raise ImportError("backend='numba' needs the numba package")
    return backend


def make_evaluator(view: SubsetView, y: np.ndarray, w: np.ndarray, cw: np.ndarray,
                   leaf_penalty: float, eps: float, backend: str,
                   sweep_order: np.ndarray | None = None) -> Evaluator:
    """``evaluate(f, r, floor_left, floor_right)`` → ``max(floor, objective)`` of the optimal
    depth-≤1 children of the root split ``rank[f] <= r``; at or below its floor a child's
    value is only a bound (the search needs no more).  ``sweep_order``: columns in the order
    the compiled pass tries them (default 0..p-1)."""
    if backend == "numba":
        from .kernels import child_objectives, sorted_columns

        sweep = np.arange(view.p) if sweep_order is None else sweep_order
        ctx = sorted_columns(view.order, view.rank, y, w, sweep) + (cw.shape[1], leaf_penalty,
                                                                    eps)

        def evaluate(f: int, r: int, floor_l: float, floor_r: float) -> tuple[float, float]:
            """Compiled pass over every column for both children."""
            return child_objectives(f, r, floor_l, floor_r, ctx)
    else:
        def evaluate(f: int, r: int, floor_l: float, floor_r: float) -> tuple[float, float]:
            """Two vectorized depth-1 sweeps, one per child."""
            left = view.rank[f] <= r
            return (max(floor_l, best_child(best_splits(view, cw, left), leaf_penalty).objective),
                    max(floor_r, best_child(best_splits(view, cw, ~left), leaf_penalty).objective))
    return evaluate
