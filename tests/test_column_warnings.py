"""A text column with a distinct value in every row (an identifier) or numbers stored as
text are warned about at fit, the command line can ``--drop`` a column, and run as a command
it prints warnings as one line."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import optrees
from optrees import ColumnWarning, load_model
from optrees.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _table(n: int = 40, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"id": [f"row{i}" for i in range(n)], "a": rng.normal(size=n),
                      "b": rng.integers(0, 3, size=n), "c": rng.choice(["u", "v"], size=n)})
    y = (X["a"] > 0).astype(int).to_numpy()
    return X, y


def _identifier_warnings(caught: list) -> list:
    return [w for w in caught if issubclass(w.category, ColumnWarning)]


def _column_warnings(X: pd.DataFrame, y: np.ndarray) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        optrees.BendOCTClassifier(depth=1, time_limit=5).fit(X, y)
    return [str(w.message) for w in _identifier_warnings(caught)]


def test_numbers_with_a_marker_are_named_once_with_their_rows():
    X, y = _table(50)
    X = X.drop(columns=["id"])
    rng = np.random.default_rng(3)
    for col, k in (("a", 4), ("b", 1)):  # '?' in k rows of a numeric column, read as text
        text = X[col].astype(str).astype(object)
        text[rng.choice(len(X), size=k, replace=False)] = "?"
        X[col] = text
    X["d"] = rng.integers(0, 9, size=len(X)).astype(str)  # numbers as text, no marker
    got = _column_warnings(X, y)
    assert len(got) == 1
    assert "3 column(s)" in got[0] and "['?']" in got[0]
    assert "'a' (4 rows with a marker)" in got[0] and "'b' (1 row with a marker)" in got[0]
    assert "'d'" in got[0] and "'d' (" not in got[0]  # no marker: no count (was "0 rows")


@pytest.mark.parametrize("case", ["categorical dtype", "two values", "words", "many markers"])
def test_text_that_is_not_numbers_is_not_named(case):
    X, y = _table(50)
    X = X.drop(columns=["id"])
    rng = np.random.default_rng(4)
    if case == "categorical dtype":
        X["d"] = pd.Categorical(rng.integers(0, 9, size=len(X)).astype(str))
    elif case == "two values":
        X["d"] = np.where(rng.random(len(X)) < 0.5, "0", "1")
    elif case == "words":  # more than half of the rows are words: a categorical column
        X["d"] = np.where(rng.random(len(X)) < 0.7, rng.choice(["red", "blue", "tan"],
                                                                  size=len(X)),
                          rng.choice(["3", "4"], size=len(X)))
    else:  # four kinds of text among numbers: not markers
        X["d"] = [str(i % 7) if i % 3 else "abcd"[i % 4] for i in range(len(X))]
    assert not _column_warnings(X, y)


@pytest.mark.parametrize("cls", ["BendOCTClassifier", "BendersOCTClassifier", "CGHClassifier",
                                 "OMTClassifier", "RUGClassifier", "OptimalTreeRegressor"])
def test_an_identifier_column_is_named_at_the_users_line(cls):
    X, y = _table()
    target = X["a"].to_numpy() if cls == "OptimalTreeRegressor" else y
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(optrees, cls)(time_limit=5).fit(X, target)
    found = _identifier_warnings(caught)
    assert len(found) == 1
    assert "'id'" in str(found[0].message) and "40 rows" in str(found[0].message)
    assert found[0].filename == __file__  # this test's fit line, not a library frame


@pytest.mark.parametrize("case", ["repeats", "numeric", "few rows", "category repeats"])
def test_no_warning_without_an_identifier(case):
    X, y = _table()
    if case == "repeats":
        X["id"] = [f"row{i // 2}" for i in range(len(X))]
    elif case == "numeric":  # distinct numbers are a measurement, not an identifier
        X = X.drop(columns=["id"])
    elif case == "few rows":
        X, y = X.iloc[:12], y[:12]
    else:
        X["id"] = pd.Categorical([f"r{i % 30}" for i in range(len(X))])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        optrees.BendOCTClassifier(depth=1, time_limit=5).fit(X, y)
    assert not _identifier_warnings(caught)


def test_drop_fits_without_the_column_and_predict_ignores_it(tmp_path, capsys):
    X, y = _table(60)
    X["y"] = y
    csv = tmp_path / "d.csv"
    X.to_csv(csv, index=False)
    model = tmp_path / "m.json"
    assert main(["fit", "--csv", str(csv), "--target", "y", "--drop", "id, c", "--depth", "1",
                 "--time-limit", "10", "-q", "--out", str(model)]) == 0
    loaded = load_model(model)
    assert list(loaded.feature_names_in_) == ["a", "b"]
    out = tmp_path / "p.csv"
    assert main(["predict", "--model", str(model), "--csv", str(csv), "--out", str(out)]) == 0
    got = pd.read_csv(out)["prediction"].to_numpy()
    assert np.array_equal(got, loaded.predict(X[["a", "b"]]))


@pytest.mark.parametrize(("drop", "message"), [
    ("nope", "--drop column 'nope' is not in the file"),
    ("y", "--drop 'y' is the target column"),
])
def test_a_bad_drop_is_one_line(tmp_path, capsys, drop, message):
    X, y = _table()
    X["y"] = y
    X.to_csv(tmp_path / "d.csv", index=False)
    code = main(["fit", "--csv", str(tmp_path / "d.csv"), "--target", "y", "--drop", drop])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_the_command_prints_a_warning_as_one_line(tmp_path):
    X, y = _table()
    X["y"] = y
    X.to_csv(tmp_path / "d.csv", index=False)
    run = subprocess.run(
        [sys.executable, "-m", "optrees.cli", "fit", "--csv", str(tmp_path / "d.csv"),
         "--target", "y", "--depth", "1", "--time-limit", "10", "--test-size", "0", "-q"],
        capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    lines = [ln for ln in run.stderr.splitlines() if "identifier" in ln]
    assert len(lines) == 1 and lines[0].startswith("optrees: warning: ")
    assert ".py:" not in run.stderr and "warnings.warn" not in run.stderr


def test_unseen_categories_of_several_columns_are_one_warning_at_the_users_line():
    X, y = _table(40)
    X = X.drop(columns=["id"])
    X["d"] = np.where(np.arange(40) % 2 == 0, "p", "q")
    model = optrees.BendOCTClassifier(depth=2, time_limit=5).fit(X, y)
    new = X.head(3).assign(c=["w", "u", "x"], d=["p", "r", "q"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.predict(new)
    unseen = [w for w in caught if issubclass(w.category, optrees.UnseenCategoryWarning)]
    assert len(unseen) == 1 and unseen[0].filename == __file__
    text = str(unseen[0].message)
    assert "column 'c' has categories not seen in fit: ['w', 'x']" in text
    assert "column 'd' has categories not seen in fit: ['r']" in text


@pytest.mark.parametrize("cls", ["BendOCTClassifierCV", "OptimalTreeRegressorCV"])
def test_a_cv_fit_warns_once_of_a_column_and_never_of_its_folds_categories(cls):
    """The folds' fits and scores are quiet: one ColumnWarning, from the refit, at the
    user's line (there had been one per fold and grid point, and an UnseenCategoryWarning
    for each fold's test rows of the identifier)."""
    X, y = _table(60)
    target = X["a"].to_numpy() if cls == "OptimalTreeRegressorCV" else y
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(optrees, cls)(depths=(1,), cv=3, time_limit=20).fit(X, target)
    found = _identifier_warnings(caught)
    assert len(found) == 1 and found[0].filename == __file__
    assert not [w for w in caught if issubclass(w.category, optrees.UnseenCategoryWarning)]
