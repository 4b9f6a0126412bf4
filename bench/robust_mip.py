"""Robust trees (issue #46): the exact search against the MIP with constraint generation
(``RobustTreeClassifier(method="search")`` vs ``method="mip"``), side by side in one run,
on the sets and protocol of ``robust_trees.py`` (75/25 split seed 2, q_f ~ N(0.9, 0.1) seed
42, costs -log(1 - q_f), budget -n log(lambda)), training fits only.

``mip``: SCIP started from the search's tree found in 10 % of the time (at most 5 s);
``--cold``: also the MIP without that start (its own incumbents and bound only).

Run: OPTREES_DATA=/work/shared/datasets PYTHONPATH=$PWD python bench/robust_mip.py
[--sets monk1,...] [--lambdas 0.95,0.9] [--depth 2] [--time 60] [--cold]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from robust_trees import load
from sklearn.model_selection import train_test_split

from optrees import RobustTreeClassifier
from optrees.robust import mip
from optrees.robust.adversary import costs_from_probabilities


def fit(method: str, depth: int, budget: float, seconds: float, X: np.ndarray,
        y: np.ndarray, costs: np.ndarray) -> tuple[RobustTreeClassifier, float]:
    t0 = time.perf_counter()
    m = RobustTreeClassifier(depth=depth, budget=budget, method=method,
                             time_limit=seconds).fit(X, y, costs)
    return m, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="monk1,monk2,monk3,hayes-roth")
    ap.add_argument("--lambdas", default="0.95,0.9")
    ap.add_argument("--depth", type=int, default=2)
    ap.add_argument("--time", type=float, default=60.0)
    ap.add_argument("--cold", action="store_true")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    print("set rows depth lambda budget | search: status obj secs | mip: status obj bound "
          "gap secs nodes cuts | mip/search secs" + (" | cold mip: status obj bound secs"
                                                      if args.cold else ""))
    for name in args.sets.split(","):
        X, y = load(name)
        Xtr, _, ytr, _ = train_test_split(X, y, test_size=0.25, random_state=2)
        q = np.clip(np.random.default_rng(42).normal(0.9, 0.1, X.shape[1]), 1e-6, 1.0)
        for lam in map(float, args.lambdas.split(",")):
            costs, budget = costs_from_probabilities(np.tile(q, (len(ytr), 1)), len(ytr), lam)
            s, s_secs = fit("search", args.depth, budget, args.time, Xtr, ytr, costs)
            m, m_secs = fit("mip", args.depth, budget, args.time, Xtr, ytr, costs)
            cuts = m.stats_["scenario_cuts"] + m.stats_["row_cuts"]
            line = (f"{name} {len(ytr)} {args.depth} {lam} {budget:.1f} | {s.status_} "
                    f"{s.objective_:.4f} {s_secs:.2f} | {m.status_} {m.objective_:.4f} "
                    f"{m.bound_:.4f} {m.gap_:.3f} {m_secs:.1f} {m.stats_['nodes']} {cuts} | "
                    f"{m_secs / max(s_secs, 1e-3):.0f}x")
            if args.cold:
                warm, mip.WARM_SHARE = mip.WARM_SHARE, 0.0
                try:
                    c, c_secs = fit("mip", args.depth, budget, args.time, Xtr, ytr, costs)
                finally:
                    mip.WARM_SHARE = warm
                line += (f" | {c.status_} {c.objective_:.4f} {c.bound_:.4f} {c_secs:.1f}")
            print(line, flush=True)


if __name__ == "__main__":
    main()
