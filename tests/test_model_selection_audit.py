"""Defects found by auditing model selection (branch audcv): a huge ``time_limit`` of the
``*CV`` estimators, more folds than rows, a ``compare`` budget used up before any fit, and
``optrees compare --out``'s report outside its budget."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score

import optrees.comparison as comparison
import optrees.comparison_report as comparison_report
from optrees import (
    BendOCTClassifier,
    BendOCTClassifierCV,
    OptimalTreeRegressor,
    OptimalTreeRegressorCV,
    OptreesInputError,
    compare,
)
from optrees.cli import main


def small_data(n: int = 30, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, size=(n, 3)), columns=["a", "b", "c"])
    y = np.where(rng.random(n) < 0.2, 1 - X.a, X.a)
    return X, y, X.a * 2.0 + rng.normal(size=n)


@pytest.mark.parametrize("cls, base, target", [(BendOCTClassifierCV, BendOCTClassifier, 1),
                                               (OptimalTreeRegressorCV, OptimalTreeRegressor,
                                                2)])
def test_a_huge_time_limit_is_a_limit_not_infinity(cls, base, target):
    """1e308 s split into fold shares as share * 2^depth overflowed to inf, refused by the
    fold fits ("time_limit ... got inf"); the fold scores are cross_val_score's."""
    data = small_data()
    X, y = data[0], data[target]
    folds = (StratifiedKFold if target == 1 else KFold)(3)
    cv = cls(depths=(1,), lams=(0.0,), cv=folds, time_limit=1e308).fit(X, y)
    manual = cross_val_score(base(depth=1, lam=0.0), X, y, cv=folds)
    got = [cv.cv_results_[f"split{i}_test_score"][0] for i in range(3)]
    np.testing.assert_allclose(got, manual)


@pytest.mark.parametrize("cls, target, cv", [(BendOCTClassifierCV, 1, 40),
                                             (BendOCTClassifierCV, 1, 25),  # > either class
                                             (OptimalTreeRegressorCV, 2, 31)])
def test_more_folds_than_rows_is_one_clear_error(cls, target, cv):
    """scikit-learn's splitter raised its ValueError from inside its code."""
    data = small_data()
    with pytest.raises(OptreesInputError, match=rf"cv={cv} cannot split these 30 rows"):
        cls(depths=(1,), lams=(0.0,), cv=cv).fit(data[0], data[target])


def test_a_budget_used_up_before_any_fit_is_refused():
    """The rows were all "skipped" with negative shares ("-2.6s of the budget left, less
    than its share -1.2s")."""
    X, y, _ = small_data(40)
    with pytest.raises(OptreesInputError, match="used up by the checks"):
        compare(X, y, methods=["benders"], time_budget=1e-6, cv=3)


def test_the_cli_budget_covers_reading_the_data_and_the_report(tmp_path, monkeypatch,
                                                               capsys):
    """The budget went to ``compare`` whole; the report (matplotlib, one picture a row:
    4-15 s for eleven rows) came on top.  A comparison that spends its whole budget and a
    report of 1 s (the reserve for two rows is 2 s) must end within the budget + 5 %."""
    X, y, _ = small_data(40)
    csv = tmp_path / "d.csv"
    X.assign(label=y).to_csv(csv, index=False)
    given = []

    def spend_it_all(X, y, time_budget, **kw):
        given.append(time_budget)
        time.sleep(time_budget)
        table = pd.DataFrame([], columns=comparison.COLUMNS)
        table.attrs.update(task="classification", metric="accuracy", seconds=time_budget,
                           test_rows=np.arange(10), time_budget=time_budget)
        return table

    def report(*a, **kw):
        time.sleep(1.0)
        return "<html></html>"

    monkeypatch.setattr(comparison, "compare", spend_it_all)
    monkeypatch.setattr(comparison_report, "report_html", report)
    budget = 4.0
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["compare", str(csv), "--target", "label", "--budget", str(budget),
                     "--methods", "benders", "--cv", "3", "--out",
                     str(tmp_path / "r.html")]) == 0
    assert time.perf_counter() - started <= 1.05 * budget
    assert given and given[0] <= budget - 1.0
    assert "the whole command took" in capsys.readouterr().out


def test_one_standard_error_rule_keeps_a_point_exactly_one_error_below():
    """"Within one standard error" is ``mean >= best - se``; with fold scores in quarters a
    point exactly at ``best - se`` (with 2 folds: the best point's worse fold score) was left
    out when the float ``best - se`` rounded up (32 of 3000 of these random grids).  The
    oracle is exact, in fractions: ``best - mean <= se`` iff it is <= 0 or its square is at
    most ``se^2 = var / k``."""
    from fractions import Fraction

    from optrees.estimators.cv_choice import select_index

    rng = np.random.default_rng(0)
    for _ in range(1500):
        m, k = int(rng.integers(1, 12)), int(rng.integers(2, 6))
        quarters = rng.integers(0, 5, (m, k))
        leaves = rng.integers(1, 9, (m, k))
        depth, lam = rng.integers(1, 5, m), rng.choice([0.0, 0.01, 0.02, 0.05], m)
        S = quarters / 4
        results = {f"split{i}_test_score": S[:, i] for i in range(k)}
        results.update(mean_test_score=S.mean(axis=1), mean_n_leaves=leaves.mean(axis=1),
                       param_depth=depth, param_lam=lam)
        mean = [Fraction(int(q.sum()), 4 * k) for q in quarters]
        best = mean.index(max(mean))
        var = sum((Fraction(int(s), 4) - mean[best]) ** 2 for s in quarters[best]) / (k - 1)
        within = [i for i in range(m)
                  if mean[best] - mean[i] <= 0 or (mean[best] - mean[i]) ** 2 <= var / k]
        key = [(Fraction(int(leaves[i].sum()), k), depth[i], -lam[i]) for i in range(m)]
        assert key[select_index(results, "1se")] == min(key[i] for i in within)
        assert select_index(results, "best") == best


def _best_correct(x, y, rows, depth):
    """Most training rows a tree of ``depth`` over every threshold classifies correctly
    (plain enumeration: each split's two sides are solved apart)."""
    yy = y[rows]
    best = max(np.sum(yy == c) for c in np.unique(y))
    if depth == 0:
        return best
    for f in range(x.shape[1]):
        for t in np.unique(x[rows, f])[:-1]:
            left = rows[x[rows, f] <= t]
            right = rows[x[rows, f] > t]
            best = max(best, _best_correct(x, y, left, depth - 1)
                       + _best_correct(x, y, right, depth - 1))
    return best


def test_a_gap_without_a_note_holds_over_every_threshold():
    """OCT on numeric columns solves over its binarizer's thresholds: its row said "ok",
    gap 0 %, with a tree below the best depth-2 tree over every threshold.  A finite gap
    with no note must hold over every tree of the depth (depth 2, lam 0: the training
    accuracy of the best one, enumerated); with a note it says over what."""
    rng = np.random.default_rng(2)  # 36 rows: OCT proves its depth-2 tree in a second
    x = rng.normal(size=(36, 2)).round(2)
    y = rng.integers(0, 2, 36)
    X = pd.DataFrame(x, columns=["a", "b"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = compare(X, y, methods=["oct", "benders"], time_budget=60, cv=3)
    train = np.setdiff1d(np.arange(36), table.attrs["test_rows"])
    best = _best_correct(x, y, train, 2)
    seen = set()
    for r in table.itertuples():
        if r.method == "cart" or r.gap != r.gap or r.gap > 0:
            continue
        correct = int(np.sum(r.model.predict(X.iloc[train]) == y[train]))
        if r.note == "":
            assert correct == best, r.method
        else:
            assert r.note == "gap over the binarizer's thresholds"
        seen.add((r.method, correct == best))
    assert ("benders", True) in seen and ("oct", False) in seen  # the case is met


def test_a_constant_regression_target_is_one_clear_error():
    """Every row's R² was nan ± nan, status "ok", after the whole budget."""
    X, _, _ = small_data(40)
    with pytest.raises(OptreesInputError, match="y is constant"):
        compare(X, np.full(40, 3.0), task="regression", time_budget=30, cv=3)


@pytest.mark.parametrize("X_of, y_of, match", [
    (lambda X: X, lambda y: np.c_[y, y], r"y must be one column of targets, got shape \(40, 2\)"),
    (lambda X: X, lambda y: pd.DataFrame({"u": y, "v": y}), "y must be one column"),
    (lambda X: pd.DataFrame({1: X.a, "1": X.b}), lambda y: y, "same name as text: \\['1'\\]"),
])
def test_compare_refuses_bad_shapes_before_any_fit(X_of, y_of, match, monkeypatch):
    """A 2-D y was a pandas traceback; columns 1 and "1" gave every row "failed"."""
    monkeypatch.setattr(comparison, "_run", lambda *a: pytest.fail("a fit started"))
    X, y, _ = small_data(40)
    with pytest.raises(OptreesInputError, match=match):
        compare(X_of(X), y_of(y), methods=["benders"], time_budget=30, cv=3)


def test_compare_takes_y_as_one_column_frame():
    """As scikit-learn's estimators do (a pandas traceback before)."""
    X, y, _ = small_data(40)
    kw = {"methods": ["benders"], "time_budget": 30, "cv": 3}
    one = compare(X, pd.DataFrame({"label": y}), **kw)
    plain = compare(X, y, **kw)
    np.testing.assert_array_equal(one["test_score"], plain["test_score"])


class _Clock:
    """A wall clock the fake fits below advance instead of sleeping."""

    now = 1e9


class OverheadRegressor(OptimalTreeRegressor):
    """A fit that takes its whole time limit plus 0.2 s no limit covers (set-up, scoring),
    on the fake clock; then a real fit without a limit (tiny data: instant)."""

    def fit(self, X, y, sample_weight=None):
        limit = self.time_limit
        _Clock.now += 0.2 + limit
        self.time_limit = None
        super().fit(X, y)
        self.time_limit = limit
        return self


class OverheadCV(OptimalTreeRegressorCV):
    _base = OverheadRegressor


def test_fold_fits_that_overrun_their_shares_shorten_the_later_ones(monkeypatch):
    """Each fold fit got a fixed share of time_limit, so what no limit covers came on top:
    12 fits of 0.2 s overhead each took 1.34 x time_limit.  The oracle replays the fold fits
    on a fake wall clock: together they must end within 1.1 x time_limit."""
    monkeypatch.setattr(time, "time", lambda: _Clock.now)
    X, _, y = small_data(30)
    start = _Clock.now
    OverheadCV(depths=(1, 2), lams=(0.0, 0.01), cv=3, time_limit=6.0, refit=False).fit(X, y)
    assert _Clock.now - start <= 1.1 * 6.0


@pytest.mark.parametrize("task", ["auto", "regression"])
def test_a_constant_target_is_named_as_such_whatever_the_task(task):
    """Task "auto" took a constant number for a single class ("a classifier needs more than
    one class"), and the regression message printed np.float64(3.0)."""
    X, _, _ = small_data(40)
    with pytest.raises(OptreesInputError, match=r"y is constant \(3\.0\)"):
        compare(X, np.full(40, 3.0), task=task, time_budget=30, cv=3)
