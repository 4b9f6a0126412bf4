"""TreeFARMS's Rashomon set size for bench/rashomon.py, run in TreeFARMS's own venv.

Usage: python treefarms_witness.py data.csv '[[depth, lam, epsilon(, 1 = verbose)], ...]'
(the CSV's last column is the label, the others 0/1; epsilon multiplies the optimum).
Prints one JSON line per case: the count, the time of the call and the peak memory of this
process so far.
TreeFARMS prints its model set on stdout; it is sent to /dev/null.
"""

from __future__ import annotations

import json
import os
import re
import resource
import sys
import tempfile
import time

import pandas as pd
from treefarms import TREEFARMS


def count(X: pd.DataFrame, y: pd.Series, depth: int, lam: float, eps: float,
          verbose: bool = False) -> dict:
    """TreeFARMS's set size of one case, the optimum it found (its log's "Found Optimal
    Objective", with ``verbose``: its log slows it), the time of its fit and count."""
    config = {"regularization": lam, "depth_budget": depth + 1, "verbose": verbose,
              "allow_small_reg": True, "rashomon_bound_multiplier": eps}
    log = tempfile.TemporaryFile()  # TreeFARMS prints (Python and C++) on stdout: kept aside
    saved = os.dup(1)
    sink = log.fileno()
    os.dup2(sink, 1)
    start = time.perf_counter()
    try:
        trees = TREEFARMS(config).fit(X, y).get_tree_count()
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    log.seek(0)
    found = re.search(rb"Found Optimal Objective: ([0-9.eE+-]+)", log.read())
    log.close()
    return {"count": int(trees), "seconds": wall, "peak_mb": peak,
            "optimum": float(found.group(1)) if found else None}


def main() -> None:
    data = pd.read_csv(sys.argv[1])
    X, y = data.iloc[:, :-1], data.iloc[:, -1]
    for depth, lam, eps, *verbose in json.loads(sys.argv[2]):
        print(json.dumps(count(X, y, int(depth), float(lam), float(eps), bool(verbose))),
              flush=True)

if __name__ == "__main__":
    main()
