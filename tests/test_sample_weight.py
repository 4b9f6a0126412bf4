"""sample_weight and class_weight on the tree estimators (and OMT), from the public API: integer
weights act as duplicated rows, weight 0 as a removed row, class_weight as per-class sample
weights; bad weights get one clear error."""

import numpy as np
import pandas as pd
import pytest

from optrees import (
    BendersOCTClassifier,
    BendOCTClassifier,
    BinOCTClassifier,
    CGHClassifier,
    FlowOCTClassifier,
    OCTClassifier,
    OMTClassifier,
    OMTRegressor,
    OptreesInputError,
    RUGClassifier,
    load_model,
    save_model,
)

ESTIMATORS = {  # every path: numeric every-threshold search, binarized search, the MIPs
    "bendoct-numeric": lambda: BendOCTClassifier(depth=2, lam=0.01),
    "benders-binarized": lambda: BendersOCTClassifier(depth=2, binarizer=None),
    "bendoct-mip": lambda: BendOCTClassifier(depth=2, lam=0.01, subtree_search=False),
    "flowoct": lambda: FlowOCTClassifier(depth=2, lam=0.02, subtree_search=False),
    "flowoct-numeric": lambda: FlowOCTClassifier(depth=2, lam=0.02),
    "oct": lambda: OCTClassifier(depth=1),
    "binoct": lambda: BinOCTClassifier(depth=2),
    "binoct-raw": lambda: BinOCTClassifier(depth=1, raw_thresholds=True),
}


def _table(n=36, seed=0, binary=False):
    rng = np.random.default_rng(seed)
    if binary:
        X = pd.DataFrame(rng.integers(0, 2, (n, 4)), columns=list("pqrs"))
        y = np.where((X.p ^ X.q) | (rng.random(n) < 0.15), "yes", "no")
        return X, y
    X = pd.DataFrame({"a": rng.normal(size=n).round(2), "b": rng.integers(0, 5, n)})
    y = np.where((X.a > 0.2) ^ (rng.random(n) < 0.2), "yes", "no")
    return X, y


def _data(name):
    # BinOCT's depth-2 MIP on 36 rows took 4-8 s a fit; on 24 it still splits (3 leaves)
    return _table(n=24 if name == "binoct" else 36, binary=name == "benders-binarized")


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_integer_weights_equal_duplicated_rows(name):
    X, y = _data(name)
    w = np.random.default_rng(1).integers(1, 4, len(y))
    weighted = ESTIMATORS[name]().fit(X, y, sample_weight=w)
    repeated = ESTIMATORS[name]().fit(X.loc[X.index.repeat(w)], np.repeat(y, w))
    assert weighted.status_ == repeated.status_ == "optimal"
    assert weighted.objective_ == pytest.approx(repeated.objective_, abs=1e-9)
    # training counts are weights: the root holds the total weight of each class
    np.testing.assert_allclose(weighted.tree_.counts[0], repeated.tree_.counts[0])


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_zero_weight_equals_removed_row(name):
    X, y = _data(name)
    w = np.ones(len(y))
    w[[2, 5, 11, 17]] = 0
    weighted = ESTIMATORS[name]().fit(X, y, sample_weight=w)
    kept = ESTIMATORS[name]().fit(X[w > 0], y[w > 0])
    assert weighted.objective_ == pytest.approx(kept.objective_, abs=1e-9)
    assert list(weighted.classes_) == ["no", "yes"]
    if weighted.binarizer_ is not None:  # quantile cut points ignore the removed rows
        assert weighted.feature_names_ == kept.feature_names_


@pytest.mark.parametrize("name", ["bendoct-numeric", "flowoct"])
def test_class_weight_is_sample_weight_per_class(name):
    X, y = _data(name)
    by_dict = ESTIMATORS[name]().set_params(class_weight={"yes": 3.0}).fit(X, y)
    by_rows = ESTIMATORS[name]().fit(X, y, sample_weight=np.where(y == "yes", 3.0, 1.0))
    assert by_dict.objective_ == pytest.approx(by_rows.objective_)
    balanced = ESTIMATORS[name]().set_params(class_weight="balanced").fit(X, y)
    counts = balanced.tree_.counts[0]  # balanced: every class weighs half the rows
    np.testing.assert_allclose(counts, [len(y) / 2, len(y) / 2])


def test_a_heavy_row_decides_the_split():
    """Two stumps get 5 of 6 rows; a weight of 10 on row 3 leaves one optimal stump, the
    one that classifies row 3 correctly (accuracy 14 / 15)."""
    X = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]})
    y = np.array([0, 0, 1, 0, 1, 1])
    plain = BendOCTClassifier(depth=1, lam=0.0).fit(X, y)
    heavy = BendOCTClassifier(depth=1, lam=0.0).fit(X, y, sample_weight=[1, 1, 1, 10, 1, 1])
    assert plain.objective_ == pytest.approx(5 / 6)
    assert heavy.predict(X)[3] == 0
    assert heavy.objective_ == pytest.approx(14 / 15)


@pytest.mark.parametrize("bad, message", [
    ([1, 2], "shape"),
    ([-1.0] + [1.0] * 35, ">= 0"),
    ([np.nan] + [1.0] * 35, "NaN"),
    ([0.0] * 36, "zero for every row"),
    (["a"] * 36, "numbers"),
])
def test_bad_sample_weight(bad, message):
    X, y = _table()
    with pytest.raises(OptreesInputError, match=message):
        BendOCTClassifier(depth=1).fit(X, y, sample_weight=bad)


@pytest.mark.parametrize("bad, message", [
    ({"maybe": 2.0}, "not classes"),
    ({"yes": -1.0}, ">= 0"),
    ("heavy", "balanced"),
])
@pytest.mark.parametrize("make", [lambda cw: FlowOCTClassifier(depth=1, class_weight=cw),
                                  lambda cw: OMTClassifier(depth=1, class_weight=cw)])
def test_bad_class_weight(bad, message, make):
    X, y = _table()
    with pytest.raises((OptreesInputError, ValueError), match=message):
        make(bad).fit(X, y)


def test_omt_class_missing_from_class_weight_weighs_one():
    """As in scikit-learn and the other estimators (OMT refused it before)."""
    X, y = _table()
    part = OMTClassifier(depth=2, class_weight={"yes": 3.0}, random_state=0).fit(X, y)
    full = OMTClassifier(depth=2, class_weight={"yes": 3.0, "no": 1.0}, random_state=0).fit(X, y)
    assert part.objective_ == pytest.approx(full.objective_)
    np.testing.assert_array_equal(part.predict(X), full.predict(X))


def test_caller_weights_are_not_modified_and_saved_counts_round_trip(tmp_path):
    X, y = _table()
    w = np.linspace(0.5, 2.0, len(y))
    before = w.copy()
    est = BendOCTClassifier(depth=2, class_weight={"yes": 2.0}).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(w, before)
    save_model(est, tmp_path / "m.json")
    again = load_model(tmp_path / "m.json")
    np.testing.assert_allclose(again.tree.counts, est.tree_.counts)
    np.testing.assert_array_equal(again.predict(X), est.predict(X))


# ---------------------------------------------------------------------------- RUG
def _rug_table(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n).round(2), "b": rng.integers(0, 5, n),
                      "c": rng.choice(["x", "y", "z"], n)})
    y = np.where((X.a > 0.2) | (X.c == "x"), "yes", "no")
    y = np.where(rng.random(n) < 0.2, np.where(y == "yes", "no", "yes"), y)
    return X, y


@pytest.mark.parametrize("fairness", [None, "odm"])
def test_rug_integer_weights_equal_duplicated_rows(fairness):
    """With exact pricing column generation converges to the master LP's optimum over every
    rule, which duplicated rows and integer weights share (tree pricing is a heuristic whose
    float ties may break differently)."""
    X, y = _rug_table()
    w = np.random.default_rng(1).integers(1, 4, len(y))
    groups = (X.b >= 2).to_numpy()
    kw = dict(max_depth=2, random_state=0, fairness=fairness, epsilon=0.05,
              pricing="enumerate", n_thresholds=4, max_rmp_calls=200)
    fit_groups = None if fairness is None else groups
    weighted = RUGClassifier(**kw).fit(X, y, groups=fit_groups, sample_weight=w)
    rep_groups = None if fairness is None else np.repeat(groups, w)
    repeated = RUGClassifier(**kw).fit(X.loc[X.index.repeat(w)], np.repeat(y, w),
                                       groups=rep_groups)
    assert weighted.status_ == repeated.status_ == "converged"
    assert weighted.objective_ == pytest.approx(repeated.objective_, rel=1e-7)


def test_rug_zero_weight_rows_are_left_out():
    X, y = _rug_table()
    w = np.ones(len(y))
    w[:10] = 0
    weighted = RUGClassifier(max_depth=2, random_state=0).fit(X, y, sample_weight=w)
    kept = RUGClassifier(max_depth=2, random_state=0).fit(X[10:], y[10:])
    assert weighted.objective_ == pytest.approx(kept.objective_)
    assert np.isnan(weighted.v_[:10]).all() and not np.isnan(weighted.v_[10:]).any()
    by_class = RUGClassifier(max_depth=2, random_state=0, class_weight={"yes": 2.0}).fit(X, y)
    by_rows = RUGClassifier(max_depth=2, random_state=0).fit(
        X, y, sample_weight=np.where(y == "yes", 2.0, 1.0))
    assert by_class.objective_ == pytest.approx(by_rows.objective_)


def _cgh():
    # every split at every node: no random sampling, so weighted and repeated rows see the
    # same candidate splits
    return CGHClassifier(depth=2, splits="all", time_limit=60, random_state=0)


def test_cgh_integer_weights_equal_duplicated_rows():
    X, y = _table()
    w = np.random.default_rng(1).integers(1, 4, len(y))
    weighted = _cgh().fit(X, y, sample_weight=w)
    repeated = _cgh().fit(X.loc[X.index.repeat(w)], np.repeat(y, w))
    assert weighted.status_ == repeated.status_ in ("converged", "optimal")
    assert weighted.objective_ == pytest.approx(repeated.objective_, abs=1e-9)
    assert weighted.lp_bound_ == pytest.approx(repeated.lp_bound_, abs=1e-6)
    np.testing.assert_allclose(weighted.tree_.counts[0], repeated.tree_.counts[0])
    correct = weighted.predict(X) == y
    assert weighted.objective_ == pytest.approx(float(w[correct].sum()))


def test_cgh_zero_weight_and_class_weight():
    X, y = _table()
    w = np.ones(len(y))
    w[[2, 5, 11, 17]] = 0
    weighted = _cgh().fit(X, y, sample_weight=w)
    kept = _cgh().fit(X[w > 0], y[w > 0])
    assert weighted.objective_ == pytest.approx(kept.objective_, abs=1e-9)
    by_dict = _cgh().set_params(class_weight={"yes": 3.0}).fit(X, y)
    by_rows = _cgh().fit(X, y, sample_weight=np.where(y == "yes", 3.0, 1.0))
    assert by_dict.objective_ == pytest.approx(by_rows.objective_)


OMT_FITS = {
    "misclassification": lambda: OMTClassifier(depth=2, time_limit=30, random_state=0),
    "weighted": lambda: OMTClassifier(depth=2, loss="weighted", time_limit=30, random_state=0),
    "f1": lambda: OMTClassifier(depth=2, loss="f1", time_limit=30, random_state=0),
    "squared": lambda: OMTRegressor(depth=2, time_limit=30, random_state=0),
    "absolute": lambda: OMTRegressor(depth=2, loss="absolute", time_limit=30, random_state=0),
}


def _omt_data(loss, n=60):
    rng = np.random.default_rng(4)
    X = pd.DataFrame({"a": rng.normal(size=n).round(2), "b": rng.integers(0, 5, n),
                      "c": rng.choice(list("xyz"), n)})
    if loss in ("squared", "absolute"):
        return X, (2 * X.a + rng.normal(size=n)).to_numpy()
    return X, np.where((X.a > 0.2) ^ (rng.random(n) < 0.2), "yes", "no")


@pytest.mark.parametrize("loss", list(OMT_FITS))
def test_omt_integer_weights_equal_duplicated_rows(loss):
    """Bins, supports (min_support is a share of the weight), losses and leaf counts."""
    X, y = _omt_data(loss)
    w = np.random.default_rng(1).integers(1, 4, len(y))
    weighted = OMT_FITS[loss]().fit(X, y, sample_weight=w)
    repeated = OMT_FITS[loss]().fit(X.loc[X.index.repeat(w)], np.repeat(y, w))
    assert weighted.objective_ == pytest.approx(repeated.objective_, abs=1e-9)
    if loss in ("squared", "absolute"):  # weighted means: equal up to float rounding
        np.testing.assert_allclose(weighted.predict(X), repeated.predict(X), rtol=1e-12)
    else:
        np.testing.assert_array_equal(weighted.predict(X), repeated.predict(X))
    assert [r["n_samples"] for r in weighted.paths_] == [r["n_samples"] for r in repeated.paths_]
    np.testing.assert_allclose(weighted.tree_.counts[0], repeated.tree_.counts[0])


@pytest.mark.parametrize("loss", ["misclassification", "squared"])
def test_omt_zero_weight_equals_removed_row(loss):
    X, y = _omt_data(loss)
    w = np.ones(len(y))
    w[[2, 5, 11, 17]] = 0
    weighted = OMT_FITS[loss]().fit(X, y, sample_weight=w)
    kept = OMT_FITS[loss]().fit(X[w > 0], y[w > 0])
    assert weighted.objective_ == pytest.approx(kept.objective_, abs=1e-9)
    np.testing.assert_array_equal(weighted.predict(X), kept.predict(X))


def test_omt_min_support_is_a_share_of_the_weight():
    X, y = _omt_data("misclassification")
    w = np.where(X.a > 0, 5.0, 0.5)
    est = OMTClassifier(depth=2, min_support=0.2, time_limit=30).fit(X, y, sample_weight=w)
    assert min(r["n_samples"] for r in est.paths_) >= 0.2 * w.sum() - 1e-9
    with pytest.raises(OptreesInputError, match="weigh"):
        OMTClassifier(depth=2, min_support=1000).fit(X, y, sample_weight=w)
