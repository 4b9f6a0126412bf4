"""The one solve function of OMT: feature graph + targets -> :class:`FitResult` (a multiway tree).

The user's constraints become arrays over the graph (:mod:`.constraints`), the rules are
selected by column generation and the master MIP (:mod:`.rules`, :mod:`.solver`) within the
deadline, and the tree that applies them is assembled (:mod:`.tree`).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from ..models.result import FitResult
from ..solvers.deadline import Deadline
from .constraints import UserConstraints, rule_limits
from .graph import Graph
from .rules import RuleSelector
from .tree import assemble_tree


class OMTProblem:
    """One OMT problem (graph, targets, user constraints), solved for one leaf penalty after
    another with one column pool (see :class:`.rules.RuleSelector`): the candidates of
    ``leaf_penalty="auto"``.  Arguments: see :func:`solve_omt`."""

    def __init__(self, graph: Graph, y: np.ndarray, *, task: str, loss: str,
                 classes: np.ndarray | None, depth: int, leaves: int, min_count: float,
                 user: UserConstraints | None = None, class_weights: np.ndarray | None = None,
                 pos_label: int = 1, k_best: int = 1000, beam: int | None = None,
                 exact_pricing: bool = False, max_iter: int = 40, max_columns: int = 10_000,
                 max_stall: int = 10, cg_tol: float = 1e-4, mip_gap: float = 0.0,
                 tie_break: float = 0.0, seed: int = 0,
                 sample_weight: np.ndarray | None = None,
                 deadline: Deadline | None = None) -> None:
        self.graph, self.y, self.classes, self.sample_weight = graph, y, classes, sample_weight
        self.limits = rule_limits(graph, user or UserConstraints())
        lim = self.limits
        self.selector = RuleSelector(
            graph, y, task=task, loss=loss, n_classes=None if classes is None else len(classes),
            depth=depth, leaves=leaves, min_count=min_count, class_weights=class_weights,
            pos_label=pos_label, constraints=lim.constraints, feature_costs=lim.feature_costs,
            rule_budget=lim.rule_budget, forbidden=lim.forbidden, requires=lim.requires,
            k_best=k_best, beam=beam, exact_pricing=exact_pricing, max_iter=max_iter,
            max_columns=max_columns, max_stall=max_stall, cg_tol=cg_tol, mip_gap=mip_gap,
            seed=seed, tie_break=tie_break, sample_weight=sample_weight, deadline=deadline)

    def solve(self, leaf_penalty: float, deadline: Deadline) -> FitResult:
        """The tree for ``leaf_penalty`` within ``deadline`` (see :func:`solve_omt`)."""
        t0 = time.perf_counter()
        sel = self.selector.select(leaf_penalty, deadline)
        seconds = time.perf_counter() - t0
        res = sel.result
        tree = assemble_tree(sel, self.y, self.classes, self.limits.feature_costs,
                             self.sample_weight)
        stats = {**res.stats, "lp_exact": bool(res.lp_exact), "mip_gap": float(res.mip_gap),
                 "n_uncovered": int(res.uncovered), "f1": sel.f1, "ip_lp_gap": float(res.gap),
                 "lp_bound": float(res.lp_bound)}
        return FitResult(tree, res.status, float(res.objective), float(res.bound), seconds,
                         stats)


def solve_omt(graph: Graph, y: np.ndarray, deadline: Deadline, *, leaf_penalty: float = 0.0,
              **kwargs: Any) -> FitResult:
    """An OMT tree of at most ``leaves`` rules of length <= ``depth`` on ``graph``, each rule
    costing ``leaf_penalty`` on top of its loss (see :func:`.rules.select_rules`).

    ``y``: class indices (``classes``: their labels) or regression values (``classes`` None);
    ``min_count``: training samples per rule (their weight under ``sample_weight``, which
    weights every loss; integer weights act as duplicated rows); ``user``: the user's
    constraints.  The result's ``model`` is a
    :class:`MultiwayTree` (``model.rules``: the rules in words), ``objective`` nu_IP,
    ``bound`` a lower bound on the objective of every rule set of the graph (nan when column
    generation proved none: heuristic pricing, a stop), ``seconds`` the time of column
    generation and the MIPs; ``stats`` holds the column-generation counts and ``lp_bound``
    (the final master LP value nu_LP: a bound over the generated rules only, unless
    ``lp_exact``), ``lp_exact``, ``mip_gap`` (of the master MIP over the generated columns),
    ``n_uncovered``, ``f1`` (loss="f1") and ``ip_lp_gap`` ((nu_IP - bound) / nu_IP, as in
    [OMT] Table 2 when the bound is nu_LP; nan without a bound)."""
    return OMTProblem(graph, y, deadline=deadline, **kwargs).solve(leaf_penalty, deadline)


def bound_text(bound: float, lp_bound: float) -> str:
    """What is known of the optimum, in words: the proven bound, or that there is none (the
    restricted master's LP value bounds only the rules generated)."""
    if math.isfinite(bound):
        return f"bound {bound:.6g}"
    if math.isfinite(lp_bound):
        return f"no proven bound; bound over generated rules {lp_bound:.6g}"
    return "no proven bound"
