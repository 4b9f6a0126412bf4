"""RUG defects of issue #20: rule numbers of ``explain`` and ``export_text`` agree, and a
``sensitive`` column without ``fairness`` is no longer silently ignored."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from optrees import OptreesInputError, RUGClassifier, load_dataset

_LINE = re.compile(r"^rule (\d+): IF (.*) THEN class = (.*)  \(weight ([0-9.]+), length \d+\)$")


def _printed_rules(text: str) -> dict[int, tuple[str, str]]:
    """Rule number -> (condition, class) as export_text prints them."""
    rules = {}
    for line in text.splitlines():
        m = _LINE.match(line)
        if m:
            rules[int(m.group(1))] = (m.group(2), m.group(3))
    return rules


@pytest.fixture(scope="module")
def car():
    X, y = load_dataset("car-evaluation")
    return X, y, RUGClassifier(max_depth=3, random_state=0).fit(X, y)


def test_explain_points_at_the_rule_export_text_prints_under_that_number(car):
    X, _, est = car
    printed = _printed_rules(est.export_text())
    assert len(printed) == len(est.rules_) > 1
    entries = [f for fired in est.explain(X) for f in fired]
    assert entries
    wrong = [f for f in entries
             if printed.get(f["rule"]) != (f["condition"], str(f["class"]))]
    assert not wrong, f"{len(wrong)} of {len(entries)} explain entries name another rule"


def test_fitted_rules_are_numbered_heaviest_first(car):
    _, _, est = car
    weights = [r.weight for r in est.rules_.rules]
    assert weights == sorted(weights, reverse=True)
    assert list(_printed_rules(est.export_text())) == list(range(len(weights)))


def _grouped(n: int = 300):
    """A table whose label follows the sensitive column 'group' exactly."""
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"group": rng.choice(["a", "b"], n), "x": rng.normal(size=n)})
    y = np.where(X["group"] == "a", "yes", "no")
    y[:20] = np.where(y[:20] == "yes", "no", "yes")
    return X, y


def test_sensitive_without_fairness_warns():
    X, y = _grouped()
    with pytest.warns(UserWarning, match=r"sensitive='group' has no effect without fairness"):
        est = RUGClassifier(max_depth=2, random_state=0, sensitive="group").fit(X, y)
    assert est.fairness_groups_ is None


def test_sensitive_without_fairness_names_an_existing_column():
    X, y = _grouped()
    with pytest.raises(OptreesInputError, match="sensitive column 'grp' is not a column of X"):
        RUGClassifier(max_depth=2, sensitive="grp").fit(X, y)


def test_drop_sensitive_without_fairness_keeps_the_column_out_of_the_rules():
    X, y = _grouped()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # dropping the column is an effect: no warning
        est = RUGClassifier(max_depth=2, random_state=0, sensitive="group",
                            drop_sensitive=True, threshold=0.0).fit(X, y)
    used = {lit.feature for r in est.all_rules_.rules for lit in r.literals}
    assert used == {"x"}
    assert len(est.predict(X)) == len(X)


def test_fairness_with_an_integer_column_label():
    X, y = _grouped()
    X = X.set_axis([0, 1], axis=1)
    est = RUGClassifier(max_depth=2, random_state=0, fairness="odm", sensitive=0,
                        epsilon=0.05).fit(X, y)
    assert len(np.unique(est.fairness_groups_)) == 2  # the groups of column 0
