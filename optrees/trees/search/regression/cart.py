"""CART as the first incumbent of the regression search, so that a stopped search is never
worse than CART of the same depth.

scikit-learn's :class:`~sklearn.tree.DecisionTreeRegressor` compares ``float32(x) <= t``;
each node's partition of its training rows is kept as CART makes it and its threshold is
re-placed at the float64 midpoint between the two sides (the same partition: float32
rounding is monotone).  A subtree that does not pay for its leaves under the leaf penalty
is collapsed, which can only lower the cost.
"""

from __future__ import annotations

import numpy as np

from .data import GAIN, RegressionData, Tree, midpoint


def cart_incumbent(data: RegressionData, y: np.ndarray, w: np.ndarray | None, depth: int,
                   random_state: int = 0, max_leaves: int | None = None
                   ) -> tuple[float, Tree] | None:
    """``(cost, tree)`` of CART of depth ``depth`` (grown best first to ``max_leaves``
    leaves when given) fitted on ``data.X``, ``y`` and ``w``, costed by ``data`` (its leaf
    costs and penalty), or None when it breaks the leaf size."""
    from sklearn.tree import DecisionTreeRegressor

    if data.n < 2 or (max_leaves is not None and max_leaves < 2):
        return None
    cart = DecisionTreeRegressor(max_depth=depth, min_samples_leaf=data.min_leaf,
                                 max_leaf_nodes=max_leaves, random_state=random_state)
    cart.fit(data.X, y, sample_weight=w)
    found = _convert(cart.tree_, 0, np.arange(data.n), data, data.X.astype(np.float32))
    return found if _large_enough(found[1], data, np.arange(data.n)) else None


def _convert(t, k: int, rows: np.ndarray, data: RegressionData, X32: np.ndarray
             ) -> tuple[float, Tree]:
    """Cost and tree of sklearn node ``k`` for the ``rows`` reaching it."""
    leaf = float(data.leaf_cost(data.stats[rows].sum(axis=0))) + data.penalty
    if t.children_left[k] < 0:
        return leaf, None
    f = int(t.feature[k])
    go_left = X32[rows, f] <= t.threshold[k]
    if go_left.all():
        return _convert(t, int(t.children_left[k]), rows, data, X32)
    if not go_left.any():
        return _convert(t, int(t.children_right[k]), rows, data, X32)
    lrows, rrows = rows[go_left], rows[~go_left]
    lc, lt = _convert(t, int(t.children_left[k]), lrows, data, X32)
    rc, rt = _convert(t, int(t.children_right[k]), rrows, data, X32)
    if not lc + rc < leaf - GAIN:
        return leaf, None
    threshold = midpoint(data.X[lrows, f].max(), data.X[rrows, f].min())
    return lc + rc, (f, threshold, lt, rt)


def _large_enough(tree: Tree, data: RegressionData, rows: np.ndarray) -> bool:
    """Every leaf of ``tree`` keeps at least ``data.min_leaf`` of ``rows``."""
    if tree is None:
        return True
    f, threshold, left, right = tree
    go_left = data.X[rows, f] <= threshold
    if min(np.count_nonzero(go_left), np.count_nonzero(~go_left)) < data.min_leaf:
        return False
    return (_large_enough(left, data, rows[go_left])
            and _large_enough(right, data, rows[~go_left]))
