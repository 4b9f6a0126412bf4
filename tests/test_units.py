"""A model does not change with a numeric column's units (issue #42, every claim true).

Each method below splits columns by value order, so the same data in other units (a column
times 2^-30 or 1e-8, or shifted by 1.6e9 as seconds since 1970) must give the same model.
Before, CART's cuts (scikit-learn's trees read float32 and never split values closer than
1e-7), CGH's sampled CART trees and OMT's held-out rows (a hash of the raw values) changed
with the units, and with them the binarized MIPs', OMT's and CGH's trees."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes, load_wine

from optrees import CGHClassifier, OMTClassifier, OMTRegressor
from optrees.encoding.bins import cart_cuts

UNITS = {"tiny": lambda c: c * 1e-8, "power of two": lambda c: c * 2.0**-30,
         "epoch seconds": lambda c: c + 1.6e9}
FITS = {
    "omt": lambda: OMTClassifier(depth=2, time_limit=60, random_state=0),
    "cgh": lambda: CGHClassifier(depth=2, time_limit=60, random_state=0),
    "omt-reg (held-out rows)": lambda: OMTRegressor(depth=2, time_limit=60, random_state=0),
}


def _data(regression):
    if regression:
        X, y = load_diabetes(return_X_y=True, as_frame=True)
        return X.iloc[:150, :5], y[:150]
    X, y = load_wine(return_X_y=True, as_frame=True)
    return X.iloc[::2, :6].reset_index(drop=True), y.iloc[::2].to_numpy()


@pytest.mark.parametrize("units", list(UNITS))
@pytest.mark.parametrize("method", list(FITS))
def test_a_model_does_not_change_with_units(method, units):
    X, y = _data(method.startswith("omt-reg"))
    moved = X.copy()
    for column in X.columns[:3]:
        moved[column] = UNITS[units](X[column])
    assert all(moved[c].nunique() == X[c].nunique() for c in X.columns)  # still distinct
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = FITS[method]().fit(X, y), FITS[method]().fit(moved, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(moved))
    assert b.objective_ == pytest.approx(a.objective_, rel=1e-9)


@pytest.mark.parametrize("units", list(UNITS))
def test_the_binarizers_cart_cuts_split_rows_alike_in_any_units(units):
    """The cuts the binary-tree estimators add to their quantile bins (CART's thresholds,
    so that their 0/1 columns can express CART's tree) cut the rows alike in any units:
    before, the 1e-7 and float32 limits moved or lost them, and the MIPs' trees changed."""
    X, y = _data(False)
    moved = X.copy()
    for column in X.columns[:3]:
        moved[column] = UNITS[units](X[column])
    a, b = cart_cuts(X, y, 3), cart_cuts(moved, y, 3)
    assert set(a) == set(b) and a
    for column, cuts in a.items():
        want = sorted(tuple(X[column] >= t) for t in cuts)
        assert sorted(tuple(moved[column] >= t) for t in b[column]) == want


def test_rows_of_weight_zero_place_no_cart_cut():
    """CART's cuts lie halfway between values of rows of positive weight: a row of weight 0
    whose value lies between them moves no cut, as when it is removed."""
    X, y = _data(False)
    w = np.ones(len(y))
    between = X.copy()
    for column in X.columns:  # a weight-0 copy of each row, just above it in every column
        gaps = np.diff(np.unique(X[column]))
        between[column] = X[column] + 0.25 * gaps.min()
    both = pd.concat([X, between], ignore_index=True)
    cuts = cart_cuts(both, np.r_[y, y[::-1]], 3, weights=np.r_[w, 0 * w])
    want = cart_cuts(X, y, 3, weights=w)
    assert set(cuts) == set(want) and want
    for column in want:
        np.testing.assert_array_equal(np.sort(cuts[column]), np.sort(want[column]))
