"""Optimal trees of depth ≤ 3 on 0/1 features under budgets: at most a share of the rows (by
weight) may be given each of some classes, e.g. scarce treatments of a policy tree (#45).

The budgets are the fairness front search's constraint (:mod:`.fair`) with one coordinate
per budgeted class: a tree's share ``d_k = sum_{leaves labelled k} sum_{i in leaf} b_i / B``
adds up over the leaves that predict ``k``, as a rate gap does over the positive leaves, and
``d_k >= 0``, so ``d_k <= share_k`` is the front search's ``|d_k| <= epsilon_k``; a leaf
labelled ``k`` carries its budget weight in coordinate ``k`` only (``_Classes.budgets``).
Fronts are keyed by the vector of shares.  Its fronts, floors and
Lagrangian bounds carry over; only the rows differ.  Each row ``i`` becomes ``K`` pseudo-rows,
one per class ``c`` of weight ``gains[i, c]`` (what predicting ``c`` scores for it: per-row
gains, as a policy's teacher gives), plus one row of a *budget* class ``K`` of weight
``b_i`` that no leaf predicts and whose row coordinate is ``b_i / B``.  A leaf's class
weights are then its scores and its budget-class weight its share of each budget.
"""

from __future__ import annotations

import time

import numpy as np

from ....solvers.deadline import Deadline
from .data import BinaryData
from .entry import SubtreeSolution, solve_subtree
from .fair import MAX_FAIR_DEPTH, _FairSearch, _heap
from .fair_fronts import _Classes

__all__ = ["budget_shares", "solve_budget_subtree"]


def budget_shares(tree, X: np.ndarray, budget_weight: np.ndarray,
                  budgeted: list[int]) -> np.ndarray:
    """The share of ``budget_weight`` on rows that ``tree`` (a HeapTree) gives each class
    of ``budgeted``."""
    label = tree.label[tree.terminal(X) - 1]
    total = float(budget_weight.sum())
    if total <= 0:
        return np.zeros(len(budgeted))
    return np.array([budget_weight[label == k].sum() for k in budgeted]) / total


def solve_budget_subtree(X, gains: np.ndarray, depth: int, budgets: dict[int, float],
                         budget_weight: np.ndarray, leaf_penalty: float = 0.0,
                         min_leaf: int = 1, max_leaves: int | None = None,
                         deadline: Deadline | None = None,
                         backend: str = "auto") -> SubtreeSolution:
    """Maximize ``sum_leaves sum_{i in leaf} gains[i, label] - leaf_penalty * leaves`` over
    trees of depth ≤ ``depth`` (≤ 3) on 0/1 features ``X`` (n x F) whose leaves labelled
    ``k`` hold at most ``budgets[k]`` of ``budget_weight`` (n, non-negative), for every
    ``k`` of ``budgets``.

    ``gains`` (n x K, K >= 2) non-negative; ``min_leaf`` rows on each side of every split,
    at most ``max_leaves`` leaves (None: no leaf budget; counted as one more coordinate of
    the fronts, ``_Classes.leaves``).
    When ``deadline`` expires the best tree within the budgets found is returned with a
    valid bound and ``optimal=False``.  The score and bound are in ``gains`` units; when no
    tree meets the budgets (every class budgeted), the score is -inf (and the tree
    meaningless).
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
    budgeted = sorted(int(k) for k in budgets)
    shares = np.array([float(budgets[k]) for k in budgeted])
    if not budgeted or not all(0 <= k < K for k in budgeted):
        raise ValueError(f"budgets must name classes 0..{K - 1}, got {budgets!r}")
    total = float(b.sum())
    # pseudo-rows: K per row (class c, weight gains[i, c]), then one of the budget class K
    Xp = np.tile(X, (K + 1, 1))
    yp = np.repeat(np.arange(K + 1), n)
    wp = np.concatenate([G.T.ravel(), b])
    C = np.zeros((len(yp), 1))
    C[K * n:, 0] = b / total if total > 0 else 0.0
    pen = float(leaf_penalty)
    # without the budgets: the same rows less the budget's (its bound is the first bound)
    free = solve_subtree(Xp[:K * n], yp[:K * n], depth, pen, sample_weight=wp[:K * n],
                         n_classes=K, deadline=deadline, backend=backend,
                         min_leaf=K * int(min_leaf), max_leaves=max_leaves)
    bound, done = free.bound, False
    search = None
    if free.optimal and (budget_shares(free.tree, X, b, budgeted) <= shares + 1e-9).all():
        tree, score, done = free.tree, free.score, True
    else:
        data = BinaryData.make(Xp, yp, wp, K + 1)
        # one cell per budget: its coordinate's share d_j <= shares[j] (d_j >= 0); the leaf
        # count (>= 1) last, <= max_leaves
        m = len(budgeted)
        capped = max_leaves is not None and max_leaves < 2**depth
        cells = [[j] for j in range(m + capped)]
        eps = np.r_[shares, [max_leaves] if capped else []]
        search = _FairSearch(data, C, cells, eps, _Classes.budgets(budgeted, K + 1, K, capped),
                             pen,
                             (K + 1) * int(min_leaf), deadline, backend)
        bound, done = search.run(depth, bound)
        score, node = search.best
        tree = _heap(max(node, 0) if isinstance(node, int) else node, depth)
    if done:
        bound = score
    stats = {"seconds": time.perf_counter() - t0,
             "nodes": 0 if search is None else search.pairs, "cache_entries": 0,
             "backend": "fronts", "unconstrained_within_budget": search is None,
             "multipliers": [] if search is None else search.multipliers.tolist()}
    return SubtreeSolution(tree, float(score), float(max(bound, score)), done, stats)
