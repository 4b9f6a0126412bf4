"""scikit-survival style estimator for optimal survival trees over every threshold (issue
#45): STreeD's leaf loss, certified, with Harrell's C-index as its score."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from .._params import GeneratedInit
from .._validation import OptreesInputError
from ..models.result import FitResult
from ..trees.problem.objectives.survival import Baseline
from ..trees.solve.survival import MAX_SURVIVAL_DEPTH, solve_survival_tree
from ._base import logged_fit
from .threshold_trees import EveryThresholdTree, threshold_tree_parameters

DEPTH_WHY = ("the survival search over every threshold is built and tested to depth "
             f"{MAX_SURVIVAL_DEPTH} so far (issue #45)")


class OptimalSurvivalTree(GeneratedInit, EveryThresholdTree, BaseEstimator):
    """Optimal survival tree over every threshold of the numeric columns (categoricals
    one-hot): each leaf has one hazard ratio ``theta`` against a Nelson–Aalen baseline
    cumulative hazard ``Lambda0`` of all training rows, and the tree of depth <= ``depth``
    minimises ``loss / loss_1 + lam * leaves``, ``loss`` the leaves' Poisson deviance at
    their best ``theta`` (STreeD's survival loss; ``loss_1``: that of a single leaf), with at
    least ``min_samples_leaf`` rows per leaf and at most ``max_leaves`` leaves.

    ``y``: a structured array whose first field is the event indicator (bool or 0/1) and
    second the time (scikit-survival's ``Surv.from_arrays``), or a 2-column array or frame
    with the columns (event, time) in that order.  Times must be finite and >= 0, with at
    least one event.

    Predictions: :meth:`predict` is the leaf's ``theta`` (a risk score: higher, earlier
    event); the curves are arrays ``(n_rows, n_times)`` at ``times`` (default
    ``unique_times_``, the sorted distinct training times): ``theta * Lambda0(t)`` and
    ``exp(-theta * Lambda0(t))`` (``Lambda0`` is 0 before the first training event).
    :meth:`score` is Harrell's C-index.

    Fitted attributes: ``tree_`` (a :class:`~optrees.models.regression_tree.RegressionTree`
    with ``theta`` as node values), ``baseline_`` (``Lambda0``), ``unique_times_``,
    ``leaf_kaplan_meier_`` ({leaf node: Kaplan–Meier curve of its training rows at
    ``unique_times_``}), ``objective_``, ``bound_``, ``gap_``, ``status_``,
    ``solve_seconds_``, ``fit_seconds_``, ``stats_`` (``stats_["loss"]``: the raw loss),
    ``n_features_in_``, ``feature_names_in_``.
    """

    _parameters, _defaults = threshold_tree_parameters(
        MAX_SURVIVAL_DEPTH, DEPTH_WHY, "the loss of a single leaf")

    @logged_fit
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> OptimalSurvivalTree:
        """Solve for the best tree within ``time_limit``; ``sample_weight``: one number >= 0
        per row (integer weights give the tree of duplicated rows, but for
        ``min_samples_leaf``, which counts rows, not weight). Returns ``self``."""
        return self._fit_table(X, y, sample_weight, check_survival_target, _solve,
                               self._survival_attributes)

    def _survival_attributes(self, out: tuple, features: np.ndarray, target: np.ndarray,
                             w: np.ndarray | None) -> None:
        """The baseline, the training times and each leaf's Kaplan–Meier curve."""
        self.baseline_ = out[1].baseline
        self.unique_times_ = np.unique(target[:, 1])
        leaves = self.tree_.apply(features)
        self.leaf_kaplan_meier_ = leaf_kaplan_meier(leaves, target, w, self.unique_times_)

    def predict(self, X: Any) -> np.ndarray:
        """Risk score of each row of ``X``: its leaf's hazard ratio ``theta``."""
        return super().predict(X)

    def export_text(self) -> str:
        """The fitted tree as indented text: one line per test, each leaf's hazard ratio."""
        check_is_fitted(self, "tree_")
        return self.tree_.export_text(value_name="hazard ratio")

    def plot(self, path: Any = None, **kwargs: Any) -> Any:
        """matplotlib Figure of the tree, each leaf with its hazard ratio and the Kaplan–Meier
        curve of its training rows (saved to ``path`` when given: PNG, SVG, PDF)."""
        check_is_fitted(self, "tree_")
        return plot_survival_tree(self.tree_, self.unique_times_, self.leaf_kaplan_meier_,
                                  path=path, **kwargs)

    def predict_cumulative_hazard_function(self, X: Any, times: Any = None) -> np.ndarray:
        """``(n_rows, n_times)``: ``theta * Lambda0(t)`` of each row of ``X`` at ``times``
        (default ``unique_times_``)."""
        at = self.unique_times_ if times is None else times
        return cumulative_hazard(self.predict(X), self.baseline_, at)

    def predict_survival_function(self, X: Any, times: Any = None) -> np.ndarray:
        """``(n_rows, n_times)``: ``exp(-theta * Lambda0(t))`` of each row of ``X`` at
        ``times`` (default ``unique_times_``)."""
        return np.exp(-self.predict_cumulative_hazard_function(X, times))

    def score(self, X: Any, y: Any) -> float:
        """Harrell's C-index of :meth:`predict` on ``(X, y)`` (``concordance_index`` of
        this module)."""
        target = check_survival_target(y, len(X))
        return concordance_index(target[:, 0], target[:, 1], self.predict(X))


def plot_survival_tree(tree: Any, times: np.ndarray, curves: dict[int, np.ndarray],
                       **kwargs: Any) -> Any:
    """The picture of a survival tree (fitted or loaded): :func:`optrees.export.plot_tree`
    with each leaf's hazard ratio and its Kaplan–Meier curve ``curves[leaf]`` at ``times``."""
    from ..export import plot_tree

    steps = {leaf: (times, curve) for leaf, curve in curves.items()}
    return plot_tree(tree._plot_nodes(None, "hazard ratio", steps), **kwargs)


def cumulative_hazard(theta: np.ndarray, baseline: Baseline, times: Any) -> np.ndarray:
    """``(n_rows, n_times)``: ``theta * Lambda0(t)`` at ``times``, ``Lambda0`` 0 before the
    first training event (also what a loaded model predicts, :mod:`optrees.loaded`)."""
    at = check_times(times)
    base = np.where(at < baseline.times[0], 0.0, baseline(at))
    return np.asarray(theta, dtype=np.float64)[:, None] * base[None, :]


def _solve(features: np.ndarray, target: np.ndarray, w: np.ndarray | None, *args: Any
           ) -> tuple[FitResult, Any]:
    """:func:`solve_survival_tree`, once the rows of positive weight hold an event."""
    if not (target[:, 0] > 0).any():
        raise OptreesInputError("y has no event among the rows of positive weight: a "
                                "survival tree needs at least one observed event")
    return solve_survival_tree(features, target, w, *args)


def check_survival_target(y: object, n_rows: int) -> np.ndarray:
    """``y`` as an ``(n_rows, 2)`` float array of (event 0/1, time), or one clear error
    naming the field (a frame's column, a structured array's field) at fault."""
    shape = "a structured array of (event, time) or a 2-column array or frame (event, time)"
    names = ["column 0 (event)", "column 1 (time)"]
    if isinstance(y, np.ndarray) and y.dtype.names is not None:
        if len(y.dtype.names) != 2:
            raise OptreesInputError(f"y must be {shape}; got a structured array with fields "
                                    f"{y.dtype.names}")
        names = [f"field {name!r}" for name in y.dtype.names]
        fields = [y[name] for name in y.dtype.names]
    elif isinstance(y, pd.DataFrame):
        names = [f"column {name!r}" for name in y.columns]
        fields = [y.iloc[:, j] for j in range(y.shape[1])] if y.shape[1] == 2 else []
    else:
        values = np.asarray(y)
        fields = ([values[:, j] for j in range(2)] if values.ndim == 2 and values.shape[1] == 2
                  else [])
    if len(fields) != 2 or len(fields[0]) != n_rows:
        raise OptreesInputError(f"y must be {shape} with {n_rows} rows; got shape "
                                f"{getattr(y, 'shape', None)}")
    columns = []
    for field, name, what in zip(fields, names, ("event indicator", "time"), strict=True):
        missing = np.flatnonzero(pd.isna(np.asarray(field, dtype=object)))
        if missing.size:  # pd.NA, None or NaN: one message, whatever the dtype
            raise OptreesInputError(
                f"y's {what} ({name}) has {missing.size} missing value(s) (row positions "
                f"{missing[:5].tolist()}); drop those rows or fill them in")
        try:
            columns.append(np.asarray(field, dtype=np.float64))
        except (TypeError, ValueError) as exc:
            raise OptreesInputError(f"y's {what} ({name}) must hold numbers: {exc}") from None
    event, time = columns
    if not np.isin(event, (0.0, 1.0)).all():
        raise OptreesInputError(f"the event indicator ({names[0]} of y) must be bool or 0/1")
    if not (np.isfinite(time).all() and (time >= 0).all()):
        raise OptreesInputError(f"the times ({names[1]} of y) must be finite and >= 0")
    return np.column_stack(columns)


def check_times(times: Any) -> np.ndarray:
    """The times a curve is evaluated at: a 1-d sequence of numbers with none missing (a
    missing time gave the curve's last value, as if it were infinite), or one clear
    error."""
    try:
        at = np.asarray(pd.array(times, dtype="Float64") if np.ndim(times) == 1 else times,
                        dtype=object)
    except (TypeError, ValueError) as exc:
        raise OptreesInputError(f"times must hold numbers: {exc}") from None
    if at.ndim != 1:
        raise OptreesInputError(f"times must be a 1-d sequence of times, got shape {at.shape}")
    missing = np.flatnonzero(pd.isna(at))
    if missing.size:
        raise OptreesInputError(f"times has {missing.size} missing value(s) (positions "
                                f"{missing[:5].tolist()}); give every time")
    return at.astype(np.float64)


def leaf_kaplan_meier(leaves: np.ndarray, y: np.ndarray, w: np.ndarray | None,
                      times: np.ndarray) -> dict[int, np.ndarray]:
    """{leaf: weighted Kaplan–Meier curve ``prod_{t_k <= t} (1 - d_k / r_k)`` of its rows}
    at ``times``, the sorted distinct times of ``y`` (``(m, 2)``: event, time): one pass
    over a (leaf, time) table of deaths and exits."""
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=np.float64)
    ids, leaf = np.unique(leaves, return_inverse=True)
    cell = leaf * len(times) + np.searchsorted(times, y[:, 1])
    shape = (len(ids), len(times))
    died = np.bincount(cell, weights=w * y[:, 0], minlength=shape[0] * shape[1]).reshape(shape)
    left = np.bincount(cell, weights=w, minlength=shape[0] * shape[1]).reshape(shape)
    at_risk = np.cumsum(left[:, ::-1], axis=1)[:, ::-1]
    # past a leaf's last time nobody is at risk and nobody dies: the curve stays flat
    hazard = np.divide(died, at_risk, out=np.zeros(shape), where=at_risk > 0)
    curves = np.cumprod(1.0 - hazard, axis=1)
    return {int(i): curve for i, curve in zip(ids, curves, strict=True)}


def concordance_index(event: np.ndarray, time: np.ndarray, risk: np.ndarray,
                      block: int = 1024) -> float:
    """Harrell's C-index: among comparable pairs (``i`` has an event and either ``t_i <
    t_j``, or ``t_i == t_j`` with ``j`` censored), the share where ``risk_i > risk_j``,
    ties in risk counting one half (scikit-survival's ``concordance_index_censored`` with
    exact ties).  NaN when no pair is comparable."""
    event = np.asarray(event, dtype=bool)
    time = np.asarray(time, dtype=np.float64)
    risk = np.asarray(risk, dtype=np.float64)
    concordant = comparable = 0.0
    rows = np.flatnonzero(event)
    for start in range(0, len(rows), block):  # O(n^2) in blocks of event rows
        i = rows[start:start + block, None]
        pair = (time[i] < time[None]) | ((time[i] == time[None]) & ~event[None])
        concordant += float(((risk[i] > risk[None]) & pair).sum()
                            + 0.5 * ((risk[i] == risk[None]) & pair).sum())
        comparable += float(pair.sum())
    return concordant / comparable if comparable else float("nan")
