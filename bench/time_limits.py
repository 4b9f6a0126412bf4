"""Does every estimator stop within its time limit?  (issue #20)

Each estimator is run on instances it cannot finish in time (the cases reported in #20 plus
each estimator at a depth or size where it cannot prove optimality), with a few limits.  The
table shows the wall time of ``fit`` (model building, warm start, solve, freeing the model,
building the returned model), the overshoot over the limit and whether it is within the
criterion of the issue: limit + 5 % or + 0.5 s, whichever is larger.

Timings on a shared machine are noisy: ``--repeats`` runs each case several times and reports
the worst.  Larger data sets are read from ``$OPTREES_DATA`` (rows using them are skipped if
it is not set).

Usage (from the repository root)::

    python bench/time_limits.py                       # every case, limits 2 and 5 s
    python bench/time_limits.py --limits 2.5 --only BinOCT --repeats 3
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import load_dataset  # noqa: E402
from optrees.estimators.baselines import BinOCTClassifier, OCTClassifier  # noqa: E402
from optrees.estimators.cgh import CGHClassifier  # noqa: E402
from optrees.estimators.omt import OMTClassifier  # noqa: E402
from optrees.estimators.rules import RUGClassifier  # noqa: E402
from optrees.estimators.trees import (  # noqa: E402
    BendersOCTClassifier,
    BendOCTClassifier,
    FlowOCTClassifier,
)


@dataclass
class Case:
    """One estimator on one data set at one depth."""

    name: str
    data: str
    depth: int
    make: Callable[[float], Any]  # time limit -> unfitted estimator


def cases() -> list[Case]:
    """The reported cases of #20 first, then one hard instance per estimator."""
    return [
        Case("OCT", "kr-vs-kp", 5, lambda t: OCTClassifier(depth=5, time_limit=t)),
        Case("FlowOCT", "kr-vs-kp", 7, lambda t: FlowOCTClassifier(depth=7, time_limit=t,
                                                                subtree_search=False)),
        Case("CGH", "kr-vs-kp", 12, lambda t: CGHClassifier(depth=12, time_limit=t)),
        Case("BinOCT", "kr-vs-kp", 3, lambda t: BinOCTClassifier(depth=3, time_limit=t)),
        Case("BinOCT", "kr-vs-kp", 5, lambda t: BinOCTClassifier(depth=5, time_limit=t)),
        Case("BinOCT raw", "magic", 3,
             lambda t: BinOCTClassifier(depth=3, time_limit=t, raw_thresholds=True)),
        Case("FlowOCT", "kr-vs-kp", 4, lambda t: FlowOCTClassifier(depth=4, time_limit=t,
                                                                subtree_search=False)),
        Case("BendersOCT", "kr-vs-kp", 6,
             lambda t: BendersOCTClassifier(depth=6, time_limit=t)),
        Case("BendOCT", "kr-vs-kp", 8, lambda t: BendOCTClassifier(depth=8, time_limit=t)),
        # 30,000 rows: one Benders row per row at the first integer point
        Case("BendOCT", "default-credit", 5,
             lambda t: BendOCTClassifier(depth=5, lam=0.0, time_limit=t)),
        Case("OCT", "monk1", 4, lambda t: OCTClassifier(depth=4, time_limit=t)),
        Case("CGH", "magic", 6, lambda t: CGHClassifier(depth=6, time_limit=t)),
        Case("OMT", "kr-vs-kp", 6, lambda t: OMTClassifier(depth=6, time_limit=t)),
        Case("RUG", "magic", 3,
             lambda t: RUGClassifier(max_depth=3, max_rmp_calls=10_000, time_limit=t)),
    ]


def within(elapsed: float, limit: float) -> bool:
    """The criterion of #20: at most limit + 5 % or limit + 0.5 s, whichever is larger."""
    return elapsed <= limit + max(0.05 * limit, 0.5)


def run(case: Case, X: Any, y: Any, limit: float) -> tuple[float, str]:
    """Wall time of one ``fit`` (solver banners silenced) and its status."""
    est = case.make(limit)
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        t = time.perf_counter()
        try:
            est.fit(X, y)
            status = str(getattr(est, "status_", "?"))
        except Exception as exc:  # noqa: BLE001 - reported in the table
            status = f"error: {type(exc).__name__}"
        elapsed = time.perf_counter() - t
    return elapsed, status


def main(argv: list[str] | None = None) -> int:
    """Run the cases and print the table; exit code 1 if any run missed the criterion."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limits", default="2,5", help="comma-separated time limits (s)")
    ap.add_argument("--repeats", type=int, default=1, help="runs per case; the worst counts")
    ap.add_argument("--only", default="", help="run only estimators whose name contains this")
    args = ap.parse_args(argv)
    limits = [float(v) for v in args.limits.split(",")]
    data: dict[str, Any] = {}
    header = (f"{'estimator':<12}{'data':<10}{'depth':>6}{'limit':>7}{'elapsed':>9}"
              f"{'overshoot':>11}  {'within':<7}status")
    print(header)
    print("-" * len(header))
    failed = 0
    for case in cases():
        if args.only and args.only.lower() not in case.name.lower():
            continue
        if case.data not in data:
            try:
                data[case.data] = load_dataset(case.data)
            except Exception as exc:  # noqa: BLE001 - e.g. OPTREES_DATA not set
                print(f"{case.name:<12}{case.data:<10} skipped: {exc}"[:100])
                data[case.data] = None
        if data[case.data] is None:
            continue
        X, y = data[case.data]
        for limit in limits:
            runs = [run(case, X, y, limit) for _ in range(args.repeats)]
            elapsed, status = max(runs)
            ok = within(elapsed, limit)
            failed += not ok
            print(f"{case.name:<12}{case.data:<10}{case.depth:>6}{limit:>7.1f}{elapsed:>9.2f}"
                  f"{elapsed - limit:>+11.2f}  {'yes' if ok else 'NO':<7}{status}", flush=True)
    print(f"\n{failed} run(s) outside limit + max(5 %, 0.5 s); load average "
          f"{os.getloadavg()[0]:.1f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
