"""Group-fairness constraints of the binary trees (issue #19): the notion, its cells and pair
coefficients over rows, and the realised measure of a fitted tree.

A notion compares, within *cells* of rows, the weighted rate of positive predictions
``q_i = [prediction_i == positive]`` between every pair of sensitive groups, and bounds each
difference by ``epsilon`` (ODTlearn's fair trees, Jo et al. 2023, on FlowOCT):

* statistical_parity: one cell, all rows;
* conditional_parity: one cell per value of a legitimate attribute;
* predictive_equality: the rows of the other class (equal false positive rates);
* equal_opportunity: the rows of the positive class (equal true positive rates);
* equalized_odds: both cells.

The searches read the coefficients; the MIPs' rows over them are in
:mod:`optrees.trees.mip.fairness_rows`.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from ...fairness import TREE_NOTIONS

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


def record_tree_fairness(estimator: Any, df: Any, y: np.ndarray, w: np.ndarray | None,
                         groups: np.ndarray | None = None) -> None:
    """``fairness_`` of a fitted tree estimator (None without ``fairness``): its notion
    measured again on the training rows ``df`` (labels ``y`` as class indices, weights
    ``w``) from the tree's own predictions, by the definitions in :mod:`optrees.metrics`,
    and a :class:`~optrees.FairnessWarning` when that exceeds ``epsilon`` (e.g. a
    fit stopped by its time limit with an unfair start)."""
    from ..._validation import positive_class_index
    from ...fairness import fairness_summary, realised_gap, record_fairness

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
    record_fairness(estimator, summary, note)

