"""ConTree (pycontree) and optrees' exact numeric tree search side by side, depths 2-5 (#18, #47).

Usage: OPTREES_DATA=/path/to/datasets python bench/numeric_vs_contree.py [--depths 2 3]
       [--time-limit 60] [--datasets breast-cancer banknote] [--backend auto|numba|numpy]
Each data set and depth fits ConTree and ``solve_numeric`` once each in this process (after
one warm-up call that compiles or loads the numba kernels), both limited to ``--time-limit``
seconds.  A ConTree fit that returns before its limit proved optimality; ours reports its own
flag.  Columns: training accuracy of ConTree, ours and CART (sklearn, same depth), proved?,
wall times (ours from the raw matrix, presorting and CART included) and ours / ConTree.
Numeric columns only; breast-cancer is sklearn's (569 x 30).  Flags: MISMATCH (both proved,
different accuracy), BELOW CART, BELOW CONTREE (issue #47's target at depth 5: at least both).
``--depth 5`` is ``--depths 5``.
``--max-leaves 4 5``: ours under each leaf budget against CART grown to that many leaves
(``max_leaf_nodes``); ConTree has no leaf budget and is not run.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from bench.numeric_d2 import DATASETS, load  # noqa: E402
from optrees.solvers.deadline import Deadline  # noqa: E402
from optrees.trees.search.numeric import solve_numeric  # noqa: E402


def run_contree(X: np.ndarray, y: np.ndarray, depth: int, limit: float):
    """ConTree's training accuracy, whether it proved optimality, and its wall time."""
    from pycontree import ConTree

    t0 = time.perf_counter()
    with warnings.catch_warnings():        # "Fitting exceeds time limit": the proved column
        warnings.simplefilter("ignore", UserWarning)
        model = ConTree(max_depth=depth, time_limit=int(limit)).fit(X, y)
    elapsed = time.perf_counter() - t0
    return float((model.predict(X) == y).mean()), elapsed < limit - 0.5, elapsed


def run_ours(X: np.ndarray, y: np.ndarray, depth: int, limit: float, backend: str,
             max_leaves: int | None = None):
    """Our training accuracy, optimality flag, wall time and upper bound on accuracy."""
    t0 = time.perf_counter()
    res = solve_numeric(X, y, max_depth=depth, backend=backend, deadline=Deadline(limit),
                        max_leaves=max_leaves)
    elapsed = time.perf_counter() - t0
    return (float((res.predict(X) == y).mean()), res.optimal, elapsed,
            res.upper_bound / len(y))


def cart_accuracy(X: np.ndarray, y: np.ndarray, depth: int,
                  max_leaves: int | None = None) -> float:
    """Training accuracy of sklearn's CART of the same depth (and leaf budget)."""
    from sklearn.tree import DecisionTreeClassifier

    cart = DecisionTreeClassifier(max_depth=depth, max_leaf_nodes=max_leaves, random_state=0)
    return float(cart.fit(X, y).score(X, y))


def main() -> None:
    """Run the comparison and print one row per data set and depth."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--depths", "--depth", type=int, nargs="+", default=[2, 3])
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--datasets", nargs="+", default=DATASETS)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--no-contree", action="store_true", help="run optrees only")
    ap.add_argument("--max-leaves", type=int, nargs="+", default=None,
                    help="leaf budgets (ours and CART only)")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    solve_numeric(rng.random((60, 3)), rng.integers(0, 2, 60), max_depth=3, backend=args.backend)
    print(f"warm-up (numba compile or cache load): {time.perf_counter() - t0:.2f} s "
          f"[backend {args.backend}, limit {args.time_limit:g} s]")
    print(f"{'dataset':<15} {'n x p':>12} {'K':>3} {'d':>2} {'acc CT':>7} {'acc ours':>8} "
          f"{'acc CART':>8} {'ub ours':>7} {'CT pr':>5} {'our pr':>6} {'t CT':>7} {'t ours':>7} "
          f"{'ratio':>6}")
    for name in args.datasets:
        data = load(name)
        if data is None:
            print(f"{name:<15} missing (set OPTREES_DATA)")
            continue
        X, y = data
        shape = f"{X.shape[0]} x {X.shape[1]}"
        for depth in args.depths:
            for leaves in args.max_leaves or [None]:
                row(name, shape, X, y, depth, leaves, args)


def row(name: str, shape: str, X: np.ndarray, y: np.ndarray, depth: int,
        leaves: int | None, args: argparse.Namespace) -> None:
    """Fit and print one data set, depth and leaf budget (None: any)."""
    if args.no_contree or leaves is not None:
        acc_c, proved_c, t_c = float("nan"), False, float("nan")
    else:
        acc_c, proved_c, t_c = run_contree(X, y, depth, args.time_limit)
    acc_o, proved_o, t_o, ub_o = run_ours(X, y, depth, args.time_limit, args.backend, leaves)
    acc_cart = cart_accuracy(X, y, depth, leaves)
    flag = ""
    if proved_c and proved_o and abs(acc_c - acc_o) > 1e-12:
        flag = "  MISMATCH"
    elif acc_o < acc_cart - 1e-12:
        flag = "  BELOW CART"
    elif acc_o < acc_c - 1e-12:
        flag = "  BELOW CONTREE"
    label = f"{name}" if leaves is None else f"{name} L{leaves}"
    print(f"{label:<15} {shape:>12} {y.max() + 1:3d} {depth:2d} {acc_c:7.4f} {acc_o:8.4f} "
          f"{acc_cart:8.4f} {ub_o:7.4f} {'yes' if proved_c else 'no':>5} "
          f"{'yes' if proved_o else 'no':>6} {t_c:7.2f} {t_o:7.2f} {t_o / t_c:6.2f}"
          f"{flag}", flush=True)

if __name__ == "__main__":
    main()
