"""The one place that says which engine takes a tree problem (optrees.trees.solve.engines):
each refusal has its reason, and a fit's choice follows it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from optrees import BendOCTClassifier, Binarizer, OCTClassifier
from optrees._validation import OptreesInputError
from optrees.trees.solve.engines import Request, every_threshold_off, numeric_search_off

BASE = dict(depth=2, searches=True, auto_binarizer=True, numeric=True)


@pytest.mark.parametrize("change, reason", [
    ({}, None),
    ({"searches": False}, "no search"),
    ({"auto_binarizer": False}, "binarizer"),
    ({"numeric": False}, "no numeric column"),
    ({"depth": 6}, "depth > 5"),
    ({"depth": 5, "max_leaves": 12}, "max_leaves at depth > 4"),
    ({"depth": 4, "max_leaves": 12}, None),
    ({"feature_costs": True}, "feature costs"),
    ({"fairness": True}, "fairness"),
])
def test_numeric_search_says_why_not(change, reason):
    off = numeric_search_off(Request(**{**BASE, **change}))
    assert (off is None) if reason is None else (reason in off)
    # fairness keeps the numeric search off but not every threshold (the front search's)
    assert (every_threshold_off(Request(**{**BASE, **change})) is None) == (
        reason in (None, "fairness"))


@pytest.mark.parametrize("change, name", [
    ({"costs": True, "fairness": True}, "fairness"),
    ({"feature_costs": True, "fairness": True}, "fairness"),
    ({"feature_costs": True, "max_leaves": 3}, "max_leaves"),
])
def test_combinations_no_engine_solves_are_refused(change, name):
    with pytest.raises(OptreesInputError, match=name):
        Request(**{**BASE, **change}).check()


def test_a_fit_follows_the_engines_choice():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=60), "b": rng.normal(size=60)})
    y = (X["a"] + 0.3 * X["b"] > 0).astype(int)
    assert BendOCTClassifier(depth=2, time_limit=20).fit(X, y).thresholds_ == "all"
    assert BendOCTClassifier(depth=2, binarizer=Binarizer(n_bins=3),
                             time_limit=20).fit(X, y).thresholds_ != "all"
    assert OCTClassifier(depth=2, time_limit=20).fit(X, y).thresholds_ != "all"
