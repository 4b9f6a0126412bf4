"""Command line: demo, fit/predict round trips, a newcomer's CSV with every method.
Bad input to the CLI is in test_bad_input.py."""

import re

import numpy as np
import pandas as pd
import pytest

from optrees import load_dataset, load_model
from optrees.cli import main
from optrees.registry import task_methods


def test_demo(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "test accuracy" in out and "gap" in out and "a1 = 1" in out
    regression = out.split("OptimalTreeRegressor, depth 2")[1]  # the regression part
    assert "test R²" in regression and regression.count("value: ") == 4
    assert "status          : optimal over every threshold" in regression


@pytest.mark.parametrize("stratify, as_array", [(True, False), (False, False), (False, True)])
def test_split_rows_is_sklearns_split(stratify, as_array):
    """The CLI's split draws row positions, and gives what scikit-learn's
    ``train_test_split`` gives on the tables themselves (the oracle): same rows, same index,
    same types."""
    from sklearn.model_selection import train_test_split

    from optrees.cli_data import split_rows

    X, y = load_dataset("monk1")
    y = y.to_numpy() if as_array else y
    for seed in (0, 7):
        ours = split_rows(X, y, 0.25, seed, stratify=stratify)
        ref = train_test_split(X, y, test_size=0.25, random_state=seed,
                               stratify=y if stratify else None)
        for a, b in zip(ours, ref, strict=True):
            assert type(a) is type(b)
            if isinstance(b, np.ndarray):
                np.testing.assert_array_equal(a, b)
            else:
                pd.testing.assert_frame_equal(a, b) if isinstance(b, pd.DataFrame) \
                    else pd.testing.assert_series_equal(a, b)


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


def test_accelerated_switches(capsys):
    argv = ["fit", "--dataset", "monk3", "--depth", "3", "--penalty", "leaves", "--lam", "0.01",
            "--polishing", "--path-bound-cuts", "--time-limit", "60"]
    assert main(argv) == 0
    assert "status          : optimal" in capsys.readouterr().out


def test_split_bound_cuts_flag(capsys, monkeypatch):
    """The flag reaches the estimator, and both settings prove the same optimum (how much
    faster the cuts are is measured by bench/accel_bendoct.py, not here)."""
    import optrees.cli as cli

    built = []
    build = cli._build_estimator
    monkeypatch.setattr(cli, "_build_estimator", lambda args: built.append(build(args))
                        or built[-1])
    argv = ["fit", "--dataset", "monk2", "--depth", "3", "--penalty", "leaves", "--lam", "0.01",
            "--time-limit", "60"]
    objectives = []
    for flag, expected in (("--split-bound-cuts", True), ("--no-split-bound-cuts", False)):
        assert main(argv + [flag]) == 0
        out = capsys.readouterr().out
        assert "status          : optimal" in out
        objectives.append(re.search(r"objective\s*: (\S+)", out).group(1))
        assert built[-1].split_bound_cuts is expected
    assert objectives[0] == objectives[1]
    assert main(["fit", "--dataset", "monk3", "--method", "flow", "--split-bound-cuts"]) == 2
    assert "--split-bound-cuts is not used by --method flow" in capsys.readouterr().err


def test_eqp_flag(capsys):
    argv = ["fit", "--dataset", "monk3", "--depth", "2", "--penalty", "leaves", "--lam", "0.01",
            "--plain", "--eqp", "chain_da-group", "--time-limit", "60"]
    assert main(argv) == 0
    assert "status          : optimal" in capsys.readouterr().out
    assert main(argv[:-4] + ["--eqp", "chain-grouped"]) == 2
    err = capsys.readouterr().err
    assert "chain-grouped" in err and "recursive_da-group" in err
    assert main(["fit", "--dataset", "monk3", "--method", "flow", "--eqp", "basic-basic"]) == 2
    assert "need --method benders" in capsys.readouterr().err


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


def test_datasets_listing(capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    assert "kr-vs-kp" in out and "3196" in out


def _newcomer_csv(path, n=80, seed=1):
    """What a newcomer has: a header row, string labels, string categories, numbers."""
    rng = np.random.default_rng(seed)
    color = rng.choice(["red", "green", "blue"], n)
    size = rng.choice(["S", "M", "L"], n)
    age = rng.integers(18, 70, n)
    label = np.where((color == "red") | (age > 55), "buys", "passes")
    pd.DataFrame({"color": color, "size": size, "age": age, "label": label}).to_csv(
        path, index=False)
    return label


@pytest.mark.parametrize("method", sorted(task_methods("classification")))
def test_newcomer_csv_with_string_labels_and_categories(method, tmp_path, capsys):
    """Every classification method (the regression method: test_cli_regression.py); robust
    trees take integer features only (test_cli_robust.py), so string categories are one
    error naming the column."""
    csv = tmp_path / "shop.csv"
    label = _newcomer_csv(csv)
    if method == "robust":
        assert main(["fit", "--csv", str(csv), "--target", "label", "--method", method]) == 2
        assert "column 'color' is not numeric" in capsys.readouterr().err
        return
    model = tmp_path / "model.json"
    argv = ["fit", "--csv", str(csv), "--target", "label", "--out", str(model)]
    argv += [] if method == "benders" else ["--method", method]  # benders is the default
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "train accuracy" in out and "test accuracy" in out
    assert "color" in out  # rules / splits read in the CSV's own words
    preds = tmp_path / "pred.csv"
    assert main(["predict", "--model", str(model), "--csv", str(csv), "--out", str(preds)]) == 0
    p = pd.read_csv(preds)["prediction"].to_numpy()
    assert set(p) <= {"buys", "passes"}
    assert (p == label).mean() >= 0.9  # two splits (color, age) explain the labels


def test_omt_categorical_nodes(capsys):
    """monk1 (y = a1 == a2 or a5 == 1) needs "!= v" nodes (the default) to be fitted exactly
    at depth 3."""
    argv = ["fit", "--dataset", "monk1", "--method", "omt", "--depth", "3", "--time-limit", "30"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "train accuracy  : 1.0000" in out and "a5 in {2, 3, 4}" in out
    assert main(argv + ["--categorical-nodes", "values"]) == 0
    assert "train accuracy  : 1.0000" not in capsys.readouterr().out


def test_omt_ordinal_and_leaf_penalty(capsys):
    """car-evaluation's columns are ordered: a rule tests a run of categories; the paper's
    objective (leaf penalty 0) keeps 4 rules with 279 training errors; the default penalty
    (0.02) and the one "auto" chooses on held-out rows (0.01) merge leaves that predict alike
    (3 rules, same errors)."""
    argv = ["fit", "--dataset", "car-evaluation", "--method", "omt", "--depth", "2",
            "--time-limit", "30"]
    assert main(argv + ["--leaf-penalty", "0"]) == 0
    out = capsys.readouterr().out
    assert "persons >= 4" in out and "objective       : 279 " in out
    assert "[rule 3," in out and "[rule 4," not in out and "leaf penalty" not in out
    assert main(argv + ["--ordinal", "no", "--leaf-penalty", "0"]) == 0
    out = capsys.readouterr().out
    assert ">= " not in out and "<= " not in out
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "safety >= med" in out and out.count("[rule ") == 3
    assert "objective       : 356.76 " in out  # 279 + 3 * 0.02 * 1296
    assert "leaf penalty    : 0.02 per rule\n" in out
    assert main(argv + ["--leaf-penalty", "auto"]) == 0
    out = capsys.readouterr().out
    assert "safety >= med" in out and out.count("[rule ") == 3
    assert "objective       : 317.88 " in out  # 279 + 3 * 0.01 * 1296
    assert "leaf penalty    : 0.01 per rule (auto: best validation score" in out


def test_rug_fairness_and_lp_method_flags(tmp_path, capsys):
    csv = tmp_path / "shop.csv"
    _newcomer_csv(csv, n=200)
    argv = ["fit", "--csv", str(csv), "--target", "label", "--method", "rug",
            "--fairness", "dmc", "--sensitive", "size", "--epsilon", "0.05"]
    for method in ("simplex", "interior"):
        assert main(argv + ["--lp-method", method]) == 0
        out = capsys.readouterr().out
        assert "THEN" in out and "DMC" in out and "EOP" in out
    assert main(argv + ["--lp-method", "barrier"]) == 2
    assert "--lp-method" in capsys.readouterr().err


def test_fair_tree_with_leaf_constraints_from_the_command_line(tmp_path, capsys):
    """The tree estimators' constraints on the command line (fairness with its positive
    class, legitimate column and dropped sensitive column; minimum leaf size; leaf budget):
    the status line names them, the saved model predicts, and they hold on the rows it was
    fitted on."""
    from optrees.metrics import fairness_gap

    rng = np.random.default_rng(4)
    n = 240
    df = pd.DataFrame({"s": rng.choice(["a", "b"], n), "x": rng.normal(size=n).round(2),
                       "z": rng.integers(0, 3, n)})
    df["label"] = np.where((df.x > 0.2) ^ (df.s == "a") ^ (rng.random(n) < 0.1), "yes", "no")
    csv, model = tmp_path / "f.csv", tmp_path / "m.json"
    df.to_csv(csv, index=False)
    X, y = df[["s", "x", "z"]], df.label.to_numpy()
    base = ["fit", "--csv", str(csv), "--target", "label", "--depth", "2", "--lam", "0",
            "--test-size", "0", "--sensitive", "s", "--epsilon", "0.05", "--out", str(model)]
    cases = [
        (["--method", "bendoct", "--fairness", "statistical_parity", "--min-samples-leaf", "20",
          "--max-leaves", "3"], "statistical_parity", None),
        (["--method", "flow", "--fairness", "equal_opportunity", "--positive-class", "no",
          "--drop-sensitive"], "equal_opportunity", None),
        (["--method", "benders", "--fairness", "conditional_parity", "--legitimate", "z"],
         "statistical_parity", "z"),
    ]
    for extra, kind, legit in cases:
        assert main([*base, *extra]) == 0
        out = capsys.readouterr().out
        assert "status          : optimal" in out and "<= 0.05" in out
        pred = load_model(model).predict(X)
        positive = "no" if "no" in extra else "yes"
        groups = [df[legit] == v for v in (0, 1, 2)] if legit else [np.ones(n, dtype=bool)]
        for g in groups:
            gap = fairness_gap(kind, y[g], pred[g], df.s[g], positive=positive)
            assert gap <= 0.05 + 1e-9
        if "--drop-sensitive" in extra:
            assert "s = " not in out and "s != " not in out
        if "--max-leaves" in extra:
            assert "under min_samples_leaf=20, max_leaves=3, statistical_parity" in out
            assert load_model(model).tree.n_leaves <= 3
            rows = [int(m) for m in re.findall(r"\(\d+/(\d+) correct\)", out)]
            assert rows and min(rows) >= 20 and sum(rows) == n
    assert main([*base, "--method", "bendoct", "--fairness", "statistical_parity",
                 "--positive-class", "maybe"]) == 2
    assert "'maybe' is not a label" in capsys.readouterr().err
    assert main([*base, "--method", "bendoct", "--fairness", "conditional_parity",
                 "--legitimate", "nope"]) == 2
    assert "--legitimate column 'nope'" in capsys.readouterr().err


def test_weight_column_and_class_weight(tmp_path, capsys):
    """--weight-column is a weight, not a feature (every method takes it, OMT too);
    --class-weight maps labels as printed; bad values get one line and exit 2."""
    rng = np.random.default_rng(0)
    n = 60
    df = pd.DataFrame({"a": rng.normal(size=n).round(2), "w": rng.integers(0, 3, n),
                       "label": rng.choice(["yes", "no"], n)})
    csv = tmp_path / "w.csv"
    df.to_csv(csv, index=False)
    base = ["fit", "--csv", str(csv), "--target", "label", "--method", "bendoct", "--depth",
            "2", "--test-size", "0", "--out", str(tmp_path / "m.json")]
    assert main([*base, "--weight-column", "w", "--class-weight", "yes=2"]) == 0
    text = capsys.readouterr().out
    assert " w " not in text and "w <=" not in text  # not a feature of the tree
    assert load_model(tmp_path / "m.json").columns.labels == ["a"]
    # the accuracy the weighted fit maximizes is printed beside the plain one
    est = load_model(tmp_path / "m.json")
    weighted = float(np.average(est.predict(df[["a"]]) == df.label, weights=df.w))
    assert f"(n={n}; weighted {weighted:.4f})" in text
    split = ["fit", "--csv", str(csv), "--target", "label", "--method", "bendoct", "--depth",
             "1", "--test-size", "0.3", "--weight-column", "w"]
    assert main(split) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "accuracy" in ln]
    assert len(lines) == 2 and all("; weighted " in ln for ln in lines)
    assert main([*base, "--class-weight", "maybe=2"]) == 2
    assert "not a label" in capsys.readouterr().err
    assert main([*base, "--weight-column", "nope"]) == 2
    assert "not a column" in capsys.readouterr().err
    assert main(["fit", "--csv", str(csv), "--target", "label", "--method", "omt",
                 "--weight-column", "w", "--depth", "2", "--test-size", "0",
                 "--time-limit", "20"]) == 0
    assert "w <" not in capsys.readouterr().out  # OMT: a weight too, not a feature
