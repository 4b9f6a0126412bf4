"""Issue #47 item 4: many rows. Times, status, gap and peak memory of one fit on 10^6 rows.

Cases (each in its own process, so ``ru_maxrss`` is that fit's peak):

    planted   n rows x 50 random 0/1 features, labels from a planted depth-3 tree with
              ``--noise`` of them flipped (seeded); BendOCTClassifier at depth 3 and 4
    krkp      kr-vs-kp's 0/1 encoding (3,196 rows x 38) replicated to n rows, ``--flip`` of
              the feature bits flipped (seeded) so copies are not all identical
    numeric   n rows x 5 continuous features rounded to 3 decimals (a planted depth-2 tree
              on thresholds, noise); BendOCTClassifier's numeric search over every threshold
              (binarizer "auto"), thresholds_ printed

pystreed (cost-complex-accuracy, the same objective) runs beside the 0/1 cases with
``--pystreed`` and the same time limit.

Usage:
    python bench/many_rows.py --rows 1000000 --cases planted,krkp --depths 3,4 --pystreed
    python bench/many_rows.py --rows 1000000 --cases numeric --depths 2
    python bench/many_rows.py --rows 1000000 --cases planted --depths 4 --n-jobs 2 --time-limit 300
Prints one line per fit: case, depth, optimiser, seconds, status, gap, objective, peak MB
(ru_maxrss of the fit's process, data included) and the number of distinct (row, class)
pairs (all rows when more than 90 % are distinct); the 0/1 search merges identical ones into
one weighted row when at most 30 % of unit-weight rows are distinct.
``--no-merge`` searches every row (before/after of the merge).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees.trees.search.binary.data import merge_rows  # noqa: E402

HEADER = (f"{'case':8} {'rows':>8} {'d':>2} {'who':9} {'seconds':>8} {'status':11} "
          f"{'gap':>8} {'objective':>10} {'peak MB':>8} {'distinct':>9}")


def planted(n: int, features: int, noise: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` rows of random 0/1 features; the label of a fixed depth-3 tree on features
    0..6 (root 0, then 1 / 2, then 3..6: leaf labels alternate), ``noise`` of them flipped."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, features)) < 0.5).astype(np.uint8)
    b1 = np.where(X[:, 0] == 0, X[:, 1], X[:, 2])
    leaf = 4 * X[:, 0] + 2 * b1 + np.choose(2 * X[:, 0] + b1, [X[:, 3], X[:, 4], X[:, 5],
                                                               X[:, 6]])
    y = (leaf % 2).astype(np.int64)
    flip = rng.random(n) < noise
    y[flip] = 1 - y[flip]
    return X, y


def krkp(n: int, flip: float, seed: int, data_dir: str | None) -> tuple[np.ndarray, np.ndarray]:
    """kr-vs-kp's 0/1 encoding replicated to ``n`` rows with ``flip`` of the bits flipped."""
    from optrees.bench.tasks import accel_file

    df = pd.read_csv(accel_file("kr-vs-kp", "enc", data_dir))
    X0 = df.iloc[:, :-1].to_numpy(dtype=np.uint8)
    y0 = np.unique(df.iloc[:, -1].to_numpy(), return_inverse=True)[1]
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, len(y0), n)
    X = X0[pick]
    if flip > 0:
        X ^= (rng.random(X.shape) < flip).astype(np.uint8)
    return X, y0[pick].astype(np.int64)


def numeric(n: int, seed: int, noise: float) -> tuple[pd.DataFrame, np.ndarray]:
    """``n`` rows x 5 uniform columns rounded to 3 decimals (about 1,000 thresholds each);
    labels of a planted depth-2 tree, ``noise`` flipped."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.random((n, 5)), 3)
    y = np.where(X[:, 0] < 0.4, X[:, 1] < 0.7, X[:, 2] < 0.25).astype(np.int64)
    flip = rng.random(n) < noise
    y[flip] = 1 - y[flip]
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(5)]), y


def data(args: argparse.Namespace):
    if args.case == "planted":
        return planted(args.rows, args.features, args.noise, args.seed)
    if args.case == "krkp":
        return krkp(args.rows, args.flip, args.seed, args.data_dir)
    return numeric(args.rows, args.seed, args.noise)


def one_fit(args: argparse.Namespace) -> dict:
    """The fit of one case, depth and optimiser (run in a child process)."""
    X, y = data(args)
    distinct = -1
    if args.case != "numeric":  # distinct (row, class) pairs: what the 0/1 search sees
        merged = merge_rows(X, y, np.ones(len(y)))
        distinct = len(y) if merged is None else len(merged[1])
    if args.no_merge:  # the search before rows were merged (the merge's sort still runs)
        from optrees.trees.search.binary import data as binary_data

        binary_data.MERGE_GAIN = binary_data.MERGE_GAIN_UNIT = -1.0
    t0 = time.perf_counter()
    if args.who == "pystreed":
        from optrees.bench.peers import pystreed_fit

        fit = pystreed_fit(X, y, args.depth, args.lam, repeats=1, time_limit=args.time_limit)
        out = {"status": "optimal" if fit.proved else "time_limit", "gap": float("nan"),
               "objective": fit.objective}
    else:
        from optrees import BendOCTClassifier

        X_fit = X if args.case == "numeric" else pd.DataFrame(X).astype(np.uint8)
        est = BendOCTClassifier(depth=args.depth, lam=args.lam, time_limit=args.time_limit,
                                random_state=0, n_jobs=args.n_jobs).fit(X_fit, y)
        out = {"status": est.status_, "gap": float(est.gap_),
               "objective": float(est.objective_),
               "thresholds": getattr(est, "thresholds_", "") if args.case == "numeric" else ""}
    out["seconds"] = time.perf_counter() - t0
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out["distinct"] = distinct
    return out


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--features", type=int, default=50)
    ap.add_argument("--cases", default="planted,krkp")
    ap.add_argument("--depths", default="3,4")
    ap.add_argument("--lam", type=float, default=0.001)
    ap.add_argument("--noise", type=float, default=0.1)
    ap.add_argument("--flip", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--pystreed", action="store_true")
    ap.add_argument("--n-jobs", type=int, default=None,
                    help="threads of our 0/1 search (n_jobs; the numeric search is serial)")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--no-merge", action="store_true",
                    help="search every row (identical rows not merged), for before/after")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--case", help=argparse.SUPPRESS)
    ap.add_argument("--depth", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--who", help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.child:
        print(json.dumps(one_fit(args)))
        return
    print(HEADER)
    base = [sys.executable, __file__, "--child", "--rows", str(args.rows), "--features",
            str(args.features), "--lam", str(args.lam), "--noise", str(args.noise), "--flip",
            str(args.flip), "--seed", str(args.seed), "--time-limit", str(args.time_limit)]
    if args.n_jobs is not None:
        base += ["--n-jobs", str(args.n_jobs)]
    if args.data_dir:
        base += ["--data-dir", args.data_dir]
    if args.no_merge:
        base += ["--no-merge"]
    for case in args.cases.split(","):
        for depth in (int(d) for d in args.depths.split(",")):
            whos = ["optrees"] + (["pystreed"] if args.pystreed and case != "numeric" else [])
            for who in whos:
                run = subprocess.run(base + ["--case", case, "--depth", str(depth), "--who", who],
                                     capture_output=True, text=True)
                if run.returncode:
                    print(f"{case:8} {args.rows:8d} {depth:2d} {who:9} failed: "
                          f"{run.stderr.strip().splitlines()[-1:]}")
                    continue
                r = json.loads(run.stdout.strip().splitlines()[-1])
                print(f"{case:8} {args.rows:8d} {depth:2d} {who:9} {r['seconds']:8.1f} "
                      f"{r['status']:11} {r['gap']:8.2%} {r['objective']:10.6f} "
                      f"{r['peak_mb']:8.0f} {r['distinct']:9d} {r.get('thresholds', '')}",
                      flush=True)


if __name__ == "__main__":
    main()
