"""The time of one HiGHS solve in RUG: until the fit's deadline, but never less than 1 ms."""

from __future__ import annotations

from ..solvers.base import SolveResult
from ..solvers.deadline import Deadline
from ..solvers.highs import HighsModel

MIN_SOLVE_SECONDS = 1e-3
"""Time a solve gets even past the deadline.  The first master LP must give a solution to
return (its rules' weights): on magic it solves within 1 ms, never within 0 s."""


def solve_by(model: HighsModel, deadline: Deadline) -> SolveResult:
    """``model.solve`` until ``deadline`` (HiGHS then also stops at a Ctrl-C), or for
    :data:`MIN_SOLVE_SECONDS` when less than that is left."""
    if deadline.remaining() >= MIN_SOLVE_SECONDS:
        return model.solve(deadline=deadline)
    return model.solve(time_limit=MIN_SOLVE_SECONDS)
