"""Experiment harness (optrees.bench): resume, Dask == local, bad input, --quick outputs."""

from __future__ import annotations

import socket
import sys
import time

import pandas as pd
import pytest

from optrees import OptreesInputError, load_dataset
from optrees.bench import (
    PROTOCOLS,
    TIMING_COLUMNS,
    Task,
    read_results,
    resolve,
    run_protocol,
    run_tasks,
)
from optrees.bench import runner as runner_mod
from optrees.bench.cli import main as bench_main

COLUMNS = PROTOCOLS["flow"].columns


def tiny_grid() -> list[Task]:
    """Fast, deterministic fits (depth 1, solved to optimality in well under a second),
    a CART baseline and one task that fails on purpose."""
    tasks = [
        Task.make("flow", "tune", "benders", ds, seed,
                  {"split": "50/25/25", "depth": 1, "lam": lam}, 20)
        for ds in ("monk1", "house-votes-84") for seed in (0, 1) for lam in (0.0, 0.5)
    ]
    tasks.append(Task.make("flow", "test", "cart", "monk3", 0,
                           {"split": "50/25/25", "fit_on": "train+val", "depth": 2}, None))
    tasks.append(Task.make("flow", "tune", "benders", "monk1", 0,
                           {"split": "all", "depth": 1, "variant": "no-such-variant"}, 5))
    return tasks


def deterministic(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(columns=list(TIMING_COLUMNS), errors="ignore").reset_index(drop=True)


def file_rows(path) -> pd.DataFrame:
    """The CSV exactly in file order, as text, without the wall-clock columns."""
    return deterministic(pd.read_csv(path, dtype=str, keep_default_na=False))


@pytest.fixture(scope="module")
def reference_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("ref") / "ref.csv"
    df = run_tasks(tiny_grid(), path, COLUMNS, progress=False)
    assert len(df) == len(tiny_grid())
    return path


@pytest.fixture(scope="module")
def reference(reference_csv) -> pd.DataFrame:
    return read_results(reference_csv)


def test_rows_errors_and_key_order(reference):
    assert list(reference["key"]) == sorted(reference["key"])
    assert reference["key"].is_unique
    bad = reference[reference["error"] != ""]
    assert len(bad) == 1 and "no-such-variant" in bad["error"].iloc[0]
    assert bad["status"].iloc[0] == "error"
    good = reference[reference["error"] == ""]
    mips = good[good["method"] == "benders"]
    assert (mips["status"] == "optimal").all()
    assert mips["test_acc"].between(0, 1).all() and mips["val_acc"].notna().all()
    assert (good[good["method"] == "cart"]["n_train"] == 91).all()  # 75 % of monk3's 122


def test_resume_after_interrupt_gives_same_csv(tmp_path, reference, reference_csv,
                                               monkeypatch):
    path = tmp_path / "run.csv"
    calls = []
    real = runner_mod.run_task

    def interrupted(task):  # Ctrl-C during the 5th fit, caught by the solver
        calls.append(task.key)
        row = real(task)
        return {**row, "status": "interrupted"} if len(calls) == 5 else row

    monkeypatch.setattr(runner_mod, "run_task", interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_tasks(tiny_grid(), path, COLUMNS, progress=False)
    assert len(pd.read_csv(path)) == 4  # the interrupted fit is not stored
    with path.open("a") as fh:  # a row torn in the middle of a write
        fh.write('"flow|tune|monk1|benders|seed=1|dep')

    calls.clear()
    monkeypatch.setattr(runner_mod, "run_task", lambda t: calls.append(t.key) or real(t))
    # tasks finish in another order on resume (as with parallel workers)
    resumed = run_tasks(tiny_grid()[::-1], path, COLUMNS, progress=False)
    assert len(calls) == len(tiny_grid()) - 4  # finished tasks are not redone
    pd.testing.assert_frame_equal(deterministic(resumed), deterministic(reference))
    pd.testing.assert_frame_equal(file_rows(path), file_rows(reference_csv))

    calls.clear()
    run_tasks(tiny_grid(), path, COLUMNS, progress=False, retry_errors=True)
    assert len(calls) == 1  # only the failed task
    assert len(read_results(path)) == len(tiny_grid())


@pytest.mark.parametrize("how", ["dask_local", "scheduler"])
def test_dask_matches_local(tmp_path, reference_csv, how):
    distributed = pytest.importorskip("distributed")
    path = tmp_path / "dask.csv"
    if how == "dask_local":  # the harness starts (and stops) a 2-process local cluster
        run_tasks(tiny_grid(), path, COLUMNS, dask_local=2, progress=False, timeout=60)
    else:  # connect by address, as to a remote cluster (2 worker threads: quick to start)
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                      dashboard_address=None) as cluster:
            run_tasks(tiny_grid(), path, COLUMNS, scheduler=cluster.scheduler_address,
                      progress=False, timeout=60)
    pd.testing.assert_frame_equal(file_rows(path), file_rows(reference_csv))


def test_joblib_processes_match_sequential(tmp_path, reference_csv):
    path = tmp_path / "joblib.csv"
    run_tasks(tiny_grid(), path, COLUMNS, jobs=2, progress=False)
    pd.testing.assert_frame_equal(file_rows(path), file_rows(reference_csv))


def test_unreachable_scheduler_fails_fast(tmp_path):
    pytest.importorskip("distributed")
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.perf_counter()
    with pytest.raises(OptreesInputError, match=f"cannot reach the Dask scheduler.*{port}"):
        run_tasks(tiny_grid()[:1], tmp_path / "x.csv", COLUMNS, progress=False,
                  scheduler=f"tcp://127.0.0.1:{port}", timeout=2)
    assert time.perf_counter() - t0 < 30


def test_scheduler_without_workers_fails_fast(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=None) as c:
        with pytest.raises(OptreesInputError, match="has no workers"):
            run_tasks(tiny_grid()[:1], tmp_path / "x.csv", COLUMNS, progress=False,
                      scheduler=c.scheduler_address, timeout=2)


def test_missing_dask_is_explained(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(OptreesInputError, match=r'pip install "optrees\[dask\]"'):
        run_tasks(tiny_grid()[:1], tmp_path / "x.csv", COLUMNS, dask_local=1, progress=False)


def test_unknown_protocol_dataset_method(capsys):
    with pytest.raises(OptreesInputError, match="unknown protocol 'nope'.*flow"):
        resolve("nope")
    with pytest.raises(OptreesInputError, match="unknown dataset 'no-such-data'"):
        resolve("flow", datasets=["no-such-data"])
    with pytest.raises(OptreesInputError, match="unknown method.*'xgboost'"):
        resolve("omt", methods=["xgboost"])
    assert bench_main(["nope", "--quick"]) == 2
    assert "unknown protocol 'nope'" in capsys.readouterr().err


def test_missing_data_file_names_file_and_folder(tmp_path):
    with pytest.raises(OptreesInputError) as info:
        resolve("omt", datasets=["spect"], data_dir=tmp_path)
    assert "spect.train" in str(info.value) and str(tmp_path) in str(info.value)
    with pytest.raises(OptreesInputError) as info:
        resolve("accelerated", quick=True, data_dir=tmp_path)
    msg = str(info.value)
    assert "monk1_enc.csv" in msg and str(tmp_path / "binarized" / "accel-oct") in msg


def test_task_key_is_stable():
    a = Task.make("p", "s", "flow", "monk1", 0, {"lam": 0.1, "depth": 2}, 10)
    b = Task.make("p", "s", "flow", "monk1", 0, {"depth": 2, "lam": 0.1}, 10.0, data_dir="/x")
    assert a == b and a.key == b.key == "p|s|monk1|flow|seed=0|depth=2,lam=0.1|tl=10.0"


@pytest.mark.slow
def test_quick_flow_writes_csv_markdown_and_figures(tmp_path, capsys):
    t0 = time.perf_counter()
    # the quick grid on one of its two data sets (monk3 took half of the test's 20 s)
    assert bench_main(["flow", "--quick", "--datasets", "monk1", "--out", str(tmp_path)]) == 0
    assert time.perf_counter() - t0 < 180
    df = read_results(tmp_path / "flow-quick.csv")
    assert set(df["stage"]) == {"tune", "test"} and (df["error"] == "").all()
    assert len(df[df["stage"] == "test"]) == 3  # 1 data set x 3 methods, 1 split
    assert len(df[df["stage"] == "tune"]) == 6  # x 2 lambdas
    md = (tmp_path / "flow-quick.md").read_text()
    assert "Out-of-sample accuracy" in md and "| monk1 | 2 |" in md
    for name in ("flow-quick_profile", "flow-quick_gap_vs_size", "flow-quick_accuracy"):
        assert (tmp_path / f"{name}.png").stat().st_size > 1000
        assert (tmp_path / f"{name}.svg").exists()


@pytest.mark.parametrize("protocol, overrides, section", [
    ("accelerated", {"methods": ["bendoct", "all-ec"]}, "Ablation"),
    ("omt", {"methods": ["omt", "flow", "cart"]}, "Median runtime"),
    ("cgh", {}, "integral final master LPs"),
    ("rug", {}, "Accuracy, F1"),
])
def test_every_protocol_runs_a_tiny_grid(tmp_path, protocol, overrides, section):
    import os

    if protocol == "accelerated" and not os.environ.get("OPTREES_DATA"):
        pytest.skip("the accel-OCT encodings come from the data directory")
    result = run_protocol(protocol, quick=True, out_dir=tmp_path, datasets=["monk1"],
                          depths=[1], progress=False, **overrides)
    assert len(result.frame) > 0 and (result.frame["error"] == "").all()
    assert section in result.markdown.read_text()
    assert all(p.exists() for p in result.figures) and result.figures


# ------------------------------------------------------------------------ one benchmark room
def test_variant_table_is_shared_by_protocol_and_script():
    from optrees.bench.variants import (
        ACCEL_ABLATION,
        ACCEL_ALIASES,
        ACCEL_SCRIPT,
        ACCEL_VARIANTS,
    )
    from optrees.registry import PLAIN_BENDERS

    assert PROTOCOLS["accelerated"].full.methods == ACCEL_ABLATION
    assert set(ACCEL_SCRIPT) <= set(ACCEL_VARIANTS)
    for alias, name in ACCEL_ALIASES.items():
        assert ACCEL_VARIANTS[alias] == ACCEL_VARIANTS[name]
    assert all(set(v) == set(PLAIN_BENDERS) for v in ACCEL_VARIANTS.values())
    assert ACCEL_VARIANTS["bendoct"] == PLAIN_BENDERS


def test_split_schemes_of_the_scripts():
    from optrees.bench.tasks import load_data, split_data

    X, y = load_data("monk1")
    (X_tr, y_tr), val, (X_te, _) = split_data(X, y, "50/50", 0)
    assert val is None and len(X_tr) == len(X) // 2 and len(X_tr) + len(X_te) == len(X)
    assert abs(y_tr.mean() - y.mean()) < 0.01  # stratified
    (X_tr, _), _, (X_te, _) = split_data(X, y, "train=0.7", 0)
    assert len(X_tr) == int(0.7 * len(X)) and len(X_tr) + len(X_te) == len(X)
    with pytest.raises(OptreesInputError, match="train fraction"):
        split_data(X, y, "train=1.5", 0)


def test_run_task_row_feeds_the_sanity_checks():
    from optrees.bench import checks
    from optrees.bench.tasks import run_task

    row = run_task(Task.make("cuts", "fit", "flow", "monk1", 0,
                             {"split": "50/50", "depth": 1, "lam": 0.1}, 20))
    assert row["error"] == "" and row["warnings"] == []
    assert row["n_splits"] == row["tree_depth"] == 1 and "bb_nodes" in row["stats"]
    assert checks.row_issues(row, "monk1") == []
    bad = {**row, "objective": row["bound"] + 1, "warnings": ["UserWarning: odd"]}
    issues = checks.row_issues(bad, "monk1")
    assert any("> bound" in m for m in issues) and "UserWarning: odd" in issues


def _ablation_rows() -> pd.DataFrame:
    inst = {"dataset": "d", "encoding": "enc", "depth": 3, "error": ""}
    return pd.DataFrame([
        {**inst, "lam": 0.1, "variant": "base", "status": "optimal", "fit_seconds": 4.0,
         "objective": 0.5, "gap": 0.0, "peer_seconds": 0.5, "peer_objective": 0.5},
        {**inst, "lam": 0.1, "variant": "default", "status": "optimal", "fit_seconds": 1.0,
         "objective": 0.5, "gap": 0.0, "peer_seconds": 0.5, "peer_objective": 0.5},
        {**inst, "lam": 0.2, "variant": "base", "status": "time_limit", "fit_seconds": 9.0,
         "objective": 0.3, "gap": 0.1, "peer_seconds": 0.2, "peer_objective": 0.4},
        {**inst, "lam": 0.2, "variant": "default", "status": "optimal", "fit_seconds": 0.4,
         "objective": 0.35, "gap": 0.0, "peer_seconds": 0.2, "peer_objective": 0.4},
    ])


def test_ablation_summaries_and_peer_comparison():
    from optrees.bench import peers, report

    df = _ablation_rows()
    solved = report.solved_table(df, ["variant"])
    assert solved.loc["base", "solved"] == 1 and solved.loc["default", "solved"] == 2
    assert solved.loc["default", "median_s_solved"] == pytest.approx(0.7)
    speed = report.speedup_table(df, "base")
    assert speed.loc["default", "both"] == 1
    assert speed.loc["default", "median_speedup"] == pytest.approx(4.0)
    assert report.objective_spread(df) == 0.0
    ratio = peers.peer_table(df)
    assert ratio.loc["default", "max_ratio"] == pytest.approx(2.0)
    wrong = peers.wrong_claims(df)
    assert list(wrong["lam"]) == [0.2] and list(wrong["variant"]) == ["default"]


def test_bound_violations_across_methods():
    from optrees.bench import checks

    nan = float("nan")
    df = pd.DataFrame([{"dataset": "d", "method": "flow", "objective": 10.0, "bound": 10.0},
                       {"dataset": "d", "method": "cart", "objective": 11.0, "bound": nan}])
    assert checks.bound_violations(df, ["dataset"]) == ["d: cart objective 11 > flow bound 10"]


def test_cgh_summary_sits_next_to_the_paper():
    from optrees.bench import report

    rows = []
    for seed, (cgh, cart) in enumerate([(0.70, 0.68), (0.72, 0.68)]):
        common = {"dataset": "monk1", "depth": 2, "seed": seed, "error": ""}
        rows += [{**common, "method": "cgh", "train_acc": 0.8, "test_acc": cgh,
                  "fit_seconds": 1.0, "lp_integral": True, "status": "converged"},
                 {**common, "method": "cart", "train_acc": 0.78, "test_acc": cart,
                  "fit_seconds": 0.01}]
    table = report.cgh_paper_table(report.cgh_summary(pd.DataFrame(rows)))
    r = table.loc[("monk1", 2)]
    assert r["seeds"] == 2 and r["cgh_test"] == pytest.approx(71.0)
    assert r["paper_cgh_test"] == 71.0 and r["diff_cgh_test"] == pytest.approx(0.0)
    assert report.cgh_agreement(table)["close"] == [("monk1", 2)]


def test_pystreed_runs_side_by_side(tmp_path):
    import os

    pytest.importorskip("pystreed")
    if not os.environ.get("OPTREES_DATA"):
        pytest.skip("the accel-OCT encodings come from the data directory")
    from optrees.bench import peers
    from optrees.bench.protocols import accel_tasks

    cfg = resolve("accelerated", quick=True, datasets=["monk1"], methods=["default"],
                  depths=[2], lams=[0.01])
    seen = []
    rows = peers.run_with_peer(accel_tasks(cfg), "pystreed", seen.append)
    assert rows == seen and len(rows) == 1 and rows[0]["status"] == "optimal"
    assert rows[0]["objective"] == pytest.approx(rows[0]["peer_objective"], abs=1e-9)
    assert peers.wrong_claims(pd.DataFrame(rows)).empty


# ------------------------------------------------------------------------ OMT, RUG, ruleopt
def test_omt_penalty_selection_prefers_validation_then_larger_penalty():
    from optrees.bench.omt import reported, select_penalty

    def row(seed, lam, val, seconds, error=""):
        return {"key": f"k{seed}-{lam}", "dataset": "d", "depth": 2, "seed": seed,
                "leaf_penalty": lam, "val_acc": val, "test_acc": val, "fit_seconds": seconds,
                "error": error}

    tune = pd.DataFrame([row(0, 0.0, 0.7, 1.0), row(0, 0.01, 0.8, 2.0), row(0, 0.05, 0.8, 3.0),
                         row(0, 0.1, 0.9, 4.0, error="boom"),
                         row(1, 0.0, 0.6, 1.0), row(1, 0.01, 0.5, 1.0)])
    best = select_penalty(tune).set_index("seed")
    assert best.loc[0, "leaf_penalty"] == 0.05  # tie at 0.8 -> the larger penalty
    assert best.loc[1, "leaf_penalty"] == 0.0
    assert best.loc[0, "grid_seconds"] == 6.0  # the failed fit is not part of the grid
    refit = pd.DataFrame([{**row(0, 0.05, 0.95, 5.0), "fit_on": "train+val"}])
    out = reported(tune, refit).iloc[0]
    assert out["val_acc"] == 0.8 and out["grid_seconds"] == 6.0 and out["fit_seconds"] == 5.0


def test_omt_split_is_random_as_in_the_paper():
    from optrees.bench.tasks import load_data, split_data

    X, y = load_data("monk3")
    (X_tr, _), (X_va, _), (X_te, _) = split_data(X, y, "50/25/25-random", 3)
    assert len(X_tr) == len(X) // 2 and len(X_tr) + len(X_va) + len(X_te) == len(X)
    _, none, (X_te_cgh, _) = split_data(X, y, "50/25", 3)
    assert none is None and X_te.index.equals(X_te_cgh.index)
    (X_st, _), _, _ = split_data(X, y, "50/25/25", 3)
    assert not X_tr.index.sort_values().equals(X_st.index.sort_values())


def test_omt_resumed_run_gives_same_csv(tmp_path):
    from optrees.bench import omt

    cfg = resolve("omt", quick=True, datasets=["monk1"], methods=["omt"], depths=[1, 2],
                  lams=[0.0, 0.05], time_limit=20)
    cfg.extra["omt"] = {"k_best": None, "n_bins": 8, "ordinal": "auto"}
    tasks = omt.penalty_tasks(cfg)
    assert len(tasks) == 4 and all(t.param["k_best"] == 1000 for t in tasks)
    columns = PROTOCOLS["omt"].columns
    whole = run_tasks(tasks, tmp_path / "whole.csv", columns, progress=False)
    run_tasks(tasks[1:3], tmp_path / "resumed.csv", columns, progress=False)  # interrupted
    resumed = run_tasks(tasks, tmp_path / "resumed.csv", columns, progress=False)
    assert (whole["error"] == "").all() and whole["n_rules"].notna().all()
    assert file_rows(tmp_path / "whole.csv").equals(file_rows(tmp_path / "resumed.csv"))
    refits = omt.refit_tasks(cfg, omt.select_penalty(resumed))
    assert [t.param["fit_on"] for t in refits] == ["train+val"] * 2


def test_omt_protocol_refits_the_chosen_penalty(tmp_path):
    result = run_protocol("omt", quick=True, out_dir=tmp_path, datasets=["monk1"],
                          methods=["omt", "cart"], depths=[1], lams=[0.0, 0.05],
                          progress=False, plots=False)
    df = result.frame
    tune, test = df[df["stage"] == "tune"], df[df["stage"] == "test"]
    assert len(tune) == 2 and set(test["method"]) == {"omt", "cart"}
    omt_row = test[test["method"] == "omt"].iloc[0]
    assert omt_row["fit_on"] == "train+val" and omt_row["split"] == "50/25/25-random"
    best = tune.sort_values(["val_acc", "leaf_penalty"]).iloc[-1]
    assert omt_row["leaf_penalty"] == best["leaf_penalty"]


def test_rug_task_rows_carry_what_the_script_prints():
    from optrees.bench import rug
    from optrees.bench.tasks import run_task

    r = run_task(rug.rug_task("monk1", 0, depth=2, calls=3))
    c = run_task(rug.cart_task("monk1", 0, 2))
    assert r["error"] == c["error"] == ""
    assert {"test_f1", "n_rules", "avg_rule_length", "rules_per_sample",
            "rule_length_per_sample", "n_rmp_calls"} <= set(r)
    assert r["n_train"] + r["n_test"] == 124 and 0.5 < c["test_acc"] <= 1


def test_ruleopt_and_fairness_summaries():
    from optrees.bench import peers, rug

    side = pd.DataFrame([
        {"dataset": "d", "lp_method": "simplex", "n": 10, "seed": s, "ro_s": 1.0, "ot_s": 0.5,
         "ro_acc": ro, "ot_acc": ot, "ro_rules": 4, "ot_rules": 2}
        for s, (ro, ot) in enumerate([(0.80, 0.82), (0.80, 0.80), (0.90, 0.86)])])
    m = peers.paired_summary(side).iloc[0]
    assert m["diff"] == pytest.approx(-2 / 3) and m["better"] == 1 and m["equal"] == 1
    assert m["se"] == pytest.approx(pd.Series([2.0, 0.0, -4.0]).std() / 3 ** 0.5)
    fair = pd.DataFrame([
        {"dataset": "d", "seed": s, "fairness": f, "error": "", "acc": 0.8, "dmc": dmc,
         "eop": 50.0, "ratio": ratio}
        for s, f, dmc, ratio in [(0, "None", 60.0, 1.0), (1, "None", 70.0, 1.0),
                                 (0, "dmc", 65.0, 2.0), (1, "dmc", 60.0, 3.0)]])
    t = rug.fair_summary(fair).set_index("fairness")
    assert t.loc["dmc", "better"] == 1 and t.loc["dmc", "max_ratio"] == 3.0
    assert t.loc["None", "dmc"] == 65.0
    assert peers.fastest(iter([("a", 2.0), ("b", 1.0), ("c", 1.0)]).__next__, 3)[0] == "b"


# ------------------------------------------------------------ [RUG] Tables 2 / 4 (issue #22)
def test_rug_paper_protocol_splits_80_20_and_tunes_on_the_papers_grid():
    from optrees.bench.protocols import Config, _rug
    from optrees.bench.tasks import split_data

    cfg = Config("rug-multiclass", False, ("wine", "nursery"), ("rug-paper", "ruleopt-paper"),
                 (3,), (0, 1), (), None)
    tasks = _rug(cfg, None)
    assert len(tasks) == 8
    assert {(t.param["split"], t.param["tune"]) for t in tasks} == {("80/20", "cv5-paper")}
    # Table 4 (nursery) searched 5, 10, 15 pricing rounds, Table 2 (wine) 5, 15, 30
    assert {t.dataset: t.param.get("calls_grid") for t in tasks} == {"wine": None,
                                                                     "nursery": "5/10/15"}
    assert set(PROTOCOLS["rug-multiclass"].full.seeds) == set(range(5))
    assert {"rug-paper", "ruleopt-paper"} <= set(PROTOCOLS["rug"].allowed_methods)
    X, y = load_dataset("balance-scale")
    (_, y_tr), _, (_, y_te) = split_data(X, y, "80/20", 0)
    assert len(y_te) == 125 and len(y_tr) == 500


def test_paper_rug_takes_the_papers_units():
    """pen_par is scaled by 1 / (longest rule of the first tree), max_rmp_calls counts the
    pricing rounds after the first LP (the paper's code, ruleopt)."""
    from optrees.bench.rug import PaperRUG

    X, y = load_dataset("balance-scale")
    est = PaperRUG(max_depth=3, pen_par=1.0, max_rmp_calls=4, random_state=0).fit(X, y)
    assert est.model_.pen_par == pytest.approx(1 / 3)
    assert est.model_.max_rmp_calls == 5 and est.n_rmp_calls_ <= 5
    assert est.score(X, y) > 0.7 and len(est.rules_) > 0


def test_rug_paper_table_pairs_the_splits():
    from optrees.bench.report import rug_paper_table

    rows = [{"dataset": "wine", "method": m, "seed": s, "test_acc": a, "fit_seconds": 1.0,
             "n_rules": 10, "error": ""}
            for s, (ours, peer) in enumerate([(0.97, 0.94), (1.0, 1.0), (0.94, 0.97)])
            for m, a in (("rug-paper", ours), ("ruleopt-paper", peer))]
    t = rug_paper_table(pd.DataFrame(rows)).loc["wine"]
    assert t["splits"] == 3 and t["RUG - ruleopt"] == "+0.00 ± 1.73"
    assert t["paper RUG"] == 97.22 and t["RUG - paper"] == pytest.approx(97.0 - 97.22)
