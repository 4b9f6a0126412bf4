"""CART's reference search in ``optrees.compare`` within its share: the grid shallowest
``max_depth`` first, no point started that would end past the time limit, the best of the
points run chosen (against scikit-learn's own ``GridSearchCV`` on the same grid)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.tree import DecisionTreeClassifier

import optrees.comparison_cart as comparison_cart
from optrees import compare
from optrees.comparison_cart import TimedGridSearchCV

GRID = {"max_depth": [None, 3, 1, 2], "ccp_alpha": [0.0, 0.01]}


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X[:300], y[:300]


def test_without_a_limit_it_is_gridsearchcv(cancer):
    """Every point run; the same chosen point and mean scores as ``GridSearchCV``."""
    X, y = cancer
    cv = KFold(3, shuffle=True, random_state=0)
    ours = TimedGridSearchCV(DecisionTreeClassifier(random_state=0), GRID, cv=cv).fit(X, y)
    theirs = GridSearchCV(DecisionTreeClassifier(random_state=0), GRID, cv=cv).fit(X, y)
    assert ours.n_points_run_ == ours.n_points_ == 8
    assert ours.best_params_ == theirs.best_params_
    by_params = {str(p): s for p, s in zip(theirs.cv_results_["params"],
                                           theirs.cv_results_["mean_test_score"], strict=True)}
    for p, s in zip(ours.cv_results_["params"], ours.cv_results_["mean_test_score"],
                    strict=True):
        assert s == pytest.approx(by_params[str(p)])


class Ticks:
    """A clock that moves ``step`` seconds at each reading (one reading per grid point)."""

    def __init__(self, step: float = 1.0) -> None:
        self.step, self.now = step, -step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.mark.parametrize("limit, run", [(0.5, 1), (3.5, 2), (4.0, 3), (100.0, 8)])
def test_a_point_that_would_end_past_the_limit_is_not_started(cancer, monkeypatch, limit,
                                                              run):
    """Each point takes one second on the fake clock: the next is started only when now
    plus the last point's time is within the limit (the first always runs); the points run
    are the shallowest, and the best of them is chosen."""
    X, y = cancer
    monkeypatch.setattr(comparison_cart, "clock", Ticks())
    search = TimedGridSearchCV(DecisionTreeClassifier(random_state=0), GRID, cv=3,
                               time_limit=limit).fit(X, y)
    assert search.n_points_run_ == run and search.n_points_ == 8
    depths = [p["max_depth"] for p in search.cv_results_["params"]]
    expected = sorted([1, 1, 2, 2, 3, 3], key=float)[:run] if run <= 6 else None
    if expected is not None:
        assert depths == expected
    scores = search.cv_results_["mean_test_score"]
    assert search.best_score_ == pytest.approx(np.max(scores))


def test_compare_reports_a_stopped_cart_grid(monkeypatch):
    """A CART grid stopped by its share shows status "time_limit" and how many points ran
    (one: each takes 100 s on the fake clock); a whole grid shows "ok" and no note."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(120, 3)), columns=["a", "b", "c"])
    y = (X["a"] + rng.normal(size=120) * 0.3 > 0).astype(int)
    whole = compare(X, y, methods=["bendoct"], time_budget=30, cv=3).set_index("method")
    assert whole.loc["cart", "status"] == "ok" and whole.loc["cart", "note"] == ""
    monkeypatch.setattr(comparison_cart, "clock", Ticks(100.0))  # past any share
    cut = compare(X, y, methods=["bendoct"], time_budget=30, cv=3).set_index("method")
    assert cut.loc["cart", "status"] == "time_limit"
    points = cut.loc["cart", "model"][-1].n_points_
    assert cut.loc["cart", "note"].startswith(f"grid stopped at its time limit: 1 of {points}")
