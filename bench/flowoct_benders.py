"""FlowOCT vs. Benders benchmark, following the protocol of [FlowOCT] §4.

Each dataset is split (stratified, ``random_state=seed``) into 50% train / 25% validation /
25% test. For every dataset x depth x lambda x method x seed one tree is fitted on the train
part and a CSV row is appended (and flushed) to ``--out`` as soon as the fit finishes, so
partial results survive an interrupted run. The file is appended to; the header is written
only when the file is new. At the end a summary table of *this* invocation is printed, with
the two headline targets for balance-scale, and a list of sanity-check failures (objective
above bound, objective inconsistent with the training accuracy, tree deeper than asked, ...).

``--select-lam`` additionally does the paper's model selection: per (dataset, depth, method,
seed) it picks the lambda with the best validation accuracy (ties -> larger lambda, i.e. the
simpler tree), refits on train+validation with it and reports the test accuracy averaged over
seeds (like Table 2 of the paper); those rows go to ``<out>_selected.csv``.

The grid and the lambda selection are the ``flow`` protocol's (``optrees.bench.protocols``:
flow_tune_tasks, select_lambda, flow_test_tasks), each fit is a harness task, and the checks
are ``optrees.bench.checks``; this script keeps its own CSV format and printout.

Usage (from the repository root)::

    python bench/flowoct_benders.py --quick
    python bench/flowoct_benders.py --datasets balance-scale --depths 3 --lams 0 \\
        --methods benders --time-limit 300
    python bench/flowoct_benders.py --seeds 5 --time-limit 3600 --select-lam   # full paper grid
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import OptreesInputError  # noqa: E402
from optrees.bench import checks, report  # noqa: E402
from optrees.bench.protocols import (  # noqa: E402
    FLOW_DATASETS,
    FLOW_LAMS,
    Config,
    flow_test_tasks,
    flow_tune_tasks,
    resolve,
)
from optrees.bench.tasks import run_task  # noqa: E402
from optrees.cli import csv_list  # noqa: E402

DATASETS = list(FLOW_DATASETS)
# "benders" = the estimator's defaults (eq. 8 + path-bound cuts and polishing of [BendOCT]);
# "benders-plain" = eq. (8) as published
METHODS = ("flow", "benders-plain", "benders")
COLUMNS = ["dataset", "n_train", "n_features_binary", "depth", "lam", "method", "seed",
           "seconds", "solve_seconds", "status", "gap", "objective", "bound", "bb_nodes",
           "train_acc", "val_acc", "test_acc"]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--datasets", type=csv_list(str), default=DATASETS)
    p.add_argument("--depths", type=csv_list(int), default=[2, 3, 4, 5])
    p.add_argument("--lams", type=csv_list(float), default=list(FLOW_LAMS))
    p.add_argument("--methods", type=csv_list(str), default=list(METHODS))
    p.add_argument("--seeds", type=int, default=5, help="number of splits (seeds 0..S-1)")
    p.add_argument("--time-limit", type=float, default=60.0, help="seconds per fit")
    p.add_argument("--out", type=Path, default=Path("bench/results/flowoct_benders.csv"))
    p.add_argument("--quick", action="store_true",
                   help="balance-scale + monk1, depth 2, lam in {0, 0.1}, all methods, 1 seed")
    p.add_argument("--select-lam", action="store_true",
                   help="pick lambda on validation, refit on train+val, report test accuracy")
    args = p.parse_args(argv)
    if args.quick:
        args.datasets, args.depths, args.lams = ["balance-scale", "monk1"], [2], [0.0, 0.1]
        args.methods, args.seeds = list(METHODS), 1
    unknown = set(args.methods) - set(METHODS)
    if unknown:
        p.error(f"unknown method(s) {sorted(unknown)}; choose from {sorted(METHODS)}")
    return args


def tag_of(row: dict) -> str:
    return (f"{row['dataset']} d={row['depth']} lam={row['lam']:g} {row['method']} "
            f"seed={row['seed']}")


def csv_row(row: dict) -> dict:
    """A harness row in this script's CSV format."""
    out = {c: row.get(c) for c in COLUMNS}
    out.update(seconds=round(row.get("fit_seconds", float("nan")), 3),
               solve_seconds=round(row.get("solve_seconds", float("nan")), 3))
    if "bb_nodes" in row:
        out["bb_nodes"] = int(row["bb_nodes"])
    return out


def run_grid(args: argparse.Namespace, cfg: Config, issues: list[str]) -> pd.DataFrame:
    """The tuning fits, each appended (and flushed) to ``--out`` as it finishes."""
    args.out.parent.mkdir(parents=True, exist_ok=True)
    new_file = not args.out.exists() or args.out.stat().st_size == 0
    rows = []
    with args.out.open("a", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS)
        if new_file:
            writer.writeheader()
            fh.flush()
        for task in flow_tune_tasks(cfg):
            row = run_task(task)
            issues += checks.row_issues(row, tag_of(row))
            if not row["error"]:
                writer.writerow(csv_row(row))
                fh.flush()
            rows.append(row)
            print(f"{tag_of(row)}: {row['status']} {row.get('fit_seconds', float('nan')):.2f}s "
                  f"gap={row.get('gap', float('nan')):.3g} "
                  f"test={row.get('test_acc', float('nan')):.3f}", flush=True)
    return pd.DataFrame(rows)


def summarize(df: pd.DataFrame) -> None:
    table = report.fit_summary(df, ["dataset", "depth", "method"])
    print("\n=== summary (per dataset/depth/method) ===")
    print(table.to_string(float_format=lambda v: f"{v:.4f}"))

    print("\n=== targets ===")
    for method in ("benders", "benders-plain"):
        bs = df[(df.dataset == "balance-scale") & (df.method == method)]
        print(f"balance-scale d=2 λ∈{{0,0.1}} {method} seconds to optimality:")
        t1 = bs[(bs.depth == 2) & bs.lam.isin([0.0, 0.1])]
        for r in t1.itertuples():
            print(f"  λ={r.lam:g} seed={r.seed}: {r.status}, {r.fit_seconds:.2f}s "
                  f"(solver {r.solve_seconds:.2f}s)")
        if t1.empty:
            print("  (not run)")
        print(f"balance-scale d=3 λ=0 {method} status/seconds:")
        t2 = bs[(bs.depth == 3) & (bs.lam == 0.0)]
        for r in t2.itertuples():
            print(f"  seed={r.seed}: {r.status}, {r.fit_seconds:.2f}s, gap={r.gap:.4g}, "
                  f"obj={r.objective:g}, bound={r.bound:g}, nodes={int(r.bb_nodes)}")
        if t2.empty:
            print("  (not run)")


def select_lam(args: argparse.Namespace, cfg: Config, df: pd.DataFrame,
               issues: list[str]) -> None:
    """The protocol's model selection: best validation lambda, refit on train+val."""
    rows = []
    for task in flow_test_tasks(cfg, df):
        row = run_task(task)
        issues += checks.row_issues(
            row, f"select {row['dataset']} d={row['depth']} {row['method']} seed={row['seed']}")
        rows.append(row)
    sel = pd.DataFrame(rows).sort_values(["dataset", "depth", "method", "seed"])
    sel["seconds"] = sel["fit_seconds"].round(3)
    sel = sel[["dataset", "depth", "method", "seed", "lam", "status", "seconds", "test_acc",
               "error"]]
    out = args.out.with_name(args.out.stem + "_selected.csv")
    sel.drop(columns="error").to_csv(out, index=False)
    table = report.accuracy_table(sel, ["dataset", "depth"], order=args.methods, std=False)
    print(f"\n=== out-of-sample accuracy (%) after λ selection, mean over seeds -> {out} ===")
    print(table.to_string(float_format=lambda v: f"{v:.1f}"))
    print("\nselected λ per (dataset, depth, method, seed):")
    print(sel[["dataset", "depth", "method", "seed", "lam", "status"]].to_string(index=False))


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    t0 = time.perf_counter()
    try:
        cfg = resolve("flow", datasets=args.datasets, methods=args.methods, depths=args.depths,
                      seeds=args.seeds, lams=args.lams, time_limit=args.time_limit)
    except OptreesInputError as exc:
        raise SystemExit(str(exc)) from exc
    issues: list[str] = []
    df = run_grid(args, cfg, issues)
    ok = df[df["error"] == ""]
    issues += checks.bound_violations(ok, ["dataset", "depth", "lam", "seed"])
    summarize(ok)
    if args.select_lam:
        select_lam(args, cfg, df, issues)
    print(f"\nsanity checks: {'OK' if not issues else f'{len(issues)} problem(s)'}")
    for msg in issues:
        print(f"  ! {msg}")
    print(f"rows appended to {args.out}; wall time {time.perf_counter() - t0:.1f}s")


if __name__ == "__main__":
    main()
