"""CART as the first incumbent of the deep search, so its result is never worse than CART
(on a sample of the rows when too little time is left for every row: see below).

sklearn's :class:`~sklearn.tree.DecisionTreeClassifier` of the same depth is fitted on the
selected rows (with their weights) and re-expressed on this package's terms: sklearn compares
``float32(x) <= t``, so each node's partition of its training rows is taken as sklearn makes
it and its threshold re-placed at the float64 midpoint between the two sides (the same
partition, as float32 rounding is monotone).  Leaves get the weighted majority class and,
under a leaf penalty, a subtree that does not pay for its leaves is collapsed; both can only
raise the score.

Under a time limit and on many rows CART is fitted on sampled rows when its fit on every
row is predicted to take too long (:mod:`..cart_budget`); every tree is re-expressed and
scored on all the rows.
"""

from __future__ import annotations

import numpy as np

from ...._numbers import clean_midpoints
from ..cart_budget import fit_in_time
from .context import Context, Subset
from .tree import Node

__all__ = ["cart_incumbent"]


def cart_incumbent(ctx: Context, sub: Subset, depth: int, random_state: int = 0,
                   max_leaves: int | None = None) -> tuple[float, Node] | None:
    """``(score, tree)`` of CART of depth ``depth`` (grown best first to ``max_leaves``
    leaves when given, as sklearn's ``max_leaf_nodes``) on the subset, or None when it has
    fewer than two rows or no positive weight (nothing to fit) or the deadline has passed.
    Under a time limit, on rows sampled as the module says (scored on all of them)."""
    if sub.view.n < 2 or sub.total <= 0 or (max_leaves is not None and max_leaves < 2):
        return None
    X32 = sub.view.X.astype(np.float32)
    fit = _Fit(ctx, sub, depth, random_state, max_leaves, X32)
    return fit_in_time(sub.view.n, X32.shape[1], ctx.deadline, fit, _best, random_state)


class _Fit:
    """CART on some of the subset's rows, re-expressed and scored on all of them."""

    def __init__(self, ctx: Context, sub: Subset, depth: int, random_state: int,
                 max_leaves: int | None, X32: np.ndarray) -> None:
        self.ctx, self.sub, self.depth, self.X32 = ctx, sub, depth, X32
        self.random_state, self.max_leaves = random_state, max_leaves

    def __call__(self, rows: np.ndarray | None) -> tuple[float, Node] | None:
        """The tree of CART fitted on ``rows`` (None: all), or None when one of its leaves
        gets fewer than ``min_leaf`` of all the rows."""
        from sklearn.tree import DecisionTreeClassifier

        sub, ctx, X = self.sub, self.ctx, self.sub.view.X
        n = sub.view.n
        rows = np.arange(n) if rows is None else rows
        # min_leaf sampled rows: at least as many of all the rows (checked below)
        cart = DecisionTreeClassifier(max_depth=self.depth, min_samples_leaf=ctx.min_leaf,
                                      max_leaf_nodes=self.max_leaves,
                                      random_state=self.random_state)
        whole = len(rows) == n
        cart.fit(X if whole else X[rows], sub.ys if whole else sub.ys[rows],
                 sample_weight=sub.ws if whole else sub.ws[rows])
        every = np.arange(n)
        found = _convert(cart.tree_, 0, every, X, self.X32, sub.cw, ctx.pen)
        return found if _leaves_large_enough(found[1], X, every, ctx.min_leaf) else None


def _best(a: tuple[float, Node] | None, b: tuple[float, Node] | None
          ) -> tuple[float, Node] | None:
    """The higher-scoring of two incumbents (either may be None; ``b`` on ties: the fit on
    more rows, as before sampling)."""
    if a is None:
        return b
    return a if b is None or a[0] > b[0] else b


def _convert(t, k: int, rows: np.ndarray, X: np.ndarray, X32: np.ndarray, cw: np.ndarray,
             pen: float) -> tuple[float, Node]:
    """Score and :class:`Node` of sklearn node ``k`` for the local ``rows`` reaching it."""
    totals = cw[rows].sum(axis=0)
    leaf = (float(totals.max()) - pen, Node(int(totals.argmax())))
    if t.children_left[k] < 0:
        return leaf
    f = int(t.feature[k])
    go_left = X32[rows, f] <= t.threshold[k]
    if go_left.all():
        return _convert(t, int(t.children_left[k]), rows, X, X32, cw, pen)
    if not go_left.any():
        return _convert(t, int(t.children_right[k]), rows, X, X32, cw, pen)
    lrows, rrows = rows[go_left], rows[~go_left]
    ls, ln = _convert(t, int(t.children_left[k]), lrows, X, X32, cw, pen)
    rs, rn = _convert(t, int(t.children_right[k]), rrows, X, X32, cw, pen)
    if not ls + rs > leaf[0]:          # the split does not pay for its extra leaves
        return leaf
    thr = float(clean_midpoints(X[lrows, f].max(), X[rrows, f].min()))
    return ls + rs, Node(int(totals.argmax()), f, thr, ln, rn)


def _leaves_large_enough(node: Node, X: np.ndarray, rows: np.ndarray, min_leaf: int) -> bool:
    """Every split of ``node`` leaves at least ``min_leaf`` of ``rows`` on each side
    (sklearn's float32 partition is re-expressed in float64: checked, not assumed)."""
    if node.feature < 0:
        return True                    # the whole subset as a leaf: always allowed
    go_left = X[rows, node.feature] <= node.threshold
    if min(np.count_nonzero(go_left), np.count_nonzero(~go_left)) < min_leaf:
        return False
    return (_leaves_large_enough(node.left, X, rows[go_left], min_leaf)
            and _leaves_large_enough(node.right, X, rows[~go_left], min_leaf))
