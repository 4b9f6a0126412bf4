"""Test R² of OptimalTreeRegressor against CART, depth and λ chosen on a validation split
(issue #43, "Test R²: 10 splits, λ and depth chosen on a validation split, >= CART's on
average, reported per data set with standard errors").

Per split (seeded): 60 / 20 / 20 train / validation / test.  Each method fits every point
of its grid on train, takes the point of best validation R² (ties: the first), is refitted
on train + validation and scored on test.  Grids (the same penalties for both: CART's
``ccp_alpha`` is λ times the training variance of y, which makes scikit-learn's cost
complexity ``MSE_leaves / n + alpha * leaves`` our ``SSE / (n var y) + λ * leaves``):
depth / max_depth in {2, 3}, λ in {0.001, 0.005, 0.02}, min_samples_leaf in {1, 5}.
Every fit of ours has ``--time-limit`` seconds; a stopped fit is used as returned (its best
tree, never worse than CART on the training rows) and counted.

Data: scikit-learn's diabetes (442 x 10); the bundled liver-disorders (345 x 5, target
drinks: the same rows as bupa of ``bench/regression_trees.py``); from ``$OPTREES_DATA``:
glass (214 x 8, target refractive index), student (649 x 30, target the final grade, the
two earlier grades left out), wine (178 x 12, target alcohol, the class left out), magic1k
(1000 rows drawn with seed 0 from magic, target fLength, the 9 other numeric columns).
``MORE`` (used by ``bench/regression_selection_cv.py``): seeds (210 x 6, target the kernel
groove's length), wpbc (198 x 31, target the time to recurrence or disease-free time, the
30 nucleus features and the tumour size; the lymph-node count, with missing values, left
out), attrition (1470 x 23, target MonthlyIncome, the numeric columns but the constant ones
and EmployeeNumber), credit1k (1000 rows drawn with seed 0 from default-credit, target the
credit limit, the 22 other columns but the default flag).

``--select cv`` chooses instead by 5-fold cross-validation on the train + validation rows
(the same folds for both methods, mean R² over the folds; ties: the first point), then
refits there, as ``OptimalTreeRegressorCV`` or ``GridSearchCV`` would.  ``--grid wide``
adds λ 0.05 and ``min_samples_leaf`` 10 and 20 to both grids.

Usage: PYTHONPATH=$PWD python bench/regression_test_r2.py [--datasets diabetes,glass]
       [--splits 10] [--first-split 0] [--time-limit 20] [--select split|cv]
       [--grid narrow|wide]
Prints per data set: mean ± standard error over splits of the test R² of both, the paired
difference ours − CART, the number of splits ours wins / loses, the stopped fits and the
chosen points.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import r2_score
from sklearn.model_selection import KFold, train_test_split
from sklearn.tree import DecisionTreeRegressor

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import OptimalTreeRegressor, load_dataset  # noqa: E402

DEPTHS = (2, 3)
LAMS = (0.001, 0.005, 0.02)
MIN_LEAF = (1, 5)
WIDE = {"lams": (0.001, 0.005, 0.02, 0.05), "leaves": (1, 5, 10, 20)}
ALL = "diabetes,liver-disorders,glass,student,wine,magic1k"
MORE = "seeds,wpbc,attrition,credit1k"


def load(name: str) -> tuple[pd.DataFrame, np.ndarray] | None:
    """One data set as (all-numeric frame, float target); None when its file is missing."""
    root = Path(os.environ.get("OPTREES_DATA", "/work/shared/datasets"))
    if name == "diabetes":
        from sklearn.datasets import load_diabetes

        X, y = load_diabetes(return_X_y=True, as_frame=True)
        return X, y.to_numpy(float)
    if name == "liver-disorders":
        X, y = load_dataset("liver-disorders")
        return X, np.asarray(y, float)
    path = {"glass": root / "glass.csv", "student": root / "student.csv",
            "wine": root / "wine.data", "magic1k": root / "magic.csv",
            "seeds": root / "alternates" / "seeds.ruled.csv",
            "wpbc": root / "extras" / "wpbc.data", "attrition": root / "attrition.csv",
            "credit1k": root / "default-credit.csv"}[name]
    if not path.exists():
        print(f"# {name}: {path} not found, skipped")
        return None
    if name == "student":
        raw = pd.read_csv(path, header=None, sep=";", encoding="utf-8-sig")
        return raw.iloc[:, :30].add_prefix("s"), raw.iloc[:, -1].to_numpy(float)
    if name in ("attrition", "credit1k", "seeds"):
        return load_more(name, path)
    raw = pd.read_csv(path, header=None)
    if name == "glass":
        return raw.iloc[:, 1:9].add_prefix("g"), raw.iloc[:, 0].to_numpy(float)
    if name == "wine":
        return raw.iloc[:, 2:].add_prefix("w"), raw.iloc[:, 1].to_numpy(float)
    if name == "wpbc":
        return raw.iloc[:, 3:34].add_prefix("p"), raw.iloc[:, 2].to_numpy(float)
    rows = np.random.default_rng(0).choice(len(raw), 1000, replace=False)
    raw = raw.iloc[rows].reset_index(drop=True)
    return raw.iloc[:, 1:10].add_prefix("m"), raw.iloc[:, 0].to_numpy(float)


def load_more(name: str, path: Path) -> tuple[pd.DataFrame, np.ndarray]:
    """The ``MORE`` sets with a header row or another separator (see the module docstring)."""
    if name == "seeds":
        raw = pd.read_csv(path, header=None, sep="\t")
        return raw.iloc[:, :6].add_prefix("k"), raw.iloc[:, 6].to_numpy(float)
    if name == "attrition":
        raw = pd.read_csv(path, sep=";", encoding="utf-8-sig").select_dtypes("number")
        y = raw.pop("MonthlyIncome").to_numpy(float)
        return raw.drop(columns=["EmployeeNumber", "EmployeeCount", "StandardHours"]), y
    raw = pd.read_csv(path)
    raw = raw.iloc[np.random.default_rng(0).choice(len(raw), 1000, replace=False)]
    y = raw.pop("X_0").to_numpy(float)
    return raw.drop(columns=["y"]).reset_index(drop=True), y


def ours(depth: int, lam: float, leaf: int, limit: float) -> OptimalTreeRegressor:
    return OptimalTreeRegressor(depth=depth, lam=lam, min_samples_leaf=leaf,
                                time_limit=limit, random_state=0)


def cart(depth: int, lam: float, leaf: int, var_y: float) -> DecisionTreeRegressor:
    return DecisionTreeRegressor(max_depth=depth, min_samples_leaf=leaf,
                                 ccp_alpha=lam * var_y, random_state=0)


def one_split(X: pd.DataFrame, y: np.ndarray, seed: int, limit: float, select: str = "split",
              grid_name: str = "narrow") -> dict:
    """Test R² of both after choosing on validation (or by 5-fold CV on train + validation);
    the stopped fits of ours."""
    X_tv, X_te, y_tv, y_te = train_test_split(X, y, test_size=0.2, random_state=seed)
    lams, leaves = (WIDE["lams"], WIDE["leaves"]) if grid_name == "wide" else (LAMS, MIN_LEAF)
    grid = [(d, lam, leaf) for d in DEPTHS for lam in lams for leaf in leaves]
    if select == "cv":
        folds = list(KFold(5, shuffle=True, random_state=seed).split(X_tv))
    else:
        tr, va = train_test_split(np.arange(len(y_tv)), test_size=0.25, random_state=seed)
        folds = [(tr, va)]
    counts = {"stopped": 0, "fits": 0}
    scores = {"ours": np.zeros(len(grid)), "cart": np.zeros(len(grid))}
    for tr, va in folds:
        X_tr, y_tr, X_va, y_va = X_tv.iloc[tr], y_tv[tr], X_tv.iloc[va], y_tv[va]
        for i, point in enumerate(grid):
            reg = ours(*point, limit).fit(X_tr, y_tr)
            counts["fits"] += 1
            counts["stopped"] += reg.status_ != "optimal"
            base = cart(*point, float(np.var(y_tr))).fit(X_tr, y_tr)
            scores["ours"][i] += r2_score(y_va, reg.predict(X_va))
            scores["cart"][i] += r2_score(y_va, base.predict(X_va))
    best = {key: grid[int(np.argmax(v))] for key, v in scores.items()}  # ties: the first
    final = ours(*best["ours"], limit).fit(X_tv, y_tv)
    counts["fits"] += 1
    counts["stopped"] += final.status_ != "optimal"
    base = cart(*best["cart"], float(np.var(y_tv))).fit(X_tv, y_tv)
    return {"ours": r2_score(y_te, final.predict(X_te)),
            "cart": r2_score(y_te, base.predict(X_te)), **counts,
            "points": (best["ours"], best["cart"])}


def mean_se(values: list[float]) -> str:
    a = np.asarray(values, float)
    se = a.std(ddof=1) / np.sqrt(len(a)) if len(a) > 1 else float("nan")
    return f"{a.mean():+.4f} ± {se:.4f}"


def each_dataset(names: str, run_split, seeds) -> Iterator[tuple[str, np.ndarray, list, float]]:
    """For each comma-separated data set found: its name, target, ``run_split(X, y, seed)``
    of every seed, and the time they started."""
    for name in names.split(","):
        data = load(name)
        if data is None:
            continue
        X, y = data
        t0 = time.perf_counter()
        yield name, y, [run_split(X, y, seed) for seed in seeds], t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default=ALL)
    ap.add_argument("--splits", type=int, default=10)
    ap.add_argument("--first-split", type=int, default=0)
    ap.add_argument("--time-limit", type=float, default=20.0)
    ap.add_argument("--select", choices=("split", "cv"), default="split")
    ap.add_argument("--grid", choices=("narrow", "wide"), default="narrow")
    args = ap.parse_args()
    print(f"{'data':16} {'rows':>5} {'n':>3} {'ours R2':>17} {'CART R2':>17} "
          f"{'ours - CART':>17} {'W/L':>5} {'stopped':>8} {'sec':>6}")
    seeds = range(args.first_split, args.first_split + args.splits)
    def run(X: pd.DataFrame, y: np.ndarray, seed: int) -> dict:
        return one_split(X, y, seed, args.time_limit, args.select, args.grid)

    for name, y, runs, t0 in each_dataset(args.datasets, run, seeds):
        a = [r["ours"] for r in runs]
        b = [r["cart"] for r in runs]
        diff = [u - v for u, v in zip(a, b, strict=True)]
        wins = sum(d > 1e-12 for d in diff)
        losses = sum(d < -1e-12 for d in diff)
        stopped = f"{sum(r['stopped'] for r in runs)}/{sum(r['fits'] for r in runs)}"
        print(f"{name:16} {len(y):5d} {len(runs):3d} {mean_se(a):>17} {mean_se(b):>17} "
              f"{mean_se(diff):>17} {wins:2d}/{losses:<2d} {stopped:>8} "
              f"{time.perf_counter() - t0:6.0f}", flush=True)
        print(f"#   per split ours: {' '.join(f'{v:.3f}' for v in a)}")
        print(f"#   per split CART: {' '.join(f'{v:.3f}' for v in b)}")
        print(f"#   chosen (depth, lam, min_leaf) ours / CART: "
              f"{'; '.join(f'{p[0]}/{p[1]}' for p in (r['points'] for r in runs))}",
              flush=True)


if __name__ == "__main__":
    import warnings

    warnings.simplefilter("ignore")  # the time-limit warnings: the stopped column says it
    main()
