"""Issue 42, item 4: the command line draws models, writes probabilities and accuracy, reads
CSV files as people write them (``;``-separated, a duplicate header, a date column, a bad row
named by its line) and checks its output paths before any fit; its defaults are the API's."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pandas as pd
import pytest

import optrees.cli_report as cli_report
from optrees import load_model
from optrees.cli import METHODS, main
from optrees.registry import cli_methods

PNG = b"\x89PNG\r\n\x1a\n"


class Fitted(Exception):
    """Raised by the patched fit: the CLI got as far as fitting."""


@pytest.fixture()
def no_fit(monkeypatch):
    def refuse(*args, **kwargs):
        raise Fitted

    monkeypatch.setattr(cli_report, "fit_quietly", refuse)


def _table(n: int = 120) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"G1": rng.integers(0, 5, n), "b": rng.integers(0, 2, n),
                       "colour": rng.choice(["red", "blue"], n)})
    df["y"] = np.where((df["G1"] == 0) ^ (df["b"] == 1), "yes", "no")
    return df


def _error(capsys, code: int) -> str:
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and err.startswith("optrees: error:"), err
    return err


@pytest.fixture()
def semicolon_csv(tmp_path):
    path = tmp_path / "data.csv"
    _table().to_csv(path, sep=";", index=False)
    return path


FAST = ["--depth", "2", "--time-limit", "20"]


# ------------------------------------------------------------------------------ pictures
@pytest.mark.parametrize("method", ["bendoct", "rug"])
def test_fit_plot_and_plot_command_draw_trees_and_rule_sets(method, semicolon_csv, tmp_path,
                                                            capsys):
    model, fit_png, png = tmp_path / "m.json", tmp_path / "fit.png", tmp_path / "again.png"
    assert main(["fit", "--csv", str(semicolon_csv), "--target", "y", "--method", method,
                 *FAST, "--out", str(model), "--plot", str(fit_png)]) == 0
    assert f"picture written to {fit_png}" in capsys.readouterr().out
    assert main(["plot", str(model), "--out", str(png)]) == 0
    for path in (fit_png, png):
        assert path.read_bytes()[:8] == PNG and path.stat().st_size > 5000


def test_plot_refuses_a_bad_picture_path_before_drawing(semicolon_csv, tmp_path, capsys,
                                                        no_fit):
    args = ["fit", "--csv", str(semicolon_csv), "--target", "y", *FAST]
    err = _error(capsys, main([*args, "--plot", str(tmp_path / "none" / "t.png")]))
    assert "does not exist" in err
    err = _error(capsys, main([*args, "--plot", str(tmp_path / "t.xyz")]))
    assert "must end in one of" in err and ".png" in err


# ------------------------------------------------------------------------------ predict
def test_predict_writes_probabilities_and_the_accuracy(semicolon_csv, tmp_path, capsys):
    model, out = tmp_path / "m.json", tmp_path / "pred.csv"
    assert main(["fit", "--csv", str(semicolon_csv), "--target", "y", *FAST, "--test-size",
                 "0", "--out", str(model)]) == 0
    new = _table(80).sample(frac=1, random_state=3)  # other rows; the target column is there
    new.loc[new.index[:7], "y"] = np.where(new["y"].iloc[:7] == "yes", "no", "yes")  # 7 wrong
    new.to_csv(tmp_path / "new.csv", index=False)
    capsys.readouterr()
    assert main(["predict", "--model", str(model), "--csv", str(tmp_path / "new.csv"),
                 "--proba", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    pred = pd.read_csv(out)
    assert list(pred.columns) == ["prediction", "proba_no", "proba_yes"]
    loaded = load_model(model)
    X = new.drop(columns=["y"])
    assert np.allclose(pred[["proba_no", "proba_yes"]], loaded.predict_proba(X))
    accuracy = np.mean(pred["prediction"].to_numpy() == new["y"].to_numpy())
    assert accuracy == pytest.approx(73 / 80)  # the tree is exact; 7 labels were flipped
    assert re.search(rf"accuracy on .*new.csv: {accuracy:.4f} \(n=80", printed)


def test_predict_to_stdout_keeps_the_accuracy_off_the_csv(semicolon_csv, tmp_path, capsys):
    model = tmp_path / "m.json"
    assert main(["fit", "--csv", str(semicolon_csv), "--target", "y", *FAST,
                 "--out", str(model)]) == 0
    capsys.readouterr()
    assert main(["predict", "--model", str(model), "--csv", str(semicolon_csv)]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == "prediction" and len(out.splitlines()) == 121
    assert "accuracy on" in err and "accuracy" not in out


# ------------------------------------------------------------------------------ CSV files
def test_semicolon_and_tab_files_are_sniffed_and_sep_is_taken(semicolon_csv, tmp_path, capsys):
    """The same tree from a ';' file (sniffed or --sep) as from a ',' file."""
    comma, tab = tmp_path / "comma.csv", tmp_path / "tab.tsv"
    _table().to_csv(comma, index=False)
    _table().to_csv(tab, sep="\t", index=False)
    trees = []
    for argv in (["--csv", str(comma)], ["--csv", str(semicolon_csv)],
                 ["--csv", str(semicolon_csv), "--sep", ";"], ["--csv", str(tab)]):
        assert main(["fit", *argv, "--target", "y", *FAST]) == 0
        trees.append(capsys.readouterr().out.split("\n\n")[1])
    assert len(set(trees)) == 1 and "G1 <= 0.5" in trees[0]


def test_decimal_commas_are_read_as_numbers(tmp_path, capsys):
    """A ';' file from a locale with decimal commas (``171,3``): its number columns are
    read as numbers (a note names them) and split by thresholds, the same tree as from the
    file with decimal points; a column with a marker (``?``) stays text."""
    df = _table().assign(G1=lambda d: d["G1"] + 0.25)
    points, commas = tmp_path / "points.csv", tmp_path / "commas.csv"
    df.to_csv(points, sep=";", index=False)
    df.to_csv(commas, sep=";", index=False, decimal=",")
    assert "0,25" in commas.read_text() and "0.25" in points.read_text()
    trees = []
    for path in (points, commas):
        assert main(["fit", "--csv", str(path), "--target", "y", *FAST]) == 0
        out, err = capsys.readouterr()
        trees.append(out.split("\n\n")[1])
    assert "decimal comma ('G1')" in err and "read as numbers" in err
    assert trees[0] == trees[1] and "G1 <= 0.75" in trees[1]
    marked = tmp_path / "marked.csv"
    marked.write_text(commas.read_text().replace("\n0,25;", "\n?;", 1))
    from optrees.cli_data import read_csv

    # a marker: not every value a number, the column stays text
    assert not pd.api.types.is_numeric_dtype(read_csv(str(marked))["G1"])
    # an empty cell stays missing (then refused by its line), not a number
    gap = tmp_path / "gap.csv"
    gap.write_text(commas.read_text().replace("\n0,25;", "\n;", 1))
    read = read_csv(str(gap))["G1"]
    assert pd.api.types.is_float_dtype(read) and read.isna().sum() == 1


def test_numbers_with_decimal_commas_named_in_the_api_warning():
    """Through the API (a frame read without ``decimal=','``) the column warning says that
    the numbers have decimal commas and how to read them."""
    from optrees import BendOCTClassifier, ColumnWarning

    df = _table()
    X = df[["G1", "b"]].assign(G1=(df["G1"] + 0.25).map(lambda v: f"{v}".replace(".", ",")))
    with pytest.warns(ColumnWarning, match=r"decimal comma.*decimal=','.*thousands=','"):
        BendOCTClassifier(depth=1).fit(X, df["y"])


@pytest.mark.parametrize("encoding, named", [("utf-8", None), ("utf-8-sig", None),
                                             ("cp1252", "cp1252"), ("latin-1", "latin-1")])
def test_a_file_in_a_western_european_encoding_is_read(encoding, named, tmp_path, capsys):
    """A header and labels with umlauts, written as Excel on Windows writes them (cp1252:
    'ö' one byte, not UTF-8) or with a byte cp1252 leaves undefined (0x81: read as Latin-1),
    give the tree of the UTF-8 file, a note names the encoding; a bad cell is still named by
    its line."""
    df = _table().rename(columns={"G1": "größe"}).assign(y=lambda d: d["y"].map(
        {"yes": "ja", "no": "nö"}))
    if named == "latin-1":
        df["b"] = df["b"].map({0: "\x81", 1: "x"})  # 0x81: undefined in cp1252
    path = tmp_path / "data.csv"
    path.write_bytes(df.to_csv(index=False, sep=";").encode(encoding))
    assert main(["fit", "--csv", str(path), "--target", "y", *FAST]) == 0
    out, err = capsys.readouterr()
    assert "größe <= 0.5" in out and "class: nö" in out
    assert (f"read as {named}" in err) == (named is not None)
    df.loc[41, "größe"] = np.nan  # data row 41 is line 43
    path.write_bytes(df.to_csv(index=False, sep=";").encode(encoding))
    assert main(["fit", "--csv", str(path), "--target", "y"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]  # after the encoding's note
    assert err.startswith("optrees: error:") and f"line 43 of {path}" in err
    assert "'größe'" in err


def test_duplicate_header_is_refused(tmp_path, capsys, no_fit):
    path = tmp_path / "dup.csv"
    path.write_text("a,a,y\n1,2,0\n2,3,1\n3,1,0\n")
    err = _error(capsys, main(["fit", "--csv", str(path), "--target", "y"]))
    assert "duplicate column names ['a']" in err


def test_a_header_of_repeated_numbers_is_data_not_a_header(tmp_path, capsys, no_fit):
    """A headerless file whose first row repeats a value (student.csv: 0;0;18;...) is
    refused as a file without a header, not as duplicate column names."""
    path = tmp_path / "bare.csv"
    path.write_text("0;0;18;1\n1;0;17;0\n0;1;16;1\n")
    err = _error(capsys, main(["fit", "--csv", str(path), "--target", "1"]))
    assert "line 1 of" in err and "is data, not a header" in err and "0, 0, 18" in err
    assert "duplicate" not in err


def test_a_header_of_numbers_is_warned_about(tmp_path, capsys):
    """A file without a header row (its first line is data: every name a number) fits, but
    says on stderr that its first row became the header; a header of names does not."""
    rows = "\n".join(f"{i % 3}.5,{i % 2},{i % 2}" for i in range(40))
    path = tmp_path / "bare.csv"
    path.write_text("0.25,1,0\n" + rows + "\n")
    assert main(["fit", "--csv", str(path), "--target", "0", *FAST]) == 0
    err = capsys.readouterr().err
    assert "line 1 of" in err and "looks like data" in err and "0.25, 1, 0" in err
    path.write_text("x,b,y\n" + rows + "\n")
    assert main(["fit", "--csv", str(path), "--target", "y", *FAST]) == 0
    assert "warning" not in capsys.readouterr().err


def test_a_header_of_data_values_is_named(tmp_path, capsys):
    """A headerless file whose first line holds text values (ILPD: 65,Female,0.7,...; the
    thoracic file: DGN2,2.88,...,F,F,T) is named as data: more than half of its cells are
    numbers or values found in their own column.  Before, the first was fitted silently
    with its first row as names, the second refused as "duplicate column names"."""
    rows = [f"{40 + i},{'Female' if i % 3 else 'Male'},{i % 5}.5,{i % 2}" for i in range(30)]
    path = tmp_path / "ilpd.csv"
    path.write_text("\n".join(rows) + "\n")
    assert main(["fit", "--csv", str(path), "--target", "0", *FAST]) == 0
    err = capsys.readouterr().err
    assert "line 1 of" in err and "looks like data" in err and "'Male'" in err
    path.write_text("\n".join(f"D{i % 3},{i}.5,F,T,{'F' if i % 2 else 'T'}" for i in range(30)))
    err = _error(capsys, main(["fit", "--csv", str(path), "--target", "T"]))
    assert "is data, not a header" in err and "'D0'" in err and "duplicate" not in err
    # names that happen to be values elsewhere, or a minority of them, are a header
    path.write_text("age,sex,y,x\n" + "\n".join(rows) + "\n")
    assert main(["fit", "--csv", str(path), "--target", "y", *FAST]) == 0
    assert "warning" not in capsys.readouterr().err
    path.write_text("age,Male,y,x\n" + "\n".join(rows) + "\n")
    assert main(["fit", "--csv", str(path), "--target", "y", *FAST]) == 0
    assert "warning" not in capsys.readouterr().err


def test_dropna_leaves_out_rows_with_a_missing_value(tmp_path, capsys):
    """Without ``--dropna`` a missing cell is refused by its line, with the hint; with it
    the rows are left out with a note and the fit is the fit of the other rows, and a bad
    weight after them is still named by its line in the file."""
    df = _table()
    df["w"] = 1.0
    df["G1"] = df["G1"].astype(float)
    df.loc[[3, 7], "G1"] = np.nan
    path, kept = tmp_path / "gaps.csv", tmp_path / "kept.csv"
    df.to_csv(path, index=False)
    df.drop(index=[3, 7]).to_csv(kept, index=False)
    err = _error(capsys, main(["fit", "--csv", str(path), "--target", "y", *FAST]))
    assert "line 5 of" in err and "(and 1 more rows)" in err and "--dropna" in err
    assert main(["fit", "--csv", str(kept), "--target", "y", *FAST]) == 0
    want = capsys.readouterr().out
    assert main(["fit", "--csv", str(path), "--target", "y", "--dropna", *FAST]) == 0
    got = capsys.readouterr()
    assert "left out 2 of 120 rows" in got.err and "line 5 of" in got.err
    def tree(out: str) -> str:  # the printed tree and scores, not the seconds
        return "\n".join(line for line in out.splitlines() if "s (solver" not in line)

    assert tree(got.out) == tree(want)
    df.loc[9, "w"] = -1.0  # row 9: line 11, after the two left out
    df.to_csv(path, index=False)
    assert main(["fit", "--csv", str(path), "--target", "y", "--dropna", "--weight-column",
                 "w", *FAST]) == 2
    err = capsys.readouterr().err
    assert "line 11 of" in err and "negative" in err
    df["G1"] = np.nan
    df.to_csv(path, index=False)
    assert main(["fit", "--csv", str(path), "--target", "y", "--dropna", *FAST]) == 2
    assert "every row has a missing value" in capsys.readouterr().err


def test_date_column_is_refused_as_in_the_api(tmp_path, capsys, no_fit):
    df = _table()
    df["when"] = pd.date_range("2020-01-01", periods=len(df)).strftime("%Y-%m-%d")
    df.to_csv(tmp_path / "dates.csv", index=False)
    err = _error(capsys, main(["fit", "--csv", str(tmp_path / "dates.csv"), "--target", "y"]))
    assert "'when'" in err and "dates and times are not supported" in err


def test_text_that_is_not_a_date_is_a_category(tmp_path, capsys):
    df = _table()
    df["code"] = np.where(df["b"] == 1, "2020-01-01", "none")  # not every value is a date
    df.to_csv(tmp_path / "codes.csv", index=False)
    assert main(["fit", "--csv", str(tmp_path / "codes.csv"), "--target", "y", *FAST]) == 0


def test_negative_weight_is_named_by_its_line_in_the_file(tmp_path, capsys, no_fit):
    df = _table()
    df["w"] = 1.0
    df.loc[41, "w"] = -2.0  # data row 41 (0-based) is line 43: header, then rows from line 2
    path = tmp_path / "w.csv"
    text = df.to_csv(index=False).splitlines()
    text.insert(10, "")  # a blank line before it: pandas skips it, the line count does not
    path.write_text("\n".join(text) + "\n")
    err = _error(capsys, main(["fit", "--csv", str(path), "--target", "y",
                               "--weight-column", "w"]))
    assert f"line 44 of {path}" in err and "negative weight (-2)" in err
    assert path.read_text().splitlines()[43].endswith(",-2.0")


def test_missing_value_is_named_by_its_line(tmp_path, capsys, no_fit):
    path = tmp_path / "nan.csv"
    path.write_text('G1,note,y\n1,"two\nlines",0\n2,,1\n3,c,0\n')
    err = _error(capsys, main(["fit", "--csv", str(path), "--target", "y"]))
    assert f"line 4 of {path}" in err and "'note'" in err


# ------------------------------------------------------------------------------ output paths
def test_unwritable_output_folder_is_found_before_fitting(tmp_path, capsys, no_fit):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        probe = folder / "probe"
        try:
            probe.write_text("x")  # root may write anyway: then use a read-only file system
            probe.unlink()
            target = "/sys/optrees-model.json"
        except OSError:
            target = str(folder / "m.json")
        err = _error(capsys, main(["fit", "--dataset", "monk1", "--out", target]))
        assert "is not writable" in err
    finally:
        folder.chmod(0o755)


# ------------------------------------------------------------------------------ defaults
@pytest.mark.parametrize("method", sorted(METHODS))
def test_cli_defaults_are_the_apis(method, monkeypatch):
    """Without --depth / --lam / --time-limit the estimator gets its own defaults."""
    built = {}

    def keep(est, *args, **kwargs):
        built["est"] = est
        raise Fitted

    monkeypatch.setattr(cli_report, "fit_quietly", keep)
    with pytest.raises(Fitted):
        main(["fit", "--dataset", "monk1", "--method", method])
    cls = cli_methods()[method].load()
    defaults = {k: p.default for k, p in inspect.signature(cls).parameters.items()}
    params = built["est"].get_params()
    for name in ("depth", "max_depth", "lam", "time_limit"):
        if name in defaults:
            assert params[name] == defaults[name], name


def test_help_and_settings_line_show_the_methods_defaults(capsys, monkeypatch):
    assert main(["fit", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert re.search(r"--depth DEPTH .*bendoct[^)]*: 3", text)
    assert re.search(r"--lam LAM .*bendoct: 0.01", text)
    monkeypatch.setattr(cli_report, "fit_quietly", lambda *a, **k: (_ for _ in ()).throw(Fitted))
    with pytest.raises(Fitted):
        main(["fit", "--dataset", "monk1", "--method", "bendoct"])
    assert capsys.readouterr().out.startswith("bendoct: depth 3, lam 0.01, time limit 60s")


def test_na_reads_a_marker_as_a_missing_value(tmp_path, capsys):
    """UCI's '?' in a numeric column: without ``--na`` the column is read as categories and
    the warning names the flag; with ``--na '?'`` the cells are missing (refused, the hint
    names --dropna), and with ``--dropna`` too the fit is that of the other rows, on
    thresholds of the numbers (``G1 <= 0.5``), in fit, predict and compare alike."""
    df = _table()
    df["G1"] = df["G1"].astype(object)
    df.loc[[3, 7], "G1"] = "?"
    path, kept = tmp_path / "marks.csv", tmp_path / "kept.csv"
    df.to_csv(path, index=False)
    df.drop(index=[3, 7]).to_csv(kept, index=False)
    from optrees import ColumnWarning

    with pytest.warns(ColumnWarning, match=r"hold numbers and \['\?'\].*--na '\?'"):
        assert main(["fit", "--csv", str(path), "--target", "y", *FAST]) == 0
    got = capsys.readouterr()
    assert "G1 = 0" in got.out or "G1 != 0" in got.out
    assert "G1 <=" not in got.out
    err = _error(capsys, main(["fit", "--csv", str(path), "--target", "y", "--na", "?", *FAST]))
    assert "line 5 of" in err and "missing" in err and "--dropna" in err
    assert main(["fit", "--csv", str(kept), "--target", "y", *FAST]) == 0
    want = capsys.readouterr().out
    model = tmp_path / "m.json"
    assert main(["fit", "--csv", str(path), "--target", "y", "--na", "?", "--dropna",
                 "--out", str(model), *FAST]) == 0
    got = capsys.readouterr()
    assert "left out 2 of 120 rows" in got.err and "G1 <= 0.5" in got.out
    assert [s for s in got.out.splitlines() if "|" in s] == \
        [s for s in want.splitlines() if "|" in s]
    out = tmp_path / "p.csv"
    assert main(["predict", "--model", str(model), "--csv", str(kept), "--out", str(out),
                 "--na", "?"]) == 0
    assert len(pd.read_csv(out)) == 118


def test_names_reads_a_file_without_a_header_row(tmp_path, capsys):
    """``--names`` names the columns of a headerless file: its first line is data (the fit
    is that of the same rows with a header), a bad cell is named by its own line (line 1 is
    data now), and a wrong count or a repeated name is refused before any fit."""
    df = _table()
    df.loc[0, "G1"] = 3  # the first row: a row the fit must keep
    headed, bare = tmp_path / "headed.csv", tmp_path / "bare.data"
    df.to_csv(headed, index=False)
    df.to_csv(bare, index=False, header=False)
    names = ",".join(df.columns)
    assert main(["fit", "--csv", str(headed), "--target", "y", *FAST]) == 0
    want = capsys.readouterr().out
    assert main(["fit", "--csv", str(bare), "--names", names, "--target", "y", *FAST]) == 0
    got = capsys.readouterr().out
    assert [s for s in got.splitlines() if "|" in s or "accuracy" in s] == \
        [s for s in want.splitlines() if "|" in s or "accuracy" in s]
    assert main(["fit", "--csv", str(bare), "--target", "y", *FAST]) == 2
    warning, err = capsys.readouterr().err.strip().splitlines()
    assert "looks like data" in warning and "--names" in warning
    assert "target column 'y' not in" in err and "--names" in err
    err = _error(capsys, main(["fit", "--csv", str(bare), "--names", "G1,b,colour",
                               "--target", "y", *FAST]))
    assert "3 names" in err and "4 fields" in err
    err = _error(capsys, main(["fit", "--csv", str(bare), "--names", "G1,b,b,y",
                               "--target", "y", *FAST]))
    assert "['b'] more than once" in err
    df["w"] = 1.0
    df.loc[4, "w"] = -2.0  # row 4: line 5 of the bare file (line 6 with a header)
    df.to_csv(bare, index=False, header=False)
    err = _error(capsys, main(["fit", "--csv", str(bare), "--names", names + ",w",
                               "--target", "y", "--weight-column", "w", *FAST]))
    assert "line 5 of" in err and "negative" in err


def test_a_classifier_on_a_numeric_target_says_each_value_is_a_class(tmp_path, capsys):
    """``--method`` of a classifier on a target with many distinct numbers (a regression
    when nothing says the task) fits, with a note that each value is a class; ``--task
    classification`` (the user's own choice) and a target of few labels have no note."""
    df = _table()
    df["price"] = np.arange(len(df)) * 3 + 1000  # 120 distinct integers
    path = tmp_path / "prices.csv"
    df.to_csv(path, index=False)
    base = ["fit", "--csv", str(path), "--target", "price", "--depth", "1"]
    assert main([*base, "--method", "bendoct"]) == 0
    err = capsys.readouterr().err
    assert "note: target 'price' is integer with 120 distinct values" in err
    assert "each value as a class" in err
    assert main([*base, "--method", "bendoct", "--task", "classification"]) == 0
    assert "each value as a class" not in capsys.readouterr().err
    assert main(["fit", "--csv", str(path), "--target", "y", "--depth", "1",
                 "--method", "bendoct", "--drop", "price"]) == 0
    assert "each value as a class" not in capsys.readouterr().err


def test_predict_names_the_line_of_a_row_it_cannot_predict(tmp_path, capsys):
    """A row with an empty cell has no prediction: ``predict`` names its line in the file
    (not the model's 'X contains missing values'), and writes nothing."""
    df = _table()
    model, path, out = tmp_path / "m.json", tmp_path / "new.csv", tmp_path / "p.csv"
    train = tmp_path / "train.csv"
    df.to_csv(train, index=False)
    assert main(["fit", "--csv", str(train), "--target", "y", "--out", str(model),
                 *FAST]) == 0
    capsys.readouterr()
    new = df.drop(columns=["y"])
    new["G1"] = new["G1"].astype(float)
    new.loc[[6, 9], "G1"] = np.nan
    new.to_csv(path, index=False)
    err = _error(capsys, main(["predict", "--model", str(model), "--csv", str(path),
                               "--out", str(out)]))
    assert "line 8 of" in err and "'G1'" in err and "(and 1 more rows)" in err
    assert not out.exists()
