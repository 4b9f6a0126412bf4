"""Trees with linear (ridge) leaves: OptimalTreeRegressor(leaf_model="linear") side by side
with pystreed's STreeDPiecewiseLinearRegressor, CART and our constant-leaf tree of the same
depth, in one run (issue #43, item 4).

Both linear-leaf trees split numeric columns at 5 quantile thresholds (pystreed's
``n_thresholds=5`` with its own quantiles; ours: weighted quantiles, every threshold of a
column with <= 6 values: the split sets can differ)
and fit each leaf's ridge model on every column; pystreed raises its min leaf to 5 rows per
regressor, so every method here gets that min leaf.  pystreed's ridge penalty is scaled its
own way, so its tree is also read as a partition of the training rows and scored in our
objective (each leaf's ridge fit by its closed form, here in numpy): "theirs/ours" >= 1
where we prove the optimum.

Data: as bench/regression_trees.py (diabetes; bupa, glass, student from $OPTREES_DATA);
``synthetic<n>``: n rows of 8 normal columns, y piecewise linear (``--datasets
synthetic5000,synthetic20000`` for larger data). Each data set split 70/30 per seed; the
fits see the 70 %.

Usage: PYTHONPATH=$PWD python bench/linear_leaves.py [--depths 2,3] [--seeds 0,1]
       [--time-limit 60] [--ridge 1.0] [--datasets diabetes,bupa,glass,student]
Prints per data set, depth and seed: our status; the training objective (ours, pystreed's
tree in our objective, their ratio); training MSE (ours, theirs); test R2 of ours,
pystreed's, CART's and the constant-leaf tree's; fit seconds (ours, theirs, ratio); whether
pystreed proved its tree.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
sys.path.insert(0, str(Path(__file__).resolve().parent))
from regression_trees import datasets  # noqa: E402

from optrees import OptimalTreeRegressor  # noqa: E402


def synthetic(n: int, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """``n`` rows of 8 normal columns, y piecewise linear in four of them plus noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 8))
    y = np.where(X[:, 0] > 0, 2 * X[:, 1], -X[:, 2]) + 0.5 * X[:, 3] * (X[:, 4] > 0.5) \
        + rng.normal(0, 0.3, n)
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(8)]), y


def load(names: list[str]) -> dict[str, tuple[pd.DataFrame, np.ndarray]]:
    """The named data sets; ``synthetic<n>``: :func:`synthetic` with ``n`` rows."""
    out = datasets([n for n in names if not n.startswith("synthetic")])
    out.update({n: synthetic(int(n[len("synthetic"):])) for n in names
                if n.startswith("synthetic")})
    return out


def objective_of_partition(leaf: np.ndarray, Z: np.ndarray, y: np.ndarray,
                           ridge: float) -> float:
    """Our objective (lam 0) of the leaves ``leaf`` of the rows: each leaf's
    ``min sum (y - b0 - z'b)^2 + ridge |b|^2`` on the standardised columns ``Z``, summed,
    over ``n var(y)``."""
    total = 0.0
    for k in np.unique(leaf):
        rows = leaf == k
        A = np.hstack([np.ones((rows.sum(), 1)), Z[rows]])
        D = np.eye(A.shape[1])
        D[0, 0] = 0.0
        b = np.linalg.lstsq(A.T @ A + ridge * D, A.T @ y[rows], rcond=None)[0]
        total += float(((y[rows] - A @ b) ** 2).sum() + ridge * b[1:] @ b[1:])
    return total / (len(y) * y.var())


def streed_leaves(model: object, X: np.ndarray) -> np.ndarray:
    """The leaf of pystreed's tree each row reaches (its binarizer, then ``x_f = 0`` left)."""
    Xb = model.binarizer_.transform(X)
    leaf = np.zeros(len(X), dtype=np.int64)

    def walk(node: object, rows: np.ndarray, label: list[int]) -> None:
        if node.is_leaf_node():
            leaf[rows] = label[0]
            label[0] += 1
            return
        go_left = Xb[rows, node.feature] == 0
        walk(node.left_child, rows[go_left], label)
        walk(node.right_child, rows[~go_left], label)

    walk(model.tree_, np.arange(len(X)), [0])
    return leaf


def r2(y: np.ndarray, pred: np.ndarray) -> float:
    return float(1 - ((y - pred) ** 2).sum() / ((y - y.mean()) ** 2).sum())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--datasets", default="diabetes,bupa,glass,student")
    ap.add_argument("--depths", default="2,3")
    ap.add_argument("--seeds", default="0,1")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--ridge", type=float, default=1.0)
    args = ap.parse_args()
    from pystreed import STreeDPiecewiseLinearRegressor
    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeRegressor

    print(f"{'data':9} {'rows':>5} {'d':>2} {'seed':>4} {'status':10} {'obj ours':>9} "
          f"{'theirs':>9} {'th/ours':>7} {'mse ours':>9} {'theirs':>9} {'R2 ours':>8} "
          f"{'STreeD':>7} {'CART':>7} {'const':>7} {'s ours':>7} {'STreeD':>7} {'t/th':>6} "
          f"{'th proved':>9}")
    for name, (X, y) in load(args.datasets.split(",")).items():
        Xf = X.to_numpy(float)
        min_leaf = 5 * Xf.shape[1]
        for depth in (int(d) for d in args.depths.split(",")):
            for seed in (int(s) for s in args.seeds.split(",")):
                tr, te = train_test_split(np.arange(len(y)), test_size=0.3,
                                          random_state=seed)
                t0 = time.perf_counter()
                ours = OptimalTreeRegressor(
                    depth=depth, leaf_model="linear", leaf_ridge=args.ridge,
                    min_samples_leaf=min_leaf, time_limit=args.time_limit).fit(X.iloc[tr],
                                                                               y[tr])
                ours_s = time.perf_counter() - t0
                t0 = time.perf_counter()
                theirs = STreeDPiecewiseLinearRegressor(
                    max_depth=depth, cost_complexity=0.0, ridge_penalty=args.ridge,
                    time_limit=args.time_limit, n_thresholds=5).fit(
                        Xf[tr], y[tr], continuous_columns=Xf[tr])
                theirs_s = time.perf_counter() - t0
                sd = Xf[tr].std(axis=0)
                keep = sd > 0
                Z = (Xf[tr][:, keep] - Xf[tr][:, keep].mean(axis=0)) / sd[keep]
                theirs_obj = objective_of_partition(streed_leaves(theirs, Xf[tr]), Z, y[tr],
                                                    args.ridge)
                cart = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=min_leaf,
                                             random_state=0).fit(Xf[tr], y[tr])
                const = OptimalTreeRegressor(depth=depth, min_samples_leaf=min_leaf,
                                             time_limit=args.time_limit).fit(X.iloc[tr],
                                                                             y[tr])
                mse_ours = float(((ours.predict(X.iloc[tr]) - y[tr]) ** 2).mean())
                mse_theirs = float(((theirs.predict(Xf[tr], continuous_columns=Xf[tr])
                                     - y[tr]) ** 2).mean())
                print(f"{name:9} {len(tr):5d} {depth:2d} {seed:4d} {ours.status_:10} "
                      f"{ours.objective_:9.5f} {theirs_obj:9.5f} "
                      f"{theirs_obj / ours.objective_:7.3f} {mse_ours:9.4g} "
                      f"{mse_theirs:9.4g} {r2(y[te], ours.predict(X.iloc[te])):8.3f} "
                      f"{r2(y[te], theirs.predict(Xf[te], continuous_columns=Xf[te])):7.3f} "
                      f"{r2(y[te], cart.predict(Xf[te])):7.3f} "
                      f"{r2(y[te], const.predict(X.iloc[te])):7.3f} {ours_s:7.2f} "
                      f"{theirs_s:7.2f} {ours_s / theirs_s:6.2f} "
                      f"{str(theirs.fit_result.is_optimal()):>9}", flush=True)


if __name__ == "__main__":
    import warnings

    warnings.simplefilter("ignore")  # the time-limit warnings: the status column says it
    main()
