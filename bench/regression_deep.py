"""Deep regression trees (depths 5-8, issue #43): OptimalTreeRegressor's stacked tree beside
CART of the same depth on the raw columns and pystreed's STreeDRegressor on the same 0/1
tests the stacked tree splits on, in one run.

Per data set, depth and λ: the training objective ``SSE / (W var y) + λ leaves`` of each
tree (computed here from its predictions), ours / CART and ours / STreeD, leaves, seconds,
our status and gap, and STreeD's (optimal over those tests, or stopped at the time limit:
then its tree is its best found).  STreeD gets the 0/1 matrix of our own binarization
(``regression_deep.deep_features``: 15 weighted quantile thresholds a column and CART's),
so where it proves, its objective is the optimum the stacked tree approximates.

Usage: OPTREES_DATA=../shared/datasets PYTHONPATH=$PWD python bench/regression_deep.py
       [--datasets diabetes,glass,...] [--depths 5,6,7,8] [--lams 0,0.001] [--time-limit 30]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.tree import DecisionTreeRegressor

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.regression_test_r2 import ALL, MORE, load  # noqa: E402
from optrees import OptimalTreeRegressor  # noqa: E402
from optrees.bench.scripts import checkout_data_dir  # noqa: E402
from optrees.trees.solve.regression_deep import deep_features  # noqa: E402


def objective(y: np.ndarray, predicted: np.ndarray, leaves: int, lam: float) -> float:
    """``SSE / (n var y) + lam * leaves`` (unit weights)."""
    return float(np.sum((y - predicted) ** 2) / (len(y) * np.var(y)) + lam * leaves)


def timed(model, X, y):
    """``model`` fitted on ``X``, ``y`` and the seconds it took (warnings silenced)."""
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    return model, time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", default=f"{ALL},{MORE}")
    ap.add_argument("--depths", default="5,6,7,8")
    ap.add_argument("--lams", default="0,0.001")
    ap.add_argument("--time-limit", type=float, default=30.0)
    args = ap.parse_args(argv)
    checkout_data_dir(__file__)
    from pystreed import STreeDRegressor

    warm = np.random.default_rng(0)
    OptimalTreeRegressor(depth=5, time_limit=60).fit(warm.integers(0, 2, (60, 6)),
                                                     warm.normal(size=60))
    print(f"{'data':15} {'n':>5} {'F01':>4} {'d':>2} {'lam':>6} {'ours':>8} {'CART':>8} "
          f"{'STreeD':>8} {'o/CART':>7} {'o/STreeD':>8} {'leaves o/C/S':>14} "
          f"{'s ours':>7} {'s CART':>7} {'s STreeD':>8} {'status ours':>11} {'gap':>6} "
          f"{'STreeD':>10}")
    ratios: dict[str, list[float]] = {"cart": [], "streed": [], "streed_proved": []}
    for name in args.datasets.split(","):
        loaded = load(name)
        if loaded is None:
            print(f"{name}: data not found, skipped")
            continue
        X, y = loaded
        y = np.asarray(y, dtype=float)
        for depth in (int(d) for d in args.depths.split(",")):
            for lam in (float(v) for v in args.lams.split(",")):
                ours, s_ours = timed(OptimalTreeRegressor(
                    depth=depth, lam=lam, time_limit=args.time_limit, random_state=0), X, y)
                Xf = ours.encoder_.transform(X)
                cart, s_cart = timed(DecisionTreeRegressor(max_depth=depth, random_state=0),
                                     Xf, y)
                cart_tree = _cart_tree(cart)
                B, *_ = deep_features(Xf, np.ones(len(y)), cart_tree, 1)
                Bi = B.astype(np.intc)
                streed, s_streed = timed(STreeDRegressor(
                    max_depth=depth, cost_complexity=lam, time_limit=args.time_limit), Bi, y)
                proved = streed.fit_result.is_optimal()
                o = objective(y, ours.predict(X), ours.tree_.n_leaves, lam)
                c = objective(y, cart.predict(Xf), cart.get_n_leaves(), lam)
                s = objective(y, streed.predict(Bi), streed.get_n_leaves(), lam)
                ratios["cart"].append(o / c)
                ratios["streed"].append(o / s)
                if proved:
                    ratios["streed_proved"].append(o / s)
                print(f"{name:15} {len(y):5d} {B.shape[1]:4d} {depth:2d} {lam:6g} {o:8.4f} "
                      f"{c:8.4f} {s:8.4f} {o / c:7.3f} {o / s:8.3f} "
                      f"{ours.tree_.n_leaves:4d}/{cart.get_n_leaves():4d}/"
                      f"{streed.get_n_leaves():4d} {s_ours:7.2f} {s_cart:7.2f} "
                      f"{s_streed:8.2f} {ours.status_:>11} {ours.gap_:6.3f} "
                      f"{'optimal' if proved else 'time_limit':>10}", flush=True)
    for key, values in ratios.items():
        if values:
            v = np.asarray(values)
            print(f"ours / {key}: median {np.median(v):.3f}, max {v.max():.3f}, "
                  f"<= 1 on {int(np.sum(v <= 1 + 1e-9))} of {len(v)}")
    return 0


def _cart_tree(cart: DecisionTreeRegressor):
    """scikit-learn's tree as nested ``(feature, threshold, left, right)`` tuples."""
    t = cart.tree_

    def node(k: int):
        if t.children_left[k] < 0:
            return None
        return (int(t.feature[k]), float(t.threshold[k]), node(t.children_left[k]),
                node(t.children_right[k]))

    return node(0)


if __name__ == "__main__":
    sys.exit(main())
