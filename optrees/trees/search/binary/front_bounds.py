"""Arithmetic of leaf-count fronts: their (max, +) convolution at a split, and upper bounds on
the fronts of a node's root features, so the front search skips a root feature that cannot
improve the node's front at any leaf count.

MurTree's similarity bound (Demirović et al. 2022, §4.5), kept per leaf count: a tree with at
most ``j`` leaves scores on a row set ``A`` at most its score on another set ``A'`` plus the
weight of ``A \\ A'``, and on ``A'`` it is a tree of at most ``j`` leaves too (a split left
with one empty side collapses to its other child), so

    ``F_A(j) <= F_A'(j) + w(A \\ A')``.

Each side of a root feature ``f`` (``x_f = 0`` and ``x_f = 1``) is compared with both sides of
every root feature already searched.  With ``min_leaf > 1`` the tree moved to ``A'`` may
break the leaf size, so only the trivial bounds are used there.
"""

from __future__ import annotations

import numpy as np

__all__ = ["RootBounds", "convolve"]


def convolve(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(max, +) convolution of fronts ``a`` (n x p) and ``b`` (n x q) over their last axis:
    ``out[:, s] = max_{i + j = s} a[:, i] + b[:, j]`` (leaf counts ``i + 1`` and ``j + 1``
    make ``s + 2``), and the first ``i`` reaching it."""
    n, p, q = a.shape[0], a.shape[-1], b.shape[-1]
    # sums laid out by (i, s = i + j), -inf where no j fits: a max and an argmax over i
    grid = np.full((n, p, p + q - 1), -np.inf)
    i, j = np.arange(p)[:, None], np.arange(q)[None, :]
    grid[:, i, i + j] = a[:, :, None] + b[:, None, :]
    vals, arg = grid.max(axis=1), grid.argmax(axis=1)
    first = np.maximum(0, np.arange(p + q - 1) - q + 1)  # the first i of each s
    return vals, np.where(vals == -np.inf, first[None, :], arg)


class RootBounds:
    """Bounds ``ub[s, f, j - 1]`` on the front of side ``s`` of root feature ``f`` at ``j``
    leaves, for the rows whose 0/1 matrix is ``XsT`` (features x rows), weights ``w``, class
    weights ``t`` (K) and class weights with ``x_f = 1`` ``D`` (K x F); ``h`` leaf counts a
    side.  Starts from the exact leaf (``j = 1``) and the side's weight; :meth:`add` tightens
    them with each searched feature's fronts when ``similar``."""

    def __init__(self, XsT: np.ndarray, w: np.ndarray, t: np.ndarray, D: np.ndarray,
                 h: int, similar: bool) -> None:
        W = float(w.sum())
        W1 = D.sum(axis=0)
        self.ub = np.empty((2, D.shape[1], h))
        self.ub[0] = (W - W1)[:, None]
        self.ub[1] = W1[:, None]
        self.ub[0, :, 0] = (t[:, None] - D).max(axis=0)
        self.ub[1, :, 0] = D.max(axis=0)
        self.extra: np.ndarray | None = None
        if similar:
            Xf = XsT.astype(np.float64)
            P = Xf @ (Xf * w).T  # weight with x_f = x_g = 1
            # extra[s, s2][f, g]: the weight of side s of f outside side s2 of g
            self.extra = np.stack([
                np.stack([W1[None, :] - P, W - W1[:, None] - W1[None, :] + P]),
                np.stack([P, W1[:, None] - P])])

    def add(self, g: int, upper0: np.ndarray, upper1: np.ndarray) -> None:
        """Tighten every feature's bounds with feature ``g``'s side fronts (their proven
        upper bounds: exact values when its search finished)."""
        if self.extra is None:
            return
        for s in (0, 1):
            for s2, up in ((0, upper0), (1, upper1)):
                cand = up[None, 1:] + self.extra[s, s2][:, g][:, None]
                np.minimum(self.ub[s, :, 1:], cand, out=self.ub[s, :, 1:])

    def few_leaves(self, v0: np.ndarray, v1: np.ndarray, slack: float) -> None:
        """Tighten the bounds at 2 and 3 leaves to each side's depth-2 front (``v0`` /
        ``v1``, F x 4: the sides of every root feature): a tree of at most 3 leaves has
        depth <= 2, so that front is the side's optimum there (``slack``: ties within the
        fronts' tolerance)."""
        for s, v in ((0, v0), (1, v1)):
            np.minimum(self.ub[s, :, 1:3], v[:, 1:3] + slack, out=self.ub[s, :, 1:3])

    def can_improve(self, feats: np.ndarray, best: np.ndarray, tol: float,
                    known: int = 1) -> np.ndarray:
        """Which of ``feats`` may beat ``best`` (the node's front so far, ``2h`` leaf counts,
        nondecreasing) by more than ``tol`` at some leaf count above ``known`` (``best`` is
        the node's optimum up to ``known`` leaves: no feature beats it there)."""
        if len(feats) == 0:
            return np.zeros(0, dtype=bool)
        conv, _ = convolve(self.ub[0, feats], self.ub[1, feats])  # leaf counts 2, 3, ...
        start = max(known, 1) - 1
        return (conv[:, start:] > best[None, start + 1:] + tol).any(axis=1)
