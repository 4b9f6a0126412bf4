"""Exact binary classification trees, by role: the problem (:mod:`.problem`), the searches
(:mod:`.search`), the MIPs (:mod:`.mip`) and the orchestration of a fit (:mod:`.solve`).
:func:`pareto_front` (the best tree of every size in one search) is loaded on use."""

from __future__ import annotations

from typing import Any

__all__ = ["pareto_front"]


def __getattr__(name: str) -> Any:
    if name == "pareto_front":
        from .solve.path import pareto_front
        return pareto_front
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
