"""Rule losses of OMT ([OMT] eq. 1, §5): per-unit statistics and the loss xi_j of a rule.

Samples with identical codes on every level are covered by exactly the same rules, so they are
merged into one *unit* whose statistics are sums; a rule's loss is a function of the summed
statistics of the units it covers (majority class, weighted majority, F1 parametric costs,
mean for squared loss, a grid median for absolute loss).
"""

from __future__ import annotations

import math

import numpy as np

from ..encoding.bins import bin_weights, weighted_quantile


class Metric:
    """Per-unit additive statistics ``S`` and the rule loss xi = err(sum of S over S_j).

    ``kind == "loss"``: S is a loss matrix (unit x candidate prediction), xi = min over columns.
    ``kind == "squared"``: S = [n, sum y, sum y^2], xi = sum y^2 - (sum y)^2 / n.
    ``kind == "gini"``: S = class counts, xi = n * Gini impurity (greedy splits only).
    """

    def __init__(self, kind: str, S: np.ndarray, count: np.ndarray,
                 values: np.ndarray | None = None) -> None:
        self.kind = kind
        self.S = np.asarray(S, dtype=float)
        self.count = np.asarray(count, dtype=float)
        self.values = values  # prediction per loss column (regression grid)

    def err(self, agg: np.ndarray) -> np.ndarray:
        """Loss of the summed statistics ``agg`` (last axis = the columns of S)."""
        if self.kind == "loss":
            return agg.min(axis=-1)
        if self.kind == "gini":
            n = agg.sum(axis=-1)
            return n - (agg ** 2).sum(axis=-1) / np.maximum(n, 1e-300)
        n = np.maximum(agg[..., 0], 1e-300)
        return np.maximum(agg[..., 2] - agg[..., 1] ** 2 / n, 0.0)

    def pred(self, agg: np.ndarray) -> np.ndarray:
        """The prediction that attains :meth:`err` (class index or value)."""
        if self.kind == "loss":
            a = agg.argmin(axis=-1)
            return a if self.values is None else self.values[a]
        return agg[..., 1] / np.maximum(agg[..., 0], 1e-300)

    def lower(self) -> float:
        """A lower bound of sum_j xi_j over any partition."""
        if self.kind == "loss":
            return float(np.minimum(self.S.min(axis=1), 0.0).sum())
        return 0.0

    def pricing_terms(self, lam: np.ndarray) -> tuple[np.ndarray, int]:
        """Per-unit additive terms W of the reduced cost and its bound for unit duals
        ``lam`` (the sample count is the last column), and the number of loss terms."""
        if self.kind == "loss":
            R = self.S - lam[:, None]
            return np.hstack([R, np.minimum(R, 0.0), self.count[:, None]]), 2 * R.shape[1]
        return (np.column_stack([self.S, -lam, -np.maximum(lam, 0.0), self.count]), 5)

    def evaluate(self, agg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(reduced-cost part, lower-bound part) of summed pricing terms ``agg``."""
        if self.kind == "loss":
            C = self.S.shape[1]
            return agg[..., :C].min(axis=-1), agg[..., C:2 * C].min(axis=-1)
        return self.err(agg[..., :3]) + agg[..., 3], agg[..., 4]


def unit_table(codes: np.ndarray, weights: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Merge identical code rows: (unit codes, unit of each sample, samples per unit; with
    ``weights``, their weight per unit)."""
    if codes.shape[1] == 0:
        inv = np.zeros(len(codes), dtype=np.int64)
        total = float(len(codes)) if weights is None else float(np.sum(weights))
        return np.zeros((1, 0), dtype=np.int32), inv, np.array([total])
    uniq, inv = np.unique(codes, axis=0, return_inverse=True)
    inv = inv.ravel().astype(np.int64)
    return (uniq.astype(np.int32), inv,
            np.bincount(inv, weights=weights, minlength=len(uniq)).astype(float))


def class_loss_matrix(inv: np.ndarray, y: np.ndarray, n_units: int, n_classes: int,
                      weights: np.ndarray | None = None) -> np.ndarray:
    """S[p, c] = weighted number of samples of unit p whose class is not c."""
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=float)
    cw = np.bincount(inv * n_classes + y, weights=w, minlength=n_units * n_classes)
    cw = cw.reshape(n_units, n_classes)
    return cw.sum(axis=1, keepdims=True) - cw


def f1_matrix(inv: np.ndarray, y: np.ndarray, n_units: int, gamma: float,
              pos: int, weights: np.ndarray | None = None) -> np.ndarray:
    """Dinkelbach costs: column 0 = predict negative (0), column 1 = gamma n_p - 2 TP_p
    (``weights``: row weights; n_p and TP_p are weights then)."""
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=float)
    n = np.bincount(inv, weights=w, minlength=n_units).astype(float)
    tp = np.bincount(inv, weights=w * (y == pos), minlength=n_units)
    return np.column_stack([np.zeros(n_units), gamma * n - 2.0 * tp])


def regression_metric(inv: np.ndarray, y: np.ndarray, n_units: int, loss: str,
                      abs_grid: int = 64, weights: np.ndarray | None = None,
                      center: float = 0.0, scale: int = 0) -> Metric:
    """Squared loss (mean per rule) or absolute loss over candidate predictions: the distinct
    targets when there are at most ``abs_grid`` of them (exact), else ``abs_grid`` quantiles;
    ``weights``: row weights (weighted losses, means and quantiles).  Losses are those of
    (y - ``center``) / 2^``scale``, computed as y / 2^scale - center / 2^scale (the same
    numbers, exactly, but no overflow for huge y); absolute loss predicts values of y
    itself, squared loss means of the scaled target (see
    :func:`optrees.omt.rules.target_scale`)."""
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=float)
    n = np.bincount(inv, weights=w, minlength=n_units).astype(float)
    if loss == "squared":
        ys = np.ldexp(y, -scale) - math.ldexp(center, -scale)
        S = np.column_stack([n, np.bincount(inv, weights=w * ys, minlength=n_units),
                             np.bincount(inv, weights=w * ys * ys, minlength=n_units)])
        return Metric("squared", S, n)
    vals = np.unique(y)
    if len(vals) > abs_grid:
        order = np.argsort(y, kind="stable")
        vals = np.unique(weighted_quantile(y[order], bin_weights(w)[order],
                                           np.linspace(0, 1, abs_grid)))
    S = np.zeros((n_units, len(vals)))
    y_s = np.ldexp(y, -scale)
    for c, v in enumerate(vals):
        S[:, c] = np.bincount(inv, weights=w * np.abs(y_s - math.ldexp(float(v), -scale)),
                              minlength=n_units)
    return Metric("loss", S, n, values=vals)
