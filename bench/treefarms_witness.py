"""TreeFARMS's Rashomon set size for bench/rashomon.py, run in TreeFARMS's own venv.

Usage: python treefarms_witness.py data.csv depth lam epsilon [additive]
(the CSV's last column is the label, the others 0/1).  Prints one JSON line: the count,
TreeFARMS's own training time, the wall time and the peak memory of this process.
TreeFARMS prints its model set on stdout; it is sent to /dev/null.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time

import pandas as pd
from treefarms import TREEFARMS


def main() -> None:
    path, depth, lam, eps = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
    additive = len(sys.argv) > 5 and sys.argv[5] == "additive"
    data = pd.read_csv(path)
    X, y = data.iloc[:, :-1], data.iloc[:, -1]
    config = {"regularization": lam, "depth_budget": depth + 1, "verbose": False,
              "allow_small_reg": True}
    config["rashomon_bound_adder" if additive else "rashomon_bound_multiplier"] = eps
    saved = os.dup(1)  # TreeFARMS prints (Python and C++) on stdout: to /dev/null
    sink = os.open(os.devnull, os.O_WRONLY)
    os.dup2(sink, 1)
    start = time.perf_counter()
    try:
        model = TREEFARMS(config).fit(X, y)
        count = model.get_tree_count()
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(json.dumps({"count": int(count), "seconds": wall, "peak_mb": peak}))


if __name__ == "__main__":
    main()
