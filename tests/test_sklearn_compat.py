"""scikit-learn compliance: the full ``check_estimator`` suite for every estimator of the shared
matrix, plus Pipeline, GridSearchCV, clone and pickling with string labels and categorical
columns.  Expected failures are listed per estimator in ``estimator_matrix.Spec`` with a
reason; the one regressor (OMTRegressor) runs the regressor checks with only the sparse
sample-weight check expected to fail (scikit-learn 1.6 runs it on estimators that refuse
sparse X)."""

import pickle

import numpy as np
import pandas as pd
import pytest
from estimator_matrix import _SPARSE_WEIGHTS, SPEC_IDS, SPECS, integer_table
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils.estimator_checks import parametrize_with_checks

from optrees import FlowOCTClassifier, OCTClassifier, OMTClassifier, OMTRegressor

# the fast instances stop at 0.3 s time limits on purpose
pytestmark = pytest.mark.filterwarnings("ignore::optrees.TimeLimitWarning")
_BY_NAME = {s.id: s for s in SPECS}


def _expected_failed(estimator):
    return _BY_NAME[type(estimator).__name__].expected_failed_checks


@pytest.mark.slow
@parametrize_with_checks([s.make() for s in SPECS], expected_failed_checks=_expected_failed)
def test_check_estimator(estimator, check):
    check(estimator)


# leaf_penalty=0: the regressor's default "auto" fits six trees per fit and would double the
# checks' time; the check that "auto" could break (its held-out rows under weights) runs on
# its own below
@pytest.mark.slow
@parametrize_with_checks([OMTRegressor(depth=2, k_best=50, leaf_penalty=0, time_limit=5)],
                         expected_failed_checks=lambda _: _SPARSE_WEIGHTS)
def test_check_estimator_regressor(estimator, check):
    check(estimator)


@pytest.mark.parametrize("check", ["check_class_weight_classifiers",
                                   "check_sample_weight_equivalence_on_dense_data"])
def test_classifier_auto_penalty_passes_the_checks_it_could_break(check):
    """The estimator matrix runs OMT's defaults (one fit with a fixed penalty);
    leaf_penalty="auto" chooses on held-out rows, which must not break the class-weight
    check, and keeps integer weights equal to repeated rows."""
    from sklearn.utils import estimator_checks

    getattr(estimator_checks, check)(
        "OMTClassifier", OMTClassifier(depth=2, k_best=50, leaf_penalty="auto", time_limit=5))


@pytest.mark.parametrize("cls", [FlowOCTClassifier, OCTClassifier])
def test_tree_mips_with_a_split_penalty_pass_the_class_weight_check(cls):
    """The class-weight check fails the depth-1 MIPs only through their zero default penalty
    (estimator_matrix._EXACT_WEIGHTS): with lam = 0.001 the same fit passes it."""
    from sklearn.utils.estimator_checks import check_class_weight_classifiers

    check_class_weight_classifiers(cls.__name__, cls(depth=1, time_limit=30, lam=0.001))


def test_regressor_auto_penalty_passes_the_sample_weight_check():
    """Integer weights choose the same penalty and tree as repeated rows (a center or scale
    computed from the weighted rows in another order once broke it)."""
    from sklearn.utils.estimator_checks import check_sample_weight_equivalence_on_dense_data

    check_sample_weight_equivalence_on_dense_data(
        "OMTRegressor", OMTRegressor(depth=2, k_best=50, time_limit=5))


def _mixed_table(n=60, seed=0):
    """Numeric + string categorical columns, string labels (what a newcomer's CSV holds)."""
    rng = np.random.default_rng(seed)
    color = rng.choice(["red", "green", "blue"], n)
    age = rng.integers(18, 70, n)
    label = np.where((color == "red") | (age > 50), "yes", "no")
    return pd.DataFrame({"color": color, "age": age}), pd.Series(label, name="label")


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_string_labels_categorical_columns_pipeline_gridsearch_pickle(spec):
    X, y = _mixed_table()
    if spec.integer_features:
        X = integer_table(X)  # colors as 0, 1, 2
    est = spec.make(random_state=0, **{spec.depth: 2})  # one split per column: depth 2
    pipe = Pipeline([("id", FunctionTransformer(validate=False)), ("model", est)])
    pipe.fit(X, y)
    model = pipe[-1]
    assert list(model.classes_) == ["no", "yes"]
    assert list(model.feature_names_in_) == ["color", "age"]
    assert model.n_features_in_ == 2
    pred = pipe.predict(X)
    assert set(pred) <= {"no", "yes"}
    assert (pred == y.to_numpy()).mean() >= 0.9  # one split on color + one on age suffice
    # pickling keeps predictions; clone keeps parameters but no fitted state
    again = pickle.loads(pickle.dumps(pipe))
    np.testing.assert_array_equal(again.predict(X), pred)
    fresh = clone(model)
    assert fresh.get_params() == model.get_params()
    assert not hasattr(fresh, "classes_")
    # grid search over the depth-like parameter, 2-fold
    grid = GridSearchCV(spec.make(random_state=0), {spec.depth: [1, 2]}, cv=2)
    grid.fit(X, y)
    assert grid.best_params_[spec.depth] in (1, 2)
    assert grid.best_score_ > 0.75
    assert set(grid.predict(X)) <= {"no", "yes"}


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_integer_labels_and_feature_names(spec):
    X, y = _mixed_table()
    if spec.integer_features:
        X = integer_table(X)
    y_int = np.where(y == "yes", 7, -3)
    model = spec.make(random_state=0).fit(X, y_int)
    assert list(model.classes_) == [-3, 7]
    assert set(model.predict(X)) <= {-3, 7}
    # reordered columns are refused the scikit-learn way (names checked, not silently mixed)
    with pytest.raises(ValueError, match="same order"):
        model.predict(X[["age", "color"]])
