"""What every method's solve function returns: the model and how far it is from proven optimal."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

FINISHED_STATUSES = ("optimal", "converged", "stalled", "iteration_limit", "column_limit",
                     "heuristic")
"""Statuses of a solve that ran to its end ("heuristic": a method that does not prove
optimality finished, e.g. a deep regression tree or CGH's pricing giving up; any other
status: stopped early, e.g. "time_limit", "interrupted" after Ctrl-C, "no_solution",
"gap_limit")."""


ROUNDING = 1e-9
"""Relative difference (absolute below 1) of a bound and an objective that is rounding."""


def bound_meets(objective: float, bound: float) -> bool:
    """``bound`` equals ``objective`` but for rounding (:data:`ROUNDING`): where the bound is
    one over every model a method certifies, the model is proved optimal among them."""
    return abs(bound - objective) <= ROUNDING * max(1.0, abs(objective))


@dataclass
class FitResult:
    """The outcome of one method's solve, the same for every method family.

    ``model``: a :class:`~optrees.models.binary_tree.BinaryTree`,
    :class:`~optrees.models.multiway_tree.MultiwayTree` or
    :class:`~optrees.models.rule_set.RuleSet`; ``objective``: its value in the method's own
    units; ``bound``: the best proven bound on that objective (``inf`` / ``-inf`` when none);
    ``status``: "optimal", "time_limit", "interrupted" (Ctrl-C), "converged", ...;
    ``seconds``: time spent in the solve (the fit's own clock is the estimator's);
    ``stats``: method-specific counts (B&B nodes, cuts, master LPs, ...); ``unit``: the
    size of one unit of the objective when it is not about 1 (a policy tree's outcomes:
    the power of two nearest the largest), the scale of the gap's absolute tolerances.
    """

    model: Any
    status: str
    objective: float
    bound: float = math.inf
    seconds: float = 0.0
    stats: dict[str, Any] = field(default_factory=dict)
    unit: float = 1.0

    @property
    def gap(self) -> float:
        """|bound - objective| / |objective|: 0 when optimal, inf when the bound is infinite, nan
        when it is nan (no bound proven)."""
        if self.status == "optimal":
            return 0.0
        if math.isnan(self.bound):  # no proven bound (a heuristic's LP value is none)
            return math.nan
        diff = abs(self.bound - self.objective)
        if diff <= 1e-6 * self.unit:
            return 0.0
        if not math.isfinite(diff) or abs(self.objective) <= 1e-9 * self.unit:
            return math.inf
        return diff / abs(self.objective)

    @property
    def settled_bound(self) -> float:
        """``bound``, or ``objective`` where the two differ by rounding only (a sum taken in
        another order: 53.600000000000016 against 53.599999999999994), so that the bound
        a user reads is never on the wrong side of the objective by noise."""
        return float(self.objective) if self.bound_met else float(self.bound)

    @property
    def bound_met(self) -> bool:
        """:func:`bound_meets` of the objective and the bound."""
        return bound_meets(self.objective, self.bound)

    @property
    def stopped(self) -> bool:
        """Stopped early (deadline, Ctrl-C, ...): the model is the best one found."""
        return self.status not in FINISHED_STATUSES
