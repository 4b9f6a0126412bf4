"""Binarizer speed on a million numeric rows, side by side with scikit-learn's quantile
KBinsDiscretizer (one-hot output) in the same run.

Usage: python bench/binarize.py [--rows 1000000] [--cols 10] [--repeats 3]
Prints the median wall time of both and their ratio; the target is optrees <= 2 s and no
slower than KBinsDiscretizer.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.preprocessing import KBinsDiscretizer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import Binarizer  # noqa: E402


def _median_seconds(make, df: pd.DataFrame, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        make().fit_transform(df)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--cols", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(5)
    df = pd.DataFrame(rng.normal(size=(args.rows, args.cols)),
                      columns=[f"c{i}" for i in range(args.cols)])
    ours = _median_seconds(Binarizer, df, args.repeats)
    peer = _median_seconds(lambda: KBinsDiscretizer(n_bins=5, encode="onehot",
                                                    strategy="quantile"), df, args.repeats)
    print(f"{args.rows} x {args.cols}: optrees Binarizer {ours:.2f} s, "
          f"KBinsDiscretizer {peer:.2f} s, ratio {ours / peer:.2f}; "
          f"target <= 2 s: {'met' if ours <= 2.0 else 'NOT met'}")


if __name__ == "__main__":
    main()
