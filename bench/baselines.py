"""OCT and BinOCT against FlowOCT, BendersOCT and CART ([FlowOCT] §4, in-sample).

For every dataset the whole bundled table is binarized (optrees' default Binarizer) and each
method fits a depth-D tree with the same time limit; the table shows status, objective
((1 - lam) * correct - lam * splits on the training data), proven bound, gap, seconds and B&B
nodes.  BinOCT has no split penalty and is skipped for lam > 0; CART (scikit-learn, same depth,
no pruning) has no bound.  A final check flags any objective above another method's bound.

The grid is ``optrees.bench.protocols.in_sample_tasks`` (the methods of the ``flow`` protocol,
trained on every row), each fit a harness task, the check ``optrees.bench.checks``.

Usage (from the repository root)::

    python bench/baselines.py                                   # 4 datasets, depth 2, 60 s
    python bench/baselines.py --datasets monk1,monk3 --time-limit 20 --lam 0.01
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import OptreesInputError  # noqa: E402
from optrees.bench import checks  # noqa: E402
from optrees.bench.protocols import in_sample_tasks  # noqa: E402
from optrees.bench.tasks import run_task  # noqa: E402

METHODS = ("oct", "binoct", "flow", "benders")
DATASETS = ["monk1", "monk3", "house-votes-84", "balance-scale"]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--depth", type=int, default=2)
    p.add_argument("--lam", type=float, default=0.0)
    p.add_argument("--time-limit", type=float, default=60.0, help="seconds per fit")
    p.add_argument("--methods", default="cart," + ",".join(METHODS))
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def result(row: dict, lam: float) -> dict:
    """The row of one fit, CART's objective and zero B&B nodes filled in."""
    if row["method"] == "cart":
        row = {**row, "objective": checks.implied_objective(row, lam), "bound": math.nan,
               "gap": math.nan, "bb_nodes": 0}
    return row


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    methods = [m for m in args.methods.split(",") if m]
    unknown = set(methods) - set(METHODS) - {"cart"}
    if unknown:
        raise SystemExit(f"unknown method(s) {sorted(unknown)}")
    datasets = [d for d in args.datasets.split(",") if d]
    try:
        tasks = in_sample_tasks(datasets, methods, args.depth, args.lam, args.time_limit,
                                args.seed)
    except OptreesInputError as exc:
        raise SystemExit(str(exc)) from exc
    header = (f"{'dataset':<16}{'n':>5}{'F':>4} {'method':<8}{'status':<11}{'objective':>10}"
              f"{'bound':>10}{'gap':>8}{'seconds':>9}{'nodes':>8}{'acc':>7}")
    print(f"depth {args.depth}, lam {args.lam}, time limit {args.time_limit:g}s per fit\n")
    print(header)
    print("-" * len(header))
    rows = []
    for ds in datasets:
        for task in [t for t in tasks if t.dataset == ds]:
            r = result(run_task(task), args.lam)
            rows.append(r)
            if r["error"]:
                print(f"{ds:<16} {task.method:<8}{r['error']}", flush=True)
                continue
            print(f"{ds:<16}{r['n_train']:>5}{r['n_features_binary']:>4} {task.method:<8}"
                  f"{r['status']:<11}{r['objective']:>10.2f}{r['bound']:>10.2f}"
                  f"{r['gap']:>8.2%}{r['fit_seconds']:>9.2f}{int(r['bb_nodes']):>8}"
                  f"{r['train_acc']:>7.3f}", flush=True)
        print()
    df = pd.DataFrame(rows)
    issues = [f"{r.dataset}: {r.method}: {r.error}" for r in df.itertuples() if r.error]
    issues += checks.bound_violations(df[df["error"] == ""], ["dataset"])
    print("consistency: " + ("OK" if not issues else "\n  ".join(["FAILED"] + issues)))
    return 1 if issues else 0


if __name__ == "__main__":
    raise SystemExit(main())
