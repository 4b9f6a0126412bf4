"""Optimal survival trees (OptimalSurvivalTree) side by side with pystreed's
STreeDSurvivalAnalysis (the same leaf loss) and scikit-survival's greedy SurvivalTree, in
one run (issue #45).

Part 1, 0/1 data (pystreed's input): the numeric columns of scikit-survival's whas500, gbsg2
and veterans data, each cut at its 20/40/60/80 % quantiles into 0/1 columns ``x <= q``, and
a synthetic set; every fit on all rows.  Prints the training loss of both (equal when both
prove optimality) and the fit times (best of ``--repeat``: the first fit of a process also
imports numba and loads the compiled kernels).  pystreed's training baseline gives a row the
hazard of an event time up to 1e-6 above its own time, so on continuous times with
near-ties (the synthetic set) its reported loss differs slightly from the same partition's
loss here.
Part 2, held-out C-index and integrated Brier score at ``--test-depths`` (``--splits``
random 70/30 splits): ours over every threshold of the raw numeric columns, pystreed on the
quantile 0/1 columns (C-index only: it predicts no survival curve), and scikit-survival's
greedy SurvivalTree of the same depth; mean and standard error.  The Brier score is
scikit-survival's ``integrated_brier_score`` over 20 times between the 10th and 80th
percentiles of the test times (lower is better).

``--select``: each method picks one of its 8 settings (:data:`GRIDS`: ours λ and leaf size,
pystreed's leaf size and branch-node count, SurvivalTree's leaf size) by the C-index on a
validation quarter of the training rows, then refits on all of them.

Usage: PYTHONPATH=$PWD python bench/survival_trees.py [--depths 2,3] [--splits 10]
       [--test-depths 2,3] [--time-limit 60] [--repeat 3] [--select] [--no-part1]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import OptimalSurvivalTree  # noqa: E402
from optrees.estimators.survival import concordance_index  # noqa: E402


def survival_sets() -> dict[str, tuple[pd.DataFrame, np.ndarray]]:
    """Numeric columns and structured targets of scikit-survival's bundled data, and a
    synthetic set (exponential times, hazard from two columns, uniform censoring)."""
    from sksurv import datasets

    out = {}
    for name in ("whas500", "gbsg2", "veterans_lung_cancer"):
        X, y = getattr(datasets, f"load_{name}")()
        names = y.dtype.names
        out[name] = X.select_dtypes("number"), np.array(
            list(zip(y[names[0]], y[names[1]], strict=True)),
            dtype=[("event", "?"), ("time", "f8")])
    rng = np.random.default_rng(0)
    n = 1000
    X = pd.DataFrame(rng.random((n, 6)), columns=[f"s{j}" for j in range(6)])
    hazard = np.exp(1.5 * (X["s0"] > 0.5) - (X["s1"] > 0.3) * (X["s2"] > 0.6))
    event_time = rng.exponential(1 / hazard)
    censor = rng.uniform(0, 3, n)
    out["synthetic"] = X, np.array(list(zip(event_time <= censor,
                                            np.minimum(event_time, censor), strict=True)),
                                   dtype=[("event", "?"), ("time", "f8")])
    return out


def quantile_bits(train: pd.DataFrame, other: pd.DataFrame | None = None
                  ) -> tuple[np.ndarray, np.ndarray | None]:
    """0/1 columns ``x <= q`` at the training quantiles 20/40/60/80 % (distinct cuts that
    split the training rows) of every column, for the training and another frame."""
    cols, other_cols = [], []
    for c in train.columns:
        v = train[c].to_numpy(float)
        for q in np.unique(np.quantile(v, [0.2, 0.4, 0.6, 0.8])):
            if (v <= q).all():
                continue
            cols.append(v <= q)
            if other is not None:
                other_cols.append(other[c].to_numpy(float) <= q)
    bits = np.column_stack(cols).astype(int)
    return bits, None if other is None else np.column_stack(other_cols).astype(int)


def pystreed_solver():
    """STreeDSurvivalAnalysis with its numpy-2 fix (its Nelson–Aalen indexes a list by a
    numpy bool), or None when not installed."""
    try:
        from pystreed import STreeDSurvivalAnalysis
    except ImportError:
        return None
    original = STreeDSurvivalAnalysis._compute_baseline_cumulative_hazard_function

    def fixed(self, events, times):
        return original(self, [int(e) for e in events], times)

    STreeDSurvivalAnalysis._compute_baseline_cumulative_hazard_function = fixed
    return STreeDSurvivalAnalysis


def best_time(estimator, params: dict, X, y, repeat: int):
    """``estimator(**params)`` fitted on ``X, y``, and its least fit time over ``repeat``
    fits."""
    best, out = np.inf, None
    for _ in range(max(repeat, 1)):
        t0 = time.perf_counter()
        out = estimator(**params).fit(X, y)
        best = min(best, time.perf_counter() - t0)
    return out, best


def part1(sets, depths: list[int], time_limit: float, repeat: int = 1) -> None:
    solver = pystreed_solver()
    print("# part 1: 0/1 columns, all rows; loss = STreeD's training loss")
    print(f"{'data':22s} {'n x F':>9s} d  {'status':8s} {'our loss':>10s} {'pystreed':>10s}"
          f" {'ours s':>7s} {'peer s':>7s} {'time ratio':>10s}")
    for name, (X, y) in sets.items():
        bits, _ = quantile_bits(X)
        for depth in depths:
            ours, our_s = best_time(OptimalSurvivalTree,
                                    {"depth": depth, "time_limit": time_limit}, bits, y,
                                    repeat)
            peer_loss = peer_s = np.nan
            if solver is not None:
                peer, peer_s = best_time(solver, {"max_depth": depth, "time_limit": time_limit},
                                         bits, y, repeat)
                peer_loss = peer.fit_result.score() * len(y)
            print(f"{name:22s} {f'{bits.shape[0]}x{bits.shape[1]}':>9s} {depth}  "
                  f"{ours.status_:8s} {ours.stats_['loss']:10.4f} {peer_loss:10.4f} "
                  f"{our_s:7.3f} {peer_s:7.3f} {our_s / peer_s:10.2f}", flush=True)


def _brier(ya, yb, curves) -> float:
    """scikit-survival's integrated Brier score of ``curves(times)`` (rows x times) on the
    test rows, at 20 times between the 10th and 80th percentiles of their times; test rows
    past the last training time are left out (the censoring estimate ends there)."""
    from sksurv.metrics import integrated_brier_score

    kept = yb["time"] < ya["time"].max()
    times = np.unique(np.percentile(yb["time"][kept], np.linspace(10, 80, 20)))
    times = times[(times > ya["time"].min()) & (times < ya["time"].max())]
    return float(integrated_brier_score(ya, yb[kept], curves(times)[kept], times))


def _cell(v: list[float]) -> str:
    if not v:
        return "-"
    a = np.asarray(v)
    return f"{a.mean():.3f} +- {a.std(ddof=1) / np.sqrt(len(a)):.3f}"


GRIDS = {"ours": [{"lam": lam, "min_samples_leaf": m} for lam in (0.0, 0.005, 0.01, 0.03)
                  for m in (1, 10)],
         "pystreed": [{"min_leaf_node_size": m, "max_num_nodes": k} for m in (1, 10)
                      for k in (1, 3, 5, 7)],
         "greedy": [{"min_samples_leaf": m} for m in (1, 3, 5, 10, 15, 20, 30, 50)]}
"""``--select``: each method's 8 settings, one chosen per split by the C-index on a validation
quarter of the training rows, then refitted on all of them."""


def chosen(fit, score, grid: list[dict], Xa, ya, seed: int) -> dict:
    """The setting of ``grid`` whose model ``fit(params, X, y)`` has the best ``score(model,
    X, y)`` (C-index) on a random quarter of the training rows, fitted on the rest."""
    if len(grid) == 1:
        return grid[0]
    val = np.random.default_rng(1000 + seed).random(len(ya)) < 0.25
    Xf, Xv = (Xa[~val], Xa[val]) if isinstance(Xa, np.ndarray) else (Xa.loc[~val], Xa.loc[val])
    scores = [score(fit(params, Xf, ya[~val]), Xv, ya[val]) for params in grid]
    return grid[int(np.nanargmax(scores))]


def part2(sets, splits: int, depths: list[int], time_limit: float,
          select: bool = False) -> None:
    from pystreed.base import BaseSTreeDSolver
    from sksurv.tree import SurvivalTree

    solver = pystreed_solver()
    grids = GRIDS if select else {k: [{}] for k in GRIDS}

    def c_index(risk, y):
        return concordance_index(y["event"], y["time"], risk)

    fits = {"ours": lambda q, X, y, d, s: OptimalSurvivalTree(depth=d, time_limit=time_limit,
                                                              **q).fit(X, y),
            "pystreed": lambda q, X, y, d, s: solver(max_depth=d, time_limit=time_limit,
                                                     **q).fit(X, y),
            "greedy": lambda q, X, y, d, s: SurvivalTree(max_depth=d, random_state=s,
                                                         **q).fit(X, y)}
    risks = {"ours": lambda m, X: m.predict(X),
             "pystreed": lambda m, X: BaseSTreeDSolver.predict(m, X),
             "greedy": lambda m, X: m.predict(X)}

    def tuned(kind, X, y, Xt, depth, seed):
        q = chosen(lambda q, Xf, yf: fits[kind](q, Xf, yf, depth, seed),
                   lambda m, Xv, yv: c_index(risks[kind](m, Xv), yv), grids[kind], X, y, seed)
        return fits[kind](q, X, y, depth, seed)

    print(f"\n# part 2: test C-index (higher is better) and integrated Brier score (lower is "
          f"better), {splits} random 70/30 splits (mean +- s.e.)"
          + ("; settings chosen on a validation quarter (--select)" if select else ""))
    print(f"{'data':22s} d {'C ours':>15s} {'C pystreed 0/1':>15s} {'C SurvivalTree':>15s} "
          f"{'IBS ours':>15s} {'IBS SurvivalTree':>16s}")
    for name, (X, y) in sets.items():
        for depth in depths:
            scores: dict[str, list[float]] = {k: [] for k in ("ours", "pystreed", "greedy",
                                                               "ibs ours", "ibs greedy")}
            for seed in range(splits):
                rng = np.random.default_rng(seed)
                test = rng.random(len(y)) < 0.3
                Xa, Xb, ya, yb = X[~test], X[test], y[~test], y[test]
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ours = tuned("ours", Xa, ya, Xb, depth, seed)
                    scores["ours"].append(ours.score(Xb, yb))
                    scores["ibs ours"].append(_brier(
                        ya, yb, lambda t, m=ours, Z=Xb: m.predict_survival_function(Z, t)))
                    if solver is not None:
                        bits_a, bits_b = quantile_bits(Xa, Xb)
                        peer = tuned("pystreed", bits_a, ya, bits_b, depth, seed)
                        scores["pystreed"].append(c_index(risks["pystreed"](peer, bits_b), yb))
                    greedy = tuned("greedy", Xa, ya, Xb, depth, seed)
                    scores["greedy"].append(c_index(greedy.predict(Xb), yb))
                    scores["ibs greedy"].append(_brier(ya, yb, lambda t, m=greedy, Z=Xb: np.array(
                        [f(t) for f in m.predict_survival_function(Z)])))
            print(f"{name:22s} {depth} {_cell(scores['ours']):>15s} "
                  f"{_cell(scores['pystreed']):>15s} {_cell(scores['greedy']):>15s} "
                  f"{_cell(scores['ibs ours']):>15s} {_cell(scores['ibs greedy']):>16s}",
                  flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", default="2,3")
    parser.add_argument("--splits", type=int, default=10)
    parser.add_argument("--test-depths", default="2,3")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--select", action="store_true",
                        help="choose each method's setting on a validation quarter (GRIDS)")
    parser.add_argument("--no-part1", action="store_true")
    args = parser.parse_args()
    sets = survival_sets()
    if not args.no_part1:
        part1(sets, [int(d) for d in args.depths.split(",")], args.time_limit, args.repeat)
    if args.splits > 0:
        part2(sets, args.splits, [int(d) for d in args.test_depths.split(",")],
              args.time_limit, args.select)


if __name__ == "__main__":
    main()
