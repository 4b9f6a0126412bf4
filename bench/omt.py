"""OMT benchmark ([OMT] §6 protocol) and a synthetic scale test.

Accuracy/runtime: every dataset is split at random, not stratified (seeds 0..S-1), into 50 %
train / 25 % validation / 25 % test; OMTClassifier with l = 2^d leaves, rule length <= d, min
support 1 %, K = 1000 (100 on large data), 40 CG iterations, 10,000 columns is fitted on the
train part.
With several ``--leaf-penalties`` one tree is fitted per penalty and the one with the best
validation accuracy (ties: the larger penalty) is reported, as the FlowOCT protocol picks its
lambda (``--refit``: that penalty refitted on train + validation, as the FlowOCT protocol
does); with one value (default 0, the paper's objective) the validation part is unused.
Ordered categoricals (car-evaluation, breast-cancer ranges) are always binned over their
order; ``--ordinal`` also numeric-valued categories (balance-scale, monk, hayes-roth).
Prints one line per reported fit and a summary per dataset/depth: mean test accuracy next to
the paper's Table 1 OMT value (d = 4, 5), median seconds (of the reported fit; with a penalty
grid also the total over the grid), mean LP-IP gap, statuses.  ``--jobs N`` runs N fits at
once (timings are then taken on a loaded machine).  ``--csv`` is the harness's resumable CSV
(one row per fit, every penalty; fits already in it are reused).

Scale: ``--scale N`` draws N rows with ``--scale-features`` numeric features whose label is a
noisy depth-3 tree, fits at ``--scale-depth`` and reports seconds, peak memory (RSS), train
accuracy and test accuracy on an independent draw, next to scikit-learn CART of the same
depth on the same data (OMT sees ``--n-bins`` quantile bins per feature, by default "auto":
more with more rows, plus the thresholds of a CART tree; CART exact thresholds).  Large
data uses the merged-row master of :mod:`optrees.omt.master`.

    python bench/omt.py --datasets monk1,car-evaluation --depths 4 --seeds 5
    python bench/omt.py --depths 4,5 --ordinal --categorical-nodes complements \
        --leaf-penalties 0,0.002,0.005,0.01,0.02,0.04 --jobs 2
    python bench/omt.py --datasets HTRU_2,shuttle --depths 2,3 --k-best 100 --time-limit 3600
    python bench/omt.py --scale 1000000 --scale-features 18 --scale-depth 3

The grid, the penalty selection, the refit and the Table 1 comparison are
``optrees.bench.omt`` (the ``omt`` protocol of ``optrees bench`` uses the same), each fit a
harness task; the scale test is ``optrees.bench.scale``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import OptreesInputError  # noqa: E402
from optrees.bench import omt, scale  # noqa: E402
from optrees.bench.protocols import OMT_DATASETS, PROTOCOLS, resolve  # noqa: E402
from optrees.bench.runner import run_tasks  # noqa: E402
from optrees.bench.scripts import checkout_data_dir  # noqa: E402

COLUMNS = PROTOCOLS["omt"].columns


def run_scale(args: argparse.Namespace) -> int:
    """The synthetic scale test (``optrees.bench.scale``), printed."""
    train, test, t_gen = scale.scale_data(args.scale, args.scale_features)
    print(f"synthetic {args.scale} x {args.scale_features} generated in {t_gen:.1f}s, "
          f"RSS {scale.peak_mb():.0f} MB", flush=True)
    r = scale.scale_omt(train, test, args.scale_depth, args.k_best, args.beam, args.n_bins,
                        args.time_limit)
    print(f"fit {r['seconds']:.1f}s  train acc {r['train_acc']:.4f}  test acc "
          f"{r['test_acc']:.4f}  status {r['status']}  units {r['units']}  iterations "
          f"{r['iterations']}  columns {r['columns']}  pricing {r['pricing_seconds']:.1f}s  "
          f"LP {r['lp_seconds']:.1f}s  MIP {r['mip_seconds']:.1f}s  gap {r['gap']:.4f}  "
          f"rules {r['rules']}  peak RSS {r['peak_mb']:.0f} MB", flush=True)
    c = scale.scale_cart(train, test, args.scale_depth)
    print(f"CART d={args.scale_depth}: {c['seconds']:.1f}s  train acc {c['train_acc']:.4f}  "
          f"test acc {c['test_acc']:.4f}  (OMT train {r['train_acc']:.4f}, test "
          f"{r['test_acc']:.4f})")
    return 0


def print_rows(rows: pd.DataFrame, order: list[str]) -> None:
    """One line per reported fit, then the summary next to the paper's Table 1."""
    rows = rows.assign(_o=rows["dataset"].map(order.index)).sort_values(["_o", "depth", "seed"])
    for r in rows.to_dict("records"):
        part = r["fit_on"] if isinstance(r.get("fit_on"), str) else "train"
        print(f"{r['dataset']:15s} d={r['depth']} seed={r['seed']} lam={r['leaf_penalty']:g} "
              f"({part}) train={r['train_acc']:.3f} val={r['val_acc']:.3f} "
              f"test={r['test_acc']:.3f} {r['fit_seconds']:7.2f}s (CG {r['cg_seconds']:.2f}s, "
              f"MIP {r['mip_seconds']:.2f}s; grid {r['grid_seconds']:.1f}s) "
              f"gap={r['gap']:.4f} {r['status']} it={r['iterations']} cols={r['columns']} "
              f"rules={r['n_rules']}", flush=True)
    table = omt.paper_table(rows)
    print("\nsummary: mean test acc (paper Table 1 OMT at d=4/5), median seconds, mean gap")
    for t in table.itertuples():
        paper = "  -  " if pd.isna(t.paper) else f"{t.paper:.3f}"
        print(f"{t.dataset:15s} d={t.depth} test={t.test:.3f} (paper {paper}) "
              f"median {t.seconds:7.2f}s (grid {t.grid_seconds:.1f}s)  gap {t.gap:.4f}  "
              f"lam {t.penalties}  {t.statuses}")
    pairs, mean, close = omt.paper_agreement(table)
    if pairs:
        print(f"test - paper over {pairs} dataset/depth pairs: mean {100 * mean:+.2f}"
              f" points, {close} within 1.5 points or better")
    for d, g in rows.groupby("depth"):
        med = g.groupby("dataset")["fit_seconds"].median()
        print(f"d={d}: median runtime over all fits {g['fit_seconds'].median():.2f}s; "
              f"per-dataset medians {med.round(2).to_dict()}")


def _bins(text: str) -> int | str:
    """``--n-bins``: "auto" or a count."""
    return text if text == "auto" else int(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default=",".join(OMT_DATASETS))
    ap.add_argument("--depths", default="2,3,4,5")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--time-limit", type=float, default=1200.0)
    ap.add_argument("--k-best", type=int, default=None, help="K (default 1000, large: 100)")
    ap.add_argument("--beam", type=int, default=None)
    ap.add_argument("--n-bins", type=_bins, default="auto", help="'auto' or an integer")
    ap.add_argument("--categorical-nodes", default="values")
    ap.add_argument("--ordinal", action="store_true")
    ap.add_argument("--leaf-penalties", default="0",
                    help="comma-separated; several: pick by validation accuracy")
    ap.add_argument("--refit", action="store_true",
                    help="refit the selected penalty on train + validation (FlowOCT protocol)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--csv", default=None,
                    help="every fit (all penalties) is appended here; fits already in the "
                    "file (same dataset, depth, seed, penalty and options) are reused")
    ap.add_argument("--scale", type=int, default=0)
    ap.add_argument("--scale-features", type=int, default=18)
    ap.add_argument("--scale-depth", type=int, default=3)
    args = ap.parse_args(argv)
    if args.scale:
        return run_scale(args)
    checkout_data_dir(__file__)
    names = args.datasets.split(",")
    try:
        cfg = resolve("omt", datasets=names, methods=["omt"],
                      depths=[int(d) for d in args.depths.split(",")], seeds=args.seeds,
                      lams=[float(v) for v in args.leaf_penalties.split(",")],
                      time_limit=args.time_limit)
    except OptreesInputError as exc:
        raise SystemExit(str(exc)) from exc
    cfg.extra["omt"] = {"k_best": args.k_best, "beam": args.beam, "n_bins": args.n_bins,
                        "categorical_nodes": args.categorical_nodes,
                        "ordinal": True if args.ordinal else "auto"}
    with tempfile.TemporaryDirectory() as tmp:
        path = args.csv or str(Path(tmp) / "omt.csv")
        tune = run_tasks(omt.penalty_tasks(cfg), path, COLUMNS, jobs=args.jobs, label="omt")
        refit = None
        if args.refit:
            refit = run_tasks(omt.refit_tasks(cfg, omt.select_penalty(tune)), path, COLUMNS,
                              jobs=args.jobs, label="omt:refit")
        rows = omt.reported(tune, refit)
    for part in (tune, refit if refit is not None else tune.iloc[:0]):
        for r in part[part["error"] != ""].to_dict("records"):
            print(f"{r['dataset']:15s} d={r['depth']} seed={r['seed']} "
                  f"lam={r['leaf_penalty']:g} error: {r['error']}", flush=True)
    if rows.empty:
        return 1
    print_rows(rows, names)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
