"""Test accuracy of the tree chosen by cross-validation (issue #44): BendOCTClassifierCV at
its defaults (depths "auto": 2-4, deeper while the deepest scores best; the λ-path or its
fallback grid, every threshold of numeric columns) against
GridSearchCV(DecisionTreeClassifier) over ``max_depth`` and ``ccp_alpha``, with the same 5
folds, on many public classification sets.

Per data set and split (stratified 70/30, seeds 0..S-1): both tune on the 70 %, refit
there and are scored on the 30 %.  Prints per data set the mean test accuracy of both, the
mean difference with its standard error over the splits, the mean leaves, and a summary:
the mean difference over data sets (± s.e. over data sets), on how many sets ours is
strictly more accurate, and the mean leaves of each (targets: ≥ +0.5 points, strictly
better on at least half, at most half of CART's leaves).

Usage: OPTREES_DATA=../shared/datasets PYTHONPATH=$PWD python bench/selection_accuracy.py
       [--datasets monk1,iris,...] [--splits 10] [--time-limit 60] [--rule best|1se]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import BendOCTClassifierCV, load_dataset  # noqa: E402
from optrees.bench.scripts import checkout_data_dir  # noqa: E402
from optrees.encoding.thresholds import ThresholdColumns  # noqa: E402

DATASETS = ("monk1", "monk2", "monk3", "house-votes-84", "balance-scale", "tic-tac-toe",
            "car-evaluation", "iris", "wine", "banknote", "ionosphere", "wdbc",
            "breast-cancer", "hayes-roth", "spect", "transfusion", "seeds", "glass", "ecoli",
            "heart", "pima-diabetes", "bupa", "ilpd", "compas", "student", "attrition")
CART_GRID = {"max_depth": [2, 3, 4, 5, 6, 8, 10, None],
             "ccp_alpha": [0.0, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2]}


def one_split(X: pd.DataFrame, y: np.ndarray, seed: int, limit: float, rule: str) -> dict:
    """Both methods tuned on the same folds of one 70/30 split: test accuracies, leaves,
    seconds."""
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y,
                                              random_state=seed)
    folds = StratifiedKFold(5, shuffle=True, random_state=seed)
    t0 = time.perf_counter()
    ours = BendOCTClassifierCV(cv=folds, time_limit=limit, rule=rule).fit(X_tr, y_tr)
    ours_s = time.perf_counter() - t0
    columns = ThresholdColumns(X_tr)  # CART on the same numeric and one-hot columns
    t0 = time.perf_counter()
    cart = GridSearchCV(DecisionTreeClassifier(random_state=0), CART_GRID, cv=folds)
    cart.fit(columns.transform(X_tr), y_tr)
    cart_s = time.perf_counter() - t0
    return {"ours": ours.score(X_te, y_te),
            "cart": cart.score(columns.transform(X_te), y_te),
            "ours_leaves": ours.best_estimator_.tree_.n_leaves,
            "cart_leaves": cart.best_estimator_.get_n_leaves(),
            "ours_s": ours_s, "cart_s": cart_s, "params": ours.best_params_,
            "tried": max(ours.depths_), "depth": ours.best_params_["depth"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--splits", type=int, default=10)
    ap.add_argument("--time-limit", type=float, default=60.0,
                    help="BendOCTClassifierCV's whole budget per split")
    ap.add_argument("--rule", default="best", choices=("best", "1se"))
    args = ap.parse_args(argv)
    checkout_data_dir(__file__)
    warnings.simplefilter("ignore")
    rows = []
    print(f"{'data':16s} {'n':>6s} {'ours':>7s} {'CART':>7s} {'diff (pts) ± se':>17s} "
          f"{'leaves ours':>11s} {'CART':>6s} {'s ours':>7s} {'s CART':>7s} "
          f"{'depths tried / chosen':>22s}", flush=True)
    for name in args.datasets.split(","):
        X, y = load_dataset(name)
        y = np.asarray(y)
        runs = [one_split(X, y, seed, args.time_limit, args.rule)
                for seed in range(args.splits)]
        df = pd.DataFrame(runs)
        diff = 100 * (df.ours - df.cart)
        se = diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else float("nan")
        rows.append({"data": name, "diff": diff.mean(), "ours_leaves": df.ours_leaves.mean(),
                     "cart_leaves": df.cart_leaves.mean()})
        print(f"{name:16s} {len(y):6d} {df.ours.mean():7.4f} {df.cart.mean():7.4f} "
              f"{diff.mean():+8.2f} ± {se:5.2f}  {df.ours_leaves.mean():11.1f} "
              f"{df.cart_leaves.mean():6.1f} {df.ours_s.median():7.1f} "
              f"{df.cart_s.median():7.1f} {'/'.join(map(str, df.tried)):>12s} "
              f"{'/'.join(map(str, df.depth)):>9s}", flush=True)
    print("\n" + summary(pd.DataFrame(rows), args.splits))
    return 0


def summary(table: pd.DataFrame, splits: int, unit: str = "points", digits: int = 2) -> str:
    """The closing line of a selection table (one row per data set: ``diff``, ours − CART;
    ``ours_leaves``, ``cart_leaves``): the mean difference ± its standard error over data
    sets, on how many sets ours is strictly better / worse, the mean leaves of each and the
    mean over data sets of the ratio ours / CART of the mean leaves.  Shared with
    ``bench/regression_selection_cv.py``."""
    diff = table["diff"]
    se = diff.std(ddof=1) / np.sqrt(len(table)) if len(table) > 1 else float("nan")
    ratio = (table.ours_leaves / table.cart_leaves).mean()
    return (f"{len(table)} data sets x {splits} splits: mean difference "
            f"{diff.mean():+.{digits}f} ± {se:.{digits}f} {unit}; strictly better on "
            f"{int((diff > 0).sum())}, worse on {int((diff < 0).sum())}; mean leaves "
            f"{table.ours_leaves.mean():.1f} against CART's {table.cart_leaves.mean():.1f} "
            f"(mean ratio {ratio:.2f})")


if __name__ == "__main__":
    sys.exit(main())
