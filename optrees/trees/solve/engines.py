"""Which engine solves a tree problem, and why the others do not: the one place a fit asks.

Engines, fastest first: the numeric search over every threshold (raw numeric columns, no
MIP), the 0/1 subtree search (or the fair front search) before the MIP, and the MIP alone.
Each ``*_off`` function returns None when its engine takes the problem, else the reason,
which the fit reports in ``stats_`` ("every_threshold", "subtree_search")."""

from __future__ import annotations

from dataclasses import dataclass

from ..._validation import OptreesInputError
from ..problem.tree_problem import TreeProblem
from ..search.binary.fair import MAX_FAIR_COORDINATES, MAX_FAIR_DEPTH
from .numeric import MAX_BUDGET_NUMERIC_DEPTH, MAX_NUMERIC_DEPTH

BUDGET_OFF = "off: fairness with max_leaves"
""":func:`binary_search_off`'s reason when the leaf budget alone keeps the front search off."""


@dataclass(frozen=True)
class Request:
    """What a fit asks, before its columns are encoded."""

    depth: int
    searches: bool  # the method runs the exact searches (BendOCT, BendersOCT, FlowOCT)
    auto_binarizer: bool  # binarizer="auto": the fit may choose the columns' encoding
    numeric: bool  # some column is numeric and not 0/1
    fairness: bool = False
    max_leaves: int | None = None
    costs: bool = False  # misclassification_costs
    feature_costs: bool = False

    def check(self) -> None:
        """Refuse the combinations no engine solves, with one clear error."""
        if self.costs and self.fairness:
            raise OptreesInputError("fairness together with misclassification_costs is not "
                                    "supported: fit one of them")
        if self.feature_costs:
            for name, on in (("fairness", self.fairness),
                             ("max_leaves", self.max_leaves is not None)):
                if on:
                    raise OptreesInputError(f"feature_costs together with {name} is not "
                                            "supported: fit one of them")


def every_threshold_off(request: Request) -> str | None:
    """Why the columns cannot be searched over every threshold (None: they can, by the
    numeric search, or under fairness by the front search's certificate)."""
    if not request.searches:
        return "off: the method has no search"
    if not request.auto_binarizer:
        return "off: binarizer is not 'auto'"
    if not request.numeric:
        return "off: no numeric column"
    if request.depth > MAX_NUMERIC_DEPTH:
        return f"off: depth > {MAX_NUMERIC_DEPTH}"
    if request.max_leaves is not None and request.depth > MAX_BUDGET_NUMERIC_DEPTH:
        return f"off: max_leaves at depth > {MAX_BUDGET_NUMERIC_DEPTH}"
    if request.feature_costs:
        return "off: feature costs are searched over 0/1 columns (quantile cuts and CART's)"
    return None


def numeric_search_off(request: Request) -> str | None:
    """Why the numeric search over every threshold cannot solve the fit (None: it can; it
    takes weights, min leaf and a leaf budget, not fairness)."""
    off = every_threshold_off(request)
    if off is None and request.fairness:
        return "off: fairness"
    return off


def binary_search_off(problem: TreeProblem) -> str | None:
    """Why no exact 0/1 search can solve ``problem`` (None: one can): the subtree search
    takes leaf sizes and budgets; under fairness the front search takes depth <=
    MAX_FAIR_DEPTH, at most MAX_FAIR_COORDINATES group differences and no leaf budget
    (checked last, so :data:`BUDGET_OFF` means the front search could solve ``problem``
    without it)."""
    fair = problem.fairness
    if fair is None:
        return None
    if problem.depth > MAX_FAIR_DEPTH:
        return f"off: fairness at depth > {MAX_FAIR_DEPTH}"
    if fair.coordinates(problem.y, problem.weights)[0].shape[1] > MAX_FAIR_COORDINATES:
        return (f"off: fairness over more than {MAX_FAIR_COORDINATES} group differences "
                "(groups - 1, summed over the cells)")
    if problem.max_leaves is not None:
        return BUDGET_OFF
    return None
