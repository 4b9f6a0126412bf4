"""The λ-path of a regression depth (issue #44): the best regression tree of every leaf count
over every threshold, and the leaf penalties for which each is
:class:`~optrees.estimators.regression.OptimalTreeRegressor`'s optimum.

With ``F(B)`` the least normalised loss ``SSE / (W var(y))`` of a tree with at most ``B``
leaves, the regressor's optimum at ``lam`` is ``min_B F(B) + lam * B``: the points on the
lower convex hull of ``(leaves, F)`` are the optima, each over an interval of ``lam``.

How it is found: **not** one search keeping every leaf count (the classification front's
:mod:`~optrees.trees.search.binary.leaf_fronts` does that on 0/1 features), but the hull by
*λ-bisection* (the searches share their depth-2 subproblems, kept as fronts of leaf counts,
:mod:`~optrees.trees.search.regression.depth2_front`, so the later ones cost far less):
the exact penalised search (the fast, unbudgeted one a fit runs) at ``lam = 0`` gives the
hull's last vertex, a leaf its first; between two hull vertices ``a < c`` one
search at the slope ``lam`` of the chord either finds a tree strictly below the chord (a new
vertex, then both halves are searched) or proves there is none.  A hull of ``h`` vertices
costs at most ``2h - 2`` searches (a chord between adjacent leaf counts needs none), each
starting from the best tree known at its ``lam``.

Every search at ``lam_i`` with proven bound ``b_i`` also proves ``F(B) >= b_i - lam_i * B``
for every budget ``B``; so each point carries a proven lower ``bound`` (and ``optimal`` when
its tree meets it): hull vertices are proved, a budget off the hull gets the best tree known
with at most ``B`` leaves and the hull's chord as its bound.  ``budgets="all"`` then closes
those gaps with one budgeted search per unproved budget (largest first, each starting from
the best tree known within its budget; a budget inherits its neighbour's optimum when it
fits): exact; at depth 3 it cost 1.1-3x one fit (``bench/regression_path_cost.py``'s sets).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from ..._validation import (
    OptreesInputError,
    check_depth,
    check_frame,
    check_min_leaf,
    check_regression_target,
    check_time_limit,
    drop_weightless,
    fit_weights,
)
from ...encoding.binary import every_threshold
from ...models.regression_tree import RegressionTree
from ...solvers.deadline import Deadline, TimeUp
from ..problem.objectives.squared_error import SquaredError
from ..search.regression import RegressionData, RegressionFound, search_tree
from ..search.regression.cart import cart_incumbent
from ..search.regression.data import Tree
from ..search.regression.depth2_front import depth2_front
from ..search.regression.segments import segment_costs
from .fit import min_leaf_rows
from .path import PathFront, hull_lams
from .regression import (
    MAX_REGRESSION_DEPTH,
    StandardTarget,
    binary_path,
    compiled_kernel,
    root_floors,
    search_additive,
    small_fit,
)

TOL = 1e-9
"""Normalised losses (about 1) closer than this are equal: a tree is a new hull vertex only
when it is below the chord by more, and a point is proved when its loss is within this of
its bound."""

BUDGETS = ("hull", "all")

ROOT_FRONT_CELLS = 4_500
"""Largest ``rows * columns`` whose depth-2 path is one front of all rows (the compiled
depth-2 scan, ``F^2 m^2`` steps: diabetes' 442 x 10 in about 0.05 s) rather than a search
per hull vertex (the interval search takes larger data faster)."""

Names = tuple[list[str], list[str], list[bool]]
"""Feature names, negated names and numeric flags of the encoded columns."""


@dataclass
class RegressionPathPoint:
    """The best tree found with at most ``budget`` leaves: its normalised training ``loss``
    (``SSE / (W var(y))``, 1 for a single leaf), a proven lower ``bound`` on the least loss
    of any tree of the budget, ``optimal`` when the two meet, the tree's own ``leaves``,
    the ``tree`` and ``lams``: the interval of ``lam`` for which it is
    OptimalTreeRegressor's optimum (None: off the hull)."""

    budget: int
    leaves: int
    loss: float
    bound: float
    optimal: bool
    tree: RegressionTree
    lams: tuple[float, float] | None


class RegressionFront(PathFront):
    """The points of a regression path, budget 1 first (a list of
    :class:`RegressionPathPoint`), and ``complete`` (:class:`~.path.PathFront`): every
    search finished and every chord of the hull was checked before the time limit, so each
    hull point's ``lams`` is proved (a budget off the hull may keep a gap by design);
    ``searches``: the exact searches it took (penalised and budgeted)."""

    searches: int = 0


def regression_front(X: object, y: object, depth: int, *, sample_weight: object = None,
                     min_samples_leaf: int = 1, time_limit: float | None = None,
                     budgets: str = "hull") -> RegressionFront:
    """The best regression tree of each leaf count ``1 .. 2^depth`` over every threshold of
    the numeric columns (categoricals one-hot, as :class:`OptimalTreeRegressor`), each point
    certified (see :class:`RegressionPathPoint`), the hull's trees with their λ interval.

    ``budgets="hull"``: the hull by λ-bisection (every λ's optimum proved; a budget off the
    hull gets the best smaller tree and a proven bound); ``"all"``: also one budgeted
    search per budget left unproved, so that every point is exact (slow on numeric data at
    depth 4).  ``time_limit`` covers the whole front: points not proved in time keep
    their best tree and bound."""
    frame = check_frame(X)
    depth = check_depth(depth, MAX_REGRESSION_DEPTH, "the regression search is built to "
                        f"depth {MAX_REGRESSION_DEPTH}")
    frame, target, w = weighted_rows(frame, y, sample_weight)
    min_leaf = check_min_leaf(min_samples_leaf, "min_samples_leaf")
    if budgets not in BUDGETS:
        raise OptreesInputError(f"budgets must be 'hull' or 'all', got {budgets!r}")
    features, _, names = encoded(frame)
    return front_points(features, target, w, depth, min_leaf_rows(min_leaf, len(target)),
                        Deadline(check_time_limit(time_limit)), names, budgets)


def weighted_rows(frame: pd.DataFrame, y: object, sample_weight: object
                  ) -> tuple[pd.DataFrame, np.ndarray, np.ndarray | None]:
    """A checked ``frame`` (columns named by strings, as a fit names them), the checked
    target and weights, rows of weight 0 dropped (they must not move a threshold)."""
    frame = frame.set_axis([str(c) for c in frame.columns], axis=1)
    target = check_regression_target(y, len(frame))
    w = fit_weights(sample_weight, None, np.zeros(0), np.zeros(len(target), np.int64))
    return drop_weightless(frame, target, w)


def encoded(frame: pd.DataFrame) -> tuple[np.ndarray, Any, Names]:
    """``frame`` over every threshold (as OptimalTreeRegressor's search sees it), the
    encoding (to encode other rows alike) and the names :func:`front_points` takes."""
    encoding = every_threshold(frame)
    names = (encoding.names, encoding.negated, list(encoding.encoder.numeric))
    return encoding.transform(frame), encoding, names


def front_points(X: np.ndarray, y: np.ndarray, w: np.ndarray | None, depth: int,
                 min_leaf: int, deadline: Deadline,
                 names: Names | None = None,
                 budgets: str = "hull", random_state: int = 0) -> RegressionFront:
    """The path on an encoded float matrix (rows of weight > 0), as
    :func:`regression_front`; ``names``: feature names, negated names, numeric flags."""
    front = _Front(X, y, w, depth, min_leaf, deadline, random_state)
    complete = front.hull()
    if budgets == "all":
        front.every_budget()
    made: dict[int, RegressionTree] = {}
    out = RegressionFront()
    for budget in range(1, 2 ** depth + 1):
        leaves, loss, tree = front.best_within(budget)
        bound = min(front.lower(budget), loss)
        if id(tree) not in made:
            made[id(tree)] = front.built(tree, names)
        out.append(RegressionPathPoint(budget, leaves, loss, bound,
                                       loss <= bound + TOL,
                                       made[id(tree)], None))
    hull_lams(out, lambda p: -p.loss, TOL)  # the lower convex hull of (leaves, loss)
    out.complete = complete and not front.stopped
    out.searches = front.searches
    return out


@dataclass
class GridTree:
    """The answer of one ``lam`` of :func:`grid_trees`: its ``tree``, whether its search
    proved it (``optimal``) and the search's ``seconds``."""

    lam: float
    tree: RegressionTree
    optimal: bool
    seconds: float


GRID_ORDER = "descending"
"""The order :func:`grid_trees` searches its λ in (largest first: see there)."""


def grid_trees(X: np.ndarray, y: np.ndarray, w: np.ndarray | None, depth: int,
               min_leaf: int, deadline: Deadline, lams: Sequence[float],
               names: Names | None = None, random_state: int | None = 0
               ) -> list[GridTree]:
    """OptimalTreeRegressor's optimum at each ``lam`` of ``lams`` (in their order) on one
    encoded matrix (rows of weight > 0): the exact penalised search a fit runs, at each
    ``lam`` in turn on data set up once (the bounds, the compiled kernels), the searches
    sharing their depth-2 fronts (which do not depend on ``lam``: one scan of a row subset
    serves every ``lam``) and starting from the best tree known at their ``lam`` (the
    earlier searches' trees, CART's pruned at ``lam``).  A search proved gives a tree of
    the fit's objective (ties between trees of one objective broken by the searches, which
    may pick another optimum than a fit).

    The first search costs about a fit (it meets the fronts), the later ones far less (at
    depth 3 on diabetes' 353 rows: 1.8-2.1 s, then 0.01-0.7 s each, in either order).  Each
    search gets its part of what is left of ``deadline`` (an early finish leaves the later
    ones more), as the fits each had their share; the searches that stopped are run once
    more in what is left (from their best tree, on the fronts the others met).  One still
    stopped returns its best tree (never worse than CART's at its ``lam``), ``optimal``
    False.  Largest ``lam`` first (:data:`GRID_ORDER`): the same total time as smallest
    first, but where the first search stops at its share, the later ones, proved, are the
    smaller ``lam`` (the cross-validation's usual choice, whose fits cost most alone)."""
    front = _Front(X, y, w, depth, min_leaf, deadline, random_state)
    order = sorted(set(lams), reverse=GRID_ORDER == "descending")
    done: dict[float, GridTree] = {}
    for rerun in (False, True):  # then once more, in what is left, each search stopped
        todo = [lam for lam in order if not rerun or not done[lam].optimal]
        for i, lam in enumerate(todo):
            if rerun and deadline.expired():
                break
            started = time.perf_counter()
            front.deadline = deadline.share(1.0 / (len(todo) - i)) if deadline.limited \
                else deadline  # (no limit: the same stop flag, no child to make)
            found = front.search(lam, cart=not rerun)  # (a rerun starts from the first's)
            seconds = time.perf_counter() - started + (done[lam].seconds if rerun else 0.0)
            done[lam] = GridTree(lam, front.built(found.tree, names), bool(found.optimal),
                                 seconds)
    return [done[lam] for lam in lams]


class _Front:
    """The searches behind one path (or one grid of λ, :func:`grid_trees`): the data set up
    once, the trees found (``known``: leaves -> (loss, tree), the least loss of each leaf
    count), each search's cut (``cuts``: its ``lam``, proven bound and the budget it was
    limited to, inf for none) and the depth-2 fronts the searches share (``memo``)."""

    def __init__(self, X: np.ndarray, y: np.ndarray, w: np.ndarray | None, depth: int,
                 min_leaf: int, deadline: Deadline, random_state: int) -> None:
        self.objective = SquaredError()
        self.target = t = StandardTarget.of(y, w)
        self.X, self.depth, self.min_leaf, self.deadline = X, depth, min_leaf, deadline
        self.random_state = random_state
        self.stats = self.objective.row_stats(t.y_std, t.w_std)
        self.known: dict[int, tuple[float, Tree]] = {1: (self._loss(None), None)}
        # (lam, bound, most): F(B) >= bound - lam B for every budget B <= most
        self.cuts: list[tuple[float, float, float]] = []
        self.stopped = False
        self.searches = 0
        self.two_valued = binary_path(X, depth, None, deadline)
        self.kernel = compiled_kernel(self.objective, depth, deadline, small_fit(X, depth))
        self._lower = None
        self._floors = None
        self.memo: dict = {}  # row subset -> depth-2 front, shared by every search

    # ------------------------------------------------------------------ the trees
    def _loss(self, tree: Tree) -> float:
        """Normalised loss of ``tree`` on the training rows (routed here: the same number
        whichever search found the tree)."""
        sums = []

        def route(node: Tree, rows: np.ndarray) -> None:
            if node is None:
                sums.append(self.stats[rows].sum(axis=0))
                return
            f, threshold, left, right = node
            go = self.X[rows, f] <= threshold
            route(left, rows[go])
            route(right, rows[~go])

        route(tree, np.arange(len(self.X)))
        return float(self.objective.leaf_cost(np.array(sums)).sum())

    def _add(self, tree: Tree) -> tuple[int, float]:
        """Record a tree found; its leaves and loss."""
        leaves, loss = _leaves(tree), self._loss(tree)
        if leaves not in self.known or loss < self.known[leaves][0]:
            self.known[leaves] = (loss, tree)
        return leaves, loss

    def built(self, tree: Tree, names: Names | None) -> RegressionTree:
        """``tree`` as a :class:`RegressionTree` of the training rows (leaf means), named by
        ``names`` (None: unnamed)."""
        t = self.target
        out, _ = RegressionTree.routed(tree, self.X, t.y, t.weights,
                                       None if names is None else names[0])
        if names is not None:
            out.negated_names, out.numeric = names[1], names[2]
        return out

    def best_within(self, budget: int) -> tuple[int, float, Tree]:
        """The known tree of least loss with at most ``budget`` leaves (fewest leaves on a
        tie within :data:`TOL`)."""
        best = None
        for leaves in sorted(k for k in self.known if k <= budget):
            loss, tree = self.known[leaves]
            if best is None or loss < best[1] - TOL:
                best = (leaves, loss, tree)
        return best

    def lower(self, budget: int) -> float:
        """A proven bound on ``F(budget)``: the best of every search's cut at this budget
        and at the larger budgets (``F`` does not rise as the budget grows)."""
        b = self.known[1][0] if budget == 1 else 0.0  # a leaf: its loss is F(1)
        for lam, bound, most in self.cuts:
            b = max([b] + [bound - lam * k for k in range(budget, 2 ** self.depth + 1)
                           if k <= most])
        return b

    # ------------------------------------------------------------------ the searches
    def _setup(self) -> None:
        """The bounds shared by every search (computed on the first)."""
        if self._lower is None:
            t = self.target
            self._lower = self.objective.lower_bound(self.X, t.y_std, t.w_std)
            self._floors = None if self.deadline.expired() else root_floors(
                segment_costs, self.X, self.stats, self.depth, self.kernel is not None)

    def _data(self, lam: float) -> RegressionData:
        return RegressionData(self.X, self.stats, self.objective.leaf_cost, lam,
                              self.min_leaf, self.kernel,
                              partial(segment_costs, compiled=self.kernel is not None),
                              self.memo, fronts=True)

    def search(self, lam: float, max_leaves: int | None = None, cart: bool = False
               ) -> RegressionFound:
        """One exact search at ``lam`` (with at most ``max_leaves`` leaves: at ``lam`` 0)
        within ``self.deadline``, from the best known tree at ``lam`` and CART's (pruned
        at ``lam``; the first time, or every time with ``cart``: a stopped search is then
        never worse than CART, as a fit's); records its bound as a cut and its tree, and
        returns its answer."""
        self._setup()
        t = self.target
        if self.two_valued is not None and max_leaves is None:
            found = search_additive(
                self.objective, self.X, self.stats, (t.y_std, t.w_std), self.depth, lam,
                self.min_leaf, self.deadline,
                lambda Xs: self.objective.lower_bound(Xs, t.y_std, t.w_std),
                self.random_state, None, segment_costs).found
        else:
            data = self._data(lam)
            cap = 2 ** self.depth if max_leaves is None else max_leaves
            start = min(((loss + lam * k, tree) for k, (loss, tree) in self.known.items()
                         if k <= cap), key=lambda s: s[0])
            if cart or len(self.known) == 1:  # CART's tree may be the better start
                greedy = cart_incumbent(data, t.y_std, t.w_std, self.depth,
                                        self.random_state, max_leaves)
                if greedy is not None:
                    cost = self._loss(greedy[1]) + lam * _leaves(greedy[1])
                    start = min(start, (cost, greedy[1]), key=lambda s: s[0])
            found = search_tree(data, self.depth, self.deadline, start, self._lower,
                                max_leaves=max_leaves, floors=self._floors)
        self.stopped |= not found.optimal
        self.searches += 1
        self.cuts.append((lam, float(found.bound),
                          np.inf if max_leaves is None else max_leaves))
        self._add(found.tree)
        return found

    def whole_depth2(self) -> bool:
        """Depth 2 on rows small enough (:data:`ROOT_FRONT_CELLS`): every budget's optimum
        from one front of all rows (:mod:`~optrees.trees.search.regression.depth2_front`),
        recorded as proved; False when that does not apply or the deadline stopped it."""
        n, F = self.X.shape
        if self.depth != 2 or self.kernel is None or n * F > ROOT_FRONT_CELLS:
            return False
        data = self._data(0.0)
        try:
            front = depth2_front(data, data.root(), self.min_leaf, self.deadline)
        except TimeUp:
            return False
        for k in range(1, 5):
            self._add(front.trees[k - 1])
            self.cuts.append((0.0, float(front.limited[k - 1]), k))  # F(B) >= F(k), B <= k
        self.searches += 1
        return True

    def hull(self) -> bool:
        """The hull's vertices by λ-bisection (module docstring); whether every chord was
        checked before the deadline."""
        if self.whole_depth2():
            return True
        top, _ = self._add(self.search(0.0).tree)
        pending = [(1, top)] if top > 1 else []
        while pending and not self.deadline.expired():
            a, c = pending.pop()
            if c - a < 2:
                continue  # no leaf count between: the chord is an edge of the hull
            (fa, _), (fc, _) = self.known[a], self.known[c]
            lam = (fa - fc) / (c - a)
            if lam <= 0:
                continue
            leaves, loss = self._add(self.search(lam).tree)
            if a < leaves < c and loss + lam * leaves < fa + lam * a - TOL:
                pending += [(a, leaves), (leaves, c)]
        return not pending

    def every_budget(self) -> None:
        """One budgeted search per budget not proved yet, largest first."""
        for budget in range(2 ** self.depth - 1, 1, -1):
            if self.deadline.expired():
                return
            _, loss, _ = self.best_within(budget)
            if loss > self.lower(budget) + TOL:
                self.search(0.0, max_leaves=budget)


def _leaves(tree: Tree) -> int:
    return 1 if tree is None else _leaves(tree[2]) + _leaves(tree[3])
