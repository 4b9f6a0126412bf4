"""Exact trees with linear (ridge) leaves on 0/1 split features, depths 1-3 (issue #43,
item 4): a dynamic program over row subsets in the manner of STreeD's piecewise linear trees.

A leaf's cost is a function of its rows' summed statistics
(:class:`~optrees.trees.problem.objectives.ridge_leaves.RidgeLeaves`), so the pair sums
``P[f, g]`` (statistics of the rows with ``x_f = x_g = 1``) and the total ``T`` give every
cell of every depth-2 tree: ``P[f, g]``, ``P[f, f] - P[f, g]``, ``P[g, g] - P[f, g]`` and
``T - P[f, f] - P[g, g] + P[f, g]``: one small ridge solve each, batched.  Depth 3 loops over
root features, the smaller child's pair sums computed and its sibling's taken as the
parent's less them.  Every test is ``x_k = 1`` (left: 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ....solvers.deadline import Deadline
from ...problem.objectives.ridge_leaves import RidgeLeaves

MAX_LINEAR_DEPTH = 3
"""Deepest tree of this search."""

GAIN = 1e-12
"""A bigger tree must cost this much less than a smaller one to be taken, and costs this
close are ties (they go to the smaller tree, then to the first feature)."""

PAIR_CELLS = 4_000_000
"""Rows of a pair-sum product are taken in chunks of at most this many ``rows * pairs``
cells (32 MB of floats)."""

LinearTree = tuple | None
"""A leaf (None) or ``(k, left, right)``: the test ``x_k = 1`` goes right."""


@dataclass
class LinearFound:
    """The search's tree over the 0/1 columns, its cost, whether it is proved optimal, a
    lower bound on every tree of the depth and the number of leaf solves."""

    tree: LinearTree
    cost: float
    optimal: bool
    bound: float
    evaluations: int


class LinearLeafSearch:
    """A 0/1 matrix ``B`` (n x K), row statistics of ``objective`` (n x d) and the cost
    ``lam`` of each leaf."""

    def __init__(self, B: np.ndarray, stats: np.ndarray, objective: RidgeLeaves,
                 lam: float) -> None:
        self.B = np.asarray(B, dtype=bool)
        self.stats = np.asarray(stats, dtype=np.float64)
        self.objective, self.lam = objective, float(lam)
        self.evaluations = 0

    def cost(self, S: np.ndarray) -> np.ndarray:
        """Leaf costs of summed statistics ``S`` (counted)."""
        self.evaluations += int(np.prod(S.shape[:-1]))
        return self.objective.leaf_cost(S)

    def symmetric(self, S: np.ndarray) -> np.ndarray:
        """Leaf costs of a K x K x d array of statistics symmetric in its first two axes
        (each pair solved once)."""
        K = S.shape[0]
        upper = np.triu_indices(K)
        out = np.empty((K, K))
        out[upper] = self.cost(S[upper])
        out.T[upper] = out[upper]
        return out

    def pair_sums(self, rows: np.ndarray | None = None, columns: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
        """``(P, T)``: ``P[f, g]`` the summed statistics of ``rows`` with ``x_f = x_g = 1``
        over ``columns`` (K x K x d), ``T`` those of all ``rows`` (None: every row, every
        column).  ``P`` is symmetric in ``f, g``: each pair ``f <= g`` is summed once, as
        one product of the pairs' indicators (rows x pairs) with the statistics."""
        B = self.B if rows is None else self.B[rows]
        B = B if columns is None else B[:, columns]
        S = self.stats if rows is None else self.stats[rows]
        n, K = B.shape
        f, g = np.triu_indices(K)
        upper = np.zeros((len(f), S.shape[1]))
        step = max(1, PAIR_CELLS // max(len(f), 1))
        for lo in range(0, n, step):
            Bc = B[lo:lo + step]
            upper += (Bc[:, f] & Bc[:, g]).T.astype(np.float64) @ S[lo:lo + step]
        P = np.empty((K, K, S.shape[1]))
        P[f, g] = upper
        P[g, f] = upper
        return P, S.sum(axis=0)

    def best(self, P: np.ndarray, T: np.ndarray, depth: int) -> tuple[float, LinearTree]:
        """The cheapest tree of depth <= ``depth`` (0, 1 or 2) over rows with pair sums ``P``
        (at depth 1 its diagonal, K x d, is enough) and total ``T``, and its cost (inf when
        no tree keeps ``min_leaf`` rows a leaf)."""
        lam = self.lam
        leaf = float(self.cost(T)) + lam
        if depth == 0 or P.shape[0] == 0:
            return leaf, None
        K = P.shape[0]
        diag = P if P.ndim == 2 else P[np.arange(K), np.arange(K)]
        right, left = self.cost(diag) + lam, self.cost(T - diag) + lam
        right_tree: list[LinearTree] = [None] * K
        left_tree: list[LinearTree] = [None] * K
        if depth >= 2:
            both = self.symmetric(P)  # [f, g]: x_f = x_g = 1
            neither = self.symmetric(T - diag[:, None, :] - diag[None, :, :] + P)
            only_f = self.cost(diag[:, None, :] - P)  # x_f = 1, x_g = 0; its transpose
            pairs = (  # the right child (x_f = 1) split by g, then the left child
                (both + only_f + 2 * lam, right, right_tree),
                (only_f.T + neither + 2 * lam, left, left_tree))
            for split, child, trees in pairs:
                g = first_least(split)
                value = split[np.arange(K), g]
                better = value < child - GAIN
                child[better] = value[better]
                for f in np.flatnonzero(better):
                    trees[f] = (int(g[f]), None, None)
        root = left + right
        f = int(first_least(root[None, :])[0])
        if not root[f] < leaf - GAIN:
            return leaf, None
        return float(root[f]), (f, left_tree[f], right_tree[f])

    def solve(self, depth: int, deadline: Deadline | None = None) -> LinearFound:
        """The optimal tree of depth <= ``depth`` (1-3); at depth 3 the deadline is checked
        between root features, and a stopped search returns its best tree (at least the
        depth-2 optimum) with a lower bound (the cheaper of it and ``2 lam``, the least a
        tree with a split can cost)."""
        if not 1 <= depth <= MAX_LINEAR_DEPTH:
            raise ValueError(f"depth must be in [1, {MAX_LINEAR_DEPTH}], got {depth}")
        if depth == 1:  # the single columns' sums only
            S = self.stats
            cost, tree = self.best(self.B.T.astype(np.float64) @ S, S.sum(axis=0), 1)
            return LinearFound(tree, cost, True, cost, self.evaluations)
        P, T = self.pair_sums()
        cost, tree = self.best(P, T, 2)
        if depth == 2:
            return LinearFound(tree, cost, True, cost, self.evaluations)
        n, ml = len(self.B), self.objective.min_leaf
        counts = P[np.arange(len(P)), np.arange(len(P)), 0]  # rows with x_f = 1
        for f in range(self.B.shape[1]):
            if deadline is not None and deadline.expired():
                bound = min(cost, 2 * self.lam)
                return LinearFound(tree, cost, False, bound, self.evaluations)
            if min(counts[f], n - counts[f]) < ml:
                continue  # a side with fewer than min_leaf rows
            (left_cost, left_tree), right = self._children(f, P, T, counts[f], cost)
            if right is None:
                continue  # the right child costs at least one leaf's lam
            right_cost, right_tree = right
            if left_cost + right_cost < cost - GAIN:
                cost, tree = left_cost + right_cost, (f, left_tree, right_tree)
        return LinearFound(tree, cost, True, cost, self.evaluations)

    def _children(self, f: int, P: np.ndarray, T: np.ndarray, ones_count: float,
                  incumbent: float) -> tuple[tuple[float, LinearTree], tuple | None]:
        """The best depth-2 trees of root ``f``'s left (``x_f = 0``) and right child, over
        the columns that split either of them with ``min_leaf`` rows a side (the smaller
        child's pair sums computed, its sibling's the parent's less them); the right one
        None when the left one leaves the ``incumbent`` nothing."""
        n, ml = len(self.B), self.objective.min_leaf
        ones = self.B[:, f]
        small = ones if ones_count <= n - ones_count else ~ones
        in_ones = self.B[ones].sum(axis=0)
        in_zeros = P[np.arange(len(P)), np.arange(len(P)), 0] - in_ones
        sizes = ((in_zeros, n - ones_count), (in_ones, ones_count))
        columns = np.flatnonzero(np.logical_or.reduce(
            [(c >= ml) & (size - c >= ml) for c, size in sizes]))
        Ps, Ts = self.pair_sums(small, columns)
        Po, To = P[np.ix_(columns, columns)] - Ps, T - Ts
        (P1, T1), (P0, T0) = ((Ps, Ts), (Po, To)) if small is ones else \
            ((Po, To), (Ps, Ts))
        left_cost, left_tree = self.best(P0, T0, 2)
        left = (left_cost, _relabel(left_tree, columns))
        if not left_cost + self.lam < incumbent - GAIN:
            return left, None
        right_cost, right_tree = self.best(P1, T1, 2)
        return left, (right_cost, _relabel(right_tree, columns))


def first_least(values: np.ndarray) -> np.ndarray:
    """Per row of ``values``, the first column within ``GAIN`` of the row's least: ties go to
    the first feature, never to rounding (weights and repeated rows sum in another order)."""
    least = values.min(axis=1, keepdims=True)
    return np.argmax(values <= least + GAIN, axis=1)


def _relabel(tree: LinearTree, columns: np.ndarray) -> LinearTree:
    """A tree over the ``columns`` taken, with the columns' own numbers."""
    if tree is None:
        return None
    k, left, right = tree
    return (int(columns[k]), _relabel(left, columns), _relabel(right, columns))
