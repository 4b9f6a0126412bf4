"""Command line: demo, fit/predict round trip, and clear errors (exit code 2)."""

import pandas as pd
import pytest

from optrees import load_dataset
from optrees.cli import main


def test_demo(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "test accuracy" in out and "gap" in out and "a1 = 1" in out


def test_fit_then_predict(tmp_path, capsys):
    X, y = load_dataset("monk3")
    csv = tmp_path / "monk3.csv"
    X.assign(label=y).to_csv(csv, index=False)
    model = tmp_path / "model.json"
    assert main(["fit", "--csv", str(csv), "--target", "label", "--depth", "2",
                 "--time-limit", "20", "--out", str(model)]) == 0
    out = capsys.readouterr().out
    assert "status" in out and model.exists()
    preds = tmp_path / "pred.csv"
    assert main(["predict", "--model", str(model), "--csv", str(csv), "--out", str(preds)]) == 0
    p = pd.read_csv(preds)["prediction"]
    assert len(p) == len(y)
    assert (p.to_numpy() == y.to_numpy()).mean() > 0.85  # monk3 depth 2 is ~93 % accurate


@pytest.mark.parametrize(
    "argv,message",
    [
        (["fit", "--dataset", "no-such-data"], "unknown dataset"),
        (["fit", "--csv", "missing.csv", "--target", "y"], "not found"),
        (["fit", "--dataset", "monk1", "--depth", "0"], "depth"),
        (["fit", "--dataset", "monk1", "--lam", "1.5"], "lam"),
        (["fit", "--dataset", "monk1", "--time-limit", "-3"], "time_limit"),
        (["fit", "--dataset", "monk1", "--method", "flow", "--penalty", "leaves"], "benders"),
        (["predict", "--model", "nope.json", "--csv", "x.csv"], "model file"),
    ],
)
def test_errors_are_clear(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_accelerated_switches(capsys):
    argv = ["fit", "--dataset", "monk3", "--depth", "3", "--penalty", "leaves", "--lam", "0.01",
            "--polishing", "--path-bound-cuts", "--time-limit", "60"]
    assert main(argv) == 0
    assert "status          : optimal" in capsys.readouterr().out


@pytest.mark.parametrize(
    "method,dataset,marker,min_accuracy",
    [("rug", "house-votes-84", "THEN class", 0.9), ("cgh", "balance-scale", "LP integral", 0.6)],
)
def test_fit_predict_round_trip(method, dataset, marker, min_accuracy, tmp_path, capsys):
    model = tmp_path / "model.json"
    assert main(["fit", "--dataset", dataset, "--method", method, "--depth", "2",
                 "--time-limit", "30", "--out", str(model)]) == 0
    out = capsys.readouterr().out
    assert marker in out and "train accuracy" in out
    X, y = load_dataset(dataset)
    csv = tmp_path / "data.csv"
    X.to_csv(csv, index=False)
    assert main(["predict", "--model", str(model), "--csv", str(csv)]) == 0
    preds = capsys.readouterr().out.split()[1:]
    assert len(preds) == len(y)
    assert (pd.Series(preds).to_numpy() == y.to_numpy()).mean() > min_accuracy


def test_missing_target_column(tmp_path, capsys):
    csv = tmp_path / "d.csv"
    pd.DataFrame({"a": [0, 1], "b": [1, 0]}).to_csv(csv, index=False)
    assert main(["fit", "--csv", str(csv), "--target", "label"]) == 2
    assert "target column 'label'" in capsys.readouterr().err


def test_unreadable_model_file(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["predict", "--model", str(bad), "--csv", str(bad)]) == 2
    assert "cannot read model file" in capsys.readouterr().err


def test_datasets_listing(capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    assert "kr-vs-kp" in out and "3196" in out
