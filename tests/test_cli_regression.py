"""``optrees fit --task regression`` (issue #43): the task read off a numeric target, the
report (tree with leaf means and counts, status / objective / bound / gap, R²), the saved
model, ``predict`` and ``plot``, and the options of the regression method.  The CLI runs
in-process through ``optrees.cli.main``, as the other CLI tests do; one subprocess checks the
installed entry point's module end to end."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

import optrees.datasets as datasets_mod
from optrees import OptimalTreeRegressor, load_dataset, load_model
from optrees._validation import MANY_INTEGERS, OptreesInputError, regression_reason
from optrees.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _one_line_error(capsys, code: int) -> str:
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert code == 2, captured.err
    assert len(err.splitlines()) == 1 and err.startswith("optrees: error:"), err
    assert "Traceback" not in captured.out + captured.err
    return err


def _r2(y: np.ndarray, pred: np.ndarray) -> float:
    """R² from its definition: 1 - residual sum of squares / total sum of squares."""
    return float(1 - np.sum((y - pred) ** 2) / np.sum((y - y.mean()) ** 2))


def _shop_csv(path: Path, n: int = 120, seed: int = 0) -> pd.DataFrame:
    """A newcomer's regression CSV: a category, a number, a price in cents (integers)."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"colour": rng.choice(["red", "green", "blue"], n),
                       "age": rng.integers(18, 70, n)})
    df["price"] = (100 * ((df["colour"] == "red") * 3 + df["age"] / 10
                          + rng.normal(size=n) * 0.3)).round().astype(int)
    df.to_csv(path, index=False)
    return df


# ------------------------------------------------------------------------- the task
@pytest.mark.parametrize("values,expected", [
    ([0.5, 1.0, 2.0] * 10, "numeric with 3 distinct values, not all integers"),
    (list(range(MANY_INTEGERS + 1)), f"integer with {MANY_INTEGERS + 1} distinct values"),
    (list(range(MANY_INTEGERS)), None),          # 30 integers: classes (letter has 26)
    ([0, 1] * 20, None),
    (["a", "b"] * 20, None),
    ([True, False] * 20, None),
    ([1.0, 2.0, 3.0] * 10, None),                # integral floats are labels
])
def test_the_task_is_read_off_the_target(values, expected):
    reason = regression_reason(pd.Series(values))
    assert reason is None if expected is None else reason.startswith(expected)


def test_a_bundled_regression_fit_detects_the_task_and_reports_it(tmp_path, capsys):
    model, picture = tmp_path / "liver.json", tmp_path / "liver.png"
    assert main(["fit", "--dataset", "liver-disorders", "--depth", "2", "--out", str(model),
                 "--plot", str(picture)]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first == ("target 'drinks' is numeric with 16 distinct values, not all integers: "
                     "a regression (--task regression); give --task classification to treat "
                     "its values as classes")
    assert "regtree: depth 2, lam 0, time limit 60s" in out
    # the tree: one line per leaf with its mean and its training rows
    leaves = re.findall(r"value: ([-\d.e+]+)  \(n=(\d+)\)", out)
    assert len(leaves) == 4 and sum(int(n) for _, n in leaves) == 258  # 75 % of 345 rows
    assert "status          : optimal over every threshold" in out
    status = re.search(r"objective\s+: (\S+)\s+bound: (\S+)\s+gap: 0.00%", out)
    assert status and float(status[1]) == pytest.approx(float(status[2]))
    # the printed R² are those of the saved model on the split's rows, from the definition
    X, y = load_dataset("liver-disorders")
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, random_state=0)
    saved = load_model(model)
    for part, Xp, yp in (("train", X_tr, y_tr), ("test", X_te, y_te)):
        line = re.search(rf"{part} R²\s+: (\S+)  \(n=(\d+), RMSE (\S+)\)", out)
        pred = saved.predict(Xp)
        assert float(line[1]) == pytest.approx(_r2(yp.to_numpy(), pred), abs=5e-5)
        assert int(line[2]) == len(yp)
        rmse = np.sqrt(np.mean((yp.to_numpy() - pred) ** 2))
        assert float(line[3]) == pytest.approx(rmse, rel=5e-4)
    # leaf means of the text are the training means of the rows reaching each leaf
    means = sorted(float(v) for v, _ in leaves)
    leaf_of = saved.tree.apply(saved.binary(X_tr))
    assert means == pytest.approx(sorted(y_tr.groupby(leaf_of).mean()), rel=1e-5)
    assert json.loads(model.read_text())["target"] == "drinks"
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_forcing_classification_on_a_numeric_target_is_one_clear_error(capsys):
    code = main(["fit", "--dataset", "liver-disorders", "--task", "classification"])
    err = _one_line_error(capsys, code)
    assert "Unknown label type: continuous" in err


def test_an_integer_target_with_few_values_is_classification_unless_told(tmp_path, capsys):
    """Prices in whole cents have many distinct values: a regression; a target of a few
    integers stays classes, and --task regression makes it a number."""
    csv = tmp_path / "shop.csv"
    df = _shop_csv(csv)
    assert df["price"].nunique() > MANY_INTEGERS
    assert main(["fit", "--csv", str(csv), "--target", "price", "-q"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("target 'price' is integer with") and "test R²" in out
    assert "colour = red" in out or "colour != red" in out
    df.assign(stars=df["age"] // 20).to_csv(csv, index=False)  # 3 distinct integers
    assert main(["fit", "--csv", str(csv), "--target", "stars", "--depth", "1", "-q"]) == 0
    out = capsys.readouterr().out
    assert "regression" not in out and "test accuracy" in out
    assert main(["fit", "--csv", str(csv), "--target", "stars", "--depth", "1",
                 "--task", "regression", "-q"]) == 0
    out = capsys.readouterr().out
    assert "regtree: depth 1" in out and "test R²" in out and "target 'stars' is" not in out


def test_a_regression_option_implies_the_task(capsys):
    """``--leaf-model`` is taken by regression methods only: without --task or --method it
    makes the fit a regression, said in one line; with --task classification it is refused."""
    assert main(["fit", "--dataset", "liver-disorders", "--leaf-model", "linear", "--depth",
                 "1", "--min-samples-leaf", "20"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "--leaf-model is a regression option: --task regression"
    assert "regtree: depth 1" in out and "test R²" in out
    err = _one_line_error(capsys, main(["fit", "--dataset", "liver-disorders", "--task",
                                        "classification", "--leaf-model", "linear"]))
    assert "--leaf-model is not used by --method benders" in err


def test_linear_leaves_take_a_leaf_budget_from_the_cli(tmp_path, capsys):
    """``--leaf-model linear --max-leaves 3`` at depth 3: a proved tree of at most 3 leaves
    (each of >= 20 rows), the budget saved with the model."""
    model = tmp_path / "m.json"
    assert main(["fit", "--dataset", "liver-disorders", "--task", "regression",
                 "--leaf-model", "linear", "--depth", "3", "--max-leaves", "3",
                 "--min-samples-leaf", "20", "--out", str(model)]) == 0
    out = capsys.readouterr().out
    assert "status          : optimal" in out
    counts = [int(n) for n in re.findall(r"\(n=(\d+)\)", out)]
    assert 2 <= len(counts) <= 3 and min(counts) >= 20
    assert json.loads(model.read_text())["params"]["max_leaves"] == 3
    assert (load_model(model).tree.feature < 0).sum() == len(counts)


def test_omt_regression_from_the_cli(tmp_path, capsys):
    """``--method omt-reg``: OMT's multiway regression tree; the printed rule values are the
    training means of their rows, and the saved model predicts them."""
    csv, model = tmp_path / "shop.csv", tmp_path / "m.json"
    df = _shop_csv(csv)
    assert main(["fit", "--csv", str(csv), "--target", "price", "--method", "omt-reg",
                 "--depth", "2", "--time-limit", "30", "--test-size", "0", "--out",
                 str(model)]) == 0
    out = capsys.readouterr().out
    assert "omt-reg: depth 2" in out and "train R²" in out
    assert "every rule set on its bins" in out  # its bound holds over its bins only
    saved = load_model(model)
    X, y = df[["colour", "age"]], df["price"].to_numpy(float)
    pred = saved.predict(X)
    for value in np.unique(pred):  # each rule predicts its rows' training mean
        assert value == pytest.approx(y[pred == value].mean())
    line = re.search(r"train R²\s+: (\S+)", out)
    assert float(line[1]) == pytest.approx(_r2(y, pred), abs=5e-5)
    assert _r2(y, pred) > 0.5


# ------------------------------------------------------------------------- options
@pytest.mark.parametrize("argv,message", [
    (["--task", "regression", "--method", "benders"],
     "--method benders is a classification method; --task regression takes --method regtree "
     "or omt-reg"),
    (["--method", "omt-reg", "--task", "classification"],
     "--method omt-reg is a regression method"),
    (["--method", "omt-reg", "--omt-loss", "f1"], "loss"),
    (["--method", "regtree", "--task", "classification"],
     "--method regtree is a regression method; --task classification takes --method flow, "
     "benders, bendoct, oct, binoct, omt, cgh, rug, rux or robust"),
    (["--task", "regression", "--costs", "costs.csv"], "--costs is not used by --method "
                                                        "regtree"),
    (["--task", "regression", "--class-weight", "balanced"], "--class-weight is not used by "
                                                             "--method regtree"),
    (["--task", "regression", "--bins", "3"], "--bins is not used by --method regtree"),
    (["--task", "regression", "--depth", "9"], "--depth 9: depth=9 is above the upper bound 8"),
    (["--task", "regression", "--lam", "-1"], "--lam -1.0: lam must be"),
    (["--method", "regtree", "--min-samples-leaf", "0"], "min_samples_leaf must be"),
])
def test_regression_options_are_checked_before_any_data_is_loaded(argv, message, capsys,
                                                                  monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the CLI loaded data before checking its options")

    monkeypatch.setattr(datasets_mod, "load_dataset", refuse)
    err = _one_line_error(capsys, main(["fit", "--dataset", "liver-disorders", *argv]))
    assert message in err, err


def test_regression_options_reach_the_estimator_and_weights_are_taken(tmp_path, capsys):
    csv = tmp_path / "shop.csv"
    df = _shop_csv(csv)
    df.assign(w=np.where(df["colour"] == "red", 3.0, 1.0)).to_csv(csv, index=False)
    model = tmp_path / "m.json"
    assert main(["fit", "--csv", str(csv), "--target", "price", "--task", "regression",
                 "--depth", "3", "--lam", "0.01", "--min-samples-leaf", "10",
                 "--max-leaves", "3", "--weight-column", "w", "--out", str(model), "-q"]) == 0
    out = capsys.readouterr().out
    params = json.loads(model.read_text())["params"]
    assert (params["depth"], params["lam"], params["min_samples_leaf"],
            params["max_leaves"]) == (3, 0.01, 10, 3)
    counts = [int(n) for n in re.findall(r"\(n=(\d+), weight", out)]
    assert len(counts) <= 3 and min(counts) >= 10
    assert "weighted" in out  # the R² of the weighted rows too


# ------------------------------------------------------------------------- saved model
def test_predict_and_plot_a_saved_regression_tree(tmp_path, capsys):
    csv, model = tmp_path / "shop.csv", tmp_path / "m.json"
    df = _shop_csv(csv)
    assert main(["fit", "--csv", str(csv), "--target", "price", "--test-size", "0",
                 "--out", str(model), "-q"]) == 0
    capsys.readouterr()
    preds = tmp_path / "p.csv"
    assert main(["predict", "--model", str(model), "--csv", str(csv), "--out",
                 str(preds)]) == 0
    out = capsys.readouterr().out
    pred = pd.read_csv(preds)["prediction"].to_numpy()
    r2 = float(re.search(r"R² on .*: (\S+) \(n=120, target column 'price'\)", out)[1])
    assert r2 == pytest.approx(_r2(df["price"].to_numpy(float), pred), abs=5e-5)
    code = main(["predict", "--model", str(model), "--csv", str(csv), "--proba"])
    assert "--proba needs a classifier" in _one_line_error(capsys, code)
    picture = tmp_path / "tree.svg"
    assert main(["plot", str(model), "--out", str(picture)]) == 0
    svg = picture.read_text()
    assert "value = " in svg and "n=" in svg


def test_predict_scores_only_the_rows_with_a_target_value(tmp_path, capsys):
    """A target column with an empty cell and a '?' (no --na): every row is predicted, the
    R² is of the other rows (written from its definition here) and says how many were
    left out; a column with no number at all gives no R², and no traceback either way."""
    csv, model = tmp_path / "shop.csv", tmp_path / "m.json"
    df = _shop_csv(csv)
    assert main(["fit", "--csv", str(csv), "--target", "price", "--test-size", "0",
                 "--out", str(model), "-q"]) == 0
    holes = df.astype({"price": object})
    holes.loc[[3, 7], "price"] = ["", "?"]
    holed = tmp_path / "holes.csv"
    holes.to_csv(holed, index=False)
    preds = tmp_path / "p.csv"
    capsys.readouterr()
    assert main(["predict", "--model", str(model), "--csv", str(holed), "--out",
                 str(preds)]) == 0
    out = capsys.readouterr().out
    pred = pd.read_csv(preds)["prediction"].to_numpy()
    assert len(pred) == 120
    keep = np.setdiff1d(np.arange(120), [3, 7])
    r2 = float(re.search(r"R² on .*: (\S+) \(n=118, target column 'price'; 2 row", out)[1])
    assert r2 == pytest.approx(_r2(df["price"].to_numpy(float)[keep], pred[keep]), abs=5e-5)
    words = df.assign(price="cheap")
    words.to_csv(holed, index=False)
    assert main(["predict", "--model", str(model), "--csv", str(holed), "--out",
                 str(preds)]) == 0
    assert "R² on" in (out := capsys.readouterr().out) and "not computed" in out


def test_the_module_runs_a_regression_fit_in_a_fresh_interpreter(tmp_path):
    """``python -m optrees.cli`` (what the ``optrees`` script runs): exit 0, the message on
    stdout, nothing on stderr."""
    done = subprocess.run([sys.executable, "-m", "optrees.cli", "fit", "--dataset",
                           "liver-disorders", "--depth", "1", "-q"], capture_output=True,
                          text=True, timeout=120, cwd=str(ROOT))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("target 'drinks' is numeric") and done.stderr == ""
    assert "train R²" in done.stdout


def test_a_constant_target_prints_no_r2(tmp_path, capsys):
    """R² divides by the spread of y: with a constant target the fit's line says it is
    undefined instead of scikit-learn's convention (1.0 for exact predictions)."""
    csv = tmp_path / "flat.csv"
    df = _shop_csv(csv)
    df.assign(price=7.0).to_csv(csv, index=False)
    assert main(["fit", "--csv", str(csv), "--target", "price", "--task", "regression",
                 "--depth", "1", "--time-limit", "20", "--test-size", "0.25"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"train R²\s+: undefined \(y is constant\)", out)
    assert "test R²" in out and "1.0000" not in out


def test_predict_warns_of_an_unseen_category_once(tmp_path, capsys):
    """predict, then the R² of the same rows: one warning for the new colour, not two."""
    csv, model, new = tmp_path / "shop.csv", tmp_path / "m.json", tmp_path / "new.csv"
    df = _shop_csv(csv)
    assert main(["fit", "--csv", str(csv), "--target", "price", "--test-size", "0",
                 "--out", str(model), "-q"]) == 0
    df.assign(colour=np.where(np.arange(len(df)) < 5, "purple", df["colour"])).to_csv(
        new, index=False)
    capsys.readouterr()
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        assert main(["predict", "--model", str(model), "--csv", str(new), "--out",
                     str(tmp_path / "p.csv")]) == 0
    assert sum("not seen in fit: ['purple']" in str(w.message) for w in said) == 1
    assert "R² on" in capsys.readouterr().out


@pytest.mark.parametrize("options,flag,message", [
    (["--depth", "4", "--leaf-model", "linear"], "--depth 4",
     "depth must be <= 3 with leaf_model='linear'"),
    (["--depth", "6", "--max-leaves", "10"], "--max-leaves 10",
     "max_leaves needs depth <= 4"),
])
def test_options_that_conflict_are_refused_before_the_data_is_read(tmp_path, capsys,
                                                                   options, flag, message):
    """A depth the leaf model or leaf budget does not allow: one error naming the option,
    before the settings line and the fit (the file is never read: it does not exist)."""
    code = main(["fit", "--csv", str(tmp_path / "missing.csv"), "--target", "price",
                 "--task", "regression", *options])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("optrees: error:"), err
    assert message in err
    with pytest.raises(OptreesInputError, match=message.replace("(", r"\(")):
        OptimalTreeRegressor(**{"depth": int(options[1]), **(
            {"leaf_model": "linear"} if "linear" in options else {"max_leaves": 10})}
        ).fit("no table", [1.0, 2.0])  # the parameters first, before X is looked at


def test_a_test_part_larger_than_the_training_part_is_said(tmp_path, capsys):
    """--test-size 0.9 fits on 12 of the 120 rows: one warning line says so."""
    csv = tmp_path / "shop.csv"
    _shop_csv(csv)
    assert main(["fit", "--csv", str(csv), "--target", "price", "--depth", "1",
                 "--test-size", "0.9", "-q"]) == 0
    err = capsys.readouterr().err
    assert "--test-size 0.9 leaves 12 of the 120 rows to fit on (fewer than the 108" in err
    assert main(["fit", "--csv", str(csv), "--target", "price", "--depth", "1",
                 "--test-size", "0.25", "-q"]) == 0
    assert "rows to fit on" not in capsys.readouterr().err
