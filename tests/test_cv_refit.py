"""OptimalTreeRegressorCV(lams="path") reads its refit off the path of every row
(optrees/estimators/cv_refit.py): the tree is the optimum at the chosen λ (an enumeration of
every depth-2 tree over every threshold, from the definition), its objective and bound mean
what they say, and a stopped path's tree is the path's own point at λ."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import KFold

from optrees import OptimalTreeRegressor, OptimalTreeRegressorCV
from optrees.estimators import cv_refit
from optrees.trees.solve.path import hull_lams
from optrees.trees.solve.regression_path import RegressionFront, RegressionPathPoint


def _table(n: int, seed: int) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.integers(0, 6, n).astype(float), "b": rng.normal(size=n)})
    y = np.where(X["a"] > 2, 3.0, 0.0) + X["b"] + rng.normal(scale=0.5, size=n)
    w = rng.integers(1, 4, n).astype(float)
    return X, y, w


def _sse(y: np.ndarray, w: np.ndarray) -> float:
    """Weighted sum of squared deviations from the weighted mean (0 for no rows)."""
    if w.sum() == 0:
        return 0.0
    return float(w @ (y - (w @ y) / w.sum()) ** 2)


def _best_side(X: np.ndarray, y: np.ndarray, w: np.ndarray, lam: float, scale: float
               ) -> float:
    """min over a leaf and every stump over every threshold of these rows: normalised SSE
    plus ``lam`` per leaf (a side of a depth-2 tree); inf for an empty side."""
    if w.sum() == 0:
        return np.inf
    best = _sse(y, w) / scale + lam
    for f in range(X.shape[1]):
        for t in np.unique(X[:, f])[:-1]:
            go = X[:, f] <= t
            best = min(best, (_sse(y[go], w[go]) + _sse(y[~go], w[~go])) / scale + 2 * lam)
    return best


def _optimum(X: np.ndarray, y: np.ndarray, w: np.ndarray, lam: float) -> float:
    """The least ``SSE / (W var y) + lam * leaves`` of any tree of depth <= 2 over every
    threshold of ``X`` (plain enumeration)."""
    scale = _sse(y, w)
    best = 1.0 + lam
    for f in range(X.shape[1]):
        for t in np.unique(X[:, f])[:-1]:
            go = X[:, f] <= t
            best = min(best, _best_side(X[go], y[go], w[go], lam, scale)
                       + _best_side(X[~go], y[~go], w[~go], lam, scale))
    return best


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_refit_is_the_optimum_at_the_chosen_lam(seed):
    X, y, w = _table(28, seed)
    folds = KFold(3, shuffle=True, random_state=seed)
    cv = OptimalTreeRegressorCV(depths=(2,), lams="path", cv=folds, time_limit=60).fit(
        X, y, sample_weight=w)
    best = cv.best_estimator_
    lam = cv.best_params_["lam"]
    want = _optimum(X.to_numpy(), y, w, lam)
    assert best.status_ == "optimal" and best.gap_ == 0.0
    assert best.objective_ == pytest.approx(want, abs=1e-9)
    assert best.bound_ == pytest.approx(want, abs=1e-9)
    # the objective of the returned tree, from its own predictions on the training rows
    pred = best.predict(X)
    leaves = best.tree_.n_leaves
    assert float(w @ (y - pred) ** 2) / _sse(y, w) + lam * leaves == pytest.approx(want)
    # path_ is the path the tree was read from: its point at the chosen λ
    assert cv.path_ is not None and cv.path_.complete
    assert cv_refit.point_at(cv.path_, lam).tree is best.tree_
    # a separate fit at that λ reaches the same objective
    alone = OptimalTreeRegressor(depth=2, lam=lam).fit(X, y, sample_weight=w)
    assert alone.objective_ == pytest.approx(best.objective_, abs=1e-9)


def _front(losses, bounds) -> RegressionFront:
    """A hand-made path: budget B's best tree has ``losses[B-1]`` (its own leaf count B)
    and a proven bound ``bounds[B-1]``."""
    front = RegressionFront()
    for b, (loss, bound) in enumerate(zip(losses, bounds, strict=True), start=1):
        front.append(RegressionPathPoint(b, b, loss, bound, loss <= bound, f"tree{b}", None))
    hull_lams(front, lambda p: -p.loss, 1e-9)
    return front


@pytest.mark.parametrize("lam", [0.0, 0.1, 0.125, 0.2, 0.25, 0.3, 0.5, 0.7])
def test_a_stopped_path_gives_its_point_at_lam_and_a_true_bound(lam):
    """Budgets 1-4 with losses 1, 1/2, 1/4, 1/8 (proved to 1/2, 1/8, 1/16 only; every
    number exact in binary, so the ties at λ = 1/8, 1/4, 1/2 are exact): the refit's tree
    is the one of least ``loss + lam * leaves`` (fewest leaves at a tie), its bound the
    least ``bound(B) + lam * B`` (a tree of k leaves has loss >= bound(k)), its status
    "time_limit" unless the two meet."""
    losses, bounds = [1.0, 0.5, 0.25, 0.125], [1.0, 0.5, 0.125, 0.0625]
    front = _front(losses, bounds)
    front.complete = False
    out = cv_refit.result_at(front, lam, 0.5)
    costs = [loss + lam * k for k, loss in enumerate(losses, start=1)]
    k = int(np.argmin(costs))  # argmin takes the first (fewest leaves) at a tie
    assert out.model == f"tree{k + 1}"
    assert out.objective == pytest.approx(costs[k])
    bound = min(min(b + lam * k for k, b in enumerate(bounds, start=1)), costs[k])
    assert out.bound == pytest.approx(bound)
    assert out.status == ("optimal" if costs[k] <= bound + 1e-9 else "time_limit")
    assert out.stats["path_complete"] is False


def test_a_stopped_refit_keeps_the_paths_tree():
    """A path that stops (every search given no time) still refits: the tree is its point
    at the chosen λ, the bound at most the objective, the status says it stopped."""
    X, y, _ = _table(60, 5)
    cv = OptimalTreeRegressorCV(depths=(2,), lams="path", cv=3, time_limit=60).fit(X, y)
    lam = cv.best_params_["lam"]
    est = OptimalTreeRegressor(depth=2, lam=lam, time_limit=1e-6)
    with pytest.warns(UserWarning, match="stopped"):
        est, front = cv_refit.refit_from_path(est, X, y, None)
    assert est.tree_ is cv_refit.point_at(front, lam).tree
    assert est.bound_ <= est.objective_ + 1e-12
    assert est.objective_ >= _optimum(X.to_numpy(), y, np.ones(len(y)), lam) - 1e-9
    assert est.bound_ <= _optimum(X.to_numpy(), y, np.ones(len(y)), lam) + 1e-9
    assert (est.status_ == "optimal") == (est.objective_ <= est.bound_ + 1e-9)
