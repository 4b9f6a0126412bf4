"""The one solve function of RUG / FairRUG: raw columns and labels in, a weighted rule set out."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..encoding.columns import RawColumns
from ..models.result import FitResult
from ..models.rule_set import Rule, RuleSet
from ..solvers.deadline import Deadline
from .exact import ExactPricer
from .fairness import Fairness
from .generation import RuleGeneration
from .repair import repair_fairness, unsolved_repair

PRICING = ("tree", "exact", "enumerate", "milp")
"""'tree': the proxy pricing of [RUG] §3.4; else PSP (8) solved exactly ('exact': enumeration
when small, else the MILP)."""
RULE_LABELS = ("auto", "majority", "duals")
"""The class of a rule from a pricing tree's leaf: 'duals' (the class minimizing (5), the
paper's and ruleopt's), 'majority' (the heaviest training class of its samples; see
:mod:`optrees.rug.generation`) or 'auto': 'majority' for more than two classes, else 'duals'.
For two classes the margin of (2) is the vote's own margin, and on magic / adult / skin the
two agree within 0.1 points; for more it decides ecoli (test accuracy 0.758 -> 0.812 over 20
splits) and nursery (0.677 -> 0.760); bench/README.md.  Exact pricing prices every
(rule, class) pair."""
LP_METHODS = ("auto", "simplex", "interior")
"""How the master LP (3) is solved: 'simplex' (an optimal vertex: few rules get weight),
'interior' (interior point without crossover stopped near the optimum, as ruleopt; see
:class:`optrees.rug.master.RUGMaster`) or 'auto': interior point for more than two classes
without fairness rows, else simplex.  With K > 2 the margin of (2) is the true class's vote
minus the *mean* vote of the others, so ties and some lost votes have zero loss and (3) has
wide optimal faces; a vertex ties votes exactly and gives zero duals to those rows, which
the pricing trees then never see (docs/guide/methods.md: nursery 0.47 -> 0.68 test
accuracy, ruleopt 0.66)."""


def solve_rug(raw: RawColumns, y: np.ndarray, classes: np.ndarray, deadline: Deadline, *,
              max_depth: int = 3, pen_par: float = 1.0, max_rmp_calls: int = 10,
              rule_length_cost: bool = True, fairness: Fairness | None = None,
              pricing: str = "tree", n_thresholds: int = 10, lp_method: str = "simplex",
              rule_labels: str = "duals", seed: int = 0,
              sample_weight: np.ndarray | None = None,
              realised: Callable[[RuleSet], float] | None = None,
              threshold: float = 0.0) -> FitResult:
    """Generate rules for labels ``y`` (indices into ``classes``) until convergence,
    ``max_rmp_calls`` master LPs or ``deadline`` (whose stop flag Ctrl-C sets).
    ``lp_method``: one of :data:`LP_METHODS`; ``rule_labels``: one of :data:`RULE_LABELS`.

    The model is the whole pool as a :class:`RuleSet` with the LP weights (uncovered samples
    get the majority class); ``objective`` is the master LP value (NaN when no LP was solved
    in time), ``bound`` the lower bound of exact pricing on the master over every rule
    (``-inf`` with tree pricing).  ``sample_weight``: the slack of sample i costs w_i in the
    master LP (None: 1 each).  ``stats``: ``n_rmp_calls``, ``lp_status`` (HiGHS status
    of the last LP used), ``lower_bound`` (None without one), ``objective_history`` (LP value
    per round) and ``v`` (the slacks per training sample).

    ``realised`` (with ``fairness``): the realised training gap of a rule set, as the caller
    measures it from predictions; when given and above the cap, :func:`.repair.repair_fairness`
    re-weights the pool and ``stats['fairness_repair']`` says what it did (``objective`` and
    ``v`` are then those of (3) at the repaired weights); ``threshold``: the model is pruned
    of rules lighter than this times the heaviest (the repair judges the pruned model).
    """
    t0 = time.perf_counter()
    y = np.asarray(y, dtype=np.int64)
    n_classes = len(classes)
    pricer = None
    if pricing != "tree":  # PSP (8) solved exactly over rules of <= max_depth literals
        pricer = ExactPricer(raw, y, n_classes, pen_par, rule_length_cost, max_depth,
                             method="auto" if pricing == "exact" else pricing,
                             n_thresholds=n_thresholds, seed=seed, deadline=deadline,
                             sample_weight=sample_weight)
    gen = RuleGeneration(raw, y, n_classes, max_depth=max_depth, pen_par=pen_par,
                         max_rmp_calls=max_rmp_calls, rule_length_cost=rule_length_cost,
                         fairness=fairness, random_state=seed, pricer=pricer,
                         deadline=deadline,
                         interior=lp_interior(lp_method, n_classes, fairness is not None),
                         sample_weight=sample_weight,
                         majority_labels=majority_labels(rule_labels, n_classes, pricing))
    res = gen.run()
    default = int(np.argmax(np.bincount(y, weights=sample_weight, minlength=n_classes)))
    repair = None
    if fairness is not None and realised is not None:
        def measure(rules: list[Rule]) -> float:
            return realised(RuleSet(rules, classes, raw.names, default))

        if math.isnan(res.objective):  # no master LP in time: the initial rules
            res, repair = unsolved_repair(res, measure, fairness.epsilon)
        else:
            res, repair = repair_fairness(gen, res, measure, fairness.epsilon, deadline,
                                          default, threshold)
    model = RuleSet(res.rules, classes, raw.names, default)
    status = fit_status(res.status, repair, deadline)
    bound = -math.inf if res.lower_bound is None else res.lower_bound
    stats = {"n_rmp_calls": res.n_rmp_calls, "lp_status": res.lp_status,
             "lower_bound": res.lower_bound, "objective_history": list(res.history),
             "v": res.v}
    if repair is not None:
        stats["fairness_repair"] = repair
    return FitResult(model, status, res.objective, bound, time.perf_counter() - t0, stats)


def fit_status(loop_status: str, repair: dict[str, Any] | None, deadline: Deadline) -> str:
    """The fit's status, by one rule with or without fairness: 'interrupted' after Ctrl-C,
    'time_limit' when the deadline cut a stage short (an LP, the rule generation or
    FairRUG's repair), else how the rule generation ended (``loop_status``)."""
    if deadline.stopped:
        return "interrupted"
    if loop_status == "no_solution" or (repair is not None and repair["stopped"]):
        return "time_limit"
    return loop_status


def lp_interior(lp_method: str, n_classes: int, fair: bool = False) -> bool:
    """Whether ``lp_method`` (:data:`LP_METHODS`) solves the master LPs by interior point for
    ``n_classes`` classes, with fairness rows or not (``fair``)."""
    if lp_method not in LP_METHODS:
        raise ValueError(f"lp_method must be one of {LP_METHODS}, got {lp_method!r}")
    return lp_method == "interior" or (lp_method == "auto" and n_classes > 2 and not fair)


def majority_labels(rule_labels: str, n_classes: int, pricing: str = "tree") -> bool:
    """Whether rules from pricing trees take the heaviest class of their training samples
    (:data:`RULE_LABELS`); exact ``pricing`` takes 'auto' and 'duals' only."""
    if rule_labels not in RULE_LABELS:
        raise ValueError(f"rule_labels must be one of {RULE_LABELS}, got {rule_labels!r}")
    if pricing != "tree":
        if rule_labels == "majority":
            raise ValueError("rule_labels='majority' needs pricing='tree': exact pricing "
                             "prices every (rule, class) pair")
        return False
    return rule_labels == "majority" or (rule_labels == "auto" and n_classes > 2)
