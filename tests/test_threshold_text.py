"""Printed thresholds are the model's thresholds: the text of a tree over every threshold,
of a binarizer's literal and of an OMT cut reads back as the number the model compares with
(six digits printed 1234567.5 as 1.23457e+06, sending rows the other way than the tree), and
midpoints of short decimals print short."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris

from optrees import BendOCTClassifier, Binarizer, OMTClassifier, RUGClassifier, RUXClassifier
from optrees._numbers import clean_midpoints, short_threshold, threshold_text


def printed_tests(text: str) -> list[tuple[str, float]]:
    """(column, number) of every ``column <= number`` line of an export_text."""
    return [(m.group(1), float(m.group(2)))
            for m in re.finditer(r"--- (\w+) <= (\S+)$", text, flags=re.MULTILINE)]


@pytest.mark.parametrize("seed", range(4))
def test_a_trees_printed_thresholds_are_its_thresholds(seed):
    rng = np.random.default_rng(seed)
    n = 40
    X = pd.DataFrame({"big": 1234560.0 + rng.integers(0, 12, n),
                      "fine": -122.258 + rng.integers(0, 9, n) * 0.0005,
                      "short": rng.integers(0, 50, n) / 10.0})
    y = ((X.big > 1234566) ^ (X.fine > -122.2555) ^ (rng.random(n) < 0.1)).astype(int)
    clf = BendOCTClassifier(depth=2, lam=0.0, time_limit=60).fit(X, y)
    tree = clf.tree_
    splits = [(tree.feature_names[f], t) for f, t in zip(tree.feature, tree.threshold,
                                                         strict=True)
              if f >= 0 and not tree.boolean_test(list(tree.feature).index(f))]
    got = printed_tests(clf.export_text())
    assert got and sorted(got) == sorted(splits)  # the same numbers, exactly
    for name, t in got:
        if name == "short":  # midpoints of one-decimal values print with two decimals
            assert len(threshold_text(t).split(".")[-1]) <= 2


def test_binarizer_and_omt_names_read_back_as_their_cuts():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.normal(size=300) * 1000 + 1234567.0})
    y = (X.x > 1234600).astype(int)
    b = Binarizer(n_bins=7).fit(X)
    for name, t in zip(b.get_feature_names_out(), b.thresholds_["x"], strict=True):
        assert float(name.split(">= ")[1]) == t
    omt = OMTClassifier(depth=1, time_limit=60, random_state=0).fit(X, y)
    for cut in omt.graph_.levels[0].cuts:
        assert float(threshold_text(cut)) == cut


def test_clean_midpoints_stay_in_their_gap():
    rng = np.random.default_rng(3)
    lo = rng.normal(size=2000) * 10.0 ** rng.integers(-8, 9, 2000)
    gap = np.abs(rng.normal(size=2000)) * 10.0 ** rng.integers(-12, 3, 2000) * np.abs(lo)
    hi = lo + gap
    hi[:5] = np.nextafter(lo[:5], np.inf)  # adjacent floats: the threshold is lo
    keep = lo < hi
    lo, hi = lo[keep], hi[keep]
    t = clean_midpoints(lo, hi)
    assert np.all((lo <= t) & (t < hi))
    np.testing.assert_array_equal(t[:5], lo[:5])
    assert threshold_text(clean_midpoints(1.6, 1.7)) == "1.65"
    assert threshold_text(clean_midpoints(-29.7, -29.4)) == "-29.55"


def test_short_threshold_keeps_each_sides_values():
    rng = np.random.default_rng(5)
    for _ in range(300):
        values = np.sort(np.round(rng.normal(size=30) * 10.0 ** rng.integers(-3, 7), 3))
        t = float(np.float32(rng.choice(values) + rng.random() * 1e-3))  # float32 noise
        for strict in (False, True):
            c = short_threshold(t, values, strict)
            if strict:
                np.testing.assert_array_equal(values < c, values < t)
            else:
                np.testing.assert_array_equal(values <= c, values <= t)
    assert short_threshold(float(np.float32(4.9)), np.array([4.8, 4.9, 5.0])) == 4.9


@pytest.mark.parametrize("cls", [RUGClassifier, RUXClassifier])
def test_rule_texts_read_back_as_the_rules_numbers(cls):
    """A rule's printed number is the number its literal compares with (scikit-learn's
    float32 thresholds printed as 4.9 were 4.900000095367432), and written short."""
    X, y = load_iris(return_X_y=True, as_frame=True)
    X.columns = ["sl", "sw", "pl", "pw"]
    model = cls(random_state=0).fit(X, y)
    values = [lit.value for rule in model.rules_.rules for lit in rule.literals]
    printed = [float(v) for v in re.findall(r"[<>]=? (-?[\d.]+(?:e-?\d+)?)", model.export_text())]
    assert printed and set(printed) == set(values)
    # iris has one decimal: 4.9, or 1.89999 where the value 1.9 lies just above the cut
    assert all(len(threshold_text(v)) <= 7 for v in values)
