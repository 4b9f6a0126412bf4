"""Cost of the regression λ-path (issue #44): ``optrees.trees.regression_front`` (the hull of
(leaves, normalised loss) by λ-bisection over the exact penalised search) against one
``OptimalTreeRegressor`` fit at the smallest λ (0), and ``OptimalTreeRegressorCV`` with
``lams="path"`` against its grid (``REGRESSION_LAMS``, each λ fitted per fold), side by side
in one run on the regression data of ``bench/regression_trees.py``.

Prints per data set and depth: the single fit's time and status, the path's time, its ratio,
its searches, hull vertices and whether every search finished; then per data set the two CV
runs' times (the same shuffled folds), chosen parameters and best mean R² (of 8 grid
points, or of every λ of the path: a larger choice, so a higher best mean is expected).
Compiled kernels are warmed up first.

Usage: PYTHONPATH=$PWD python bench/regression_path_cost.py [--datasets diabetes,bupa,glass]
       [--depths 2 3 4] [--time-limit 120] [--cv-depths 2 3] [--folds 5] [--rows 0]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import KFold

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from bench.regression_trees import datasets  # noqa: E402
from optrees import OptimalTreeRegressor, OptimalTreeRegressorCV  # noqa: E402
from optrees.estimators.cv import REGRESSION_LAMS  # noqa: E402
from optrees.trees import regression_front  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="diabetes,bupa,glass")
    ap.add_argument("--depths", type=int, nargs="+", default=[2, 3, 4])
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--cv-depths", type=int, nargs="*", default=[2, 3])
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--rows", type=int, default=0, help="first rows only (0: all)")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    Xw = rng.normal(size=(200, 4))
    for depth in (2, 3):  # kernels compiled or loaded before any timing
        OptimalTreeRegressor(depth=depth, time_limit=120).fit(Xw, Xw[:, 0] + rng.normal(size=200))
    data = datasets(args.datasets.split(","))
    print(f"{'data':9s} d  fit(λ=0)  status   path  ratio  searches  hull  complete")
    for name, (X, y) in data.items():
        if args.rows:
            X, y = X.iloc[:args.rows], y[:args.rows]
        for depth in args.depths:
            t0 = time.perf_counter()
            one = OptimalTreeRegressor(depth=depth, time_limit=args.time_limit).fit(X, y)
            t1 = time.perf_counter()
            front = regression_front(X, y, depth, time_limit=args.time_limit)
            t2 = time.perf_counter()
            hull = len({p.leaves for p in front if p.lams is not None})
            print(f"{name:9s} {depth} {t1 - t0:8.2f}  {one.status_:8s} {t2 - t1:6.2f} "
                  f"{(t2 - t1) / max(t1 - t0, 1e-9):6.2f} {front.searches:6d} {hull:7d}  "
                  f"{front.complete}", flush=True)
    if not args.cv_depths:
        return 0
    print(f"\n{'data':9s} lams   seconds  best_params                         R²")
    for name, (X, y) in data.items():
        if args.rows:
            X, y = X.iloc[:args.rows], y[:args.rows]
        for lams in ("path", REGRESSION_LAMS):
            t0 = time.perf_counter()
            cv = OptimalTreeRegressorCV(depths=tuple(args.cv_depths), lams=lams,
                                        cv=KFold(args.folds, shuffle=True, random_state=0),
                                        time_limit=None).fit(X, y)
            seconds = time.perf_counter() - t0
            label = "path" if lams == "path" else "grid"
            params = {k: round(v, 4) for k, v in cv.best_params_.items()}
            print(f"{name:9s} {label:5s} {seconds:8.2f}  {params!s:34s} {cv.best_score_:.4f} "
                  f"({len(cv.cv_results_['params'])} points)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
