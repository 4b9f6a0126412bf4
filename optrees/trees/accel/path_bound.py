"""Path-bound cutting planes (accelerated-bendoct.txt §5.4, Algorithm 2, cuts 23-24).

At a fractional LP solution, every path from the root whose branching variables are integral
and which ends at a node of height >= 2 selects a set of samples I(P); D2S gives the best
depth-2 subtree for them.  If the LP promises more in the subtree than that optimum, cut (24)

    sum_{i in I(P)} theta_i <= |I+| + (|I(P)| - |I+|) * relax^P                      (24)

is added, where relax^P (23) counts the ways the tree can leave the path: another feature or a
leaf on a path node, or a leaf more than two levels below the subtree root.
"""

from __future__ import annotations

import numpy as np

from ...solvers.base import Row
from .subtrees import SubtreeCache, height


class PathBoundCuts:
    """Separator for cuts (24); each path's cut is added once (as a permanent row)."""

    def __init__(self, form, cache: SubtreeCache, tol: float = 1e-6) -> None:
        self.f = form
        self.cache = cache
        self.tol = tol
        self.added: set[tuple] = set()
        self.n_cuts = 0

    def integral_paths(self, b: np.ndarray) -> list[tuple[int, list[tuple[int, int, int]]]]:
        """Algorithm 2, lines 1-17: (subtree root, path) for every integral path."""
        p = self.f.p
        paths, stack = [], [(1, [])]
        while stack:
            n, path = stack.pop()
            if height(p, n) <= 2:
                continue
            f = int(np.argmax(b[n - 1]))
            if b[n - 1, f] < 1 - self.tol:
                continue
            for direction, child in ((0, 2 * n), (1, 2 * n + 1)):
                extended = path + [(n, f, direction)]
                stack.append((child, extended))
                paths.append((child, extended))
        return paths

    def separate(self, x: np.ndarray) -> list[Row]:
        f, p = self.f, self.f.p
        b, leaf, g = x[f.b], x[f.p_leaf], x[f.g]
        rows = []
        for n_sub, path in self.integral_paths(b):
            key = tuple(path)
            if key in self.added:
                continue
            result, idx = self.cache.solve(tuple((feat, d) for _, feat, d in path), 2)
            below = descendants(n_sub, p.n_nodes)
            lp_value = g[idx].sum() - self.cache.leaf_penalty * leaf[np.array(below) - 1].sum()
            if lp_value <= result.score + self.tol:  # Algorithm 2, line 20
                continue
            slack = len(idx) - result.n_correct
            if slack == 0:
                continue
            self.added.add(key)
            rows.append(self.row(path, n_sub, idx, result.n_correct, slack))
        self.n_cuts += len(rows)
        return rows

    def row(self, path, n_sub: int, idx: np.ndarray, n_correct: int, slack: int) -> Row:
        """Cut (24) with relax^P of (23)."""
        f, p = self.f, self.f.p
        relax = []
        for n, feat, _ in path:  # another feature or a leaf on the path
            relax.append(np.r_[f.p_leaf[n - 1], np.delete(f.b[n - 1], feat)])
        down = [d for d in descendants(n_sub, p.n_nodes) if depth_below(n_sub, d) > 2]
        if down:  # a leaf further down than the depth-2 subtree
            relax.append(f.p_leaf[np.array(down) - 1])
        relax_ids = np.concatenate(relax)
        ids = np.r_[f.g[idx], relax_ids]
        coefs = np.r_[np.ones(len(idx)), -float(slack) * np.ones(len(relax_ids))]
        return Row(ids, coefs, rhs=float(n_correct))


def descendants(n: int, n_nodes: int) -> list[int]:
    """n and every node below it."""
    out, level = [], [n]
    while level:
        out += level
        level = [c for g in level for c in (2 * g, 2 * g + 1) if c <= n_nodes]
    return out


def depth_below(n: int, d: int) -> int:
    """Number of levels between ancestor n and descendant d."""
    return d.bit_length() - n.bit_length()
