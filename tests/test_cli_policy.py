"""``optrees fit --task policy --csv F --treatment T --outcome Y`` (issue #45): the printed
tree and status lines are the estimator's on the same rows, the objective is the IPW value
written here from its definition, the treatment budget holds on the rows of the CSV, the
saved model loads and predicts as fitted, and each bad option gives one line and exit code 2
before anything is written."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from optrees import OptimalPolicyTree, load_model
from optrees.cli import main

LABELS = ["drug", "none", "surgery"]  # sorted: codes 0, 1, 2


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    rng = np.random.default_rng(3)
    n = 150
    df = pd.DataFrame({"age": rng.integers(20, 80, n).astype(float),
                       "smoker": rng.integers(0, 2, n),
                       "sex": rng.choice(["f", "m"], n)})
    df["arm"] = rng.choice(["none", "drug", "surgery"], n)
    gain = np.where(df["arm"] == "drug", 1.0 * (df["age"] > 50),
                    np.where(df["arm"] == "surgery", 1.2 * df["smoker"], 0.0))
    df["outcome"] = np.round(rng.normal(size=n) + gain, 3)
    df["p"] = rng.uniform(0.2, 0.6, n).round(3)
    df["w"] = rng.integers(1, 3, n)
    path = tmp_path_factory.mktemp("policy") / "policy.csv"
    df.to_csv(path, index=False)
    return df, path


def _run(capsys, argv):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def _codes(df):
    return df["arm"].map({v: k for k, v in enumerate(LABELS)}).to_numpy()


def test_report_is_the_estimators_with_the_budget_kept(capsys, table, tmp_path):
    df, path = table
    out_file = tmp_path / "policy.json"
    code, out, err = _run(capsys, [
        "fit", "--task", "policy", "--csv", str(path), "--treatment", "arm", "--outcome",
        "outcome", "--propensity", "p", "--teacher", "ipw", "--weight-column", "w",
        "--treatment-budget", "surgery=0.15", "--depth", "2", "--out", str(out_file),
        "--plot", str(tmp_path / "policy.png")])
    assert code == 0, err
    X, t, w = df[["age", "smoker", "sex"]], _codes(df), df["w"].to_numpy(float)
    y, mu = df["outcome"].to_numpy(), df["p"].to_numpy()
    est = OptimalPolicyTree(depth=2, teacher="ipw", random_state=0,
                            treatment_budget={2: 0.15}).fit(X, t, y, mu, sample_weight=w)
    # the command fits on the labels: the same tree, its leaves named by the treatments
    text = re.sub(r"treatment: (\d)", lambda m: f"treatment: {LABELS[int(m.group(1))]}",
                  est.export_text())
    assert "treatment: surgery" in text and text in out
    assert "treatments      : drug, none, surgery" in out
    assert "under treatment surgery given to at most 0.15" in out
    # the objective from the definition: IPW value of the policy per unit of weight
    rec = est.predict(X)
    ipw = np.where(rec == t, y / mu, 0.0) @ w / w.sum()
    shown = float(re.search(r"objective\s+: (\S+)\s+bound: (\S+)", out).group(1))
    assert shown == pytest.approx(ipw, rel=1e-5)
    assert "status          : optimal" in out and "gap: 0.00%" in out
    share = w[rec == 2].sum() / w.sum()
    assert share <= 0.15 + 1e-12
    assert f"surgery {share:.3f} (budget 0.15)" in out
    loaded = load_model(out_file)
    assert (loaded.predict(df) == np.array(LABELS, dtype=object)[rec]).all()
    assert loaded.treatment_budget == {2: 0.15}
    assert (tmp_path / "policy.png").stat().st_size > 1000


def test_several_budgets_on_the_command_line(capsys, table, tmp_path):
    """``--treatment-budget drug=0.2,surgery=0.1``: both shares hold on the weighted rows of
    the CSV, and both are printed beside their budget."""
    df, path = table
    out_file = tmp_path / "m.json"
    code, out, err = _run(capsys, [
        "fit", "--task", "policy", "--csv", str(path), "--treatment", "arm", "--outcome",
        "outcome", "--propensity", "p", "--teacher", "ipw", "--weight-column", "w",
        "--treatment-budget", "drug=0.2,surgery=0.1", "--depth", "2", "--out", str(out_file)])
    assert code == 0, err
    assert "status          : optimal" in out
    rec, w = load_model(out_file).predict(df), df["w"].to_numpy(float)
    for name, budget in (("drug", 0.2), ("surgery", 0.1)):
        share = w[rec == name].sum() / w.sum()
        assert share <= budget + 1e-12
        assert f"{name} {share:.3f} (budget {budget:g})" in out


@pytest.mark.parametrize("extra,message", [
    (["--outcome", "outcome", "--treatment-budget", "laser=0.1"], "one of the treatments"),
    (["--outcome", "outcome", "--treatment-budget", "drug=1.5"],
     "the share of drug must be a number in [0, 1]"),
    (["--outcome", "outcome", "--treatment-budget", "drug=lots"], "got 'lots'"),
    (["--outcome", "outcome", "--treatment-budget", "drug=0.2,none=0.3,surgery=0.4"],
     "every policy infeasible"),
    (["--outcome", "outcome", "--target", "outcome"], "not --target"),
    (["--outcome", "outcome", "--method", "flow"], "--method is not used"),
    (["--outcome", "nothere"], "--outcome column 'nothere' not in"),
    ([], "needs --csv FILE --treatment COLUMN --outcome COLUMN"),
    (["--outcome", "arm"], "different columns"),
])
def test_bad_options_give_one_line_and_no_file(capsys, table, tmp_path, extra, message):
    _, path = table
    out_file = tmp_path / "m.json"
    code, out, err = _run(capsys, ["fit", "--task", "policy", "--csv", str(path),
                                   "--treatment", "arm", "--propensity", "p", "--teacher",
                                   "ipw", "--out", str(out_file), *extra])
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1
    assert not out_file.exists()


def test_policy_options_need_the_policy_task(capsys, table):
    _, path = table
    code, _, err = _run(capsys, ["fit", "--csv", str(path), "--target", "outcome",
                                 "--treatment", "arm"])
    assert code == 2 and "--treatment is for --task policy" in err


def test_bundled_policy_set_end_to_end(capsys, tmp_path):
    """--dataset policy-trial (known counterfactuals): its treatment, propensity and outcome
    columns by default, the mu columns kept out of the features; the surgery budget holds,
    and the printed true regret is the saved policy's, from the mu columns, below that of
    every one-treatment-for-all policy."""
    from optrees import load_dataset

    code, out, err = _run(capsys, [
        "fit", "--task", "policy", "--dataset", "policy-trial", "--teacher", "ipw",
        "--depth", "3", "--treatment-budget", "2=0.15", "--out", str(tmp_path / "m.json")])
    assert code == 0, err
    assert "status          : optimal" in out
    assert "features        : age, smoker, bmi, sex" in out
    X, y = load_dataset("policy-trial")
    given = load_model(tmp_path / "m.json").predict(X[["age", "smoker", "bmi", "sex"]])
    truth = X[["mu_0", "mu_1", "mu_2"]].to_numpy()
    assert np.mean(given == 2) <= 0.15
    regret = np.mean(truth.max(axis=1) - truth[np.arange(len(y)), given])
    assert f"true regret     : {regret:.6g} per row" in out
    assert regret < min(np.mean(truth.max(axis=1) - truth[:, k]) for k in range(3))


@pytest.mark.parametrize("extra,message", [
    (["--dataset", "monk1"], "takes a policy dataset (policy-trial)"),
    (["--dataset", "policy-trial", "--csv", "x.csv"], "exactly one of --dataset"),
])
def test_a_policy_dataset_or_a_csv(capsys, extra, message):
    code, _, err = _run(capsys, ["fit", "--task", "policy", *extra])
    assert code == 2 and message in err


def test_cross_fitting_out_of_time_is_one_line(capsys, table) -> None:
    """A time limit that ends before the teacher's models are fitted: the command says so
    in one line (exit 2), as for bad input, though it is a time limit (issue #42)."""
    _, path = table
    code, out, err = _run(capsys, [
        "fit", "--task", "policy", "--csv", str(path), "--treatment", "arm", "--outcome",
        "outcome", "--depth", "1", "--time-limit", "1e-9"])
    assert code == 2 and "Traceback" not in err
    assert err.strip().splitlines() == [err.strip()] and "time_limit ran out" in err


def test_drop_leaves_a_column_out_of_the_tree(capsys, table, tmp_path):
    """``--drop``: an identifier that orders the rows by their best treatment is left out
    of the tree, and the fit is that of the file without it; a needed column cannot be
    dropped."""
    df, _ = table
    ranked = df.assign(row_id=np.argsort(np.argsort(df["outcome"].to_numpy())))
    path, plain = tmp_path / "ids.csv", tmp_path / "plain.csv"
    ranked.to_csv(path, index=False)
    df.to_csv(plain, index=False)
    base = ["fit", "--task", "policy", "--treatment", "arm", "--outcome", "outcome",
            "--propensity", "p", "--depth", "2"]
    code, out, err = _run(capsys, [*base, "--csv", str(path), "--drop", "row_id"])
    assert code == 0 and "row_id" not in out, err
    _, want, _ = _run(capsys, [*base, "--csv", str(plain)])
    assert [s for s in out.splitlines() if "|" in s] == \
        [s for s in want.splitlines() if "|" in s]
    code, out, err = _run(capsys, [*base, "--csv", str(path), "--drop", "arm"])
    assert code == 2 and "--drop 'arm' is the --treatment column" in err
