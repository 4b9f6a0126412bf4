"""RUG with the proxy (tree) pricing vs. the exact PSP (8) (rug-rule-generation.txt §4.1).

For each dataset (stratified 70/30 split) both pricings run with the same master settings;
prints test accuracy, F1 (binary problems), rules, seconds, the final LP value and, for exact
pricing, the Farley lower bound on the master over all rules of <= max_depth pool literals.

Usage: python bench/rug_exact.py [--datasets a,b] [--max-depth 2] [--pen-par 1] [--calls 30]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import RUGClassifier, load_dataset  # noqa: E402

DATASETS = "monk1,monk2,monk3,house-votes-84,tic-tac-toe,banknote,ionosphere,wdbc"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--datasets", default=DATASETS)
    ap.add_argument("--max-depth", type=int, default=2)
    ap.add_argument("--pen-par", type=float, default=1.0)
    ap.add_argument("--calls", type=int, default=30)
    ap.add_argument("--time-limit", type=float, default=300.0)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    print(f"{'dataset':16} {'pricing':8} {'test acc':>8} {'F1':>6} {'rules':>5} {'seconds':>8} "
          f"{'LP':>10} {'lower bd':>10} status")
    for name in args.datasets.split(","):
        X, y = load_dataset(name)
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, stratify=y,
                                                  random_state=0)
        for pricing in ("tree", "exact"):
            t = time.perf_counter()
            clf = RUGClassifier(max_depth=args.max_depth, pen_par=args.pen_par,
                                max_rmp_calls=args.calls, pricing=pricing,
                                time_limit=args.time_limit, random_state=0).fit(X_tr, y_tr)
            seconds = time.perf_counter() - t
            pred = clf.predict(X_te)
            f1 = (f1_score(y_te, pred, pos_label=clf.classes_[-1])
                  if len(clf.classes_) == 2 else float("nan"))
            lb = clf.lower_bound_ if clf.lower_bound_ is not None else float("nan")
            print(f"{name:16} {pricing:8} {np.mean(pred == np.asarray(y_te)):8.4f} {f1:6.3f} "
                  f"{len(clf.rules_):5d} {seconds:8.2f} {clf.objective_:10.3f} {lb:10.3f} "
                  f"{clf.status_}", flush=True)


if __name__ == "__main__":
    main()
