"""``optrees fit --method robust``: the tree, status, worst-case objective, bound and gap of
the API's fit on the same training rows; a saved model predicts as the estimator; bad input
(a non-integer column, a negative budget) is one error line before any fit."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from optrees import RobustTreeClassifier, load_dataset, load_model
from optrees.cli import main
from optrees.cli_data import split


def _balance(tmp_path):
    X, y = load_dataset("balance-scale")
    X = X.astype(np.int64)
    csv = tmp_path / "balance.csv"
    X.assign(label=y).to_csv(csv, index=False)
    return X, y, csv


def _number(out: str, name: str) -> float:
    return float(re.search(rf"{name}\s*: ?(\S+)", out).group(1).rstrip("%"))


@pytest.mark.parametrize("source", ["csv", "dataset"])
def test_fit_prints_the_apis_certified_fit_and_saves_it(source, tmp_path, capsys):
    X, y, csv = _balance(tmp_path)
    model = tmp_path / "m.json"
    data = (["--csv", str(csv), "--target", "label"] if source == "csv"
            else ["--dataset", "balance-scale"])
    assert main(["fit", *data, "--method", "robust", "--budget", "4", "--depth", "2",
                 "--out", str(model)]) == 0
    out = capsys.readouterr().out
    X_tr, _, y_tr, _ = split(X, pd.Series(y, name="label"), 0.25, 0, "classification")
    est = RobustTreeClassifier(depth=2, budget=4).fit(X_tr, y_tr)
    assert est.export_text() in out
    assert "status          : optimal" in out
    assert _number(out, "objective") == pytest.approx(est.objective_, abs=1e-6)
    assert _number(out, "bound") == pytest.approx(est.bound_, abs=1e-6)
    assert "gap: 0.00%" in out and "worst-case training accuracy" in out
    loaded = load_model(model)
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))
    preds = tmp_path / "p.csv"
    assert main(["predict", "--model", str(model), "--csv", str(csv), "--out",
                 str(preds)]) == 0
    np.testing.assert_array_equal(pd.read_csv(preds)["prediction"], est.predict(X))


def test_weight_column_is_a_sample_weight(tmp_path, capsys):
    X, y, _ = _balance(tmp_path)
    csv = tmp_path / "w.csv"
    w = np.arange(len(y)) % 3  # integer weights, zeros too
    X.assign(w=w, label=y).to_csv(csv, index=False)
    argv = ["fit", "--csv", str(csv), "--target", "label", "--method", "robust",
            "--budget", "3", "--depth", "1", "--weight-column", "w", "--test-size", "0"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    est = RobustTreeClassifier(depth=1, budget=3).fit(X, y, sample_weight=w)
    assert _number(out, "objective") == pytest.approx(est.objective_, abs=1e-6)


@pytest.mark.parametrize("column, word", [
    (np.linspace(0, 1, 625), "non-integer values"),
    (np.array(["a", "b", "c", "d", "e"] * 125), "not numeric"),
])
def test_non_integer_column_is_one_error_before_the_fit(column, word, tmp_path, capsys):
    X, y, _ = _balance(tmp_path)
    csv = tmp_path / "bad.csv"
    X.assign(extra=column, label=y).to_csv(csv, index=False)
    model = tmp_path / "m.json"
    code = main(["fit", "--csv", str(csv), "--target", "label", "--method", "robust",
                 "--budget", "1", "--out", str(model)])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""  # not even the settings line: no fit started
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and "column 'extra'" in err and word in err
    assert not model.exists()


def test_negative_budget_is_refused_before_the_fit(capsys):
    code = main(["fit", "--dataset", "balance-scale", "--method", "robust", "--budget", "-1"])
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and captured.out == ""
    assert "--budget -1" in err and "budget must be a number >= 0" in err


def test_proba_of_a_robust_model_is_one_error(tmp_path, capsys):
    X, y, csv = _balance(tmp_path)
    model = tmp_path / "m.json"
    assert main(["fit", "--csv", str(csv), "--target", "label", "--method", "robust",
                 "--depth", "1", "--out", str(model)]) == 0
    capsys.readouterr()
    code = main(["predict", "--model", str(model), "--csv", str(csv), "--proba"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "no class probabilities" in err and len(err.splitlines()) == 1


def test_robust_method_mip_from_the_command_line(tmp_path, capsys, monkeypatch):
    """``--robust-method mip`` runs the MIP (and only then) and prints the same certified
    objective as the API's MIP fit and the search on the same training rows."""
    import optrees.estimators.robust as robust

    calls = []
    real = robust.solve_robust_mip
    monkeypatch.setattr(robust, "solve_robust_mip",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    X, y = load_dataset("monk3")
    csv = tmp_path / "monk3.csv"
    X.astype(np.int64).assign(label=y).to_csv(csv, index=False)
    assert main(["fit", "--csv", str(csv), "--target", "label", "--method", "robust",
                 "--robust-method", "mip", "--budget", "2", "--depth", "1"]) == 0
    out = capsys.readouterr().out
    assert calls == [1]
    X_tr, _, y_tr, _ = split(X.astype(np.int64), pd.Series(y, name="label"), 0.25, 0,
                             "classification")
    mip = RobustTreeClassifier(depth=1, budget=2, method="mip").fit(X_tr, y_tr)
    search = RobustTreeClassifier(depth=1, budget=2).fit(X_tr, y_tr)
    assert mip.stats_["method"] == "mip" and search.stats_["method"] == "search"
    assert "status          : optimal" in out
    assert _number(out, "objective") == pytest.approx(mip.objective_, abs=1e-6)
    assert mip.objective_ == pytest.approx(search.objective_, abs=1e-9)
