"""The exact subtree engine (optrees.trees.search.binary) side by side with pystreed.

Reads the accelerated paper's encodings ``binarized/accel-oct/<name>_enc.csv`` (``enc``),
``_QT_5_enc`` or ``_QB_5_enc`` from $OPTREES_DATA (default ../shared/datasets; the ``target``
column is the label), solves accuracy - lam * leaves (leaf_penalty = lam * n) on all rows with
both solvers, each with the same time limit, after one untimed warm-up of each (numba compile);
a run under a second is repeated three times and its median time kept.

Usage:
    python bench/subtrees_vs_pystreed.py                       # the default grid below
    python bench/subtrees_vs_pystreed.py --instances monk1:enc,wdbc:QT_5 --depths 3,4 \\
        --lams 0.01,0.001 --time-limit 60
    python bench/subtrees_vs_pystreed.py --hard                # the hard depth-4 sets only
Prints one line per instance (both objectives, proved?, seconds, ratio ours / pystreed) and a
summary per depth: solved counts, median and worst ratio over instances both proved, and wrong
claims (our claimed optimum differing from pystreed's proved optimum by more than 1e-9).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees.bench.scripts import checkout_data_dir  # noqa: E402
from optrees.bench.tasks import load_data  # noqa: E402
from optrees.solvers.deadline import Deadline  # noqa: E402
from optrees.trees.search.binary import solve_subtree  # noqa: E402

ONE_HOT = ["monk1", "monk2", "monk3", "house-votes-84", "tic-tac-toe", "balance-scale",
           "breast-cancer", "car_evaluation", "hayes-roth", "spect", "kr-vs-kp"]
NUMERIC = ["wdbc:QT_5", "ionosphere:QT_5", "sonar:QT_5", "biodeg:QT_5", "spambase:QB_5",
           "ozone-one:QT_5", "wine:QB_5", "parkinsons:QT_5", "banknote:QB_5", "credit:QT_5"]
HARD = ["biodeg:QT_5", "spambase:QB_5", "wdbc:QT_5", "sonar:QT_5", "ozone-one:QT_5"]
DEPTH5 = ["monk1", "monk2", "monk3", "house-votes-84"]


def load(spec: str) -> tuple[str, np.ndarray, np.ndarray]:
    """``name`` or ``name:encoding`` → (label, X uint8, y class indices)."""
    name, _, enc = spec.partition(":")
    X, y = load_data(name, enc or "enc")
    return (f"{name}:{enc or 'enc'}", X.to_numpy(dtype=np.uint8),
            np.unique(np.asarray(y), return_inverse=True)[1])


def run_ours(X, y, depth, lam, limit):
    n = len(y)
    t0 = time.perf_counter()
    sol = solve_subtree(X, y, depth, lam * n, deadline=Deadline(limit))
    return time.perf_counter() - t0, sol.score / n, sol.optimal


def run_pystreed(X, y, depth, lam, limit):
    import pystreed

    t0 = time.perf_counter()
    ref = pystreed.STreeDClassifier(max_depth=depth, optimization_task="cost-complex-accuracy",
                                    cost_complexity=lam, time_limit=limit).fit(X, y)
    seconds = time.perf_counter() - t0
    obj = float(np.mean(ref.predict(X) == y) - lam * ref.get_n_leaves())
    return seconds, obj, bool(ref.fit_result.is_optimal())


def timed(run, *args, quick: float = 1.0, repeats: int = 3):
    """``run(*args)``; a run under ``quick`` seconds is repeated and its median time kept."""
    first = run(*args)
    if first[0] >= quick:
        return first
    seconds = [first[0]] + [run(*args)[0] for _ in range(repeats - 1)]
    return (float(np.median(seconds)), *first[1:])


def grid(args) -> list[tuple[str, int]]:
    if args.instances:
        specs = args.instances.split(",")
        return [(s, d) for s in specs for d in map(int, args.depths.split(","))]
    if args.hard:
        return [(s, 4) for s in HARD]
    out = [(s, d) for d in (3, 4) for s in ONE_HOT + NUMERIC]
    return out + [(s, 5) for s in DEPTH5]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", default="", help="comma-separated name[:encoding]")
    ap.add_argument("--depths", default="3,4", help="with --instances")
    ap.add_argument("--hard", action="store_true", help="the hard depth-4 sets only")
    ap.add_argument("--lams", default="0.01,0.001")
    ap.add_argument("--time-limit", type=float, default=60.0)
    args = ap.parse_args(argv)
    checkout_data_dir(__file__)
    lams = [float(v) for v in args.lams.split(",")]
    _, Xw, yw = load("monk1")
    run_ours(Xw, yw, 3, 0.01, 60)        # warm-up: numba compile / import
    run_pystreed(Xw, yw, 3, 0.01, 60)
    print(f"{'instance':22} {'n':>5} {'F':>4} {'d':>1} {'lam':>6} | {'ours':>9} {'pf':>2} "
          f"{'sec':>7} | {'pystreed':>9} {'pf':>2} {'sec':>7} | {'ratio':>6}", flush=True)
    rows = []
    for spec, depth in grid(args):
        label, X, y = load(spec)
        for lam in lams:
            t_o, obj_o, opt_o = timed(run_ours, X, y, depth, lam, args.time_limit)
            t_p, obj_p, opt_p = timed(run_pystreed, X, y, depth, lam, args.time_limit)
            ratio = t_o / t_p if opt_o and opt_p else float("nan")
            wrong = opt_o and opt_p and abs(obj_o - obj_p) > 1e-9
            rows.append((depth, opt_o, opt_p, ratio, wrong))
            print(f"{label:22} {len(y):5d} {X.shape[1]:4d} {depth:1d} {lam:6g} | {obj_o:9.6f} "
                  f"{'y' if opt_o else 'n':>2} {t_o:7.2f} | {obj_p:9.6f} "
                  f"{'y' if opt_p else 'n':>2} {t_p:7.2f} | {ratio:6.2f}"
                  + ("  WRONG" if wrong else ""), flush=True)
    print("\nsummary per depth (ratio = our seconds / pystreed's, instances both proved)")
    print(f"{'d':>2} {'runs':>5} {'ours':>5} {'peer':>5} {'median':>7} {'worst':>7} {'wrong':>5}")
    n_wrong = 0
    for depth in sorted({r[0] for r in rows}):
        sel = [r for r in rows if r[0] == depth]
        ratios = [r[3] for r in sel if np.isfinite(r[3])]
        wrong = sum(r[4] for r in sel)
        n_wrong += wrong
        med = float(np.median(ratios)) if ratios else float("nan")
        worst = float(np.max(ratios)) if ratios else float("nan")
        print(f"{depth:2d} {len(sel):5d} {sum(r[1] for r in sel):5d} {sum(r[2] for r in sel):5d} "
              f"{med:7.2f} {worst:7.2f} {wrong:5d}")
    return 1 if n_wrong else 0


if __name__ == "__main__":
    sys.exit(main())
