"""Timing of D2S (accelerated-bendoct Appendix B.1) on random binary data.

Usage: python bench/d2s.py [--repeats 5] [--target 0.5]
Prints the median wall time of ``repeats`` runs per size (samples x features x classes) and
whether the 5000 x 300 x 2 case meets the target (default 0.5 s).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees.trees.mip.d2s import d2s  # noqa: E402

SIZES = [(5000, 300, 2), (1000, 100, 3), (20000, 100, 2), (5000, 300, 10), (5000, 1000, 2)]
TARGET_SIZE = (5000, 300, 2)


def _time(X: np.ndarray, y: np.ndarray, n_classes: int, repeats: int,
          rows: np.ndarray | None = None) -> tuple[float, float]:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        res = d2s(X, y, n_classes, leaf_penalty=1.0, max_depth=2, rows=rows)
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), res.score


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--target", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"{'n':>6} {'F':>5} {'K':>3} {'rows':>6} {'median s':>9} {'score':>9}")
    target_time = None
    for n, n_feat, n_classes in SIZES:
        X = (rng.random((n, n_feat)) < 0.3).astype(np.uint8)
        y = rng.integers(0, n_classes, size=n)
        d2s(X, y, n_classes)  # warm-up (BLAS threads, page faults)
        med, score = _time(X, y, n_classes, args.repeats)
        print(f"{n:6d} {n_feat:5d} {n_classes:3d} {'all':>6} {med:9.4f} {score:9.1f}", flush=True)
        if (n, n_feat, n_classes) == TARGET_SIZE:
            target_time = med
            half = np.flatnonzero(rng.random(n) < 0.5)
            med_h, score_h = _time(X, y, n_classes, args.repeats, rows=half)
            print(f"{n:6d} {n_feat:5d} {n_classes:3d} {half.size:6d} {med_h:9.4f} "
                  f"{score_h:9.1f}", flush=True)
    ok = target_time is not None and target_time <= args.target
    print(f"target {TARGET_SIZE[0]}x{TARGET_SIZE[1]}x{TARGET_SIZE[2]} <= {args.target} s: "
          f"{'MET' if ok else 'NOT MET'} ({target_time:.4f} s)")


if __name__ == "__main__":
    main()
