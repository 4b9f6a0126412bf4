"""Tree pricing ([RUG] §3.4, the proxy pricing subproblem): rules from dual-weighted trees.

A greedy Gini tree of depth ``max_depth`` is fitted with ``sample_weight = beta`` (Lemma 1:
beta_i > 0 only for samples with positive slack or on the margin); every leaf is a rule, the
conjunction of the conditions on its path on the raw features.  Which leaf rules enter the
pool, and with which class, the generation loop decides by their reduced cost (5).  The tree
is :mod:`.greedy_tree`'s compiled one (scikit-learn's tree, same splits, without its input
checks, which cost most of a fit on small data); scikit-learn's own runs where that one
cannot: missing values, or no compiled kernel and too little time to compile it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from .. import compiled
from .._numbers import short_threshold
from ..encoding.columns import RawColumns
from ..encoding.ranks import Ranked
from ..models.rule_set import Literal, simplify_literals
from ..solvers.deadline import Deadline


def split_literal(raw: RawColumns, j: int, threshold: float, left: bool) -> Literal:
    """The literal of one side of a tree split on column j of ``raw.matrix``: ``x <= t`` /
    ``x > t`` for a numeric column, ``col != v`` / ``col == v`` for a one-hot column."""
    name, kind, value = raw.encoded[j]
    if kind == "num":  # written short where no training value lies between
        t = short_threshold(threshold, raw.sorted_numeric(name))
        return Literal(name, "<=" if left else ">", t)
    return Literal(name, "!=" if left else "==", value)


def tree_leaf_rules(t: Any, raw: RawColumns) -> list[tuple[Literal, ...]]:
    """The conjunction of conditions on the path to each leaf (redundant conditions dropped) of
    a tree in scikit-learn's ``tree_`` layout (``children_left``, ``children_right``,
    ``feature``, ``threshold``; a :class:`.greedy_tree.GreedyTree` or a fitted
    ``DecisionTreeClassifier().tree_``)."""
    out: list[tuple[Literal, ...]] = []
    stack: list[tuple[int, tuple[Literal, ...]]] = [(0, ())]
    while stack:
        node, path = stack.pop()
        left, right = t.children_left[node], t.children_right[node]
        if left == -1:
            out.append(simplify_literals(path, raw.names))
            continue
        f, thr = int(t.feature[node]), float(t.threshold[node])
        stack.append((right, path + (split_literal(raw, f, thr, left=False),)))
        stack.append((left, path + (split_literal(raw, f, thr, left=True),)))
    return out


class TreePricer:
    """Callable pricer: the leaf rules of a tree fitted with the given sample weights (None:
    unweighted, for the initial rules).  ``deadline``: the fit's, which decides whether the
    compiled tree may be compiled now (:func:`~optrees.compiled.backend_for`)."""

    def __init__(self, raw: RawColumns, y: np.ndarray, max_depth: int, random_state: int,
                 deadline: Deadline | None = None) -> None:
        self.raw = raw
        self.y = y
        self.n_classes = int(y.max()) + 1 if len(y) else 1
        self.max_depth = max_depth
        self.random_state = random_state
        self.n_trees = 0
        X = np.asarray(raw.matrix, dtype=np.float64)
        self.fast = bool(np.isfinite(X).all()) and compiled.backend_for(
            Deadline() if deadline is None else deadline, _ready, _compile,
            X.size <= compiled.SMALL_PRICING_CELLS, _loaded) == "numba"
        if self.fast:  # imported here: numba only when the compiled tree runs
            from .greedy_tree import Presorted, grow_tree

            self.sorted, self.grow = Presorted.of(X), grow_tree
        else:
            # finite: the tree grows on value ranks (:mod:`~optrees.encoding.ranks`: on the
            # values it changed with a column's units); with NaN, which scikit-learn must
            # see to route missing values, on the float32 values
            self.ranked = Ranked(X) if np.isfinite(X).all() else None
            self.X = np.ascontiguousarray(X, dtype=np.float32) if self.ranked is None \
                else self.ranked.ranks
            self.check_input = self.ranked is None  # float32 C-contiguous, finite: no check

    def __call__(self, sample_weight: np.ndarray | None) -> list[tuple[Literal, ...]]:
        # a new seed per round, as a new random tree (ties between equally good splits go
        # to the first column in a seeded order; one seed repeats the same choice each round)
        self.n_trees += 1
        seed = self.random_state + self.n_trees
        if self.fast:
            weight = np.ones(len(self.y)) if sample_weight is None else sample_weight
            columns = np.random.default_rng(seed).permutation(self.sorted.X.shape[1])
            return tree_leaf_rules(self.grow(self.sorted, self.y, weight, self.n_classes,
                                             self.max_depth, columns), self.raw)
        tree = DecisionTreeClassifier(max_depth=self.max_depth, random_state=seed)
        X, y, weight = self.X, self.y, sample_weight
        if weight is not None:  # samples of zero weight change no split: leave them out
            rows = np.flatnonzero(weight > 0)
            X, y, weight = X[rows], y[rows], weight[rows]
        tree.fit(X, y, sample_weight=weight, check_input=self.check_input)
        t = tree.tree_ if self.ranked is None else self.ranked.tree(tree.tree_)
        return tree_leaf_rules(t, self.raw)


def _ready() -> bool:
    """The compiled tree is compiled in this process or cached on disk."""
    if not compiled.numba_available():
        return False
    from . import greedy_tree

    return compiled.kernels_ready(greedy_tree, ["_grow"])


def _loaded() -> bool:
    """The compiled tree already has machine code in this process (numba not imported)."""
    return compiled.kernels_loaded(f"{__package__}.greedy_tree", ["_grow"])


def _compile() -> None:
    """Compile (or load from numba's cache) the compiled tree: one tiny fit."""
    from .greedy_tree import Presorted, grow_tree

    rng = np.random.default_rng(0)
    grow_tree(Presorted.of(rng.random((12, 2))), rng.integers(0, 2, 12), np.ones(12), 2, 2,
              np.arange(2))
