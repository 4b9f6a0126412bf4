"""The Rashomon set of near-optimal trees on 0/1 features (issue #46, item 3):
:func:`rashomon_set` and the compact :class:`RashomonSet` it returns.

The objective is TreeFARMS's (Xin et al. 2022, "Exploring the whole Rashomon set of sparse
decision trees"): misclassified weight / total weight + ``lam`` * leaves, so
``1 - objective`` is BendOCT's accuracy - lam * leaves.  The set is every tree of depth at
most ``depth`` with objective at most ``(1 + epsilon) * optimum`` (``optimum + epsilon`` when
``additive``), the optimum certified by the exact subtree search first; the trees are
counted as TreeFARMS counts them (:mod:`optrees.trees.search.rashomon.build`)."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd

from ..._numbers import clean_midpoints, threshold_text
from ..._validation import (
    OptreesInputError,
    check_depth,
    check_frame,
    check_lam,
    check_max_leaves,
    check_target,
    check_time_limit,
    fit_weights,
)
from ...encoding.binary import binarize, every_threshold, has_numeric_column
from ...models.binary_tree import BinaryTree
from ...solvers.deadline import Deadline
from ..search.binary.entry import solve_subtree
from ..search.rashomon import walk
from ..search.rashomon.build import (
    LEAF_BITS,
    Builder,
    RashomonSetTooLarge,
    Scale,
    SetNode,
)
from ..search.threads import on_one_blas_thread
from .fit import min_leaf_rows

__all__ = ["RashomonSet", "RashomonSetTooLarge", "rashomon_set"]

MAX_RASHOMON_DEPTH = 4
"""Deepest set: a depth-d node loops over every feature for each child of depth d - 1."""

MAX_THRESHOLD_DEPTH = 3
"""Deepest set over every threshold of numeric columns (the literals are many)."""

MAX_THRESHOLD_LITERALS = {1: 1_500, 2: 1_500, 3: 150}
"""Most literals over every threshold, by depth.  A depth-2 node's stump tables hold
F x F x K cells; at depth 3 the root builds 2F of them and lists their stumps, so the work
grows as F^3 rows: measured (2-core machine, lam 0.01), iris's 119 literals took 5.5 s
(epsilon 0.05) and 9.7 s (0.2), the first four columns of wine (397 literals) 226 s."""

MAX_NODES = 10_000_000
"""Default cap on the DAG's stored entries (histogram entries, stumps, splits).  Measured with
tracemalloc, the DAG held 46-64 bytes per entry with its node objects (tic-tac-toe and
balance-scale, depth 3, sets of 3.4 and 8.2 million trees in 3.1 and 1.9 MB), so the
default is about 0.6 GB."""


def check_epsilon(epsilon: object) -> float:
    """``epsilon`` as a float >= 0, or one clear error."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, np.number)) or \
            not math.isfinite(float(epsilon)) or float(epsilon) < 0:
        raise OptreesInputError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    return float(epsilon)


def rashomon_set(X: Any, y: Any, depth: int = 3, lam: float = 0.01, epsilon: float = 0.05,
                 *, additive: bool = False, min_samples_leaf: int | float = 1,
                 sample_weight: Any = None, max_nodes: int = MAX_NODES,
                 time_limit: float | None = None, binarizer: Any = None,
                 max_leaves: int | None = None) -> RashomonSet:
    """Every tree of depth <= ``depth`` whose objective (misclassification rate + ``lam`` *
    leaves, weighted by ``sample_weight``) is at most ``(1 + epsilon)`` times the optimum, or
    the optimum + ``epsilon`` when ``additive``; leaves keep ``min_samples_leaf`` rows; with
    ``max_leaves``, trees of at most that many leaves (the optimum too is theirs).

    ``X``: 0/1 and categorical columns (one-hot), numeric ones over every threshold, or raw
    columns with a ``binarizer`` (``"auto"`` or a
    :class:`~optrees.Binarizer`: the set is then over its literals).  The optimum comes from
    the exact subtree search within ``time_limit``; an optimum it does not prove is refused.
    ``max_nodes`` caps the stored entries (about 60 bytes each): a set whose DAG needs more
    is still counted exactly under the cap (``len``, :meth:`RashomonSet.objective_counts`),
    but not listed (``listable`` False: iteration, indexing, sampling and importance raise
    :class:`RashomonSetTooLarge` naming the count and the cap)."""
    frame = check_frame(X)
    depth = check_depth(depth, MAX_RASHOMON_DEPTH, "the set's build loops over F^depth splits")
    lam = check_lam(lam)
    epsilon = check_epsilon(epsilon)
    classes, y_enc = check_target(y, len(frame))
    w = fit_weights(sample_weight, None, classes, y_enc)
    keep = None if w is None else w > 0  # rows of weight 0 count nowhere
    if keep is not None and not keep.all():
        frame, y_enc, w = frame[keep], y_enc[keep], w[keep]
    min_leaf = _min_leaf(min_samples_leaf, len(y_enc))
    max_leaves = check_max_leaves(max_leaves, depth)
    deadline = Deadline(check_time_limit(time_limit))
    literals = None
    if binarizer is None and has_numeric_column(frame):  # every threshold, at depth <= 3
        check_threshold_depth(depth)
        encoder = every_threshold(frame).encoder
        literals = ThresholdLiterals(encoder, encoder.transform(frame), depth)
        X01, names = literals.matrix, (literals.names, literals.negated)
    else:
        # categorical columns one-hot, as BendOCT reads them; 0/1 columns as they are
        X01, encoding = binarize(frame, "auto" if binarizer is None else binarizer, w)
        names = (encoding.names, encoding.negated)
    weights = np.ones(len(y_enc)) if w is None else np.asarray(w, dtype=float)
    found = solve_subtree(X01, y_enc, depth, lam * float(weights.sum()), weights,
                          n_classes=len(classes), deadline=deadline, min_leaf=min_leaf,
                          max_leaves=max_leaves)
    if not found.optimal:
        raise OptreesInputError(
            "the optimum was not proved within time_limit; the Rashomon set is defined by "
            "the certified optimum: raise time_limit or lower depth")
    optimum = 1.0 - found.score / float(weights.sum())
    return build_set(X01, y_enc, weights, classes, names, depth, lam, epsilon, additive,
                     min_leaf, optimum, max_nodes, literals, max_leaves)


def check_threshold_depth(depth: int) -> None:
    """One clear error for a set over every threshold deeper than it is built."""
    if depth > MAX_THRESHOLD_DEPTH:
        raise OptreesInputError(
            f"over every threshold of numeric columns the set is built at depth <= "
            f"{MAX_THRESHOLD_DEPTH} (the work grows as literals^depth); give "
            f"binarizer='auto' or a Binarizer for depth {depth}")


def _min_leaf(value: object, n_rows: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer)) or \
            (isinstance(value, (int, np.integer)) and value < 1) or \
            (isinstance(value, float) and not 0.0 < value < 1.0):
        raise OptreesInputError(f"min_samples_leaf must be an integer >= 1 or a fraction in "
                                f"(0, 1), got {value!r}")
    return min_leaf_rows(int(value) if isinstance(value, np.integer) else value, n_rows)


@on_one_blas_thread
def build_set(X01: np.ndarray, y_enc: np.ndarray, w: np.ndarray, classes: np.ndarray,
              names: tuple[list[str], list[str]], depth: int, lam: float, epsilon: float,
              additive: bool, min_leaf: int, optimum: float,
              max_nodes: int = MAX_NODES, literals: ThresholdLiterals | None = None,
              max_leaves: int | None = None) -> RashomonSet:
    """The set on a checked 0/1 matrix, given the certified ``optimum`` (TreeFARMS's units;
    a better tree found by the DP, which lists every tree below the bound, replaces it)."""
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, (int, np.integer)) or \
            max_nodes < 1:
        raise OptreesInputError(f"max_nodes must be an integer >= 1, got {max_nodes!r}")
    scale = Scale.make(w, lam, depth, 0 if max_leaves is None else LEAF_BITS)

    def new_builder() -> Builder:
        return Builder(X01, y_enc, w, len(classes), scale, min_leaf, int(max_nodes),
                       max_leaves)

    for _ in range(2):
        bound = optimum + epsilon if additive else (1.0 + epsilon) * optimum
        builder = new_builder()
        rows = np.ones(len(y_enc), dtype=bool)
        try:
            root = builder.node(rows, depth, scale.bound_key(bound))
        except RashomonSetTooLarge:  # too large to list: counted under the same cap
            builder = new_builder()
            builder.listing = False
            root = builder.node(rows, depth, scale.bound_key(bound))
        best = float(scale.objective(root.best)) if len(root.keys) else np.inf
        if best >= optimum - 1e-9:
            break
        # the DP lists every tree below the bound: one better than a MIP's "optimal" tree
        # (proved within the solver's gap tolerance) is the optimum
        optimum = best
    if best > optimum + 1e-8:
        raise RuntimeError(f"the set's best objective {best} is not the certified optimum "
                           f"{optimum}")  # pragma: no cover - a bug, not an input
    return RashomonSet(root, scale, builder.entries, X01, y_enc, w, classes, names,
                       dict(listable=builder.listing, max_nodes=int(max_nodes),
                            max_leaves=max_leaves, depth=depth, lam=lam, epsilon=epsilon,
                            additive=additive, min_samples_leaf=min_leaf, optimum=optimum,
                            bound=bound, literals=literals))


class RashomonSet:
    """The trees of one Rashomon set, stored as a DAG of subproblems (never as a list).

    ``len(s)`` / ``s.count`` (exact, a Python int), ``s[i]`` (a :class:`BinaryTree`, in
    objective order: ``s[0]`` is optimal), iteration, :meth:`sample`, :attr:`objectives`,
    :meth:`feature_importance`; :meth:`structure` gives a tree as a nested tuple
    ``(feature, left, right)`` with class indices at the leaves (``x_f = 0`` left), faster
    than a :class:`BinaryTree`.  ``optimum``, ``bound``, ``epsilon``, ``lam``, ``depth`` say
    what set it is (``max_leaves``: None, or the most leaves of its trees); ``stored`` is the
    DAG's stored entries.  A set whose DAG would pass
    ``max_nodes`` is counted, not stored (``listable`` False): ``len``, ``count``,
    :meth:`objective_counts` are exact, and what lists trees raises
    :class:`RashomonSetTooLarge` naming the count and the cap."""

    def __init__(self, root: SetNode, scale: Scale, stored: int, X01: np.ndarray,
                 y_enc: np.ndarray, w: np.ndarray, classes: np.ndarray,
                 names: tuple[list[str], list[str]], settings: dict) -> None:
        self._root, self._scale, self.stored = root, scale, stored
        self._data = (X01, y_enc, w)
        self.classes = np.asarray(classes)
        self.feature_names, self.negated_names = list(names[0]), list(names[1])
        for name, value in settings.items():
            setattr(self, name, value)
        self.count: int = root.count()
        self._importance: np.ndarray | None = None

    def __repr__(self) -> str:
        kind = "+" if self.additive else "x(1+)"
        counted = "" if self.listable else ", counted, not stored"
        return (f"RashomonSet({self.count} trees{counted}, depth {self.depth}, lam {self.lam}, "
                f"epsilon {self.epsilon} {kind}, optimum {self.optimum:.6g})")

    def __len__(self) -> int:
        return self.count

    def _listing(self) -> None:
        """One clear error when the set was counted, not stored."""
        if not self.listable:
            raise RashomonSetTooLarge(
                f"the Rashomon set holds {self.count:,} trees (exact), but listing them "
                f"needs more than max_nodes={self.max_nodes:,} stored entries, so it was "
                f"counted, not stored: len() and objective_counts() work; raise max_nodes, "
                f"lower epsilon or raise lam to list, index, sample or weigh its trees")

    def _index(self, i: int) -> int:
        self._listing()
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"a Rashomon set is indexed by integers, got {i!r}")
        i = int(i) + (self.count if i < 0 else 0)
        if not 0 <= i < self.count:
            raise IndexError(f"tree index out of range: the set holds {self.count} trees")
        return i

    def structure(self, i: int) -> walk.Tree:
        """Tree ``i`` as a nested tuple (fast; see the class)."""
        return walk.unrank(self._root, self._index(i))

    def structures(self) -> Iterator[walk.Tree]:
        """Every tree as a nested tuple, in objective order."""
        self._listing()
        return walk.trees(self._root)

    def __getitem__(self, i: int) -> BinaryTree:
        return self.to_tree(self.structure(i))

    def __iter__(self) -> Iterator[BinaryTree]:
        return (self.to_tree(tree) for tree in self.structures())  # refused here, if so

    @property
    def objectives(self) -> np.ndarray:
        """Each tree's objective, in the set's order, to 1e-10 (keys are rounded at 2^-36
        of a row's weight or finer)."""
        values, counts = self.objective_counts()
        if self.count > 10**8:
            raise OptreesInputError(f"{self.count} objectives do not fit in one array; "
                                    f"use objective_counts()")
        return np.repeat(values, np.asarray(counts, dtype=np.int64))

    def objective_counts(self) -> tuple[np.ndarray, list[int]]:
        """The distinct objectives (ascending) and how many trees have each."""
        return self._scale.objective(self._root.keys), [int(c) for c in self._root.counts]

    def sample(self, k: int, random_state: int | None = None) -> list[BinaryTree]:
        """``k`` distinct trees drawn uniformly from the set (all of them when ``k`` is at
        least its size), in the order drawn."""
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
            raise OptreesInputError(f"k must be an integer >= 0, got {k!r}")
        if random_state is not None and (isinstance(random_state, bool) or
                                         not isinstance(random_state, (int, np.integer))):
            raise OptreesInputError(f"random_state must be an integer or None, got "
                                    f"{random_state!r}")
        self._listing()
        rng = random.Random(None if random_state is None else int(random_state))
        picks = rng.sample(range(self.count), min(int(k), self.count))
        return [self[i] for i in picks]

    def feature_importance(self) -> pd.Series:
        """Per feature (0/1 literal, by name), the share of the set's trees that split on it
        (exact, one pass over the DAG)."""
        self._listing()
        if self._importance is None:
            F = self._data[0].shape[1]
            avoid = walk.avoiding(self._root, F).sum(axis=1)
            self._importance = np.array([1.0 - int(a) / self.count for a in avoid])
        return pd.Series(self._importance, index=self.feature_names,
                         name="share of trees splitting on it")

    def encode(self, X: Any) -> np.ndarray:
        """The 0/1 literal matrix the set's trees test, of a table with the fit's columns:
        the table itself on 0/1 columns, ``x > t`` for every threshold ``t`` of the set's
        numeric columns (``literals``)."""
        frame = check_frame(X)
        if self.literals is None:
            from ..._validation import check_binary_matrix
            return check_binary_matrix(frame, checked=True)
        return self.literals.apply(self.literals.encoder.transform(frame))

    # ------------------------------------------------------------------ trees
    def to_tree(self, nested: walk.Tree) -> BinaryTree:
        """A :class:`BinaryTree` of a nested tuple, with its training counts; its
        ``objective`` attribute is its objective on the training rows."""
        feature, left, right, value = [], [], [], []

        def add(node: walk.Tree) -> int:
            at = len(feature)
            feature.append(-1 if isinstance(node, int) else node[0])
            left.append(-1)
            right.append(-1)
            value.append(node if isinstance(node, int) else 0)
            if not isinstance(node, int):
                left[at] = add(node[1])
                right[at] = add(node[2])
            return at

        add(nested)
        X01, y_enc, w = self._data
        tree = BinaryTree(feature, [0.5] * len(feature), left, right,
                          value, self.classes, feature_names=self.feature_names,
                          negated_names=self.negated_names)
        tree.set_counts(X01, y_enc, w)
        K = len(self.classes)
        inner = tree.feature >= 0  # internal nodes: their rows' heaviest class (ties last)
        tree.value[inner] = K - 1 - np.argmax(tree.counts[inner][:, ::-1], axis=1)
        leaves = ~inner
        wrong = float(tree.counts[leaves].sum() - tree.counts[leaves, tree.value[leaves]].sum())
        tree.objective = wrong / float(w.sum()) + self.lam * int(leaves.sum())
        return tree


class ThresholdLiterals:
    """Every threshold of numeric columns as 0/1 literals: for each column of the numeric
    ``values`` (an ``encoder`` 's output), ``x > t`` at each midpoint ``t`` of two
    consecutive distinct values (TreeFARMS's encoding of a real column; a 0/1 column is one
    literal, itself).  ``columns`` / ``thresholds`` say which, ``matrix`` holds them; at most
    :data:`MAX_THRESHOLD_LITERALS` ``[depth]`` of them."""

    def __init__(self, encoder: Any, values: np.ndarray, depth: int = 2) -> None:
        self.encoder = encoder
        columns, thresholds, self.names, self.negated = [], [], [], []
        for j, name in enumerate(encoder.names):
            v = np.unique(values[:, j])
            for t in clean_midpoints(v[:-1], v[1:]).tolist():
                columns.append(j)
                thresholds.append(t)
                binary = len(v) == 2 and v[0] == 0 and v[1] == 1
                self.names.append(name if binary else f"{name} > {threshold_text(t)}")
                self.negated.append(encoder.negated[j] if binary
                                    else f"{name} <= {threshold_text(t)}")
        most = MAX_THRESHOLD_LITERALS[depth]
        if len(columns) > most:
            raise OptreesInputError(
                f"every threshold of the numeric columns makes {len(columns)} literals, more "
                f"than the {most} the set is built on at depth {depth} (its work grows as "
                f"literals^3 at depth 3: 119 literals took 10 s, 397 took 226 s); give "
                f"binarizer='auto' or a Binarizer, or a shallower depth")
        self.columns, self.thresholds = np.array(columns, int), np.array(thresholds, float)
        self.matrix = self.apply(values)

    def apply(self, values: np.ndarray) -> np.ndarray:
        """The literals of a numeric matrix with the encoder's columns."""
        return (values[:, self.columns] > self.thresholds).astype(np.uint8)
