"""Side constraints of the binary-tree MIPs (issue #19): a leaf budget and a minimum leaf size.

``max_leaves`` is one row: sum of the leaf indicators ``p`` <= L in the leaf structure
([BendOCT] (3b)-(3g)), sum of ``b`` <= L - 1 in the split structure of [FlowOCT] (1.2).

``min_leaf`` (each side of a split keeps m rows or more) needs the rows that reach a node,
which neither master sees (FlowOCT's flow only carries correctly classified rows, BendersOCT
keeps one g_i per row).  It is enforced lazily by no-good rows on the branching variables:
when the integral tree sends fewer than m rows to node n, through ancestors a branching on
features f_a, every tree branching that way puts those rows at n (or below it, fewer still),
so

    sum_{a ancestor of n} b_{a, f_a} <= depth(n) - 1.                                  (NG)

A feature with fewer than m rows on one side in the whole data never branches (rows fixed up
front).  The rows cut off infeasible trees only: the optimum is the constrained optimum.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...solvers.base import LazyConstraints, Row
from ...solvers.scip import ScipModel
from ..problem.tree_problem import HeapTree, TreeProblem


def add_side_constraints(form: Any, m: ScipModel) -> LeafSizeCuts | None:
    """Add ``form.p``'s leaf budget and the rows fixing unusable features to ``m``; returns
    the lazy rows (NG) when ``min_leaf`` > 1 (the caller hands them to the solver)."""
    p: TreeProblem = form.p
    if p.max_leaves is not None:
        if form.leaf_model:
            m.add_row(form.p_leaf, np.ones(len(form.p_leaf)), rhs=float(p.max_leaves))
        else:
            b = form.b.ravel()
            m.add_row(b, np.ones(len(b)), rhs=float(p.max_leaves - 1))
    if p.min_leaf <= 1:
        return None
    ones = p.X.sum(axis=0)
    never = np.flatnonzero((ones < p.min_leaf) | (p.n_samples - ones < p.min_leaf))
    if never.size:
        b = form.b[:, never].ravel()
        m.add_row(b, np.ones(len(b)), rhs=0.0)
    return LeafSizeCuts(form)


def reach_counts(tree: HeapTree, X: np.ndarray) -> np.ndarray:
    """Rows passing through each heap node (index n - 1) of ``tree`` on 0/1 data ``X``: the
    rows that stop in its subtree, summed bottom-up."""
    counts = np.bincount(tree.terminal(X) - 1, minlength=len(tree.label))
    for n in range(len(tree.split), 0, -1):
        counts[n - 1] += counts[2 * n - 1] + counts[2 * n]
    return counts


class LeafSizeCuts(LazyConstraints):
    """The lazy rows (NG) for ``form.p.min_leaf``: exact check and separation at integral
    trees (the shallowest node short of rows on each path gives the shortest row)."""

    def __init__(self, form: Any) -> None:
        self.form = form
        self.n_cuts = 0
        self.seen: set[tuple] = set()

    def _short_nodes(self, x: np.ndarray) -> tuple[HeapTree, list[int]]:
        """The integral tree of ``x`` and its shallowest reachable nodes below the root with
        fewer than ``min_leaf`` rows."""
        tree = self.form.tree_from_values(x)
        counts = reach_counts(tree, self.form.p.X)
        short, stack = [], [1]
        while stack:
            n = stack.pop()
            if n > 1 and counts[n - 1] < self.form.p.min_leaf:
                short.append(n)
            elif n <= len(tree.split) and tree.split[n - 1] >= 0:
                stack += [2 * n, 2 * n + 1]
        return tree, short

    def violated(self, x: np.ndarray) -> bool:
        return bool(self._short_nodes(x)[1])

    def separate(self, x: np.ndarray, integral: bool) -> list[Row]:
        if not integral:
            return []
        tree, short = self._short_nodes(x)
        rows = []
        for n in short:
            ids = self.form.path_branches(tree, n)
            key = tuple(ids.tolist())
            if key in self.seen:
                continue
            self.seen.add(key)
            rows.append(Row(ids, np.ones(len(ids)), rhs=float(len(ids) - 1)))
        self.n_cuts += len(rows)
        return rows


def side_stats(form: Any) -> dict[str, int]:
    """The lazy rows a formulation added for ``min_leaf`` and fairness (for ``stats_``)."""
    out = {}
    if getattr(form, "leaf_cuts", None) is not None:
        out["min_leaf_cuts"] = form.leaf_cuts.n_cuts
    if getattr(form, "fair_cuts", None) is not None:
        out["correctness_cuts"] = form.fair_cuts.n_cuts
    return out


class AllLazy(LazyConstraints):
    """Several families of lazy rows as one (the solver takes one handler)."""

    def __init__(self, *families: LazyConstraints) -> None:
        self.families = families

    def violated(self, x: np.ndarray) -> bool:
        return any(f.violated(x) for f in self.families)

    def separate(self, x: np.ndarray, integral: bool) -> list[Row]:
        return [r for f in self.families for r in f.separate(x, integral)]
