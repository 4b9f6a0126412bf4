"""Rule selection of OMT for a task and loss: units, the rule loss, and F1 by Dinkelbach.

Classification minimizes the (class-weighted) number of errors, regression the squared or
absolute loss; every rule may cost ``leaf_penalty`` on top (a constant in every column's cost
and in the pricing, so bounds and the exact closure are unchanged).  F1 ([OMT] §5) is a
fractional program, maximized by Dinkelbach's method over the linear master: for gamma,
minimize sum_j min(0, gamma |S_j| - 2 TP_j) (a rule predicts positive iff that is negative),
set gamma = F1 of the solution, repeat until the parametric optimum is >= 0.  Each step is the
same column generation and MIP (columns are kept and re-costed).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import OptreesInputError
from ..encoding.bins import bin_weights, weighted_quantile
from ..solvers.deadline import Deadline
from .cartstart import cart_partitions
from .constraints import RuleConstraint
from .graph import Graph
from .metric import Metric, class_loss_matrix, f1_matrix, regression_metric, unit_table
from .solver import OMTResult, OMTSolver

LOSSES = ("misclassification", "weighted", "f1", "squared", "absolute")


@dataclass
class RuleSelection:
    """The selected rules on the graph: ``conditions[r]`` maps a level to the bool mask of its
    codes; ``support[r]``: training samples of rule r; ``unit_of_sample``: the unit (merged
    identical rows) of each training sample; ``f1`` / ``dinkelbach``: F1 of the rules and the
    gammas tried (loss="f1")."""

    result: OMTResult
    graph: Graph
    conditions: list[dict[int, np.ndarray]]
    support: np.ndarray
    solver: OMTSolver
    unit_of_sample: np.ndarray
    f1: float | None = None
    dinkelbach: list[float] = field(default_factory=list)


def _dinkelbach(solver: OMTSolver, y: np.ndarray, inv: np.ndarray, n_units: np.ndarray,
                pos_label: int, deadline: Deadline, mip_gap: float, max_steps: int,
                w: np.ndarray) -> tuple[OMTResult, float | None, list[float]]:
    """F1-optimal rules by Dinkelbach's parametric method: (result, F1, gammas tried);
    ``w``: row weights (weighted true and false positives)."""
    P = len(n_units)
    pos_total = float(w[y == pos_label].sum())
    gamma = 2 * pos_total / (w.sum() + pos_total)  # F1 of "everything positive"
    greedy, f1, history, res = None, None, [], None
    for _ in range(max_steps):
        history.append(gamma)
        metric = Metric("loss", f1_matrix(inv, y, P, gamma, pos_label, w), n_units)
        if greedy is None:
            counts = n_units[:, None] - class_loss_matrix(inv, y, P, 2, w)
            greedy = solver.greedy_partitions(metric, counts)
        res = solver.solve(metric, deadline, mip_gap, greedy=greedy)
        tp = fp = 0.0
        for st, pr in zip(res.steps, res.predictions, strict=True):
            if int(pr) == pos_label:
                m = np.isin(inv, np.flatnonzero(solver.pricer.cover(st)))
                tp += float(w[m][y[m] == pos_label].sum())
                fp += float(w[m][y[m] != pos_label].sum())
        value = 2 * tp - gamma * (tp + fp + pos_total)  # parametric optimum F(gamma)
        f1 = 2 * tp / (tp + fp + pos_total) if tp + fp + pos_total > 0 else 0.0
        if value <= 1e-9 * max(1.0, pos_total) or res.status == "time_limit":
            break
        if deadline.expired():
            res.status = "time_limit"
            break
        gamma = f1
    res.stats["dinkelbach_gammas"] = history
    return res, f1, history


def weight_scale(w: np.ndarray) -> int:
    """The exponent e of the power of two 2^e nearest the rows' mean weight: the solver works
    with ``w / 2^e`` (mean about 1), since its tolerances are in units of one row
    (max(1, |objective|), 1e-9 on a rule's support): weights of 1e-300 made every loss look
    like 0 and "proved" the one-leaf tree optimal.  A power of two scales every sum exactly,
    so integer weights keep acting as duplicated rows; OptreesInputError when the weights
    span more than float64 can hold once scaled (a positive weight would become 0 or lose
    its digits)."""
    pos = w[w > 0]
    if not len(pos):
        return 0
    top = math.frexp(float(pos.max()))[1]  # pos / 2^top in [0.5, 1): no overflow
    mean = float(np.mean(np.ldexp(pos, -top)))
    e = top + round(math.log2(mean))
    low = np.ldexp(pos.min(), -e)
    if not low >= np.finfo(float).tiny:
        raise OptreesInputError(
            f"sample_weight spans too wide a range: the smallest positive weight "
            f"{pos.min():g} is below 1e-308 times the mean weight, which float64 cannot "
            "hold; drop those rows (weight 0) or rescale the weights")
    return e


def scaled_weights(w: np.ndarray | None, n: int) -> tuple[np.ndarray, int]:
    """The ``n`` rows' weights in the solver's units, ``w / 2^e`` with e =
    :func:`weight_scale` (exact: a power of two), and e; ``w`` None: ``n`` ones and e = 0.
    Every place that compares or sums OMT's weights takes them from here, so all agree on
    the scale."""
    if w is None:
        return np.ones(n), 0
    w = np.asarray(w, dtype=float)
    e = weight_scale(w)
    return np.ldexp(w, -e), e


def target_scale(y: np.ndarray, w: np.ndarray, loss: str) -> tuple[float, int]:
    """Center and scale exponent e that make a regression target's one-leaf loss about its
    total weight: the weighted median, and the power of two 2^e nearest the root mean square
    (squared loss) or mean absolute (absolute loss) deviation from it (e = 0 for a constant
    target).

    Column generation's tolerances are relative to max(1, |objective|), as with error
    counts; an unscaled target of small spread (glass's refractive index: variance 1e-5) made
    every round look stalled.  A data value and a power of two do not depend on the rows'
    order or on weights against repeated rows, and leave integer targets' sums exact, so
    integer weights keep giving the tree that duplicated rows give.  The spread is summed
    over deviations divided by the largest one, so a target of 1e160 (squares overflow)
    gets its scale too."""
    order = np.argsort(y, kind="stable")
    center = float(weighted_quantile(y[order], bin_weights(w)[order], np.array([0.5]),
                                     lower=True)[0])
    with np.errstate(over="ignore"):
        dev = np.abs(y - center)
    top = float(dev.max())
    if not (top > 0 and math.isfinite(top)):
        return center, 0
    rel = dev / top
    spread = float(w @ (rel ** 2 if loss == "squared" else rel) / w.sum())
    spread = math.sqrt(spread) if loss == "squared" else spread
    return center, round(math.log2(spread) + math.log2(top))


def _unscaled(res: OMTResult, e: int, means: np.ndarray | None) -> OMTResult:
    """``res`` of the scaled problem in the user's units (losses times 2^e: the weight and
    target scales), with the rules' ``means`` as predictions when given."""
    stats = dict(res.stats)
    for key in ("penalty", "sub_mip_objective"):
        if stats.get(key) is not None:
            stats[key] = _ldexp(stats[key], e)
    with np.errstate(over="ignore", under="ignore"):
        xi = np.ldexp(np.asarray(res.xi, dtype=float), e)
    return dataclasses.replace(res, predictions=res.predictions if means is None else means,
                               xi=xi, objective=_ldexp(res.objective, e),
                               lp_bound=_ldexp(res.lp_bound, e), bound=_ldexp(res.bound, e),
                               stats=stats)


def _ldexp(x: float, e: int) -> float:
    """x * 2^e as a float (+-inf on overflow, where math.ldexp raises)."""
    with np.errstate(over="ignore", under="ignore"):
        return float(np.ldexp(x, e))


def _check_representable(loss: float, e: int, kind: str) -> None:
    """OptreesInputError when the one-leaf loss of a regression target (``loss`` x 2^e in
    its own units) is beyond float64's normal range: the tree's objective, bound and leaf
    penalty could not be reported (1e160 x y: its squares overflow; 1e-160 x y: they
    underflow)."""
    value = _ldexp(loss, e)
    if loss == 0 or np.finfo(float).tiny <= value < math.inf:
        return
    what = "squared deviations" if kind == "squared" else "absolute deviations"
    side = "large" if value == math.inf else "small"
    raise OptreesInputError(
        f"y is too {side} for float64: the sum of its weighted {what} from the median is "
        f"about 2^{math.log2(loss) + e:.0f}, beyond float64's range (2^-1022 to 2^1024), so "
        "the tree's loss cannot be represented; multiply y by a constant (a power of ten) "
        "before fitting and divide the predictions by it")


class RuleSelector:
    """Rule selection on one graph and target: the units, the rule loss and the column-generation
    solver, kept from one leaf penalty to the next, so a later penalty starts from every column
    the earlier ones generated (``leaf_penalty="auto"`` fits several on the same rows; the
    penalty only adds a constant to every column's cost).  Arguments: see :func:`select_rules`;
    ``deadline``: past it the CART start partitions (:mod:`.cartstart`) are left out.
    """

    def __init__(self, graph: Graph, y: np.ndarray, *, task: str, loss: str,
                 n_classes: int | None, depth: int, leaves: int, min_count: float,
                 class_weights: np.ndarray | None = None, pos_label: int = 1,
                 constraints: list[RuleConstraint] | None = None,
                 feature_costs: np.ndarray | None = None, rule_budget: float | None = None,
                 forbidden: list[np.ndarray] | None = None,
                 requires: list[np.ndarray] | None = None, k_best: int = 1000,
                 beam: int | None = None, exact_pricing: bool = False, max_iter: int = 40,
                 max_columns: int = 10_000, cg_tol: float = 1e-4, mip_gap: float = 0.0,
                 abs_grid: int = 64, seed: int = 0, max_dinkelbach: int = 20,
                 tie_break: float = 0.0, max_stall: int = 10, merge_min_units: int = 20_000,
                 max_master_columns: int = 300,
                 sample_weight: np.ndarray | None = None,
                 deadline: Deadline | None = None) -> None:
        self.graph, self.task, self.loss = graph, task, loss
        self.pos_label, self.mip_gap, self.max_dinkelbach = pos_label, mip_gap, max_dinkelbach
        # the solver's units: weights of mean about 1 and (regression) a target of spread
        # about 1; losses are 2^self.exponent times the solver's (see weight_scale)
        w, self.exponent = scaled_weights(sample_weight, len(y))
        min_count = math.ldexp(float(min_count), -self.exponent)
        ucodes, inv, n_units = unit_table(graph.codes, w)
        self.w, self.inv, self.n_units = w, inv, n_units
        P = len(n_units)
        self.solver = OMTSolver(graph, n_units, depth, leaves, min_count,
                                constraints=constraints, feature_costs=feature_costs,
                                rule_budget=rule_budget, forbidden=forbidden, requires=requires,
                                k_best=k_best, beam=beam, exact_pricing=exact_pricing,
                                max_iter=max_iter, max_columns=max_columns, cg_tol=cg_tol,
                                seed=seed, unit_codes=ucodes,
                                tie_break=0.0 if loss == "f1" else tie_break,
                                max_stall=max_stall, merge_min_units=merge_min_units,
                                max_master_columns=max_master_columns)
        self.y = np.asarray(y, dtype=float) if task == "regression" else y
        self.counts, self.y_exp, self.weight_exp = None, 0, self.exponent
        if task == "regression":
            center, self.y_exp = target_scale(self.y, w, loss)
            self.exponent += self.y_exp * (2 if loss == "squared" else 1)
            self.metric = regression_metric(inv, self.y, P, loss, abs_grid, w, center,
                                            self.y_exp)
            # each rule costs leaf_penalty x the loss of the one-leaf tree
            self.rule_unit = float(self.metric.err(self.metric.S.sum(axis=0)))
            _check_representable(self.rule_unit, self.exponent, loss)
        elif loss in ("misclassification", "weighted"):
            loss_w = w if class_weights is None else w * class_weights[y]
            self.metric = Metric("loss", class_loss_matrix(inv, y, P, n_classes, loss_w),
                                 n_units)
            self.counts = n_units[:, None] - class_loss_matrix(inv, y, P, n_classes, w)
            self.rule_unit = float(loss_w.sum())    # leaf_penalty is in error rate
        else:                                       # F1: Dinkelbach builds its metrics
            self.metric, self.rule_unit = None, 0.0
        self.solver.report_scale = _ldexp(1.0, self.exponent)
        start_w = w if class_weights is None or task == "regression" else w * class_weights[y]
        start_y = (np.ldexp(self.y, -self.y_exp) - math.ldexp(center, -self.y_exp)
                   if task == "regression" else self.y)  # (centred as the metric's target)
        if deadline is None or not deadline.expired():  # (past it: no optional start)
            self.solver.starts = cart_partitions(graph, start_y, start_w, depth, leaves,
                                                 self.solver.pricer, n_units,
                                                 task == "regression")

    def select(self, leaf_penalty: float = 0.0, deadline: Deadline | None = None
               ) -> RuleSelection:
        """The rules for ``leaf_penalty`` within ``deadline`` (None = no limit)."""
        deadline = Deadline() if deadline is None else deadline
        solver, inv, n_units, w = self.solver, self.inv, self.n_units, self.w
        solver.leaf_cost = leaf_penalty * self.rule_unit
        f1, history, means = None, [], None
        if self.task == "regression":
            res = solver.solve(self.metric, deadline, self.mip_gap)
            if self.loss == "squared":  # the rules' means of y itself, not rescaled ones
                # (of y / 2^scale, then times 2^scale: the same rounding, no overflow)
                sy = np.bincount(inv, weights=w * np.ldexp(self.y, -self.y_exp),
                                 minlength=len(n_units))
                means = np.ldexp([sy[c].sum() / n_units[c].sum()
                                  for c in map(solver.pricer.cover, res.steps)], self.y_exp)
        elif self.metric is not None:
            res = solver.solve(self.metric, deadline, self.mip_gap, class_counts=self.counts)
        else:
            res, f1, history = _dinkelbach(solver, self.y, inv, n_units, self.pos_label,
                                           deadline, self.mip_gap, self.max_dinkelbach, w)
        if self.task == "regression" or self.exponent:
            res = _unscaled(res, self.exponent, means)
        conditions = [{g: self.graph.levels[g].nodes[v] for g, v in st} for st in res.steps]
        support = [_ldexp(float(n_units[solver.pricer.cover(st)].sum()), self.weight_exp)
                   for st in res.steps]
        return RuleSelection(res, self.graph, conditions, np.asarray(support), solver, inv, f1,
                             history)


def select_rules(graph: Graph, y: np.ndarray, *, leaf_penalty: float = 0.0,
                 deadline: Deadline | None = None, **kwargs: Any) -> RuleSelection:
    """Graph + targets -> selected rules.  ``y``: class indices or regression values;
    ``task``, ``loss``, ``n_classes``, ``depth``, ``leaves`` and ``min_count`` are required.
    ``leaf_penalty``: every rule costs leaf_penalty x (classification) the total sample
    weight, so the objective is error rate + leaf_penalty x rules, or (regression) the loss
    of the one-leaf tree.  ``deadline``: None = no limit.  ``sample_weight``: row weights;
    losses, supports (``min_count``) and the rules' samples are weights then.  The other
    keywords: see :class:`RuleSelector` and :class:`OMTSolver`."""
    return RuleSelector(graph, y, **kwargs).select(leaf_penalty, deadline)
