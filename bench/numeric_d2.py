"""ConTree (pycontree) and optrees' exact numeric depth-≤2 solver side by side (issue #18).

Usage: OPTREES_DATA=/path/to/datasets python bench/numeric_d2.py [--repeats 3]
       [--depths 1 2] [--datasets magic letter] [--backend auto|numba|numpy]
Both solvers are exact over every threshold, so their training accuracies must be equal; the
table gives each one's median wall time of ``repeats`` fits (ours from the raw matrix,
presorting included, after one warm-up call that compiles the numba kernel) and the ratio
ours / ConTree.  Numeric columns only; breast-cancer is sklearn's (569 x 30).
"""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees.trees.search.numeric import solve_numeric  # noqa: E402

DATASETS = ["breast-cancer", "banknote", "spambase", "magic", "HTRU_2", "skin", "letter",
            "default-credit", "ionosphere", "wdbc", "seismic-bumps"]


def load(name: str) -> tuple[np.ndarray, np.ndarray] | None:
    """Numeric columns as floats and labels as 0..K-1, or None when the file is missing."""
    if name == "breast-cancer":
        from sklearn.datasets import load_breast_cancer

        X, y = load_breast_cancer(return_X_y=True)
        return X.astype(np.float64), y.astype(np.int64)
    from optrees import load_dataset

    try:
        X, y = load_dataset(name)
    except FileNotFoundError:
        return None
    X = X.select_dtypes(include="number").to_numpy(dtype=np.float64)
    return X, np.unique(np.asarray(y), return_inverse=True)[1].astype(np.int64)


def median_time(fit, repeats: int):
    """Median wall time of ``repeats`` calls of ``fit`` and the last result."""
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fit()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), out


def main() -> None:
    """Run the comparison and print one row per data set and depth."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--depths", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--datasets", nargs="+", default=DATASETS)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--no-contree", action="store_true", help="time optrees only")
    args = ap.parse_args()
    from pycontree import ConTree

    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    solve_numeric(rng.random((50, 3)), rng.integers(0, 2, 50), backend=args.backend)
    print(f"warm-up (numba compile or cache load): {time.perf_counter() - t0:.2f} s "
          f"[backend {args.backend}]")
    print(f"{'dataset':<15} {'n x p':>12} {'K':>3} {'d':>2} {'acc ConTree':>11} "
          f"{'acc ours':>9} {'t ConTree':>10} {'t ours':>9} {'ratio':>7} {'evals':>6}")
    for name in args.datasets:
        data = load(name)
        if data is None:
            print(f"{name:<15} missing (set OPTREES_DATA)")
            continue
        X, y = data
        shape = f"{X.shape[0]} x {X.shape[1]}"
        for depth in args.depths:
            if args.no_contree:
                t_c, acc_c = float("nan"), float("nan")
            else:
                contree = ConTree(max_depth=depth, time_limit=600)
                t_c, model = median_time(partial(contree.fit, X, y), args.repeats)
                acc_c = float((model.predict(X) == y).mean())
            t_o, res = median_time(
                partial(solve_numeric, X, y, max_depth=depth, backend=args.backend), args.repeats)
            acc_o = float((res.predict(X) == y).mean())
            flag = "" if args.no_contree or abs(acc_o - acc_c) < 1e-12 else "  MISMATCH"
            print(f"{name:<15} {shape:>12} {y.max() + 1:3d} {depth:2d} {acc_c:11.4f} "
                  f"{acc_o:9.4f} {t_c:10.4f} {t_o:9.4f} {t_o / t_c:7.2f} "
                  f"{res.evaluations:6d}{flag}", flush=True)


if __name__ == "__main__":
    main()
