"""Saved models (issue #20): column labels round-trip with their types, date columns are
refused alike by every estimator, loaded files are checked (a damaged or hand-edited file is
refused with one clear error), unseen categories warn after loading (Python and CLI), files
get the user's umask, and a failed save leaves no file."""

from __future__ import annotations

import json
import os
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from estimator_matrix import SPEC_IDS, SPECS, integer_table

from optrees import OptreesInputError, load_model, save_model
from optrees.cli import main
from optrees.encoding.binarize import Binarizer
from optrees.estimators import TimeLimitWarning, UnseenCategoryWarning
from optrees.models.rule_set import RuleSet

BINARIZED = "BendOCTClassifier-binarized"
"""BendOCT with an explicit Binarizer: a binary tree on 0/1 literals (the default fits numeric
columns over every threshold and saves raw columns instead)."""


def _table(n: int = 60, spec=None) -> tuple[pd.DataFrame, np.ndarray]:
    """Integer column labels: 0 numeric, 1 categorical; the label depends on both (for an
    estimator of integer features, column 1 as the colours' ranks)."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({0: rng.integers(0, 6, n).astype(float),
                      1: rng.choice(["red", "green", "blue"], n)})
    y = np.where((X[0] >= 3) | (X[1] == "red"), "yes", "no")
    return (integer_table(X) if spec is not None and spec.integer_features else X), y


def _no_categories(spec) -> None:
    if spec.integer_features:
        pytest.skip("integer features have no categories")


@pytest.fixture(scope="module")
def fitted():
    """Every estimator of the matrix (fast settings), fitted once on the integer-labelled
    table; also BendOCT on binarized columns (its file holds literals)."""
    X, y = _table()
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TimeLimitWarning)
        for spec in SPECS:
            out[spec.id] = spec.make(random_state=0).fit(_table(spec=spec)[0], y)
            if spec.id == "BendOCTClassifier":
                out[BINARIZED] = spec.make(random_state=0, binarizer=Binarizer()).fit(X, y)
    return out


def _saved(est, tmp_path, name: str = "m.json"):
    path = tmp_path / name
    save_model(est, path)
    return path


# --------------------------------------------------------------------- column labels
@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_integer_column_labels_round_trip(spec, fitted, tmp_path):
    X, _ = _table(spec=spec)
    est = fitted[spec.id]
    path = _saved(est, tmp_path)
    assert json.loads(path.read_text())["columns"] == [0, 1]  # integers, not "0", "1"
    loaded = load_model(path)
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))
    if hasattr(est, "predict_proba"):
        np.testing.assert_allclose(loaded.predict_proba(X), est.predict_proba(X))
    # found by label, not by position; an array is read by position as the estimator does
    np.testing.assert_array_equal(loaded.predict(X[[1, 0]]), est.predict(X))
    np.testing.assert_array_equal(loaded.predict(X.to_numpy(dtype=object)), est.predict(X))


ONE_PER_KIND = [s for s in SPECS if s.id in ("BendOCTClassifier", "CGHClassifier",
                                             "OMTClassifier", "RUGClassifier")]
KIND_IDS = [s.id for s in ONE_PER_KIND]


@pytest.mark.parametrize("spec", ONE_PER_KIND, ids=KIND_IDS)
def test_string_labels_that_read_as_numbers_keep_their_type(spec, tmp_path):
    """Columns "0" and "1" (strings) are not the integers 0 and 1 of another frame."""
    X, y = _table(spec=spec)
    X = X.set_axis(["0", "1"], axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TimeLimitWarning)
        est = spec.make(random_state=0).fit(X, y)
    path = _saved(est, tmp_path)
    assert json.loads(path.read_text())["columns"] == ["0", "1"]
    np.testing.assert_array_equal(load_model(path).predict(X), est.predict(X))


# --------------------------------------------------------------------- dates and times
@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
@pytest.mark.parametrize("dates", [
    pd.date_range("2020-01-01", periods=60, freq="D"),
    pd.date_range("2020-01-01", periods=60, freq="D", tz="UTC"),
    pd.to_timedelta(np.arange(60), unit="D"),
], ids=["datetime", "datetime-tz", "timedelta"])
def test_date_columns_are_refused_at_fit_by_every_estimator(spec, dates):
    X, y = _table(spec=spec)
    X = X.assign(when=dates).set_axis(["a", "b", "when"], axis=1)
    with pytest.raises(OptreesInputError, match="column 'when' .*dates and times"):
        spec.make().fit(X, y)


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_date_column_at_predict_is_refused(spec, fitted, tmp_path):
    X, _ = _table(spec=spec)
    X[1] = pd.date_range("2020-01-01", periods=len(X), freq="D")
    loaded = load_model(_saved(fitted[spec.id], tmp_path))
    with pytest.raises(OptreesInputError, match="dates and times"):
        loaded.predict(X)


@pytest.mark.parametrize("spec", ONE_PER_KIND, ids=KIND_IDS)
def test_unsavable_category_is_refused_and_leaves_no_file(spec, tmp_path):
    """Interval categories (pd.cut) fit and predict, but a JSON file cannot hold them."""
    X, y = _table(spec=spec)
    X = X.assign(bin=pd.cut(X[0], [-1, 2.5, 10])).set_axis(["a", "b", "bin"], axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TimeLimitWarning)
        est = spec.make(random_state=0).fit(X, y)
    path = tmp_path / "m.json"
    path.write_text("previous model")
    with pytest.raises(OptreesInputError, match="cannot save the model: .*Interval"):
        save_model(est, path)
    assert path.read_text() == "previous model"  # the old file is untouched
    with pytest.raises(OptreesInputError, match="cannot save the model"):
        save_model(est, tmp_path / "new.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json"]  # no partial file


def test_save_before_fit_is_one_clear_error(tmp_path):
    with pytest.raises(OptreesInputError, match="no fitted model"):
        save_model(SPECS[0].make(), tmp_path / "m.json")
    assert not list(tmp_path.iterdir())


# --------------------------------------------------------------------- unseen categories
@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_load_model_warns_about_unseen_categories(spec, fitted, tmp_path):
    _no_categories(spec)
    X, _ = _table(spec=spec)
    loaded = load_model(_saved(fitted[spec.id], tmp_path))
    new = X.copy()
    new[1] = np.where(np.arange(len(X)) % 2, "purple", X[1])  # half of the rows unseen
    with pytest.warns(UnseenCategoryWarning, match=r"column '1' .*not seen in fit: \['purple'\]"):
        pred = loaded.predict(new)
    assert len(pred) == len(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnseenCategoryWarning)
        loaded.predict(X)  # seen categories: no warning


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_cli_predict_warns_about_unseen_categories(spec, fitted, tmp_path):
    """A CSV header reads "0", "1": the integer labels are found by their text."""
    _no_categories(spec)
    X, _ = _table(spec=spec)
    model = _saved(fitted[spec.id], tmp_path)
    csv, out = tmp_path / "new.csv", tmp_path / "p.csv"
    X.replace({"red": "purple"}).to_csv(csv, index=False)
    with pytest.warns(UnseenCategoryWarning, match="'purple'"):
        code = main(["predict", "--model", str(model), "--csv", str(csv), "--out", str(out)])
    assert code == 0
    assert len(pd.read_csv(out)) == len(X)


# --------------------------------------------------------------------- permissions
@pytest.mark.parametrize("umask,mode", [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_files_get_the_users_umask(umask, mode, fitted, tmp_path):
    est = fitted["BendOCTClassifier"]
    old = os.umask(umask)
    try:
        save_model(est, tmp_path / "m.json")
        est.tree_.save(tmp_path / "tree.json")
        fitted["RUGClassifier"].rules_.save(tmp_path / "rules.json")
    finally:
        os.umask(old)
    for name in ("m.json", "tree.json", "rules.json"):
        assert (tmp_path / name).stat().st_mode & 0o777 == mode, name


# --------------------------------------------------------------------- checked files
def _internal(tree: dict) -> list[int]:
    return [n for n, f in enumerate(tree["feature"]) if f != -1]


def _leaf(tree: dict) -> int:
    return next(n for n, f in enumerate(tree["feature"]) if f == -1)


def _set(path: str, value):
    """A change of the saved description: set the item at ``path`` (keys and indices)."""
    def change(d: dict) -> None:
        *head, last = path
        for key in head:
            d = d[key]
        d[last] = value(d) if callable(value) else value
    return change


def _cycle(d: dict) -> None:
    """The last split's right child becomes the root."""
    t = d["tree"]
    t["right"][_internal(t)[-1]] = 0


def _shared(d: dict) -> None:
    t = d["tree"]
    t["right"][0] = t["left"][0]


def _leaf_with_children(d: dict) -> None:
    t = d["tree"]
    leaf = _leaf(t)
    t["left"][leaf], t["right"][leaf] = 0, 0


def _multiway_cycle(d: dict) -> None:
    t = d["tree"]
    n = max(n for n, f in enumerate(t["feature"]) if f >= 0)
    t["children"][n][0][1] = 0


def _multiway_code(d: dict) -> None:
    t = d["tree"]
    t["children"][0][0][0] = [99]


def _multiway_overlap(d: dict) -> None:
    kids = d["tree"]["children"][0]
    kids[1][0] = kids[1][0] + kids[0][0]


BAD_FILES = [
    # binary tree (BendOCT: literals on raw columns)
    ("cycle", "BendOCTClassifier", _cycle, "must come after its parent"),
    ("node reached twice", "BendOCTClassifier", _shared, "child of both"),
    ("child out of range", "BendOCTClassifier", _set(["tree", "left", 0], 99), "'left'"),
    ("leaf with children", "BendOCTClassifier", _leaf_with_children, "leaf .* has children"),
    ("feature index too large", "BendOCTClassifier", _set(["tree", "feature", 0], 999),
     r"'feature'\[0\] = 999"),
    ("feature index negative", "BendOCTClassifier", _set(["tree", "feature", 0], -4),
     r"'feature'\[0\] = -4"),
    ("feature index a boolean", "BendOCTClassifier", _set(["tree", "feature", 0], True),
     r"'feature'\[0\] = True"),
    ("threshold text", "BendOCTClassifier", _set(["tree", "threshold", 0], "high"),
     r"'threshold'\[0\] = 'high' must be a finite number"),
    ("class index out of range", "BendOCTClassifier",
     _set(["tree", "value", -1], 7), r"'value'\[\d+\] = 7"),
    ("duplicate classes", "BendOCTClassifier", _set(["tree", "classes"], ["no", "no"]),
     "'classes' has duplicates"),
    ("classes not a list", "BendOCTClassifier", _set(["tree", "classes"], "yes"),
     "'classes' must be a list"),
    ("counts of the wrong shape", "BendOCTClassifier", _set(["tree", "counts"], [[1]]),
     "'counts'"),
    ("arrays of different lengths", "BendOCTClassifier",
     _set(["tree", "threshold"], lambda t: t["threshold"][:-1]), "'threshold' has"),
    ("literal operator", BINARIZED, _set(["literals", 0, "op"], "~"), "operator"),
    ("literal threshold text", BINARIZED,
     _set(["literals", 0], lambda ls: {**ls[0], "op": ">=", "value": "abc"}), "value"),
    ("unknown format version", "BendOCTClassifier", _set(["format"], "optrees-model-9"),
     "format 'optrees-model-9' is not one this optrees version reads"),
    ("columns of another model", "BendOCTClassifier", _set(["columns"], ["a", "b"]),
     "not among its columns"),
    # binary tree on raw columns (CGH)
    ("raw column kind", "CGHClassifier", _set(["raw_columns", 0, "kind"], "date"),
     "kind 'num' or 'onehot'"),
    ("CGH feature index", "CGHClassifier", _set(["tree", "feature", 0], 17), "'feature'"),
    # multiway tree (OMT)
    ("multiway cycle", "OMTClassifier", _multiway_cycle, "must come after its parent"),
    ("multiway code out of range", "OMTClassifier", _multiway_code, "codes"),
    ("multiway overlapping codes", "OMTClassifier", _multiway_overlap, "two children"),
    ("multiway level kind", "OMTClassifier", _set(["tree", "levels", 0, "kind"], "date"),
     "kind 'date'"),
    ("multiway feature index", "OMTClassifier", _set(["tree", "feature", 0], 5), "'feature'"),
    # rule set (RUG)
    ("rule weight NaN", "RUGClassifier", _set(["rules", "rules", 0, "weight"], float("nan")),
     "'weight' = nan must be a finite number"),
    ("rule threshold text", "RUGClassifier",
     _set(["rules", "rules", 0, "literals"], [["0", "<=", "abc"]]), "must be a finite number"),
    ("rule class index", "RUGClassifier", _set(["rules", "rules", 0, "label"], 9), "'label'"),
    ("rule on an unknown column", "RUGClassifier",
     _set(["rules", "feature_names"], ["0", "1", "x"]), "not among the model's columns"),
]


@pytest.mark.parametrize("case", BAD_FILES, ids=[c[0] for c in BAD_FILES])
def test_damaged_file_is_refused_with_one_clear_error(case, fitted, tmp_path):
    _, spec_id, change, message = case
    path = _saved(fitted[spec_id], tmp_path)
    data = json.loads(path.read_text())
    if spec_id != "RUGClassifier":
        assert data["tree"]["feature"][0] >= 0  # the cases need a split at the root
    change(data)
    path.write_text(json.dumps(data))
    with pytest.raises(OptreesInputError, match="is not a valid optrees model file") as info:
        load_model(path)
    text = str(info.value)
    assert len(text.splitlines()) == 1
    assert re.search(message, text), text


@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_saved_file_is_plain_json_and_loads_again(spec, fitted, tmp_path):
    """Every estimator's file is standard JSON (no NaN) and survives save -> load -> save."""
    path = _saved(fitted[spec.id], tmp_path)
    text = path.read_text()
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))
    again = tmp_path / "again.json"
    save_model(load_model(path), again)
    assert json.loads(again.read_text()) == json.loads(text)


def test_loaded_rule_set_is_a_rule_set(fitted, tmp_path):
    X, _ = _table()
    est = fitted["RUGClassifier"]
    loaded = load_model(_saved(est, tmp_path))
    assert isinstance(loaded, RuleSet)
    assert loaded.explain(X.iloc[:3]) == est.explain(X.iloc[:3])
    assert loaded.export_text() == est.export_text()


# --------------------------------------------------------------------- the prediction API
@pytest.mark.parametrize("spec", SPECS, ids=SPEC_IDS)
def test_loaded_model_has_the_estimators_prediction_api(spec, fitted, tmp_path):
    """Issue 42: a loaded model predicts, scores, draws and prints as the estimator does."""
    est = fitted[spec.id]
    model = load_model(_saved(est, tmp_path))
    X, y = _table(spec=spec)
    X_new, y_new = X.iloc[::-1].reset_index(drop=True), y[::-1]
    pred = model.predict(X_new)
    assert np.array_equal(pred, est.predict(X_new))
    assert np.array_equal(model.classes_, est.classes_)
    assert list(model.feature_names_in_) == list(X.columns)  # labels as given, here 0 and 1
    assert list(getattr(est, "feature_names_in_", X.columns)) == list(X.columns)
    if hasattr(est, "predict_proba"):
        proba = model.predict_proba(X_new)
        assert np.allclose(proba, est.predict_proba(X_new))
        assert (np.array_equal(model.classes_[proba.argmax(axis=1)], pred)
                or spec.id.startswith("RUG"))
    else:
        with pytest.raises(OptreesInputError, match="no class probabilities"):
            model.predict_proba(X_new)
    # accuracy from its definition: the share of rows whose prediction is the label
    assert model.score(X_new, y_new) == pytest.approx(np.mean(pred == y_new))
    w = np.arange(1, len(y_new) + 1, dtype=float)
    assert model.score(X_new, y_new, sample_weight=w) == pytest.approx(
        np.sum(w * (pred == y_new)) / w.sum())
    assert model.export_text() == est.export_text()
    if hasattr(est, "to_dot"):
        assert model.to_dot() == est.to_dot()
    model.plot(path=tmp_path / "m.png")
    assert (tmp_path / "m.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_into_a_missing_folder_is_one_clear_error(fitted, tmp_path):
    est = fitted["BendOCTClassifier"]
    with pytest.raises(FileNotFoundError, match="folder .* does not exist"):
        est.plot(path=tmp_path / "no" / "tree.png")
    with pytest.raises(ValueError, match="must end in one of"):
        est.plot(path=tmp_path / "tree.xyz")
    assert list(tmp_path.iterdir()) == []
