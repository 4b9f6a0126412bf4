"""Regression trees deeper than the exact search (depths 5-8, issue #43): numeric columns
binarized at weighted quantiles plus CART's thresholds, the stacked tree of
:mod:`~optrees.trees.search.regression.stacked` on them, CART of the same depth on the raw
columns as the floor, and the k-means bound over every threshold (status "heuristic": not
proved optimal, the bound valid)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import numpy as np

from ..._validation import OptreesInputError
from ...models.regression_tree import RegressionTree
from ...models.result import FitResult
from ...solvers.deadline import Deadline
from ..problem.objectives.squared_error import SquaredError
from ..search.regression.binary import BinaryRegression
from ..search.regression.cart import cart_incumbent
from ..search.regression.data import GAIN, RegressionData, Tree
from ..search.regression.search import RegressionFound, search_tree, tree_cost
from ..search.regression.segments import segment_costs
from ..search.regression.stacked import MAX_STACKED_DEPTH, pieces, search_stacked
from .linear_leaves import split_features
from .regression import (
    MAX_REGRESSION_DEPTH,
    Searched,
    StandardTarget,
    binary_kernels_usable,
    compiled_kernel,
    fit_result,
    root_floors,
    small_fit,
)

MAX_DEEP_DEPTH = MAX_STACKED_DEPTH
"""Deepest regression tree (the estimators' limit; they reach the search through here)."""

DEEP_THRESHOLDS = 15
"""Weighted quantile thresholds per numeric column of a deep tree (CART's are added)."""

FLOOR_LEAVES = 64
"""Leaf counts up to which the bound takes the k-means floor; more leaves are bounded by
the equivalent-points floor plus their penalties (the k-means layers cost O(k) each)."""


def deep_features(X: np.ndarray, w: np.ndarray, cart: Tree, min_leaf: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """``(B, column, threshold, every)``: the 0/1 tests ``X[:, column[k]] > threshold[k]``
    a deep tree splits on (:func:`split_features` at :data:`DEEP_THRESHOLDS`, CART's
    thresholds added; tests that leave fewer than ``min_leaf`` rows a side, and repeats,
    dropped) and whether no threshold of ``X`` was left out."""
    B, column, threshold, every = split_features(X, w, DEEP_THRESHOLDS)
    extra = _thresholds(cart)
    if extra:
        c, t = (np.asarray(v) for v in zip(*extra, strict=True))
        column, threshold = np.concatenate([column, c]), np.concatenate([threshold, t])
        B = np.hstack([B, X[:, c] > t])
    ones = B.sum(axis=0)
    keep = (ones >= max(min_leaf, 1)) & (len(B) - ones >= max(min_leaf, 1))
    if not keep.any():
        return B[:, keep], column[keep], threshold[keep], every
    _, first = np.unique(np.packbits(B[:, keep], axis=0), axis=1, return_index=True)
    keep = np.flatnonzero(keep)[np.sort(first)]
    return B[:, keep], column[keep], threshold[keep], every


def _thresholds(tree: Tree) -> list[tuple[int, float]]:
    """The ``(feature, threshold)`` of every split of ``tree``."""
    if tree is None:
        return []
    f, threshold, left, right = tree
    return [(int(f), float(threshold))] + _thresholds(left) + _thresholds(right)


def check_deep_budget(depth: int, max_leaves: int | None) -> None:
    """Refuse a leaf budget below ``2^depth`` on a stacked tree (its pieces cannot share
    one); a budget at or above it is no limit."""
    if depth > MAX_REGRESSION_DEPTH and max_leaves is not None and max_leaves < 2 ** depth:
        raise OptreesInputError(f"max_leaves needs depth <= {MAX_REGRESSION_DEPTH} in a "
                                f"regression tree (got depth={depth}): deeper trees are "
                                "stacked from optima of depth <= 3, which cannot share a "
                                "leaf budget")


def solve_deep_regression(X: np.ndarray, y: np.ndarray, w: np.ndarray | None, depth: int,
                          lam: float, min_leaf: int, deadline: Deadline,
                          names: tuple[list[str], list[str], list[bool]] | None = None,
                          random_state: int | None = 0, max_leaves: int | None = None
                          ) -> FitResult:
    """The cheaper of the stacked tree and CART at ``depth`` (``5..MAX_STACKED_DEPTH``)
    on the objective of :func:`~.regression.solve_regression_tree`, with its k-means
    bound: status "heuristic" (every piece finished), else "time_limit"."""
    check_deep_budget(depth, max_leaves)
    t0 = time.perf_counter()
    objective = SquaredError()
    t = StandardTarget.of(y, w)
    stats = objective.row_stats(t.y_std, t.w_std)
    data = RegressionData(X, stats, objective.leaf_cost, lam, min_leaf)
    start = cart_incumbent(data, t.y_std, t.w_std, depth, random_state or 0)
    found = RegressionFound(None, np.inf, np.nan, False, 0) if start is None else \
        RegressionFound(start[1], start[0], np.nan, False, 0)
    label, kernels = "CART (no time for the 0/1 kernels)", False
    split_count, every = 0, False
    if binary_kernels_usable(depth, deadline, X.size):
        kernels = True
        B, column, threshold, every = deep_features(
            X, t.weights, None if start is None else start[1], min_leaf)
        split_count = B.shape[1]
    if split_count:
        stacked = search_stacked(BinaryRegression(B, stats, lam, min_leaf, random_state or 0),
                                 depth, deadline)
        tree = _on_columns(stacked.tree, column, threshold)
        beaten = start is None or stacked.cost < start[0]
        if beaten:
            found = RegressionFound(tree, stacked.cost, np.nan, False, stacked.evaluations)
        label = (f"stacked subtrees (depth {' + '.join(map(str, pieces(depth)))}), "
                 + ("returned" if beaten else "beaten by CART"))
    if found.tree is not None:  # the bottom subtrees over every threshold
        before = found.cost
        found = _polished(data, found, depth, deadline, objective)
        if found.cost < before:
            label += "; bottom subtrees searched over every threshold"
    lower = objective.lower_bound(X, t.y_std, t.w_std)
    floors = None if deadline.expired() else root_floors(
        segment_costs, X, stats, min(depth, int(np.log2(FLOOR_LEAVES))), True)
    found.bound = _bound(floors, lower, lam, 2 ** depth)
    stopped = deadline.expired() or not kernels  # CART only: the search had no time
    searched = Searched(found, start, lower, "stacked", "numba" if split_count else "none",
                        time.perf_counter() - t0,
                        np.nan if floors is None else float(floors[-1]))
    feature_names, negated, numeric = names if names is not None else (None, None, None)
    model, leaf = RegressionTree.routed(found.tree, X, t.y, t.weights, feature_names)
    model.negated_names, model.numeric = negated, numeric
    value = objective.total(t.y_std, t.standard(model.value[leaf]), t.w_std) \
        + lam * model.n_leaves
    out = fit_result("regression (deep)", searched, model, value,
                     {"thresholds": "all" if every else "binarized", "search_start": label,
                      "split_features": split_count,
                      "thresholds_per_column": DEEP_THRESHOLDS})
    # the bound is valid for every tree of the depth: where it meets the tree, fit_result
    # named it proved
    if out.status != "optimal":
        out.status = "time_limit" if stopped else "heuristic"
    return out


POLISH_DEPTH = 3
"""Depth of the bottom subtrees :func:`_polished` searches over every threshold."""


def _polished(data: RegressionData, found: RegressionFound, depth: int, deadline: Deadline,
              objective: SquaredError) -> RegressionFound:
    """``found`` with each largest subtree of height <= :data:`POLISH_DEPTH` replaced by the
    exact tree over every threshold of its rows (as deep as the depth left allows) where
    cheaper, each in its share of the time left, from the subtree itself: the stacked
    pieces choose among quantile thresholds only, and under ``min_leaf`` their lower levels
    go unused, so that without it a deep tree could cost more than the depth-4 optimum
    (diabetes, ``min_leaf`` 20: depth 5 0.4311, 6 0.4447, against depth 4's 0.4293)."""
    subtrees: list[tuple[np.ndarray, Tree, int]] = []

    def collect(node: Tree, rows: np.ndarray, level: int) -> None:
        if _height(node) <= POLISH_DEPTH:  # (below 0: too few rows or levels to split)
            room = depth - level if len(rows) >= 2 * max(data.min_leaf, 1) else 0
            subtrees.append((rows, node, min(POLISH_DEPTH, room)))
            return
        go = data.X[rows, node[0]] <= node[1]
        collect(node[2], rows[go], level + 1)
        collect(node[3], rows[~go], level + 1)

    collect(found.tree, np.arange(data.n), 0)
    better: dict[int, Tree] = {}
    for k, (rows, node, below) in enumerate(subtrees):
        if deadline.expired():
            break
        if below < 1:
            continue
        part = RegressionData(data.X[rows], data.stats[rows, :-1], data.cost, data.penalty,
                              data.min_leaf, compiled_kernel(objective, below, deadline,
                                                             small_fit(data.X, below)))
        own = tree_cost(part, node, np.arange(part.n))
        fit = search_tree(part, below, deadline.share(1.0 / (len(subtrees) - k)),
                          (own, node))
        if fit.cost < own - GAIN:
            better[k] = fit.tree
            found = RegressionFound(found.tree, found.cost - own + fit.cost, found.bound,
                                    False, found.evaluations + fit.evaluations)
    if better:
        found.tree = _replaced(found.tree, iter(range(len(subtrees))), better)
    return found


def _height(node: Tree) -> int:
    """Levels of splits below ``node`` (0: a leaf)."""
    return 0 if node is None else 1 + max(_height(node[2]), _height(node[3]))


def _replaced(node: Tree, index: Iterator[int], better: dict[int, Tree]) -> Tree:
    """``node`` with the ``k``-th collected subtree (:func:`_polished`'s order: largest
    subtrees of height <= POLISH_DEPTH, left first) replaced by ``better[k]`` where given."""
    if _height(node) <= POLISH_DEPTH:
        k = next(index)
        return better.get(k, node)
    return (node[0], node[1], _replaced(node[2], index, better),
            _replaced(node[3], index, better))


def _bound(floors: np.ndarray | None, lower: float, lam: float, most: int) -> float:
    """A cost no tree of at most ``most`` leaves beats: ``min_k floors[k - 1] + lam k`` over
    the leaf counts the floors cover, and for more leaves (or without floors) the
    equivalent-points bound ``lower`` plus their penalties."""
    covered = 0 if floors is None else len(floors)
    best = lower + lam * (covered + 1) if covered < most else np.inf
    if covered:
        best = min(best, float(np.min(floors + lam * np.arange(1, covered + 1))))
    return float(best)


def _on_columns(tree: Tree, column: np.ndarray, threshold: np.ndarray) -> Tree:
    """A 0/1 tree (test ``k``: ``B[:, k] > 0``) as splits ``X[:, column[k]] <= threshold[k]``."""
    if tree is None:
        return None
    k, _, left, right = tree
    return (int(column[k]), float(threshold[k]), _on_columns(left, column, threshold),
            _on_columns(right, column, threshold))

