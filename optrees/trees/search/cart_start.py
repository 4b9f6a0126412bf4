"""Warm start: a scikit-learn CART of the same depth on the binary features, pruned for eq. (1)."""

from __future__ import annotations

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from ...solvers.deadline import Deadline
from ..problem.tree_problem import HeapTree, TreeProblem
from .cart_budget import fit_in_time

CART_MAX_ROWS = 200_000
"""Most rows CART's start is grown on (a seeded sample above it): scikit-learn's CART took
11.4 s on 10^6 rows x 50 features at depth 4, longer than the search it starts; the sampled
tree is then pruned and scored on every row."""


def _sample(n: int, random_state: int | None) -> slice | np.ndarray:
    """The rows CART grows on: all of them, or :data:`CART_MAX_ROWS` drawn without
    replacement (sorted, seeded by ``random_state``)."""
    if n <= CART_MAX_ROWS:
        return slice(None)
    rng = np.random.default_rng(random_state)
    return np.sort(rng.choice(n, CART_MAX_ROWS, replace=False))


def cart_heap_tree(problem: TreeProblem, random_state: int | None = 0,
                   deadline: Deadline | None = None) -> HeapTree | None:
    """CART (Gini, depth = problem depth; grown on at most :data:`CART_MAX_ROWS` rows) mapped
    to heap numbering, then optimally pruned on every row.  With a limited ``deadline``, grown
    on fewer sampled rows when that fit is predicted to take too long
    (:mod:`.cart_budget`: the best by the objective on every row); None once it has passed.

    On 0/1 features sklearn splits at 0.5 with ``x <= 0.5`` going left, which is the
    FlowOCT convention (x_f = 0 left).  Pruning (:meth:`HeapTree.pruned`) then removes every
    split that does not pay its penalty in the problem's own objective and relabels nodes with
    their majority class (sklearn's pruning works on impurity, not on accuracy).
    """
    grown = _sample(len(problem.y), random_state)
    n = len(problem.y) if isinstance(grown, slice) else len(grown)

    def fit(rows: np.ndarray | None) -> tuple[float, HeapTree]:
        tree = _grown(problem, random_state, grown if rows is None
                      else rows if isinstance(grown, slice) else grown[rows])
        return float(tree.objective(problem)), tree

    def better(a, b):
        return a if b is None or (a is not None and a[0] > b[0]) else b

    found = fit_in_time(n, problem.X.shape[1], deadline, fit, better, random_state)
    return None if found is None else found[1]


def _grown(problem: TreeProblem, random_state: int | None, rows: slice | np.ndarray
           ) -> HeapTree:
    """CART grown on ``rows``, pruned on every row (:func:`cart_heap_tree`)."""
    # [BendOCT] §6.2: cost-complexity pruning at alpha = the cost of a leaf in
    # accuracy (lam for the leaf penalty; lam / ((1 - lam) |I|) for the split penalty), with
    # weights in shares of the total weight, as sklearn's weighted impurity is
    alpha = problem.leaf_penalty / problem.total_weight
    # side constraints (issue #19): scikit-learn's min_samples_leaf counts rows, as ours does
    cart = DecisionTreeClassifier(max_depth=problem.depth, random_state=random_state,
                                  ccp_alpha=alpha, min_samples_leaf=problem.min_leaf,
                                  max_leaf_nodes=problem.max_leaves
                                  if problem.max_leaves is None or problem.max_leaves > 1
                                  else 2)
    weights = problem.row_weights
    cart.fit(problem.X[rows], problem.y[rows],
             sample_weight=None if weights is None else weights[rows])
    t = cart.tree_
    split = np.full(problem.n_internal, -1, dtype=np.int64)
    label = np.zeros(problem.n_nodes, dtype=np.int64)
    classes = cart.classes_
    stack = [(0, 1)]
    while stack:
        idx, h = stack.pop()
        label[h - 1] = classes[int(np.argmax(t.value[idx][0]))]
        if t.children_left[idx] != -1 and h <= problem.n_internal:
            split[h - 1] = t.feature[idx]
            stack += [(int(t.children_left[idx]), 2 * h), (int(t.children_right[idx]), 2 * h + 1)]
    tree = HeapTree(split, label).pruned(problem)
    if not tree.feasible(problem):  # max_leaves = 1: the root leaf
        tree = HeapTree(np.full(problem.n_internal, -1),
                        np.full(problem.n_nodes, label[0])).pruned(problem)
    return tree
