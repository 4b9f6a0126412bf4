"""RUX's ``bound_`` against the LP optimum over every leaf of the ensemble (issue #42).

Usage:  PYTHONPATH=$PWD OPTREES_DATA=/work/shared/datasets python bench/rux_bounds.py
        [--datasets adult,compas] [--limits none,1] [--trees 100] [--depth 5]

Per data set: a random forest fitted once (one-hot categoricals), then RUXClassifier on it
with fairness None / ODM / DMC (sensitive: adult's ``sex``, compas's ``Race``; eps 0.025) and
each time limit.  The reference is the master LP (3) with FairRUG's rows over *every* leaf of
the forest, built here from the forest's ``apply`` and solved by scipy's linprog (HiGHS).
Printed: status, objective_, bound_, gap_scope_, the reference optimum, and whether bound_ is
below it.  Run it with old and new code (PYTHONPATH) in one session to compare.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.optimize import linprog
from sklearn.ensemble import RandomForestClassifier

from optrees import RUXClassifier
from optrees.datasets import load_dataset

SENSITIVE = {"adult": "sex", "compas": "Race"}


def lp_optimum(forest: RandomForestClassifier, X: np.ndarray, y: np.ndarray, groups: np.ndarray,
               kind: str | None, eps: float, pen_par: float = 1.0) -> float:
    """(3) over every leaf of ``forest`` with Gini costs over the largest (RUX's default) and
    FairRUG's rows of ``kind``, from the definitions, by linprog."""
    K = int(y.max()) + 1
    leaf = forest.apply(X)  # n x trees
    # rows alike in leaves, label and group are one row of weight their count (same optimum)
    _, first, wt = np.unique(np.column_stack([leaf, y, groups]), axis=0, return_index=True,
                             return_counts=True)
    leaf, y, groups = leaf[first], y[first], groups[first]
    n = len(y)
    cols = []
    for t in range(leaf.shape[1]):
        _, idx = np.unique(leaf[:, t], return_inverse=True)
        cols.append(sp.csc_matrix((np.ones(n), (np.arange(n), idx.ravel()))))
    A = sp.hstack(cols, format="csc")  # n x leaves
    mass = np.asarray(A.T @ (np.eye(K)[y] * wt[:, None]))
    labels = mass.argmax(axis=1)
    p = mass / mass.sum(axis=1, keepdims=True)
    c = 1.0 - (p ** 2).sum(axis=1) + 1e-8
    c = pen_par * c / c.max()
    m = A.shape[1]
    Z = A.tocoo()
    ahat = sp.csr_matrix((np.where(y[Z.row] == labels[Z.col], 1.0, -1.0 / (K - 1)),
                          (Z.row, Z.col)), shape=A.shape)
    # variables (v, w): min 1'v + c'w, -(v + ahat w) <= -1, fairness rows F'v <= eps
    A_ub = [sp.hstack([-sp.identity(n), -ahat])]
    b_ub = [-np.ones(n)]
    families = []
    if kind == "odm":
        families = [[groups == g for g in np.unique(groups)]]
    elif kind == "dmc":
        families = [[(groups == g) & (y == k) for g in np.unique(groups)] for k in range(K)]
    for fam in families:
        for a in fam:
            for b in fam:
                if a is b:
                    continue
                row = a * wt / (a * wt).sum() - b * wt / (b * wt).sum()
                A_ub.append(sp.hstack([sp.csr_matrix(row[None, :]), sp.csr_matrix((1, m))]))
                b_ub.append(np.array([eps]))
    res = linprog(np.concatenate([wt.astype(float), c]), A_ub=sp.vstack(A_ub, format="csr"),
                  b_ub=np.concatenate(b_ub), bounds=(0, None), method="highs")
    return float(res.fun)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="adult,compas")
    ap.add_argument("--limits", default="none,1")
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--depth", type=int, default=5)
    ap.add_argument("--eps", type=float, default=0.025)
    args = ap.parse_args()
    for name in args.datasets.split(","):
        X, y = load_dataset(name)
        X = pd.get_dummies(X, dtype=float) if any(X.dtypes == "category") else X.astype(float)
        y = np.unique(np.asarray(y), return_inverse=True)[1].ravel()
        col = [c for c in X.columns if c.startswith(SENSITIVE[name])][0]
        groups = X[col].to_numpy()
        forest = RandomForestClassifier(args.trees, max_depth=args.depth, random_state=0)
        forest.fit(X, y)
        for kind in (None, "odm", "dmc"):
            ref = lp_optimum(forest, X.to_numpy(dtype=float), y, groups, kind, args.eps)
            for limit in args.limits.split(","):
                tl = None if limit == "none" else float(limit)
                rux = RUXClassifier(forest, fairness=kind, epsilon=args.eps, time_limit=tl,
                                    random_state=0)
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    rux.fit(X, y, groups=groups if kind else None)
                sec = time.perf_counter() - t0
                print(f"{name:7s} {str(kind):5s} limit={limit:5s} status={rux.status_:11s} "
                      f"objective={rux.objective_:10.1f} bound={rux.bound_:10.1f} "
                      f"LP*={ref:10.1f} valid={rux.bound_ <= ref + 1e-6 * max(1, ref)} "
                      f"read={rux.stats_.get('n_leaves')} {sec:5.1f}s "
                      f"scope={rux.gap_scope_!r}", flush=True)


if __name__ == "__main__":
    main()
