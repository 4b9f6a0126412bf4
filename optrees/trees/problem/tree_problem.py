"""TreeProblem: binary data, labels and a depth; heap node numbering shared by the tree MIPs.

Nodes are numbered as in the papers: root 1, children of n are 2n (left) and 2n+1 (right).
Internal nodes are 1 .. 2^d - 1, leaves 2^d .. 2^(d+1) - 1.  Arrays indexed by node use
position ``n - 1``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..._validation import check_max_leaves, check_min_leaf
from ...models.binary_tree import BinaryTree
from .fairness import TreeFairness
from .objectives.view import ClassificationView


def side_constraint_text(min_leaf: int, max_leaves: int | None, fairness: str | None = None
                         ) -> str:
    """Side constraints in words, as ``stats_["side_constraints"]`` and the status line
    name them ("min_samples_leaf=20, max_leaves=3"; "" for none)."""
    parts = [f"min_samples_leaf={min_leaf}"] if min_leaf > 1 else []
    if max_leaves is not None:
        parts.append(f"max_leaves={max_leaves}")
    if fairness is not None:
        parts.append(fairness)
    return ", ".join(parts)


@dataclass
class TreeProblem:
    """Binary features ``X`` (n x F, 0/1), class indices ``y`` (0..K-1), ``depth`` and ``lam``.

    ``penalty`` picks the objective: ``"splits"`` is eq. (1) of [FlowOCT],
    (1 - lam) * correct - lam * splits (in samples); ``"leaves"`` is eq. (3a) of
    [BendOCT], accuracy - lam * leaves.  ``sample_weight`` (≥ 0, default 1) makes "correct"
    the weight of the correctly classified rows and accuracy that weight over the total, so
    integer weights give the objective of duplicated rows.

    Side constraints (a tree that breaks one is infeasible): ``min_leaf`` = fewest training
    rows on each side of a split (scikit-learn's ``min_samples_leaf``: rows, not weight; 1 =
    no constraint); ``max_leaves`` = most leaves of the tree (None = no constraint);
    ``fairness`` = a group-fairness bound (:class:`~optrees.trees.problem.fairness.TreeFairness`).
    """

    X: np.ndarray
    y: np.ndarray
    n_classes: int
    depth: int
    lam: float = 0.0
    penalty: str = "splits"
    sample_weight: np.ndarray | None = None
    min_leaf: int = 1
    max_leaves: int | None = None
    fairness: TreeFairness | None = None
    view: ClassificationView | None = None
    """Set when the rows are an objective's pseudo-rows (:mod:`optrees.trees.problem.objectives`):
    the same objective on the original rows, for engines that take it natively."""

    def __post_init__(self) -> None:
        self.X = np.ascontiguousarray(self.X, dtype=np.uint8)
        self.y = np.asarray(self.y, dtype=np.int64)
        if self.penalty not in ("splits", "leaves"):
            raise ValueError(f"penalty must be 'splits' or 'leaves', got {self.penalty!r}")
        n = self.X.shape[0]
        if self.sample_weight is None:
            self.weights = np.ones(n)
        else:
            self.weights = np.asarray(self.sample_weight, dtype=np.float64)
            if (self.weights.shape != (n,) or not np.isfinite(self.weights).all()
                    or (self.weights < 0).any()):
                raise ValueError(f"sample_weight must hold {n} finite nonnegative numbers")
        self.min_leaf = check_min_leaf(self.min_leaf)
        # None when every tree of the depth has at most 2^depth leaves
        self.max_leaves = check_max_leaves(self.max_leaves, self.depth)
        self.unit_weights = self.sample_weight is None or bool((self.weights == 1).all())
        self.total_weight = float(self.weights.sum())

    @property
    def row_weights(self) -> np.ndarray | None:
        """The weights, or None when all are 1 (the exact integer-count fast paths)."""
        return None if self.unit_weights else self.weights

    @property
    def constrained(self) -> bool:
        """Whether a side constraint (``min_leaf`` > 1, ``max_leaves`` or fairness) is in
        force."""
        return self.min_leaf > 1 or self.max_leaves is not None or self.fairness is not None

    @property
    def leaf_budget(self) -> int:
        """Most leaves a tree may have (2^depth without ``max_leaves``)."""
        return 2**self.depth if self.max_leaves is None else self.max_leaves

    def constraint_text(self) -> str:
        """The side constraints in words (for messages and ``stats_``), in the user's rows
        (an objective's pseudo-rows: ``copies`` per row)."""
        rows = self.min_leaf if self.view is None else self.min_leaf // self.view.copies
        return side_constraint_text(rows, self.max_leaves,
                                    None if self.fairness is None else self.fairness.describe())

    @property
    def correct_weight(self) -> float:
        """Objective weight of one correctly classified sample."""
        return 1.0 - self.lam if self.penalty == "splits" else 1.0 / self.total_weight

    @property
    def split_cost(self) -> float:
        return self.lam if self.penalty == "splits" else 0.0

    @property
    def leaf_cost(self) -> float:
        return self.lam if self.penalty == "leaves" else 0.0

    @property
    def leaf_penalty(self) -> float:
        """Cost of one more leaf in correctly classified samples (the paper's lambda-bar).

        With the split penalty a tree has one leaf more than splits, so a split costs the same
        as a leaf: lam / (1 - lam) samples; with the leaf penalty lam * |I| samples.
        """
        return self.lam / self.correct_weight

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    @property
    def n_internal(self) -> int:
        return 2**self.depth - 1

    @property
    def n_nodes(self) -> int:
        return 2 ** (self.depth + 1) - 1

    @property
    def internal_nodes(self) -> range:
        return range(1, 2**self.depth)

    @property
    def leaf_nodes(self) -> range:
        return range(2**self.depth, 2 ** (self.depth + 1))

    def class_counts(self) -> np.ndarray:
        """Weight of each class (row counts under unit weights)."""
        return np.bincount(self.y, weights=self.weights, minlength=self.n_classes)


@dataclass
class HeapTree:
    """A tree in heap numbering: ``split[n-1]`` feature tested at internal node n (-1 = none),
    ``label[n-1]`` class index at every node (used where the path of a sample stops)."""

    split: np.ndarray
    label: np.ndarray

    @property
    def depth(self) -> int:
        return int(np.log2(len(self.split) + 1))

    def terminal(self, X: np.ndarray) -> np.ndarray:
        """Heap number of the node where each sample stops (a leaf or a non-branching node)."""
        node = np.ones(X.shape[0], dtype=np.int64)
        rows = np.arange(X.shape[0])
        for _ in range(self.depth):
            inner = node <= len(self.split)
            feat = np.full(X.shape[0], -1)
            feat[inner] = self.split[node[inner] - 1]
            go = feat >= 0
            if not go.any():
                break
            node[go] = 2 * node[go] + X[rows[go], feat[go]]
        return node

    def objective(self, problem: TreeProblem) -> float:
        """The problem's objective: (1 - lam) * correct - lam * splits, or acc. - lam * leaves."""
        return (problem.correct_weight * self.correct_mass(problem)
                - problem.split_cost * self.n_splits - problem.leaf_cost * (self.n_splits + 1))

    def feasible(self, problem: TreeProblem) -> bool:
        """Whether the reachable tree meets ``problem``'s side constraints: at most
        ``max_leaves`` leaves, its fairness bound on the training rows and, when the root
        branches, ``min_leaf`` rows or more where each row stops."""
        splits = self.n_splits
        if splits + 1 > problem.leaf_budget:
            return False
        fair = problem.fairness
        if fair is None and (problem.min_leaf <= 1 or splits == 0):
            return True
        stop = self.terminal(problem.X)
        # the MIP holds its fairness rows to SCIP's feasibility tolerance (1e-6)
        if fair is not None and fair.gap(problem.y, self.label[stop - 1],
                                         problem.weights) > fair.epsilon + 1e-6:
            return False
        if problem.min_leaf <= 1 or splits == 0:
            return True
        stops = np.bincount(stop, minlength=len(self.label) + 1)
        return bool(stops[self.reachable_stops()].min() >= problem.min_leaf)

    def reachable_stops(self) -> np.ndarray:
        """Heap numbers of the reachable nodes where a path stops (the tree's leaves)."""
        out, stack = [], [1]
        while stack:
            n = stack.pop()
            if n <= len(self.split) and self.split[n - 1] >= 0:
                stack += [2 * n, 2 * n + 1]
            else:
                out.append(n)
        return np.array(sorted(out), dtype=np.int64)

    def correct(self, problem: TreeProblem) -> np.ndarray:
        """Mask of the rows the tree classifies correctly."""
        return self.label[self.terminal(problem.X) - 1] == problem.y

    def n_correct(self, problem: TreeProblem) -> int:
        return int(self.correct(problem).sum())

    def correct_mass(self, problem: TreeProblem) -> float:
        """Weight of the correctly classified rows (their number under unit weights)."""
        right = self.correct(problem)
        return float(right.sum()) if problem.unit_weights else float(problem.weights[right].sum())

    @property
    def n_splits(self) -> int:
        """Splits on the reachable part of the tree (below a non-branching node nothing counts)."""
        count, stack = 0, [1]
        while stack:
            n = stack.pop()
            if n <= len(self.split) and self.split[n - 1] >= 0:
                count += 1
                stack += [2 * n, 2 * n + 1]
        return count

    def canonical(self) -> HeapTree:
        """Same predictions; below a non-branching node nothing branches and labels repeat."""
        split, label = self.split.copy(), self.label.copy()
        for n in range(1, len(split) + 1):
            if split[n - 1] < 0:
                for c in (2 * n, 2 * n + 1):
                    label[c - 1] = label[n - 1]
                    if c <= len(split):
                        split[c - 1] = -1
        return HeapTree(split, label)

    def to_binary_tree(self, classes: np.ndarray) -> BinaryTree:
        split = {n + 1: int(f) for n, f in enumerate(self.split) if f >= 0}
        label = {n + 1: int(k) for n, k in enumerate(self.label)}
        return BinaryTree.from_heap(split, label, classes)

    def pruned(self, problem: TreeProblem) -> HeapTree:
        """Best pruning for the objective: collapse a subtree into a leaf when that does not lose.

        Bottom-up dynamic program over the nodes; each node's leaf label becomes its majority
        class, so the result is at least as good as ``self``.  Merging keeps leaf sizes and
        budgets, not fairness: a pruned tree that breaks it gives way to ``self``.
        """
        split, label = self.split.copy(), self.label.copy()
        # samples reaching each node (ignore where they stop)
        reach = {1: np.arange(problem.n_samples)}
        for n in range(1, len(split) + 1):
            if n not in reach:
                continue
            f = split[n - 1]
            if f >= 0:
                idx = reach[n]
                right = problem.X[idx, f] == 1
                reach[2 * n], reach[2 * n + 1] = idx[~right], idx[right]
        best: dict[int, float] = {}
        for n in range(len(label), 0, -1):
            if n not in reach:
                continue
            idx = reach[n]
            counts = np.bincount(problem.y[idx], weights=problem.weights[idx],
                                 minlength=problem.n_classes)
            leaf_val = problem.correct_weight * counts.max() - problem.leaf_cost
            if n <= len(split) and split[n - 1] >= 0:
                sub = best[2 * n] + best[2 * n + 1] - problem.split_cost
                if sub > leaf_val + 1e-12:
                    best[n] = sub
                    continue
                split[n - 1] = -1
            if counts.sum() > 0:
                label[n - 1] = int(np.argmax(counts))
            best[n] = leaf_val
        pruned = HeapTree(split, label)
        if problem.fairness is not None and not pruned.feasible(problem):
            return self
        return pruned


# ----------------------------------------------------------------- heap numbering
def leaf_range(n: int, depth: int) -> range:
    """Leaves (heap numbers) in the subtree of node n of a depth-``depth`` tree."""
    k = depth - (n.bit_length() - 1)
    return range(n << k, (n + 1) << k)


def leaf_ancestors(t: int) -> list[tuple[int, bool]]:
    """(ancestor, path goes left at it) for every proper ancestor of heap node t."""
    out = []
    while t > 1:
        out.append((t // 2, t % 2 == 0))
        t //= 2
    return out


def majority_labels(leaf_of: np.ndarray, y: np.ndarray, n_nodes: int, n_classes: int,
                     default: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Majority class (by weight) of the rows reaching each node (``default`` where none
    does)."""
    label = default.copy()
    counts = np.zeros((n_nodes, n_classes))
    np.add.at(counts, (leaf_of - 1, y), 1.0 if weights is None else weights)
    used = np.bincount(leaf_of - 1, minlength=n_nodes) > 0
    label[used] = counts[used].argmax(axis=1)
    return label
