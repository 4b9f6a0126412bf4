"""The fair Rashomon set (issue #46, item 3) on compas and adult: sizes, time, memory, and
every member checked from its predictions.

No peer builds a Rashomon set under a fairness cap, so the checks are from the
definitions: for each member (all of them, or a sample of 2,000), its predictions on the
training rows give (in plain numpy, not through the package) its objective
(misclassification rate + lam * leaves) and its statistical parity gap (the largest
difference between the groups' rates of positive predictions); both must be within the
bound and the cap.  Beside: the unconstrained set's size at the same bound, and how many
tree structures the Lagrangian relaxation left to check.

Data: the 0/1 tables of ``bench/fair_trees.py`` (compas: 3,518 rows, sensitive "Race";
adult: pystreed's binarization, ``--adult-rows`` rows drawn with seed 0, sensitive
"Sex=Male"), the sensitive column kept out of the trees.

Usage: PYTHONPATH=$PWD python bench/rashomon_fair.py [--datasets compas,adult]
       [--depths 2,3] [--lams 0.01,0.005] [--caps 0.05,0.02] [--eps 0.01,0.02,0.05]
       [--adult-rows 5000] [--time-limit 120]
Prints one line per case: fit seconds and fair optimum, the set's size, structures checked,
seconds, peak memory of the process so far, the unconstrained set's size at the same bound,
and the members' largest gap and objective recomputed from their predictions.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
sys.path.insert(0, str(Path(__file__).resolve().parent))
from fair_trees import load  # noqa: E402

from optrees import BendOCTClassifier  # noqa: E402
from optrees.bench.scripts import checkout_data_dir  # noqa: E402
from optrees.trees.solve.rashomon import RashomonSetTooLarge  # noqa: E402


def gap_and_objective(tree, X01: np.ndarray, y: np.ndarray, g: np.ndarray,
                      lam: float) -> tuple[float, float]:
    """Statistical parity gap and objective of a member, from its predictions."""
    pred = tree.predict(X01)
    rates = [np.mean(pred[g == a] == 1) for a in np.unique(g)]
    return max(rates) - min(rates), float(np.mean(pred != y) + lam * tree.n_leaves)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default="compas,adult")
    ap.add_argument("--depths", default="2,3")
    ap.add_argument("--lams", default="0.01,0.005")
    ap.add_argument("--caps", default="0.05,0.02")
    ap.add_argument("--eps", default="0.01,0.02,0.05")
    ap.add_argument("--adult-rows", type=int, default=5000)
    ap.add_argument("--time-limit", type=float, default=120.0)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    data = checkout_data_dir(__file__)
    print(f"{'data':7} {'d':>1} {'lam':>6} {'cap':>5} {'eps':>5} {'fit s':>6} {'optimum':>8} "
          f"{'trees':>7} {'checked':>9} {'set s':>7} {'MB':>6} {'plain set':>10} "
          f"{'max gap':>8} {'max obj':>8} ok")
    for name in args.datasets.split(","):
        X, y, sens = load(name, data)
        if name == "adult" and args.adult_rows < len(y):
            rows = np.random.default_rng(0).choice(len(y), args.adult_rows, replace=False)
            X, y = X.iloc[rows].reset_index(drop=True), y[rows]
        g = X[sens].to_numpy()
        X01 = X.drop(columns=[sens]).to_numpy()
        for depth in map(int, args.depths.split(",")):
            for lam in map(float, args.lams.split(",")):
                for cap in map(float, args.caps.split(",")):
                    est = BendOCTClassifier(depth=depth, lam=lam, fairness="statistical_parity",
                                            epsilon=cap, sensitive=sens, drop_sensitive=True,
                                            positive_class=1, time_limit=args.time_limit)
                    t0 = time.perf_counter()
                    est.fit(X, y)
                    fit_s = time.perf_counter() - t0
                    for eps in map(float, args.eps.split(",")):
                        head = (f"{name:7} {depth:1d} {lam:6g} {cap:5g} {eps:5g} {fit_s:6.2f} "
                                f"{1 - est.objective_:8.5f}")
                        if est.status_ != "optimal":
                            print(f"{head} fit not proved ({est.status_})")
                            continue
                        t0 = time.perf_counter()
                        try:
                            rs = est.rashomon(eps)
                        except RashomonSetTooLarge as exc:
                            print(f"{head} too large: {str(exc)[:90]}")
                            continue
                        set_s = time.perf_counter() - t0
                        mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3
                        plain = _plain(X01, y, depth, lam, rs.bound)
                        pick = range(len(rs)) if len(rs) <= 2000 else \
                            random.Random(0).sample(range(len(rs)), 2000)
                        checked = [gap_and_objective(rs[i], X01, y, g, lam) for i in pick]
                        gap = max(c[0] for c in checked)
                        obj = max(c[1] for c in checked)
                        ok = gap <= cap + 1e-6 and obj <= rs.bound + 1e-9
                        print(f"{head} {len(rs):7d} {rs.n_structures:9d} {set_s:7.2f} "
                              f"{mb:6.0f} {plain:10d} {gap:8.5f} {obj:8.5f} "
                              f"{'yes' if ok else 'NO'}", flush=True)
    return 0


def _plain(X01: np.ndarray, y: np.ndarray, depth: int, lam: float, bound: float) -> int:
    """Size of the unconstrained set (heaviest-class leaves) under the same bound."""
    from optrees.trees.search.rashomon.build import Builder, Scale

    w = np.ones(len(y))
    scale = Scale.make(w, lam, depth)
    builder = Builder(X01, y, w, 2, scale, 1, 200_000)
    builder.listing = False
    return builder.node(np.ones(len(y), dtype=bool), depth, scale.bound_key(bound)).count()


if __name__ == "__main__":
    raise SystemExit(main())
