"""``compare``'s note on what a gap is certified over comes from the fitted model itself
(``gap_scope_``), not from guessing its kind by its attributes (issue #42)."""

from __future__ import annotations

import math
from types import SimpleNamespace

from sklearn.datasets import load_iris
from sklearn.tree import DecisionTreeClassifier

from optrees import Binarizer, OMTClassifier, RUXClassifier
from optrees.comparison import gap_scope
from optrees.estimators.trees import BendOCTClassifier


def _iris():
    X, y = load_iris(return_X_y=True, as_frame=True)
    return X, y.to_numpy()


def test_each_method_states_its_gap_scope() -> None:
    X, y = _iris()
    rux = RUXClassifier(n_estimators=5, random_state=0).fit(X, y)
    assert gap_scope(rux, 0.1) == rux.gap_scope_ == "gap of the rule LP over its candidate rules"
    omt = OMTClassifier(depth=2, time_limit=30, random_state=0).fit(X, y)
    assert gap_scope(omt, 0.1) == "gap over every rule set on its bins"
    binarized = BendOCTClassifier(depth=1, binarizer=Binarizer(), time_limit=30).fit(X, y)
    assert binarized.thresholds_ == "binarized"
    assert gap_scope(binarized, 0.0) == "gap over the binarizer's thresholds"
    every = BendOCTClassifier(depth=1, time_limit=30).fit(X, y)
    assert every.thresholds_ == "all" and gap_scope(every, 0.0) == ""
    assert gap_scope(DecisionTreeClassifier(max_depth=1).fit(X, y), 0.0) == ""
    assert gap_scope(rux, math.inf) == "" and gap_scope(rux, math.nan) == ""


def test_attributes_alone_do_not_decide_the_scope() -> None:
    """A model with a rule pool or an LP bound and paths but no stated scope has none; a
    stated scope is taken as it is."""
    assert gap_scope(SimpleNamespace(all_rules_=[], gap_=0.1), 0.1) == ""
    assert gap_scope(SimpleNamespace(lp_bound_=1.0, paths_=[]), 0.1) == ""
    stated = SimpleNamespace(all_rules_=[], gap_scope_="gap over its three candidate trees")
    assert gap_scope(stated, 0.1) == "gap over its three candidate trees"
