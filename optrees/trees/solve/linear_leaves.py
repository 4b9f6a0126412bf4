"""The solve path of ``OptimalTreeRegressor(leaf_model="linear")``: trees whose leaves are
ridge regressions on the numeric columns (issue #43, item 4).

The objective is ``(SSE + ridge * sum of |b_leaf|^2) / (W var(y)) + lam * leaves``, each
leaf's model ``b_leaf`` (intercept unpenalised) on the numeric columns standardised on the
training data (weighted mean and standard deviation), i.e. scikit-learn's
``Ridge(alpha=ridge)`` with the rows' weights in every leaf.  The search runs on ``y``
standardised and weights divided by ``W`` (penalty ``ridge / W``): the same objective.

Splits: a column with at most :data:`LINEAR_THRESHOLDS` + 1 values is split at every
threshold, a column with more at :data:`LINEAR_THRESHOLDS` weighted quantiles; the tree is
optimal over those splits (``thresholds`` "all" when no threshold was left out, else
"binarized").
"""

from __future__ import annotations

import numpy as np

from ..._logging import progress
from ..._validation import OptreesInputError
from ...encoding.bins import quantile_cuts
from ...models.linear_leaf_tree import LinearLeafTree
from ...models.result import FitResult
from ...solvers.deadline import Deadline, TimeUp, check_deadline
from ..problem.objectives.ridge_leaves import RidgeLeaves
from ..search.regression.linear import (
    MAX_LINEAR_DEPTH,
    LinearFound,
    LinearLeafSearch,
    LinearTree,
)
from .regression import StandardTarget

LINEAR_THRESHOLDS = 5
"""Thresholds per numeric column (at weighted quantiles) a linear-leaf tree splits at, as
pystreed's default binarization (``n_thresholds=5``)."""

LINEAR_WHY = f"the linear-leaf search is exact up to depth {MAX_LINEAR_DEPTH}, no deeper"


def split_features(X: np.ndarray, w: np.ndarray, n_thresholds: int = LINEAR_THRESHOLDS,
                   deadline: Deadline | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """``(B, column, threshold, every)``: the 0/1 matrix of the tests ``X[:, column[k]] >
    threshold[k]`` (every threshold of a column with at most ``n_thresholds + 1`` values,
    else ``n_thresholds`` at weighted quantiles) and whether no threshold was left out;
    ``deadline`` raises :class:`TimeUp` between columns."""
    columns, cuts, every = [], [], True
    for j in range(X.shape[1]):
        check_deadline(deadline)
        x = X[:, j]
        n_values = len(np.unique(x))
        every = every and n_values <= n_thresholds + 1
        found = quantile_cuts(x, n_thresholds + 1, w)
        columns += [j] * len(found)
        cuts += list(found)
    column, threshold = np.asarray(columns, dtype=np.int64), np.asarray(cuts, dtype=float)
    return X[:, column] > threshold, column, threshold, every


def check_linear_depth(depth: int) -> None:
    """Refuse a tree with linear leaves deeper than MAX_LINEAR_DEPTH."""
    if depth > MAX_LINEAR_DEPTH:
        raise OptreesInputError(f"depth must be <= {MAX_LINEAR_DEPTH} with "
                                f"leaf_model='linear' ({LINEAR_WHY})")


def solve_linear_leaves(X: np.ndarray, y: np.ndarray, w: np.ndarray | None, depth: int,
                        lam: float, min_leaf: int, deadline: Deadline,
                        names: tuple[list[str], list[str], list[bool]] | None = None,
                        random_state: int | None = 0, max_leaves: int | None = None, *,
                        regressors: list[int], ridge: float) -> FitResult:
    """The best tree of depth <= ``depth`` with a ridge model (penalty ``ridge``) on the
    columns ``regressors`` of ``X`` in each leaf, at least ``min_leaf`` rows a leaf and at
    most ``max_leaves`` leaves (None: no limit), over the splits of
    :func:`split_features`; "optimal" when proved within ``deadline``."""
    check_linear_depth(depth)
    if len(y) < 2:
        raise OptreesInputError(f"leaf_model='linear' fits a regression in each leaf: it "
                                f"needs at least 2 rows of weight > 0, got "
                                f"n_samples={len(y)}")
    t = StandardTarget.of(y, w)
    y, weights, total, mean, spread = t.y, t.weights, t.total, t.mean, t.spread
    y_std, w_std = t.y_std, t.w_std
    Z = X[:, regressors]
    center = weights @ Z / total
    scale = np.sqrt(weights @ (Z - center) ** 2 / total)
    keep = scale > 0
    if not keep.any():
        raise OptreesInputError("leaf_model='linear' needs a numeric column of X with at "
                                "least two values (the leaves' regressors)")
    used = [r for r, k in zip(regressors, keep, strict=True) if k]
    center, scale = center[keep], scale[keep]
    objective = RidgeLeaves(len(used), ridge / total, min_leaf)
    Z = (X[:, used] - center) / scale
    try:  # on large data even the rows' statistics can outlast the time limit
        stats = objective.row_stats(Z, y_std, w_std, deadline)
        B, column, threshold, every = split_features(X, weights, deadline=deadline)
    except TimeUp:
        stats, every = None, False
        B, column, threshold = np.zeros((len(y), 0), bool), np.zeros(0, np.int64), np.zeros(0)
    ones = B.sum(axis=0)  # a test leaving fewer than min_leaf rows a side splits no node
    splits = (ones >= objective.min_leaf) & (len(B) - ones >= objective.min_leaf)
    B, column, threshold = B[:, splits], column[splits], threshold[splits]
    if stats is None:  # stopped: one leaf, its sums from X'WX, no bound but 2 lam
        cost = float(objective.leaf_cost(objective.summed_stats(Z, y_std, w_std))) + lam
        found = LinearFound(None, cost, False, min(cost, 2 * lam), 0)
    else:
        search = LinearLeafSearch(B, stats, objective, lam)
        found = search.solve(min(depth, deepest(len(B), objective.min_leaf)), deadline,
                             max_leaves)
    feature_names, negated, numeric = names if names is not None else (None, None, None)
    tree = LinearLeafTree.from_nested(_nested(found.tree, column, threshold), X, y, weights,
                                      feature_names)
    tree.negated_names, tree.numeric = negated, numeric
    b = objective.leaf_model(leaf_sums(tree.apply(X), tree.n_nodes, objective, stats,
                                      (Z, y_std, w_std)))  # standardised units
    tree.set_models(used, center, scale, mean + spread * (b[:, 0] - b[:, 1:] @ (center / scale)),
                    spread * b[:, 1:] / scale)
    leaves = np.flatnonzero(tree.feature < 0)
    residual = w_std @ ((tree.predict(X) - y) / spread) ** 2
    value = float(residual + objective.alpha * (b[leaves, 1:] ** 2).sum() + lam * len(leaves))
    bound = value if found.optimal else min(found.bound, value)
    seconds = deadline.elapsed()
    progress("linear leaves", seconds, incumbent=value, bound=bound,
             gap=abs(value - bound) / max(abs(value), 1e-9), nodes=found.evaluations,
             proved=found.optimal)
    out = {"bb_nodes": 0, "search_nodes": found.evaluations, "search_optimal": found.optimal,
           "thresholds": "all" if every else "binarized", "search": "linear_leaves",
           "leaf_model": "linear", "split_features": int(B.shape[1]),
           "thresholds_per_column": LINEAR_THRESHOLDS, "search_cost": found.cost}
    return FitResult(tree, "optimal" if found.optimal else "time_limit", value, bound,
                     seconds, out)


def leaf_sums(leaf: np.ndarray, n_nodes: int, objective: RidgeLeaves,
              stats: np.ndarray | None, rows: tuple[np.ndarray, np.ndarray, np.ndarray]
              ) -> np.ndarray:
    """``(n_nodes, n_stats)``: the summed statistics of the rows reaching each node of
    ``leaf`` (zeros for inner nodes), from the rows' ``stats``, or without them (None: a
    stopped fit) from the regressors, target and weights ``rows`` by ``X'WX``."""
    sums = np.zeros((n_nodes, objective.n_stats))
    for k in np.unique(leaf):
        mask = leaf == k
        if stats is None:
            sums[k] = objective.summed_stats(*(a[mask] for a in rows))
        else:  # one leaf: no copy of every row's statistics (the same sum)
            sums[k] = (stats if mask.all() else stats[mask]).sum(axis=0)
    return sums


def deepest(n: int, min_leaf: int) -> int:
    """The deepest tree worth searching on ``n`` rows with ``min_leaf`` rows a leaf: a tree of
    depth 2 has at least 3 leaves, of depth 3 at least 4."""
    return 1 if n < 3 * min_leaf else 2 if n < 4 * min_leaf else MAX_LINEAR_DEPTH


def numeric_columns(specs: list[tuple[str, object, list]]) -> list[int]:
    """The feature indices of the numeric columns among a
    :class:`~optrees.encoding.thresholds.ThresholdColumns`' ``specs`` (a one-hot column
    spans one feature per category)."""
    out, at = [], 0
    for kind, _, values in specs:
        if kind == "num":
            out.append(at)
        at += 1 if kind == "num" else len(values)
    return out


def _nested(tree: LinearTree, column: np.ndarray, threshold: np.ndarray) -> tuple | None:
    """The search's tree as ``(feature, threshold, left, right)`` over the columns of X."""
    if tree is None:
        return None
    k, left, right = tree
    return (int(column[k]), float(threshold[k]), _nested(left, column, threshold),
            _nested(right, column, threshold))
