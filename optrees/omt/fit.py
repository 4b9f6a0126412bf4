"""An OMT estimator's fit in the method's room: its checked parameters -> the feature graph and
problem of a training table, the leaf penalty (:mod:`.penalty`) and the tree."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._validation import OptreesInputError
from ..models.result import FitResult
from ..solvers.deadline import Deadline
from .constraints import UserConstraints
from .graph import Graph, build_graph, data_thresholds
from .penalty import choose_penalty
from .rules import scaled_weights, target_scale
from .solve import OMTProblem


def rule_limit(p: Any) -> int:
    """The rule limit l: ``leaves``, or 2^depth when it is None."""
    return 2 ** p.depth if p.leaves is None else p.leaves


def min_count(min_support: Any, n: int, w: np.ndarray | None = None) -> float:
    """Training samples per rule for ``min_support`` (checked by the estimator); with
    row weights ``w`` a weight: a fraction of the total weight, or a count of weight (integer
    weights then act as duplicated rows)."""
    if w is not None:
        total = float(w.sum())
        count = (float(min_support) if isinstance(min_support, numbers.Integral)
                 or min_support >= 1 else float(min_support) * total)
        if count > total:
            raise OptreesInputError(
                f"min_support={min_support!r} asks for a weight of at least {count:g} per "
                f"rule, but the training rows weigh {total:g} in all")
        return count
    if isinstance(min_support, numbers.Integral) or min_support >= 1:
        count = int(min_support)
    else:
        count = max(1, math.ceil(float(min_support) * n))
    if count > n:
        raise OptreesInputError(
            f"min_support={min_support!r} asks for at least {count} training samples per "
            f"rule, but there are only {n} training samples")
    return count


@dataclass
class TableFit:
    """What one fit gives the estimator: the tree's result, its graph, the leaf penalty used
    and the validation score of each candidate ("auto")."""

    result: FitResult
    graph: Graph
    penalty: float
    scores: dict[float, float]


class OMTFit:
    """One estimator's solves with its checked parameters ``p`` (the estimator's parameters
    as attributes): the problem of a table, the tree for a leaf penalty, and the validation
    score :func:`~optrees.omt.penalty.choose_penalty` compares."""

    def __init__(self, task: str, p: Any, classes: np.ndarray | None,
                 class_weights: np.ndarray | None, pos: int) -> None:
        self.task = task
        self.regression = task == "regression"
        self.p = p
        self.classes = classes
        self.class_weights = class_weights
        self.pos = pos
        self.y_exp = 0  # regression: validation scores are of y / 2^y_exp (see score)

    def problem(self, df: pd.DataFrame, y: np.ndarray, w: np.ndarray | None,
                deadline: Deadline | None = None) -> OMTProblem:
        """The OMT problem of ``df``, ``y`` (weights ``w``) on the feature graph of ``df``.
        Past ``deadline`` the optional set-up is skipped: CART's cuts of ``n_bins="auto"``
        (quantile bins only) and CART's start partitions (the single leaf and the greedy
        tree remain the starts); the solve then returns its start as "time_limit"."""
        p = self.p
        count = min_count(p.min_support, len(df), w)
        late = deadline is not None and deadline.expired()
        thresholds = (self._thresholds(df, y, w, count) if p.n_bins == "auto" and not late
                      else None)
        graph = build_graph(df, p.feature_order, p.n_bins, p.binning, p.categorical_nodes,
                            p.ordinal, w, thresholds)
        user = UserConstraints(p.feature_costs, p.rule_budget, p.total_budget, p.constraints,
                               p.forbidden, p.requires)
        return OMTProblem(graph, y, task=self.task, loss=p.loss, classes=self.classes,
                          depth=p.depth, leaves=rule_limit(p), min_count=count, user=user,
                          class_weights=self.class_weights, pos_label=self.pos,
                          k_best=p.k_best, beam=p.beam, exact_pricing=p.exact_pricing,
                          max_iter=p.max_iter, max_columns=p.max_columns,
                          max_stall=p.max_stall, cg_tol=p.cg_tol, mip_gap=p.mip_gap,
                          tie_break=p.tie_break, seed=p.random_state, sample_weight=w,
                          deadline=deadline)

    def _thresholds(self, df: pd.DataFrame, y: np.ndarray, w: np.ndarray | None,
                    count: float) -> dict[str, np.ndarray]:
        """Cuts of ``n_bins="auto"`` beyond the quantile bins: CART trees of the same depth on
        the numeric columns, their rows weighted as the loss weights them, one as grown by
        default and one whose leaves hold the support ``count`` of a rule.  CART sees the
        weights and (regression) the target divided by powers of two that bring them near 1
        (exact): scikit-learn's sums of 1e160-sized targets overflow; the target also less
        its weighted median, so the cuts do not change when a constant is added to y."""
        unit, e = scaled_weights(w, len(y))
        count = math.ldexp(count, -e)
        share = count / float(unit.sum())
        if self.regression:  # centred too: CART's variances of y + 1e9 lose their digits
            center, e_y = target_scale(y, unit, self.p.loss)
            y = np.ldexp(y, -e_y) - math.ldexp(center, -e_y)
        w = None if w is None else unit  # no weights: CART's default
        if self.class_weights is not None:
            w = self.class_weights[y] * (1.0 if w is None else w)
        return data_thresholds(df, y, self.p.depth, self.regression, self.p.ordinal, w,
                               share)

    def score(self, result: FitResult, df: pd.DataFrame, y: np.ndarray,
              w: np.ndarray | None) -> float:
        """Validation score of a fitted tree, higher is better: the weighted share of correct
        labels (each row weighted as the loss weights it), or minus the mean loss of the
        target divided by 2^``y_exp`` (:meth:`reported` turns it into the target's units),
        so scores are compared at the same scale whatever the target's units (1e-160 x y:
        its squared errors underflow)."""
        w, _ = scaled_weights(w, len(y))
        if self.regression:
            err = np.ldexp(result.model.predict(df), -self.y_exp) - np.ldexp(y, -self.y_exp)
            loss = err ** 2 if self.p.loss == "squared" else np.abs(err)
            return -float(w @ loss / w.sum())
        if self.class_weights is not None:
            w = w * self.class_weights[y]
        hit = result.model.predict_index(df) == y
        return float(w @ hit / w.sum()) if w.sum() > 0 else 0.0

    def reported(self, score: float) -> float:
        """A :meth:`score` in the target's units (minus the mean loss of y itself)."""
        if not self.regression:
            return score
        with np.errstate(over="ignore", under="ignore"):
            return float(np.ldexp(score, self.y_exp * (2 if self.p.loss == "squared" else 1)))

    def solve(self, df: pd.DataFrame, y: np.ndarray, w: np.ndarray | None,
              deadline: Deadline) -> TableFit:
        """Choose the leaf penalty, build the problem of ``df`` and solve it within
        ``deadline``; OptreesInputError first for weights float64 cannot scale."""
        unit, _ = scaled_weights(w, len(y))
        if self.regression:
            self.y_exp = target_scale(y, unit, self.p.loss)[1]
        penalty, scores = choose_penalty(self, df, y, deadline, w)
        problem = self.problem(df, y, w, deadline)
        result = problem.solve(penalty, deadline)
        return TableFit(result, problem.graph, penalty, scores)
