"""Optimal depth-2 subtrees on demand: the D2S cache and solution polishing (§5.2, Alg. 1).

The cache is keyed on the set of (feature, direction) pairs of the path into a subtree (§5.4:
paths that branch on the same literals in another order select the same samples).
"""

from __future__ import annotations

import numpy as np

from ....solvers.deadline import Deadline
from ...problem.tree_problem import HeapTree, TreeProblem
from ..d2s import SubtreeResult, d2s


class SubtreeCache:
    """D2S results for the samples that follow a path, computed once per set of literals."""

    def __init__(self, problem: TreeProblem) -> None:
        self.p = problem
        self.leaf_penalty = problem.leaf_penalty  # lambda-bar, in samples
        self._store: dict[tuple, tuple[SubtreeResult, np.ndarray]] = {}
        self.calls = 0
        self.hits = 0

    def rows(self, path: tuple[tuple[int, int], ...]) -> np.ndarray:
        """Indices of the samples with x_f = dir for every (f, dir) on the path."""
        mask = np.ones(self.p.n_samples, dtype=bool)
        for f, direction in path:
            mask &= self.p.X[:, f] == direction
        return np.flatnonzero(mask)

    def solve(self, path: tuple[tuple[int, int], ...], max_depth: int = 2,
              deadline: Deadline | None = None) -> tuple[SubtreeResult, np.ndarray]:
        """Optimal subtree (depth <= max_depth) for the samples following ``path``;
        ``deadline`` stops D2S's counting with :class:`TimeUp` (nothing is stored)."""
        self.calls += 1
        key = (frozenset(path), max_depth)
        if key in self._store:
            self.hits += 1
            return self._store[key]
        idx = self.rows(path)
        result = d2s(self.p.X, self.p.y, self.p.n_classes, self.leaf_penalty, max_depth, idx,
                     weights=self.p.row_weights, deadline=deadline)
        self._store[key] = (result, idx)
        return result, idx


def height(problem: TreeProblem, n: int) -> int:
    """Distance from node n to the terminal level (terminal nodes have height 0)."""
    return problem.depth - (int(n).bit_length() - 1)


def graft(tree: HeapTree, n: int, sub: HeapTree) -> HeapTree:
    """Replace the subtree of ``tree`` rooted at heap node n by the depth-2 heap tree ``sub``."""
    split, label = tree.split.copy(), tree.label.copy()
    n_internal, n_nodes = len(split), len(label)
    level_nodes = [n]
    while level_nodes:  # clear the old subtree
        nxt = []
        for g in level_nodes:
            if g <= n_internal:
                split[g - 1] = -1
                nxt += [2 * g, 2 * g + 1]
        level_nodes = [g for g in nxt if g <= n_nodes]
    for s in range(1, 8):
        lvl = s.bit_length() - 1
        g = n * 2**lvl + (s - 2**lvl)
        if g > n_nodes:
            continue
        label[g - 1] = sub.label[s - 1]
        if s <= 3 and g <= n_internal:
            split[g - 1] = sub.split[s - 1]
    return HeapTree(split, label).canonical()


def polish(problem: TreeProblem, tree: HeapTree, cache: SubtreeCache,
           deadline: Deadline | None = None) -> HeapTree:
    """Algorithm 1: re-optimise the tails of ``tree`` with D2S; never returns a worse tree,
    nor one that breaks the problem's side constraints (D2S ignores them: such a polished
    tree is dropped).  ``deadline``: D2S raises :class:`TimeUp` once it has passed.

    Subtree roots are the reachable nodes of height <= 2 whose parent has height > 2 (or the
    root), and also reachable leaves higher up (a depth-2 subtree fits below them).
    """
    tree = tree.canonical()
    roots, stack = [], [(1, ())]
    while stack:
        n, path = stack.pop()
        h = height(problem, n)
        f = tree.split[n - 1] if n <= len(tree.split) else -1
        if h <= 2 or f < 0:
            roots.append((n, path, min(2, h)))
            continue
        stack += [(2 * n, path + ((int(f), 0),)), (2 * n + 1, path + ((int(f), 1),))]
    polished = tree
    for n, path, max_depth in roots:
        result, _ = cache.solve(path, max_depth, deadline)
        polished = graft(polished, n, result.tree)
    if (polished.objective(problem) > tree.objective(problem) + 1e-12
            and polished.feasible(problem)):
        return polished
    return tree
