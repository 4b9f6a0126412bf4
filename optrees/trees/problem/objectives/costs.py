"""Cost-sensitive classification: predicting class ``k`` for a row of class ``c`` costs
``C[c, k]`` times the row's weight; a tree minimises its total cost (plus its penalty).

The engines solve it as weighted accuracy on a :class:`~.view.ClassificationView`; this
module says what the objective is (a tree's cost, its view) and checks the user's matrix.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...._validation import OptreesInputError
from .view import ClassificationView


class MisclassificationCosts:
    """A ``K x K`` matrix of finite costs >= 0, rows = true class, columns = prediction, in
    the order of the estimator's ``classes_``.  A leaf predicting ``k`` costs ``sum_c W_c C[c, k]``
    (``W_c``: its class weights) and predicts its cheapest class; the engines solve it
    through :meth:`view`."""

    name = "misclassification_costs"

    def __init__(self, matrix: Any) -> None:
        try:
            C = np.asarray(matrix, dtype=np.float64)
        except (TypeError, ValueError):
            raise OptreesInputError("misclassification_costs must hold finite numbers >= 0 "
                                    "(a square matrix or a dict {(true, predicted): cost})"
                                    ) from None
        if C.ndim != 2 or C.shape[0] != C.shape[1] or C.shape[0] < 2:
            raise OptreesInputError("misclassification_costs must be a square matrix (true "
                                    f"class x predicted class), got shape {C.shape}")
        if not np.isfinite(C).all() or (C < 0).any():
            raise OptreesInputError("misclassification_costs must hold finite numbers >= 0")
        self.matrix = C

    @classmethod
    def from_spec(cls, spec: Any, classes: np.ndarray) -> MisclassificationCosts:
        """A matrix ordered as ``classes`` or a dict ``{(true, predicted): cost}`` (pairs
        not given: 0 on the diagonal, 1 off it), checked against the training labels."""
        K = len(classes)
        spec = _by_label(spec, classes)
        if not isinstance(spec, Mapping):
            costs = cls(spec)
            if costs.matrix.shape[0] != K:
                raise OptreesInputError(
                    f"misclassification_costs is {costs.matrix.shape[0]} x "
                    f"{costs.matrix.shape[0]} but y has {K} classes {list(classes)}")
            return costs
        index = {_key(c): k for k, c in enumerate(classes)}
        C = 1.0 - np.eye(K)
        for pair, cost in spec.items():
            if not (isinstance(pair, tuple) and len(pair) == 2):
                raise OptreesInputError("misclassification_costs keys must be pairs (true "
                                        f"label, predicted label), got {pair!r}")
            for label in pair:
                if _key(label) not in index:
                    raise OptreesInputError(f"misclassification_costs names label {label!r}, "
                                            f"not a class of y {list(classes)}")
            try:
                C[index[_key(pair[0])], index[_key(pair[1])]] = float(cost)
            except (TypeError, ValueError):
                raise OptreesInputError(f"misclassification_costs[{pair!r}] must be a "
                                        f"number, got {cost!r}") from None
        return cls(C)

    def total(self, y: np.ndarray, predicted: np.ndarray, w: np.ndarray | None) -> float:
        """Total cost of predicting ``predicted`` for rows of classes ``y`` (weights ``w``)."""
        cost = self.matrix[y, predicted]
        return float(cost.sum() if w is None else cost @ w)

    def leaf_total(self, class_weights: np.ndarray, predicted: np.ndarray) -> float:
        """Total cost of leaves holding ``class_weights`` (leaves x classes) that predict
        ``predicted``: the same sum as :meth:`total`, leaf by leaf."""
        return float(np.einsum("lc,cl->", class_weights, self.matrix[:, predicted]))

    def view(self, y: np.ndarray, w: np.ndarray | None) -> ClassificationView:
        """The weighted-classification rows this objective is solved on."""
        top = self.matrix.max(axis=1)
        w = np.ones(len(y)) if w is None else np.asarray(w, dtype=np.float64)
        return ClassificationView.of_gains(top[:, None] - self.matrix, np.asarray(y), w, top)


def _key(label: Any) -> Any:
    """A label as dictionary key: numbers by value (1 == 1.0 == np.int64(1)), else as text,
    so labels read from a CSV file ("1") find integer classes."""
    if isinstance(label, (bool, np.bool_)):
        return str(label)
    if isinstance(label, (int, float, np.integer, np.floating)):
        return str(float(label))
    try:
        return str(float(label))
    except (TypeError, ValueError):
        return str(label)


def _by_label(spec: Any, classes: np.ndarray) -> Any:
    """A pandas DataFrame whose index and columns name the classes (in any order) as the
    matrix in the order of ``classes``; one clear error when its labels are not the classes
    (a labelled table read by position would silently swap costs).  Anything else as it is
    (a table with the default 0..K-1 labels is read by position)."""
    import pandas as pd

    if not isinstance(spec, pd.DataFrame):
        return spec
    default = [str(float(k)) for k in range(len(spec))]
    rows = [_key(v) for v in spec.index]
    cols = [_key(v) for v in spec.columns]
    if rows == default and cols == [str(float(k)) for k in range(spec.shape[1])] and \
            sorted(rows) != sorted(_key(c) for c in classes):
        return spec.to_numpy()  # unlabelled: by position, as a matrix
    want = [_key(c) for c in classes]
    if sorted(rows) != sorted(want) or sorted(cols) != sorted(want) or \
            len(set(rows)) != len(rows) or len(set(cols)) != len(cols):
        raise OptreesInputError(
            f"misclassification_costs: a table's index (true class) and columns (predicted "
            f"class) must each name the classes of y {list(classes)} once; got index "
            f"{list(spec.index)} and columns {list(spec.columns)}")
    order_rows = [rows.index(k) for k in want]
    order_cols = [cols.index(k) for k in want]
    return spec.to_numpy()[np.ix_(order_rows, order_cols)]
