"""optrees RUXClassifier vs ruleopt 1.2.1 RUXClassifier on the same fitted ensembles.

Usage:  PYTHONPATH=$PWD OPTREES_DATA=/work/shared/datasets python bench/rux_vs_ruleopt.py
        [--datasets cancer,wine,...] [--models rf,gb,lgbm,xgb] [--trees 100] [--depth 3]
        [--seeds 0,1]

Per data set, model and seed: one stratified 70/30 split, one ensemble fitted on the training
part, then both RUX fits on the same ensemble and rows, in the same run.  Settings that
correspond: ruleopt ``RUXClassifier(ens, solver=HiGHSSolver(), random_state=0)`` (Gini rule
cost, penalty 1 over the largest cost, interior point; rules with weight > 1e-6 of the
largest) and optrees ``RUXClassifier(ens)`` (Gini cost over the largest, ``pen_par`` 1,
``lp_method='auto'``: simplex for two classes, interior point for more; every rule of
positive weight).  Reported: test accuracy, rules, fit seconds, fidelity (test agreement with
the ensemble).  ruleopt reads only ``estimators_[:, 0]`` of a multi-class gradient boosting
model (class 0's trees); optrees reads every tree.  ``lgbm`` / ``xgb``: LightGBM and XGBoost
models (installed separately), read by ruleopt's ``RUXLGBMClassifier`` /
``RUXXGBClassifier`` (they are fitted on arrays: ruleopt's XGBoost reader wants features
named f0, f1, ...).  The data sets without OPTREES_DATA are scikit-learn's bundled ones;
categorical columns are one-hot encoded.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd
from sklearn import datasets as skd
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
from sklearn.model_selection import train_test_split

from optrees import RUXClassifier

SKLEARN = {"cancer": skd.load_breast_cancer, "wine": skd.load_wine, "iris": skd.load_iris,
           "digits": skd.load_digits}
SHARED = ("banknote", "ionosphere", "balance-scale", "tic-tac-toe", "spambase", "magic")


def load(name: str) -> tuple[pd.DataFrame, np.ndarray]:
    """X (numeric, categoricals one-hot) and y of a data set."""
    if name in SKLEARN:
        X, y = SKLEARN[name](return_X_y=True, as_frame=True)
        return X, y.to_numpy()
    from optrees.datasets import load_dataset

    X, y = load_dataset(name)
    X = pd.get_dummies(X, dtype=float) if any(X.dtypes == "category") else X.astype(float)
    return X, np.asarray(y)


def ensemble(kind: str, trees: int, depth: int, seed: int):
    """An unfitted ensemble: rf, gb (scikit-learn), lgbm (LightGBM), xgb (XGBoost)."""
    if kind == "rf":
        return RandomForestClassifier(trees, max_depth=depth, random_state=seed)
    if kind == "lgbm":
        from lightgbm import LGBMClassifier

        return LGBMClassifier(n_estimators=trees, max_depth=depth, random_state=seed,
                              verbose=-1)
    if kind == "xgb":
        from xgboost import XGBClassifier

        return XGBClassifier(n_estimators=trees, max_depth=depth, random_state=seed)
    return GradientBoostingClassifier(n_estimators=trees, max_depth=depth, random_state=seed)


def ruleopt_rux(kind: str):
    """ruleopt's RUX class for an ensemble kind (its LightGBM and XGBoost readers)."""
    import ruleopt

    return {"lgbm": ruleopt.RUXLGBMClassifier,
            "xgb": ruleopt.RUXXGBClassifier}.get(kind, ruleopt.RUXClassifier)


def run_one(name: str, kind: str, args: argparse.Namespace, seed: int) -> dict:
    from ruleopt.solver import HiGHSSolver

    X, y = load(name)
    _, y = np.unique(y, return_inverse=True)  # ruleopt wants labels 0..K-1
    Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.3, stratify=y, random_state=seed)
    # ruleopt's XGBoost reader takes features named f0, f1, ...: fit on arrays
    bare = kind in ("lgbm", "xgb")
    ens = ensemble(kind, args.trees, args.depth, seed).fit(Xa.to_numpy() if bare else Xa, ya)
    ens_pred = ens.predict(Xb.to_numpy() if bare else Xb)
    row = {"data": name, "model": kind, "seed": seed, "n": len(X), "K": len(np.unique(y)),
           "ens_acc": float(np.mean(ens_pred == yb))}
    Xa32, Xb32 = (np.array(Z.to_numpy(np.float32)) for Z in (Xa, Xb))  # writable
    t = time.perf_counter()
    ro = ruleopt_rux(kind)(ens, solver=HiGHSSolver(), random_state=0).fit(Xa32, ya)
    row["ro_s"] = time.perf_counter() - t
    pred = ro.predict(Xb32)
    row.update(ro_acc=float(np.mean(pred == yb)), ro_rules=len(ro.decision_rules_),
               ro_fid=float(np.mean(pred == ens_pred)))
    t = time.perf_counter()
    ot = RUXClassifier(ens, random_state=0, lp_method=args.lp_method,
                       rule_cost=args.rule_cost).fit(Xa, ya)
    row["ot_s"] = time.perf_counter() - t
    pred = ot.predict(Xb)
    row.update(ot_acc=float(np.mean(pred == yb)), ot_rules=len(ot.rules_),
               ot_fid=float(np.mean(pred == ens_pred)), ot_status=ot.status_)
    return row


def line(r: dict) -> str:
    """One fit: the ensemble, ruleopt and optrees side by side."""
    return (f"{r['data']:13s} {r['model']} s{r['seed']} n={r['n']:5d} K={r['K']:2d} ens "
            f"{r['ens_acc']:.4f} | ruleopt acc {r['ro_acc']:.4f} rules {r['ro_rules']:4d} "
            f"fid {r['ro_fid']:.3f} {r['ro_s']:6.2f}s | optrees acc {r['ot_acc']:.4f} rules "
            f"{r['ot_rules']:4d} fid {r['ot_fid']:.3f} {r['ot_s']:6.2f}s ({r['ot_status']}) "
            f"| time ratio {r['ot_s'] / r['ro_s']:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    have = list(SKLEARN) + (list(SHARED) if os.environ.get("OPTREES_DATA") else [])
    ap.add_argument("--datasets", default=",".join(have))
    ap.add_argument("--models", default="rf,gb")
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--seeds", default="0")
    ap.add_argument("--lp-method", default="auto", help="optrees' lp_method")
    ap.add_argument("--rule-cost", default="gini", help="optrees' rule_cost")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    rows = []
    for name in args.datasets.split(","):
        for kind in args.models.split(","):
            for seed in (int(s) for s in args.seeds.split(",")):
                r = run_one(name, kind, args, seed)
                rows.append(r)
                print(line(r), flush=True)
    df = pd.DataFrame(rows)
    for kind, part in df.groupby("model"):
        diff = 100 * (part.ot_acc - part.ro_acc).mean()
        print(f"\n{kind}: {len(part)} fits; mean test accuracy optrees {part.ot_acc.mean():.4f} "
              f"ruleopt {part.ro_acc.mean():.4f} (diff {diff:+.2f} points); mean rules "
              f"{part.ot_rules.mean():.1f} vs {part.ro_rules.mean():.1f}; "
              f"fidelity {part.ot_fid.mean():.3f} vs {part.ro_fid.mean():.3f}; total time "
              f"{part.ot_s.sum():.2f}s vs {part.ro_s.sum():.2f}s (ratio "
              f"{part.ot_s.sum() / part.ro_s.sum():.2f}; median per fit "
              f"{(part.ot_s / part.ro_s).median():.2f})")


if __name__ == "__main__":
    main()
