"""Public entry point: the optimal tree of a given depth over every threshold of numeric columns.

Depth ≤ 2 runs the dedicated depth-2 search (:mod:`.search`); deeper trees run the general
branch-and-bound of :mod:`.deep` with CART (:mod:`.cart`) as the first incumbent and an
optional deadline; a search still running after a tenth of its time also takes the optimal
tree over a few thresholds per column (:mod:`.coarse`) as an incumbent (not under a leaf
budget, whose search keeps its own incumbent in its depth-2 root search).
"""

from __future__ import annotations

import time

import numpy as np

from ...._validation import check_max_leaves, check_min_leaf
from ....solvers.deadline import Deadline
from .budget import BudgetSearch
from .cart import cart_incumbent
from .coarse import coarse_incumbent
from .context import Context, Interrupted, LateIncumbent, Subset
from .data import NumericData, SubsetView
from .deep import NodeSearch
from .depth1 import ChildTree, best_child, class_weights, split_threshold
from .depth2 import leaf_node, solve_depth2
from .evaluate import StumpFinder, make_evaluator, resolve_backend
from .result import NumericSubtree
from .search import search_root
from .tree import Node, to_heap

__all__ = ["solve_numeric"]


def solve_numeric(X: np.ndarray | NumericData, y: np.ndarray, *, n_classes: int | None = None,
                  sample_weight: np.ndarray | None = None, leaf_penalty: float = 0.0,
                  max_depth: int = 2, rows: np.ndarray | None = None,
                  backend: str = "auto", deadline: Deadline | None = None,
                  min_leaf: int = 1, max_leaves: int | None = None) -> NumericSubtree:
    """Tree of depth ≤ ``max_depth`` maximizing weighted correct − penalty · leaves, every
    leaf holding at least ``min_leaf`` of the selected rows (a leaf alone always qualifies),
    with at most ``max_leaves`` leaves (None: any; :mod:`.budget`).

    ``X`` is a float matrix or a :class:`NumericData` (presorted once, reused across calls on
    different ``rows``); ``y`` holds classes ``0..n_classes-1``; ``sample_weight`` ≥ 0
    (default 1); ``leaf_penalty`` ≥ 0 is in weight units; ``rows`` (boolean mask or index array)
    selects the samples, and the result refers to those rows only.  Exact over every
    threshold: a midpoint between consecutive distinct values of the selected rows.  Ties go
    to fewer leaves.  ``backend``: ``"auto"``, ``"numba"`` or ``"numpy"`` (same answers).

    ``max_depth`` ≥ 3 runs a branch-and-bound whose first incumbent is CART of the same depth
    (so the tree is never worse than CART; with too little time left for CART on every row,
    than CART on a sample: :mod:`..cart_budget`) and, when it runs past :data:`COARSE_AFTER` of
    ``deadline``, the coarse incumbent of :mod:`.coarse`; when ``deadline`` expires it returns
    the best tree found with ``optimal=False`` and a valid ``upper_bound`` on the optimum.
    Depth 2 with a ``deadline`` starts from CART too and stops at the deadline (then its bound
    is only what the number of leaves allows); depth ≤ 1 is linear after sorting and always
    optimal.
    """
    data = X if isinstance(X, NumericData) else NumericData(X)
    n = data.shape[0]
    y, w, n_classes = _check_inputs(y, sample_weight, n_classes, n, leaf_penalty, max_depth)
    min_leaf = check_min_leaf(min_leaf)
    max_leaves = check_max_leaves(max_leaves)
    if max_leaves is not None:
        max_depth = min(max_depth, int(max_leaves) - 1)  # B leaves: at most B − 1 deep
        if max_leaves < 2 ** max_depth:
            return _solve_deep(data, y, w, n_classes, float(leaf_penalty), max_depth, rows,
                               resolve_backend(backend), deadline, min_leaf,
                               max_leaves=int(max_leaves))
    if max_depth >= 3 and min_leaf > 1:
        return _solve_min_leaf(data, y, w, n_classes, float(leaf_penalty), max_depth, rows,
                               resolve_backend(backend), deadline, min_leaf)
    if max_depth >= 3 or (max_depth == 2 and deadline is not None):
        return _solve_deep(data, y, w, n_classes, float(leaf_penalty), max_depth, rows,
                           resolve_backend(backend), deadline, min_leaf)
    view = data.view(rows)
    ys, ws = y[view.rows], w[view.rows]
    cw = class_weights(ys, ws, n_classes)
    pen = float(leaf_penalty)
    eps = _tolerance(float(ws.sum()), pen)
    backend = resolve_backend(backend)
    finder = StumpFinder(view if max_depth >= 1 else _no_features(view), ys, ws, cw, backend,
                         min_leaf)
    whole = finder()
    shallow = best_child(whole, pen)             # optimal depth-≤1 tree (leaf or stump)
    root = (-1, -1)
    evaluations = 0
    if max_depth == 2 and view.n >= 2:
        evaluate = make_evaluator(view, ys, ws, cw, pen, eps, backend,
                                  np.argsort(-whole.correct, kind="stable"), finder.arrays,
                                  min_leaf)
        found = search_root(view, ws, whole, shallow.objective, pen, shallow.objective,
                            evaluate, eps)
        root, evaluations = (found.feature, found.rank), found.evaluations
        expected = found.objective
    else:
        expected = shallow.objective
    tree = _assemble(view, cw, pen, shallow, root, finder)
    return _finish(tree, view, ys, ws, pen, expected, eps, evaluations)


def _tolerance(total: float, pen: float) -> float:
    """Score tolerance of a search over rows of total weight ``total``: relative to the
    largest score and penalty sum it compares."""
    return 1e-9 * (1.0 + total + 4.0 * abs(pen))


def _check_inputs(y, sample_weight, n_classes, n, leaf_penalty, max_depth):
    """Validated labels, weights (float64) and number of classes."""
    if not isinstance(max_depth, (int, np.integer)) or max_depth < 0:
        raise ValueError(f"max_depth must be a nonnegative integer, got {max_depth}")
    if not (np.isfinite(float(leaf_penalty)) and leaf_penalty >= 0):
        raise ValueError("leaf_penalty must be finite and nonnegative")
    y = np.asarray(y)
    if y.shape != (n,) or (y.size and not np.issubdtype(y.dtype, np.integer)):
        raise ValueError(f"y must hold {n} integer class labels")
    y = y.astype(np.int64)
    if n_classes is None:
        n_classes = int(y.max()) + 1 if y.size else 1
    if y.size and (y.min() < 0 or y.max() >= n_classes):
        raise ValueError(f"labels must lie in 0..{n_classes - 1}")
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if w.shape != (n,) or not np.isfinite(w).all() or (w < 0).any():
        raise ValueError(f"sample_weight must hold {n} finite nonnegative numbers")
    return y, w, n_classes


def _no_features(view: SubsetView) -> SubsetView:
    """The view with no columns (depth 0: only the leaf is a candidate)."""
    return SubsetView(view.rows, view.X[:, :0], view.order[:0], view.rank[:0])


def _assemble(view: SubsetView, cw: np.ndarray, pen: float, shallow: ChildTree,
              root: tuple[int, int],
              finder: StumpFinder) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Heap arrays (feature, threshold, label) of the depth-≤1 tree or of the root split."""
    feature = np.full(3, -1, dtype=np.int64)
    threshold = np.full(3, np.nan)
    label = np.zeros(7, dtype=np.int64)
    f, r = root
    if f < 0:
        _place(shallow, 1, feature, threshold, label)
        label[0] = int(cw.sum(axis=0).argmax()) if shallow.feature >= 0 else label[0]
        return feature, threshold, label
    left = view.rank[f] <= r
    feature[0], threshold[0] = f, split_threshold(view.X[:, f], left)
    label[0] = int(cw.sum(axis=0).argmax())
    for node, member in ((2, left), (3, ~left)):
        child = best_child(finder(member), pen)
        _place(child, node, feature, threshold, label)
        label[node - 1] = int(cw[member].sum(axis=0).argmax()) if child.feature >= 0 else \
            child.classes[0]
    return feature, threshold, label


def _place(child: ChildTree, node: int, feature, threshold, label) -> None:
    """Write a leaf or stump rooted at heap ``node`` (1..3); nodes below a leaf copy it."""
    if child.feature < 0:
        for n in (node, 2 * node, 2 * node + 1, 4 * node, 4 * node + 1, 4 * node + 2,
                  4 * node + 3):
            if n <= 7:
                label[n - 1] = child.classes[0]
        return
    feature[node - 1], threshold[node - 1] = child.feature, child.threshold
    for n, k in ((2 * node, child.classes[0]), (2 * node + 1, child.classes[1])):
        label[n - 1] = k
        for m in (2 * n, 2 * n + 1):
            if m <= 7:
                label[m - 1] = k


def _finish(tree, view: SubsetView, ys: np.ndarray, ws: np.ndarray, pen: float,
            expected: float, eps: float, evaluations: int) -> NumericSubtree:
    """Result with the correct mask, cross-checking the tree against the searched objective."""
    feature, threshold, label = tree
    n_leaves = 1 + int((feature >= 0).sum())
    out = NumericSubtree(feature, threshold, label, 0.0, 0.0, n_leaves, view.rows,
                         np.zeros(view.n, dtype=bool), evaluations)
    out.correct = out.predict(view.X) == ys
    out.correct_weight = float(ws[out.correct].sum())
    out.score = out.correct_weight - pen * n_leaves
    out.upper_bound = out.score
    if abs(out.score - expected) > 1e3 * eps:  # pragma: no cover - would be a solver bug
        raise AssertionError(f"tree scores {out.score}, search expected {expected}")
    return out


def _solve_deep(data: NumericData, y: np.ndarray, w: np.ndarray, n_classes: int, pen: float,
                max_depth: int, rows, backend: str, deadline: Deadline | None,
                min_leaf: int, ceiling: float = np.inf,
                max_leaves: int | None = None) -> NumericSubtree:
    """:func:`solve_numeric` for ``max_depth`` ≥ 3 (or 2 with a deadline): CART, then
    :class:`.deep.NodeSearch` (depth 2: :func:`.depth2.solve_depth2`); ``ceiling``: a known
    upper bound on the optimum (the search stops at a tree that reaches it).  Under a leaf
    budget (``max_depth < max_leaves < 2**max_depth``) CART is grown to ``max_leaves``
    leaves and :class:`.budget.BudgetSearch` searches."""
    mask = np.ones(data.shape[0], dtype=bool) if rows is None else _mask_of(data, rows)
    eps = _tolerance(float(w[mask].sum()), pen)
    ctx = Context(data, y, w, n_classes, pen, eps, backend, deadline, min_leaf=min_leaf)
    sub = ctx.subset(mask)
    start: tuple[float, Node] = (sub.leaf_correct - pen, leaf_node(sub))
    if max_depth == 2 and max_leaves is None:
        value, tree, optimal, bound = _depth2_until(ctx, sub, start)
    else:
        start = _better(start, cart_incumbent(ctx, sub, max_depth, max_leaves=max_leaves))
        if max_leaves is None:
            late = ctx.late = _late_incumbent(ctx, sub, max_depth, start[1])
            search = NodeSearch(ctx, sub, max_depth, start[0], start[1], ceiling,
                                best_first=True, late=late)
        else:
            late = None
            search = BudgetSearch(ctx, sub, max_depth, max_leaves, start[0], start[1],
                                  best_first=True)
        value, tree, optimal, bound = _run(search, eps)
        if late is not None and not optimal:        # computed after the search's last step
            search.adopt_late()
            value, tree = search.best, search.tree
            optimal = bound <= value + eps
    if max_leaves is not None and tree.n_leaves > max_leaves:  # pragma: no cover - a bug
        raise AssertionError(f"tree has {tree.n_leaves} leaves, budget {max_leaves}")
    feature, threshold, label = to_heap(tree, max_depth)
    out = _finish((feature, threshold, label), sub.view, sub.ys, sub.ws, pen, value, eps,
                  ctx.evaluations)
    out.optimal = optimal
    out.upper_bound = max(out.score, bound)
    return out


COARSE_AFTER = 0.1
"""Share of the time after which a deep search not yet finished computes the coarse
incumbent (:mod:`.coarse`): a search that proves sooner does not pay for it."""

COARSE_SHARE = 0.25
"""Share of the time then left that the coarse incumbent may use."""

DEEP_COARSE_SHARE = 0.6
""":data:`COARSE_SHARE` at depth ≥ 5, where the search over every threshold rarely improves
on CART on large sets and the coarse tree is most of the result."""


def _late_incumbent(ctx: Context, sub: Subset, depth: int, cart: Node
                    ) -> LateIncumbent | None:
    """The coarse incumbent of the whole problem, computed once :data:`COARSE_AFTER` of the
    time has passed (None without a time limit: the search then finishes anyway)."""
    deadline = ctx.deadline
    if deadline is None or not deadline.limited:
        return None
    return LateIncumbent(
        time.perf_counter() + COARSE_AFTER * deadline.remaining(),
        lambda: coarse_incumbent(ctx, sub, depth, deadline.share(
            DEEP_COARSE_SHARE if depth >= 5 else COARSE_SHARE), cart))


def _run(search: NodeSearch | BudgetSearch, eps: float) -> tuple[float, Node, bool, float]:
    """``(value, tree, optimal, bound)`` of a search run to the end or to its deadline (then
    its best tree, proved when its open bound allows)."""
    try:
        value, tree = search.run()
        return value, tree, True, value
    except Interrupted:
        bound = search.open_bound()
        return search.best, search.tree, bound <= search.best + eps, bound


FREE_SHARE = 0.5
"""Share of the time the search without the minimum leaf size may use first."""


def _solve_min_leaf(data: NumericData, y: np.ndarray, w: np.ndarray, n_classes: int,
                    pen: float, max_depth: int, rows, backend: str, deadline: Deadline | None,
                    min_leaf: int) -> NumericSubtree:
    """:func:`_solve_deep` under a minimum leaf size: the optimum without it first (up to
    :data:`FREE_SHARE` of the time).  When that tree keeps every leaf large enough it is
    optimal here too; otherwise its upper bound also bounds the constrained optimum, and the
    constrained search, which gets the rest of the time, stops at a tree that reaches it
    (measured: breast-cancer depth 3, min_leaf 5: 23 s without this, 18 s with it)."""
    free = _solve_deep(data, y, w, n_classes, pen, max_depth, rows, backend,
                       None if deadline is None else deadline.share(FREE_SHARE), 1)
    if free.optimal and _leaves_hold(free, data, min_leaf):
        return free
    out = _solve_deep(data, y, w, n_classes, pen, max_depth, rows, backend, deadline, min_leaf,
                      free.upper_bound)
    if free.upper_bound < out.upper_bound:
        out.upper_bound = max(out.score, free.upper_bound)
        out.optimal = out.optimal or \
            out.upper_bound <= out.score + _tolerance(float(w[out.rows].sum()), pen)
    return out


def _leaves_hold(found: NumericSubtree, data: NumericData, min_leaf: int) -> bool:
    """Every leaf of ``found`` gets at least ``min_leaf`` of its rows (or it is one leaf)."""
    if found.n_leaves <= 1:
        return True
    return bool(np.unique(found.terminal(data.X[found.rows]), return_counts=True)[1].min()
                >= min_leaf)


DEPTH2_SHARE = 0.8
"""Share of the time the depth-2 search may use; CART, the fallback when it is cut short,
gets the rest (CART first cost a third of the search's time on skin, and never pruned a
depth-2 search of the benchmark's data sets)."""


def _depth2_until(ctx: Context, sub, start: tuple[float, Node]
                  ) -> tuple[float, Node, bool, float]:
    """``(value, tree, optimal, bound)`` of the depth-2 search from ``start`` until
    :data:`DEPTH2_SHARE` of the time is used; stopped, the tree is the better of the start
    and CART, and the bound the best a tree with one leaf or with two can score."""
    deadline = ctx.deadline
    ctx.deadline = None if deadline is None else deadline.share(DEPTH2_SHARE)
    try:
        value, tree = solve_depth2(ctx, sub, -np.inf, incumbent=start)
        return value, tree, True, value
    except Interrupted:
        ctx.deadline = deadline
        start = _better(start, cart_incumbent(ctx, sub, 2))
        bound = max(start[0], sub.leaf_correct - ctx.pen, sub.total - 2.0 * ctx.pen)
        return start[0], start[1], bound <= start[0] + ctx.eps, bound
    finally:
        ctx.deadline = deadline


def _better(start: tuple[float, Node], other: tuple[float, Node] | None
            ) -> tuple[float, Node]:
    """The higher-scoring of two ``(score, tree)`` incumbents (``start`` on ties)."""
    return other if other is not None and other[0] > start[0] else start


def _mask_of(data: NumericData, rows) -> np.ndarray:
    """Boolean mask of the selected rows (validated as :meth:`NumericData.view` does)."""
    from .data import _as_mask

    return _as_mask(np.asarray(rows), data.shape[0])
