"""The SCIP backend: cuts from a Python separator reach the whole branch-and-bound tree."""

import numpy as np

from optrees.solvers.base import Row
from optrees.solvers.scip import ScipModel


def test_separator_runs_at_every_depth():
    """SCIP's default exponential back-off calls a separator only at depths 1, 4, 16, ...;
    ScipModel turns it off, so a separator sees nodes at depths 2 and 3 too."""
    rng = np.random.default_rng(0)
    m = ScipModel(maximize=True)
    n = 30
    x = m.add_vars(n, "B", obj=rng.uniform(1, 2, n), name="x")
    weights = rng.integers(3, 9, n).astype(float)
    m.add_row(x, weights, rhs=float(weights.sum() // 3))  # a knapsack: many B&B nodes
    depths: list[int] = []

    def separate(values: np.ndarray) -> list[Row]:
        depths.append(m.m.getDepth())
        return []

    m.add_separator(separate, "probe")
    for name in ("presolving/maxrounds", "separating/maxroundsroot"):
        m.m.setParam(name, 0)
    m.m.setParam("separating/maxlocalbounddist", 1.0)
    result = m.solve(time_limit=30)
    assert result.status == "optimal"
    assert m.m.getParam("separating/probe/expbackoff") == 1
    assert {2, 3} <= set(depths)
