"""``optrees fit --task survival --csv F --event E --time T`` (issue #45): the printed tree
and status lines are the estimator's on the same split, the C-index lines agree with
Harrell's pair definition written here, weights reach the fit, the saved model loads, and
each bad option gives one line and exit code 2 before anything is written."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from oracles import harrell
from sklearn.model_selection import train_test_split

from optrees import OptimalSurvivalTree, load_model
from optrees.cli import main


def survival_frame(n: int = 160) -> pd.DataFrame:
    """Ages and colours with censored survival months (hazard rising with age, higher for
    red), an event flag and integer weights ``w``."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"age": rng.integers(20, 80, n).astype(float),
                       "color": rng.choice(["red", "blue"], n)})
    rate = 0.05 + 0.3 * (df["color"] == "red") + 0.004 * df["age"]
    df["months"] = np.round(rng.exponential(1.0 / rate.to_numpy()), 1)
    df["died"] = (rng.uniform(size=n) < 0.7).astype(int)
    df["w"] = rng.integers(1, 4, n)
    return df


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    df = survival_frame()
    path = tmp_path_factory.mktemp("surv") / "surv.csv"
    df.to_csv(path, index=False)
    return df, path


def _run(capsys, argv):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def _python_fit(df, weights=False, **params):
    X = df[["age", "color"]]
    y = df[["died", "months"]].to_numpy(dtype=float)
    arrays = [X, y, df["w"].to_numpy(dtype=float)] if weights else [X, y]
    parts = train_test_split(*arrays, test_size=0.25, random_state=0)
    est = OptimalSurvivalTree(random_state=0, **params).fit(
        parts[0], parts[2], sample_weight=parts[4] if weights else None)
    return est, parts


def test_report_is_the_estimators_with_c_index_from_its_definition(capsys, table,
                                                                    tmp_path):
    df, path = table
    out_model = tmp_path / "m.json"
    code, out, err = _run(capsys, ["fit", "--task", "survival", "--csv", str(path),
                                   "--event", "died", "--time", "months", "--depth", "2",
                                   "--weight-column", "w", "--out", str(out_model)])
    assert code == 0, err
    est, (X_tr, X_te, y_tr, y_te, *_) = _python_fit(df, weights=True, depth=2)
    assert est.export_text() in out
    assert f"status          : {est.status_}" in out
    assert f"objective       : {est.objective_:g}   bound: {est.bound_:g}" in out
    for name, X, y in (("train", X_tr, y_tr), ("test", X_te, y_te)):
        found = re.search(rf"{name} C-index +: ([0-9.]+)  \(n=(\d+), (\d+) events\)", out)
        assert found, out
        c = harrell(y[:, 0], y[:, 1], est.predict(X))
        assert float(found.group(1)) == pytest.approx(c, abs=5e-5)
        assert int(found.group(2)) == len(y) and int(found.group(3)) == int(y[:, 0].sum())
    model = load_model(out_model)
    np.testing.assert_array_equal(model.predict_survival_function(X_te),
                                  est.predict_survival_function(X_te))


def test_weights_reach_the_fit(capsys, table):
    """Without --weight-column the tree is the unweighted one; with it, the weighted one
    (they differ on this table, so the option is not ignored)."""
    df, path = table
    argv = ["fit", "--task", "survival", "--csv", str(path), "--event", "died", "--time",
            "months", "--depth", "2", "--lam", "0"]
    plain = _python_fit(df.drop(columns="w"), depth=2)[0]
    code, out, err = _run(capsys, [*argv, "--weight-column", "w"])
    weighted = _python_fit(df, weights=True, depth=2)[0]
    assert code == 0 and weighted.export_text() in out
    assert plain.export_text() != weighted.export_text()


BAD = [
    (["--time", "months"], "needs --csv FILE --event COLUMN --time COLUMN"),
    (["--event", "died", "--time", "months", "--target", "died"], "not --target"),
    (["--event", "died", "--time", "months", "--method", "benders"],
     "--method is not used by --task survival"),
    (["--event", "died", "--time", "months", "--class-weight", "balanced"],
     "--class-weight is not used by --task survival"),
    (["--event", "died", "--time", "monthz"], "--time column 'monthz' not in"),
    (["--event", "died", "--time", "months", "--depth", "9"],
     "--depth 9: depth=9 is above the upper bound 3"),
    (["--event", "age", "--time", "months"], "event indicator .* must be bool or 0/1"),
    (["--event", "died", "--time", "died"], "two different columns"),
]


@pytest.mark.parametrize("extra,message", BAD, ids=[m[:30] for _, m in BAD])
def test_bad_options_give_one_line_and_no_file(capsys, table, tmp_path, extra, message):
    _, path = table
    out_model = tmp_path / "m.json"
    code, _, err = _run(capsys, ["fit", "--task", "survival", "--csv", str(path), *extra,
                                 "--out", str(out_model)])
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and re.search(message, err), err
    assert not out_model.exists()


def test_event_and_time_need_the_survival_task(capsys, table):
    _, path = table
    code, _, err = _run(capsys, ["fit", "--csv", str(path), "--target", "died", "--event",
                                 "died", "--time", "months"])
    assert code == 2 and "--event and --time are for --task survival" in err


def test_bundled_survival_dataset_fits_from_the_cli(capsys, tmp_path):
    """``--dataset synthetic-survival`` picks the survival task; its tree and C-index are the
    estimator's on the same split."""
    from optrees.datasets import load_dataset

    out_model = tmp_path / "m.json"
    code, out, _ = _run(capsys, ["fit", "--dataset", "synthetic-survival", "--depth", "2",
                                 "--lam", "0.01", "--out", str(out_model)])
    assert code == 0, out
    X, y = load_dataset("synthetic-survival")
    target = np.column_stack([y["event"], y["time"]]).astype(float)
    Xa, Xb, ya, yb = train_test_split(X, target, test_size=0.25, random_state=0)
    est = OptimalSurvivalTree(depth=2, lam=0.01, random_state=0).fit(Xa, ya)
    assert est.export_text() in out
    assert f"test C-index    : {harrell(yb[:, 0], yb[:, 1], est.predict(Xb)):.4f}" in out
    assert load_model(out_model).export_text() == est.export_text()


@pytest.mark.parametrize("argv,message", [
    (["--dataset", "synthetic-survival", "--task", "regression"], "use --task survival"),
    (["--dataset", "monk1", "--task", "survival"], "not a survival dataset"),
    (["--dataset", "synthetic-survival", "--event", "event", "--time", "time"],
     "--event and --time are for --csv"),
])
def test_survival_dataset_options_are_checked(capsys, argv, message):
    code, _, err = _run(capsys, ["fit", *argv])
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_drop_leaves_a_column_out_of_the_tree(capsys, table, tmp_path):
    """``--drop``: a column that gives the time away (a leak) is left out of the tree; the
    fit is that of the file without it; a needed column cannot be dropped."""
    df, _ = table
    leaky = df.assign(leak=df["months"] * 10.0)
    path, plain = tmp_path / "leak.csv", tmp_path / "plain.csv"
    leaky.to_csv(path, index=False)
    df.to_csv(plain, index=False)
    base = ["fit", "--task", "survival", "--event", "died", "--time", "months",
            "--depth", "2"]
    code, out, err = _run(capsys, [*base, "--csv", str(path)])
    assert code == 0 and "leak" in out  # the leak is what the tree would split on
    code, out, err = _run(capsys, [*base, "--csv", str(path), "--drop", "leak"])
    assert code == 0 and "leak" not in out, err
    _, want, _ = _run(capsys, [*base, "--csv", str(plain)])
    assert [s for s in out.splitlines() if "|" in s] == \
        [s for s in want.splitlines() if "|" in s]
    code, out, err = _run(capsys, [*base, "--csv", str(path), "--drop", "months"])
    assert code == 2 and "--drop 'months' is the --time column" in err
