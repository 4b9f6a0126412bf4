"""The one solve path of the exact tree MIPs: build -> warm start -> branch-and-cut -> best tree.

FlowOCT, BendersOCT / BendOCT, OCT and BinOCT (on binarized or raw columns) all go through
:func:`run_scip`; :func:`solve_tree` adds the heap-tree warm start (CART, polished by the
formulation) and returns a :class:`FitResult` whose model is a :class:`BinaryTree`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from ..._logging import enabled, progress, since_fit, solved
from ...compiled import run_search, small_subtree_fit
from ...models.binary_tree import BinaryTree
from ...models.result import FitResult
from ...solvers.base import SolveResult, SolverOptions
from ...solvers.deadline import Deadline, TimeUp
from ...solvers.scip import ScipModel
from ..problem.tree_problem import HeapTree, TreeProblem
from ..search.binary import SubtreeSolution, solve_subtree
from ..search.binary.fair import solve_fair_subtree
from ..search.binary.warmup import (
    NODE3_COMPILE_SECONDS,
    compile_kernels,
    compile_node3,
    kernels_loaded,
    kernels_ready,
    node3_ready,
)
from ..search.cart_start import cart_heap_tree
from .engines import BUDGET_OFF, binary_search_off

# Time SCIP spends outside its own time limit, as a fraction of the model's build time
# (kr-vs-kp, FlowOCT depth 5 on 1,000 rows, loaded machine: build 10.8 s; objective, start,
# transformed problem and presolve until the limit is seen, i.e. solve(0.01 s): 0.14 x;
# freeing the model: 0.11 x).  Rounded up: timings on a shared machine vary.
SCIP_SETUP_SHARE = 0.2
SCIP_FREE_SHARE = 0.15


def run_scip(form: Any, deadline: Deadline, seed: int = 0, verbose: int = 0,
             add_start: Callable[[ScipModel], None] | None = None) -> SolveResult | None:
    """Build ``form``'s model, let ``add_start`` give SCIP a start, solve, free the model.

    All within ``deadline``: a build cut short still leaves time to free what was built
    (:data:`SCIP_FREE_SHARE` x the build time), and the solve leaves time for SCIP's set-up
    and freeing (:data:`SCIP_SETUP_SHARE` + :data:`SCIP_FREE_SHARE`) x the build time; none
    starts with less time than SCIP's set-up (:meth:`ScipModel.min_solve_seconds`, and
    :data:`SCIP_SETUP_SHARE` x the build time: a shorter solve finds nothing and overruns).
    Returns None when no solve ran (deadline or Ctrl-C before it)."""
    model = ScipModel(SolverOptions(seed=seed, verbose=verbose))
    try:
        t_build = time.perf_counter()
        form.build(model, deadline=deadline.share(1.0 / (1.0 + SCIP_FREE_SHARE)))
        if add_start is not None:
            deadline.check()  # no time left to polish the start
            add_start(model)
        built = time.perf_counter() - t_build
        solve = deadline.reserve((SCIP_SETUP_SHARE + SCIP_FREE_SHARE) * built)
        # SCIP's set-up before it reads its limit: with less time no solve starts (BendOCT,
        # 150,000 rows: 0.53 s given, 1.12 s taken; BinOCT depth 3 on kr-vs-kp, 1.75 s
        # built: a solve given 0.02 s took 0.3 s, then freeing the solved model 0.75 s)
        if solve.expired() or solve.remaining() < max(model.min_solve_seconds(),
                                                      SCIP_SETUP_SHARE * built):
            return None
        return model.solve(solve)  # SCIP catches Ctrl-C itself and stops the deadline
    except TimeUp:
        return None
    finally:
        model.free()  # within the time limit (the build share keeps time for it)


def solve_tree(problem: TreeProblem, form: Any, deadline: Deadline, classes: np.ndarray,
               names: tuple[list[str], list[str]], seed: int = 0, verbose: int = 0,
               warm_start: bool = True, search: bool = False) -> FitResult:
    """Best tree of ``form`` (a tree MIP over ``problem``) found within ``deadline``.

    ``names``: the features' literal names and their negations (for the returned tree).
    The warm start is CART of the same depth, improved by the formulation (polishing); the
    solver's tree replaces it unless the start is strictly better.  Without any solution
    (time limit before the first one) the tree is a single leaf of the majority class.

    ``search``: first solve by the exact subtree search (:mod:`optrees.trees.search.binary`) with
    :data:`SEARCH_SHARE` of the time.  Its proof is the answer (no MIP is built); otherwise
    its tree is the warm start (when better than CART) and its bound caps the MIP's."""
    off = binary_search_off(problem) if search else "off"
    # the front search takes no leaf budget: without it, it bounds the budgeted optimum, and
    # its tree is that optimum when it keeps within the budget
    relaxed = off == BUDGET_OFF
    large = problem.X.shape[0] * problem.n_nodes > MIP_MAX_CELLS
    no_mip = search and (large or problem.depth > MIP_MAX_DEPTH)
    share = (LARGE_SEARCH_SHARE if large else DEEP_SEARCH_SHARE) if no_mip else SEARCH_SHARE
    found = _search(problem, deadline, share) if off is None or relaxed else None
    # without fairness the search keeps the side constraints itself (its entry checks them)
    if found is not None and found.optimal and (problem.fairness is None
                                                or found.tree.feasible(problem)):
        fit = _searched(problem, found, classes, names)
        if relaxed:
            fit.stats["subtree_search"] = "fronts without max_leaves: within it"
        return _constrained(problem, fit)
    start = cart_heap_tree(problem, seed, deadline) if warm_start else None
    if start is not None and not start.feasible(problem):  # e.g. CART is unfair
        start = None
    search_bound, search_stats = math.inf, {}
    if search and off is not None:
        search_stats = {"subtree_search": off}
    if found is not None:
        search_bound = problem.correct_weight * found.bound + problem.split_cost
        search_stats = {**search_stats, **_search_stats(found)}
        if relaxed:
            search_stats["subtree_search"] = "fronts without max_leaves: a bound"
        if found.tree.feasible(problem) and (
                start is None or found.tree.objective(problem) > start.objective(problem)):
            start = found.tree

    if no_mip and found is not None:  # the search's best (or CART's) with its bound
        return _constrained(problem, _without_mip(problem, found, start, search_bound,
                                                  classes, names, search_stats))

    def add_start(model: ScipModel) -> None:
        nonlocal start
        start = form.improve_start(start, deadline)  # TimeUp: no solve, the start as it is
        model.add_start(form.start_values(start))

    progress("start", since_fit(), None if start is None else float(start.objective(problem)))
    result = run_scip(form, deadline, seed, verbose, add_start if start is not None else None)
    solved("MIP", result)
    best = start
    if result is not None and result.values is not None:
        found = form.tree_from_values(result.values).pruned(problem)
        if best is None or found.objective(problem) >= best.objective(problem) - 1e-9:
            best = found
    if best is None:
        best = HeapTree(np.full(problem.n_internal, -1),
                        np.full(problem.n_nodes, int(np.argmax(problem.class_counts()))))
    # every source above is feasible, the one-leaf tree too (it predicts one class for every
    # group: fairness gap 0)
    if not best.feasible(problem):  # pragma: no cover
        raise AssertionError(f"the returned tree breaks {problem.constraint_text()}")
    fit = mip_result(_binary_tree(problem, best, classes, names), float(best.objective(problem)),
                     result, {**getattr(form, "stats", {}), **search_stats})
    if search_bound < fit.bound:  # the search's bound is the better proof
        fit.bound = max(search_bound, fit.objective)
        if fit.bound <= fit.objective + 1e-9 * max(1.0, abs(fit.objective)):
            fit.status = "optimal"
    return _constrained(problem, fit)


def _constrained(problem: TreeProblem, fit: FitResult) -> FitResult:
    """``fit`` with ``stats['side_constraints']`` naming the constraints in force, if any."""
    if problem.constrained and problem.constraint_text():  # (none on pseudo-rows' copies)
        fit.stats["side_constraints"] = problem.constraint_text()
    if problem.fairness is not None:
        fit.stats["fairness_gap"] = problem.fairness.gap(
            problem.y, fit.model.predict_index(problem.X), problem.weights)
    return fit


SEARCH_SHARE = 0.5
"""Share of the time the exact subtree search may use before the MIP takes over."""

MIP_MAX_CELLS = 10_000_000
"""Most rows x tree nodes for which a stopped search hands over to the MIP.  Above it the
MIP's per-row variables and min-cut checks ([FlowOCT] eq. (8)) cost gigabytes and overrun the
limit for no gain: 10^6 rows x 31 nodes took 2.5 GB and ended 8 s after a 60 s limit
(5.2 GB at 120 s), with the search's tree."""

MIP_MAX_DEPTH = 5
"""Deepest tree for which a stopped search hands over to the MIP.  Deeper, on six stopped
fits (``bench/deep_mip.py``, 20 s each: ILPD QB-5, ann-thyroid QB-5 and plrx QT-5 at depth
6, tic-tac-toe and breast-cancer one-hot at 7, car-evaluation at 8), run twice, the MIP
never improved the search's tree or bound; without it the search's longer share found better
trees on three of six in each run (ILPD 0.72738 and 0.72811 against 0.72347, tic-tac-toe
0.95596 against 0.95369 both times, plrx and breast-cancer once) and the same on the rest."""

DEEP_SEARCH_SHARE = 0.95
"""Share of the time the search gets when no MIP follows on a table below
:data:`MIP_MAX_CELLS` (the rest: CART's start, fast there)."""

LARGE_SEARCH_SHARE = 0.85
"""Share of the time the search gets when no MIP follows (the rest: CART's start and the
returned tree's counts over every row)."""


def _search(problem: TreeProblem, deadline: Deadline, share_of_time: float) -> SubtreeSolution:
    """The exact subtree search for ``problem``'s objective, in subtree-score units
    (correct samples - leaf penalty * leaves), with ``share_of_time`` of the time; under
    fairness the front search."""
    found, _ = run_search(partial(_run_search, problem, deadline), lambda f: f.optimal,
                          deadline, deadline.share(share_of_time), kernels_ready, compile_kernels,
                          small_subtree_fit(*problem.X.shape, problem.depth), kernels_loaded)
    if enabled():  # (the tree's objective is a pass over the rows)
        value = found.tree.objective(problem)
        bound = problem.correct_weight * found.bound + problem.split_cost
        progress("search", found.stats["seconds"], incumbent=value, bound=bound,
                 gap=abs(bound - value) / max(abs(value), 1e-9),
                 nodes=found.stats["nodes"], proved=found.optimal)
    return found


def _run_search(problem: TreeProblem, deadline: Deadline, backend: str, share: Deadline
                ) -> SubtreeSolution:
    """The search of :func:`_search` on ``backend`` within ``share`` (of the fit's
    ``deadline``, which decides whether the depth-3 node is compiled)."""
    if backend == "numba" and problem.depth >= 3 and not node3_ready() and \
            deadline.remaining() >= NODE3_COMPILE_SECONDS:
        compile_node3()  # the compiled depth-3 node: once per install (numba's cache)
    fair = problem.fairness
    view = problem.view
    if fair is None and view is not None and view.y is not None:
        # the objective's own rows (1 / copies of them) with its gains
        return solve_subtree(problem.X[::view.copies], view.y, problem.depth,
                             problem.leaf_penalty, sample_weight=view.best,
                             n_classes=problem.n_classes, deadline=share, backend=backend,
                             min_leaf=problem.min_leaf // view.copies,
                             max_leaves=problem.max_leaves, gains=view.unit_gains)
    if fair is None:
        return solve_subtree(problem.X, problem.y, problem.depth, problem.leaf_penalty,
                             sample_weight=problem.row_weights, n_classes=problem.n_classes,
                             deadline=share, backend=backend, min_leaf=problem.min_leaf,
                             max_leaves=problem.max_leaves)
    coords, cells = fair.coordinates(problem.y, problem.weights)
    return solve_fair_subtree(problem.X, problem.y, problem.depth, coords, fair.epsilon,
                              fair.positive, problem.leaf_penalty, problem.row_weights,
                              problem.min_leaf, share, backend, problem.n_classes, cells)


def _search_stats(found: SubtreeSolution) -> dict[str, Any]:
    """What the search did, in ``stats_``: seconds, search nodes, proof, cache entries, and
    the start that set a deep search's floor (``search_start``: which, and whether it is the
    returned tree or the search beat it)."""
    s = found.stats
    return {"search_seconds": s["seconds"], "search_nodes": s["nodes"],
            "search_optimal": found.optimal, "search_cache": s["cache_entries"],
            "search_backend": s["backend"],
            **({"search_multipliers": s["multipliers"]} if "multipliers" in s else {}),
            **({"search_start": s["start"]} if "start" in s else {})}


def _searched(problem: TreeProblem, found: SubtreeSolution, classes: np.ndarray,
              names: tuple[list[str], list[str]]) -> FitResult:
    """The :class:`FitResult` of the search's tree (no MIP was built): optimal, or stopped
    by the time limit with the search's bound."""
    if problem.view is None:
        objective = float(found.tree.objective(problem))
    else:  # the same value from the search's score, without a pass over the pseudo-rows
        objective = problem.correct_weight * found.score + problem.split_cost
    bound = (objective if found.optimal
             else problem.correct_weight * found.bound + problem.split_cost)
    return FitResult(_binary_tree(problem, found.tree, classes, names),
                     "optimal" if found.optimal else "time_limit", objective, bound,
                     found.stats["seconds"], {**_search_stats(found), "bb_nodes": 0})


def _without_mip(problem: TreeProblem, found: SubtreeSolution, start: HeapTree | None,
                 bound: float, classes: np.ndarray, names: tuple[list[str], list[str]],
                 stats: dict[str, Any]) -> FitResult:
    """The stopped search's answer where no MIP follows (:data:`MIP_MAX_CELLS`,
    :data:`MIP_MAX_DEPTH`): ``start`` (the better of CART and the search's tree, both
    feasible) or a single leaf, with the search's bound."""
    best = start if start is not None else HeapTree(
        np.full(problem.n_internal, -1),
        np.full(problem.n_nodes, int(np.argmax(problem.class_counts()))))
    objective = float(best.objective(problem))
    return FitResult(_binary_tree(problem, best, classes, names), "time_limit", objective,
                     max(bound, objective), found.stats["seconds"],
                     {**stats, "bb_nodes": 0,
                      "mip": f"skipped: depth {problem.depth} > {MIP_MAX_DEPTH}"
                      if problem.depth > MIP_MAX_DEPTH else
                      f"skipped: {problem.X.shape[0]} rows x {problem.n_nodes} nodes "
                      f"> {MIP_MAX_CELLS}"})


def _binary_tree(problem: TreeProblem, heap: HeapTree, classes: np.ndarray,
                 names: tuple[list[str], list[str]]) -> BinaryTree:
    """The returned model: ``heap`` with the features' names and its training counts (on
    an objective's pseudo-rows none: the view counts the original rows)."""
    tree = heap.to_binary_tree(classes)
    tree.feature_names, tree.negated_names = list(names[0]), list(names[1])
    if problem.view is None:
        tree.set_counts(problem.X, problem.y, problem.row_weights)
    return tree


def mip_result(tree: BinaryTree, objective: float, result: SolveResult | None,
               stats: dict) -> FitResult:
    """The :class:`FitResult` of a tree MIP: the solver's status and bound (a proven optimum
    bounds itself), ``stats['bb_nodes']`` = branch-and-bound nodes."""
    status = result.status if result is not None else "time_limit"
    bound = result.bound if result is not None else None
    if status == "optimal":
        bound = objective if bound is None else min(bound, objective)
    return FitResult(tree, status, objective, float("inf") if bound is None else float(bound),
                     result.seconds if result is not None else 0.0,
                     {**stats, "bb_nodes": result.nodes if result is not None else 0})
