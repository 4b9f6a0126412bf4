"""Optimal trees of depth ≤ 3 on 0/1 features under one budget: at most a share of the rows
(by weight) may be given one class, e.g. a scarce treatment of a policy tree (issue #45).

The budget is the fairness front search's constraint with one coordinate (:mod:`.fair`): a
tree's share ``d = sum_{leaves labelled k} sum_{i in leaf} b_i / B`` adds up over the leaves
that predict the budgeted class ``k``, as a rate gap does over the positive leaves, and ``d
>= 0``, so ``d <= share`` is the front search's ``|d| <= epsilon``.  Its fronts, floors and
Lagrangian bounds carry over; only the rows differ.  Each row ``i`` becomes ``K`` pseudo-rows,
one per class ``c`` of weight ``gains[i, c]`` (what predicting ``c`` scores for it: per-row
gains, as a policy's teacher gives), plus one row of a *budget* class ``K`` of weight
``b_i`` that no leaf predicts and whose gap coordinate is ``b_i / B``.  A leaf's class
weights are then its scores and its budget-class weight its share.
"""

from __future__ import annotations

import time

import numpy as np

from ....solvers.deadline import Deadline
from .data import BinaryData
from .entry import SubtreeSolution, solve_subtree
from .fair import MAX_FAIR_DEPTH, _FairSearch, _heap
from .fair_fronts import _Classes

__all__ = ["budget_share", "solve_budget_subtree"]


class _BudgetSearch(_FairSearch):
    """The fair front search whose leaves never predict the budget class (the last one),
    its first incumbent the leaf of the best other class (share 0)."""

    def __init__(self, data, C, share: float, budgeted: int, pen: float, m: int,
                 deadline: Deadline | None, backend: str) -> None:
        super().__init__(data, C, [[0]], share, budgeted, pen, m, deadline, backend)
        real = data.n_classes - 1  # the budget class is not a prediction
        self.cls = _Classes(budgeted, np.array([k for k in range(real) if k != budgeted]),
                            data.n_classes, 1)
        tp, tn, other = self.cls.split(self.V.sum(axis=0))
        self.best = (tn - pen, int(other))
        if share >= 1.0 and tp > tn:
            self.best = (tp - pen, int(budgeted))


def budget_share(tree, X: np.ndarray, budget_weight: np.ndarray, budgeted: int) -> float:
    """The share of ``budget_weight`` on rows that ``tree`` (a HeapTree) gives ``budgeted``."""
    label = tree.label[tree.terminal(X) - 1]
    total = float(budget_weight.sum())
    return float(budget_weight[label == budgeted].sum()) / total if total > 0 else 0.0


def solve_budget_subtree(X, gains: np.ndarray, depth: int, budgeted: int, share: float,
                         budget_weight: np.ndarray, leaf_penalty: float = 0.0,
                         min_leaf: int = 1, deadline: Deadline | None = None,
                         backend: str = "auto") -> SubtreeSolution:
    """Maximize ``sum_leaves sum_{i in leaf} gains[i, label] - leaf_penalty * leaves`` over
    trees of depth ≤ ``depth`` (≤ 3) on 0/1 features ``X`` (n x F) whose leaves labelled
    ``budgeted`` hold at most ``share`` of ``budget_weight`` (n, non-negative).

    ``gains`` (n x K, K >= 2) non-negative; ``min_leaf`` rows on each side of every split.
    When ``deadline`` expires the best tree within the budget found is returned with a valid
    bound and ``optimal=False``.  The score and bound are in ``gains`` units.
    """
    depth = int(depth)
    if not 0 <= depth <= MAX_FAIR_DEPTH:
        raise ValueError(f"the budget front search takes depth 0..{MAX_FAIR_DEPTH}, got {depth}")
    t0 = time.perf_counter()
    X = np.asarray(X)
    G = np.asarray(gains, dtype=np.float64)
    b = np.asarray(budget_weight, dtype=np.float64)
    n, K = G.shape
    if (G < 0).any() or (b < 0).any() or len(b) != n or len(X) != n:
        raise ValueError("gains and budget_weight must be non-negative, one row per row of X")
    total = float(b.sum())
    # pseudo-rows: K per row (class c, weight gains[i, c]), then one of the budget class K
    Xp = np.tile(X, (K + 1, 1))
    yp = np.repeat(np.arange(K + 1), n)
    wp = np.concatenate([G.T.ravel(), b])
    C = np.zeros((len(yp), 1))
    C[K * n:, 0] = b / total if total > 0 else 0.0
    pen = float(leaf_penalty)
    # without the budget: the same rows less the budget's (its bound is the first bound)
    free = solve_subtree(Xp[:K * n], yp[:K * n], depth, pen, sample_weight=wp[:K * n],
                         n_classes=K, deadline=deadline, backend=backend,
                         min_leaf=K * int(min_leaf))
    bound, done = free.bound, False
    search = None
    if free.optimal and budget_share(free.tree, X, b, budgeted) <= share + 1e-9:
        tree, score, done = free.tree, free.score, True
    else:
        data = BinaryData.make(Xp, yp, wp, K + 1)
        search = _BudgetSearch(data, C, float(share), int(budgeted), pen,
                               (K + 1) * int(min_leaf), deadline, backend)
        bound, done = search.run(depth, bound)
        score, node = search.best
        tree = _heap(node, depth)
    if done:
        bound = score
    stats = {"seconds": time.perf_counter() - t0,
             "nodes": 0 if search is None else search.pairs, "cache_entries": 0,
             "backend": "fronts", "unconstrained_within_budget": search is None,
             "multipliers": [] if search is None else search.multipliers.tolist()}
    return SubtreeSolution(tree, float(score), float(max(bound, score)), done, stats)
