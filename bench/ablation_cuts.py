"""Do the optional cuts pay off? FlowOCT with/without cuts (4), BendersOCT with/without
fractional min-cut separation, on bundled datasets (50 % training split, seed 0).

The variants are ``optrees.bench.variants.CUT_VARIANTS`` and the grid
``optrees.bench.protocols.cut_ablation_tasks``; each fit is a harness task.

Usage: python bench/ablation_cuts.py [--datasets monk1,balance-scale] [--depths 2]
       [--time-limit 120]
Prints one line per run: seconds, status, objective, bound, B&B nodes, cuts added.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import OptreesInputError  # noqa: E402
from optrees.bench.protocols import cut_ablation_tasks  # noqa: E402
from optrees.bench.tasks import run_task  # noqa: E402
from optrees.bench.variants import CUT_VARIANTS  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--datasets", default="monk1,monk3,house-votes-84,balance-scale")
    ap.add_argument("--depths", default="2")
    ap.add_argument("--lam", type=float, default=0.0)
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--variants", default=",".join(CUT_VARIANTS))
    args = ap.parse_args()
    try:
        pairs = cut_ablation_tasks(args.datasets.split(","),
                                   [int(d) for d in args.depths.split(",")], args.lam,
                                   args.time_limit, args.variants.split(","))
    except OptreesInputError as exc:
        raise SystemExit(str(exc)) from exc
    print(f"{'dataset':16} {'d':>2} {'variant':20} {'seconds':>8} {'status':10} "
          f"{'objective':>9} {'bound':>9} {'nodes':>7}  cuts")
    for variant, task in pairs:
        r = run_task(task)
        if r["error"]:
            print(f"{task.dataset:16} {task.param['depth']:>2} {variant:20} {r['error']}")
            continue
        print(f"{task.dataset:16} {task.param['depth']:>2} {variant:20} {r['fit_seconds']:8.2f} "
              f"{r['status']:10} {r['objective']:9.1f} {r['bound']:9.1f} "
              f"{int(r['bb_nodes']):7d}  {r['stats']}", flush=True)


if __name__ == "__main__":
    main()
