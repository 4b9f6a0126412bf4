"""RUG's rules do not depend on a column's units: the trees that price rules split on value
order only, and the random order in which a partly met cell's rows take its dual (the
paper's ``fill_betas``) must not either.  It came from a projection of the raw values, so
the same data in millimetres gave another rule set (60 rows: objective 16 against 17)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine

from optrees import RUGClassifier


def _wine():
    X, y = load_wine(return_X_y=True, as_frame=True)
    return X.iloc[::2].reset_index(drop=True), y.iloc[::2].to_numpy()


@pytest.mark.parametrize("transform", [lambda c: c * 1024.0, lambda c: c / 1e6,
                                       lambda c: np.exp(c / c.std())])
def test_rescaling_a_column_changes_no_rule(transform):
    X, y = _wine()
    moved = X.copy()
    moved["proline"] = transform(X["proline"])  # an increasing map: the same value order
    moved["alcohol"] = transform(X["alcohol"])
    a = RUGClassifier(max_depth=2, max_rmp_calls=8, random_state=3).fit(X, y)
    b = RUGClassifier(max_depth=2, max_rmp_calls=8, random_state=3).fit(moved, y)
    assert a.objective_ == pytest.approx(b.objective_, rel=1e-9)
    np.testing.assert_array_equal(a.predict(X), b.predict(moved))
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(moved), atol=1e-9)
    assert len(a.rules_) == len(b.rules_)


def test_small_numeric_table_of_the_report():
    rng = np.random.default_rng(0)
    a = rng.normal(size=60).round(2)
    b = rng.integers(0, 4, 60)
    y = np.where(a + rng.normal(size=60) * 0.5 > 0, 1, 0)
    objectives = {RUGClassifier(max_depth=2, random_state=0).fit(
        pd.DataFrame({"a": a * s, "b": b}), y).objective_ for s in (1, 2, 8, 64, 1024)}
    assert len(objectives) == 1


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("scale", [1e-8, 2.0**-30, 3e9])
def test_pricing_trees_split_rows_alike_in_any_units(monkeypatch, backend, scale):
    """Both pricing trees (scikit-learn's, which reads float32 and never splits values
    closer than 1e-7, and the compiled one) cover the same rows by each leaf rule whatever
    a column's scale; before, scikit-learn's could not split a column in tiny units, or one
    of large values a few units apart (float32 keeps 24 bits)."""
    from optrees import compiled
    from optrees.encoding.columns import RawColumns
    from optrees.rug.pricing import TreePricer

    monkeypatch.setattr(compiled, "backend_for", lambda *args, **kwargs: backend)
    rng = np.random.default_rng(7)
    x = rng.integers(0, 40, 200).astype(float)
    other = rng.integers(0, 3, 200).astype(float)
    y = ((x > 17) ^ (other == 1) ^ (rng.random(200) < 0.1)).astype(np.int64)
    w = rng.random(200)

    def leaf_rows(column):
        raw = RawColumns(pd.DataFrame({"x": column, "other": other}))
        rules = TreePricer(raw, y, 3, 0)(w)
        return sorted(tuple(np.flatnonzero(np.logical_and.reduce(
            [raw.evaluate(lit) for lit in rule] + [np.ones(200, bool)]))) for rule in rules)

    shifted = 1.6e9 + x if scale == 3e9 else x * scale  # seconds since 1970, or tiny units
    assert leaf_rows(shifted) == leaf_rows(x)


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_weight_zero_and_integer_weights_match_removed_and_repeated_rows(monkeypatch, backend):
    """scikit-learn's check, with each pricing tree: the suite runs it with whichever tree
    the process has loaded.  The compiled tree chose between two splits of the same rows by
    rounding (a row of weight 3 against three copies sum in other orders): CI failed on it."""
    from sklearn.utils.estimator_checks import check_sample_weight_equivalence_on_dense_data

    from optrees import compiled

    if backend == "numba":
        pytest.importorskip("numba")
    monkeypatch.setattr(compiled, "backend_for", lambda *args, **kwargs: backend)
    check_sample_weight_equivalence_on_dense_data(
        "RUGClassifier", RUGClassifier(max_depth=2, max_rmp_calls=5, time_limit=30))


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_rows_of_weight_zero_place_no_threshold(monkeypatch, backend):
    """A row of weight 0 changes no rule (the fit leaves it out): thresholds lie halfway
    between values of rows of positive weight, as when the row is removed, so new data
    between them is classed alike."""
    from optrees import compiled

    if backend == "numba":
        pytest.importorskip("numba")
    monkeypatch.setattr(compiled, "backend_for", lambda *args, **kwargs: backend)
    x = np.arange(0.0, 40.0, 2.0)                       # kept rows: 0, 2, ..., 38
    y = (x >= 20).astype(int) ^ ((x // 2) % 7 == 0)
    X = pd.DataFrame({"x": np.r_[x, x + 1.0]})         # zero-weight rows at 1, 3, ..., 39
    Y = np.r_[y, 1 - y]
    w = np.r_[np.ones(len(x)), np.zeros(len(x))]
    kept = RUGClassifier(max_depth=2, max_rmp_calls=5, random_state=1).fit(
        pd.DataFrame({"x": x}), y)
    zero = RUGClassifier(max_depth=2, max_rmp_calls=5, random_state=1).fit(X, Y,
                                                                           sample_weight=w)
    grid = pd.DataFrame({"x": np.linspace(-1.0, 41.0, 421)})
    np.testing.assert_array_equal(kept.predict(grid), zero.predict(grid))
    np.testing.assert_allclose(kept.predict_proba(grid), zero.predict_proba(grid), atol=1e-9)
