"""How the choice of depth, λ and leaf size decides test R² of OptimalTreeRegressor against
CART (issue #43): the protocols a careful user would try, both methods under the same one.

Per split (seeded, as ``bench/regression_test_r2.py``: 60 / 20 / 20 train / validation /
test) every grid point of both methods is fitted on train (scored on validation) and on
train + validation (scored on test).  From those fits, per data set:

- ``val-best``: the point of best validation R² (the issue's protocol), refitted;
  ``cv-best`` / ``cv-1se`` with ``--cv K``: the same rules on K-fold cross-validation of
  train + validation (a user's GridSearchCV or ``OptimalTreeRegressorCV``; leaf size in the
  grid too);
- ``val-1se``: the point with the fewest leaves among those whose validation MSE is within
  one standard error (of the validation rows' squared errors) of the best, refitted;
- ``--bins N``: ours on each column's N quantile bins of the training rows (thresholds
  at the bins' edges only, as pystreed's binarization: a coarser search);
- ``fixed``: every grid point used as is (ours − CART at equal depth, λ and leaf size), the
  mean over points: whether the exact fit itself loses out of sample, apart from the choice.

CART's grid is the same (``max_depth``, ``ccp_alpha = λ var(y_train)``, which makes
scikit-learn's cost complexity our objective, ``min_samples_leaf``).

Usage: PYTHONPATH=$PWD python bench/regression_selection.py [--datasets liver-disorders]
       [--splits 10] [--lams 0.001,0.005,0.02,0.05] [--leaves 1,5,10] [--depths 2,3]
       [--time-limit 10]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import KFold, train_test_split
from sklearn.tree import DecisionTreeRegressor

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from bench.regression_test_r2 import ALL, each_dataset, mean_se  # noqa: E402
from optrees import OptimalTreeRegressor  # noqa: E402


class Binned:
    """``model`` fitted on each column's values replaced by their quantile bin among the
    training rows (``bins`` bins): the exact tree over the bins' edges only."""

    def __init__(self, model, bins: int) -> None:
        self.model, self.bins = model, bins

    def fit(self, X, y):
        q = np.linspace(0, 1, self.bins + 1)[1:-1]
        self.edges = [np.unique(np.quantile(X[c], q)) for c in X.columns]
        self.model.fit(self.cut(X), y)
        return self

    def cut(self, X):
        return X.apply(lambda col: np.searchsorted(self.edges[X.columns.get_loc(col.name)],
                                                   col.to_numpy(), side="right"))

    def predict(self, X):
        return self.model.predict(self.cut(X))


BINS = 0
"""Quantile bins per column for ours (0: every threshold; ``--bins``)."""


def fits(method: str, point: tuple, X, y, limit: float):
    """A fitted model of ``method`` at ``point = (depth, lam, leaf)`` and its leaf count."""
    depth, lam, leaf = point
    if method == "ours":
        reg = OptimalTreeRegressor(depth=depth, lam=lam, min_samples_leaf=leaf,
                                   time_limit=limit, random_state=0)
        model = (Binned(reg, BINS) if BINS else reg).fit(X, y)
        return model, reg.tree_.n_leaves, reg.status_ != "optimal"
    model = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=leaf,
                                  ccp_alpha=lam * float(np.var(y)), random_state=0).fit(X, y)
    return model, model.get_n_leaves(), False


def r2(y: np.ndarray, pred: np.ndarray) -> float:
    return 1.0 - float(np.sum((y - pred) ** 2) / np.sum((y - y.mean()) ** 2))


def one_split(X, y, seed: int, grid: list[tuple], limit: float, cv: int = 0) -> dict:
    """Per method: validation MSE, its standard error, leaves and test R² of every point
    (``cv`` > 0: the validation numbers are ``cv``-fold cross-validation on train +
    validation, the MSE over all held-out rows and its error the folds' spread / sqrt(cv)).
    """
    X_tv, X_te, y_tv, y_te = train_test_split(X, y, test_size=0.2, random_state=seed)
    X_tr, X_va, y_tr, y_va = train_test_split(X_tv, y_tv, test_size=0.25, random_state=seed)
    folds = list(KFold(cv, shuffle=True, random_state=seed).split(X_tv)) if cv else []
    out = {}
    for method in ("ours", "cart"):
        rows = []
        for point in grid:
            refit, leaves, stopped = fits(method, point, X_tv, y_tv, limit)
            if cv:
                per_fold, errs = [], []
                for a, b in folds:
                    model, _, s = fits(method, point, X_tv.iloc[a], y_tv[a], limit)
                    err = (y_tv[b] - model.predict(X_tv.iloc[b])) ** 2
                    per_fold.append(err.mean())
                    errs.append(err)
                    stopped += s
                mse, se = np.concatenate(errs).mean(), np.std(per_fold, ddof=1) / np.sqrt(cv)
            else:
                model, leaves, s = fits(method, point, X_tr, y_tr, limit)
                err = (y_va - model.predict(X_va)) ** 2
                mse, se = err.mean(), err.std(ddof=1) / np.sqrt(len(err))
                stopped += s
            rows.append((mse, se, leaves, r2(y_te, refit.predict(X_te)), stopped))
        out[method] = np.array(rows)
    return out


def choose(rows: np.ndarray, rule: str) -> int:
    """Index of the chosen point: least validation MSE (ties: first) or the 1se rule."""
    best = int(np.argmin(rows[:, 0]))
    if rule == "best":
        return best
    within = np.flatnonzero(rows[:, 0] <= rows[best, 0] + rows[best, 1])
    return int(within[np.lexsort((rows[within, 0], rows[within, 2]))[0]])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default=ALL)
    ap.add_argument("--splits", type=int, default=10)
    ap.add_argument("--depths", default="2,3")
    ap.add_argument("--lams", default="0.001,0.005,0.02,0.05")
    ap.add_argument("--leaves", default="1,5,10")
    ap.add_argument("--time-limit", type=float, default=10.0)
    ap.add_argument("--bins", type=int, default=0, help="ours on quantile bins of each "
                    "column (0: every threshold)")
    ap.add_argument("--cv", type=int, default=0, help="folds of CV on train + validation "
                    "in place of the validation split (0: the split)")
    args = ap.parse_args()
    global BINS
    BINS = args.bins
    grid = [(int(d), float(lam), int(leaf)) for d in args.depths.split(",")
            for lam in args.lams.split(",") for leaf in args.leaves.split(",")]
    print(f"{'data':16} {'protocol':9} {'ours R2':>17} {'CART R2':>17} {'ours - CART':>17} "
          f"{'W/L':>5} {'leaves o/c':>10}")
    for name, _, runs, t0 in each_dataset(
            args.datasets, lambda X, y, seed: one_split(X, y, seed, grid, args.time_limit,
                                                        args.cv), range(args.splits)):
        for rule in ("best", "1se"):
            picks = [{m: r[m][choose(r[m], rule)] for m in r} for r in runs]
            a = [p["ours"][3] for p in picks]
            b = [p["cart"][3] for p in picks]
            diff = [u - v for u, v in zip(a, b, strict=True)]
            label = ("cv-" if args.cv else "val-") + rule
            print(f"{name:16} {label:9} {mean_se(a):>17} {mean_se(b):>17} "
                  f"{mean_se(diff):>17} {sum(d > 1e-12 for d in diff):2d}/"
                  f"{sum(d < -1e-12 for d in diff):<2d} "
                  f"{np.mean([p['ours'][2] for p in picks]):4.1f}/"
                  f"{np.mean([p['cart'][2] for p in picks]):<4.1f}", flush=True)
        fixed = [float(np.mean(r["ours"][:, 3] - r["cart"][:, 3])) for r in runs]
        stopped = int(sum(r["ours"][:, 4].sum() for r in runs))
        print(f"{name:16} {'fixed':9} {'':>17} {'':>17} {mean_se(fixed):>17}   "
              f"stopped {stopped}, "
              f"{time.perf_counter() - t0:.0f} s", flush=True)
        per_point = np.mean([r["ours"][:, 3] - r["cart"][:, 3] for r in runs], axis=0)
        worst = np.argsort(per_point)[:3]
        print(f"#   ours - CART per point, worst: "
              f"{'; '.join(f'{grid[i]} {per_point[i]:+.3f}' for i in worst)}", flush=True)


if __name__ == "__main__":
    warnings.simplefilter("ignore")  # the time-limit warnings: counted as stopped
    main()
