"""An incumbent for long deep searches: the optimal tree over a few thresholds per column.

Where the search over every threshold cannot finish, its best tree is often CART's (magic,
default-credit, depth 4, 60 s: 0.8246 and 0.8227 training accuracy), while the dynamic
programme of :mod:`optrees.trees.search.binary` over a few quantile thresholds per column (and
CART's) finds a better tree in seconds.  That tree is a tree over real thresholds too, so it
is a valid incumbent: it can only raise the result and strengthen the search's pruning.  Its
bound holds over its thresholds only and is not used.  The search computes it only after a
tenth of its time (:class:`.context.LateIncumbent`): on breast-cancer at depth 4, computed
first, it made a 1.1 s proof take 8.8 s.
"""

from __future__ import annotations

import numpy as np

from ...._numbers import clean_midpoints
from ....solvers.deadline import Deadline
from ..binary import solve_subtree
from .context import Context, Subset
from .tree import Node, refit

__all__ = ["coarse_incumbent"]

QUANTILE_CUTS = 8
"""Most thresholds per column at evenly spaced row quantiles (CART's are added to them);
fewer when the columns are many (:func:`max_columns`)."""


def max_columns(depth: int) -> int:
    """Most quantile thresholds in all for a tree of ``depth``: 256 at depth 3, half as many
    per level deeper, as the programme's time grows fast with depth.  Measured at depth 4
    (programme time / training accuracy, 256 → 128): ionosphere 13.1 s / 0.9858 → 1.6 s /
    0.9744, default-credit 30 s (stopped) / 0.8242 → 16.6 s / 0.8240, breast-cancer 7.5 →
    1.0 s at 0.9965; magic, spambase, HTRU_2, letter and seismic-bumps the same tree."""
    return 2 ** max(11 - depth, 4)


def coarse_incumbent(ctx: Context, sub: Subset, depth: int, deadline: Deadline | None,
                     extra: Node | None = None) -> tuple[float, Node] | None:
    """``(score, tree)`` of the optimal depth-``depth`` tree on the subset over a few
    quantile thresholds per column (:func:`_cuts`) plus those of ``extra`` (e.g. CART),
    found within ``deadline`` (its best tree when cut short), or None when there is no
    threshold to cut at."""
    view = sub.view
    feats, cuts = _cuts(view.X, view.order, extra, max_columns(depth))
    if not len(feats):
        return None
    B = _binary(view.X, feats, cuts, deadline)
    if B is None:
        return None
    found = solve_subtree(B, sub.ys, depth, ctx.pen, sub.ws, n_classes=ctx.n_classes,
                          deadline=deadline, backend=ctx.backend, min_leaf=ctx.min_leaf)
    node = _from_heap(found.tree.split, found.tree.label, 1, feats, cuts)
    return refit(node, view.X, sub.ys, sub.ws, ctx.n_classes, np.arange(view.n), ctx.pen,
                 ctx.min_leaf)


def _binary(X: np.ndarray, feats: np.ndarray, cuts: np.ndarray, deadline: Deadline | None
            ) -> np.ndarray | None:
    """The 0/1 matrix ``x_f > t`` (right: 1) of every (feature, cut), one column of ``X`` at
    a time, or None once ``deadline`` has passed (in one expression it took 1.5 s on
    120,000 rows x 256 cuts, a float64 copy of every column per cut first)."""
    B = np.empty((X.shape[0], len(feats)), dtype=np.uint8)
    for f in np.unique(feats):
        if deadline is not None and deadline.expired():
            return None
        at = np.flatnonzero(feats == f)
        B[:, at] = X[:, f, None] > cuts[at]
    return B


def _cuts(X: np.ndarray, order: np.ndarray, extra: Node | None, columns: int
          ) -> tuple[np.ndarray, np.ndarray]:
    """Columns and thresholds of the 0/1 features: per column, midpoints between distinct
    values at :data:`QUANTILE_CUTS` evenly spaced row positions (fewer when ``p`` columns of
    them would pass ``columns`` in all, at least one), and ``extra``'s thresholds."""
    n, p = X.shape
    feats, cuts = [], []
    k = int(np.clip(columns // max(p, 1), 1, QUANTILE_CUTS))
    positions = np.linspace(0, n - 1, k + 2)[1:-1].astype(np.int64)
    for f in range(p):
        values = X[order[f], f]                               # sorted
        step = np.flatnonzero(values[1:] != values[:-1])      # last row of each value run
        if not len(step):
            continue
        # the distinct-value boundary nearest above each quantile position
        at = np.searchsorted(step, positions, side="left").clip(max=len(step) - 1)
        lo, hi = values[step[at]], values[step[at] + 1]
        thr = np.unique(clean_midpoints(lo, hi))
        feats.append(np.full(len(thr), f))
        cuts.append(thr)
    for f, t in _thresholds(extra):
        feats.append(np.array([f]))
        cuts.append(np.array([t]))
    if not feats:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    f_all, t_all = np.concatenate(feats), np.concatenate(cuts)
    keep = np.unique(np.stack([f_all, t_all]), axis=1)        # drop repeated (f, t)
    return keep[0].astype(np.int64), keep[1]


def _thresholds(node: Node | None) -> list[tuple[int, float]]:
    """Every ``(feature, threshold)`` of the branches of ``node``."""
    if node is None or node.feature < 0:
        return []
    return [(node.feature, node.threshold), *_thresholds(node.left), *_thresholds(node.right)]


def _from_heap(split: np.ndarray, label: np.ndarray, k: int, feats: np.ndarray,
               cuts: np.ndarray) -> Node:
    """Heap node ``k`` of a tree over the 0/1 features as a :class:`Node` over real
    thresholds (the labels are refitted by :func:`.tree.refit` afterwards)."""
    if k > len(split) or split[k - 1] < 0:
        return Node(int(label[k - 1]))
    c = int(split[k - 1])
    return Node(int(label[k - 1]), int(feats[c]), float(cuts[c]),
                _from_heap(split, label, 2 * k, feats, cuts),
                _from_heap(split, label, 2 * k + 1, feats, cuts))
