"""Group-fairness constraints of the binary-tree MIPs (issue #19), as linear rows in "row i is
classified correctly".

A notion compares, within *cells* of rows, the weighted rate of positive predictions
``q_i = [prediction_i == positive]`` between every pair of sensitive groups, and bounds each
difference by ``epsilon`` (ODTlearn's fair trees, Jo et al. 2023, on FlowOCT):

* statistical_parity: one cell, all rows;
* conditional_parity: one cell per value of a legitimate attribute;
* predictive_equality: the rows of the other class (equal false positive rates);
* equal_opportunity: the rows of the positive class (equal true positive rates);
* equalized_odds: both cells.

With two classes ``q_i`` is linear in the correctness c_i of row i: ``q_i = c_i`` for a
positive row, ``1 - c_i`` for a negative one, so every bound is one ranged row over the
masters' correctness (``g_i`` of BendersOCT, the sink flow of FlowOCT), provided c_i is
exact at integral trees (the masters only bound it from above; :class:`CorrectnessCuts` adds
the lower side lazily).  With more classes a row of another class may be predicted positive
or a third class, so ``q_i`` is a variable of its own for those rows, held to the leaf its
path reaches at integral trees by lazy rows on both sides (:class:`PredictionCuts`).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from ..fairness import TREE_NOTIONS
from ..solvers.base import LazyConstraints, Row

FAIRNESS = TREE_NOTIONS
"""The notions of :data:`optrees.fairness.NOTIONS` the tree MIPs and searches take."""


@dataclass
class TreeFairness:
    """``kind`` (one of :data:`FAIRNESS`) bounded by ``epsilon`` between every pair of the
    groups ``groups`` (codes 0..G-1 per row); ``positive``: the class index predicted
    "positive"; ``legitimate``: codes of the legitimate attribute (conditional parity)."""

    kind: str
    epsilon: float
    groups: np.ndarray
    positive: int
    legitimate: np.ndarray | None = None

    def cells(self, y: np.ndarray) -> list[np.ndarray]:
        """Boolean masks of the rows whose group rates are compared."""
        pos = y == self.positive
        if self.kind == "statistical_parity":
            return [np.ones(len(y), dtype=bool)]
        if self.kind == "conditional_parity":
            return [self.legitimate == v for v in np.unique(self.legitimate)]
        return {"predictive_equality": [~pos], "equal_opportunity": [pos],
                "equalized_odds": [~pos, pos]}[self.kind]

    def pairs(self, y: np.ndarray, w: np.ndarray) -> list[np.ndarray]:
        """One coefficient vector per (cell, pair of groups with rows in it): the rate
        difference is ``coef @ q``."""
        out = []
        for cell in self.cells(y):
            share = self._shares(cell, w)
            out += [share[a] - share[b] for a, b in combinations(share, 2)]
        return out

    def _shares(self, cell: np.ndarray, w: np.ndarray) -> dict:
        """Each group with weight in ``cell`` (in sorted order) -> its rows' share of that
        weight (zero elsewhere): the group's rate is ``share @ q``."""
        share = {}
        for g in np.unique(self.groups[cell]):
            member = cell & (self.groups == g)
            total = float(w[member].sum())
            if total > 0:
                share[g] = np.where(member, w, 0.0) / total
        return share

    def coordinates(self, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, list[list[int]]]:
        """The gap coordinates of every row (n x D) and the columns of each cell: in a cell
        with groups g_0 < g_1 < ... every other group g has the column ``r_g - r_{g_0}``
        (rates of positive predictions), so ``C.T @ q`` holds them all; the bound holds iff
        in every cell ``max(0, max_j x_j) - min(0, min_j x_j) <= epsilon`` (the largest rate
        minus the smallest)."""
        columns, cells = [], []
        for cell in self.cells(y):
            share = self._shares(cell, w)
            ref, *rest = list(share) or [None]
            cells.append(list(range(len(columns), len(columns) + len(rest))))
            columns += [share[g] - share[ref] for g in rest]
        cells = [c for c in cells if c]
        n = len(y)
        return (np.column_stack(columns) if columns else np.zeros((n, 0))), cells

    def gap(self, y: np.ndarray, predicted: np.ndarray, w: np.ndarray) -> float:
        """Largest rate difference of the class indices ``predicted`` (0 if nothing to
        compare)."""
        q = (predicted == self.positive).astype(float)
        return max((abs(float(c @ q)) for c in self.pairs(y, w)), default=0.0)

    def describe(self) -> str:
        return f"{self.kind} <= {self.epsilon:g}"


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


def record_tree_fairness(estimator: Any, df: Any, y: np.ndarray, w: np.ndarray | None,
                         groups: np.ndarray | None = None, stacklevel: int = 4) -> None:
    """``fairness_`` of a fitted tree estimator (None without ``fairness``): its notion
    measured again on the training rows ``df`` (labels ``y`` as class indices, weights
    ``w``) from the tree's own predictions, by the definitions in :mod:`optrees.metrics`,
    and a :class:`~optrees.FairnessWarning` when that exceeds ``epsilon`` (e.g. a
    fit stopped by its time limit with an unfair start)."""
    from .._validation import positive_class_index
    from ..fairness import fairness_summary, realised_gap, record_fairness

    estimator.fairness_ = None
    if getattr(estimator, "fairness", None) is None:  # OCT and BinOCT take none
        return
    classes = estimator.classes_
    if groups is None:
        groups = df[str(estimator.sensitive)].to_numpy(dtype=object)
    legit = None if estimator.legitimate is None else \
        df[str(estimator.legitimate)].to_numpy(dtype=object)
    positive = classes[positive_class_index(estimator.positive_class, classes)]
    gap = realised_gap(estimator.fairness, classes[y], estimator.predict(df), groups,
                       positive=positive, legitimate=legit, sample_weight=w)
    names = list(dict.fromkeys(groups.tolist()))  # in order of appearance, as factorized
    summary = fairness_summary(estimator.fairness, float(estimator.epsilon), gap, names)
    note = ("" if estimator.status_ == "optimal" else
            f"the fit stopped with status '{estimator.status_}' before proving a fair tree")
    record_fairness(estimator, summary, note, stacklevel=stacklevel)

