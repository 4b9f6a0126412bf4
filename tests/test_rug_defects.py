"""RUG defects of issue #20: rule numbers of ``explain`` and ``export_text`` agree, and a
``sensitive`` column without ``fairness`` is no longer silently ignored; of issue #22: a
training coverage enters the rule pool once (with one class), and small LPs run without
interrupt callbacks."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from optrees import OptreesInputError, RUGClassifier, load_dataset
from optrees.encoding.columns import RawColumns
from optrees.models.rule_set import Literal
from optrees.rug.generation import RuleGeneration
from optrees.solvers.highs import LP_WATCH_NONZEROS, HighsModel

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


# ----------------------------------------------------------------- issue #22: multi-class RUG
def test_a_covered_set_enters_the_pool_with_one_class_only():
    """With K = 3 the same rule for classes 0 and 1 at weight 2 each gives every covered
    sample of class 0 or 1 the margin 2 - 2/2 = 1 of (2): zero loss for an exact tie.  When
    the duals later favour the other class, the conjunction must not enter again."""
    X = pd.DataFrame({"a": ["u"] * 6 + ["v"] * 3})
    y = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2])
    gen = RuleGeneration(RawColumns(X), y, 3, pen_par=0.1)
    rule = (Literal("a", "==", "u"),)
    favour_0 = np.where(y == 0, 1.0, 0.1)
    favour_1 = np.where(y == 1, 1.0, 0.1)
    assert gen._add_candidates([rule], favour_0, require_negative=False) == 1
    assert gen._add_candidates([rule], favour_1, require_negative=True) == 0
    # nor as another conjunction with the same training coverage
    same_cover = (Literal("a", "!=", "v"),)
    assert gen._add_candidates([same_cover], favour_1, require_negative=True) == 0
    assert gen._labels == [0]


def test_no_two_pool_rules_cover_the_same_training_rows():
    """car-evaluation (4 classes), seed 4: before the fix two pairs of pool rules had the same
    coverage."""
    X, y = load_dataset("car-evaluation")
    est = RUGClassifier(max_depth=3, pen_par=1 / 3, max_rmp_calls=11, random_state=4).fit(X, y)
    A = est.all_rules_.coverage(X)
    assert len({A[:, j].tobytes() for j in range(A.shape[1])}) == A.shape[1]


def _lp(n_rows: int, n_cols: int) -> HighsModel:
    rng = np.random.default_rng(0)
    m = HighsModel()
    rows = m.add_rows([-np.inf] * n_rows, [1.0] * n_rows)
    m.add_columns(list(-rng.random(n_cols)), [0.0] * n_cols, [1.0] * n_cols,
                  [list(rows)] * n_cols, [list(rng.random(n_rows)) for _ in range(n_cols)])
    return m


def test_small_lps_run_without_interrupt_callbacks():
    """HiGHS calls the interior-point interrupt callback at every inner iteration (a third of
    a RUG fit on glass); LPs below LP_WATCH_NONZEROS nonzeros run without it."""
    small = _lp(10, 10)
    small.use_interior_point(1e-4)
    assert small.solve().status in ("optimal", "unknown")
    assert small.h.cbIpmInterrupt.callbacks == [] and small.h.cbSimplexInterrupt.callbacks == []
    large = _lp(200, LP_WATCH_NONZEROS // 200 + 1)
    assert large.solve().status == "optimal"
    assert large.h.cbIpmInterrupt.callbacks and large.h.cbSimplexInterrupt.callbacks
