"""RUG / FairRUG vs CART ([RUG] §4): accuracy, interpretability, fairness, time.

Usage:  OPTREES_DATA=../shared/datasets python bench/rug.py [--datasets a,b|binary|table9] [--grid]
        [--depth 3] [--pen-par 1.0] [--calls 10] [--fair]

Default protocol: one stratified 70/30 split (seed 0), RUG with fixed parameters vs a
scikit-learn CART of the same depth on the same (one-hot for categoricals) features.
``--grid`` runs the paper's protocol instead: 5-fold CV grid search over max_depth {3,5},
pen_par {0.1,1,10}, max_rmp_calls {5,10,15} on the training part, then refit and test.
``--fair`` adds RUG vs FairRUG (epsilon 0.025) on the seven fairness data sets of the paper's
Table 7 (adult, compas, default-credit: DMC and EOP; attrition, nursery, student, law: DMC and
ODM) and prints accuracy, F1, DMC / ODM (/ EOP) scores, rules and seconds.
With several data sets the mean RUG test accuracy is printed, and on those also in the paper's
Table 9 it is set against the paper's RUG column.

The fits are harness tasks (``optrees.bench.rug.rug_task`` / ``cart_task``, as in the ``rug``
protocol of ``optrees bench``; CART sees the columns RUG's pricing trees see), the fairness
runs ``optrees.bench.rug.fair_fits`` (shared with bench/rug_vs_ruleopt.py), the paper's
numbers ``optrees.bench.papers.RUG_TABLE9``.  With ``--grid`` the seconds are those of the
refit after the CV search.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees.bench import rug  # noqa: E402
from optrees.bench.papers import RUG_TABLE9  # noqa: E402
from optrees.bench.protocols import RUG_DATASETS  # noqa: E402
from optrees.bench.scripts import checkout_data_dir  # noqa: E402
from optrees.bench.tasks import load_data, run_task  # noqa: E402

DEFAULT = list(RUG_DATASETS)
BINARY = ["monk1", "monk2", "monk3", "house-votes-84", "tic-tac-toe", "kr-vs-kp", "banknote",
          "wdbc", "ionosphere", "transfusion", "magic", "adult", "skin"]
"""The two-class data sets of DEFAULT (``--datasets binary``)."""


def run_one(name: str, args: argparse.Namespace) -> float | None:
    """RUG and CART (of RUG's depth) on one data set; return RUG's test accuracy."""
    r = run_task(rug.rug_task(name, 0, grid=args.grid, depth=args.depth,
                              pen_par=args.pen_par, calls=args.calls))
    if r["error"]:
        print(f"{name:16s} skipped ({r['error'][:80]})")
        return None
    params = (json.loads(r["tuned"]) if args.grid else
              {"max_depth": args.depth, "pen_par": args.pen_par, "max_rmp_calls": args.calls})
    c = run_task(rug.cart_task(name, 0, params["max_depth"]))
    n_classes = len(np.unique(load_data(name)[1]))
    secs = r["fit_seconds"] - r.get("tune_seconds", 0.0)
    print(f"{name:16s} n={r['n_train'] + r['n_test']:6d} K={n_classes} | RUG acc "
          f"{r['test_acc']:.3f} F1 {r['test_f1']:.3f} NoR {r['n_rules']:3d} RL "
          f"{r['avg_rule_length']:.2f} NoRpS {r['rules_per_sample']:.2f} RLpS "
          f"{r['rule_length_per_sample']:.2f} {secs:6.2f}s ({int(r['n_rmp_calls'])} LPs, "
          f"{r['status']}) | CART acc {c['test_acc']:.3f} {c['fit_seconds']:.2f}s | {params}",
          flush=True)
    return float(r["test_acc"])


def run_fair(name: str, args: argparse.Namespace) -> None:
    """RUG against FairRUG (each fairness kind of the paper's Table 7) on one data set."""
    sensitive, grouping, kinds = rug.FAIR[name]
    try:
        rows = rug.fair_fits(name, sensitive, kinds, 0, depth=args.depth, pen_par=args.pen_par,
                             calls=args.calls, grouping=grouping, same_settings=False)
    except Exception as exc:  # noqa: BLE001 - a missing dataset is reported and skipped
        print(f"{name:16s} skipped ({type(exc).__name__})")
        return
    for r in rows:
        if r["error"]:
            print(f"{name:14s} {r['fairness']:5s} not run: {r['error']}")
            continue
        eop = "" if np.isnan(r["eop"]) else f" EOP {r['eop']:6.2f}%"
        print(f"{name:14s} {r['fairness']:5s} "
              f"acc {r['acc']:.3f} F1 {r['f1']:.3f} DMC {r['dmc']:6.2f}% ODM {r['odm']:6.2f}%"
              f"{eop} NoR {r['rules']:3d} {r['seconds']:6.2f}s", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default=",".join(DEFAULT))
    ap.add_argument("--grid", action="store_true")
    ap.add_argument("--fair", action="store_true")
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--pen-par", type=float, default=1.0)
    ap.add_argument("--calls", type=int, default=10)
    args = ap.parse_args()
    checkout_data_dir(__file__)
    named = {"binary": BINARY, "table9": list(RUG_TABLE9)}
    names = named.get(args.datasets) or [n for n in args.datasets.split(",") if n]
    accs = {name: run_one(name, args) for name in names}
    accs = {k: 100 * v for k, v in accs.items() if v is not None}
    if len(accs) > 1:
        mean = np.mean(list(accs.values()))
        print(f"mean RUG test accuracy over {len(accs)} data sets: {mean:.2f}%")
        both = [k for k in accs if k in RUG_TABLE9]
        if both:
            print(f"on the {len(both)} also in the paper's Table 9 ({', '.join(both)}): "
                  f"{np.mean([accs[k] for k in both]):.2f}% vs paper "
                  f"{np.mean([RUG_TABLE9[k] for k in both]):.2f}%")
    if args.fair:
        for name in rug.FAIR:
            run_fair(name, args)


if __name__ == "__main__":
    main()
