"""RUX's time and peak memory on a large table (issue #42: "RUX 1.2 GB peak on skin").

Fits a random forest (``--trees`` trees of depth ``--depth``, seed 0) on a data set of the
data directory, then ``RUXClassifier`` on it, and prints the RUX fit's seconds, status,
objective and the process's peak resident memory during that fit (sampled every 20 ms).

    OPTREES_DATA=/work/shared/datasets PYTHONPATH=$PWD python bench/rux_memory.py --data skin
"""

from __future__ import annotations

import argparse
import threading
import time


def rss_mb() -> int:
    """The process's resident memory now, in MB (Linux)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024
    return 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="skin")
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=300.0)
    args = ap.parse_args()
    from sklearn.ensemble import RandomForestClassifier

    from optrees import RUXClassifier, load_dataset

    X, y = load_dataset(args.data)
    forest = RandomForestClassifier(n_estimators=args.trees, max_depth=args.depth,
                                    random_state=0).fit(X, y)
    before, peak, done = rss_mb(), [0], threading.Event()

    def watch() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], rss_mb())
            time.sleep(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    start = time.perf_counter()
    model = RUXClassifier(estimator=forest, time_limit=args.time_limit).fit(X, y)
    seconds = time.perf_counter() - start
    done.set()
    watcher.join()
    print(f"{args.data}: {X.shape[0]} rows, {args.trees} trees of depth {args.depth}; RUX fit "
          f"{seconds:.1f} s, status {model.status_}, objective {model.objective_:.6f}; "
          f"RSS before the fit {before} MB, peak during it {peak[0]} MB")


if __name__ == "__main__":
    main()
