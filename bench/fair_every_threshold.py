"""Fair trees over every threshold against the former 20 quantile cuts (issues #18, #19).

``BendOCTClassifier(binarizer="auto", fairness=...)`` cuts numeric columns at every
threshold, fewest values first, while the 0/1 columns stay within ``FAIR_EVERY_THRESHOLD``
(``optrees/trees/solve/fit.py``); before, it cut each into 20 quantiles plus CART's cuts,
which this script rebuilds as an explicit ``Binarizer(n_bins=20, extra_cuts=<CART's>)``.
Both side by side in one run, on one stratified 75/25 split per data set: columns,
``thresholds_``, status, seconds, training and test accuracy, training gap.

Usage:
    OPTREES_DATA=../shared/datasets python bench/fair_every_threshold.py
    python bench/fair_every_threshold.py --cases compas:Race,adult:sex --depths 2 --eps 0.05
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import BendOCTClassifier, Binarizer, UnseenCategoryWarning  # noqa: E402
from optrees.bench.scripts import checkout_data_dir  # noqa: E402
from optrees.datasets import load_dataset  # noqa: E402
from optrees.encoding.bins import cart_cuts  # noqa: E402

CASES = "compas:Race,law:a4,adult:sex,attrition:Gender"
"""data set:sensitive column pairs of the data directory."""


def fit(X, y, depth: int, notion: str, eps: float, sens: str, binarizer, limit: float):
    """One fair fit and its seconds (warnings off: a stopped fit is reported as such)."""
    est = BendOCTClassifier(depth=depth, lam=0.0, fairness=notion, epsilon=eps,
                            sensitive=sens, binarizer=binarizer, time_limit=limit)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
    return est, time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", default=CASES, help="data set:sensitive column, ...")
    ap.add_argument("--depths", default="2,3")
    ap.add_argument("--notions", default="statistical_parity,equal_opportunity")
    ap.add_argument("--eps", default="0.01,0.05")
    ap.add_argument("--time-limit", type=float, default=300.0)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore", UnseenCategoryWarning)  # test rows of rare categories
    if checkout_data_dir(__file__) is None:
        raise SystemExit("the data sets are read from the data directory: set OPTREES_DATA")
    from sklearn.model_selection import train_test_split

    print(f"{'data':9} {'d':>1} {'notion':8} {'eps':>4} | {'binarizer':10} {'cols':>5} "
          f"{'thresholds':10} {'status':10} {'s':>7} {'train':>6} {'test':>6} {'gap':>6}")
    for case in args.cases.split(","):
        name, sens = case.split(":")
        X, y = load_dataset(name)
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0,
                                              stratify=y)
        for depth in map(int, args.depths.split(",")):
            former = Binarizer(n_bins=20, extra_cuts=cart_cuts(Xtr, ytr.to_numpy(), depth))
            for notion in args.notions.split(","):
                for eps in map(float, args.eps.split(",")):
                    for label, binarizer in (("auto", "auto"), ("20+CART", former)):
                        est, sec = fit(Xtr, ytr, depth, notion, eps, sens, binarizer,
                                       args.time_limit)
                        print(f"{name:9} {depth:1d} {notion[:8]:8} {eps:4.2f} | {label:10} "
                              f"{len(est.feature_names_):5d} {est.thresholds_:10} "
                              f"{est.status_:10} {sec:7.2f} {est.score(Xtr, ytr):.4f} "
                              f"{est.score(Xte, yte):.4f} "
                              f"{est.stats_['fairness_gap']:.4f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
