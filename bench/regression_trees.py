"""Optimal regression trees over every threshold (OptimalTreeRegressor) side by side with
CART (scikit-learn) and pystreed's STreeDRegressor on its own quantile binarization, in one
run, on regression data available offline (issue #43).

Data: scikit-learn's diabetes (442 x 10), and from ``$OPTREES_DATA``: bupa (345 x 5, target
drinks), glass (214 x 8, target refractive index), student (649 x 30, target the final
grade column).  Every fit on all rows (training loss: what an optimal tree minimises).

Usage: PYTHONPATH=$PWD python bench/regression_trees.py [--depths 1,2,3]
       [--time-limit 30] [--datasets diabetes,bupa,glass,student]
Prints, per data set and depth: our status, training SSE / CART's, / pystreed's, and our
time / pystreed's (ratios: < 1 means lower loss or faster).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import OptimalTreeRegressor  # noqa: E402


def datasets(names: list[str]) -> dict[str, tuple[pd.DataFrame, np.ndarray]]:
    """The regression data sets found (a file missing: skipped with a note)."""
    root = Path(os.environ.get("OPTREES_DATA", "/work/shared/datasets"))
    out = {}
    for name in names:
        if name == "diabetes":
            from sklearn.datasets import load_diabetes

            X, y = load_diabetes(return_X_y=True, as_frame=True)
            out[name] = X, y.to_numpy(float)
            continue
        path = {"bupa": root / "extras" / "bupa.csv", "glass": root / "glass.csv",
                "student": root / "student.csv"}[name]
        if not path.exists():
            print(f"# {name}: {path} not found, skipped")
            continue
        if name == "bupa":
            raw = pd.read_csv(path, header=None)
            out[name] = raw.iloc[:, :5].set_axis([f"b{j}" for j in range(5)], axis=1), \
                raw.iloc[:, 5].to_numpy(float)
        elif name == "glass":
            raw = pd.read_csv(path, header=None)
            out[name] = raw.iloc[:, 1:9].set_axis([f"g{j}" for j in range(8)], axis=1), \
                raw.iloc[:, 0].to_numpy(float)
        else:
            raw = pd.read_csv(path, header=None, sep=";", encoding="utf-8-sig")
            out[name] = raw.iloc[:, :30].set_axis([f"s{j}" for j in range(30)], axis=1), \
                raw.iloc[:, -1].to_numpy(float)
    return out


def sse(y: np.ndarray, pred: np.ndarray) -> float:
    return float(np.sum((y - pred) ** 2))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--datasets", default="diabetes,bupa,glass,student")
    ap.add_argument("--depths", default="1,2,3")
    ap.add_argument("--time-limit", type=float, default=30.0)
    args = ap.parse_args()
    from sklearn.tree import DecisionTreeRegressor

    try:
        from pystreed import STreeDRegressor
    except ImportError:
        STreeDRegressor = None
    print(f"{'data':9} {'rows':>5} {'d':>2} {'status':10} {'ours s':>7} {'SSE/CART':>9} "
          f"{'SSE/STreeD':>10} {'t/STreeD':>9}")
    for name, (X, y) in datasets(args.datasets.split(",")).items():
        for depth in (int(d) for d in args.depths.split(",")):
            t0 = time.perf_counter()
            ours = OptimalTreeRegressor(depth=depth, time_limit=args.time_limit).fit(X, y)
            ours_s = time.perf_counter() - t0
            ours_sse = sse(y, ours.predict(X))
            cart = DecisionTreeRegressor(max_depth=depth, random_state=0).fit(X, y)
            vs_cart = ours_sse / max(sse(y, cart.predict(X)), 1e-12)
            vs_streed = t_ratio = float("nan")
            if STreeDRegressor is not None:
                t0 = time.perf_counter()
                streed = STreeDRegressor(max_depth=depth, cost_complexity=0.0,
                                         time_limit=args.time_limit,
                                         n_thresholds=5).fit(X.to_numpy(float), y)
                streed_s = time.perf_counter() - t0
                vs_streed = ours_sse / max(sse(y, streed.predict(X.to_numpy(float))), 1e-12)
                t_ratio = ours_s / max(streed_s, 1e-9)
            print(f"{name:9} {len(y):5d} {depth:2d} {ours.status_:10} {ours_s:7.2f} "
                  f"{vs_cart:9.4f} {vs_streed:10.4f} {t_ratio:9.2f}", flush=True)


if __name__ == "__main__":
    import warnings

    warnings.simplefilter("ignore")  # the time-limit warnings: the status column says it
    main()
