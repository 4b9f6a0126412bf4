"""Rule-set estimators after the classification audit: ``fit(X, y, w)`` takes sample weights
(as scikit-learn and the tree estimators do), FairRUG stopped by its time limit in the repair
keeps a rule set that meets the DMC cap and says ``time_limit``, and an array passed as
``sensitive=`` gives a short error."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
import pytest
from oracles import three_group_classes

from optrees import (
    BendOCTClassifier,
    OptreesInputError,
    RUGClassifier,
    RUXClassifier,
    TimeLimitWarning,
)
from optrees.fairness import FairnessWarning
from optrees.rug import solve as rug_solve


def _dmc_gap(y: np.ndarray, pred: np.ndarray, groups: np.ndarray) -> float:
    """DMC by its definition: per class, the largest difference between groups in the share
    of that class's rows predicted wrong; the largest over the classes."""
    gaps = []
    for k in np.unique(y):
        rates = [np.mean(pred[(y == k) & (groups == g)] != k) for g in np.unique(groups)
                 if ((y == k) & (groups == g)).any()]
        gaps.append(max(rates) - min(rates))
    return max(gaps)


def _weighted_rows() -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """A small two-class table and weights that change the rule set (class 0 weighs 6)."""
    rng = np.random.default_rng(3)
    n = 120
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    y = (X.a + 0.8 * rng.normal(size=n) > 0.3).astype(int).to_numpy()
    return X, y, np.where(y == 0, 6.0, 1.0)


@pytest.mark.parametrize("cls", [RUGClassifier, RUXClassifier])
def test_third_positional_argument_of_fit_is_sample_weight(cls):
    """fit(X, y, w) is fit(X, y, sample_weight=w): same rules, same slacks; the weights
    are not taken for sensitive groups (a fair fit without them is refused)."""
    X, y, w = _weighted_rows()
    params = dict(max_depth=2, random_state=0, time_limit=60)
    positional = cls(**params).fit(X, y, w)
    keyword = cls(**params).fit(X, y, sample_weight=w)
    plain = cls(**params).fit(X, y)
    assert positional.export_text() == keyword.export_text()
    np.testing.assert_array_equal(positional.v_, keyword.v_)
    assert positional.objective_ == pytest.approx(keyword.objective_)
    assert positional.objective_ != pytest.approx(plain.objective_)  # the weights count
    with pytest.raises(OptreesInputError, match="sensitive attribute"):
        cls(fairness="odm", epsilon=0.05, **params).fit(X, y, w)  # w is no group vector


@pytest.mark.parametrize("cls", [RUGClassifier, RUXClassifier, BendOCTClassifier])
def test_fit_signature_matches_the_trees(cls):
    """sample_weight third and groups fourth, as BendOCTClassifier.fit takes them."""
    import inspect

    names = list(inspect.signature(cls.fit).parameters)
    assert names[:5] == ["self", "X", "y", "sample_weight", "groups"]


def _expire_before_repair(monkeypatch) -> None:
    """Make the fit's deadline run out as the repair starts (a time limit that the rule
    generation used up), without depending on how fast the machine is."""
    real = rug_solve.repair_fairness

    def late(gen, res, realised, epsilon, deadline, *args, **kwargs):
        deadline.at = min(deadline.at, time.perf_counter())
        return real(gen, res, realised, epsilon, deadline, *args, **kwargs)

    monkeypatch.setattr(rug_solve, "repair_fairness", late)


def test_repair_stopped_by_the_time_limit_keeps_a_rule_set_within_the_dmc_cap(monkeypatch):
    """The deadline passes before the repair tries anything: the fit's rule set breaks the
    cap, so the rule set without rules (gap 0) is kept; the status is 'time_limit' and the
    warning and stats_ say what was kept."""
    X, y, g = three_group_classes(3)
    eps = 0.05
    common = dict(max_depth=2, random_state=0, sensitive="grp", fairness="dmc", epsilon=eps)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FairnessWarning)
        raw = RUGClassifier(fairness_repair=False, **common).fit(X, y)
    assert _dmc_gap(y, raw.predict(X), g) > eps  # the repair has work to do
    _expire_before_repair(monkeypatch)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = RUGClassifier(time_limit=60, **common).fit(X, y)
    assert _dmc_gap(y, m.predict(X), g) <= eps
    assert m.status_ == "time_limit" and m.fairness_["met"]
    repair = m.stats_["fairness_repair"]
    assert repair["stopped"] and repair["met"] and repair["chosen"].startswith("no rules")
    assert [c.category for c in caught] == [TimeLimitWarning]
    assert "stopped the fairness repair" in str(caught[0].message)
    assert "without rules" in str(caught[0].message)


def test_plain_rug_stopped_by_the_time_limit_says_time_limit(monkeypatch):
    """Without fairness the same rule: a deadline that ends the rule generation gives
    'time_limit' (one master LP solved, then the clock is out)."""
    from optrees.rug.generation import RuleGeneration

    X, y, _ = three_group_classes(3)
    real = RuleGeneration.build_master
    calls = []

    def once(self):
        calls.append(1)
        if len(calls) > 1:
            self.deadline.at = min(self.deadline.at, time.perf_counter())
        return real(self)

    monkeypatch.setattr(RuleGeneration, "build_master", once)
    with pytest.warns(TimeLimitWarning, match="'time_limit'"):
        m = RUGClassifier(max_depth=2, random_state=0, time_limit=60).fit(X, y)
    assert m.status_ == "time_limit"


@pytest.mark.parametrize("cls,params", [
    (RUGClassifier, dict(fairness="dmc")),
    (RUXClassifier, dict(fairness="dmc")),
    (BendOCTClassifier, dict(depth=1, fairness="statistical_parity")),
])
@pytest.mark.parametrize("as_series", [False, True])
def test_an_array_as_sensitive_gives_a_short_error_pointing_to_groups(cls, params, as_series):
    """sensitive= takes a column name: an array is refused in a line that names groups=
    in fit and does not print the array."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=60), "s": rng.choice(["d", "e"], 60)})
    y = (X.a > 0).astype(int)
    sensitive = X.s if as_series else X.s.to_numpy()
    with pytest.raises(OptreesInputError) as info:
        cls(sensitive=sensitive, **params).fit(X, y)
    text = str(info.value)
    assert len(text) < 150 and "'d'" not in text
    assert "column name" in text and "groups=" in text


def test_no_master_lp_in_time_still_keeps_a_rule_set_within_the_dmc_cap(monkeypatch):
    """No master LP solved before the deadline (what the rule generation then returns: its
    rules, weight 1 each, objective nan): they break the cap here, so the rule set without
    rules is kept (there was no repair at all before)."""
    import dataclasses

    from optrees.rug.generation import RuleGeneration

    X, y, g = three_group_classes(1)
    eps = 0.05
    real = RuleGeneration.run

    def unsolved(self):
        res = real(self)
        self.deadline.at = min(self.deadline.at, time.perf_counter())
        return dataclasses.replace(res, objective=float("nan"),
                                   rules=[dataclasses.replace(r, weight=1.0)
                                          for r in res.rules])

    monkeypatch.setattr(RuleGeneration, "run", unsolved)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = RUGClassifier(max_depth=2, random_state=0, sensitive="grp", fairness="dmc",
                          epsilon=eps, time_limit=60).fit(X, y)
    assert m.status_ == "time_limit"
    repair = m.stats_["fairness_repair"]
    assert repair["stopped"] and repair["met"] and repair["realised_before"] > eps
    assert _dmc_gap(y, m.predict(X), g) <= eps
