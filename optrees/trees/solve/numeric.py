"""The solve path of BendOCT / BendersOCT over every threshold of numeric columns (issue #18).

:func:`solve_numeric_tree` runs the exact numeric search of
:mod:`optrees.trees.search.numeric` for a :class:`TreeProblem`'s objective and returns a
:class:`FitResult` whose model is a :class:`BinaryTree` with real thresholds.  There is no
MIP on this path: a MIP over every threshold of every numeric column is far too large to be
practical, so a search stopped by the deadline returns its best tree (never worse than CART,
grown on sampled rows when the time left is too short for every row) with the search's
valid upper bound.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any

import numpy as np

from ..._logging import progress
from ...compiled import run_search, small_numeric_fit
from ...models.binary_tree import BinaryTree
from ...models.result import FitResult
from ...solvers.deadline import Deadline
from ..problem.tree_problem import TreeProblem
from ..search.numeric import NumericSubtree, solve_numeric
from ..search.numeric.warmup import compile_kernels, kernels_loaded, kernels_ready

MAX_NUMERIC_DEPTH = 5
"""Deepest tree solved over every threshold; deeper trees take the binarized path.  Depth 5 is
tested against an enumeration over every threshold, and a search stopped there keeps CART's
tree or better; its open bound often stays at every row correct (e.g. magic, spambase in 60 s),
which is valid but says little.  Depth 6 is not tested over every threshold."""

MAX_BUDGET_NUMERIC_DEPTH = 4
"""Deepest tree solved over every threshold under a leaf budget (``max_leaves`` below
``2**depth``); deeper ones take the binarized path.  The budget search has no coarse
incumbent, and at depth 5 in 10 s it ended below the binarized path's tree on 7 of 9
budgeted fits (breast-cancer, ionosphere, a noisy XOR; min leaf 1-10, 12 or 20 leaves; e.g.
ionosphere 20 leaves, min leaf 10: 0.9316 against 0.9687), above it on 2."""


def solve_numeric_tree(X: np.ndarray, y: np.ndarray, classes: np.ndarray, depth: int,
                       lam: float, penalty: str, deadline: Deadline,
                       names: tuple[list[str], list[str]],
                       sample_weight: np.ndarray | None = None,
                       min_leaf: int = 1, max_leaves: int | None = None,
                       view: Any = None) -> FitResult:
    """Best tree of depth ``depth`` over every threshold of the float matrix ``X`` for the
    objective of ``TreeProblem(.., lam, penalty, sample_weight, min_leaf, max_leaves)``;
    "optimal" when proved within ``deadline``, else "time_limit" with the best tree and a
    valid upper bound.  ``view``: the rows are an objective's pseudo-rows (the side
    constraints are then said in the user's rows)."""
    problem = TreeProblem(np.zeros((len(y), 0)), y, len(classes), depth, lam, penalty,
                          sample_weight, min_leaf, max_leaves, view=view)
    deep = depth >= 3  # the coarse incumbent of a deep search runs the subtree kernels too
    timed: list[float] = []

    def search(backend: str, stage: Deadline) -> NumericSubtree:
        t0 = time.perf_counter()
        found = solve_numeric(X, problem.y, n_classes=len(classes),
                              sample_weight=problem.row_weights,
                              leaf_penalty=problem.leaf_penalty, max_depth=depth,
                              backend=backend, deadline=stage, min_leaf=min_leaf,
                              max_leaves=problem.max_leaves)
        timed.append(time.perf_counter() - t0)  # the search's own time (no compilation)
        return found

    found, backend = run_search(
        search, lambda f: f.optimal, deadline, deadline, partial(kernels_ready, deep),
        partial(compile_kernels, deep), small_numeric_fit(X, depth), kernels_loaded,
        probe=not deep)  # numpy is 20-35x slower at depth 3: it would not prove in time
    seconds = timed[-1]
    tree = numeric_binary_tree(found, classes, names, X, problem.y, problem.row_weights)
    objective = tree_objective(tree, problem, X)
    bound = problem.correct_weight * found.upper_bound + problem.split_cost
    bound = objective if found.optimal else max(objective, float(bound))
    progress("numeric", seconds, incumbent=objective, bound=bound,
             gap=abs(bound - objective) / max(abs(objective), 1e-9),
             nodes=found.evaluations, proved=found.optimal)
    stats = {"bb_nodes": 0, "search_seconds": seconds, "search_nodes": found.evaluations,
             "search_optimal": found.optimal, "search_backend": backend, "thresholds": "all"}
    if problem.constrained and problem.constraint_text():  # (none on pseudo-rows' copies)
        stats["side_constraints"] = problem.constraint_text()
    return FitResult(tree, "optimal" if found.optimal else "time_limit", objective, bound,
                     seconds, stats)


def numeric_binary_tree(found: NumericSubtree, classes: np.ndarray,
                        names: tuple[list[str], list[str]], X: np.ndarray,
                        y: np.ndarray, sample_weight: np.ndarray | None = None) -> BinaryTree:
    """``found`` as a :class:`BinaryTree` (real thresholds, feature names, training counts)."""
    split = {n + 1: int(f) for n, f in enumerate(found.feature) if f >= 0}
    threshold = {n + 1: float(t) for n, t in enumerate(found.threshold) if found.feature[n] >= 0}
    label = {n + 1: int(k) for n, k in enumerate(found.label)}
    tree = BinaryTree.from_heap(split, label, classes, threshold)
    tree.feature_names, tree.negated_names = list(names[0]), list(names[1])
    return tree.set_counts(X, y, sample_weight)


def tree_objective(tree: BinaryTree, problem: TreeProblem, X: np.ndarray) -> float:
    """``problem``'s objective of ``tree`` on ``X``: correct weight, split and leaf costs."""
    correct = float(problem.weights[tree.predict_index(X) == problem.y].sum())
    return float(problem.correct_weight * correct - problem.split_cost * tree.n_splits
                 - problem.leaf_cost * tree.n_leaves)
