"""``optrees.compare`` and ``optrees compare``: every row's test score recomputed from its
model, the budget shares, bad input refused before any fit, the command line."""

import math
import time

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, r2_score

import optrees.comparison as comparison
from optrees import OptreesInputError, compare, load_dataset
from optrees.cli import main
from optrees.registry import compare_methods

BUDGET = 12.0
MARGIN = 10.0
"""Seconds over the budget a loaded machine may take (the design aims at 5 %)."""


@pytest.fixture(scope="module")
def monk1_table():
    X, y = load_dataset("monk1")
    started = time.perf_counter()
    table = compare(X, y, time_budget=BUDGET, cv=3)
    return X, y, table, time.perf_counter() - started


def test_every_method_and_cart_have_a_row(monk1_table):
    _, _, table, _ = monk1_table
    assert list(table["method"]) == ["cart", *compare_methods("classification")]
    assert table.attrs["task"] == "classification" and table.attrs["metric"] == "accuracy"
    assert set(table["status"]) - {"skipped", "failed"}  # some fitted


def test_scores_recomputed_from_each_model(monk1_table):
    X, y, table, _ = monk1_table
    test = table.attrs["test_rows"]
    assert len(test) == math.ceil(0.25 * len(y))
    fitted = table[~table["status"].isin(["skipped", "failed"])]
    assert "cart" in set(fitted["method"])
    for r in fitted.itertuples():
        pred = r.model.predict(X.iloc[test])
        p = accuracy_score(y.iloc[test], pred)
        assert r.test_score == pytest.approx(p), r.method
        assert r.test_se == pytest.approx(np.sqrt(p * (1 - p) / len(test))), r.method
        assert r.size >= 1 and r.fit_seconds >= 0
        assert np.isnan(r.gap) or 0 <= r.gap <= 1


def test_cart_size_is_its_leaf_count(monk1_table):
    _, _, table, _ = monk1_table
    cart = table.set_index("method").loc["cart"]
    tree = cart.model[-1].best_estimator_.tree_
    assert cart["size"] == np.sum(tree.children_left == -1)  # sklearn marks leaves by -1


def test_budget_shares_and_wall_time(monk1_table):
    _, _, table, seconds = monk1_table
    assert (table["time_limit"] > 0).all()  # the shares' definition: the fake-clock tests
    assert seconds < BUDGET + MARGIN
    assert table.attrs["seconds"] <= seconds


def test_regression_scores_recomputed():
    X, y = load_dataset("liver-disorders")
    table = compare(X, y, time_budget=8.0, cv=3)
    assert table.attrs["task"] == "regression"  # "auto" read the numeric target
    assert list(table["method"]) == ["cart", *compare_methods("regression")]
    test = table.attrs["test_rows"]
    yt = y.iloc[test].to_numpy(dtype=float)
    for r in table[~table["status"].isin(["skipped", "failed"])].itertuples():
        pred = r.model.predict(X.iloc[test])
        assert r.test_score == pytest.approx(r2_score(yt, pred)), r.method
        se = np.std((yt - pred) ** 2, ddof=1) / np.sqrt(len(yt)) / np.var(yt)
        assert r.test_se == pytest.approx(se), r.method


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


FIT_ORDER = ["cart", "bendoct", "rug", "rux", "flow", "benders", "oct", "binoct", "omt",
             "cgh"]
"""The classification rows in the order they are fitted: CART, the methods that usually
finish early, then the MIPs and column generations, which spend their limit."""


def _fake_runs(monkeypatch, took):
    """``compare`` on monk1 with a 100 s budget on a fake clock where each fit takes
    ``took(share)`` seconds; returns the table and (name, share, budget left) per fit."""
    clock = FakeClock()
    monkeypatch.setattr(comparison.time, "perf_counter", clock)
    started = []

    def run(name, method, task, parts, share, cv, seed):
        started.append((name, share, 100.0 - clock.now))
        clock.now += took(share)
        return comparison._skipped(name, share, "failed: fake")

    monkeypatch.setattr(comparison, "_run", run)
    X, y = load_dataset("monk1")
    return compare(X, y, time_budget=100.0), started


def test_a_method_is_skipped_when_earlier_fits_ran_over(monkeypatch):
    """Each fit takes twice its share: every share is what is left (less the reserve)
    over the rows still to run, and a method whose share falls under a quarter of the first
    is skipped and says why."""
    table, started = _fake_runs(monkeypatch, lambda share: 2 * share)
    n = 1 + len(compare_methods("classification"))
    kept = comparison.RESERVE * 100.0
    first = (100.0 - kept) / n
    used = 0.0
    fits = iter(started)
    rows = table.set_index("method")
    for k, name in enumerate(FIT_ORDER):  # in fit order: each share from the definition
        row = rows.loc[name]
        share = (100.0 - used - kept) / (n - k)
        if share < 0.25 * first:
            why = "used up before this method" if share <= 0 else \
                "less than 25% of the first share"
            assert row.status == "skipped" and why in row.note
            continue
        fitted, given, left = next(fits)
        assert fitted == name and given == pytest.approx(share)
        assert left == pytest.approx(100.0 - used)
        used += 2 * given
    assert next(fits, None) is None
    assert (table["status"] == "skipped").sum() > 0


def test_the_fits_that_spend_their_limit_run_last_and_get_what_the_others_leave(
        monkeypatch):
    """The early finishers (CART, BendOCT's CV, the rule sets) take a tenth of their share
    and the MIPs and column generations all of it: the fits run in FIT_ORDER, the table
    keeps registry order, and the last fit's share is everything the budget has left."""
    early = {"cart", "bendoct", "rug", "rux"}
    clock = FakeClock()
    monkeypatch.setattr(comparison.time, "perf_counter", clock)
    started = []

    def run(name, method, task, parts, share, cv, seed):
        started.append((name, share))
        clock.now += share / 10 if name in early else share
        return comparison._skipped(name, share, "failed: fake")

    monkeypatch.setattr(comparison, "_run", run)
    X, y = load_dataset("monk1")
    table = compare(X, y, time_budget=100.0)
    assert [name for name, _ in started] == FIT_ORDER
    assert list(table["method"]) == ["cart", *compare_methods("classification")]
    kept = comparison.RESERVE * 100.0
    used, n = 0.0, len(FIT_ORDER)
    for k, (name, share) in enumerate(started):
        assert share == pytest.approx((100.0 - used - kept) / (n - k)), name
        used += share / 10 if name in early else share
    assert used == pytest.approx(100.0 - kept)  # nothing left unused


def test_time_a_fast_fit_leaves_goes_to_the_later_ones(monkeypatch):
    """Each fit takes half its share: the shares grow row by row, every method is
    fitted, and the fits use the budget less the reserve, never more."""
    table, started = _fake_runs(monkeypatch, lambda share: share / 2)
    n = 1 + len(compare_methods("classification"))
    shares = [share for _, share, _ in started]
    assert len(started) == n and (table["status"] != "skipped").all()
    assert all(b > a for a, b in zip(shares, shares[1:], strict=False))
    assert sum(shares) / 2 <= 100.0 * (1 - comparison.RESERVE) + 1e-9
    assert shares[-1] == pytest.approx(100.0 * (1 - comparison.RESERVE)
                                       - sum(s / 2 for s in shares[:-1]))


@pytest.mark.parametrize("kwargs, message", [
    ({"task": "survival"}, "task must be one of"),
    ({"methods": ["flow", "nope"]}, "unknown classification method"),
    ({"methods": ["regtree"]}, "unknown classification method"),
    ({"methods": "flow"}, "list of method names"),
    ({"time_budget": 0}, "time_budget must be"),
    ({"time_budget": float("nan")}, "time_budget must be"),
    ({"cv": 1}, "cv must be"),
    ({"test_size": 1.0}, "test_size must be"),
])
def test_bad_options_refused_before_any_fit(monkeypatch, kwargs, message):
    def no_fit(*args):
        raise AssertionError("a fit started")

    monkeypatch.setattr(comparison, "_run", no_fit)
    X, y = load_dataset("monk1")
    with pytest.raises(OptreesInputError, match=message):
        compare(X, y, **kwargs)


def test_bad_target_refused_before_any_fit(monkeypatch):
    monkeypatch.setattr(comparison, "_run", lambda *a: pytest.fail("a fit started"))
    X, y = load_dataset("monk1")
    with pytest.raises(OptreesInputError, match="one value per row"):
        compare(X, y[:-1])
    with pytest.raises(OptreesInputError):  # numbers are no class labels
        compare(X, np.linspace(0, 1, len(y)), task="classification")


@pytest.fixture
def monk1_csv(tmp_path):
    X, y = load_dataset("monk1")
    path = tmp_path / "monk1.csv"
    X.assign(label=y).to_csv(path, index=False)
    return path


def test_cli_prints_the_table(monk1_csv, capsys):
    assert main(["compare", str(monk1_csv), "--target", "label", "--budget", "6",
                 "--methods", "flow,benders", "--cv", "3"]) == 0
    out = capsys.readouterr().out
    assert "classification of 'label'" in out and "test accuracy ± SE" in out
    rows = {line.split()[0] for line in out.splitlines() if line.strip()}
    assert {"cart", "flow", "benders"} <= rows and "oct" not in rows


@pytest.mark.parametrize("argv, message", [
    (["--target", "nope"], "target column 'nope' not in"),
    (["--target", "label", "--task", "survival"], "invalid choice: 'survival'"),
    (["--target", "label", "--methods", "flow,regtree"], "unknown classification method"),
    (["--target", "label", "--budget", "0"], "--budget must be"),
])
def test_cli_errors_are_one_line_before_any_fit(monk1_csv, capsys, monkeypatch, argv,
                                                message):
    monkeypatch.setattr(comparison, "_run", lambda *a: pytest.fail("a fit started"))
    assert main(["compare", str(monk1_csv), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_cli_reads_the_csv_as_fit_does(tmp_path, capsys):
    path = tmp_path / "dup.csv"
    pd.DataFrame([[1, 2, 0], [3, 4, 1]]).to_csv(path, index=False, header=["a", "a", "y"])
    assert main(["compare", str(path), "--target", "y"]) == 2
    assert "duplicate column names" in capsys.readouterr().err


def _sections(page):
    """{method: its section of the report's "Models" part}."""
    import re

    return {m.group(1): m.group(0) for m in re.finditer(
        r'<h3 id="model-([^"]+)">.*?(?=<h3 |</body>)', page, re.S)}


def _png_images(section):
    import base64
    import io
    import re

    from matplotlib.image import imread

    images = []
    for data in re.findall(r'<img [^>]*src="data:image/png;base64,([^"]+)"', section):
        raw = base64.b64decode(data, validate=True)
        assert raw.startswith(b"\x89PNG\r\n\x1a\n")
        images.append(imread(io.BytesIO(raw), format="png"))
    return images


def test_report_has_every_row_and_a_valid_image_per_model(monk1_table):
    import re

    from optrees.comparison_report import report_html

    X, y, table, _ = monk1_table
    page = report_html(table, X, y)
    links = re.findall(r'(?:src|href)\s*=\s*["\']([^"\']*)', page, re.I)
    assert links and all(v.startswith("data:image/png;base64,") for v in links)
    # no address outside the inline images (base64 data may spell "http" by chance: it did)
    text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]*", "", page).lower()
    assert "http:" not in text and "https:" not in text and "url(" not in text
    assert "<script" not in page.lower() and "<link" not in page.lower()
    rows = re.findall(r"<tr><td>([^<]+)</td>", page)
    assert rows == list(table["method"])
    sections = _sections(page)
    assert list(sections) == list(table["method"])
    for r in table.itertuples():
        images = _png_images(sections[r.method])
        if r.model is None:
            assert images == [] and r.note.split(":")[0] in sections[r.method]
        else:
            assert len(images) == 1, r.method
            assert min(images[0].shape[:2]) > 50  # a picture, not an empty figure
    plot = page.split("<h2>Test score against size</h2>")[1].split("<h2>")[0]
    assert len(_png_images(plot)) == 1


def test_report_gap_in_percent_and_size_labels_apart(monk1_table):
    """What a reader sees: gaps as percentages, as the command line prints them, and size
    ticks that do not print over each other on the log axis (16 and 17 read "1617")."""
    import re

    from optrees.comparison_report import report_html, score_size_figure, spaced_ticks

    X, y, table, _ = monk1_table
    page = report_html(table, X, y)
    gap_column = re.findall(r"<th>([^<]+)</th>", page).index("gap")
    for r in table.itertuples():
        row = re.search(rf"<tr><td>{re.escape(r.method)}</td>(.*?)</tr>", page).group(1)
        cell = re.findall(r"<td>([^<]*)</td>", row)[gap_column - 1]
        assert cell == ("" if np.isnan(r.gap) else f"{100 * r.gap:.2f}%")
    assert spaced_ticks([16, 17, 3, 4, 5, 7, 10, 10]) == [3, 4, 5, 7, 10, 16]
    ticks = score_size_figure(table).axes[0].get_xticks()
    assert all(b >= 1.25 * a for a, b in zip(ticks[:-1], ticks[1:], strict=True))


def test_cli_writes_the_report(monk1_csv, tmp_path, capsys):
    out = tmp_path / "report.html"
    assert main(["compare", str(monk1_csv), "--target", "label", "--budget", "6",
                 "--methods", "benders,rug", "--cv", "3", "--out", str(out)]) == 0
    assert f"report written to {out}" in capsys.readouterr().out
    page = out.read_text()
    assert set(_sections(page)) == {"cart", "benders", "rug"}
    assert "target: 2 classes" in page  # the data summary


def test_cli_refuses_an_unwritable_report_before_any_fit(monk1_csv, tmp_path, capsys,
                                                         monkeypatch):
    monkeypatch.setattr(comparison, "_run", lambda *a: pytest.fail("a fit started"))
    assert main(["compare", str(monk1_csv), "--target", "label",
                 "--out", str(tmp_path / "no" / "r.html")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_a_failing_method_is_a_row_not_an_error(monkeypatch):
    real = comparison._estimator

    class Broken:
        def fit(self, X, y):
            raise ValueError("cannot take this data")

    def estimator(method, *args):
        return Broken() if method is not None and method.name == "flow" else real(method, *args)

    monkeypatch.setattr(comparison, "_estimator", estimator)
    X, y = load_dataset("monk1")
    table = compare(X, y, methods=["flow", "benders"], time_budget=20, cv=3).set_index("method")
    assert table.loc["flow", "status"] == "failed"
    assert table.loc["flow", "note"] == "failed: ValueError: cannot take this data"
    assert np.isnan(table.loc["flow", "test_score"]) and table.loc["flow", "model"] is None
    assert table.loc["benders", "status"] == "ok"


def test_data_and_test_row_warnings_are_said_once(monkeypatch):
    """A column of numbers and '?' is named once by ``compare`` (each method's fit is
    silenced), and a warning the test rows gave several methods in the same words once,
    naming them, instead of once per method."""
    import warnings as w

    from optrees import ColumnWarning, UnseenCategoryWarning

    said = "column 'c' has categories not seen in fit: ['z']; every 'column = value' test"

    def run(name, method, task, parts, share, cv, seed):
        row = comparison._skipped(name, share, "failed: fake")
        row["warnings"] = [] if name == "cart" else [f"{name.upper()}Classifier: {said}"]
        return row

    monkeypatch.setattr(comparison, "_run", run)
    X, y = load_dataset("monk1")
    X[X.columns[0]] = X[X.columns[0]].astype(object)
    X.iloc[::7, 0] = "?"
    with w.catch_warnings(record=True) as got:
        w.simplefilter("always")
        compare(X, y, methods=["bendoct", "rug"], time_budget=30.0)
    columns = [g for g in got if issubclass(g.category, ColumnWarning)]
    unseen = [g for g in got if issubclass(g.category, UnseenCategoryWarning)]
    assert len(columns) == 1 and "compare: 1 column(s) hold numbers and ['?']" in \
        str(columns[0].message) and "--na '?'" in str(columns[0].message)
    assert len(unseen) == 1
    assert str(unseen[0].message) == f"compare (bendoct, rug): the test rows: {said}"


def test_a_fit_reports_its_test_rows_unseen_categories():
    """Through a real fit: a category only the test rows hold is in the row's warnings."""
    from optrees.registry import task_methods

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"c": rng.choice(list("ab"), 80), "x": rng.normal(size=80)})
    y = (X["x"] > 0).astype(int)
    X_test = X.iloc[:10].copy()
    X_test.loc[X_test.index[:3], "c"] = "zz"
    method = task_methods("classification")["bendoct"]
    row = comparison._run("bendoct", method, "classification",
                          (X, X_test, y, y.iloc[:10]), 10.0, 3, 0)
    assert len(row["warnings"]) == 1 and "['zz']" in row["warnings"][0]
