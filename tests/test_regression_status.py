"""A regression fit's status says what was proved: a search stopped by its deadline whose
bound meets its tree has proved it (e.g. a perfect fit, loss 0 = bound 0), and one whose
bound stays below keeps "time_limit" with that gap."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import optrees.trees.solve.regression as solve_mod
from optrees import OptimalTreeRegressor


def _stopped(lowered: float):
    """``search_tree`` as if its deadline had stopped it at once: its answer with
    ``optimal`` False and the bound lowered by ``lowered``."""
    real = solve_mod.search_tree

    def search(*args, **kwargs):
        found = real(*args, **kwargs)
        found.optimal = False
        found.bound = found.cost - lowered
        return found
    return search


@pytest.mark.parametrize("lowered, status", [(0.0, "optimal"), (1e-3, "time_limit")])
def test_a_stopped_search_whose_bound_meets_its_tree_is_optimal(monkeypatch, lowered,
                                                                status):
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200, 3)), columns=["a", "b", "c"])
    y = np.where(X.a > 0, np.where(X.b > 0.3, 3.0, 1.0), -2.0)  # a depth-2 tree fits it
    monkeypatch.setattr(solve_mod, "search_tree", _stopped(lowered))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = OptimalTreeRegressor(depth=3, lam=0.0, time_limit=30).fit(X, y)
    sse = float(np.sum((y - model.predict(X)) ** 2))  # the tree is the perfect one
    assert sse == pytest.approx(0.0, abs=1e-12) and model.objective_ == pytest.approx(0.0)
    assert model.status_ == status
    if status == "optimal":
        assert model.gap_ == 0.0 and model.bound_ == model.objective_
    else:
        assert model.bound_ < model.objective_ + 1e-12 and model.gap_ > 0
