"""Robust trees (issue #46): RobustTreeClassifier on integer-coded public data, depths 2-3,
three budgets, against CART and BendOCT on test data perturbed by the paper's protocol.

Protocol (Justin et al.; ODTlearn's RobustOCT notebook): q_f ~ N(0.9, 0.1) clipped to
(0, 1] per feature (seed 42) is the probability that feature f is not shifted; costs
-log(1 - q_f), budget -n log(lambda) for lambda in LAMBDAS. Test rows (25 %, split seed 2)
are shifted by a symmetric geometric amount (geometric(q_f) - 1, random sign) in each of
DRAWS draws; we report the mean and the lowest accuracy over draws, and our tree's
certified worst case on the test rows at the test budget -n_test log(lambda).

Data: every categorical UCI set of the data directory (monk1-3, balance-scale, car,
tic-tac-toe, hayes-roth, breast-cancer, house-votes-84, soybean-small, spect, kr-vs-kp), coded
as integers: ordered categories by their order, bins by their lower end, other categories
alphabetically (an order the adversary's one-step shifts then follow); rows with "?" dropped.

Run: OPTREES_DATA=/work/shared/datasets PYTHONPATH=$PWD python bench/robust_trees.py
[--sets monk1,...] [--depths 2,3] [--time 60]
"""

from __future__ import annotations

import argparse
import os
import re
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
VOTES = {"n": 0, "y": 1}  # a vote; the rows with "?" are dropped
# the other categorical UCI sets of the data directory: label column, value order (None:
# numbers where the values start with one, else sorted)
CATEGORICAL = {"breast-cancer": (0, None), "house-votes-84": (0, VOTES),
               "soybean-small": (-1, None), "kr-vs-kp": (-1, None)}


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
    if name in CATEGORICAL:  # label column, then "?" rows dropped, then ordinal codes
        label, order = CATEGORICAL[name]
        df = pd.read_csv(os.path.join(DATA, f"{name}.data"), header=None, dtype=str)
        df = df[~(df == "?").any(axis=1)]
        y = df.pop(df.columns[label]).to_numpy()
        return np.column_stack([_codes(df[c], order) for c in df.columns]), y
    if name == "spect":  # 0/1 features, label first; the UCI train and test files together
        df = pd.concat([pd.read_csv(os.path.join(DATA, f"spect.{part}"), header=None)
                        for part in ("train", "test")])
        return df.iloc[:, 1:].to_numpy(np.int64), df.iloc[:, 0].to_numpy()
    raise KeyError(name)


def _codes(column: pd.Series, order: dict[str, int] | None) -> np.ndarray:
    """Integer codes of one categorical column: ``order`` where given, else the values' ranks,
    by their leading number where every value has one (bins ``10-14`` < ``15-19``: one step is
    one bin), else alphabetical."""
    values = sorted(column.unique())
    if order is not None and set(values) <= set(order):
        return column.map(order).to_numpy(np.int64)
    if all(re.match(r"-?\d+", v) for v in values):
        values = sorted(values, key=lambda v: int(re.match(r"-?\d+", v).group()))
    return column.map({v: k for k, v in enumerate(values)}).to_numpy(np.int64)


def perturb(X: np.ndarray, q: np.ndarray, rng: np.random.Generator, low: np.ndarray,
            high: np.ndarray) -> np.ndarray:
    """The paper's test shift: symmetric geometric amounts, geometric(q_f) - 1, kept within
    the training range ``low .. high`` (every model's thresholds lie within it, so a value
    past an end goes where the end goes: the same predictions, and a 0/1 column stays 0/1)."""
    steps = rng.geometric(q[None, :], size=X.shape) - 1
    signs = 2 * rng.integers(0, 2, size=X.shape) - 1
    return np.clip(X + steps * signs, low, high)


def shifted_accuracy(model, X: np.ndarray, y: np.ndarray, q: np.ndarray,
                     Xtr: np.ndarray) -> tuple[float, float]:
    rng = np.random.default_rng(1)
    low, high = Xtr.min(axis=0), Xtr.max(axis=0)
    accs = [float((model.predict(perturb(X, q, rng, low, high)) == y).mean())
            for _ in range(DRAWS)]
    return float(np.mean(accs)), float(np.min(accs))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", default="monk1,monk2,monk3,balance-scale,car,tic-tac-toe,"
                    "hayes-roth,breast-cancer,house-votes-84,soybean-small,spect,kr-vs-kp")
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
            c_mean, c_min = shifted_accuracy(cart, Xte, yte, q, Xtr)
            b_mean, b_min = shifted_accuracy(bend, Xte, yte, q, Xtr)
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
                r_mean, r_min = shifted_accuracy(rob, Xte, yte, q, Xtr)
                print(f"{name} {len(ytr)} {X.shape[1]} {depth} {lam} {budget:.1f} | "
                      f"{rob.status_} {rob.gap_:.3f} {secs:.1f} | "
                      f"{rob.worst_case_accuracy_:.3f} {wc:.3f} | "
                      f"{r_mean:.3f}/{r_min:.3f} {c_mean:.3f}/{c_min:.3f} "
                      f"{b_mean:.3f}/{b_min:.3f}", flush=True)


if __name__ == "__main__":
    main()
