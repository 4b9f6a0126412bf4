"""Cost of the λ-path (issue #44): the best tree of every leaf count in one search against
one fit at the smallest λ (0), on the accelerated paper's 0/1 encodings.

For each data set and depth: ``accuracy_front`` (every budget 1..2^depth from one search of
leaf-count vectors) and one ``solve_subtree`` with no penalty, each timed in this process
after both sides' compiled kernels are compiled or loaded (``optrees.compile_all``: without
its depth-3 node a fresh checkout's single fit runs 4-6x slower, and the first search of a
process loads its kernels, 0.25 s, once counted in the first instances' fits); prints both
times, their ratio (target <= 2x), how many front points were proved and the largest
accuracy on the front (equal to the single fit's when both prove).

Usage: OPTREES_DATA=../shared/datasets python bench/path_cost.py [--depths 3 4]
       [--instances monk1:enc,...] [--time-limit 120] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees.bench.scripts import checkout_data_dir  # noqa: E402
from optrees.bench.tasks import load_data  # noqa: E402
from optrees.compile_all import compile_everything  # noqa: E402
from optrees.solvers.deadline import Deadline  # noqa: E402
from optrees.trees.search.binary import solve_subtree  # noqa: E402
from optrees.trees.search.binary.front import accuracy_front  # noqa: E402

INSTANCES = ["monk1:enc", "monk2:enc", "monk3:enc", "tic-tac-toe:enc", "balance-scale:enc",
             "car_evaluation:enc", "hayes-roth:enc", "house-votes-84:enc", "kr-vs-kp:enc",
             "wdbc:QT_5", "ionosphere:QT_5", "iris:QB_5", "wine:QB_5", "banknote:QB_5",
             "spect:enc", "soybean-small:enc"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--depths", type=int, nargs="+", default=[3, 4])
    ap.add_argument("--instances", default=",".join(INSTANCES))
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--repeat", type=int, default=1,
                    help="time each side this many times, alternating, and keep the fastest "
                         "(a loaded machine's single timings of a few ms vary 10x)")
    args = ap.parse_args(argv)
    checkout_data_dir(__file__)
    compile_everything()  # both sides' kernels compiled or loaded before timing
    warm = np.random.default_rng(0).integers(0, 2, size=(300, 14))
    for depth in (3, 4):  # and loaded into this process
        accuracy_front(warm, warm[:, 0] ^ warm[:, 1], depth, backend="numba")
        solve_subtree(warm, warm[:, 0] ^ warm[:, 1], depth, 0.0, backend="numba")
    ratios: dict[int, list[float]] = {d: [] for d in args.depths}
    print(f"{'instance':22s} d   one fit   path  ratio  proved  best(one) best(path)")
    for name in args.instances.split(","):
        data, enc = name.split(":")
        try:
            Xdf, yraw = load_data(data, enc)
        except Exception as exc:  # noqa: BLE001 - a missing file skips the instance
            print(f"{name:22s} skipped: {exc}")
            continue
        X = Xdf.to_numpy(dtype=np.uint8)
        y = np.unique(np.asarray(yraw), return_inverse=True)[1]
        for depth in args.depths:
            t_one = t_path = np.inf
            for _ in range(max(1, args.repeat)):
                t0 = time.perf_counter()
                one = solve_subtree(X, y, depth, 0.0, deadline=Deadline(args.time_limit))
                t1 = time.perf_counter()
                front = accuracy_front(X, y, depth, deadline=Deadline(args.time_limit))
                t2 = time.perf_counter()
                t_one, t_path = min(t_one, t1 - t0), min(t_path, t2 - t1)
            proved = sum(p.optimal for p in front)
            ratio = t_path / max(t_one, 1e-9)
            if one.optimal and proved == len(front):
                ratios[depth].append(ratio)
            print(f"{name:22s} {depth} {t_one:8.3f} {t_path:7.3f} {ratio:6.2f} "
                  f"{proved:3d}/{len(front):<3d} {one.score:9.1f} {front[-1].correct:9.1f}",
                  flush=True)
    for depth, r in ratios.items():
        if r:
            print(f"depth {depth}: median ratio path / one fit {statistics.median(r):.2f} "
                  f"over {len(r)} instances both proved (max {max(r):.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
