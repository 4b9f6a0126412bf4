"""Robust trees (issue #46): RobustTreeClassifier on integer-coded public data, depths 2-3,
three budgets, against CART and BendOCT on test data perturbed by the paper's protocol.

Protocol (Justin et al.; ODTlearn's RobustOCT notebook): q_f ~ N(0.9, 0.1) clipped to
(0, 1] per feature (seed 42) is the probability that feature f is not shifted; costs
-log(1 - q_f), budget -n log(lambda) for lambda in LAMBDAS. Test rows (25 %, split seed 2)
are shifted by a symmetric geometric amount (geometric(q_f) - 1, random sign) in each of
DRAWS draws; we report the mean and the lowest accuracy over draws, and our tree's
certified worst case on the test rows at the test budget -n_test log(lambda).

Run: OPTREES_DATA=/work/shared/datasets PYTHONPATH=$PWD python bench/robust_trees.py
[--sets monk1,...] [--depths 2,3] [--time 60]
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

from optrees import BendOCTClassifier, RobustTreeClassifier
from optrees.robust.adversary import costs_from_probabilities

LAMBDAS = (0.99, 0.95, 0.9)
DRAWS = 200
DATA = os.environ.get("OPTREES_DATA", "/work/shared/datasets")


def _semicolon(name: str) -> tuple[np.ndarray, np.ndarray]:
    df = pd.read_csv(os.path.join(DATA, name), sep=";", encoding="utf-8-sig")
    return df.iloc[:, :-1].to_numpy(np.int64), df.iloc[:, -1].to_numpy()


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Integer features and labels of one data set (categories as ordinal integers)."""
    if name.startswith("monk"):
        return _semicolon(f"{name}.csv")
    if name == "car":
        return _semicolon("car-evaluation.csv")
    if name == "balance-scale":
        df = pd.read_csv(os.path.join(DATA, "balance-scale.data"), header=None)
        return df.iloc[:, 1:].to_numpy(np.int64), df.iloc[:, 0].to_numpy()
    if name == "tic-tac-toe":  # o < blank < x, the order of the board's owner
        df = pd.read_csv(os.path.join(DATA, "tic-tac-toe.data"), header=None)
        code = {"o": 0, "b": 1, "x": 2}
        return df.iloc[:, :-1].map(code.get).to_numpy(np.int64), df.iloc[:, -1].to_numpy()
    if name == "hayes-roth":  # column 0 is a name, not a feature
        df = pd.read_csv(os.path.join(DATA, "hayes-roth.data"), header=None)
        return df.iloc[:, 1:-1].to_numpy(np.int64), df.iloc[:, -1].to_numpy()
    raise KeyError(name)


def perturb(X: np.ndarray, q: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The paper's test shift: symmetric geometric amounts, geometric(q_f) - 1."""
    steps = rng.geometric(q[None, :], size=X.shape) - 1
    signs = 2 * rng.integers(0, 2, size=X.shape) - 1
    return X + steps * signs


def shifted_accuracy(model, X: np.ndarray, y: np.ndarray, q: np.ndarray) -> tuple[float, float]:
    rng = np.random.default_rng(1)
    accs = [float((model.predict(perturb(X, q, rng)) == y).mean()) for _ in range(DRAWS)]
    return float(np.mean(accs)), float(np.min(accs))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="monk1,monk2,monk3,balance-scale,car,tic-tac-toe,"
                    "hayes-roth")
    ap.add_argument("--depths", default="2,3")
    ap.add_argument("--time", type=float, default=60.0)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    print("set rows feats depth lambda budget | status gap secs | train_wc test_wc | "
          "shifted test mean/min: robust CART BendOCT")
    for name in args.sets.split(","):
        X, y = load(name)
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=2)
        rng = np.random.default_rng(42)
        q = np.clip(rng.normal(0.9, 0.1, X.shape[1]), 1e-6, 1.0)
        for depth in map(int, args.depths.split(",")):
            cart = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(Xtr, ytr)
            bend = BendOCTClassifier(depth=depth, time_limit=args.time).fit(Xtr, ytr)
            c_mean, c_min = shifted_accuracy(cart, Xte, yte, q)
            b_mean, b_min = shifted_accuracy(bend, Xte, yte, q)
            for lam in LAMBDAS:
                costs, budget = costs_from_probabilities(np.tile(q, (len(ytr), 1)),
                                                         len(ytr), lam)
                t0 = time.perf_counter()
                try:
                    rob = RobustTreeClassifier(depth=depth, budget=budget,
                                               time_limit=args.time).fit(Xtr, ytr, costs)
                except ValueError as exc:
                    print(f"{name} d{depth} lambda {lam}: refused: {exc}")
                    continue
                secs = time.perf_counter() - t0
                test_costs, test_budget = costs_from_probabilities(
                    np.tile(q, (len(yte), 1)), len(yte), lam)
                wc = rob.worst_case_accuracy(Xte, yte, test_costs, test_budget)
                r_mean, r_min = shifted_accuracy(rob, Xte, yte, q)
                print(f"{name} {len(ytr)} {X.shape[1]} {depth} {lam} {budget:.1f} | "
                      f"{rob.status_} {rob.gap_:.3f} {secs:.1f} | "
                      f"{rob.worst_case_accuracy_:.3f} {wc:.3f} | "
                      f"{r_mean:.3f}/{r_min:.3f} {c_mean:.3f}/{c_min:.3f} "
                      f"{b_mean:.3f}/{b_min:.3f}", flush=True)


if __name__ == "__main__":
    main()
