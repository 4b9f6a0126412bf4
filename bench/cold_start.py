"""Cost of the first fit in a new process (issue #42, item 6): numba compiles or loads kernels.

Every measurement runs in a fresh Python process (subprocess), which times two identical fits
one after the other: the first pays for loading or compiling the numba kernels, the second
does not.  Each optrees scenario runs twice, with an empty numba cache (a new temporary
``NUMBA_CACHE_DIR``: a fresh install) and again with the cache that first run filled (a warm
install); for the two large scenarios the kernels they run compiled are put in that cache
first (their warm-up, as ``python -m optrees.compile_all`` does; its seconds are printed), since
their cold run may prove with numpy and compile nothing.  pystreed and pycontree fit the same
data in their own fresh processes, beside.

Scenarios (bundled data only): ``bendoct01`` BendOCT depth 3 on monk1 one-hot (0/1 columns);
``numeric`` BendOCT depth 2 over every threshold of balance-scale's four integer columns;
``fair`` BendOCT depth 2 under statistical parity on monk1 one-hot; ``rug`` RUG depth 3 on
house-votes-84; ``demo`` the CLI's ``optrees demo`` (run twice in one process); and two fits
too large for the numpy kernels, which compile: ``bendoct01-large`` BendOCT depth 3 on kr-vs-kp
one-hot, ``numeric-large`` depth 2 over every threshold of 2,000 random rows x 6 columns; and
``bendoct01-deep``, kr-vs-kp one-hot at depth 4, a fit numpy does not prove within
``compiled.LOAD_SECONDS`` (the case where the probe before numba's start-up is lost).

Usage:
    python bench/cold_start.py                       # every scenario, cold and warm cache
    python bench/cold_start.py --scenarios fair,rug --no-refs

Prints per scenario and cache: import seconds (what a script imports before it fits), first and
second fit seconds, their difference (target: at most 0.3 s warm, first fit at most 3 s cold),
their ratio, import + first fit, the numba signatures compiled and loaded from the cache during
the first fit (entry points only), the search backend of each fit (``-`` where the scenario has
none), and the references' first / second fits.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCENARIOS = ("bendoct01", "numeric", "fair", "rug", "demo", "bendoct01-large", "numeric-large",
             "bendoct01-deep")
REFERENCES = {"bendoct01": ("pystreed", "pycontree"), "numeric": ("pycontree",),
              "fair": ("pystreed",), "bendoct01-large": ("pystreed", "pycontree"),
              "bendoct01-deep": ("pystreed",),
              "numeric-large": ("pycontree",)}


# ------------------------------------------------------------------------ inside a child
def _data(scenario: str):
    """The scenario's training data as numpy (0/1 matrix, numeric matrix) or pandas."""
    import numpy as np
    import pandas as pd

    from optrees import load_dataset

    if scenario in ("bendoct01", "fair", "bendoct01-large", "bendoct01-deep"):
        X, y = load_dataset("monk1" if scenario in ("bendoct01", "fair") else "kr-vs-kp")
        X01 = pd.get_dummies(X.astype(str)).to_numpy(dtype=np.int64)
        return X01, (np.asarray(y) == np.asarray(y)[0]).astype(np.int64)
    if scenario == "numeric":
        X, y = load_dataset("balance-scale")
        return X.to_numpy(dtype=np.float64), pd.factorize(np.asarray(y))[0]
    if scenario == "numeric-large":  # a threshold search too large for numpy
        rng = np.random.default_rng(0)
        X = rng.random((2000, 6))
        return X, ((X[:, 0] + X[:, 1] > 1.0) ^ (rng.random(2000) < 0.2)).astype(np.int64)
    if scenario == "rug":
        return load_dataset("house-votes-84")
    return None, None


def _depth(scenario: str) -> int:
    """The tree depth a scenario fits."""
    return 2 if scenario.startswith("numeric") or scenario == "fair" else \
        4 if scenario == "bendoct01-deep" else 3


def _fit_once(scenario: str, tool: str, X, y) -> str:
    """One fit of ``tool`` on the scenario's data; its search backend (``-``: none known)."""
    if tool == "pystreed":
        import pystreed

        if scenario == "fair":
            pystreed.STreeDGroupFairnessClassifier(
                optimization_task="group-fairness", sensitive_feature=0,
                discrimination_limit=0.05, max_depth=2, time_limit=60).fit(X, y)
        else:
            pystreed.STreeDClassifier(max_depth=_depth(scenario),
                                      optimization_task="cost-complex-accuracy",
                                      cost_complexity=0.0, time_limit=60).fit(X, y)
        return "-"
    if tool == "pycontree":
        from pycontree import ConTree

        ConTree(max_depth=_depth(scenario), time_limit=60).fit(X, y)
        return "-"
    if scenario == "demo":
        import contextlib
        import io

        from optrees.cli import main

        with contextlib.redirect_stdout(io.StringIO()):
            main(["demo"])
        return "-"
    from optrees import BendOCTClassifier, RUGClassifier

    if scenario.startswith(("bendoct01", "numeric")):
        est = BendOCTClassifier(depth=_depth(scenario), lam=0.0, time_limit=60).fit(X, y)
    elif scenario == "fair":
        import pandas as pd

        frame = pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])
        est = BendOCTClassifier(depth=2, lam=0.0, fairness="statistical_parity", epsilon=0.05,
                                sensitive="c0", drop_sensitive=True, time_limit=60).fit(frame, y)
    else:
        RUGClassifier(max_depth=3, random_state=0).fit(X, y)
        return "-"
    return est.stats_.get("search_backend", "-")


def _dispatcher_stats() -> tuple[int, int]:
    """(compiled, loaded from cache) signatures over every numba dispatcher of optrees."""
    compiled = loaded = 0
    for name, module in list(sys.modules.items()):
        if not name.startswith("optrees"):
            continue
        for value in list(vars(module).values()):
            stats = getattr(value, "stats", None)
            if value.__class__.__name__.endswith("Dispatcher") and stats is not None:
                compiled += sum(stats.cache_misses.values())
                loaded += sum(stats.cache_hits.values())
    return compiled, loaded


FILLS = {"bendoct01-large": "binary", "numeric-large": "numeric", "bendoct01-deep": "binary"}
"""The kernel family a large scenario runs compiled, put in the cache before its warm run."""


def fill(scenario: str) -> None:
    """Compile (or load) the kernels of ``scenario``'s family into numba's cache, as
    ``python -m optrees.compile_all`` does for every family; print the seconds."""
    t0 = time.perf_counter()
    if FILLS[scenario] == "binary":
        from optrees.trees.search.binary.warmup import compile_kernels

        compile_kernels()
    else:
        from optrees.trees.search.numeric.warmup import compile_kernels

        compile_kernels(deep=False)
    print(json.dumps({"fill": time.perf_counter() - t0}))


def child(scenario: str, tool: str) -> None:
    """Time import, first and second fit in this process; print them as one JSON line."""
    import warnings

    warnings.simplefilter("ignore")
    if tool == "fill":
        fill(scenario)
        return
    t0 = time.perf_counter()
    if tool == "optrees":  # what a script imports before it fits
        from optrees import BendOCTClassifier, RUGClassifier  # noqa: F401
        if scenario == "demo":
            from optrees.cli import main  # noqa: F401
    else:
        __import__(tool)
    X, y = _data(scenario)
    t1 = time.perf_counter()
    backend1 = _fit_once(scenario, tool, X, y)
    t2 = time.perf_counter()
    stats = _dispatcher_stats()
    backend2 = _fit_once(scenario, tool, X, y)
    t3 = time.perf_counter()
    print(json.dumps({"import": t1 - t0, "fit1": t2 - t1, "fit2": t3 - t2,
                      "compiled": stats[0], "loaded": stats[1],
                      "backends": f"{backend1}/{backend2}"}))


# ------------------------------------------------------------------------ the driver
def run_child(scenario: str, tool: str, cache_dir: str) -> dict:
    """``child`` in a fresh interpreter with ``NUMBA_CACHE_DIR=cache_dir``."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, __file__, "--child", scenario, tool], env=env,
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise SystemExit(f"{scenario}/{tool} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def line(scenario: str, label: str, r: dict) -> str:
    """One printed row."""
    extra = f" {r['compiled']:>4} {r['loaded']:>5}" if "compiled" in r else " " * 11
    extra += f" {r['backends']}"
    return (f"{scenario:<15} {label:<13} {r['import']:>6.2f} {r['fit1']:>7.3f} {r['fit2']:>7.3f}"
            f" {r['fit1'] - r['fit2']:>7.3f} {r['fit1'] / max(r['fit2'], 1e-6):>7.1f}"
            f" {r['import'] + r['fit1']:>7.2f}{extra}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenarios", default=",".join(SCENARIOS))
    ap.add_argument("--no-refs", action="store_true", help="skip pystreed and pycontree")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(*args.child)
        return 0
    print(f"{'scenario':<15} {'run':<13} {'import':>6} {'fit1':>7} {'fit2':>7} "
          f"{'1st-2nd':>7} {'ratio':>7} {'imp+1st':>7} {'comp':>4} {'load':>5} backends",
          flush=True)
    summary = []
    for scenario in args.scenarios.split(","):
        with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
            cold = run_child(scenario, "optrees", cache)
            print(line(scenario, "optrees cold", cold), flush=True)
            if scenario in FILLS:  # its kernels cached, whatever the cold run did
                seconds = run_child(scenario, "fill", cache)["fill"]
                print(f"{scenario:<15} {'(cache fill)':<13} {seconds:>6.2f}", flush=True)
            warm = run_child(scenario, "optrees", cache)
            print(line(scenario, "optrees warm", warm), flush=True)
            summary.append((scenario, cold, warm))
            for ref in () if args.no_refs else REFERENCES.get(scenario, ()):
                r = run_child(scenario, ref, cache)
                print(line(scenario, ref, r), flush=True)
    print("\ntargets: warm 1st-2nd <= 0.3 s; cold fit1 <= 3 s")
    for scenario, cold, warm in summary:
        ok_warm = warm["fit1"] - warm["fit2"] <= 0.3
        ok_cold = cold["fit1"] <= 3.0
        print(f"{scenario:<15} warm 1st-2nd {warm['fit1'] - warm['fit2']:6.3f} s "
              f"{'ok' if ok_warm else 'MISS'}   cold fit1 {cold['fit1']:6.2f} s "
              f"{'ok' if ok_cold else 'MISS'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
