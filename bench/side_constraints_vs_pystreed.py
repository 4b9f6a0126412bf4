"""min_samples_leaf and max_leaves (issue #19) side by side with pystreed.

BendOCTClassifier (accuracy - lam * leaves, binarizer=None on the accelerated paper's
encodings, as ``bench/subtrees_vs_pystreed.py`` reads them) with ``min_samples_leaf=m`` or
``max_leaves=k`` against pystreed's STreeDClassifier with ``min_leaf_node_size=m`` or
``max_num_nodes=k - 1`` (branching nodes; pystreed takes it with lam = 0 only, so max_leaves
runs use lam = 0), the same objective and time limit, in one run.
A run under a second is repeated three times and its median time kept; both are warmed up
first (numba compile, imports).

Usage:
    python bench/side_constraints_vs_pystreed.py                 # the default grid below
    python bench/side_constraints_vs_pystreed.py --instances monk1,wdbc:QT_5 --depths 3 \\
        --min-leaf 5,20 --max-leaves 4 --lams 0.001 --time-limit 60
Prints one line per instance (both objectives, proved?, seconds, ratio ours / pystreed, the
smallest leaf of our tree and its leaves) and a summary per constraint and depth: solved
counts, median and worst ratio where both proved, wrong claims (our proved optimum differing
from pystreed's by more than 1e-9) and broken constraints; exits 1 on either.

When the two proved optima differ, pystreed is run again without its depth-2 terminal solver
(``use_terminal_solver=False``): pystreed 1.4.0's terminal solver misses optima under
``min_leaf_node_size`` (monk2, depth 4, m = 20: 0.709976 with it, 0.720811 = ours without
it).  A difference that the re-run removes is printed "PEER" and counted apart.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from subtrees_vs_pystreed import load, timed  # noqa: E402

from optrees import BendOCTClassifier  # noqa: E402
from optrees.bench.scripts import checkout_data_dir  # noqa: E402

INSTANCES = ["monk1", "monk2", "monk3", "house-votes-84", "tic-tac-toe", "balance-scale",
             "breast-cancer", "car_evaluation", "spect", "kr-vs-kp", "wdbc:QT_5",
             "ionosphere:QT_5", "biodeg:QT_5", "banknote:QB_5", "credit:QT_5"]


def run_ours(X, y, depth, lam, limit, constraint):
    est = BendOCTClassifier(depth=depth, lam=lam, binarizer=None, time_limit=limit,
                            **constraint)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
    seconds = time.perf_counter() - t0
    smallest = int(np.unique(est.apply(X), return_counts=True)[1].min())
    return seconds, est.objective_, est.status_ == "optimal", smallest, est.tree_.n_leaves


def run_pystreed(X, y, depth, lam, limit, constraint, terminal_solver=True):
    import pystreed

    extra = {"use_terminal_solver": terminal_solver}
    if "min_samples_leaf" in constraint:
        extra["min_leaf_node_size"] = constraint["min_samples_leaf"]
    if "max_leaves" in constraint:
        extra["max_num_nodes"] = constraint["max_leaves"] - 1
    t0 = time.perf_counter()
    ref = pystreed.STreeDClassifier(max_depth=depth, optimization_task="cost-complex-accuracy",
                                    cost_complexity=lam, time_limit=limit, **extra).fit(X, y)
    seconds = time.perf_counter() - t0
    obj = float(np.mean(ref.predict(X) == y) - lam * ref.get_n_leaves())
    return seconds, obj, bool(ref.fit_result.is_optimal())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", default=",".join(INSTANCES),
                    help="comma-separated name[:encoding]")
    ap.add_argument("--depths", default="2,3,4")
    ap.add_argument("--min-leaf", default="5,20", help="min_samples_leaf values (rows)")
    ap.add_argument("--max-leaves", default="3,5", help="max_leaves values")
    ap.add_argument("--lams", default="0.001")
    ap.add_argument("--time-limit", type=float, default=60.0)
    args = ap.parse_args(argv)
    checkout_data_dir(__file__)
    constraints = ([{"min_samples_leaf": int(m)} for m in args.min_leaf.split(",") if m]
                   + [{"max_leaves": int(k)} for k in args.max_leaves.split(",") if k])
    _, Xw, yw = load("monk1")
    run_ours(Xw, yw, 3, 0.01, 60, {"min_samples_leaf": 5})     # warm-up
    run_pystreed(Xw, yw, 3, 0.01, 60, {"min_samples_leaf": 5})
    print(f"{'instance':20} {'n':>5} {'F':>4} {'d':>1} {'constraint':>18} | {'ours':>9} "
          f"{'pf':>2} {'sec':>7} {'min':>4} {'lv':>3} | {'pystreed':>9} {'pf':>2} "
          f"{'sec':>7} | {'ratio':>6}", flush=True)
    rows = []
    for spec in args.instances.split(","):
        label, X, y = load(spec)
        for depth in map(int, args.depths.split(",")):
            for lam in map(float, args.lams.split(",")):
                for c in constraints:
                    lam = 0.0 if "max_leaves" in c else lam
                    t_o, obj_o, opt_o, small, leaves = timed(run_ours, X, y, depth, lam,
                                                             args.time_limit, c)
                    t_p, obj_p, opt_p = timed(run_pystreed, X, y, depth, lam,
                                              args.time_limit, c)
                    ratio = t_o / t_p if opt_o and opt_p else float("nan")
                    wrong = opt_o and opt_p and abs(obj_o - obj_p) > 1e-9
                    peer = False
                    if wrong:  # adjudicate: pystreed without its terminal solver
                        _, obj_q, opt_q = run_pystreed(X, y, depth, lam, args.time_limit, c,
                                                       terminal_solver=False)
                        peer = opt_q and abs(obj_o - obj_q) <= 1e-9
                        wrong = not peer
                    broken = (small < c.get("min_samples_leaf", 0) and leaves > 1) or (
                        leaves > c.get("max_leaves", leaves))
                    name = ",".join(f"{k.split('_')[1]}={v}" for k, v in c.items())
                    rows.append((name.split("=")[0], depth, opt_o, opt_p, ratio, wrong, broken,
                                 peer))
                    print(f"{label:20} {len(y):5d} {X.shape[1]:4d} {depth:1d} {name:>18} | "
                          f"{obj_o:9.6f} {'y' if opt_o else 'n':>2} {t_o:7.3f} {small:4d} "
                          f"{leaves:3d} | {obj_p:9.6f} {'y' if opt_p else 'n':>2} {t_p:7.3f} | "
                          f"{ratio:6.2f}" + ("  WRONG" if wrong else "")
                          + ("  BROKEN" if broken else "") + ("  PEER" if peer else ""),
                          flush=True)
    print("\nsummary (ratio = our seconds / pystreed's, instances both proved)")
    print(f"{'constraint':>10} {'d':>2} {'runs':>5} {'ours':>5} {'peer':>5} {'median':>7} "
          f"{'worst':>7} {'wrong':>5} {'broken':>6} {'p-miss':>6}")
    bad = 0
    for kind in sorted({r[0] for r in rows}):
        for depth in sorted({r[1] for r in rows}):
            sel = [r for r in rows if r[0] == kind and r[1] == depth]
            ratios = [r[4] for r in sel if np.isfinite(r[4])]
            wrong, broken = sum(r[5] for r in sel), sum(r[6] for r in sel)
            bad += wrong + broken
            med = float(np.median(ratios)) if ratios else float("nan")
            worst = float(np.max(ratios)) if ratios else float("nan")
            print(f"{kind:>10} {depth:2d} {len(sel):5d} {sum(r[2] for r in sel):5d} "
                  f"{sum(r[3] for r in sel):5d} {med:7.2f} {worst:7.2f} {wrong:5d} {broken:6d} "
                  f"{sum(r[7] for r in sel):6d}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
