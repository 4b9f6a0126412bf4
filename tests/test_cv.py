"""BendOCTClassifierCV / OptimalTreeRegressorCV (issue #44 item 2): the fold scores are those
of the plain estimator under scikit-learn's cross_val_score, the rules choose as defined,
the refit is a fit on all rows, bad parameters get one clear error, and a Dask backend
chooses as a serial run."""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest
from deadlines import StopAfter
from estimator_matrix import _SPARSE_WEIGHTS
from oracles import front_by_enumeration
from sklearn.datasets import load_diabetes
from sklearn.metrics import get_scorer
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold, cross_val_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from optrees import (
    BendOCTClassifier,
    BendOCTClassifierCV,
    Binarizer,
    OptimalTreeRegressor,
    OptimalTreeRegressorCV,
    OptreesInputError,
)
from optrees._params import Param, parameter_table, validate_params
from optrees.estimators import cv as cv_module
from optrees.estimators import cv_folds
from optrees.estimators.cv_choice import path_lams, select_index
from optrees.estimators.cv_folds import FoldPath, path_fold


def binary_data(n: int = 120, p: int = 7, seed: int = 0):
    """0/1 features, a noisy depth-2 rule, and continuous weights (two different trees then
    almost surely differ in weighted accuracy, so every optimum is unique)."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, size=(n, p)), columns=[f"f{j}" for j in range(p)])
    y = ((X.f0 & X.f1) | (X.f2 & ~X.f1.astype(bool))).to_numpy().astype(int)
    flip = rng.random(n) < 0.12
    y[flip] = 1 - y[flip]
    return X, y, rng.uniform(0.5, 1.5, size=n)


FOLDS = StratifiedKFold(4, shuffle=True, random_state=0)


def manual_scores(X, y, w, params, cv=FOLDS, **base):
    """The definition: cross_val_score of the plain estimator at each grid point."""
    return np.array([cross_val_score(BendOCTClassifier(**q, **base, time_limit=60), X, y,
                                     cv=cv, params={"sample_weight": w}) for q in params])


BUDGET = {"max_leaves": 3, "class_weight": "balanced"}
LEAF_SIZE = {"min_samples_leaf": 25}  # binding: 90 training rows per fold


@pytest.mark.parametrize("lams,base", [("path", {}), ((0.0, 0.01, 0.03, 0.1), {}),
                                       ("path", BUDGET), ("path", LEAF_SIZE)],
                         ids=["path", "list", "path-budget", "path-leaf-size"])
def test_cv_results_equal_cross_val_score_of_the_plain_estimator(lams, base):
    X, y, w = binary_data()
    cv = BendOCTClassifierCV(depths=(1, 2, 3), lams=lams, cv=FOLDS, time_limit=120, **base)
    cv.fit(X, y, sample_weight=w)
    res = cv.cv_results_
    assert res["from_path"].all()
    if "max_leaves" in base:
        assert res["mean_n_leaves"].max() <= base["max_leaves"]
    want = manual_scores(X, y, w, res["params"], **base)
    got = np.column_stack([res[f"split{k}_test_score"] for k in range(4)])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res["mean_test_score"], want.mean(axis=1))
    np.testing.assert_allclose(res["std_test_score"], want.std(axis=1))
    rank = [1 + sum(m2 > m + 1e-12 for m2 in want.mean(axis=1)) for m in want.mean(axis=1)]
    assert list(res["rank_test_score"]) == rank
    if lams != "path":
        assert [q["lam"] for q in res["params"]] == list(lams) * 3
    frame = pd.DataFrame(res)  # scikit-learn's format: pandas reads it
    assert len(frame) == len(res["params"]) and "param_depth" in frame


def test_categorical_columns_take_the_path_through_the_one_hot_binarizer():
    from optrees import load_dataset

    X, y = load_dataset("monk3")  # bundled; categorical columns, one-hot under "auto"
    w = np.random.default_rng(7).uniform(0.5, 1.5, len(y))
    cv = BendOCTClassifierCV(depths=(2, 3), cv=FOLDS, time_limit=120).fit(X, y, w)
    res = cv.cv_results_
    assert cv.path_off_ == {2: None, 3: None}
    got = np.column_stack([res[f"split{k}_test_score"] for k in range(4)])
    np.testing.assert_allclose(got, manual_scores(X, y, w, res["params"]), atol=1e-12)


def test_a_probability_score_reads_the_path_trees_leaf_frequencies():
    X, y, w = binary_data(seed=8)
    cv = BendOCTClassifierCV(depths=(2, 3), cv=FOLDS, scoring="roc_auc", time_limit=120)
    res = cv.fit(X, y, sample_weight=w).cv_results_
    want = np.array([cross_val_score(BendOCTClassifier(**q, time_limit=60), X, y, cv=FOLDS,
                                     scoring="roc_auc", params={"sample_weight": w})
                     for q in res["params"]])
    got = np.column_stack([res[f"split{k}_test_score"] for k in range(4)])
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_scoring_is_the_test_score_and_the_score_method():
    from sklearn.metrics import balanced_accuracy_score

    X, y, w = binary_data(seed=6)
    y[:45] = 0  # unbalanced: balanced accuracy differs from accuracy
    cv = BendOCTClassifierCV(depths=(2,), lams=(0.0, 0.02), cv=FOLDS,
                             scoring="balanced_accuracy", time_limit=60).fit(X, y)
    want = np.array([cross_val_score(BendOCTClassifier(**q, time_limit=60), X, y, cv=FOLDS,
                                     scoring="balanced_accuracy")
                     for q in cv.cv_results_["params"]])
    np.testing.assert_allclose(cv.cv_results_["mean_test_score"], want.mean(axis=1))
    pred = cv.best_estimator_.predict(X)
    assert cv.score(X, y) == pytest.approx(balanced_accuracy_score(y, pred))
    assert cv.score(X, y, sample_weight=w) == pytest.approx(
        balanced_accuracy_score(y, pred, sample_weight=w))


def test_grid_search_cv_chooses_the_same_point():
    """Unweighted (GridSearchCV weights its test scores by sample_weight, cross_val_score and
    the CV estimators do not)."""
    X, y, _ = binary_data(seed=1)
    lams = (0.0, 0.03, 0.15)
    cv = BendOCTClassifierCV(depths=(1, 2, 3), lams=lams, cv=FOLDS, time_limit=120).fit(X, y)
    grid = GridSearchCV(BendOCTClassifier(time_limit=60),
                        {"depth": [1, 2, 3], "lam": list(lams)}, cv=FOLDS).fit(X, y)
    assert cv.best_params_ == grid.best_params_
    np.testing.assert_allclose(cv.cv_results_["mean_test_score"],
                               grid.cv_results_["mean_test_score"], atol=1e-12)
    assert len(set(grid.cv_results_["mean_test_score"])) > 2


# best_params_ and leaves chosen by the budgeted search per leaf count (before issue #44's
# front vectors, commit 21c1e70), on the data of the test below
CHOSEN_BEFORE = {0: (3, 0.0020833333333333537, 7), 1: (2, 0.022792022792022804, 4),
                 2: (3, 0.016666666666666663, 6), 3: (3, 0.024363671088270034, 5)}


@pytest.mark.parametrize("seed", sorted(CHOSEN_BEFORE))
def test_the_chosen_model_is_the_one_the_per_budget_search_chose(seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(160, 8))
    y = ((X[:, 0] & X[:, 1]) | (X[:, 2] ^ X[:, 3]) ^ (rng.random(160) < 0.15)).astype(int)
    w = rng.integers(1, 4, size=160).astype(float) if seed % 2 else None
    cv = BendOCTClassifierCV(depths=(2, 3), cv=4, min_samples_leaf=1 + seed % 3).fit(
        X, y, sample_weight=w)
    depth, lam, leaves = CHOSEN_BEFORE[seed]
    assert cv.best_params_["depth"] == depth
    assert cv.best_params_["lam"] == pytest.approx(lam, rel=1e-9)
    assert cv.best_estimator_.tree_.n_leaves == leaves


def test_path_lams_lie_inside_the_intervals_of_the_folds():
    def fold(low, high):
        return FoldPath(0, 2, np.arange(len(low)), np.array(low), np.array(high),
                        np.zeros(len(low)), 0.0, False)

    a = fold([0.2, 0.0], [np.inf, 0.2])  # breakpoint 0.2
    b = fold([0.1, 0.05, 0.0], [np.inf, 0.1, 0.05])  # breakpoints 0.05, 0.1
    assert path_lams([a, b]) == pytest.approx((0.6, 0.15, 0.075, 0.025))
    assert path_lams([fold([0.0], [np.inf])]) == (0.0,)
    assert b.pick(0.1) == 0 and b.pick(0.07) == 1 and b.pick(0.0) == 2  # ties: fewer leaves


def test_path_lams_merge_one_breakpoint_rounded_two_ways():
    """Two folds meeting one tie at 0.0075, each computing it with its own rounding (the
    values a user's attrition folds gave): one breakpoint, so no λ between the two values,
    where both folds tie; each λ lies inside both folds' intervals, off their ends."""
    def fold(b):
        return FoldPath(0, 2, np.arange(2), np.array([b, 0.0]), np.array([np.inf, b]),
                        np.zeros(2), 0.0, False)

    a, b = fold(0.007500000000000007), fold(0.007500000000000025)
    lams = path_lams([a, b])
    assert lams == pytest.approx(((0.0075 + 1) / 2, 0.0075 / 2))
    for lam in lams:
        for f in (a, b):
            assert not np.isclose(lam, f.low).any() and not np.isclose(lam, f.high).any()
    # distinct breakpoints, however close, stay apart
    assert len(path_lams([fold(0.0075), fold(0.0076)])) == 3


def _results(mean, splits, leaves, depth, lam):
    splits = np.array(splits, dtype=float)
    return {"mean_test_score": np.array(mean, float), "mean_n_leaves": np.array(leaves, float),
            "param_depth": np.array(depth), "param_lam": np.array(lam, float),
            **{f"split{k}_test_score": splits[:, k] for k in range(splits.shape[1])}}


def test_one_standard_error_rule_on_hand_made_results():
    # point 0 is best: 0.90, folds .8 .9 1.0, sample sd 0.1, se 0.1 / sqrt(3) = 0.0577, so
    # the points at >= 0.8423 are within: 1 (0.85, 2 leaves; out with the population sd,
    # whose se 0.0471 gives 0.8529), 2, 3, 4 (3 leaves); point 5 (1 leaf, 0.80) is out.
    res = _results([0.90, 0.85, 0.86, 0.86, 0.87, 0.80],
                   [[0.8, 0.9, 1.0], [0.85] * 3, [0.86] * 3, [0.86] * 3, [0.87] * 3, [0.8] * 3],
                   leaves=[8, 2, 3, 3, 3, 1], depth=[3, 3, 2, 2, 3, 2],
                   lam=[0.0, 0.05, 0.01, 0.02, 0.01, 0.1])
    assert select_index(res, "best") == 0
    assert select_index(res, "1se") == 1  # the fewest leaves within
    res["mean_test_score"][1] = 0.84  # out: 3 leaves, then depth 2, then the largest lam
    assert select_index(res, "1se") == 3
    res["split0_test_score"][0] = 0.9  # folds .9 .9 1.0: se 0.0333, within 0.8667 only 0
    res["mean_test_score"][0] = (0.9 + 0.9 + 1.0) / 3
    assert select_index(res, "1se") == 0
    with pytest.raises(OptreesInputError, match="rule must be"):
        select_index(res, "2se")


def test_one_standard_error_rule_on_a_fit():
    X, y, _ = binary_data(seed=2)
    best = BendOCTClassifierCV(depths=(2, 3), cv=FOLDS, time_limit=120).fit(X, y)
    one = BendOCTClassifierCV(depths=(2, 3), cv=FOLDS, rule="1se", time_limit=120).fit(X, y)
    res = one.cv_results_
    np.testing.assert_allclose(res["mean_test_score"], best.cv_results_["mean_test_score"])
    splits = np.column_stack([res[f"split{k}_test_score"] for k in range(4)])
    mean = splits.mean(axis=1)
    top = int(np.argmax(mean))
    assert best.best_index_ == top
    se = np.sqrt(np.sum((splits[top] - mean[top]) ** 2) / 3) / 2  # sample sd / sqrt(4)
    ok = [i for i in range(len(mean)) if mean[i] >= mean[top] - se]
    key = [(res["mean_n_leaves"][i], res["param_depth"][i], -res["param_lam"][i]) for i in ok]
    assert one.best_index_ == ok[min(range(len(ok)), key=lambda j: key[j])]
    assert one.cv_results_["mean_n_leaves"][one.best_index_] <= \
        best.cv_results_["mean_n_leaves"][best.best_index_]


def test_best_estimator_is_refit_on_all_rows():
    X, y, w = binary_data(seed=3)
    cv = BendOCTClassifierCV(depths=(2, 3), cv=FOLDS, time_limit=120, random_state=0)
    cv.fit(X, y, sample_weight=w)
    plain = BendOCTClassifier(**cv.best_params_, time_limit=60, random_state=0)
    plain.fit(X, y, sample_weight=w)
    est = cv.best_estimator_
    assert (est.depth, est.lam) == (cv.best_params_["depth"], cv.best_params_["lam"])
    assert est.objective_ == pytest.approx(plain.objective_)
    assert est.tree_.counts[0].sum() == pytest.approx(w.sum())  # the root: every row, weighted
    np.testing.assert_array_equal(cv.predict(X), plain.predict(X))
    np.testing.assert_allclose(cv.predict_proba(X), plain.predict_proba(X))
    assert cv.score(X, y) == pytest.approx(plain.score(X, y))
    assert list(cv.classes_) == [0, 1]
    no_refit = BendOCTClassifierCV(depths=(2,), cv=FOLDS, refit=False).fit(X, y)
    assert not hasattr(no_refit, "best_estimator_")
    with pytest.raises(OptreesInputError, match="refit=False"):
        no_refit.predict(X)


def test_path_is_the_chosen_depths_front_on_all_rows():
    """``path_``: for each leaf budget of the chosen depth, the most accurate tree on all
    training rows (weighted), by an enumeration of every tree; the chosen λ's optimum read
    off it is the refit's objective; no path where the path is off (numeric columns)."""
    X, y, w = binary_data(n=40, p=4, seed=5)
    cv = BendOCTClassifierCV(depths=(1, 2), cv=FOLDS, time_limit=120, random_state=0)
    cv.fit(X, y, sample_weight=w)
    depth, lam = cv.best_params_["depth"], cv.best_params_["lam"]
    want = front_by_enumeration(X.to_numpy(), y, w, depth, 1)
    assert [p.budget for p in cv.path_] == list(range(1, 2**depth + 1))
    assert all(p.optimal for p in cv.path_)
    assert [p.accuracy for p in cv.path_] == pytest.approx(np.array(want) / w.sum())
    best = max(p.accuracy - lam * p.leaves for p in cv.path_)
    assert cv.best_estimator_.objective_ == pytest.approx(best)
    rng = np.random.default_rng(1)
    Xn = pd.DataFrame(rng.normal(size=(40, 2)), columns=["a", "b"])
    numeric = BendOCTClassifierCV(depths=(1,), cv=FOLDS, time_limit=60).fit(Xn, y)
    assert numeric.path_ is None and "numeric" in numeric.path_off_[1]


def test_numeric_columns_fit_each_grid_point():
    """binarizer='auto' searches numeric columns over every threshold, which the path does
    not: each point is fitted, the scores are cross_val_score's; an explicit Binarizer
    gets the path over its quantile cuts."""
    rng = np.random.default_rng(4)
    X = pd.DataFrame(rng.normal(size=(80, 3)), columns=["a", "b", "c"])
    y = (X.a + 0.5 * X.b + rng.normal(scale=0.5, size=80) > 0).astype(int).to_numpy()
    cv = BendOCTClassifierCV(depths=(1, 2), lams=(0.0, 0.05), cv=FOLDS, time_limit=120)
    cv.fit(X, y)
    assert "numeric" in cv.path_off_[2] and not cv.cv_results_["from_path"].any()
    want = np.array([cross_val_score(BendOCTClassifier(**q, time_limit=60), X, y, cv=FOLDS)
                     for q in cv.cv_results_["params"]])
    np.testing.assert_allclose(cv.cv_results_["mean_test_score"], want.mean(axis=1))
    fallback = BendOCTClassifierCV(depths=(1,), cv=FOLDS, time_limit=60).fit(X, y)
    assert [q["lam"] for q in fallback.cv_results_["params"]] == list(cv_module.FALLBACK_LAMS)
    binned = BendOCTClassifierCV(depths=(2,), cv=FOLDS, binarizer=Binarizer(),
                                 time_limit=60).fit(X, y)
    assert binned.path_off_ == {2: None} and binned.cv_results_["from_path"].all()


def test_regressor_cv_equals_cross_val_score():
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    X, y = X.iloc[:150, :4], y.iloc[:150]
    folds = KFold(3, shuffle=True, random_state=0)
    cv = OptimalTreeRegressorCV(depths=(1, 2), lams=(0.0, 0.02), cv=folds, time_limit=120)
    cv.fit(X, y)
    want = np.array([cross_val_score(OptimalTreeRegressor(**q, time_limit=60), X, y, cv=folds)
                     for q in cv.cv_results_["params"]])
    got = np.column_stack([cv.cv_results_[f"split{k}_test_score"] for k in range(3)])
    np.testing.assert_allclose(got, want, atol=1e-12)
    assert cv.best_params_ == cv.cv_results_["params"][int(np.argmax(want.mean(axis=1)))]
    assert cv.score(X, y) == pytest.approx(cv.best_estimator_.score(X, y))
    assert cv.path_ is None  # a list of λ is fitted per grid point: no path


@pytest.mark.parametrize("cls,params,match", [
    (BendOCTClassifierCV, {"depths": []}, "depths must be .auto. or a non-empty list"),
    (BendOCTClassifierCV, {"depths": "deep"}, "depths must be"),
    (BendOCTClassifierCV, {"depths": (2, 2)}, "depths must be"),
    (BendOCTClassifierCV, {"depths": 3}, "depths must be"),
    (BendOCTClassifierCV, {"lams": (0.01, -0.1)}, "lams must be 'path' or"),
    (BendOCTClassifierCV, {"lams": (1.0,)}, "lams must be"),
    (BendOCTClassifierCV, {"lams": "all"}, "lams must be"),
    (BendOCTClassifierCV, {"rule": "2se"}, "rule must be 'best' or '1se', got"),
    (BendOCTClassifierCV, {"cv": 1}, "cv must be"),
    (BendOCTClassifierCV, {"scoring": "acuracy"}, "scoring must be"),
    (BendOCTClassifierCV, {"n_jobs": 0}, "n_jobs must be"),
    (BendOCTClassifierCV, {"time_limit": -1}, "time_limit must be"),
    (BendOCTClassifierCV, {"min_samples_leaf": 0}, "min_samples_leaf must be"),
    (OptimalTreeRegressorCV, {"lams": "grid"}, "lams must be 'path' or a non-empty list"),
    (OptimalTreeRegressorCV, {"depths": (1, 9)}, "depths must be"),
])
def test_bad_parameters_get_one_clear_error(cls, params, match):
    X, y, _ = binary_data(n=40)
    with pytest.raises(OptreesInputError, match=match):
        cls(**params).fit(X, y if cls is BendOCTClassifierCV else y.astype(float))


@pytest.mark.parametrize("n, cv", [(4, 3), (5, 5)])
def test_folds_too_small_for_r2_are_refused_before_any_fit(n, cv):
    """R² of one test row is undefined (nan): a split leaving a fold with one test row is
    refused by name, not ended with "every grid point's mean test score is nan"."""
    X, y, _ = binary_data(n=n)
    with pytest.raises(OptreesInputError, match="a fold with 1 test row .* R² is undefined"):
        OptimalTreeRegressorCV(cv=cv, time_limit=10).fit(X, y.astype(float))


def test_the_registry_names_each_cv_estimator_and_its_base():
    from optrees.registry import CV_ESTIMATORS, cv_estimator

    assert cv_estimator("BendOCTClassifier") is BendOCTClassifierCV
    assert cv_estimator("OptimalTreeRegressor") is OptimalTreeRegressorCV
    assert cv_estimator("RUGClassifier") is None
    for base, target in CV_ESTIMATORS.items():
        assert cv_estimator(base)._base.__name__ == base, target


@pytest.mark.parametrize("cls,base", [(BendOCTClassifierCV, BendOCTClassifier),
                                      (OptimalTreeRegressorCV, OptimalTreeRegressor)])
def test_parameters_pass_through_the_base_estimator(cls, base):
    table = parameter_table(cls)
    params = set(inspect.signature(cls.__init__).parameters) - {"self"}
    assert params == set(table) and all(isinstance(p, Param) and p.help for p in table.values())
    base_params = set(base().get_params()) - {"depth", "lam", "time_limit"}
    assert base_params <= params
    validate_params(cls())  # the defaults pass their own rules


def test_time_limit_is_shared_by_depth_and_the_refit_gets_the_rest(monkeypatch):
    """Structure, not wall clock: each fold task's time limit is time_limit * 2^depth / (the
    sum of the tasks' and the refit's 2^depth); the refit gets the rest of the budget."""
    seen = []
    path_fold = cv_module.path_fold

    def spy(est, *args, **late):
        seen.append((est.depth, est.time_limit))
        return path_fold(est, *args, **late)

    monkeypatch.setattr(cv_module, "path_fold", spy)
    X, y, _ = binary_data(n=60)
    cv = BendOCTClassifierCV(depths=(1, 3), cv=FOLDS, time_limit=50.0).fit(X, y)
    total = 4 * (2 + 8) + 8  # four folds at depths 1 and 3, the refit at depth 3
    assert sorted(seen) == sorted([(1, 50.0 * 2 / total), (3, 50.0 * 8 / total)] * 4)
    assert cv.best_estimator_.time_limit > 50.0 * 8 / total  # what the folds left


@pytest.mark.parametrize("regression", [False, True])
def test_a_fold_path_is_stopped_exactly_when_its_time_limit_stopped_a_search(monkeypatch,
                                                                            regression):
    """FoldPath.stopped reads the front's ``complete``, for both kinds of path: a deadline
    that passes at once (StopAfter(0)) stops it, none does not."""
    if regression:
        X, y = load_diabetes(return_X_y=True, as_frame=True)
        X, y, w = X.iloc[:60, :3], y.iloc[:60].to_numpy(), None
        est, scorer = OptimalTreeRegressor(depth=2), get_scorer("r2")
    else:
        X, y, w = binary_data(n=60)
        est, scorer = BendOCTClassifier(depth=3), None
    train, test = np.arange(40), np.arange(40, 60)
    assert not path_fold(est, X, y, w, train, test, scorer, 0).stopped
    monkeypatch.setattr(cv_folds, "fit_deadline", lambda limit: StopAfter(0))
    assert path_fold(est, X, y, w, train, test, scorer, 0).stopped

def test_dask_backend_chooses_as_a_serial_run():
    distributed = pytest.importorskip("distributed")
    import joblib

    X, y, w = binary_data(seed=5)
    serial = BendOCTClassifierCV(depths=(2, 3), cv=FOLDS, time_limit=120).fit(X, y, w)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster), joblib.parallel_backend("dask"), \
            distributed.get_task_stream() as stream:
        remote = BendOCTClassifierCV(depths=(2, 3), cv=FOLDS, time_limit=120, n_jobs=2)
        remote.fit(X, y, w)
    assert len(stream.data) >= 1  # the folds ran on the cluster (joblib batches them)
    assert remote.best_params_ == serial.best_params_
    np.testing.assert_array_equal(remote.cv_results_["mean_test_score"],
                                  serial.cv_results_["mean_test_score"])


_CLASS_WEIGHTS = {
    "check_class_weight_classifiers":
        "the chosen lam may be 0, where the exact weighted optimum isolates pure minority "
        "leaves (as BendersOCTClassifier's, tests/estimator_matrix.py)"}


@parametrize_with_checks(
    [BendOCTClassifierCV(depths=(1, 2), cv=3, time_limit=30),
     OptimalTreeRegressorCV(depths=(2,), lams=(0.0, 0.01), cv=3, time_limit=30),
     OptimalTreeRegressorCV(depths=(2,), lams="path", cv=3, time_limit=30)],
    expected_failed_checks=lambda est: {**_SPARSE_WEIGHTS, **_CLASS_WEIGHTS}
    if isinstance(est, BendOCTClassifierCV) else _SPARSE_WEIGHTS)
def test_scikit_learn_checks(estimator, check):
    check(estimator)


def decision_list(n: int = 320, seed: int = 0):
    """y = 1 if f0, else 0 if f1, else 1 if f2, else 0 if f3, else f4, on 7 0/1 columns
    (each 1 with probability 0.3): a chain of five splits, which no tree of depth 4 holds
    (it misses the split on f4 of the quarter of rows where f0-f3 are 0)."""
    rng = np.random.default_rng(seed)
    Z = (rng.random((n, 7)) < 0.3).astype(int)
    y = np.select([Z[:, 0] == 1, Z[:, 1] == 1, Z[:, 2] == 1, Z[:, 3] == 1], [1, 0, 1, 0],
                  default=Z[:, 4])
    return pd.DataFrame(Z, columns=[f"f{j}" for j in range(7)]), y


def test_auto_depths_grow_while_the_deepest_depth_scores_best():
    """depths="auto": 2, 3, 4, then 5 (it scores best), then 6 (it ties 5, so 5 stays
    chosen and growth stops); the grown depths fit λ = k / n, and their scores are
    cross_val_score's of the plain estimator."""
    X, y = decision_list()
    cv = BendOCTClassifierCV(cv=FOLDS, time_limit=300).fit(X, y)
    assert cv.depths_ == (2, 3, 4, 5, 6)
    assert cv.best_params_["depth"] == 5 and cv.best_score_ == 1.0
    n = min(len(train) for train, _ in FOLDS.split(X, y))
    deep = [q for q in cv.cv_results_["params"] if q["depth"] >= 5]
    assert deep == [{"depth": d, "lam": k / n} for d in (5, 6) for k in (1, 2, 4, 8)]
    scores = np.array([cross_val_score(BendOCTClassifier(**q, time_limit=60), X, y, cv=FOLDS)
                       for q in deep])
    rows = [i for i, q in enumerate(cv.cv_results_["params"]) if q["depth"] >= 5]
    got = np.column_stack([cv.cv_results_[f"split{i}_test_score"][rows] for i in range(4)])
    np.testing.assert_allclose(got, scores)
    assert cv.best_estimator_.depth == 5 and cv.score(X, y) == 1.0


def test_auto_depths_stop_where_a_shallower_depth_scores_best(monkeypatch):
    """A depth-2 rule: no growth past 4.  Where the deepest depth scores best, no growth
    either once a fold of that depth was stopped by its share of time (here: marked so),
    or once GROW_SHARE of time_limit is spent (here 0: always)."""
    X, y, w = binary_data()
    assert BendOCTClassifierCV(cv=FOLDS, time_limit=120).fit(X, y, w).depths_ == (2, 3, 4)
    X, y = decision_list()
    path_fold = cv_module.path_fold

    def stopped_at_depth4(est, *args, **late):
        out = path_fold(est, *args, **late)
        out.stopped = out.stopped or (est.depth == 4 and out.fold == 0)
        return out

    with monkeypatch.context() as m:
        m.setattr(cv_module, "path_fold", stopped_at_depth4)
        cv = BendOCTClassifierCV(cv=FOLDS, time_limit=300)
        with pytest.warns(cv_module.TimeLimitWarning, match="1 of 12 fold fits stopped"):
            assert cv.fit(X, y).depths_ == (2, 3, 4)
    monkeypatch.setattr(cv_module, "GROW_SHARE", 0.0)
    assert BendOCTClassifierCV(cv=FOLDS, time_limit=300).fit(X, y).depths_ == (2, 3, 4)


def test_auto_depths_stretch_two_levels_once_where_the_next_is_not_predicted_to_fit(
        monkeypatch):
    """Where the deepest depth scores best and its folds finished but one depth more is not
    predicted to fit (here: never), "auto" tries depth + STRETCH once as a last stage (the
    decision list needs 5: depth 6 scores 1.0 and is chosen), and grows no further; the
    regressor does not stretch."""
    monkeypatch.setattr(cv_module, "deeper_fits", lambda *a: False)
    X, y = decision_list()
    cv = BendOCTClassifierCV(cv=FOLDS, time_limit=300).fit(X, y)
    assert cv_module.STRETCH == 2 and cv.depths_ == (2, 3, 4, 6)
    assert cv.best_params_["depth"] == 6 and cv.best_score_ == 1.0
    assert max(cv.cv_results_["mean_test_score"][cv.cv_results_["param_depth"] == 4]) < 1.0
    rng = np.random.default_rng(1)
    Xr = pd.DataFrame(rng.integers(0, 2, size=(160, 5)), columns=[f"f{j}" for j in range(5)])
    yr = Xr.iloc[:, :4].sum(axis=1).to_numpy(float) + rng.normal(0, 0.05, 160)
    reg = OptimalTreeRegressorCV(cv=KFold(4, shuffle=True, random_state=0), time_limit=300)
    assert reg.fit(Xr, yr).depths_ == (1, 2, 3)


def test_regressor_auto_depths_grow_to_four_where_three_scores_best():
    """OptimalTreeRegressorCV's "auto": 1, 2, 3, and 4 when 3 scores best (a target that is
    the sum of four 0/1 columns needs depth 4); a depth-1 target stops at 3."""
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.integers(0, 2, size=(160, 5)), columns=[f"f{j}" for j in range(5)])
    y = X.iloc[:, :4].sum(axis=1).to_numpy(float) + rng.normal(0, 0.05, 160)
    folds = KFold(4, shuffle=True, random_state=0)
    grown = OptimalTreeRegressorCV(cv=folds, lams=(0.0,), time_limit=120).fit(X, y)
    assert grown.depths_ == (1, 2, 3, 4) and grown.best_params_["depth"] == 4
    flat = OptimalTreeRegressorCV(cv=folds, lams=(0.0,), time_limit=120).fit(
        X, 3.0 * X.f0.to_numpy() + rng.normal(0, 0.05, 160))
    assert flat.depths_ == (1, 2, 3)


def test_deep_lams_stay_below_one_on_few_rows():
    """λ = k / n deeper than 4 keeps only k < n (BendOCT's λ is below 1): 3 training rows
    per fold give 1/3 and 2/3."""
    X = pd.DataFrame({"a": [0, 1, 0, 1, 0, 1], "b": [0, 0, 1, 1, 0, 1]})
    y = np.array([0, 1, 0, 1, 1, 0])
    cv = BendOCTClassifierCV(depths=(5,), cv=2, time_limit=60).fit(X, y)
    assert [q["lam"] for q in cv.cv_results_["params"]] == [1 / 3, 2 / 3]
