"""OCT and BinOCT against FlowOCT, BendersOCT and CART (flowoct-benders.txt §4, in-sample).

For every dataset the whole bundled table is binarized (optrees' default Binarizer) and each
method fits a depth-D tree with the same time limit; the table shows status, objective
((1 - lam) * correct - lam * splits on the training data), proven bound, gap, seconds and B&B
nodes.  BinOCT has no split penalty and is skipped for lam > 0; CART (scikit-learn, same depth,
no pruning) has no bound.  A final check flags any objective above another method's bound.

Usage (from the repository root)::

    python bench/baselines.py                                   # 4 datasets, depth 2, 60 s
    python bench/baselines.py --datasets monk1,monk3 --time-limit 20 --lam 0.01
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import (  # noqa: E402
    BendersOCTClassifier,
    FlowOCTClassifier,
    TimeLimitWarning,
    load_dataset,
)
from optrees.encoding.binarize import Binarizer  # noqa: E402
from optrees.estimators.baselines import BinOCTClassifier, OCTClassifier  # noqa: E402

METHODS = {"oct": OCTClassifier, "binoct": BinOCTClassifier, "flow": FlowOCTClassifier,
           "benders": BendersOCTClassifier}
DATASETS = ["monk1", "monk3", "house-votes-84", "balance-scale"]


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--datasets", default=",".join(DATASETS))
    p.add_argument("--depth", type=int, default=2)
    p.add_argument("--lam", type=float, default=0.0)
    p.add_argument("--time-limit", type=float, default=60.0, help="seconds per fit")
    p.add_argument("--methods", default="cart," + ",".join(METHODS))
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def run_cart(Xb: np.ndarray, y: np.ndarray, depth: int, lam: float, seed: int) -> dict:
    t0 = time.perf_counter()
    cart = DecisionTreeClassifier(max_depth=depth, random_state=seed).fit(Xb, y)
    seconds = time.perf_counter() - t0
    correct = int(np.sum(cart.predict(Xb) == y))
    splits = int(np.sum(cart.tree_.children_left != -1))
    return {"status": "heuristic", "objective": (1 - lam) * correct - lam * splits,
            "bound": float("nan"), "gap": float("nan"), "seconds": seconds, "nodes": 0,
            "correct": correct}


def run_mip(name: str, Xb: np.ndarray, y: np.ndarray, depth: int, lam: float, limit: float,
            seed: int) -> dict:
    kwargs = dict(depth=depth, time_limit=limit, binarizer=None, random_state=seed)
    if name != "binoct":
        kwargs["lam"] = lam
    est = METHODS[name](**kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TimeLimitWarning)
        est.fit(Xb, y)
    return {"status": est.status_, "objective": est.objective_, "bound": est.bound_,
            "gap": est.gap_, "seconds": est.fit_seconds_, "nodes": est.n_bb_nodes_,
            "correct": int(np.sum(est.predict(Xb) == y))}


def main(argv=None) -> int:
    args = parse_args(argv)
    methods = [m for m in args.methods.split(",") if m]
    unknown = set(methods) - set(METHODS) - {"cart"}
    if unknown:
        raise SystemExit(f"unknown method(s) {sorted(unknown)}")
    header = (f"{'dataset':<16}{'n':>5}{'F':>4} {'method':<8}{'status':<11}{'objective':>10}"
              f"{'bound':>10}{'gap':>8}{'seconds':>9}{'nodes':>8}{'acc':>7}")
    print(f"depth {args.depth}, lam {args.lam}, time limit {args.time_limit:g}s per fit\n")
    print(header)
    print("-" * len(header))
    issues = []
    for ds in [d for d in args.datasets.split(",") if d]:
        X, y_raw = load_dataset(ds)
        Xb = Binarizer().fit_transform(X)
        y = np.unique(y_raw, return_inverse=True)[1]
        rows = {}
        for m in methods:
            if m == "binoct" and args.lam > 0:
                continue
            if m == "cart":
                r = run_cart(Xb, y, args.depth, args.lam, args.seed)
            else:
                r = run_mip(m, Xb, y, args.depth, args.lam, args.time_limit, args.seed)
            rows[m] = r
            print(f"{ds:<16}{len(y):>5}{Xb.shape[1]:>4} {m:<8}{r['status']:<11}"
                  f"{r['objective']:>10.2f}{r['bound']:>10.2f}{r['gap']:>8.2%}"
                  f"{r['seconds']:>9.2f}{r['nodes']:>8}{r['correct'] / len(y):>7.3f}",
                  flush=True)
        for a, ra in rows.items():
            for b, rb in rows.items():
                if np.isfinite(rb["bound"]) and ra["objective"] > rb["bound"] + 1e-6:
                    issues.append(f"{ds}: {a} objective {ra['objective']:g} > {b} bound "
                                  f"{rb['bound']:g}")
        print()
    print("consistency: " + ("OK" if not issues else "\n  ".join(["FAILED"] + issues)))
    return 1 if issues else 0


if __name__ == "__main__":
    raise SystemExit(main())
