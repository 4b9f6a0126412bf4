"""Do the optional cuts pay off? FlowOCT with/without cuts (4), BendersOCT with/without
fractional min-cut separation, on bundled datasets (50 % training split, seed 0).

Usage: python bench/ablation_cuts.py [--datasets monk1,balance-scale] [--depths 2]
       [--time-limit 120]
Prints one line per run: seconds, status, objective, bound, B&B nodes, cuts added.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

from sklearn.model_selection import train_test_split

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import BendersOCTClassifier, FlowOCTClassifier, load_dataset  # noqa: E402
from optrees.bench.tasks import PLAIN_BENDERS  # noqa: E402

VARIANTS = {
    "flow": (FlowOCTClassifier, {}),
    "flow+cuts4": (FlowOCTClassifier, {"strengthen": True}),
    "benders": (BendersOCTClassifier, PLAIN_BENDERS),
    "benders+fractional": (BendersOCTClassifier, {**PLAIN_BENDERS, "fractional_cuts": True}),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--datasets", default="monk1,monk3,house-votes-84,balance-scale")
    ap.add_argument("--depths", default="2")
    ap.add_argument("--lam", type=float, default=0.0)
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    print(f"{'dataset':16} {'d':>2} {'variant':20} {'seconds':>8} {'status':10} "
          f"{'objective':>9} {'bound':>9} {'nodes':>7}  cuts")
    for name in args.datasets.split(","):
        X, y = load_dataset(name)
        X_tr, _, y_tr, _ = train_test_split(X, y, train_size=0.5, random_state=0, stratify=y)
        for depth in map(int, args.depths.split(",")):
            for variant in args.variants.split(","):
                cls, kw = VARIANTS[variant]
                est = cls(depth=depth, lam=args.lam, time_limit=args.time_limit,
                          random_state=0, **kw).fit(X_tr, y_tr)
                print(f"{name:16} {depth:>2} {variant:20} {est.fit_seconds_:8.2f} "
                      f"{est.status_:10} {est.objective_:9.1f} {est.bound_:9.1f} "
                      f"{est.n_bb_nodes_:7d}  {est.stats_}", flush=True)


if __name__ == "__main__":
    main()
