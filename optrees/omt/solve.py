"""The one solve function of OMT: feature graph + targets -> :class:`FitResult` (a multiway tree).

The user's constraints become arrays over the graph (:mod:`.constraints`), the rules are
selected by column generation and the master MIP (:mod:`.rules`, :mod:`.solver`) within the
deadline, and the tree that applies them is assembled (:mod:`.tree`).
"""

from __future__ import annotations

import time

import numpy as np

from ..models.result import FitResult
from ..solvers.deadline import Deadline
from .constraints import UserConstraints, rule_limits
from .graph import Graph
from .rules import select_rules
from .tree import assemble_tree


def solve_omt(graph: Graph, y: np.ndarray, deadline: Deadline, *, task: str, loss: str,
              classes: np.ndarray | None, depth: int, leaves: int, min_count: float,
              user: UserConstraints | None = None, class_weights: np.ndarray | None = None,
              pos_label: int = 1, k_best: int = 1000, beam: int | None = None,
              exact_pricing: bool = False, max_iter: int = 40, max_columns: int = 10_000,
              max_stall: int = 10, cg_tol: float = 1e-4, mip_gap: float = 0.0,
              tie_break: float = 0.0, leaf_penalty: float = 0.0, seed: int = 0,
              sample_weight: np.ndarray | None = None) -> FitResult:
    """An OMT tree of at most ``leaves`` rules of length <= ``depth`` on ``graph``.

    ``y``: class indices (``classes``: their labels) or regression values (``classes`` None);
    ``min_count``: training samples per rule (their weight under ``sample_weight``, which
    weights every loss; integer weights act as duplicated rows).  The result's ``model`` is a
    :class:`MultiwayTree` (``model.rules``: the rules in words), ``objective`` nu_IP,
    ``bound`` the final master LP value nu_LP (a bound of the OMT optimum only when
    ``stats["lp_exact"]``), ``seconds`` the time of column generation and the MIPs; ``stats``
    holds the column-generation counts and ``lp_exact``, ``mip_gap`` (of the master MIP over
    the generated columns), ``n_uncovered``, ``f1`` (loss="f1") and ``ip_lp_gap``
    ((nu_IP - nu_LP) / nu_IP, as in [OMT] Table 2)."""
    limits = rule_limits(graph, user or UserConstraints())
    t0 = time.perf_counter()
    sel = select_rules(graph, y, task=task, loss=loss,
                       n_classes=None if classes is None else len(classes), depth=depth,
                       leaves=leaves, min_count=min_count, class_weights=class_weights,
                       pos_label=pos_label, constraints=limits.constraints,
                       feature_costs=limits.feature_costs, rule_budget=limits.rule_budget,
                       forbidden=limits.forbidden, requires=limits.requires, k_best=k_best,
                       beam=beam, exact_pricing=exact_pricing, max_iter=max_iter,
                       max_columns=max_columns, max_stall=max_stall, cg_tol=cg_tol,
                       mip_gap=mip_gap, deadline=deadline, seed=seed, tie_break=tie_break,
                       leaf_penalty=leaf_penalty, sample_weight=sample_weight)
    seconds = time.perf_counter() - t0
    res = sel.result
    tree = assemble_tree(sel, y, classes, limits.feature_costs, sample_weight)
    stats = {**res.stats, "lp_exact": bool(res.lp_exact), "mip_gap": float(res.mip_gap),
             "n_uncovered": int(res.uncovered), "f1": sel.f1, "ip_lp_gap": float(res.gap)}
    return FitResult(tree, res.status, float(res.objective), float(res.lp_bound), seconds,
                     stats)
