"""Sanity checks on result rows of the exact tree MIPs (objective = (1 - lam) * correct -
lam * splits on the training rows): each returns messages, empty when all is well."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

TOL = 1e-6


def implied_objective(row: Mapping[str, Any], lam: float | None = None) -> float:
    """(1 - lam) * correct - lam * splits from the row's training accuracy and tree size
    (``lam``: the row's own when not given; none counts as 0)."""
    if lam is None:
        lam = row.get("lam", 0.0)
        lam = 0.0 if lam is None or (isinstance(lam, float) and math.isnan(lam)) else lam
    correct = row["train_acc"] * row["n_train"]
    return (1 - lam) * correct - lam * row["n_splits"]


def row_issues(row: Mapping[str, Any], tag: str) -> list[str]:
    """One fit: error, warnings other than the time limit's, objective not matching the tree,
    objective above the bound, "optimal" with a gap, tree deeper than asked."""
    if row.get("error"):
        return [f"{tag}: {row['error']}"]
    issues = list(row.get("warnings", ()))
    objective, bound = row["objective"], row["bound"]
    implied = implied_objective(row)
    if abs(implied - objective) > TOL:
        issues.append(f"{tag}: objective {objective:.6g} != (1-lam)*correct - lam*splits"
                      f" = {implied:.6g}")
    if objective > bound + TOL:
        issues.append(f"{tag}: objective {objective:.6g} > bound {bound:.6g}")
    if row["status"] == "optimal" and row["gap"] > TOL:
        issues.append(f"{tag}: status optimal but gap {row['gap']:.3g}")
    if row.get("tree_depth", 0) > row["depth"]:
        issues.append(f"{tag}: tree depth {row['tree_depth']} > {row['depth']}")
    return issues


def bound_violations(df: pd.DataFrame, instance: Sequence[str]) -> list[str]:
    """Same instance, different methods: no objective may exceed a bound another method
    proved (rows without a bound, e.g. CART, only have an objective)."""
    issues = []
    for key, group in df.groupby(list(instance), sort=False):
        key = key[0] if isinstance(key, tuple) and len(key) == 1 else key
        for a in group.itertuples():
            for b in group.itertuples():
                if math.isfinite(b.bound) and a.objective > b.bound + TOL:
                    issues.append(f"{key}: {a.method} objective {a.objective:g} > "
                                  f"{b.method} bound {b.bound:g}")
    return issues
