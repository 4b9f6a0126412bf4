"""SCIP's root cut rounds on the pure tree MIPs (FlowOCT without the search, OCT, BinOCT):
each fit once with SCIP's default (no limit) and once with
``solvers.scip.ROOT_SEPARATION_ROUNDS``, side by side in one run.

Usage: PYTHONPATH=$PWD python bench/root_rounds.py [--depths 1,2] [--methods binoct,oct,flow]
       [--datasets blobs80,blobs100,iris,monk1,balance-scale] [--time-limit 60]
Prints per fit: seconds with the default and with the cap, their ratio, both statuses, and
whether both found the same objective.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import load_iris, make_blobs

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
import optrees  # noqa: E402
from optrees.solvers import scip  # noqa: E402

METHODS = {"binoct": (optrees.BinOCTClassifier, {}), "oct": (optrees.OCTClassifier, {}),
           "flow": (optrees.FlowOCTClassifier, {"subtree_search": False})}
BLOBS = {"blobs80": (80, 0), "blobs100": (100, 1)}  # rows, seed


def data(name: str) -> tuple[np.ndarray, np.ndarray]:
    if name in BLOBS:
        n, seed = BLOBS[name]
        return make_blobs(n_samples=n, centers=3, n_features=2, random_state=seed)
    if name == "iris":
        return load_iris(return_X_y=True)
    return optrees.load_dataset(name)


def fit(method: str, name: str, depth: int, limit: float, capped: bool) -> tuple[float, str, float]:
    cls, kwargs = METHODS[method]
    original = scip.ScipModel.limit_root_separation
    if not capped:  # SCIP's default
        scip.ScipModel.limit_root_separation = lambda self, rounds=-1: original(self, -1)
    try:
        X, y = data(name)
        t = time.perf_counter()
        est = cls(depth=depth, time_limit=limit, random_state=0, **kwargs).fit(X, y)
        return time.perf_counter() - t, est.status_, float(est.objective_)
    finally:
        scip.ScipModel.limit_root_separation = original


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--depths", default="1,2")
    ap.add_argument("--methods", default="binoct,oct,flow")
    ap.add_argument("--datasets", default="blobs80,blobs100,iris,monk1,balance-scale")
    ap.add_argument("--time-limit", type=float, default=60.0)
    args = ap.parse_args()
    print(f"{'data':14} {'method':7} {'d':>2} {'default s':>9} {'capped s':>9} {'ratio':>6} "
          f"{'statuses':>22} same")
    for name in args.datasets.split(","):
        for depth in (int(d) for d in args.depths.split(",")):
            for method in args.methods.split(","):
                t0, s0, o0 = fit(method, name, depth, args.time_limit, capped=False)
                t1, s1, o1 = fit(method, name, depth, args.time_limit, capped=True)
                print(f"{name:14} {method:7} {depth:2d} {t0:9.2f} {t1:9.2f} {t1 / t0:6.2f} "
                      f"{s0 + '/' + s1:>22} {abs(o0 - o1) < 1e-6}", flush=True)


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    main()
