"""CLI and compare defects of a user audit: the CSV separator of headers with commas, options
a method does not use refused whatever their value, a one-class training split named as
such, leaf options of the survival and policy tasks, side constraints in every status line,
compare's skip notes and its note on classes too small for the folds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_cli_survival import survival_frame

import optrees.cli_report as cli_report
import optrees.comparison as comparison
from optrees import load_dataset
from optrees.cli import main
from optrees.cli_data import sniff_separator

HEADER = ["height, cm", "colour, main", "weight, kg", "label, final"]


def _run(capsys, argv: list[str]) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of one in-process ``optrees`` call."""
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def _rows(n: int = 40) -> list[list[str]]:
    rng = np.random.default_rng(0)
    return [[f"{rng.uniform(140, 200):.1f}", str(rng.choice(["red", "blue"])),
             f"{rng.uniform(50, 90):.1f}", "T" if i % 2 else "F"] for i in range(n)]


def _write(path, header: str, sep: str) -> str:
    path.write_text(header + "\n" + "\n".join(sep.join(r) for r in _rows()) + "\n")
    return str(path)


# ---------------------------------------------------------------------- 1. separator sniffing
@pytest.mark.parametrize("header, sep", [
    (";".join(f'"{h}"' for h in HEADER), ";"),  # quoted names with commas
    (";".join(HEADER), ";"),                     # unquoted names with commas
    ("\t".join(HEADER), "\t"),                   # a tab-separated file
    ("|".join(HEADER), "|"),
])
def test_names_with_commas_do_not_make_a_comma_file(tmp_path, capsys, header, sep):
    """The header alone split by ',' gave the most fields: the data lines did not agree."""
    path = _write(tmp_path / "f.csv", header, sep)
    assert sniff_separator(path) == sep
    code, out, err = _run(capsys, ["fit", "--csv", path, "--target", "label, final",
                                   "--method", "bendoct", "--depth", "1"])
    assert code == 0, err
    assert "train accuracy" in out


def test_ordinary_files_keep_their_separator(tmp_path):
    """A comma file (a quoted cell holding ';'), a ';' file with decimal commas, a
    one-column file."""
    comma = tmp_path / "c.csv"
    comma.write_text('a,b,c\n1,"x;y",2\n3,"z;w",4\n')
    decimal = tmp_path / "d.csv"
    decimal.write_text("a;b;c\n1,5;x;2\n3,25;y;4\n")
    single = tmp_path / "s.csv"
    single.write_text("a\n1\n2\n")
    assert [sniff_separator(str(p)) for p in (comma, decimal, single)] == [",", ";", ","]


# ---------------------------------------------------------------- 2. options the fit ignores
@pytest.mark.parametrize("extra, flag", [
    (["--method", "bendoct", "--pen-par", "1"], "--pen-par"),  # RUG's default value
    (["--method", "bendoct", "--epsilon", "0.1"], "--epsilon"),
    (["--method", "bendoct", "--epsilon", "0.05"], "--epsilon"),  # its own default
    (["--method", "bendoct", "--drop-sensitive"], "--drop-sensitive"),
    (["--method", "bendoct", "--positive-class", "T"], "--positive-class"),
    (["--method", "bendoct", "--sensitive", "colour"], "--sensitive"),
    (["--method", "rug", "--epsilon", "0.025"], "--epsilon"),
    (["--method", "benders", "--alpha", "90"], "--alpha"),  # CGH's default
])
def test_an_option_typed_and_not_used_is_refused(tmp_path, capsys, extra, flag):
    """Refused in one line with exit code 2, whatever the value (was: silently ignored)."""
    path = _write(tmp_path / "f.csv", "height,colour,weight,label", ",")
    code, out, err = _run(capsys, ["fit", "--csv", path, "--target", "label", "--depth", "1",
                                   *extra])
    assert code == 2 and out == ""
    assert err.startswith(f"optrees: error: {flag} is not used by --method")
    assert len(err.strip().splitlines()) == 1


def test_fairness_options_with_fairness_are_taken(tmp_path, capsys):
    """With --fairness the same options reach the estimator."""
    path = _write(tmp_path / "f.csv", "height,colour,weight,label", ",")
    code, out, err = _run(capsys, [
        "fit", "--csv", path, "--target", "label", "--depth", "1", "--method",
        "bendoct", "--fairness", "statistical_parity", "--sensitive", "colour",
        "--epsilon", "0.2", "--positive-class", "T", "--drop-sensitive"])
    assert code == 0, err
    assert "fairness" in out


# -------------------------------------------------------------- 3. one class in the training part
def test_a_one_class_training_part_names_the_split(tmp_path, capsys):
    """Was: "y has a single class ('ja')", as if the file had one."""
    path = tmp_path / "tiny.csv"
    path.write_text("x,Klasse\n1.0,ja\n2.0,ja\n3.0,nein\n")
    code, _, err = _run(capsys, ["fit", "--csv", str(path), "--target", "Klasse",
                                 "--method", "bendoct", "--depth", "1"])
    assert code == 2
    assert "training part of the split (2 of the 3 rows, --test-size 0.25" in err
    assert "single class 'ja'" in err and "--test-size 0" in err
    code, out, err = _run(capsys, ["fit", "--csv", str(path), "--target", "Klasse",
                                   "--method", "bendoct", "--depth", "1", "--test-size", "0"])
    assert code == 0, err


# -------------------------------------------- 4-5. leaf options of survival and policy trees
@pytest.fixture(scope="module")
def survival_csv(tmp_path_factory):
    df = survival_frame().drop(columns="w")  # the same rows, unweighted
    path = tmp_path_factory.mktemp("surv") / "surv.csv"
    df.to_csv(path, index=False)
    return df, str(path)


@pytest.fixture(scope="module")
def policy_csv(tmp_path_factory):
    rng = np.random.default_rng(3)
    n = 150
    df = pd.DataFrame({"age": rng.integers(20, 80, n).astype(float),
                       "smoker": rng.integers(0, 2, n)})
    df["arm"] = rng.choice(["none", "drug", "surgery"], n)
    gain = np.where(df["arm"] == "drug", 1.0 * (df["age"] > 50),
                    np.where(df["arm"] == "surgery", 1.2 * df["smoker"], 0.0))
    df["outcome"] = np.round(rng.normal(size=n) + gain, 3)
    df["p"] = 1 / 3
    path = tmp_path_factory.mktemp("policy") / "policy.csv"
    df.to_csv(path, index=False)
    return df, str(path)


def _fitted(monkeypatch) -> list:
    """The estimator each ``optrees fit`` reports (``cli_report.finish`` patched)."""
    seen: list = []
    finish = cli_report.finish

    def keep(est, args):
        seen.append(est)
        return finish(est, args)

    monkeypatch.setattr(cli_report, "finish", keep)
    return seen


LEAF_ARGS = ["--depth", "2", "--min-samples-leaf", "30", "--max-leaves", "3", "--test-size",
             "0", "--time-limit", "30"]


def _check_leaves(est, X) -> None:
    """At most 3 leaves, each with at least 30 training rows."""
    counts = np.bincount(est.apply(X))
    counts = counts[counts > 0]
    assert len(counts) <= 3 and counts.min() >= 30


def test_survival_takes_the_leaf_options(survival_csv, capsys, monkeypatch):
    """Were refused: "--min-samples-leaf is not used by --task survival"."""
    df, path = survival_csv
    seen = _fitted(monkeypatch)
    code, out, err = _run(capsys, ["fit", "--task", "survival", "--csv", path, "--event",
                                   "died", "--time", "months", *LEAF_ARGS])
    assert code == 0, err
    _check_leaves(seen[0], df[["age", "color"]])
    assert "under min_samples_leaf=30, max_leaves=3" in out


def test_policy_takes_the_leaf_options(policy_csv, capsys, monkeypatch):
    """Were refused: "--max-leaves is not used by --task policy"."""
    df, path = policy_csv
    seen = _fitted(monkeypatch)
    code, out, err = _run(capsys, ["fit", "--task", "policy", "--csv", path, "--treatment",
                                   "arm", "--outcome", "outcome", "--propensity", "p",
                                   *LEAF_ARGS])
    assert code == 0, err
    _check_leaves(seen[0], df[["age", "smoker"]])
    assert "under min_samples_leaf=30, max_leaves=3" in out


def test_regression_status_names_its_side_constraints(tmp_path, capsys):
    """Was "optimal over every threshold" alone; the classifiers say "under ..."."""
    X, y = load_dataset("liver-disorders")
    path = tmp_path / "liver.csv"
    X.assign(target=y).to_csv(path, index=False)
    code, out, err = _run(capsys, ["fit", "--task", "regression", "--csv", str(path),
                                   "--target", "target", "--depth", "2",
                                   "--min-samples-leaf", "20", "--max-leaves", "3"])
    assert code == 0, err
    status = next(line for line in out.splitlines() if line.startswith("status"))
    assert status.endswith("under min_samples_leaf=20, max_leaves=3")


# ------------------------------------------------------------------------ 6-7. compare notes
def test_a_used_up_budget_skips_with_a_plain_note(monkeypatch):
    """The first fit spends the whole budget: the others say so, with no negative time."""
    now = [0.0]
    monkeypatch.setattr(comparison.time, "perf_counter", lambda: now[0])

    def run(name, method, task, parts, share, cv, seed):
        now[0] += 1000.0
        return comparison._skipped(name, share, "failed: fake")

    monkeypatch.setattr(comparison, "_run", run)
    X, y = load_dataset("monk1")
    table = comparison.compare(X, y, time_budget=100.0)
    skipped = table[table["status"] == "skipped"]
    assert len(skipped) == len(table) - 1
    assert (skipped["note"] == "skipped: the budget was used up before this method").all()
    assert (skipped["time_limit"] >= 0).all()


def test_classes_too_small_for_the_folds_are_noted(tmp_path, capsys):
    """12 distinct integers are classes by the documented rule: every score 0 ± 0 came with
    no hint."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=12), "b": rng.normal(size=12),
                       "y": rng.permutation(np.arange(100, 112))})
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False)
    code, out, err = _run(capsys, ["compare", str(path), "--target", "y", "--budget", "20",
                                   "--cv", "3", "--methods", "bendoct"])
    assert code == 0, err
    notes = [line for line in out.splitlines() if line.startswith("note:")]
    assert len(notes) == 1
    assert "every class has a single training row" in notes[0]
    assert "at most 30 distinct values are classes" in notes[0]
    assert "--task regression" in notes[0]


def test_a_regression_or_ample_classes_have_no_note():
    """The note is for classes too small for the folds only."""
    X, y = load_dataset("monk1")
    note = comparison._few_rows_note(pd.Series(y), "classification", True, 5)
    assert note == ""
    assert comparison._few_rows_note(pd.Series(np.arange(12)), "regression", True, 5) == ""
