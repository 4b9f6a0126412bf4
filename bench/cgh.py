"""CGH vs CART (cgh-column-generation.txt §7.2 protocol).

Every dataset is split at random 5 times (seeds 0..S-1) into 50 % train / 25 % test (the other
25 % is not used, as in the paper); CGHClassifier and scikit-learn CART (default parameters,
max_depth = depth) are fitted on the train part for depths 2-4.  Prints one line per fit and
a summary per dataset/depth: mean train / test accuracy (%) of CART and CGH, mean seconds,
how often the final master LP was integral (Table 4) and how often the time limit was hit.

    python bench/cgh.py --datasets iris,monk1,balance-scale --depths 2,3 --time-limit 30
    python bench/cgh.py --datasets magic --depths 4 --time-limit 600 --seeds 5
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared" / "datasets"
if "OPTREES_DATA" not in os.environ and SHARED.is_dir():
    os.environ["OPTREES_DATA"] = str(SHARED)

from optrees.bench.protocols import CGH_DATASETS  # noqa: E402
from optrees.datasets import load_dataset  # noqa: E402
from optrees.estimators._base import TimeLimitWarning  # noqa: E402
from optrees.estimators.cgh import CGHClassifier  # noqa: E402

SMALL = list(CGH_DATASETS)


def split(X, y, seed):
    X_tr, X_rest, y_tr, y_rest = train_test_split(X, y, train_size=0.5, random_state=seed)
    _, X_te, _, y_te = train_test_split(X_rest, y_rest, test_size=0.5, random_state=seed)
    return X_tr, y_tr, X_te, y_te


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="iris,monk1,balance-scale")
    ap.add_argument("--depths", default="2,3,4")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--time-limit", type=float, default=30.0)
    ap.add_argument("--tau", type=int, default=300)
    ap.add_argument("--local-search", type=int, default=20)
    ap.add_argument("--exact-pricing", default="auto")
    args = ap.parse_args(argv)
    names = SMALL if args.datasets == "small" else args.datasets.split(",")
    depths = [int(d) for d in args.depths.split(",")]
    summary = []
    for name in names:
        X, y = load_dataset(name)
        y = np.asarray(y)
        for depth in depths:
            rows = []
            for seed in range(args.seeds):
                X_tr, y_tr, X_te, y_te = split(X, y, seed)
                m = CGHClassifier(depth=depth, tau=args.tau, time_limit=args.time_limit,
                                  local_search=args.local_search,
                                  exact_pricing=args.exact_pricing, random_state=seed)
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", TimeLimitWarning)
                    m.fit(X_tr, y_tr)
                secs = time.perf_counter() - t0
                Xn_tr, Xn_te = m.encoder_.transform(X_tr), m.encoder_.transform(X_te)
                cart = DecisionTreeClassifier(max_depth=depth, random_state=seed)
                cart.fit(Xn_tr, y_tr)
                r = dict(train=m.score(X_tr, y_tr), test=m.score(X_te, y_te),
                         cart_train=cart.score(Xn_tr, y_tr), cart_test=cart.score(Xn_te, y_te),
                         seconds=secs, integral=m.lp_integral_,
                         timeout=m.status_ == "time_limit", status=m.status_)
                rows.append(r)
                print(f"{name:14s} d={depth} seed={seed} n={len(y_tr):6d} {m.status_:10s} "
                      f"{secs:7.1f}s  train {100 * r['train']:5.1f} (CART "
                      f"{100 * r['cart_train']:5.1f})  test {100 * r['test']:5.1f} (CART "
                      f"{100 * r['cart_test']:5.1f})  LP {m.lp_bound_:.1f} "
                      f"integral={m.lp_integral_}", flush=True)
            mean = {k: float(np.mean([r[k] for r in rows])) for k in rows[0] if k != "status"}
            summary.append((name, depth, mean))
    print("\nmean over seeds (accuracy %)")
    print(f"{'dataset':14s} {'d':>2s} {'CART tr':>8s} {'CGH tr':>8s} {'CART te':>8s} "
          f"{'CGH te':>8s} {'sec':>7s} {'LP int':>7s} {'timeout':>7s}")
    for name, depth, m in summary:
        print(f"{name:14s} {depth:2d} {100 * m['cart_train']:8.2f} {100 * m['train']:8.2f} "
              f"{100 * m['cart_test']:8.2f} {100 * m['test']:8.2f} {m['seconds']:7.1f} "
              f"{m['integral']:7.0%} {m['timeout']:7.0%}")
    for depth in depths:
        sel = [m for _, d, m in summary if d == depth]
        if sel:
            gain = 100 * np.mean([m["train"] - m["cart_train"] for m in sel])
            tgain = 100 * np.mean([m["test"] - m["cart_test"] for m in sel])
            print(f"depth {depth}: mean train gain over CART {gain:+.2f} points, "
                  f"test {tgain:+.2f} points")
    return 0


if __name__ == "__main__":
    sys.exit(main())
