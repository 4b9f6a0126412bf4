"""Scale of OptimalTreeRegressor over every threshold (issue #43, "depth 2 proved over every
threshold on >= 10k rows in seconds; depth 3 proved on >= 1k rows; <= 2 GB at 100k rows,
depth 3").

Each case runs in its own process (so the peak resident memory, ``ru_maxrss`` of the child,
is that case's) and prints rows, columns, distinct thresholds, depth, the fit's seconds,
status, gap, the training R² of ours and of CART of the same depth, and the peak RSS.

Data: ``magic`` (from ``$OPTREES_DATA``: rows drawn with seed 0, target fLength, the 9
other numeric columns, all continuous) and ``synth`` (10 uniform columns, rounded to 1e-4:
up to 10,001 thresholds per column; y a depth-3 step function of three of them plus a
smooth term and Gaussian noise, seed 0).

Usage: PYTHONPATH=$PWD python bench/regression_scale.py
       [--cases magic:10000:2,synth:50000:2,magic:1000:3,synth:1000:3,synth:100000:3]
       [--time-limit 120]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

CASES = "magic:10000:2,synth:50000:2,magic:1000:3,synth:1000:3,synth:100000:3"


def table(name: str, rows: int) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(0)
    if name == "magic":
        root = Path(os.environ.get("OPTREES_DATA", "/work/shared/datasets"))
        raw = pd.read_csv(root / "magic.csv", header=None)
        raw = raw.iloc[rng.choice(len(raw), rows, replace=False)].reset_index(drop=True)
        return raw.iloc[:, 1:10].add_prefix("m"), raw.iloc[:, 0].to_numpy(float)
    X = np.round(rng.random((rows, 10)), 4)
    step = np.where(X[:, 0] < 0.5, np.where(X[:, 1] < 0.3, 0.0, 2.0),
                    np.where(X[:, 2] < 0.7, 1.0, 3.0 + (X[:, 1] < 0.6)))
    y = step + 0.5 * np.sin(6 * X[:, 3]) + rng.normal(0, 0.5, rows)
    return pd.DataFrame(X).add_prefix("x"), y


def one(spec: str, limit: float) -> dict:
    """Fit one case in this process; the numbers as a dict."""
    from sklearn.metrics import r2_score
    from sklearn.tree import DecisionTreeRegressor

    from optrees import OptimalTreeRegressor

    name, rows, depth = spec.split(":")
    X, y = table(name, int(rows))
    t0 = time.perf_counter()
    reg = OptimalTreeRegressor(depth=int(depth), time_limit=limit, random_state=0).fit(X, y)
    seconds = time.perf_counter() - t0
    cart = DecisionTreeRegressor(max_depth=int(depth), random_state=0).fit(X, y)
    return {"case": spec, "cols": X.shape[1],
            "thresholds": int(sum(X[c].nunique() - 1 for c in X.columns)),
            "seconds": seconds, "status": reg.status_, "gap": float(reg.gap_),
            "r2": reg.score(X, y), "cart_r2": r2_score(y, cart.predict(X)),
            "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=CASES)
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--one", help=argparse.SUPPRESS)  # the child process: one case
    args = ap.parse_args()
    if args.one:
        import warnings

        warnings.simplefilter("ignore")  # the time-limit warning: the status says it
        print(json.dumps(one(args.one, args.time_limit)))
        return
    print(f"{'case':18} {'cols':>4} {'thresh':>7} {'sec':>7} {'status':10} {'gap':>7} "
          f"{'R2':>7} {'CART R2':>7} {'RSS MB':>7}")
    for spec in args.cases.split(","):
        out = subprocess.run([sys.executable, __file__, "--one", spec, "--time-limit",
                              str(args.time_limit)], capture_output=True, text=True)
        if out.returncode != 0:
            print(f"{spec:18} failed: {out.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{r['case']:18} {r['cols']:4d} {r['thresholds']:7d} {r['seconds']:7.2f} "
              f"{r['status']:10} {r['gap']:7.2%} {r['r2']:7.4f} {r['cart_r2']:7.4f} "
              f"{r['maxrss_mb']:7.0f}", flush=True)


if __name__ == "__main__":
    main()
