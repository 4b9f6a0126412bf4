"""optrees RUG vs ruleopt 1.2.1 RUG (same method, HiGHS inside): fit time, test accuracy, rules.

Usage:  OPTREES_DATA=../shared/datasets python bench/rug_vs_ruleopt.py
        [--datasets skin,adult,magic] [--depth 3] [--calls 10] [--penalty 1.0] [--seeds 0]
        [--lp-methods simplex,interior] [--rule-labels auto] [--repeat 1] [--fair]
        [--fair-cv]

ruleopt is a benchmark-only tool (``pip install ruleopt==1.2.1``), not an optrees dependency.

Settings that correspond:
- one stratified 70/30 split per seed; both get the same rows; ruleopt gets the numeric matrix
  optrees' pricing trees see (numeric columns as they are, categoricals one-hot);
- ``max_depth`` of the pricing trees; ``max_rmp_calls`` (ruleopt counts pricing rounds after
  the first LP, i.e. up to calls + 1 LP solves; optrees counts LP solves, so optrees gets
  ``calls + 1`` here to match the number of master LP solves);
- rule cost = rule length (ruleopt ``Length()``), and ruleopt's objective weight
  ``penalty / max(initial rule costs)`` is passed to optrees as ``pen_par``;
- pruning thresholds: ruleopt keeps rules with weight > 1e-6, optrees ``threshold=1e-6``
  relative to the largest weight (both keep essentially every rule with positive weight);
- ruleopt solves the master LP by interior point without crossover (tolerance 1e-4), which is
  optrees' ``lp_method="interior"``; ``"simplex"`` returns an optimal vertex; optrees'
  default ``"auto"`` is simplex for two classes, interior point for more.
  ``--lp-methods`` runs each given method against the same ruleopt fit.

``--fair`` also times optrees with fairness off / DMC / EOP (epsilon 0.025) on adult (sex) and
compas (Race) with the FairRUG settings of bench/rug.py (threshold 0, rule cost 1, pen_par =
``--penalty``, ``--calls`` master LP solves), the same settings with fairness on and off;
``--fair-cv`` picks epsilon from {0, 0.01, 0.025, 0.05} by 3-fold CV on the training part
(best validation DMC resp. EOP score, as in the paper) instead of fixing it at 0.025.

The side-by-side runner and its paired summary are ``optrees.bench.peers``
(``ruleopt_side_by_side``, ``paired_summary``); the FairRUG runs and their summary are
``optrees.bench.rug`` (``fair_fits``, ``pick_epsilon``, ``fair_summary``), shared with
bench/rug.py.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees.bench import peers, rug  # noqa: E402
from optrees.bench.scripts import checkout_data_dir  # noqa: E402

FAIR = {"adult": "sex", "compas": "Race"}


def print_pair(r: dict) -> None:
    """One split, one LP method: ruleopt next to optrees."""
    print(f"{r['dataset']:14s} n={r['n']:7d} seed={r['seed']} pen_par={r['pen_par']:.4f} | "
          f"ruleopt {r['ro_s']:7.2f}s acc {r['ro_acc']:.4f} rules {r['ro_rules']:3d} | optrees "
          f"{r['lp_method']:8s} {r['ot_s']:7.2f}s acc {r['ot_acc']:.4f} rules "
          f"{r['ot_rules']:3d} (pool {r['ot_pool']}, {r['ot_lps']} LPs, {r['ot_status']}) | "
          f"ratio {r['ot_s'] / r['ro_s']:.2f}", flush=True)


def print_means(rows: list[dict], seeds: str) -> None:
    """Means over the seeds and the paired accuracy difference."""
    print(f"mean over seeds {seeds}:")
    for m in peers.paired_summary(pd.DataFrame(rows)).to_dict("records"):
        print(f"{m['dataset']:14s} n={m['n']:7d} | ruleopt {m['ro_s']:7.2f}s acc "
              f"{m['ro_acc']:.4f} rules {m['ro_rules']:5.1f} | optrees {m['lp_method']:8s} "
              f"{m['ot_s']:7.2f}s acc {m['ot_acc']:.4f} rules {m['ot_rules']:5.1f}"
              f" | ratio {m['ot_s'] / m['ro_s']:.2f}", flush=True)
        print(f"{'':14s} test accuracy optrees - ruleopt, paired over {m['splits']} splits: "
              f"{m['diff']:+.2f} +- {m['se']:.2f} points (mean +- standard error); optrees "
              f"better on {m['better']}, equal on {m['equal']}")


def print_fair(rows: list[dict]) -> None:
    """Per fit, then the means over the splits."""
    for r in rows:
        eps = "" if r["fairness"] == "None" else f" eps {r['epsilon']:g}"
        print(f"{r['dataset']:8s} seed={r['seed']} {r['fairness']:5s}{eps:10s} acc "
              f"{r['acc']:.4f} DMC {r['dmc']:6.2f}% EOP {r['eop']:6.2f}% rules "
              f"{r['rules']:3d} {r['seconds']:6.2f}s (x{r['ratio']:.2f} of unconstrained)",
              flush=True)
    print("mean over splits:")
    for m in rug.fair_summary(pd.DataFrame(rows)).to_dict("records"):
        line = (f"{m['dataset']:8s} {m['fairness']:5s} acc {m['acc']:.4f} DMC "
                f"{m['dmc']:6.2f}% EOP {m['eop']:6.2f}% time x{m['ratio']:.2f} "
                f"(max x{m['max_ratio']:.2f})")
        if m["fairness"] != "None":
            line += (f"; {m['fairness'].upper()} better than unconstrained on "
                     f"{int(m['better'])} of {m['splits']}")
        print(line)


def warm_up() -> None:
    """One tiny fit of each, not timed: numba's compiled pricing tree loads from its disk
    cache (or compiles) in the first fit of a process, and ruleopt imports its own parts."""
    import numpy as np

    from optrees import RUGClassifier

    rng = np.random.default_rng(0)
    X = rng.random((60, 3))
    y = rng.integers(0, 3, 60)
    RUGClassifier(max_depth=2, max_rmp_calls=2).fit(X, y)
    peers.ruleopt_fit(X, y, 2, 1, 1.0, 0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="skin,adult,magic")
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--calls", type=int, default=10)
    ap.add_argument("--penalty", type=float, default=1.0)
    ap.add_argument("--seeds", default="0",
                    help="comma list of split seeds, or a range FIRST-LAST")
    ap.add_argument("--lp-methods", default="auto,simplex,interior",
                    help="optrees lp_method(s) to run against the same ruleopt fit")
    ap.add_argument("--rule-labels", default="auto",
                    help="optrees' rule_labels: auto, majority or duals (ruleopt's)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--fair", action="store_true")
    ap.add_argument("--fair-cv", action="store_true",
                    help="choose epsilon by 3-fold CV on the fairness score (paper's protocol)")
    args = ap.parse_args()
    checkout_data_dir(__file__)
    if "-" in args.seeds:
        first, last = (int(s) for s in args.seeds.split("-"))
        seeds = list(range(first, last + 1))
    else:
        seeds = [int(s) for s in args.seeds.split(",")]
    warm_up()
    rows = []
    for name in filter(None, args.datasets.split(",")):
        for seed in seeds:
            pairs = peers.ruleopt_side_by_side(
                name, seed, depth=args.depth, calls=args.calls, penalty=args.penalty,
                lp_methods=args.lp_methods.split(","), repeat=args.repeat,
                rule_labels=args.rule_labels)
            for r in pairs:
                print_pair(r)
            rows += pairs
    if len(seeds) > 1 and rows:
        print_means(rows, args.seeds)
    if args.fair:
        fair = [r for name, col in FAIR.items() for seed in seeds
                for r in rug.fair_fits(name, col, ("dmc", "eop"), seed, depth=args.depth,
                                       pen_par=args.penalty, calls=args.calls,
                                       tune_epsilon=args.fair_cv, repeat=args.repeat)]
        print_fair(fair)


if __name__ == "__main__":
    main()
