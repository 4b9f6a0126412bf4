"""The regression λ-path (issue #44): ``optrees.trees.regression_front`` and
``OptimalTreeRegressorCV(lams="path")``.

Oracles from the definition, in plain numpy: :func:`oracles.regression_front_by_enumeration`
(every tree over every threshold, SSE from each leaf's weighted mean, per leaf budget), the
hull's λ intervals read off that enumeration, and scikit-learn's ``cross_val_score`` of the
plain regressor.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from deadlines import StopAfter
from oracles import regression_front_by_enumeration
from sklearn.datasets import load_diabetes
from sklearn.model_selection import KFold, cross_val_score

from optrees import OptimalTreeRegressor, OptimalTreeRegressorCV, OptreesInputError
from optrees.estimators.cv_choice import path_lams
from optrees.trees import regression_front
from optrees.trees.solve.regression_path import front_points


def instance(seed: int, n: int = 12, F: int = 3, levels: int = 4, weights: bool = True):
    """Small data with repeated values, identical rows with different targets, a tie in y
    and integer weights."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n, F)).astype(float)
    X[n - 2] = X[0]
    y = rng.normal(size=n) + 2 * X[:, 0]
    y[n - 3] = y[1]
    w = rng.integers(1, 4, size=n).astype(float) if weights else np.ones(n)
    return pd.DataFrame(X, columns=[f"c{j}" for j in range(F)]), y, w


def loss_of(point, X, y, w) -> float:
    """The tree's normalised loss recomputed from its predictions."""
    pred = point.tree.predict(np.asarray(X, dtype=float))
    scale = float(np.sum(w * (y - np.sum(w * y) / np.sum(w)) ** 2)) or float(np.sum(w))
    return float(np.sum(w * (y - pred) ** 2)) / scale


def enumerated_lam_optimum(front: list[float], lam: float) -> float:
    """min over budgets B of F(B) + lam * B: the regressor's optimum at lam."""
    return min(f + lam * (b + 1) for b, f in enumerate(front))


CASES = [(seed, depth, min_leaf, weights) for seed in range(4) for depth in (1, 2, 3)
         for min_leaf, weights in ((1, True), (2, True), (3, False))]


@pytest.mark.parametrize("seed,depth,min_leaf,weights", CASES)
def test_every_point_is_the_enumerated_best_tree_of_its_budget(seed, depth, min_leaf, weights):
    df, y, w = instance(seed, weights=weights)
    want = regression_front_by_enumeration(df.to_numpy(), y, w, depth, min_leaf)
    for budgets in ("hull", "all"):
        front = regression_front(df, y, depth, sample_weight=w, min_samples_leaf=min_leaf,
                                 budgets=budgets)
        assert front.complete
        assert [p.budget for p in front] == list(range(1, 2 ** depth + 1))
        for p, best in zip(front, want, strict=True):
            assert p.bound <= best + 1e-9 <= p.loss + 2e-9  # certified: bound <= F(B) <= loss
            assert p.loss == pytest.approx(loss_of(p, df, y, w), abs=1e-9)  # a real tree
            assert p.leaves == p.tree.n_leaves <= p.budget and p.tree.depth <= depth
            assert (p.tree.count[p.tree.feature == -1] >= min_leaf).all()
            if p.optimal:
                assert p.loss == pytest.approx(best, abs=1e-9)
            if budgets == "all" or (p.lams is not None and p.budget == p.leaves):
                # the hull's trees are proved at their own size (a larger budget may share
                # such a tree in "hull" mode, with a gap, when its own optimum is off the hull)
                assert p.optimal and p.loss == pytest.approx(best, abs=1e-9)


@pytest.mark.parametrize("seed,min_leaf,weights", [(s, m, w) for s in range(3)
                                                    for m, w in ((1, True), (3, False))])
def test_a_depth2_path_is_one_front_of_every_budget_all_proved(seed, min_leaf, weights):
    """Depth 2 on small data: one compiled front of all rows gives every budget's optimum,
    each proved (the enumeration's), in one search."""
    from optrees.trees.search.regression import kernels

    if not kernels.available():
        pytest.skip("numba is not installed")
    kernels.compile_kernel()  # loaded: small fits take the compiled path too
    df, y, w = instance(40 + seed, n=14, weights=weights)
    want = regression_front_by_enumeration(df.to_numpy(), y, w, 2, min_leaf)
    front = regression_front(df, y, 2, sample_weight=w, min_samples_leaf=min_leaf)
    assert front.complete and front.searches == 1
    for p, best in zip(front, want, strict=True):
        assert p.optimal and p.loss == pytest.approx(best, abs=1e-9)
        assert p.bound == pytest.approx(best, abs=1e-9)
        assert p.loss == pytest.approx(loss_of(p, df, y, w), abs=1e-9)
        assert p.leaves <= p.budget and (p.tree.count[p.tree.feature == -1] >= min_leaf).all()


@pytest.mark.parametrize("seed,depth,min_leaf,weights", CASES[::2])
def test_each_hull_interval_is_where_a_fit_at_that_lam_has_the_same_loss(seed, depth,
                                                                         min_leaf, weights):
    df, y, w = instance(seed, weights=weights)
    want = regression_front_by_enumeration(df.to_numpy(), y, w, depth, min_leaf)
    front = regression_front(df, y, depth, sample_weight=w, min_samples_leaf=min_leaf)
    hull = sorted({p.leaves: p for p in front if p.lams is not None}.values(),
                  key=lambda p: p.leaves)
    assert hull[0].leaves == 1 and hull[0].lams[1] == np.inf and hull[-1].lams[0] == 0.0
    for a, b in zip(hull, hull[1:], strict=False):  # the intervals tile [0, inf)
        assert a.lams[0] == pytest.approx(b.lams[1], abs=1e-12)
    for p in hull:
        low, high = p.lams
        assert low < high
        for lam in (low + (min(high, low + 1.0) - low) * f for f in (0.1, 0.5, 0.9)):
            model = OptimalTreeRegressor(depth=depth, lam=lam, min_samples_leaf=min_leaf,
                                         time_limit=None).fit(df, y, sample_weight=w)
            assert model.objective_ == pytest.approx(p.loss + lam * p.leaves, abs=1e-9)
            assert model.objective_ == pytest.approx(enumerated_lam_optimum(want, lam),
                                                     abs=1e-9)
            assert model.tree_.n_leaves == p.leaves  # strictly inside: one optimum's size


def test_weight_zero_rows_and_integer_weights_are_as_if_removed_or_repeated():
    df, y, w = instance(7)
    w[[2, 5]] = 0.0
    weighted = regression_front(df, y, 2, sample_weight=w)
    keep = np.repeat(np.arange(len(y)), w.astype(int))
    repeated = regression_front(df.iloc[keep], y[keep], 2)
    assert [p.loss for p in weighted] == pytest.approx([p.loss for p in repeated], abs=1e-9)
    assert [p.lams is None for p in weighted] == [p.lams is None for p in repeated]


def test_weight_zero_rows_do_not_fill_a_leaf_of_min_samples_leaf():
    """min_samples_leaf counts rows: the path with rows of weight 0 is the path without them
    (kept, they would let a leaf of one real row pass a minimum of 3)."""
    df, y, w = instance(7)
    w[[2, 5]] = 0.0
    live = w > 0
    weighted = regression_front(df, y, 2, sample_weight=w, min_samples_leaf=3)
    removed = regression_front(df[live], y[live], 2, sample_weight=w[live],
                               min_samples_leaf=3)
    assert [p.loss for p in weighted] == pytest.approx([p.loss for p in removed], abs=1e-9)


def test_a_stopped_path_keeps_real_trees_and_valid_bounds():
    df, y, w = instance(3, n=14)
    want = regression_front_by_enumeration(df.to_numpy(), y, w, 3, 1)
    X = df.to_numpy()
    front = front_points(X, y, w, 3, 1, StopAfter(1))  # the λ = 0 search, then stop
    assert not front.complete
    for p, best in zip(front, want, strict=True):
        assert p.bound <= best + 1e-9 <= p.loss + 2e-9
        assert p.loss == pytest.approx(loss_of(p, df, y, w), abs=1e-9)


def test_a_constant_target_is_one_leaf_for_every_budget():
    df, _, _ = instance(1)
    front = regression_front(df, np.full(len(df), 3.0), 2)
    assert all(p.leaves == 1 and p.loss == 0.0 and p.optimal for p in front)
    assert front[0].lams == (0.0, np.inf)


@pytest.mark.parametrize("kwargs,match", [({"budgets": "some"}, "budgets must be"),
                                          ({"depth": 5}, "depth"),
                                          ({"min_samples_leaf": 0}, "min_samples_leaf")])
def test_bad_input_is_one_clear_error(kwargs, match):
    df, y, _ = instance(0)
    args = {"depth": 2, **kwargs}
    with pytest.raises(OptreesInputError, match=match):
        regression_front(df, y, args.pop("depth"), **args)


# ---------------------------------------------------------------------------- the CV
def diabetes(n: int = 150, F: int = 4):
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    return X.iloc[:n, :F], y.iloc[:n].to_numpy()


def breakpoints_by_hand(X, y, folds, depth):
    """Per fold, the regression front of its training rows (the public function), and the
    λ candidates cut from all folds' hull breakpoints, written out here."""
    cuts = set()
    for train, _ in folds.split(X):
        for p in regression_front(X.iloc[train], y[train], depth):
            if p.lams is not None:
                cuts |= {b for b in p.lams if 0 < b < np.inf}
    cuts = sorted(cuts)
    mids = [(a + b) / 2 for a, b in zip(cuts, cuts[1:], strict=False)]
    return sorted([cuts[0] / 2, *mids, (cuts[-1] + 1) / 2], reverse=True)


def test_path_mode_candidates_scores_and_path_match_the_manual_loop():
    X, y = diabetes()
    folds = KFold(3, shuffle=True, random_state=0)
    cv = OptimalTreeRegressorCV(depths=(1, 2), lams="path", cv=folds,
                                time_limit=None).fit(X, y)
    res = cv.cv_results_
    assert cv.path_off_ == {1: None, 2: None} and res["from_path"].all()
    for depth in (1, 2):
        got = [q["lam"] for q in res["params"] if q["depth"] == depth]
        assert got == pytest.approx(breakpoints_by_hand(X, y, folds, depth), abs=1e-12)
    # every grid point's fold scores are cross_val_score's of the plain regressor
    want = np.array([cross_val_score(OptimalTreeRegressor(**q, time_limit=None), X, y,
                                     cv=folds) for q in res["params"]])
    got = np.column_stack([res[f"split{k}_test_score"] for k in range(3)])
    np.testing.assert_allclose(got, want, atol=1e-12)
    assert cv.best_params_ == res["params"][int(np.argmax(want.mean(axis=1)))]
    table = pd.DataFrame(res)  # scikit-learn's format
    assert {"mean_test_score", "rank_test_score", "param_lam"} <= set(table.columns)
    # path_: the chosen depth's front on all rows, its λ-optimum the refit's objective
    depth, lam = cv.best_params_["depth"], cv.best_params_["lam"]
    want_front = regression_front_by_enumeration(X.to_numpy(), y, np.ones(len(y)), depth, 1)
    assert [p.budget for p in cv.path_] == list(range(1, 2 ** depth + 1))
    hull = [p for p in cv.path_ if p.lams is not None]
    assert all(p.loss == pytest.approx(want_front[p.budget - 1], abs=1e-9) for p in hull)
    best = min(p.loss + lam * p.leaves for p in cv.path_)
    assert cv.best_estimator_.objective_ == pytest.approx(best, abs=1e-9)


def test_path_is_off_with_a_leaf_budget_or_a_list_of_lams():
    X, y = diabetes(90, 3)
    budget = OptimalTreeRegressorCV(depths=(2,), lams="path", max_leaves=3, cv=3,
                                    time_limit=60).fit(X, y)
    assert budget.path_off_ == {2: "max_leaves is set"} and budget.path_ is None
    assert not budget.cv_results_["from_path"].any()
    listed = OptimalTreeRegressorCV(depths=(2,), lams=(0.0, 0.01), cv=3).fit(X, y)
    assert "list" in listed.path_off_[2] and listed.path_ is None
    assert [q["lam"] for q in listed.cv_results_["params"]] == [0.0, 0.01]


def test_path_lams_of_regression_breakpoints_lie_inside_every_folds_interval():
    X, y = diabetes(120, 3)
    folds = KFold(3, shuffle=True, random_state=1)
    cv = OptimalTreeRegressorCV(depths=(2,), lams="path", cv=folds, refit=False,
                                time_limit=None).fit(X, y)
    lams = [q["lam"] for q in cv.cv_results_["params"]]
    assert lams == sorted(lams, reverse=True) and 0 < min(lams) and max(lams) < 1
    assert path_lams([]) == (0.0,)


@pytest.mark.parametrize("seed", range(3))
def test_two_valued_columns_take_the_01_search_and_match_the_enumeration(seed):
    df, y, w = instance(40 + seed, n=16, F=4, levels=2)
    for depth in (2, 3):
        want = regression_front_by_enumeration(df.to_numpy(), y, w, depth, 1)
        for budgets in ("hull", "all"):
            front = regression_front(df, y, depth, sample_weight=w, budgets=budgets,
                                     time_limit=120)
            for p, best in zip(front, want, strict=True):
                assert p.bound <= best + 1e-9 <= p.loss + 2e-9
                assert p.loss == pytest.approx(loss_of(p, df, y, w), abs=1e-9)
                if budgets == "all" or (p.lams is not None and p.budget == p.leaves):
                    assert p.optimal and p.loss == pytest.approx(best, abs=1e-9)


def test_a_time_limit_spent_at_once_still_gives_every_budget_a_tree_and_a_bound():
    X, y = diabetes(300, 10)
    front = regression_front(X, y, 3, time_limit=1e-3)
    assert not front.complete and [p.budget for p in front] == list(range(1, 9))
    for p in front:
        assert 0.0 <= p.bound <= p.loss + 1e-12 and p.leaves <= p.budget
        assert p.loss == pytest.approx(loss_of(p, X, y, np.ones(len(y))), abs=1e-9)
    assert front[0].optimal and front[0].loss == pytest.approx(1.0)


def test_a_fold_path_gets_the_time_of_2_to_the_depth_minus_1_fits(monkeypatch):
    """Structure, not wall clock: a regression path task's time limit is time_limit *
    2^d (2^d - 1) / (the sum of the tasks' units and the refit's 2^depth)."""
    from optrees.estimators import cv as cv_module

    seen = []
    path_fold = cv_module.path_fold

    def spy(est, *args, **late):
        seen.append((est.depth, est.time_limit))
        return path_fold(est, *args, **late)

    monkeypatch.setattr(cv_module, "path_fold", spy)
    X, y = diabetes(60, 3)
    OptimalTreeRegressorCV(depths=(1, 2), lams="path", cv=3, time_limit=50.0).fit(X, y)
    total = 3 * (2 * 1 + 4 * 3) + 4  # three folds at depths 1 and 2, the refit at depth 2
    assert sorted(seen) == sorted([(1, 50.0 * 2 / total), (2, 50.0 * 12 / total)] * 3)


def test_parallel_folds_choose_as_a_serial_run():
    import joblib

    X, y = diabetes(90, 3)
    folds = KFold(3, shuffle=True, random_state=2)
    serial = OptimalTreeRegressorCV(depths=(1, 2), lams="path", cv=folds,
                                time_limit=None).fit(X, y)
    with joblib.parallel_backend("threading"):
        threaded = OptimalTreeRegressorCV(depths=(1, 2), lams="path", cv=folds, n_jobs=2,
                                          time_limit=None).fit(X, y)
    assert threaded.best_params_ == serial.best_params_
    np.testing.assert_array_equal(threaded.cv_results_["mean_test_score"],
                                  serial.cv_results_["mean_test_score"])



def _tasks_run(stream, name: str) -> int:
    """Calls of ``name`` the Dask task stream ran (joblib ships them as
    ``batch_of_<name>_<calls>_calls-<hash>``)."""
    prefix = f"batch_of_{name}_"
    return sum(int(t["key"][len(prefix):].split("_")[0]) for t in stream.data
               if t["key"].startswith(prefix))


@pytest.mark.parametrize("lams,task", [("path", "path_fold"), (None, "grid_fold")])
def test_dask_backend_chooses_as_a_serial_run(lams, task):
    """Issue #44: the same best_params_ and mean test scores as a serial run, the folds run
    on the cluster, and (oracle: scikit-learn's cross_val_score of the plain regressor,
    the weights passed to its fits) each fold's score is that of a fit on the weighted
    training rows."""
    distributed = pytest.importorskip("distributed")
    import joblib

    X, y = diabetes(80, 3)
    w = np.random.default_rng(3).uniform(0.5, 2.0, len(y))
    folds = KFold(3, shuffle=True, random_state=2)
    kw = {} if lams is None else {"lams": lams}  # None: the default grid of λ
    serial = OptimalTreeRegressorCV(depths=(1, 2), cv=folds, time_limit=None, **kw)
    serial.fit(X, y, w)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster), joblib.parallel_backend("dask"), \
            distributed.get_task_stream() as stream:
        remote = OptimalTreeRegressorCV(depths=(1, 2), cv=folds, time_limit=None, n_jobs=2,
                                        **kw).fit(X, y, w)
    res = remote.cv_results_
    assert res["from_path"].all() == (lams == "path")
    per_fold = 2  # one task per depth: its path, or its grid of λ
    assert _tasks_run(stream, task) == 3 * per_fold  # every fold task ran on the cluster
    assert remote.best_params_ == serial.best_params_
    np.testing.assert_array_equal(res["mean_test_score"], serial.cv_results_["mean_test_score"])
    want = np.array([cross_val_score(OptimalTreeRegressor(**q, time_limit=None), X, y,
                                     cv=folds, params={"sample_weight": w})
                     for q in res["params"]])
    got = np.column_stack([res[f"split{k}_test_score"] for k in range(3)])
    np.testing.assert_allclose(got, want, atol=1e-12)

def test_path_trees_keep_the_column_names():
    df = pd.DataFrame({"age": [1.0, 2, 3, 4, 5, 6], "b": [3.0, 1, 2, 5, 4, 6]})
    front = regression_front(df, np.array([1.0, 1, 2, 5, 5, 6]), 1)
    assert front[1].tree.feature_names == ["age", "b"]
    assert front[1].tree.negated_names == ["not (age)", "not (b)"]
