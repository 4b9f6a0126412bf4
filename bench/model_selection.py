"""Tuning time (issue #44): BendOCTClassifierCV, 5-fold over depths 2-4 and the λ-path,
against GridSearchCV over BendOCTClassifier with the same grid (the (depth, λ) points the
path evaluated, as a list of per-depth grids, the same folds) and pystreed's
``hyper_tune=True`` (max_depth 4, its own 5-fold tuning of the tree size), side by side in
one run on the same 0/1 data, one process each (n_jobs=1).

Each data set is split 70/30 (stratified, seed 0): the three tune on the 70 % and their
chosen trees are scored on the 30 % (test accuracy and leaves, for a sanity check).  Prints
the times, the ratios (targets: CV <= 0.2x GridSearchCV, <= 1x pystreed) and whether the CV
and GridSearchCV chose the same point.

Usage: OPTREES_DATA=../shared/datasets PYTHONPATH=$PWD python bench/model_selection.py
       [--instances monk1:enc,...] [--depths 2 3 4] [--no-grid] [--no-streed]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import BendOCTClassifier, BendOCTClassifierCV  # noqa: E402
from optrees.bench.scripts import checkout_data_dir  # noqa: E402
from optrees.bench.tasks import load_data  # noqa: E402
from optrees.trees.search.binary.warmup import compile_kernels, compile_node3  # noqa: E402

INSTANCES = ["monk1:enc", "monk3:enc", "house-votes-84:enc", "balance-scale:enc",
             "car_evaluation:enc", "tic-tac-toe:enc"]
TIME_LIMIT = 600.0  # per tuning run: none of these reach it


def per_depth_grid(cv: BendOCTClassifierCV) -> list[dict[str, list]]:
    """The CV's (depth, λ) points as GridSearchCV's list of grids, one per depth."""
    grids: dict[int, list[float]] = {}
    for q in cv.cv_results_["params"]:
        grids.setdefault(q["depth"], []).append(q["lam"])
    return [{"depth": [d], "lam": lams} for d, lams in grids.items()]


def streed(X: np.ndarray, y: np.ndarray, depth: int) -> object | None:
    try:
        from pystreed import STreeDClassifier
    except ImportError:
        return None
    return STreeDClassifier(max_depth=depth, hyper_tune=True, time_limit=TIME_LIMIT).fit(X, y)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", default=",".join(INSTANCES))
    ap.add_argument("--depths", type=int, nargs="+", default=[2, 3, 4])
    ap.add_argument("--no-grid", action="store_true", help="skip GridSearchCV")
    ap.add_argument("--no-streed", action="store_true", help="skip pystreed")
    args = ap.parse_args(argv)
    checkout_data_dir(__file__)
    warnings.simplefilter("ignore")  # time-limit warnings cannot occur at these limits
    rng = np.random.default_rng(0)  # compile the kernels (numba) before timing anything
    warm = rng.integers(0, 2, size=(300, 10))
    noisy = warm[:, 0] ^ warm[:, 1] | (rng.random(300) < 0.2)
    BendOCTClassifierCV(depths=tuple(args.depths), cv=2).fit(warm, noisy)
    BendOCTClassifier(depth=max(args.depths), lam=0.01).fit(warm, noisy)
    # and load the 0/1 search's kernels: a small fit runs numpy unless they are loaded in the
    # process, so GridSearchCV's speed would depend on whether the CV before it loaded them
    compile_kernels()
    compile_node3()
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    ratios: dict[str, list[float]] = {"grid": [], "streed": []}
    print(f"{'instance':20s} {'rows':>5s} pts  {'CV s':>6s} {'grid s':>7s} {'CV/grid':>7s} "
          f"{'streed s':>8s} {'CV/streed':>9s} same  test acc CV/grid/streed  leaves")
    for name in args.instances.split(","):
        data, enc = name.split(":")
        try:
            Xdf, yraw = load_data(data, enc)
        except Exception as exc:  # noqa: BLE001 - a missing file skips the instance
            print(f"{name:20s} skipped: {exc}")
            continue
        X = Xdf.to_numpy(dtype=np.uint8)
        y = np.unique(np.asarray(yraw), return_inverse=True)[1]
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
        t0 = time.perf_counter()
        cv = BendOCTClassifierCV(depths=tuple(args.depths), cv=folds,
                                 time_limit=TIME_LIMIT).fit(Xtr, ytr)
        t_cv = time.perf_counter() - t0
        acc = [f"{cv.score(Xte, yte):.3f}"]
        leaves = [str(cv.best_estimator_.tree_.n_leaves)]
        t_grid = t_st = float("nan")
        same = "-"
        if not args.no_grid:
            t0 = time.perf_counter()
            grid = GridSearchCV(BendOCTClassifier(time_limit=TIME_LIMIT), per_depth_grid(cv),
                                cv=folds).fit(Xtr, ytr)
            t_grid = time.perf_counter() - t0
            ratios["grid"].append(t_cv / t_grid)
            same = "yes" if grid.best_params_ == cv.best_params_ else "no"
            acc.append(f"{grid.score(Xte, yte):.3f}")
            leaves.append(str(grid.best_estimator_.tree_.n_leaves))
        if not args.no_streed:
            t0 = time.perf_counter()
            st = streed(Xtr, ytr, max(args.depths))
            t_st = time.perf_counter() - t0
            if st is not None:
                ratios["streed"].append(t_cv / t_st)
                acc.append(f"{float(np.mean(st.predict(Xte) == yte)):.3f}")
                leaves.append(str(st.get_n_leaves()))
        print(f"{name:20s} {len(ytr):5d} {len(cv.cv_results_['params']):3d} {t_cv:6.2f} "
              f"{t_grid:7.2f} {t_cv / t_grid:7.2f} {t_st:8.2f} {t_cv / t_st:9.2f} {same:>4s}  "
              f"{'/'.join(acc):23s} {'/'.join(leaves)}", flush=True)
    for peer, r in ratios.items():
        if r:
            print(f"CV time / {peer}: median {statistics.median(r):.2f}x over {len(r)} data "
                  f"sets (min {min(r):.2f}, max {max(r):.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
