"""Rashomon sets side by side with TreeFARMS (issue #46, item 3): set sizes (equal where
both run), times and the ratio ours / TreeFARMS, peak memory of each process.

Each data set's cases run in one process per side: ours in this venv, TreeFARMS in its own
(``--treefarms-python``, default /work/venv_tf/bin/python, with ``treefarms`` installed)
through bench/treefarms_witness.py.  Times are of the call alone (ours: the certified
optimum and the set, after a warm-up fit that loads the compiled kernels; TreeFARMS: its
``fit``, which also finds the optimum, and ``get_tree_count``); peak memory is the process's
``ru_maxrss`` so far (imports included), so in a part of several cases per data set it is
the largest up to that case.  Both sides run with one BLAS / OpenMP thread (``ONE_THREAD``).

Parts (each within about three minutes on the 2-core machine):
  examples  TreeFARMS's own 0/1 example data sets (from its repository, ``--treefarms-repo``)
  accel     small 0/1 sets of $OPTREES_DATA/binarized/accel-oct
  large     sets of 10^5 - 10^6 trees (smaller lam, larger epsilon): counts, time, memory
  deep      depth 4 on monk1 and monk2 (3 lams, epsilon 0.1)
  numeric   every threshold of TreeFARMS's real-valued examples (iris, gaussian, sine), depth 2
Usage: PYTHONPATH=$PWD python bench/rashomon.py [examples|accel|large] [--timeout S]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TREEFARMS_REPO = "/work/.mirror/ubc-systopia+treeFarms/repo"
EXAMPLES = ["monk_1/data", "monk_2/data", "monk_3/data", "car_evaluation/data",
            "compas/binned", "coupon/bar-7"]
ACCEL = ["monk1", "monk2", "tic-tac-toe", "balance-scale"]
GRID = [(d, lam, eps) for d in (2, 3) for lam in (0.01, 0.02, 0.05) for eps in (0.01, 0.05, 0.1)]
LARGE = [("monk2", 3, 0.01, 0.3), ("tic-tac-toe", 3, 0.005, 0.25),
         ("balance-scale", 3, 0.005, 0.3), ("tic-tac-toe", 3, 0.01, 0.3),
         ("balance-scale", 3, 0.005, 0.4)]
DEEP = [(4, lam, 0.1) for lam in (0.01, 0.02, 0.05)]
ONE_THREAD = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                     "MKL_NUM_THREADS")}
"""Both sides on one thread (TreeFARMS runs one worker by default): on the loaded 2-core
machine a 119 x 150 by 150 x 119 product took 30-60 ms with OpenBLAS's threads, 0.5 ms on
one."""
NUMERIC = ["iris/data", "iris/setosa", "gaussian/hundred", "sine/hundred"]


def run_ours(path: str, cases: list) -> None:
    """The cases of one data set in this process; prints a JSON line per case."""
    import numpy as np
    import pandas as pd

    from optrees.trees import rashomon_set
    rashomon_set(np.eye(4, dtype=int), [0, 1, 0, 1], depth=2, lam=0.01, epsilon=0.1)  # warm-up
    data = pd.read_csv(path)
    X, y = data.iloc[:, :-1], data.iloc[:, -1]
    for depth, lam, eps, *base in cases:
        start = time.perf_counter()
        rs = rashomon_set(X, y, depth=int(depth), lam=float(lam), epsilon=float(eps))
        seconds = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
        row = {"count": len(rs), "seconds": seconds, "peak_mb": peak, "stored": rs.stored,
               "optimum": rs.optimum}
        if base:  # the set around another optimum (TreeFARMS's): same bound, additive
            room = (1 + float(eps)) * base[0] - rs.optimum
            for name, slack in (("count_at_base", 0.0), ("count_below_bound", 1e-6)):
                row[name] = len(rashomon_set(  # below: without the trees on the bound
                    X, y, depth=int(depth), lam=float(lam), additive=True,
                    epsilon=max(0.0, room - slack)))
        print(json.dumps(row), flush=True)


def _side(cmd: list[str], n: int, timeout: float) -> list[dict]:
    """The JSON lines of one side's process for ``n`` cases (an error for those missing)."""
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                             env={**os.environ, "PYTHONPATH": str(HERE.parent), **ONE_THREAD})
        lines, why = out.stdout.strip().splitlines(), \
            (out.stderr.strip().splitlines() or ["failed"])[-1][:40]
    except subprocess.TimeoutExpired as stop:
        lines = (stop.stdout or b"").decode().strip().splitlines()
        why = f"timeout {timeout:g} s"
    rows = [json.loads(line) for line in lines if line.startswith("{")]
    return rows + [{"error": why}] * (n - len(rows))


def compare(path: str, name: str, cases: list, tf_python: str, timeout: float,
            treefarms: bool = True) -> list[dict]:
    """Both sides on the cases of one data set; prints a line per case."""
    spec = json.dumps(cases)
    ours = _side([sys.executable, __file__, "--one", path, spec], len(cases), timeout)
    theirs = _side([tf_python, str(HERE / "treefarms_witness.py"), path, spec], len(cases),
                   timeout) if treefarms else [{"error": "not run"}] * len(cases)
    rows = []
    for (depth, lam, eps), a, b in zip(cases, ours, theirs, strict=True):
        n1, n2 = a.get("count"), b.get("count")
        same = "-" if n1 is None or n2 is None else ("equal" if n1 == n2 else "DIFFERENT")
        t1, t2 = a.get("seconds"), b.get("seconds")
        ratio = f"{t1 / t2:6.2f}" if t1 is not None and t2 else "     -"
        print(f"{name:16s} {depth} {lam:<6g} {eps:<5g} {_fmt(n1, a):>10s} {_fmt(n2, b):>10s}"
              f" {same:9s} {_sec(t1)} {_sec(t2)} {ratio} {a.get('peak_mb', 0):7.0f}"
              f" {b.get('peak_mb', 0):7.0f}", flush=True)
        rows.append({"ours": a, "tf": b})
        if n1 != n2 and None not in (n1, n2) and treefarms:
            _explain(path, depth, lam, eps, a, tf_python, timeout)
    return rows


def _explain(path: str, depth: int, lam: float, eps: float, ours: dict, tf_python: str,
             timeout: float) -> None:
    """A different size: TreeFARMS's optimum (from its log) and our set under its bound."""
    found = _side([tf_python, str(HERE / "treefarms_witness.py"), path,
                   json.dumps([[depth, lam, eps, 1]])], 1, timeout)[0].get("optimum")
    if found is None:
        return
    again = _side([sys.executable, __file__, "--one", path,
                   json.dumps([[depth, lam, eps, found]])], 1, timeout)[0]
    print(f"   TreeFARMS's optimum {found:.6g}, ours (certified) {ours['optimum']:.6g}; "
          f"our set under TreeFARMS's bound {(1 + eps) * found:.6g}: "
          f"{again.get('count_at_base')} trees, {again.get('count_below_bound')} of them "
          f"below it by 1e-6 or more")


def _fmt(n: int | None, side: dict) -> str:
    return str(n) if n is not None else side.get("error", "?")[:10]


def _sec(t: float | None) -> str:
    return f"{t:7.2f}" if t is not None else "      -"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", nargs="?", default="examples",
                        choices=["examples", "accel", "large", "deep", "numeric"])
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--treefarms-python", default="/work/venv_tf/bin/python")
    parser.add_argument("--treefarms-repo", default=TREEFARMS_REPO)
    parser.add_argument("--depths", default="2,3,4")
    a = parser.parse_args()
    if a.one:
        run_ours(a.one[0], json.loads(a.one[1]))
        return
    tf_ok = Path(a.treefarms_python).exists()
    if not tf_ok:
        print(f"TreeFARMS not found at {a.treefarms_python}: our side only")
    depths = {int(d) for d in a.depths.split(",")}
    print(f"{'data':16s} D lam    eps   {'ours':>10s} {'treefarms':>10s} sizes     "
          f"ours s    tf s  ratio  our MB   tf MB")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, path, grid in _cases(a.part, Path(tmp), a.treefarms_repo):
            cases = [list(c) for c in grid if c[0] in depths]
            rows += compare(path, name, cases, a.treefarms_python, a.timeout, tf_ok)
    both = [r for r in rows if "count" in r["ours"] and "count" in r["tf"]]
    equal = sum(r["ours"]["count"] == r["tf"]["count"] for r in both)
    print(f"\nsizes equal in {equal} of {len(both)} cases where both ran")
    if both:
        import numpy as np
        ratios = [r["ours"]["seconds"] / r["tf"]["seconds"] for r in both
                  if r["tf"]["seconds"] > 0]
        print(f"time ours / TreeFARMS: median {np.median(ratios):.2f}, "
              f"max {np.max(ratios):.2f} over {len(ratios)} cases")


def _cases(part: str, tmp: Path, repo: str):
    """(name, csv path, grid) of a part; TreeFARMS's examples are read from its repo."""
    data = Path(os.environ.get("OPTREES_DATA", "/work/shared/datasets")) / "binarized" / \
        "accel-oct"
    if part in ("examples", "numeric"):
        for ex in EXAMPLES if part == "examples" else NUMERIC:
            path = tmp / (ex.replace("/", "_") + ".csv")
            text = subprocess.run(["git", "--git-dir", repo, "show",
                                   f"HEAD:experiments/datasets/{ex}.csv"],
                                  capture_output=True, text=True)
            if text.returncode:
                print(f"{ex}: not in {repo}")
                continue
            path.write_text(text.stdout)
            yield ex.split("/")[0] if part == "examples" else ex, str(path), \
                GRID if part == "examples" else [c for c in GRID if c[0] == 2]
    elif part == "accel":
        for name in ACCEL:
            yield name, str(data / f"{name}_enc.csv"), GRID
    elif part == "deep":
        for name in ("monk1", "monk2"):
            yield name, str(data / f"{name}_enc.csv"), DEEP
    else:
        for name, depth, lam, eps in LARGE:
            path = data / f"{name}_enc.csv"
            if not path.exists():
                path = tmp / f"{name}.csv"
                text = subprocess.run(["git", "--git-dir", repo, "show",
                                       f"HEAD:experiments/datasets/{name}/data.csv"],
                                      capture_output=True, text=True)
                path.write_text(text.stdout)
            yield name, str(path), [(depth, lam, eps)]


if __name__ == "__main__":
    main()
