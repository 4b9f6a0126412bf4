"""OMT benchmark (omt-multiway.txt §6 protocol) and a synthetic scale test.

Accuracy/runtime: every dataset is split at random (seeds 0..S-1) into 50 % train / 25 %
validation (unused) / 25 % test; OMTClassifier with l = 2^d leaves, rule length <= d, min
support 1 %, K = 1000 (100 on large data), 40 CG iterations, 10,000 columns is fitted on the
train part.  Prints one line per fit and a summary per dataset/depth: mean test accuracy next
to the paper's Table 1 OMT value (d = 4, 5), median seconds, mean LP-IP gap, statuses.

Scale: ``--scale N`` draws N rows with ``--scale-features`` numeric features whose label is a
noisy depth-3 tree, fits at ``--scale-depth`` and reports seconds, peak memory (RSS), train
accuracy and test accuracy on an independent draw, next to scikit-learn CART of the same
depth on the same data (OMT sees ``--n-bins`` quantile bins per feature, CART exact
thresholds).  Large data uses the merged-row master of :mod:`optrees.colgen.omt`.

    python bench/omt.py --datasets monk1,car-evaluation --depths 4 --seeds 5
    python bench/omt.py --datasets HTRU_2,shuttle --depths 2,3 --k-best 100 --time-limit 3600
    python bench/omt.py --scale 1000000 --scale-features 18 --scale-depth 3
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared" / "datasets"
if "OPTREES_DATA" not in os.environ and SHARED.is_dir():
    os.environ["OPTREES_DATA"] = str(SHARED)

from optrees.datasets import load_dataset  # noqa: E402
from optrees.estimators._base import TimeLimitWarning  # noqa: E402
from optrees.estimators.omt import OMTClassifier  # noqa: E402

SMALL = ["soybean-small", "monk3", "monk1", "hayes-roth", "monk2", "house-votes-84", "spect",
         "breast-cancer", "balance-scale", "tic-tac-toe", "car-evaluation", "kr-vs-kp"]
LARGE = ["HTRU_2", "shuttle", "skin", "magic"]
# the paper's Table 1, OMT column: mean test accuracy at d = 4 and d = 5 (reference only)
PAPER = {"soybean-small": (0.883, 0.95), "monk3": (0.987, 0.987), "monk1": (1.0, 1.0),
         "hayes-roth": (0.75, 0.77), "monk2": (0.603, 0.779), "house-votes-84": (0.962, 0.955),
         "spect": (0.834, 0.803), "breast-cancer": (0.74, 0.669),
         "balance-scale": (0.781, 0.772), "tic-tac-toe": (0.802, 0.82),
         "car-evaluation": (0.879, 0.91), "kr-vs-kp": (0.96, 0.968)}


def split(X, y, seed):
    X_tr, X_rest, y_tr, y_rest = train_test_split(X, y, train_size=0.5, random_state=seed)
    _, X_te, _, y_te = train_test_split(X_rest, y_rest, test_size=0.5, random_state=seed)
    return X_tr, y_tr, X_te, y_te


def synthetic(n: int, k: int, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """n x k standard normal features; label = noisy depth-3 threshold tree on 3 features."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, k)).astype(np.float32)
    a, b, c = X[:, 0] > 0.2, X[:, 1] > -0.5, X[:, 2] > 0.8
    y = np.where(a, b ^ c, b & ~c).astype(np.int64)
    flip = rng.random(n) < 0.1
    y[flip] = 1 - y[flip]
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(k)]), y


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_scale(args) -> int:
    """Fit OMT on ``--scale`` synthetic rows; report seconds, peak RSS (taken before CART
    runs), train / test accuracy (test: an independent draw of min(n, 200,000) rows) and
    scikit-learn CART at the same depth on the same data."""
    t0 = time.perf_counter()
    X, y = synthetic(args.scale, args.scale_features)
    X_te, y_te = synthetic(min(args.scale, 200_000), args.scale_features, seed=1)
    t_gen = time.perf_counter() - t0
    print(f"synthetic {args.scale} x {args.scale_features} generated in {t_gen:.1f}s, "
          f"RSS {peak_mb():.0f} MB", flush=True)
    clf = OMTClassifier(depth=args.scale_depth, k_best=args.k_best or 100,
                        beam=args.beam, n_bins=args.n_bins, time_limit=args.time_limit,
                        random_state=0)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        clf.fit(X, y)
        sec = time.perf_counter() - t0
    acc = float(np.mean(clf.predict(X) == y))
    test = float(np.mean(clf.predict(X_te) == y_te))
    peak = peak_mb()
    s = clf.stats_
    print(f"fit {sec:.1f}s  train acc {acc:.4f}  test acc {test:.4f}  status {clf.status_}  "
          f"units {s['units']}  iterations {s['iterations']}  columns {s['columns']}  "
          f"pricing {s['pricing_seconds']:.1f}s  LP {s['lp_seconds']:.1f}s  "
          f"MIP {s['mip_seconds']:.1f}s  gap {clf.gap_:.4f}  rules {len(clf.paths_)}  "
          f"peak RSS {peak:.0f} MB", flush=True)
    cart = DecisionTreeClassifier(max_depth=args.scale_depth, random_state=0)
    t0 = time.perf_counter()
    cart.fit(X, y)
    print(f"CART d={args.scale_depth}: {time.perf_counter() - t0:.1f}s  train acc "
          f"{cart.score(X, y):.4f}  test acc {cart.score(X_te, y_te):.4f}  "
          f"(OMT train {acc:.4f}, test {test:.4f})")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default=",".join(SMALL))
    ap.add_argument("--depths", default="2,3,4,5")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--time-limit", type=float, default=1200.0)
    ap.add_argument("--k-best", type=int, default=None, help="K (default 1000, large: 100)")
    ap.add_argument("--beam", type=int, default=None)
    ap.add_argument("--n-bins", type=int, default=8)
    ap.add_argument("--categorical-nodes", default="values")
    ap.add_argument("--ordinal", action="store_true")
    ap.add_argument("--csv", default=None)
    ap.add_argument("--scale", type=int, default=0)
    ap.add_argument("--scale-features", type=int, default=18)
    ap.add_argument("--scale-depth", type=int, default=3)
    args = ap.parse_args(argv)
    if args.scale:
        return run_scale(args)
    rows = []
    for name in args.datasets.split(","):
        X, y = load_dataset(name)
        k_best = args.k_best or (100 if name in LARGE else 1000)
        for d in map(int, args.depths.split(",")):
            for seed in range(args.seeds):
                X_tr, y_tr, X_te, y_te = split(X, y, seed)
                clf = OMTClassifier(depth=d, k_best=k_best, beam=args.beam,
                                    n_bins=args.n_bins, time_limit=args.time_limit,
                                    categorical_nodes=args.categorical_nodes,
                                    ordinal=args.ordinal, random_state=seed)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", TimeLimitWarning)
                    warnings.simplefilter("ignore", UserWarning)
                    t0 = time.perf_counter()
                    clf.fit(X_tr, y_tr)
                    sec = time.perf_counter() - t0
                te = float(np.mean(clf.predict(X_te) == np.asarray(y_te)))
                tr = float(np.mean(clf.predict(X_tr) == np.asarray(y_tr)))
                s = clf.stats_
                row = {"dataset": name, "n": len(X), "depth": d, "seed": seed,
                       "train": tr, "test": te, "seconds": sec, "status": clf.status_,
                       "gap": clf.gap_, "mip_gap": clf.mip_gap_, "iterations": s["iterations"],
                       "columns": s["columns"], "cg_seconds": s["cg_seconds"],
                       "mip_seconds": s["mip_seconds"], "rules": len(clf.paths_)}
                rows.append(row)
                print(f"{name:15s} d={d} seed={seed} train={tr:.3f} test={te:.3f} "
                      f"{sec:7.2f}s (CG {s['cg_seconds']:.2f}s, MIP {s['mip_seconds']:.2f}s) "
                      f"gap={clf.gap_:.4f} {clf.status_} it={s['iterations']} "
                      f"cols={s['columns']}", flush=True)
    df = pd.DataFrame(rows)
    if args.csv:
        df.to_csv(args.csv, index=False, quoting=csv.QUOTE_MINIMAL)
    print("\nsummary: mean test acc (paper Table 1 OMT at d=4/5), median seconds, mean gap")
    for (name, d), g in df.groupby(["dataset", "depth"], sort=False):
        ref = PAPER.get(name, (None, None))
        paper = ref[0] if d == 4 else ref[1] if d == 5 else None
        pstr = f"{paper:.3f}" if paper is not None else "  -  "
        print(f"{name:15s} d={d} test={g.test.mean():.3f} (paper {pstr}) "
              f"median {g.seconds.median():7.2f}s  gap {g.gap.mean():.4f}  "
              f"{dict(g.status.value_counts())}")
    for d, g in df.groupby("depth"):
        med = g.groupby("dataset").seconds.median()
        print(f"d={d}: median runtime over all fits {g.seconds.median():.2f}s; "
              f"per-dataset medians {med.round(2).to_dict()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
