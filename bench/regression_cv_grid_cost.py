"""Old beside new: the cost of OptimalTreeRegressorCV's list of λ (issues #43/#44) when one task
per (fold, depth) fits every λ (the searches sharing their depth-2 fronts and warm starts,
``cv_grid.grid_fold``) against one fit per (fold, depth, λ).

Each selection (``depths``, ``lams=REGRESSION_LAMS``, ``KFold(5, shuffle=True,
random_state=0)``, ``time_limit``, refit) runs in its own process on a checkout given by its
path (``PYTHONPATH``), the checkouts interleaved per data set (the order alternating) so that
load on a shared machine falls on both; each child prints its wall and CPU seconds (its own
process), ``best_params_``, the mean test scores, the fold fits stopped.  ``--order
ascending`` runs a checkout's grid with λ ascending (``GRID_ORDER``), to compare orders.

Usage: OPTREES_DATA=../shared/datasets python bench/regression_cv_grid_cost.py
       --checkouts old=/work/main,new=$PWD [--datasets diabetes,glass,...]
       [--depths 1,2,3] [--time-limit none] [--repeats 1]
       [--variants old,new,new:ascending]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()


def child(name: str, depths: tuple[int, ...], limit: float | None, order: str) -> None:
    """One selection in this process (``optrees`` from ``PYTHONPATH``): print its numbers."""
    import warnings

    import numpy as np
    from sklearn.model_selection import KFold

    import optrees
    from optrees import OptimalTreeRegressorCV

    if order != "default":
        from optrees.trees.solve import regression_path
        regression_path.GRID_ORDER = order
    sys.path.insert(1, str(HERE.parents[1]))  # this checkout's bench (after optrees' import)
    from bench.regression_test_r2 import load

    X, y = load(name)
    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cv = OptimalTreeRegressorCV(depths=depths, cv=KFold(5, shuffle=True, random_state=0),
                                    time_limit=limit).fit(X, y)
    out = {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu,
           "best": cv.best_params_, "mean": np.asarray(cv.cv_results_["mean_test_score"]).tolist(),
           "stopped": int(np.sum(cv.cv_results_["n_stopped_folds"])), "n": len(y),
           "optrees": str(Path(optrees.__file__).parents[1])}
    print(json.dumps(out))


def run(root: str, name: str, depths: str, limit: str, order: str) -> dict:
    env = {**os.environ, "PYTHONPATH": root}
    done = subprocess.run([sys.executable, str(HERE), "--child", name, "--depths", depths,
                           "--time-limit", limit, "--order", order],
                          env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkouts", default=f"old=/work/main,new={HERE.parents[1]}")
    ap.add_argument("--variants", default="old,new")
    ap.add_argument("--datasets", default="diabetes,liver-disorders,glass,wine,student,seeds")
    ap.add_argument("--depths", default="1,2,3")
    ap.add_argument("--time-limit", default="none")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--child")
    ap.add_argument("--order", default="default")
    args = ap.parse_args()
    depths = tuple(int(d) for d in args.depths.split(","))
    limit = None if args.time_limit == "none" else float(args.time_limit)
    if args.child:
        return child(args.child, depths, limit, args.order)
    roots = dict(item.split("=") for item in args.checkouts.split(","))
    variants = [(v.split(":")[0], v.split(":")[1] if ":" in v else "default")
                for v in args.variants.split(",")]
    print(f"{'data':16} {'n':>5} {'variant':16} {'wall s':>8} {'cpu s':>8} {'stopped':>7} "
          f"{'best':>18} {'max |mean - first|':>19}")
    for i, name in enumerate(args.datasets.split(",") * args.repeats):
        order = variants if i % 2 == 0 else variants[::-1]
        rows = {v: run(roots[v[0]], name, args.depths, args.time_limit, v[1]) for v in order}
        first = rows[variants[0]]
        for v in variants:
            r = rows[v]
            diff = max(abs(a - b) for a, b in zip(r["mean"], first["mean"], strict=True))
            label = v[0] if v[1] == "default" else f"{v[0]}:{v[1]}"
            best = f"d={r['best']['depth']} lam={r['best']['lam']:g}"
            print(f"{name:16} {r['n']:5d} {label:16} {r['wall']:8.2f} {r['cpu']:8.2f} "
                  f"{r['stopped']:7d} {best:>18} {diff:19.2e}", flush=True)


if __name__ == "__main__":
    main()
