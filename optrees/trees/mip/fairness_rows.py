"""Group-fairness rows of the binary-tree MIPs (issue #19), as linear rows in "row i is
classified correctly" (the notions and their coefficients:
:mod:`optrees.trees.problem.fairness`).

With two classes ``q_i = [prediction_i == positive]`` is linear in the correctness c_i of
row i: ``q_i = c_i`` for a positive row, ``1 - c_i`` for a negative one, so every bound is one
ranged row over the masters' correctness (``g_i`` of BendersOCT, the sink flow of FlowOCT),
provided c_i is exact at integral trees (the masters only bound it from above;
:class:`CorrectnessCuts` adds the lower side lazily).  With more classes a row of another
class may be predicted positive or a third class, so ``q_i`` is a variable of its own for
those rows, held to the leaf its path reaches at integral trees by lazy rows on both sides
(:class:`PredictionCuts`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...solvers.base import LazyConstraints, Row
from ..problem.fairness import TreeFairness


def add_fairness_rows(form: Any, m: Any) -> CorrectnessCuts | None:
    """The ranged rows ``-eps <= coef @ q <= eps`` of ``form.p.fairness`` over the master's
    correctness terms (``form.correct_terms(i)``) and, with more than two classes, over new
    variables ``q_i`` of the rows of other classes; returns the lazy rows that make both
    exact at integral trees (None without fairness)."""
    p = form.p
    fair: TreeFairness | None = p.fairness
    if fair is None:
        return None
    pairs = fair.pairs(p.y, p.weights)
    positive = p.y == fair.positive
    q = {}                                   # row of another class -> its variable q_i
    if p.n_classes > 2:
        others = np.flatnonzero(~positive & np.any([c != 0 for c in pairs], axis=0)) \
            if pairs else np.zeros(0, dtype=np.int64)
        q = dict(zip(others.tolist(), m.add_vars(len(others), "C", ub=1.0, name="q"),
                     strict=True))
    for coef in pairs:
        rows = np.flatnonzero(coef)
        const = 0.0
        ids, vals = [], []
        for i in rows.tolist():
            if i in q:
                ids.append(np.array([q[i]]))
                vals.append(np.array([coef[i]]))
                continue
            t_ids, t_vals = form.correct_terms(i)
            ids.append(t_ids)
            if positive[i]:                  # q_i = c_i
                vals.append(coef[i] * t_vals)
            else:                            # two classes: q_i = 1 - c_i
                vals.append(-coef[i] * t_vals)
                const += float(coef[i])
        m.add_row(np.concatenate(ids), np.concatenate(vals), -fair.epsilon - const,
                  fair.epsilon - const)
    return PredictionCuts(form, q) if q else CorrectnessCuts(form)


class CorrectnessCuts(LazyConstraints):
    """Lower side of the correctness at integral trees: row i reaching node t through
    ancestors a branching on f_a (in its own direction) is correct when t predicts y_i:

        c_i >= w_{t, y_i} + sum_a b_{a, f_a} - depth(t).                               (C)
    """

    def __init__(self, form: Any, tol: float = 1e-6) -> None:
        self.form = form
        self.tol = tol
        self.n_cuts = 0

    def complete(self, x: np.ndarray, tree: Any) -> None:
        """Set this class's own variables in a start vector ``x`` for ``tree`` (none)."""

    def _short(self, x: np.ndarray) -> tuple[Any, np.ndarray]:
        """The integral tree of ``x`` and the rows it classifies correctly whose
        correctness is below 1."""
        tree = self.form.tree_from_values(x)
        right = tree.correct(self.form.p)
        value = self.form.correct_values(x)
        return tree, np.flatnonzero(right & (value < 1.0 - self.tol))

    def violated(self, x: np.ndarray) -> bool:
        return bool(self._short(x)[1].size)

    def separate(self, x: np.ndarray, integral: bool) -> list[Row]:
        if not integral:
            return []
        tree, rows = self._short(x)
        return self._rows(tree, rows)

    def _rows(self, tree: Any, rows: np.ndarray) -> list[Row]:
        """(C) for ``rows`` along their paths in ``tree``."""
        form, p = self.form, self.form.p
        stop = tree.terminal(p.X[rows])
        out = []
        for i, t in zip(rows.tolist(), stop.tolist(), strict=True):
            ids, vals = form.correct_terms(i)
            path = form.path_branches(tree, t)
            ids = np.r_[ids, form.w[t - 1, p.y[i]], path]
            vals = np.r_[vals, -1.0, -np.ones(len(path))]
            out.append(Row(ids, vals, lhs=-float(len(path))))
        self.n_cuts += len(out)
        return out


class PredictionCuts(CorrectnessCuts):
    """:class:`CorrectnessCuts` and, for the rows of other classes with a variable ``q_i``
    (more than two classes), both sides of ``q_i = w_{t, positive}`` at integral trees, for
    the node t where row i stops, reached through ancestors a branching on f_a:

        q_i >= w_{t,pos} + sum_a b_{a, f_a} - depth(t)                                   (Q-)
        q_i <= w_{t,pos} + sum_f b_{t, f} + depth(t) - sum_a b_{a, f_a}                 (Q+)

    (Q+) holds for every tree: off the path, or where t branches (then row i goes on below
    t), its right side is at least 1.
    """

    def __init__(self, form: Any, q: dict[int, int], tol: float = 1e-6) -> None:
        super().__init__(form, tol)
        self.rows = np.array(list(q), dtype=np.int64)
        self.q = np.array(list(q.values()), dtype=np.int64)

    def predicted(self, tree: Any) -> np.ndarray:
        """1.0 where ``tree`` predicts the positive class for :attr:`rows`, else 0.0."""
        p = self.form.p
        stop = tree.terminal(p.X[self.rows])
        return (tree.label[stop - 1] == p.fairness.positive).astype(float)

    def complete(self, x: np.ndarray, tree: Any) -> None:
        """Set the ``q`` entries of a start vector ``x`` for ``tree``."""
        x[self.q] = self.predicted(tree)

    def _wrong(self, x: np.ndarray) -> tuple[Any, np.ndarray, np.ndarray]:
        tree = self.form.tree_from_values(x)
        gap = x[self.q] - self.predicted(tree)
        return tree, np.flatnonzero(gap < -self.tol), np.flatnonzero(gap > self.tol)

    def violated(self, x: np.ndarray) -> bool:
        _, low, high = self._wrong(x)
        return bool(low.size or high.size) or super().violated(x)

    def separate(self, x: np.ndarray, integral: bool) -> list[Row]:
        if not integral:
            return []
        out = super().separate(x, integral)
        tree, low, high = self._wrong(x)
        form, p = self.form, self.form.p
        pos = p.fairness.positive
        ks = np.r_[low, high]
        stops = tree.terminal(p.X[self.rows[ks]]).tolist()
        for k, t, upper in zip(ks.tolist(), stops, [False] * len(low) + [True] * len(high),
                               strict=True):
            path = form.path_branches(tree, t)
            if not upper:                                                      # (Q-)
                out.append(Row(np.r_[self.q[k], form.w[t - 1, pos], path],
                               np.r_[1.0, -1.0, -np.ones(len(path))], lhs=-float(len(path))))
                continue
            here = form.b[t - 1] if t <= p.n_internal else np.zeros(0, np.int64)  # (Q+)
            out.append(Row(np.r_[self.q[k], form.w[t - 1, pos], here, path],
                           np.r_[1.0, -1.0, -np.ones(len(here)), np.ones(len(path))],
                           rhs=float(len(path))))
        self.n_cuts += len(low) + len(high)
        return out
