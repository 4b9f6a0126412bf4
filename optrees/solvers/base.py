"""Solver-independent pieces: options, the result of a solve, and the callback protocols.

Formulations talk to a backend in terms of integer variable ids and sparse rows, so the
formulation code does not depend on a solver library.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np


@dataclass
class SolverOptions:
    """Common solver settings (the time limit is the :class:`Deadline` given to ``solve``).

    ``verbose``: 0 silent, 1 progress lines via the ``optrees`` logger, 2 also the solver log.
    """

    mip_gap: float = 0.0
    seed: int = 0
    threads: int = 1
    verbose: int = 0
    progress_every: float = 2.0  # seconds between progress lines during branch-and-bound


@dataclass
class Row:
    """A linear constraint ``lhs <= sum(coefs * x[ids]) <= rhs`` over variable ids."""

    ids: np.ndarray
    coefs: np.ndarray
    lhs: float = -math.inf
    rhs: float = math.inf


@dataclass
class SolveResult:
    """Outcome of a solve. ``values`` holds the best solution found (indexed by variable id)."""

    status: str  # "optimal" | "time_limit" | "gap_limit" | "infeasible" | "no_solution" | other
    objective: float | None
    bound: float | None
    seconds: float
    nodes: int = 0
    values: np.ndarray | None = None
    stats: dict = field(default_factory=dict)

    @property
    def gap(self) -> float:
        """|bound - objective| / |objective|; 0 when proven optimal, inf when unknown."""
        if self.status == "optimal":
            return 0.0
        if self.objective is None or self.bound is None:
            return math.inf
        diff = abs(self.bound - self.objective)
        if diff <= 1e-9:
            return 0.0
        return diff / abs(self.objective) if abs(self.objective) > 1e-9 else math.inf


class LazyConstraints(Protocol):
    """Constraints too many to write down, added when a solution violates them.

    ``violated`` must be exact (it decides feasibility of every candidate solution);
    ``separate`` returns new rows cutting off ``x`` (it may skip rows it already returned).
    """

    def violated(self, x: np.ndarray) -> bool: ...

    def separate(self, x: np.ndarray, integral: bool) -> list[Row]: ...
