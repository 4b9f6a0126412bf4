"""Feature costs: every row pays, for each distinct column tested on its path, that
column's cost times its weight (a test that must be measured, in the units of one
misclassified row; pystreed's cost-sensitive task).

The cost of a split depends on the columns above it, which the 0/1 subtree search carries
(:mod:`optrees.trees.search.binary.feature_costs`); the numeric search and the MIPs do not, so a
fit with feature costs runs over 0/1 columns (numeric columns binarized) and its bound is
the search's.  Combined with a cost matrix, the search takes the matrix's gains and the
objective is their total cost.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...._validation import OptreesInputError
from ..tree_problem import HeapTree


class FeatureCosts:
    """``{column: cost >= 0}`` over the columns of X (columns not named cost 0)."""

    name = "feature_costs"

    def __init__(self, costs: Mapping[str, float]) -> None:
        self.costs = dict(costs)

    @classmethod
    def from_spec(cls, spec: Any, columns: Sequence[str]) -> FeatureCosts:
        """Checked against the fit's columns: one error naming an unknown column or a cost
        that is not a number >= 0."""
        if not isinstance(spec, Mapping):
            raise OptreesInputError("feature_costs must be a dict {column name: cost}, got "
                                    f"{type(spec).__name__}")
        out = {}
        for name, cost in spec.items():
            if str(name) not in columns:
                raise OptreesInputError(f"feature_costs names {name!r}, not a column of X "
                                        f"(columns: {list(columns)[:10]})")
            try:
                value = float(cost)
            except (TypeError, ValueError):
                value = float("nan")
            if not np.isfinite(value) or value < 0:
                raise OptreesInputError(f"feature_costs[{name!r}] must be a number >= 0, "
                                        f"got {cost!r}")
            out[str(name)] = value
        return cls(out)

    def of_features(self, feature_columns: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(column index of each 0/1 feature, cost of each column)."""
        names = list(dict.fromkeys(feature_columns))
        index = {c: i for i, c in enumerate(names)}
        return (np.array([index[c] for c in feature_columns], dtype=np.int64),
                np.array([self.costs.get(c, 0.0) for c in names]))

    @staticmethod
    def row_costs(tree: HeapTree, X: np.ndarray, column: np.ndarray,
                  column_cost: np.ndarray) -> np.ndarray:
        """Each row's feature cost under ``tree``: its path's distinct columns' costs."""
        stop = tree.terminal(X) if len(tree.split) else np.ones(len(X), dtype=np.int64)
        path_cost = {}
        for node in np.unique(stop).tolist():
            used, a = set(), node // 2
            while a >= 1:
                used.add(int(column[tree.split[a - 1]]))
                a //= 2
            path_cost[node] = float(sum(column_cost[c] for c in used))
        return np.array([path_cost[s] for s in stop.tolist()])
