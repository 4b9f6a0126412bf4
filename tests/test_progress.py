"""Progress lines (issue #42, item 5): with verbose=1 every method logs a line per stage or
round, with the elapsed time and the numbers the fit then reports; the command line shows
them on a terminal only; a benchmark grid draws a tqdm bar on a terminal, and without tqdm
falls back to its own."""

from __future__ import annotations

import io
import logging
import re
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from optrees import (
    BendersOCTClassifier,
    CGHClassifier,
    FairnessWarning,
    OMTClassifier,
    RUGClassifier,
    load_dataset,
)
from optrees.bench import PROTOCOLS, Task, run_tasks
from optrees.bench import runner as runner_mod
from optrees.cli import main

ELAPSED = re.compile(r"^.{8}\s*(\d+\.\d)s  ")


@pytest.fixture(scope="module")
def monk2():
    return load_dataset("monk2")


def _fit(caplog, est, X, y):
    """Fit ``est`` and return its progress lines (the logger's messages)."""
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="optrees"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
    return [r.getMessage() for r in caplog.records if r.name == "optrees"]


def _stage(lines, stage):
    return [m for m in lines if m.startswith(f"{stage:<8}")]


def _field(line, name):
    """The value after ``name`` in a line (fields are separated by two spaces)."""
    found = re.search(rf"(?:^|  ){re.escape(name)} (\S+)", line)
    return None if found is None else found.group(1)


def _num(line, name):
    return float(_field(line, name))


def _elapsed(line):
    found = ELAPSED.match(line)
    assert found, f"no elapsed time in {line!r}"
    return float(found.group(1))


def _rounds(lines):
    return [int(_field(m, "round")) for m in lines]


# ----------------------------------------------------------------------------------- OMT
def test_omt_logs_every_column_generation_round(monk2, caplog):
    X, y = monk2
    m = OMTClassifier(depth=2, leaf_penalty=0.0, random_state=0, verbose=1)
    lines = _fit(caplog, m, X, y)
    rounds = _stage(lines, "OMT")
    # one line per master LP: a pricing round (n_iter_) is followed by a re-solve
    assert len(rounds) >= max(m.n_iter_, 1)
    assert _rounds(rounds) == list(range(1, len(rounds) + 1))
    times = [_elapsed(x) for x in rounds]
    assert times == sorted(times)
    # the last LP is the one the fit reports as lp_bound_; rules = columns generated
    assert _num(rounds[-1], "LP over generated rules") == pytest.approx(m.lp_bound_, rel=1e-5)
    sizes = [int(_field(x, "rules")) for x in rounds]
    assert sizes == sorted(sizes) and sizes[-1] <= m.stats_["columns"]
    # the incumbent before the MIP is a start the fit can only improve on (minimization)
    assert all(_num(x, "incumbent") >= m.objective_ - 1e-9 for x in rounds)
    (mip,) = _stage(lines, "OMT MIP")
    assert _num(mip, "incumbent") == pytest.approx(m.objective_, rel=1e-5)
    (done,) = _stage(lines, "done")
    assert _num(done, "incumbent") == pytest.approx(m.objective_, rel=1e-5)
    assert _field(done, "status") == m.status_


def test_omt_never_calls_the_restricted_lp_a_bound(monk2, caplog):
    """Column generation cut short (max_iter): no proven bound, so no line says "bound" or
    "gap", though the LP over the generated rules (40) is below the objective (41)."""
    X, y = monk2
    m = OMTClassifier(depth=3, max_iter=2, leaf_penalty=0.0, random_state=0, verbose=1)
    lines = _fit(caplog, m, X, y)
    assert np.isnan(m.bound_) and m.lp_bound_ < m.objective_ - 0.5
    rounds = _stage(lines, "OMT")
    assert len(rounds) == 3 and _rounds(rounds) == [1, 2, 3]
    assert _num(rounds[-1], "LP over generated rules") == pytest.approx(m.lp_bound_, rel=1e-5)
    for line in lines:
        rest = re.sub(r"LP over generated rules \S+", "", line)
        assert "bound" not in rest and "gap" not in rest, line


def test_omt_regression_lines_are_in_the_targets_units(caplog):
    """The solver works on a rescaled target: the lines give the loss in y's units."""
    from sklearn.datasets import load_diabetes

    from optrees import OMTRegressor

    X, y = load_diabetes(return_X_y=True, as_frame=True)
    X, y = X.iloc[:200, :4], y[:200]
    m = OMTRegressor(depth=1, leaf_penalty=0.0, n_bins=8, random_state=0, verbose=1)
    lines = _fit(caplog, m, X, y)
    sse = float(((y - y.mean()) ** 2).sum())  # the one-leaf tree, from the definition
    rounds = _stage(lines, "OMT")
    assert _num(rounds[0], "incumbent") <= sse * (1 + 1e-5)
    assert _num(rounds[-1], "LP over generated rules") == pytest.approx(m.lp_bound_, rel=1e-5)
    (mip,) = _stage(lines, "OMT MIP")
    assert _num(mip, "incumbent") == pytest.approx(m.objective_, rel=1e-5)
    assert _num(mip, "incumbent") == pytest.approx(
        float(((y - m.predict(X)) ** 2).sum()), rel=1e-5)


def test_omt_auto_penalty_logs_each_candidate(monk2, caplog):
    X, y = monk2
    m = OMTClassifier(depth=2, leaf_penalty="auto", random_state=0, verbose=1)
    lines = _fit(caplog, m, X, y)
    auto = _stage(lines, "OMT auto")
    assert [float(_field(x, "penalty")) for x in auto] == sorted(m.validation_scores_)
    assert [float(_field(x, "score")) for x in auto] == pytest.approx(
        [m.validation_scores_[p] for p in sorted(m.validation_scores_)], rel=1e-5)
    # every candidate and the final fit run their own rounds, each ending in a MIP line
    assert len(_stage(lines, "OMT MIP")) == len(auto) + 1


# ----------------------------------------------------------------------------------- CGH
def test_cgh_logs_every_master_lp_round(monk2, caplog):
    X, y = monk2
    m = CGHClassifier(depth=2, tau=10, time_limit=20, random_state=0, verbose=1)
    lines = _fit(caplog, m, X, y)
    cgh = _stage(lines, "CGH")
    rounds = [x for x in cgh if _field(x, "round") is not None]
    # a round that found columns re-solves the LP and logs it (every 20th, before)
    numbers = _rounds(rounds)
    assert numbers and numbers == sorted(set(numbers)) and numbers[-1] <= m.stats_["iterations"]
    assert [_field(x, "step") for x in cgh if _field(x, "step")][0] == "sampling"
    (end,) = [x for x in cgh if _field(x, "step") == "cg-end"]
    assert _num(end, "LP over generated paths") == pytest.approx(m.lp_bound_, rel=1e-5)
    # the incumbent of the rounds is CGH's start tree, CART
    assert all(_num(x, "incumbent") == pytest.approx(m.cart_objective_) for x in cgh)
    (mip,) = _stage(lines, "CGH MIP")
    (done,) = _stage(lines, "done")
    for line in (mip, done):
        assert _num(line, "incumbent") == pytest.approx(m.objective_, rel=1e-5)
    # the sampled splits' LP bounds no tree outside them: never shown as a bound or gap
    assert np.isnan(m.bound_)
    for line in cgh + [mip, done]:
        rest = re.sub(r"LP over generated paths \S+", "", line)
        assert "bound" not in rest and "gap" not in rest, line
    times = [_elapsed(x) for x in cgh + [mip]]
    assert times == sorted(times)


# ----------------------------------------------------------------------------------- RUG
def test_rug_logs_every_master_call_with_its_value(monk2, caplog):
    X, y = monk2
    m = RUGClassifier(max_depth=2, max_rmp_calls=4, random_state=0, verbose=1)
    lines = _fit(caplog, m, X, y)
    rug = _stage(lines, "RUG")
    assert _rounds(rug) == list(range(1, m.stats_["n_rmp_calls"] + 1))
    # the incumbent of each call is its LP value, as objective_history records it
    assert [_num(x, "incumbent") for x in rug] == pytest.approx(
        m.stats_["objective_history"], rel=1e-5)
    assert _num(rug[-1], "incumbent") == pytest.approx(m.objective_, rel=1e-5)
    assert all(_field(x, "bound") is None for x in rug)  # tree pricing: no bound
    (done,) = _stage(lines, "done")
    assert _num(done, "incumbent") == pytest.approx(m.objective_, rel=1e-5)
    assert "gap" not in done  # no bound, no gap (it printed "gap inf")
    assert all(_elapsed(x) >= 0 for x in rug)


def test_rug_exact_pricing_logs_its_bound_and_gap(monk2, caplog):
    X, y = monk2
    m = RUGClassifier(max_depth=2, max_rmp_calls=3, pricing="exact", random_state=0,
                      verbose=1)
    lines = _fit(caplog, m, X, y)
    rug = _stage(lines, "RUG")
    last = rug[-1]
    lb = m.stats_["lower_bound"]
    assert lb is not None and _num(last, "bound") == pytest.approx(lb, rel=1e-5)
    obj = _num(last, "incumbent")
    gap = float(_field(last, "gap").rstrip("%")) / 100
    assert gap == pytest.approx((obj - lb) / obj, abs=1e-4)  # the definition of the gap


def test_fairrug_repair_logs_each_tightened_cap():
    rng = np.random.default_rng(5)
    n = 240
    g = rng.choice(["a", "b", "c"], n, p=[0.3, 0.3, 0.4])
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    noise = np.select([g == "a", g == "b"], [1.2, 0.6], 0.2)
    y = np.digitize(x1 + 0.5 * x2 + rng.normal(scale=noise, size=n), [-0.5, 0.5])
    X = pd.DataFrame({"x1": x1, "x2": x2, "grp": g})
    m = RUGClassifier(max_depth=2, random_state=1, sensitive="grp", fairness="dmc",
                      epsilon=0.0, verbose=1)
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logging.getLogger("optrees").addHandler(handler)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FairnessWarning)
            m.fit(X, y)
    finally:
        logging.getLogger("optrees").removeHandler(handler)
    lines = [r.getMessage() for r in records]
    repair = m.stats_["fairness_repair"]
    caps = [x for x in _stage(lines, "repair") if _field(x, "lp_cap") is not None]
    assert [float(_field(x, "lp_cap")) for x in caps] == repair["lp_caps"]
    assert [float(_field(x, "realised")) for x in caps] == pytest.approx(
        repair["realised"], rel=1e-3)


# ----------------------------------------------------------------------------------- trees
def test_tree_mip_logs_start_and_mip_stages(monk2, caplog):
    X, y = monk2
    m = BendersOCTClassifier(depth=2, time_limit=3, random_state=0, verbose=1,
                             path_bound_cuts=False, polishing=False, subtree_search=False)
    lines = _fit(caplog, m, X, y)
    (start,) = _stage(lines, "start")
    (mip,) = _stage(lines, "MIP")
    assert lines.index(start) < lines.index(mip)
    assert _num(start, "incumbent") <= m.objective_ + 1e-9  # the fit keeps the better tree
    assert _field(mip, "status") == m.status_ and int(_field(mip, "nodes")) >= 1
    assert _num(mip, "incumbent") <= m.objective_ + 1e-9
    (done,) = _stage(lines, "done")
    assert _num(done, "incumbent") == pytest.approx(m.objective_, rel=1e-5)
    if m.status_ != "optimal":
        assert _num(done, "bound") == pytest.approx(m.bound_, rel=1e-5)


# ----------------------------------------------------------------------------------- CLI
@pytest.fixture
def monk2_csv(tmp_path, monk2):
    X, y = monk2
    path = tmp_path / "monk2.csv"
    X.assign(label=y).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("tty, flags, shown", [
    (True, [], True), (False, [], False), (True, ["-q"], False), (False, ["-v"], True),
    (True, ["--quiet", "-v"], False),
])
def test_cli_shows_progress_on_a_terminal_only(monk2_csv, capsys, caplog, monkeypatch, tty,
                                               flags, shown):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: tty)
    assert not logging.getLogger("optrees").isEnabledFor(logging.INFO)  # a fresh process
    rc = main(["fit", "--csv", str(monk2_csv), "--target", "label", "--method", "rug",
               "--max-rmp-calls", "2", "--test-size", "0", *flags])
    assert rc == 0
    lines = [r.getMessage() for r in caplog.records if r.name == "optrees"]
    assert bool(_stage(lines, "RUG")) == shown
    assert bool(_stage(lines, "done")) == shown
    out = capsys.readouterr().out
    assert "[optrees]" not in out and "RUG " not in out  # the report on stdout is unchanged


# ----------------------------------------------------------------------------------- bench
def _grid():
    tasks = [Task.make("flow", "test", "cart", ds, 0,
                       {"split": "50/25/25", "fit_on": "train+val", "depth": 2}, None)
             for ds in ("monk1", "monk3")]
    tasks.append(Task.make("flow", "tune", "benders", "monk1", 0,
                           {"split": "all", "depth": 1, "variant": "no-such-variant"}, 5))
    return tasks


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def _run_grid(tmp_path, monkeypatch, stream):
    monkeypatch.setattr(runner_mod.sys, "stderr", stream)
    df = run_tasks(_grid(), tmp_path / "grid.csv", PROTOCOLS["flow"].columns, label="grid")
    assert len(df) == 3 and (df["error"] != "").sum() == 1
    return stream.getvalue()


def test_bench_grid_draws_a_tqdm_bar_on_a_terminal(tmp_path, monkeypatch):
    pytest.importorskip("tqdm")
    text = _run_grid(tmp_path, monkeypatch, _Terminal())
    assert "grid" in text and "3/3" in text and ("fit/s" in text or "s/fit" in text)
    assert "errors=1" in text
    assert "[####" not in text  # not the fallback bar


def test_bench_grid_without_tqdm_falls_back_to_its_own_bar(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm raises ImportError
    text = _run_grid(tmp_path, monkeypatch, _Terminal())
    assert "grid [####################] 3/3 errors 1" in text


def test_bench_grid_off_a_terminal_prints_plain_lines(tmp_path, monkeypatch):
    text = _run_grid(tmp_path, monkeypatch, io.StringIO())
    assert "\r" not in text and "fit/s" not in text
    assert text.splitlines()[-1].startswith("grid [####################] 3/3 errors 1")


def test_a_stop_without_a_finite_bound_says_so_not_inf_percent():
    """A stopped fit whose bound is infinite (no lower bound yet) warned "gap inf%"."""
    import math
    import warnings
    from types import SimpleNamespace

    from optrees.estimators._base import store_result
    from optrees.models.result import FitResult
    from optrees.solvers.deadline import Deadline

    for bound in (-math.inf, math.nan):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            store_result(SimpleNamespace(), FitResult(None, "time_limit", 1.0, bound),
                         Deadline(10), "returning the best model found")
        text = " ".join(str(w.message) for w in caught)
        assert "inf%" not in text and "nan%" not in text
        assert "no finite bound proven" in text
