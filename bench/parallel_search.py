"""One 0/1 search on several cores (issue #47): ``n_jobs`` threads, and a local Dask cluster,
beside the serial search in the same run.

Instances: 0/1 encodings of the accelerated grid (``binarized/accel-oct/``) at depth 5-6,
the ones that take seconds (the issue's "hard instances"), and many rows (10^4-10^5 rows of
``bench/many_rows.py``'s cases).  Each is solved by the search
itself (:func:`optrees.trees.search.binary.solve_subtree`, what ``BendOCTClassifier`` runs
first) serially and with ``--jobs`` threads, alternating, ``--repeats`` times each; the
table gives the best time of each, the ratio serial / parallel and whether the trees are
the same.  ``--dask N`` adds a LocalCluster of N worker processes (one thread each).

Usage:
    python bench/parallel_search.py                      # the default instances, 2 threads
    python bench/parallel_search.py --dask 2 --repeats 2
    python bench/parallel_search.py --instances kr-vs-kp_enc:6:0.001

The speed-up needs free cores: the load average before the run is printed, and a loaded
machine gives ratios near 1.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees.bench.scripts import checkout_data_dir  # noqa: E402
from optrees.trees.search.binary.entry import solve_subtree  # noqa: E402
from optrees.trees.search.threads import search_threads  # noqa: E402

INSTANCES = ("wine_QT_5_enc:5:0.005", "kr-vs-kp_enc:5:0.001", "kr-vs-kp_enc:6:0.001",
             "spect_enc:6:0.001", "car_evaluation_enc:6:0.001", "krkp@20000:5:0.001",
             "krkp@100000:4:0.001", "planted@300000:4:0.001")
"""dataset:depth:lam (lam per row, as the accelerated grid's); the last three: many rows."""


def load(data_dir: Path, name: str) -> tuple[np.ndarray, np.ndarray]:
    """An encoding of the grid, or ``krkp@N`` / ``planted@N``: N rows of
    ``bench/many_rows.py``'s cases (kr-vs-kp resampled with 10 % of its bits flipped; 50
    random features labelled by a planted depth-3 tree, 10 % noise)."""
    if "@" in name:
        from bench.many_rows import krkp, planted

        case, rows = name.split("@")
        return (krkp(int(rows), 0.1, 0, str(data_dir)) if case == "krkp"
                else planted(int(rows), 50, 0.1, 0))
    df = pd.read_csv(data_dir / "binarized" / "accel-oct" / f"{name}.csv")
    return (df.iloc[:, :-1].to_numpy().astype(np.int8),
            pd.factorize(df.iloc[:, -1])[0].astype(np.int64))


def timed(X, y, depth: int, L: float, n_jobs: int | None, limit: float):
    from optrees.solvers.deadline import Deadline

    with search_threads(n_jobs):
        t0 = time.perf_counter()
        found = solve_subtree(X, y, depth, L, deadline=Deadline(limit))
        return time.perf_counter() - t0, found


def same(found: dict, mode: str) -> str:
    """Whether ``mode`` found the serial search's tree and score."""
    a, b = found["serial"], found[mode]
    return "yes" if (np.array_equal(a.tree.split, b.tree.split)
                     and abs(a.score - b.score) < 1e-9) else "NO"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", default=",".join(INSTANCES))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--dask", type=int, default=0, metavar="N",
                    help="also on a LocalCluster of N worker processes")
    args = ap.parse_args(argv)
    data_dir = checkout_data_dir(__file__)
    if data_dir is None:
        sys.exit("no data: set OPTREES_DATA")
    print(f"cores {os.cpu_count()}, load average before: "
          f"{' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    client = cluster = None
    if args.dask:
        import distributed

        cluster = distributed.LocalCluster(n_workers=args.dask, threads_per_worker=1,
                                           dashboard_address=None)
        client = distributed.Client(cluster)
    X0, y0 = load(data_dir, "monk1_enc")
    solve_subtree(X0, y0, 4, 1.0)  # compiled kernels loaded before the first timing
    print(f"{'instance':28} {'serial s':>9} {f'{args.jobs} thr s':>9} {'ratio':>6} "
          f"{'same':>5}" + (f" {'dask s':>8} {'ratio':>6} {'same':>5}" if client else ""))
    ratios, dask_ratios = [], []
    for spec in args.instances.split(","):
        name, depth, lam = spec.split(":")
        X, y = load(data_dir, name)
        depth, L = int(depth), float(lam) * len(y)
        times: dict[str, list[float]] = {"serial": [], "threads": [], "dask": []}
        found = {}
        for _ in range(args.repeats):
            for mode, jobs in (("serial", None), ("threads", args.jobs)):
                seconds, found[mode] = timed(X, y, depth, L, jobs, args.time_limit)
                times[mode].append(seconds)
            if client is not None:
                import joblib

                with joblib.parallel_backend("dask"):
                    seconds, found["dask"] = timed(X, y, depth, L, -1, args.time_limit)
                times["dask"].append(seconds)
        best = {k: min(v) for k, v in times.items() if v}

        ratio = best["serial"] / best["threads"]
        ratios.append(ratio)
        line = (f"{spec:28} {best['serial']:9.2f} {best['threads']:9.2f} {ratio:6.2f} "
                f"{same(found, 'threads'):>5}")
        if client is not None:
            dask_ratios.append(best["serial"] / best["dask"])
            line += f" {best['dask']:8.2f} {dask_ratios[-1]:6.2f} {same(found, 'dask'):>5}"
        status = "" if found["serial"].optimal else "  (serial stopped at the limit)"
        print(line + status, flush=True)
    print(f"\nmedian speed-up with {args.jobs} threads: {np.median(ratios):.2f} "
          f"(min {min(ratios):.2f}, max {max(ratios):.2f})")
    if dask_ratios:
        print(f"median speed-up on {args.dask} Dask workers: {np.median(dask_ratios):.2f} "
              f"(min {min(dask_ratios):.2f}, max {max(dask_ratios):.2f})")
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    if client is not None:
        client.close()
        cluster.close()


if __name__ == "__main__":
    main()
