"""Test R² of the regression tree chosen by cross-validation (issue #44, "the same table for
regression against DecisionTreeRegressor"): OptimalTreeRegressorCV at its defaults (depths
"auto": 1-3, and 4 when 3 scores best, its folds finished and 4 is predicted to fit in what
is left; λ in ``REGRESSION_LAMS``; every threshold) and, as a
second column, with ``lams="path"`` (every λ at which a fold's optimum changes), against
GridSearchCV(DecisionTreeRegressor) over ``max_depth`` and ``ccp_alpha``, with the same 5
folds, on the regression sets of ``bench/regression_test_r2.py`` (its ``ALL`` and ``MORE``).

Per data set and split (70/30, seeds 0..S-1, not stratified): every method tunes on the
70 % by the same ``KFold(5, shuffle=True, random_state=seed)``, refits there and is scored
(R²) on the 30 %.  CART's grid, a careful user's: ``max_depth`` {1, 2, 3, 4, 5, 6, 8, 10,
None} × ``ccp_alpha`` {0, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1} times the variance of the
70 %'s target: scikit-learn's cost complexity ``SSE / n + ccp_alpha * leaves`` is then ``var
y`` times our ``SSE / (n var y) + λ * leaves``, so ``ccp_alpha / var y`` is a λ and the grid
spans ours ({0, 0.001, 0.01, 0.05}) on both sides.  ``--time-limit`` is each
OptimalTreeRegressorCV's whole budget (folds and refit); a selection in which a fold or the
refit was stopped is counted in the ``stopped`` column (its trees are the best found).

Prints per data set: the mean test R² of each method, ours − CART (mean ± standard error
over the splits, in R² units) for each of our columns, the mean leaves, the median seconds
per split, the stopped selections and, per split, the depth chosen / the deepest tried;
then per column of ours a summary (``bench/selection_accuracy.summary``): the mean
difference over data sets ± s.e., on how many sets ours is strictly better, the mean leaves
of each and their mean ratio.

Usage: OPTREES_DATA=../shared/datasets PYTHONPATH=$PWD python bench/regression_selection_cv.py
       [--datasets diabetes,glass,...] [--splits 10] [--time-limit 30]
       [--variants default,path,fine,leaf5,1se,wide,deep] [--depths auto|1,2,3]

Variant ``deep``: depths (1, 2, 3, 5, 6), the last two stacked trees (``OptimalTreeRegressor``
beyond depth 4: binarized, not proved optimal, seconds per fit), instead of "auto".

``--depths 1,2,3`` (both columns; CART's grid unchanged) leaves out the depth 4 that "auto"
tries when 3 scores best: it tells the cost of the λ choice (grid or path) apart from that
of a depth 4 search under the time limit.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import GridSearchCV, KFold, train_test_split
from sklearn.tree import DecisionTreeRegressor

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from bench.regression_test_r2 import ALL, MORE, each_dataset, mean_se  # noqa: E402
from bench.selection_accuracy import summary  # noqa: E402
from optrees import OptimalTreeRegressorCV, TimeLimitWarning  # noqa: E402
from optrees.bench.scripts import checkout_data_dir  # noqa: E402

CART_DEPTHS = [1, 2, 3, 4, 5, 6, 8, 10, None]
CART_ALPHAS = [0.0, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1]
"""CART's ``ccp_alpha`` grid in units of the training target's variance (λ units)."""
VARIANTS = {"default": {}, "path": {"lams": "path"},
            "fine": {"lams": (0.0, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05)},
            "leaf5": {"min_samples_leaf": 5}, "1se": {"rule": "1se"},
            "wide": {"lams": (0.0, 0.001, 0.01, 0.05, 0.1)},
            "deep": {"depths": (1, 2, 3, 5, 6)}}
"""Our columns: OptimalTreeRegressorCV's keyword arguments beside ``cv`` and
``time_limit``."""


def ours(X_tr: pd.DataFrame, y_tr: np.ndarray, X_te: pd.DataFrame, y_te: np.ndarray,
         folds: KFold, limit: float, **kwargs: object) -> dict:
    """One OptimalTreeRegressorCV selection: test R², leaves, seconds, whether any fold or
    the refit was stopped, the chosen depth."""
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = OptimalTreeRegressorCV(cv=folds, time_limit=limit, **kwargs).fit(X_tr, y_tr)
    seconds = time.perf_counter() - t0
    stopped = any(issubclass(w.category, TimeLimitWarning) for w in caught) or \
        model.best_estimator_.status_ != "optimal"
    return {"r2": model.score(X_te, y_te), "leaves": model.best_estimator_.tree_.n_leaves,
            "s": seconds, "stopped": stopped, "depth": model.best_params_["depth"],
            "tried": max(model.depths_)}


def cart(X_tr: pd.DataFrame, y_tr: np.ndarray, X_te: pd.DataFrame, y_te: np.ndarray,
         folds: KFold) -> dict:
    """GridSearchCV(DecisionTreeRegressor) over CART_DEPTHS × CART_ALPHAS · var(y_tr)."""
    grid = {"max_depth": CART_DEPTHS,
            "ccp_alpha": [a * float(np.var(y_tr)) for a in CART_ALPHAS]}
    t0 = time.perf_counter()
    model = GridSearchCV(DecisionTreeRegressor(random_state=0), grid, cv=folds).fit(X_tr, y_tr)
    seconds = time.perf_counter() - t0
    return {"r2": model.score(X_te, y_te), "leaves": model.best_estimator_.get_n_leaves(),
            "s": seconds, "stopped": False, "depth": model.best_estimator_.get_depth()}


def one_split(X: pd.DataFrame, y: np.ndarray, seed: int, limit: float,
              variants: list[str], extra: dict | None = None) -> dict[str, dict]:
    """Every method on one 70/30 split, tuned on the same shuffled 5 folds of the 70 %
    (``extra``: more keyword arguments of ours, e.g. ``depths``)."""
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=seed)
    folds = KFold(5, shuffle=True, random_state=seed)
    out = {v: ours(X_tr, y_tr, X_te, y_te, folds, limit, **VARIANTS[v], **(extra or {}))
           for v in variants}
    out["cart"] = cart(X_tr, y_tr, X_te, y_te, folds)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default=f"{ALL},{MORE}")
    ap.add_argument("--splits", type=int, default=10)
    ap.add_argument("--time-limit", type=float, default=30.0,
                    help="each OptimalTreeRegressorCV's whole budget per split")
    ap.add_argument("--variants", default="default,path",
                    help=f"our columns, from {','.join(VARIANTS)}")
    ap.add_argument("--depths", default="auto", help="OptimalTreeRegressorCV's depths: "
                    "'auto' (its default) or a comma-separated list")
    args = ap.parse_args(argv)
    depth_arg = {} if args.depths == "auto" else \
        {"depths": [int(d) for d in args.depths.split(",")]}
    variants = args.variants.split(",")
    if not set(variants) <= set(VARIANTS):
        ap.error(f"--variants: each of {', '.join(VARIANTS)}, got {args.variants!r}")
    checkout_data_dir(__file__)
    methods = [*variants, "cart"]
    head = " ".join(f"{'R2 ' + m:>9s}" for m in methods)
    diffs = " ".join(f"{m + ' - CART':>17s}" for m in variants)
    print(f"{'data':16s} {'n':>5s} {head} {diffs}  leaves {'/'.join(methods):>14s}  "
          f"median s {'/'.join(methods):>14s}  stopped  depths chosen/deepest tried",
          flush=True)
    rows: dict[str, list[dict]] = {v: [] for v in variants}

    def run(X: pd.DataFrame, y: np.ndarray, seed: int) -> dict[str, dict]:
        return one_split(X, y, seed, args.time_limit, variants, depth_arg)

    for name, y, runs, _ in each_dataset(args.datasets, run, range(args.splits)):
        df = {m: pd.DataFrame([r[m] for r in runs]) for m in methods}
        cells = []
        for v in variants:
            diff = df[v].r2 - df["cart"].r2
            cells.append(f"{mean_se(diff):>17s}")
            rows[v].append({"data": name, "diff": diff.mean(),
                            "ours_leaves": df[v].leaves.mean(),
                            "cart_leaves": df["cart"].leaves.mean()})
        r2 = " ".join(f"{df[m].r2.mean():9.4f}" for m in methods)
        leaves = "/".join(f"{df[m].leaves.mean():.1f}" for m in methods)
        secs = "/".join(f"{df[m].s.median():.1f}" for m in methods)
        stopped = "/".join(str(int(df[v].stopped.sum())) for v in variants)
        chosen = " ".join("".join(str(d) for d in df[m].depth) + "/" +
                          "".join(str(d) for d in df[m].tried) for m in variants)
        print(f"{name:16s} {len(y):5d} {r2} {' '.join(cells)}  {leaves:>21s}  "
              f"{secs:>23s}  {stopped:>7s}  {chosen}", flush=True)
    for v in variants:
        print(f"\n{v}: " + summary(pd.DataFrame(rows[v]), args.splits, unit="R²",
                                   digits=4))
    return 0


if __name__ == "__main__":
    sys.exit(main())
