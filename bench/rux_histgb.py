"""RUX on HistGradientBoostingClassifier models (issue #46): test accuracy of the rule set
against the model's own, fidelity (agreement with the model on test rows), rules kept and
time, on scikit-learn's bundled data (ruleopt does not read these models, so no peer).

Usage: PYTHONPATH=$PWD python bench/rux_histgb.py [--splits 5] [--max-iter 50]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import train_test_split

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import RUXClassifier  # noqa: E402

SETS = {"iris": load_iris, "wine": load_wine, "breast-cancer": load_breast_cancer,
        "digits": load_digits}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--max-iter", type=int, default=50)
    args = ap.parse_args()
    print(f"{'data':14s} {'model acc':>10s} {'RUX acc':>8s} {'fidelity':>9s} {'rules':>6s} "
          f"{'leaves':>7s} {'RUX s':>6s}")
    for name, load in SETS.items():
        X, y = load(return_X_y=True, as_frame=True)
        out = []
        for seed in range(args.splits):
            Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.3, random_state=seed,
                                              stratify=y)
            model = HistGradientBoostingClassifier(max_iter=args.max_iter, max_depth=3,
                                                   random_state=seed).fit(Xa, ya)
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rux = RUXClassifier(model, random_state=seed).fit(Xa, ya)
            seconds = time.perf_counter() - t0
            out.append((model.score(Xb, yb), rux.score(Xb, yb),
                        np.mean(rux.predict(Xb) == model.predict(Xb)), len(rux.rules_),
                        len(rux.all_rules_.rules), seconds))
        a = np.array(out)
        print(f"{name:14s} {a[:, 0].mean():10.4f} {a[:, 1].mean():8.4f} {a[:, 2].mean():9.4f} "
              f"{a[:, 3].mean():6.1f} {a[:, 4].mean():7.1f} {a[:, 5].mean():6.2f}", flush=True)


if __name__ == "__main__":
    main()
