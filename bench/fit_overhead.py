"""Milliseconds of a whole BendersOCT fit (leaves penalty, 0/1 data, proved by the search) on
small instances, kernels loaded first: what the estimator adds around the search shows here.

Usage (two commits, one after the other, same machine):
    git worktree add /tmp/old OLD_REV && (cd /tmp/old && python /path/to/bench/fit_overhead.py)
    python bench/fit_overhead.py
Prints ``name:depth:ms`` (median of 7 fits after one untimed fit) per instance.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, os.getcwd())  # the checkout the command runs in
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))
warnings.simplefilter("ignore")
os.environ.setdefault("OPTREES_DATA", str(Path(__file__).resolve().parents[2] / "shared" /
                                           "datasets"))
from optrees import BendersOCTClassifier  # noqa: E402
from optrees.bench.tasks import load_data  # noqa: E402

try:  # every kernel loaded (the module's name changed in #41)
    from optrees.compile_all import compile_everything
except ImportError:  # older checkouts
    from optrees.trees.search.numeric.warmup import compile_kernels as compile_everything
compile_everything()

rows = []
for name in ["monk1", "monk2", "house-votes-84", "tic-tac-toe", "car_evaluation", "kr-vs-kp"]:
    Xdf, yr = load_data(name, "enc")
    X, y = Xdf.to_numpy(dtype=np.uint8), np.asarray(yr)
    for depth in (3, 4):
        est = BendersOCTClassifier(penalty="leaves", depth=depth, lam=0.001, binarizer=None)
        est.fit(X, y)
        times = []
        for _ in range(7):
            t0 = time.perf_counter()
            est.fit(X, y)
            times.append(time.perf_counter() - t0)
        rows.append(f"{name}:{depth}:{1000 * np.median(times):.1f}")
print(" ".join(rows))
