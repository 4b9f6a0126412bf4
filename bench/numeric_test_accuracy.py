"""Optimal trees over every threshold against CART out of sample (issue #18): test accuracy on
the CGH protocol's splits ([CGH] §7.2: 50 % train / 25 % test, seeds 0..S-1).

BendOCTClassifier with its defaults except ``lam`` (every threshold of the numeric columns,
categoricals one-hot) and scikit-learn's CART of the same depth on the same columns
(``ThresholdColumns``); prints per data set and depth the mean train / test accuracy of both,
BendOCT's proof count and median seconds, then the mean test difference per depth.

Usage: OPTREES_DATA=../shared/datasets python bench/numeric_test_accuracy.py
       [--datasets banknote,ionosphere] [--depths 2,3] [--seeds 5] [--lam 0] [--time-limit 60]
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import BendOCTClassifier, load_dataset  # noqa: E402
from optrees.bench.scripts import checkout_data_dir  # noqa: E402
from optrees.bench.tasks import split_data  # noqa: E402
from optrees.encoding.thresholds import ThresholdColumns  # noqa: E402

DATASETS = ("breast-cancer", "banknote", "ionosphere", "iris", "seismic-bumps", "wine",
            "spambase")


def load(name: str) -> tuple[pd.DataFrame, pd.Series]:
    """sklearn's breast-cancer (569 x 30) or a data set of optrees.datasets."""
    if name == "breast-cancer":
        from sklearn.datasets import load_breast_cancer

        X, y = load_breast_cancer(return_X_y=True, as_frame=True)
        return X, y
    return load_dataset(name)


def fit_one(name: str, depth: int, seed: int, lam: float, limit: float) -> dict:
    """BendOCT and CART on one split: accuracies, BendOCT's status and seconds."""
    X, y = load(name)
    (X_tr, y_tr), _, (X_te, y_te) = split_data(X, y, "50/25", seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = BendOCTClassifier(depth=depth, lam=lam, time_limit=limit).fit(X_tr, y_tr)
    cols = ThresholdColumns(X_tr, "onehot")
    cart = DecisionTreeClassifier(max_depth=depth, random_state=0)
    cart.fit(cols.transform(X_tr), y_tr)
    return {"dataset": name, "depth": depth, "seed": seed, "status": est.status_,
            "thresholds": est.thresholds_, "seconds": est.fit_seconds_,
            "train": est.score(X_tr, y_tr), "test": est.score(X_te, y_te),
            "cart_train": cart.score(cols.transform(X_tr), y_tr),
            "cart_test": cart.score(cols.transform(X_te), y_te)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--depths", default="2,3")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--lam", type=float, default=0.0)
    ap.add_argument("--time-limit", type=float, default=60.0)
    args = ap.parse_args(argv)
    checkout_data_dir(__file__)
    rows = []
    for name in args.datasets.split(","):
        for depth in map(int, args.depths.split(",")):
            for seed in range(args.seeds):
                r = fit_one(name, depth, seed, args.lam, args.time_limit)
                rows.append(r)
                print(f"{name:14} d={depth} seed={seed} {r['status']:10} {r['seconds']:6.2f}s "
                      f"train {r['train']:.4f} (CART {r['cart_train']:.4f}) test "
                      f"{r['test']:.4f} (CART {r['cart_test']:.4f})", flush=True)
    df = pd.DataFrame(rows)
    table = df.groupby(["dataset", "depth"], sort=False).agg(
        train=("train", "mean"), cart_train=("cart_train", "mean"), test=("test", "mean"),
        cart_test=("cart_test", "mean"), proved=("status", lambda s: int((s == "optimal").sum())),
        fits=("status", "size"), median_s=("seconds", "median"))
    print("\n" + table.to_string(float_format=lambda v: f"{v:.4f}"))
    for depth, g in df.groupby("depth"):
        diff = g["test"] - g["cart_test"]
        print(f"depth {depth}: mean test accuracy {g['test'].mean():.4f} vs CART "
              f"{g['cart_test'].mean():.4f} (difference {diff.mean():+.4f} ± "
              f"{diff.std(ddof=1) / np.sqrt(len(diff)):.4f} s.e. over {len(diff)} fits); "
              f"train never below CART: {bool((g['train'] >= g['cart_train'] - 1e-12).all())}")


if __name__ == "__main__":
    main()
