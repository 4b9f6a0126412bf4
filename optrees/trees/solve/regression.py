"""The solve path of :class:`~optrees.estimators.regression.OptimalTreeRegressor`: the exact
search over every threshold for squared error, CART first, the result as a
:class:`FitResult` of a :class:`RegressionTree`; and the part of it any objective with
three additive row statistics shares (:func:`search_additive`, :func:`fit_result`; survival
trees call them).

The objective is ``SSE / (W var(y)) + lam * leaves`` (``W``: total weight, ``var``: the
weighted variance of y), so ``lam`` means the same on every data set and a single leaf
costs ``1 + lam``.  The search runs on ``y`` standardised and weights divided by ``W``:
the same objective, with statistics of order 1 (no cancellation in ``S_wy2 - S_wy^2 / S_w``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from types import ModuleType, SimpleNamespace

import numpy as np

from ..._logging import progress
from ...compiled import COMPILE_SECONDS, START_SECONDS, kernels_ready
from ...models.regression_tree import RegressionTree
from ...models.result import FitResult, bound_meets
from ...solvers.deadline import Deadline
from ..problem.objectives.squared_error import SquaredError, identical_rows
from ..search.regression import (
    RegressionData,
    RegressionFound,
    binary_kernels,
    kernels,
    search_tree,
)
from ..search.regression.binary import MAX_BINARY_DEPTH, BinaryRegression, search_binary
from ..search.regression.cart import cart_incumbent
from ..search.regression.data import Tree, midpoint
from ..search.regression.segments import NUMPY_LIMIT, segment_costs
from ..search.regression.specialise import AdditiveObjective

MAX_REGRESSION_DEPTH = 4
"""Deepest regression tree solved over every threshold (both searches are tested to depth
4; on numeric columns depth 4 is slow and ends at the time limit with a bound)."""


def solve_regression_tree(X: np.ndarray, y: np.ndarray, w: np.ndarray | None, depth: int,
                          lam: float, min_leaf: int, deadline: Deadline,
                          names: tuple[list[str], list[str], list[bool]] | None = None,
                          random_state: int = 0, max_leaves: int | None = None
                          ) -> FitResult:
    """The best tree of depth <= ``depth`` over every threshold of the float matrix ``X``
    (rows of weight > 0 only), at least ``min_leaf`` rows per leaf and at most
    ``max_leaves`` leaves (None: no limit); "optimal" when proved
    within ``deadline``, else "time_limit" with the best tree found (never worse than
    CART) and a valid lower bound."""
    objective = SquaredError()
    t = StandardTarget.of(y, w)
    y, weights, y_std, w_std = t.y, t.weights, t.y_std, t.w_std
    searched = search_additive(
        objective, X, objective.row_stats(y_std, w_std), (y_std, w_std), depth, lam,
        min_leaf, deadline, lambda Xs: objective.lower_bound(Xs, y_std, w_std),
        random_state, max_leaves, segment_costs)
    feature_names, negated, numeric = names if names is not None else (None, None, None)
    tree, leaf = RegressionTree.routed(searched.found.tree, X, y, weights, feature_names)
    tree.negated_names, tree.numeric = negated, numeric
    value = objective.total(y_std, t.standard(tree.value[leaf]), w_std) + lam * tree.n_leaves
    return fit_result("regression", searched, tree, value)


@dataclass
class StandardTarget:
    """A target and its weights as the regression searches take them: ``y_std = (y - mean) /
    spread`` (weighted mean and standard deviation; spread 1 for a constant target) and
    weights divided by their ``total``, so every cost is of order 1."""

    y: np.ndarray
    weights: np.ndarray
    total: float
    mean: float
    spread: float
    y_std: np.ndarray
    w_std: np.ndarray
    pivot: float = 0.0
    shift: float = 0.0

    @classmethod
    def of(cls, y: np.ndarray, w: np.ndarray | None) -> StandardTarget:
        y = np.asarray(y, dtype=np.float64)
        weights = np.ones(len(y)) if w is None else np.asarray(w, dtype=np.float64)
        total = float(weights.sum())
        share = weights / total
        # around one of the values (y = 1e15 + noise: exact differences), and over the
        # largest deviation (squares of |y| ~ 1e160 overflow, of 1e-170 underflow: the
        # target then looked constant, objective 0 and "optimal")
        pivot = float(y[0]) if len(y) else 0.0
        shift = float(share @ (y - pivot))
        deviation = (y - pivot) - shift
        scale = float(np.max(np.abs(deviation))) if len(y) else 0.0
        spread = scale * float(np.sqrt(share @ (deviation / scale) ** 2)) if scale > 0 \
            else 0.0
        spread = spread if spread > 0 else 1.0
        return cls(y, weights, total, pivot + shift, spread, deviation / spread, share, pivot,
                   shift)

    def standard(self, values: np.ndarray) -> np.ndarray:
        """``values`` (e.g. leaf means) on the scale of ``y_std``, rounded as it was."""
        return ((np.asarray(values, dtype=np.float64) - self.pivot) - self.shift) / self.spread


@dataclass
class Searched:
    """A search's answer (``found``), CART's ``(cost, tree)`` when it ran (``start``), the
    equivalent-points bound (``lower``), the search taken (``path``: "binary" or
    "intervals"), its kernels (``backend``: "numba" or "numpy"), its ``seconds`` and the
    k-means bound with the most leaves (``kmeans``, without penalties; nan: none)."""

    found: RegressionFound
    start: tuple | None
    lower: float
    path: str
    backend: str
    seconds: float
    kmeans: float = np.nan


def search_additive(objective: AdditiveObjective, X: np.ndarray, stats: np.ndarray,
                    cart_target: tuple[np.ndarray, np.ndarray | None], depth: int,
                    lam: float, min_leaf: int, deadline: Deadline,
                    lower_bound: Callable[[np.ndarray], float], random_state: int = 0,
                    max_leaves: int | None = None, segments: Segments | None = None
                    ) -> Searched:
    """The exact search of an objective with three additive row statistics ``stats``
    (scaled so that costs are of order 1): on 0/1 columns the 0/1 search
    (:mod:`~optrees.trees.search.regression.binary`), else the search over every threshold,
    each compiled when it can be (the objective's ``leaf_cost_kernel``).  ``cart_target``:
    ``(y, w)`` CART is fitted on for the first incumbent; ``lower_bound(X)``: a cost no tree
    over the columns of ``X`` beats (without penalties); ``segments``: the objective's
    k-means style bound (:func:`~optrees.trees.search.regression.segments.segment_costs`
    for squared error), None for none."""
    t0 = time.perf_counter()
    two_valued = binary_path(X, depth, max_leaves, deadline, objective)
    if two_valued is not None:
        floors = root_floors(segments, X, stats, depth, True)
        found, start, lower = _solve_binary(objective, X, two_valued, stats, cart_target,
                                            depth, lam, min_leaf, deadline, lower_bound,
                                            random_state, floors)
        backend = "numba"
    else:
        # the bounds are optional (0 is one): on large data each takes a grouping of the
        # rows (identical_rows), skipped when the time left cannot pay for it
        lower, took = (0.0, 0.0) if deadline.expired() else timed(lower_bound, X)
        kernel = compiled_kernel(objective, depth, deadline, small_fit(X, depth))
        compiled = kernel is not None
        data = RegressionData(X, stats, objective.leaf_cost, lam, min_leaf, kernel,
                              None if segments is None
                              else partial(segments, compiled=compiled))
        floors = None if deadline.remaining() <= 2 * took else \
            root_floors(segments, X, stats, depth, compiled)
        start = cart_incumbent(data, *cart_target, depth, random_state, max_leaves)
        found = search_tree(data, depth, deadline, start, lower, max_leaves=max_leaves,
                            floors=floors)
        backend = "numpy" if data.kernel is None else "numba"
    return Searched(found, start, lower, "binary" if two_valued is not None else "intervals",
                    backend, time.perf_counter() - t0,
                    np.nan if floors is None else float(floors[-1]))


def timed(step: Callable[[np.ndarray], float], X: np.ndarray) -> tuple[float, float]:
    """``step(X)`` and the seconds it took."""
    t0 = time.perf_counter()
    return step(X), time.perf_counter() - t0


Segments = Callable[..., "np.ndarray | None"]
"""``segments(S, k, compiled=...)``: :func:`~.search.regression.segments.segment_costs`."""


def root_floors(segments: Segments | None, X: np.ndarray, stats: np.ndarray, depth: int,
                compiled: bool) -> np.ndarray | None:
    """For ``k = 1..2^depth`` leaves, a cost no tree over ``X`` with at most ``k`` leaves
    beats (without penalties): ``segments`` over the groups of identical rows of ``X`` (a
    group never parts, so its own cost counts in any partition: OSRT's k-means equivalent
    points bound); None without ``segments``."""
    if segments is None:
        return None
    group = identical_rows(X)
    sums = np.stack([np.bincount(group, weights=column) for column in stats.T], axis=-1)
    return segments(sums, 2 ** depth, compiled=compiled and len(sums) > NUMPY_LIMIT)


def fit_result(task: str, searched: Searched, tree: RegressionTree, value: float,
               stats: dict | None = None) -> FitResult:
    """The :class:`FitResult` of a search of :func:`search_additive` whose tree, rebuilt
    from the training rows, has objective ``value``: its bound (``value`` when proved), the
    progress line of ``task``, and the statistics (``stats`` added)."""
    found = searched.found
    # a stopped search whose bound met its tree proved it all the same (e.g. a perfect fit)
    proved = found.optimal or bound_meets(value, min(found.bound, value))
    bound = value if proved else min(found.bound, value)
    progress(task, searched.seconds, incumbent=value, bound=bound,
             gap=abs(value - bound) / max(abs(value), 1e-9), nodes=found.evaluations,
             proved=proved)
    out = {"bb_nodes": 0, "search_seconds": searched.seconds,
           "search_nodes": found.evaluations, "search_optimal": found.optimal,
           "thresholds": "all", "search": searched.path, "search_backend": searched.backend,
           "cart_objective": np.nan if searched.start is None else searched.start[0],
           "equivalent_points_bound": searched.lower, "kmeans_bound": searched.kmeans,
           "kmeans_pruned": found.pruned}
    out.update(stats or {})
    return FitResult(tree, "optimal" if proved else "time_limit", value, bound,
                     searched.seconds, out)


SMALL_REGRESSION_CELLS = 5_000
"""Largest ``rows * columns`` of a depth-2 fit that runs numpy when the compiled kernels are
not loaded in the process (diabetes, 442 x 10: 0.07 s with numpy, about what a new process
pays to import numba and load the kernels; depth 3 always compiles: 150 rows of it took 7 s
with numpy)."""


def small_fit(X: np.ndarray, depth: int) -> bool:
    """A fit small enough for the numpy paths (:data:`SMALL_REGRESSION_CELLS`)."""
    return depth <= 1 or (depth == 2 and X.size <= SMALL_REGRESSION_CELLS)


def compiled_kernel(objective: AdditiveObjective, depth: int, deadline: Deadline,
                    small: bool = False) -> ModuleType | SimpleNamespace | None:
    """The compiled kernels of ``objective`` when a search of depth >= 2 can use them:
    numba importable, and the kernels loaded in this process, or (not a ``small`` fit, and
    :data:`START_SECONDS` left) compiled or cached already or enough time left to compile
    them (their first compilation takes seconds and cannot be interrupted)."""
    if depth < 2 or not kernels.available():
        return None
    if not kernels.imported() and (small or deadline.remaining() < START_SECONDS):
        return None  # numpy finishes first, or numba's start-up would overrun the limit
    kernel = kernels.for_objective(objective)
    if kernels.loaded(kernel):
        return kernel
    if small or deadline.remaining() < START_SECONDS:  # even a cache load takes that
        return None
    if (kernels_ready(kernel, kernels.ENTRY_POINTS)
            or deadline.remaining() >= COMPILE_SECONDS):
        return kernel
    return None


LARGE_CART_CELLS = 1_000_000
"""A 0/1 fit of depth >= 3 on at least this many cells runs CART before its search (100,000
x 40 at depth 4: 0.8 s), a smaller one only after a stop (milliseconds)."""


def _solve_binary(objective: AdditiveObjective, X: np.ndarray,
                  two_valued: tuple[np.ndarray, np.ndarray], stats: np.ndarray,
                  cart_target: tuple[np.ndarray, np.ndarray | None], depth: int,
                  lam: float, min_leaf: int, deadline: Deadline,
                  lower_bound: Callable[[np.ndarray], float], random_state: int,
                  floors: np.ndarray | None = None
                  ) -> tuple[RegressionFound, tuple | None, float]:
    """The 0/1 search on two-valued columns: its answer, CART's ``(cost, tree)`` (a stopped
    search keeps the cheaper of the two; nothing prunes with CART, so it runs after a stop,
    or before the search on a large matrix, where it takes a second that would come after
    the deadline) and the equivalent-points bound (raised to the k-means bound of the most
    leaves, ``floors[-1]``, when given)."""
    lo, hi = two_valued
    X01 = X > lo
    lower = lower_bound(X01)
    if floors is not None:
        lower = max(lower, float(floors[-1]))

    def cart() -> tuple | None:
        data = RegressionData(X, stats, objective.leaf_cost, lam, min_leaf)
        return cart_incumbent(data, *cart_target, depth, random_state, None)

    start = cart() if depth >= 3 and X.size >= LARGE_CART_CELLS else None
    found = search_binary(BinaryRegression(X01, stats, lam, min_leaf, random_state or 0,
                                           objective), depth, deadline, lower)
    if not found.optimal:
        start = cart() if start is None else start
        if start is not None and start[0] < found.cost:
            found.tree, found.cost = _to_binary(start[1]), start[0]
    found.tree = _from_binary(found.tree, lo, hi)
    return found, start, lower


def binary_path(X: np.ndarray, depth: int, max_leaves: int | None, deadline: Deadline,
                objective: AdditiveObjective | None = None
                ) -> tuple[np.ndarray, np.ndarray] | None:
    """``(lo, hi)`` per column when every column of ``X`` has at most two values and the
    0/1 search (:mod:`~optrees.trees.search.regression.binary`) can take the fit: every
    threshold of such a column is the same split, so its answer is the same optimum.  None
    (the interval search) with a leaf budget, above depth 4, without numba, or when the
    objective's kernels are neither loaded nor worth compiling (a small fit, or too little
    time).  ``objective``: None for squared error."""
    if (depth > MAX_BINARY_DEPTH or (max_leaves is not None and max_leaves < 2 ** depth)
            or len(X) < 2):
        return None
    lo, hi = X.min(axis=0), X.max(axis=0)
    if not ((X == lo) | (X == hi)).all():  # first: numeric data never loads these kernels
        return None
    if not binary_kernels_usable(depth, deadline, X.size, objective):
        return None
    return lo, hi


def binary_kernels_usable(depth: int, deadline: Deadline, cells: int,
                          objective: AdditiveObjective | None = None) -> bool:
    """numba importable, and the objective's 0/1 kernels loaded, or (beyond a small
    depth <= 2 fit) cached or with time to compile them."""
    if not kernels.available():
        return False
    if binary_kernels.imported() and binary_kernels.loaded(
            binary_kernels.for_objective(objective)):
        return True
    if (depth <= 2 and cells <= SMALL_REGRESSION_CELLS) or deadline.remaining() < START_SECONDS:
        return False
    kernel = binary_kernels.for_objective(objective)
    if (kernels_ready(kernel, binary_kernels.ENTRY_POINTS)
            or deadline.remaining() >= COMPILE_SECONDS):
        binary_kernels.compile_kernels(kernel)  # loaded from then on: no disk check per fit
        return True
    return False


def _to_binary(tree: Tree) -> Tree:
    """A tree over two-valued columns with every threshold as the 0/1 search writes it."""
    if tree is None:
        return None
    f, _, left, right = tree
    return (f, 0.5, _to_binary(left), _to_binary(right))


def _from_binary(tree: Tree, lo: np.ndarray, hi: np.ndarray) -> Tree:
    """The 0/1 search's tree with each threshold between the column's two values."""
    if tree is None:
        return None
    f, _, left, right = tree
    return (f, midpoint(float(lo[f]), float(hi[f])), _from_binary(left, lo, hi),
            _from_binary(right, lo, hi))
