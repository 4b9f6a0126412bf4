"""Deep fits stopped by the time limit, with and without the MIP after the 0/1 search (the
measurement behind ``optrees.trees.solve.binary.MIP_MAX_DEPTH``).

Per instance (accel-OCT encodings, depths 6-8, where the search does not prove in the
limit), ``BendersOCTClassifier(penalty="leaves")`` twice: "mip", the search with half of the
time and the MIP after it (``MIP_MAX_DEPTH`` raised out of reach), and "no-mip", the search
with its share and no MIP (the default deeper than ``MIP_MAX_DEPTH``); prints the status,
objective, bound, the search's start and the seconds of each.

Usage: python bench/deep_mip.py [--time-limit 20]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import BendersOCTClassifier  # noqa: E402
from optrees.bench.scripts import checkout_data_dir  # noqa: E402
from optrees.bench.tasks import load_data  # noqa: E402
from optrees.trees.solve import binary  # noqa: E402

CASES = (("ILPD", "QB_5", 6, 0.005), ("ann-thyroid", "QB_5", 6, 0.001),
         ("plrx", "QT_5", 6, 0.001), ("car_evaluation", "enc", 8, 0.001),
         ("tic-tac-toe", "enc", 7, 0.001), ("breast-cancer", "enc", 7, 0.005))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=20.0)
    args = ap.parse_args(argv)
    data_dir = checkout_data_dir(__file__)
    warnings.simplefilter("ignore")
    default = binary.MIP_MAX_DEPTH
    for name, enc, depth, lam in CASES:
        X, y = load_data(name, enc, data_dir)
        for variant, cap in (("mip", 99), ("no-mip", default)):
            binary.MIP_MAX_DEPTH = cap
            t0 = time.perf_counter()
            m = BendersOCTClassifier(penalty="leaves", depth=depth, lam=lam,
                                     time_limit=args.time_limit).fit(X, y)
            print(f"{name:15s} {enc:5s} {depth} {lam:6g} {variant:7s} {m.status_:10s} "
                  f"{m.objective_:.5f} {m.bound_:.5f} {time.perf_counter() - t0:5.1f} s  "
                  f"{m.stats_.get('search_start', '')}", flush=True)
    binary.MIP_MAX_DEPTH = default
    return 0


if __name__ == "__main__":
    sys.exit(main())
