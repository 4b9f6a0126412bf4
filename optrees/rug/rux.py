"""The one solve function of RUX: RUG's master LP (3) solved once over an ensemble's leaves.

No column generation: every leaf of the ensemble (:mod:`optrees.rug.ensemble`) is a column
of (3) from the start, with the class of its training majority and a cost ``c_j``
(:data:`RULE_COSTS`), and one LP (with FairRUG's rows when asked) gives the weights.
Rows are aggregated into cells of identical samples (same label, group and leaves), which
:class:`~optrees.rug.master.RUGMaster` solves exactly; two leaves of the same class covering
the same training rows are one column (the cheaper: the LP's optimum is unchanged).
"""

from __future__ import annotations

import math
import time

import numpy as np
import scipy.sparse as sp

from ..models.result import FitResult
from ..models.rule_set import Rule, RuleSet
from ..solvers.deadline import Deadline
from .ensemble import LeafRules
from .fairness import Fairness
from .master import RUGMaster

RULE_COSTS = ("gini", "length", "unit")
"""``c_j`` of a leaf: the Gini impurity ``1 - sum_k p_k^2`` of its (weighted) training rows
(ruleopt's RUX default), its number of conditions, or 1; divided by the largest cost, so
``pen_par`` weighs the costliest rule by ``pen_par``."""
GINI_FLOOR = 1e-8
"""Added to Gini costs (as ruleopt does), so a pure leaf is not free in (3)."""

FEASIBILITY_TOL = 1e-9
"""HiGHS's feasibility tolerance for RUX's LP: at its default (1e-7) the dual rows of pure
leaves (cost about 2e-8 after scaling) were exceeded by 4e-8, and the certified bound, the
duals scaled until every row holds, fell to a third of the optimum (breast-cancer: 1.08
against 3.23)."""


def leaf_costs(kind: str, mass: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The costs of :data:`RULE_COSTS` ``kind`` for leaves with class masses ``mass``
    (m x K) and ``lengths`` conditions, scaled so that the largest is 1."""
    if kind == "gini":
        p = mass / np.maximum(mass.sum(axis=1, keepdims=True), 1e-300)
        c = 1.0 - (p ** 2).sum(axis=1) + GINI_FLOOR
    elif kind == "length":
        c = np.maximum(lengths, 1).astype(float)
    elif kind == "unit":
        c = np.ones(len(lengths))
    else:
        raise ValueError(f"rule_cost must be one of {RULE_COSTS}, got {kind!r}")
    return c / c.max() if len(c) else c


def solve_rux(leaves: LeafRules, y: np.ndarray, classes: np.ndarray, names: list[str],
              deadline: Deadline, *, pen_par: float = 1.0, rule_cost: str = "gini",
              fairness: Fairness | None = None, interior: bool = False, seed: int = 0,
              sample_weight: np.ndarray | None = None) -> FitResult:
    """Weights for the ``leaves`` (training rows ``y``, indices into ``classes``) from one
    solve of (3) by ``deadline``.

    The model is every distinct leaf as a :class:`RuleSet` with its LP weight (uncovered
    rows: the majority class); ``objective`` / ``bound`` are the LP value and HiGHS's
    certified lower bound; ``status`` the LP's status.  ``stats``: ``n_leaves`` (read),
    ``n_rules`` (distinct columns), ``n_cells`` (LP rows), ``lp_status``, ``v`` (slack per row).
    """
    t0 = time.perf_counter()
    y = np.asarray(y, dtype=np.int64)
    K, n = len(classes), len(y)
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    M = leaves.masks
    mass = np.asarray(sp.csc_matrix(M).T @ (np.eye(K)[y] * w[:, None]))  # m x K class weights
    labels = np.argmax(mass, axis=1)
    lengths = np.array([len(lits) for lits in leaves.literals], dtype=np.int64)
    costs = leaf_costs(rule_cost, mass, lengths)
    keep = _distinct(M, labels, costs)
    cell, first = _cells(M[:, keep], y, None if fairness is None else fairness.groups)
    counts = np.bincount(cell, weights=w)
    fair_sets = None
    if fairness is not None:  # group sizes in weight, as the cells' counts
        fair_sets = [[(np.unique(cell[idx]), float(w[idx].sum())) for idx in fam]
                     for _, fam in fairness.sets(y, K)]
    master = RUGMaster(y[first], K, pen_par, fairness, seed=seed, counts=counts,
                       fair_sets=fair_sets, interior=interior)
    master.feasibility_tol = FEASIBILITY_TOL
    for j in keep:
        master.add(np.flatnonzero(M[first, j]), int(labels[j]), float(costs[j]))
    res = master.solve(deadline)
    default = int(np.argmax(np.bincount(y, weights=w, minlength=K)))
    n_cells = len(first)
    if res.values is None:
        weights, v, objective = np.zeros(len(keep)), np.full(n, np.nan), math.nan
    else:
        weights, v = res.values[n_cells:], res.values[:n_cells][cell]
        objective = float(res.objective)
    rules = [Rule(leaves.literals[j], int(labels[j]), float(wj), float(costs[j]),
                  meta={"tree": leaves.origin[j][0], "node": leaves.origin[j][1]})
             for j, wj in zip(keep, weights, strict=True)]
    status = res.status
    if res.values is None and deadline.expired():
        status = "time_limit"  # no LP solved in time: no rule has weight
    if deadline.stopped:
        status = "interrupted"
    bound = -math.inf if res.bound is None or math.isnan(res.bound) else float(res.bound)
    stats = {"n_leaves": M.shape[1], "n_rules": len(keep), "n_cells": n_cells,
             "lp_status": res.status, "v": v}
    return FitResult(RuleSet(rules, classes, names, default), status, objective, bound,
                     time.perf_counter() - t0, stats)


def _distinct(M: np.ndarray, labels: np.ndarray, costs: np.ndarray) -> np.ndarray:
    """Indices of one leaf per (training coverage, class), the cheapest (first on ties)."""
    best: dict[tuple[bytes, int], int] = {}
    for j in range(M.shape[1]):
        key = (np.packbits(M[:, j]).tobytes(), int(labels[j]))
        if key not in best or costs[j] < costs[best[key]]:
            best[key] = j
    return np.array(sorted(best.values()), dtype=np.int64)


def _cells(M: np.ndarray, y: np.ndarray, groups: np.ndarray | None
           ) -> tuple[np.ndarray, np.ndarray]:
    """Cell of each row (rows alike in label, group and every leaf) and a row of each cell."""
    cols = [np.packbits(M, axis=1), y.astype(np.int64)[:, None].view(np.uint8)]
    if groups is not None:
        cols.append(np.asarray(groups, dtype=np.int64)[:, None].view(np.uint8))
    key = np.hstack(cols)
    _, first, cell = np.unique(key, axis=0, return_index=True, return_inverse=True)
    return cell.ravel(), first
