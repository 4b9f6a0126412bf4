"""Path-bound cutting planes ([BendOCT] §5.4, Algorithm 2, cuts 23-24).

At a fractional LP solution, every path from the root whose branching variables are integral
and which ends at a node of height >= 2 selects a set of samples I(P); D2S gives the best
depth-2 subtree for them.  If the LP promises more in the subtree than that optimum, cut (24)

    sum_{i in I(P)} theta_i <= |I+| + (|I(P)| - |I+|) * relax^P                      (24)

is added, where relax^P (23) counts the ways the tree can leave the path: another feature or a
leaf on a path node, or a leaf more than two levels below the subtree root.

Improved cuts (§5.4.2), for subtree roots of height 2 only: (25) bounds the samples the optimal
subtree misclassifies, (26) fixes the subtree's structure to the D2S optimum while relax^P = 0.
Both cut off other optimal subtrees, not optimal objective values: a subtree at the end of a
fixed path can be swapped for an equally good one without changing the rest of the tree.  We
restrict them to height-2 roots (the bottom of the tree), where two such subtrees never nest;
with nested roots two different tie-breaking choices of (26) could exclude every optimum.

Under a side constraint (``min_leaf``, ``max_leaves``) the D2S subtree may be infeasible, so
(24)-(26), which keep only trees using it, could cut off every constrained optimum.  Then each
path gets the objective form of (24) instead, a true bound on any subtree there (D2S ignores
the constraints, so its optimum is at least the constrained one):

    sum_{i in I(P)} w_i theta_i - L * sum_{m below n} p_m <= D2S + (w(I(P)) - D2S) relax^P.  (24')
"""

from __future__ import annotations

import numpy as np

from ....solvers.base import Row
from .subtrees import SubtreeCache, height

VARIANTS = ("basic", "negative", "structure", "both")


class PathBoundCuts:
    """Separator for cuts (24) (+ (25) / (26) by ``variant``); each path's cuts are added once
    (as permanent rows)."""

    def __init__(self, form, cache: SubtreeCache, variant: str = "basic",
                 tol: float = 1e-6) -> None:
        if variant not in VARIANTS:
            raise ValueError(f"path-bound variant must be one of {VARIANTS}, got {variant!r}")
        self.f = form
        self.cache = cache
        self.negative = variant in ("negative", "both")
        self.structure = variant in ("structure", "both")
        self.objective_form = form.p.constrained  # (24') only
        if self.objective_form:
            self.negative = self.structure = False
        self.tol = tol
        self.added: set[tuple] = set()
        self.n_cuts = 0

    def separate(self, x: np.ndarray) -> list[Row]:
        f, p = self.f, self.f.p
        b, leaf, g = x[f.b], x[f.p_leaf], x[f.g]
        rows = []
        for n_sub, path in integral_paths(p, b, self.tol):
            key = tuple(path)
            if key in self.added:
                continue
            result, idx = self.cache.solve(tuple((feat, d) for _, feat, d in path), 2)
            below = descendants(n_sub, p.n_nodes)
            w = p.weights[idx]  # with sample weights every count below is a weight sum
            lp_value = w @ g[idx] - self.cache.leaf_penalty * leaf[np.array(below) - 1].sum()
            if lp_value <= result.score + self.tol:  # Algorithm 2, line 20
                continue
            if self.objective_form:
                self.added.add(key)
                rows.append(self.objective_row(idx, below, result.score,
                                               self.relax_ids(path, n_sub)))
                continue
            slack = float(w.sum()) - result.correct_weight
            if slack <= self.tol and not self.structure:
                continue
            self.added.add(key)
            relax = self.relax_ids(path, n_sub)
            if slack > self.tol:
                rows.append(self.row(idx, result.correct_weight, slack, relax))
            if height(p, n_sub) == 2:
                if self.negative and slack > self.tol:  # (25)
                    wrong = idx[~result.correct]
                    rows.append(self.row(wrong, 0.0, float(p.weights[wrong].sum()), relax))
                if self.structure:  # (26)
                    rows.append(self.structure_row(n_sub, result, relax))
        self.n_cuts += len(rows)
        return rows

    def relax_ids(self, path, n_sub: int) -> np.ndarray:
        """The variables summed in relax^P (23)."""
        f, p = self.f, self.f.p
        relax = [np.zeros(0, dtype=np.int64)]
        for n, feat, _ in path:  # another feature or a leaf on the path
            relax.append(np.r_[f.p_leaf[n - 1], np.delete(f.b[n - 1], feat)])
        down = [d for d in descendants(n_sub, p.n_nodes) if depth_below(n_sub, d) > 2]
        if down:  # a leaf further down than the depth-2 subtree
            relax.append(f.p_leaf[np.array(down) - 1])
        return np.concatenate(relax)

    def row(self, idx: np.ndarray, rhs: float, slack: float, relax: np.ndarray) -> Row:
        """sum_{i in idx} w_i theta_i <= rhs + slack * relax^P: cut (24), or (25) with rhs 0
        (w_i = 1 without sample weights, as in the paper)."""
        ids = np.r_[self.f.g[idx], relax]
        coefs = np.r_[self.f.p.weights[idx], -float(slack) * np.ones(len(relax))]
        return Row(ids, coefs, rhs=float(rhs))

    def objective_row(self, idx: np.ndarray, below: list[int], score: float,
                      relax: np.ndarray) -> Row:
        """Cut (24'): the objective of the subtree below a path is at most D2S's optimum."""
        f, p = self.f, self.f.p
        leaves = f.p_leaf[np.array(below) - 1]
        M = float(p.weights[idx].sum()) - score  # the left side is at most w(I(P))
        ids = np.r_[f.g[idx], leaves, relax]
        coefs = np.r_[p.weights[idx], -self.cache.leaf_penalty * np.ones(len(leaves)),
                      -M * np.ones(len(relax))]
        return Row(ids, coefs, rhs=float(score))

    def structure_row(self, n_sub: int, result, relax: np.ndarray) -> Row:
        """Cut (26): the subtree's branch and leaf variables agree with the D2S subtree."""
        f, p = self.f, self.f.p

        def node(s: int) -> int:  # subtree heap number s -> node of the full tree
            lvl = s.bit_length() - 1
            return n_sub * 2**lvl + (s - 2**lvl)

        terms = []
        for s, feat in result.branches:
            n = node(s)
            terms.append(np.r_[f.p_leaf[n - 1], np.delete(f.b[n - 1], feat)])
        for s, k in result.leaves:
            n = node(s)
            if n <= p.n_internal:
                terms.append(f.b[n - 1])
            terms.append(np.delete(f.w[n - 1], k))
        ids = np.concatenate(terms)
        size = len(result.branches) + len(result.leaves)
        return Row(np.r_[ids, relax],
                   np.r_[np.ones(len(ids)), -float(size) * np.ones(len(relax))], rhs=0.0)


def integral_paths(problem, b: np.ndarray, tol: float = 1e-6) -> list[tuple[int, list]]:
    """Algorithm 2, lines 1-17: (node, path) for every node of height >= 2 below an integral
    path from the root; a path is a list of (node, feature, direction) triples."""
    paths, stack = [], [(1, [])]
    while stack:
        n, path = stack.pop()
        if height(problem, n) <= 2:
            continue
        f = int(np.argmax(b[n - 1]))
        if b[n - 1, f] < 1 - tol:
            continue
        for direction, child in ((0, 2 * n), (1, 2 * n + 1)):
            extended = path + [(n, f, direction)]
            stack.append((child, extended))
            paths.append((child, extended))
    return paths


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
