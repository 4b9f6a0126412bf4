"""Linear leaves: a leaf predicts with its own ridge regression on the regressors and costs
the minimum of its penalised least squares,
``min_b  sum_i w_i (y_i - b_0 - z_i' b)^2 + alpha * |b|^2`` (the intercept ``b_0`` not
penalised).

With ``x_i = (1, z_i)`` that minimum is ``y'Wy - c' M^-1 c`` for ``M = X'WX + alpha D``
(``D``: identity without its intercept entry) and ``c = X'Wy``, the ridge solution being
``M^-1 c``: a function of sums over the leaf's rows.  So each row contributes one vector of
statistics (its count, the upper triangle of ``w x x'``, ``w x y`` and ``w y^2``), a leaf's
cost is a function of their sum, and the search gets the two leaves of a split from sums of
row subsets (:mod:`optrees.trees.search.regression.linear`).
"""

from __future__ import annotations

import numpy as np

from ....solvers.deadline import Deadline, check_deadline

ROW_STATS_CELLS = 2_000_000
"""Row statistics are built in blocks of at most this many cells (16 MB), the deadline
checked between blocks."""

PINV_RCOND = 1e-10
"""With ``alpha = 0``, eigenvalues of a leaf's ``X'WX`` below this fraction of its largest
are taken as 0 (least squares by the pseudo-inverse; the regressors are standardised)."""


class RidgeLeaves:
    """Ridge regression in each leaf over ``n_regressors`` columns (plus an intercept) with
    penalty ``alpha``; leaves with fewer than ``min_leaf`` rows are infeasible (cost inf).

    Row statistics (:meth:`row_stats`), a leaf's cost (:meth:`leaf_cost`) and its model
    (:meth:`leaf_model`) from summed statistics, vectorised over any leading axes."""

    name = "ridge_leaves"

    def __init__(self, n_regressors: int, alpha: float, min_leaf: int = 1) -> None:
        self.q = n_regressors + 1
        self.alpha = float(alpha)
        self.min_leaf = max(int(min_leaf), 1)
        self.upper = np.triu_indices(self.q)
        self.n_tri = len(self.upper[0])
        self.n_stats = 1 + self.n_tri + self.q + 1
        self.ridge_diagonal = np.diag(np.r_[0.0, np.full(n_regressors, self.alpha)])
        # the intercept (entry 0) is not penalised
        position = np.zeros((self.q, self.q), dtype=np.int64)
        position[self.upper] = np.arange(self.n_tri)
        self.full = 1 + np.maximum(position, position.T)  # (i, j) -> index into S

    def row_stats(self, Z: np.ndarray, y: np.ndarray, w: np.ndarray,
                  deadline: Deadline | None = None) -> np.ndarray:
        """``(n, n_stats)``: per row ``(1, triu(w x x'), w x y, w y^2)`` with ``x = (1, z)``;
        built in blocks of rows, ``deadline`` checked between them (:class:`TimeUp`)."""
        Z = np.asarray(Z, dtype=np.float64)
        n, i, j = len(y), *self.upper
        out = np.empty((n, self.n_stats))
        step = max(1, ROW_STATS_CELLS // self.n_stats)
        for lo in range(0, n, step):
            check_deadline(deadline)
            hi = min(n, lo + step)
            X = np.hstack([np.ones((hi - lo, 1)), Z[lo:hi]])
            wx = w[lo:hi, None] * X
            block = out[lo:hi]
            block[:, 0] = 1.0
            np.multiply(wx[:, i], X[:, j], out=block[:, 1:1 + self.n_tri])
            np.multiply(wx, y[lo:hi, None], out=block[:, 1 + self.n_tri:-1])
            block[:, -1] = w[lo:hi] * y[lo:hi] * y[lo:hi]
        return out

    def summed_stats(self, Z: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
        """``(n_stats,)``: the statistics of :meth:`row_stats` summed over the rows, from
        ``X'WX`` directly (a leaf's model when the rows' statistics were not built)."""
        X = np.hstack([np.ones((len(y), 1)), np.asarray(Z, dtype=np.float64)])
        wx = w[:, None] * X
        return np.r_[float(len(y)), (wx.T @ X)[self.upper], wx.T @ y, w @ (y * y)]

    def _system(self, S: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``M = X'WX + alpha D``, ``c = X'Wy`` and ``y'Wy`` of summed statistics ``S``."""
        M = S[..., self.full] + self.ridge_diagonal  # one gather of the upper triangle
        c = S[..., 1 + self.n_tri:1 + self.n_tri + self.q]
        return M, c, S[..., -1]

    def _solve(self, M: np.ndarray, c: np.ndarray) -> np.ndarray:
        """``M^-1 c`` for systems of positive weight (with ``alpha = 0``, the least-norm
        solution by the pseudo-inverse)."""
        if self.alpha > 0:  # M is positive definite for a leaf of positive weight
            return np.linalg.solve(M, c[..., None])[..., 0]
        # summed statistics carry rounding: a direction the leaf's rows do not span (a
        # regressor constant in the leaf) has an eigenvalue of ~1e-16, not 0, and inverting
        # it would be noise; PINV_RCOND treats it as the zero it is
        return (np.linalg.pinv(M, rcond=PINV_RCOND, hermitian=True) @ c[..., None])[..., 0]

    def leaf_model(self, S: np.ndarray) -> np.ndarray:
        """The ridge solution ``(b_0, b)`` of leaves with summed statistics ``S`` (zeros for
        a leaf of no weight)."""
        S = np.asarray(S, dtype=np.float64)
        b = np.zeros(S.shape[:-1] + (self.q,))
        weighted = S[..., 1] > 0  # the leaf's weight: the (0, 0) entry of X'WX
        M, c, _ = self._system(S[weighted])
        b[weighted] = self._solve(M, c)
        return b

    def leaf_cost(self, S: np.ndarray) -> np.ndarray:
        """The penalised least squares of leaves with summed statistics ``S``:
        ``y'Wy - c' b`` at the solution ``b`` (``M b = c``), clipped at 0 against rounding;
        inf for a leaf with fewer than ``min_leaf`` rows (an empty one included)."""
        S = np.asarray(S, dtype=np.float64)
        cost = np.full(S.shape[:-1], np.inf)
        feasible = (S[..., 0] >= self.min_leaf - 0.5) & (S[..., 1] > 0)
        M, c, yy = self._system(S[feasible])
        b = self._solve(M, c)
        cost[feasible] = np.maximum(yy - np.einsum("...i,...i->...", c, b), 0.0)
        return cost
