"""Exact trees with linear (ridge) leaves on 0/1 split features, depths 1-3 (issue #43,
item 4): a dynamic program over row subsets in the manner of STreeD's piecewise linear trees.

A leaf's cost is a function of its rows' summed statistics
(:class:`~optrees.trees.problem.objectives.ridge_leaves.RidgeLeaves`), so the pair sums
``P[f, g]`` (statistics of the rows with ``x_f = x_g = 1``) and the total ``T`` give every
cell of every depth-2 tree: ``P[f, g]``, ``P[f, f] - P[f, g]``, ``P[g, g] - P[f, g]`` and
``T - P[f, f] - P[g, g] + P[f, g]``: one small ridge solve each, batched.  Depth 3 loops over
root features, the smaller child's pair sums computed and its sibling's taken as the
parent's less them.  Every test is ``x_k = 1`` (left: 0).

A leaf budget (``max_leaves``) is exact: each subtree's cheapest cost is kept per leaf count
(1 to ``2^depth``), a split's counts are the (min, +) convolution of its children's
(:func:`min_plus`), and the root takes the cheapest of at most ``max_leaves`` leaves (each
cost counts ``lam`` per leaf).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ....solvers.deadline import Deadline, TimeUp
from ...problem.objectives.ridge_leaves import RidgeLeaves

MAX_LINEAR_DEPTH = 3
"""Deepest tree of this search."""

GAIN = 1e-12
"""A bigger tree must cost this much less than a smaller one to be taken, and costs this
close are ties (they go to the smaller tree, then to the first feature)."""

PAIR_CELLS = 4_000_000
"""Rows of a pair-sum product are taken in chunks of at most this many ``rows * pairs``
cells (32 MB of floats)."""

PROJECT_AFTER = 3
"""Blocks of rows summed before the time the rest will take is projected from them."""

LinearTree = tuple | None
"""A leaf (None) or ``(k, left, right)``: the test ``x_k = 1`` goes right."""


@dataclass
class LinearFound:
    """The search's tree over the 0/1 columns, its cost, whether it is proved optimal, a
    lower bound on every tree of the depth and leaf budget and the number of leaf solves."""

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

    def pair_sums(self, rows: np.ndarray | None = None, columns: np.ndarray | None = None,
                  deadline: Deadline | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(P, T)``: ``P[f, g]`` the summed statistics of ``rows`` with ``x_f = x_g = 1``
        over ``columns`` (K x K x d), ``T`` those of all ``rows`` (None: every row, every
        column).  ``P`` is symmetric in ``f, g``: each pair ``f <= g`` is summed once, as
        one product of the pairs' indicators (rows x pairs) with the statistics, in blocks
        of rows (:func:`row_blocks`: ``deadline`` raises :class:`TimeUp` between them)."""
        B = self.B if rows is None else self.B[rows]
        B = B if columns is None else B[:, columns]
        S = self.stats if rows is None else self.stats[rows]
        n, K = B.shape
        f, g = np.triu_indices(K)
        upper = np.zeros((len(f), S.shape[1]))
        step = max(1, PAIR_CELLS // max(len(f), 1))
        for lo in row_blocks(n, step, deadline):
            Bc = B[lo:lo + step]
            upper += (Bc[:, f] & Bc[:, g]).T.astype(np.float64) @ S[lo:lo + step]
        P = np.empty((K, K, S.shape[1]))
        P[f, g] = upper
        P[g, f] = upper
        return P, S.sum(axis=0)

    def column_sums(self, deadline: Deadline | None = None) -> np.ndarray:
        """``(K, d)``: the summed statistics of the rows with ``x_f = 1``, per column ``f``
        (the diagonal of the pair sums), in blocks of rows as :meth:`pair_sums`."""
        n, K = self.B.shape
        out = np.zeros((K, self.stats.shape[1]))
        step = max(1, PAIR_CELLS // max(K, 1))
        for lo in row_blocks(n, step, deadline):
            out += self.B[lo:lo + step].T.astype(np.float64) @ self.stats[lo:lo + step]
        return out

    def best(self, P: np.ndarray, T: np.ndarray, depth: int
             ) -> tuple[np.ndarray, list[LinearTree]]:
        """Per leaf count ``c = 1 .. 2^depth``, the cheapest tree of depth <= ``depth`` (0, 1
        or 2) with exactly ``c`` leaves over rows with pair sums ``P`` (at depth 1 its
        diagonal, K x d, is enough) and total ``T``: its cost (inf when no such tree keeps
        ``min_leaf`` rows a leaf) and the tree."""
        lam = self.lam
        leaf = float(self.cost(T)) + lam
        if depth == 0 or P.shape[0] == 0:
            return np.array([leaf]), [None]
        K = P.shape[0]
        diag = P if P.ndim == 2 else P[np.arange(K), np.arange(K)]
        # sides[f, s, a]: root f's left (s = 0, x_f = 0) or right child as a leaf (a = 0) or
        # split (a = 1) by column below[f, s], the first cheapest
        sides = np.full((K, 2, 2), np.inf)
        sides[:, 0, 0], sides[:, 1, 0] = self.cost(T - diag) + lam, self.cost(diag) + lam
        below = np.zeros((K, 2), dtype=np.int64)
        if depth >= 2:
            both = self.symmetric(P)  # [f, g]: x_f = x_g = 1
            neither = self.symmetric(T - diag[:, None, :] - diag[None, :, :] + P)
            only_f = self.cost(diag[:, None, :] - P)  # x_f = 1, x_g = 0; its transpose
            for s, split in enumerate((only_f.T + neither, both + only_f)):
                below[:, s] = first_least(split)
                sides[:, s, 1] = split[np.arange(K), below[:, s]] + 2 * lam
        root, pick = min_plus(sides[:, 0], sides[:, 1])  # [f, c]: 2 + c leaves
        roots = first_least(root.T)  # per count, the first cheapest root column
        costs, trees = np.r_[leaf, root[roots, np.arange(3)]], [None]
        for c, f in enumerate(roots[:2 ** depth - 1]):
            a = pick[f, c]  # the left child split (a = 1) or a leaf
            trees.append((int(f), (int(below[f, 0]), None, None) if a else None,
                          (int(below[f, 1]), None, None) if c - a else None))
        return costs[:2 ** depth], trees

    def solve(self, depth: int, deadline: Deadline | None = None,
              max_leaves: int | None = None) -> LinearFound:
        """The optimal tree of depth <= ``depth`` (1-3) with at most ``max_leaves`` leaves
        (None: no limit).  The deadline is checked between blocks of rows of the sums and
        at depth 3 between root features; a stopped search returns its best tree (the
        single leaf, the depth-1 optimum, found before the pair sums, or at depth 3 the
        depth-2 optimum of the budget) with a lower bound (the cheaper of it and ``2 lam``,
        the least a tree with a split can cost)."""
        if not 1 <= depth <= MAX_LINEAR_DEPTH:
            raise ValueError(f"depth must be in [1, {MAX_LINEAR_DEPTH}], got {depth}")
        if max_leaves is not None and max_leaves < 1:
            raise ValueError(f"max_leaves must be >= 1, got {max_leaves}")
        budget = 2 ** depth if max_leaves is None else min(int(max_leaves), 2 ** depth)
        depth = min(depth, budget - 1)  # a tree of c leaves is at most c - 1 deep
        S = self.stats
        T = S.sum(axis=0)
        found = self._found(*self.best(np.empty((0, S.shape[1])), T, 0), budget)
        if depth == 0:
            return found
        try:
            if depth == 1 or deadline is not None:  # depth 1, or what a stop returns
                found = self._found(*self.best(self.column_sums(deadline), T, 1), budget)
            if depth == 1:
                return found
            P, T = self.pair_sums(deadline=deadline)
        except TimeUp:
            return self._stopped(found.tree, found.cost)
        found = self._found(*self.best(P, T, 2), budget)
        if depth == 2:
            return found
        cost, tree = found.cost, found.tree
        n, ml = len(self.B), self.objective.min_leaf
        counts = P[np.arange(len(P)), np.arange(len(P)), 0]  # rows with x_f = 1
        for f in range(self.B.shape[1]):
            if deadline is not None and deadline.expired():
                return self._stopped(tree, cost)
            if min(counts[f], n - counts[f]) < ml:
                continue  # a side with fewer than min_leaf rows
            try:
                left, right = self._children(f, P, T, counts[f], cost, budget, deadline)
            except TimeUp:
                return self._stopped(tree, cost)
            if right is None:
                continue  # the right child costs at least one leaf's lam
            root, pick = min_plus(left[0], right[0])  # [c]: 2 + c leaves
            c = cheapest(root, budget - 1)
            if root[c] < cost - GAIN:
                a = pick[c]  # the left child's leaves less one
                cost, tree = float(root[c]), (f, left[1][a], right[1][c - a])
        return LinearFound(tree, cost, True, cost, self.evaluations)

    def _stopped(self, tree: LinearTree, cost: float) -> LinearFound:
        """A stopped search's answer: ``tree`` unproved, bounded by the cheaper of its cost
        and ``2 lam`` (a leaf costs at least what ``tree`` does, a split two leaves)."""
        return LinearFound(tree, cost, False, min(cost, 2 * self.lam), self.evaluations)

    def _found(self, costs: np.ndarray, trees: list[LinearTree], budget: int) -> LinearFound:
        """The proved optimum among per-count ``costs`` of at most ``budget`` leaves."""
        c = cheapest(costs, budget)
        return LinearFound(trees[c], float(costs[c]), True, float(costs[c]), self.evaluations)

    def _children(self, f: int, P: np.ndarray, T: np.ndarray, ones_count: float,
                  incumbent: float, budget: int, deadline: Deadline | None = None
                  ) -> tuple[tuple, tuple | None]:
        """Per leaf count (as :meth:`best`), the depth-2 trees of root ``f``'s left
        (``x_f = 0``) and right child, over the columns that split either of them with
        ``min_leaf`` rows a side (the smaller child's pair sums computed, its sibling's the
        parent's less them); the right one None when the left one's trees of fewer than
        ``budget`` leaves leave the ``incumbent`` nothing."""
        n, ml = len(self.B), self.objective.min_leaf
        ones = self.B[:, f]
        small = ones if ones_count <= n - ones_count else ~ones
        in_ones = self.B[ones].sum(axis=0)
        in_zeros = P[np.arange(len(P)), np.arange(len(P)), 0] - in_ones
        sizes = ((in_zeros, n - ones_count), (in_ones, ones_count))
        columns = np.flatnonzero(np.logical_or.reduce(
            [(c >= ml) & (size - c >= ml) for c, size in sizes]))
        Ps, Ts = self.pair_sums(small, columns, deadline)
        Po, To = P[np.ix_(columns, columns)] - Ps, T - Ts
        (P1, T1), (P0, T0) = ((Ps, Ts), (Po, To)) if small is ones else \
            ((Po, To), (Ps, Ts))
        left_costs, left_trees = self.best(P0, T0, 2)
        left = (left_costs, [_relabel(t, columns) for t in left_trees])
        if not left_costs[:budget - 1].min() + self.lam < incumbent - GAIN:
            return left, None
        right_costs, right_trees = self.best(P1, T1, 2)
        return left, (right_costs, [_relabel(t, columns) for t in right_trees])


def row_blocks(n: int, step: int, deadline: Deadline | None) -> Iterator[int]:
    """The first rows of blocks of ``step`` rows out of ``n``; before each block
    ``deadline`` raises :class:`TimeUp` when it passed, or (with a time limit, after
    :data:`PROJECT_AFTER` blocks) when the rest of the blocks, at the pace so far, would
    take longer than the time left: that work could not finish, so it is not begun."""
    start = time.perf_counter()
    for k, lo in enumerate(range(0, n, step)):
        if deadline is not None:
            deadline.check()
            if k >= PROJECT_AFTER and deadline.limited:
                pace = (time.perf_counter() - start) / lo
                if pace * (n - lo) > deadline.remaining():
                    raise TimeUp
        yield lo


def min_plus(left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (min, +) convolution of per-count costs over the last axis: ``out[..., s]`` the
    least ``left[..., a] + right[..., s - a]`` (two subtrees sharing ``s + 2`` leaves) and
    ``a``, the first within ``GAIN`` of it (its fewest left leaves)."""
    m, k = left.shape[-1], right.shape[-1]
    s, a = np.indices((m + k - 1, m))  # anti-diagonals of the m x k table of sums
    b = s - a
    valid = (b >= 0) & (b < k)
    sums = np.where(valid, left[..., a] + right[..., np.clip(b, 0, k - 1)], np.inf)
    out = sums.min(axis=-1)
    return out, np.argmax(sums <= out[..., None] + GAIN, axis=-1)


def cheapest(costs: np.ndarray, budget: int) -> int:
    """The fewest leaves (an index into per-count ``costs``) within ``GAIN`` of the least of
    the first ``budget``: ties go to the smaller tree, never to rounding."""
    within = costs[:budget]
    return int(np.argmax(within <= within.min() + GAIN))


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
