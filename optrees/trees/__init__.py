"""Exact binary classification trees, by role: the problem (:mod:`.problem`), the searches
(:mod:`.search`), the MIPs (:mod:`.mip`) and the orchestration of a fit (:mod:`.solve`).
:func:`pareto_front` (the best tree of every size in one search), :func:`regression_front`
(its regression sibling: the best regression tree of every size) and :func:`rashomon_set`
(every near-optimal tree, :class:`RashomonSet`; :class:`FairRashomonSet` under a fairness
cap) are loaded on use."""

from __future__ import annotations

from typing import Any

__all__ = ["FairRashomonSet", "RashomonSet", "pareto_front", "rashomon_set",
           "regression_front"]


def __getattr__(name: str) -> Any:
    if name == "pareto_front":
        from .solve.path import pareto_front
        return pareto_front
    if name == "regression_front":
        from .solve.regression_path import regression_front
        return regression_front
    if name in ("rashomon_set", "RashomonSet"):
        from .solve import rashomon
        return getattr(rashomon, name)
    if name == "FairRashomonSet":
        from .solve.fair_rashomon import FairRashomonSet
        return FairRashomonSet
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
