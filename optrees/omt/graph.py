"""The feature graph of OMT ([OMT] §3, §5): one level per feature, one node per set of codes.

A level encodes its raw column into elementary codes (:mod:`optrees.encoding.bins`); a node of
the level is a set of codes, stored as a row of the 0/1 matrix ``nodes`` (n_nodes x n_codes).
SKIP is implicit: a path that does not use a level skips it.

* categorical column: one node per observed value (the paper's graph), optionally also the
  complements "!= v" or every proper value subset;
* numeric or ordinal column: quantile bins, with single bins or every run of bins as nodes
  (runs are closed under intersection, so refining an interval as a binary tree does by
  splitting twice on one feature stays a single node).  With ``n_bins="auto"`` the number of
  bins grows with the rows and a numeric column also gets the thresholds of a CART tree
  (:func:`data_thresholds`), so that bins follow the data at scale.

A column with a single observed value has no useful node and is dropped (``Graph.dropped``).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import OptreesInputError
from ..encoding.bins import (
    BINNINGS,
    auto_bins,
    bin_runs,
    bin_weights,
    observed_categories,
    ordinal_categories,
    quantile_cuts,
    tree_thresholds,
)
from ..encoding.common import is_numeric
from ..models.level import Level

CATEGORICAL_NODES = ("values", "complements", "subsets")


@dataclass
class Graph:
    """The feature graph: levels in path order, training codes (rows x levels)."""

    levels: list[Level]
    codes: np.ndarray  # (n, n_levels) int32, training data
    dropped: list[str]

    def encode(self, df: pd.DataFrame) -> np.ndarray:
        """Raw table -> codes per level (int32, rows x levels)."""
        if not self.levels:
            return np.zeros((len(df), 0), dtype=np.int32)
        return np.stack([lv.encode(df[lv.name]) for lv in self.levels], axis=1)


def category_nodes(n_codes: int, mode: str, max_subset_values: int = 5) -> np.ndarray:
    """0/1 rows of the nodes of a categorical level: each value ("values"), also "!= v"
    ("complements"), or every proper value subset ("subsets", for <= ``max_subset_values``
    values; complements above that)."""
    eye = np.eye(n_codes, dtype=bool)
    if mode == "values" or n_codes <= 2:
        return eye
    if mode == "subsets" and n_codes <= max_subset_values:
        rows = [np.array([(m >> c) & 1 for c in range(n_codes)], dtype=bool)
                for m in range(1, 2 ** n_codes - 1)]
        rows.sort(key=lambda r: (r.sum(), tuple(~r)))
        return np.array(rows, dtype=bool)
    return np.vstack([eye, ~eye])  # values and their complements ("!= v")


def _check_options(n_bins: int | str, binning: str, nodes: str, ordinal: bool | str) -> None:
    if not (isinstance(ordinal, bool) or ordinal == "auto"):
        raise OptreesInputError(f"ordinal must be True, False or 'auto', got {ordinal!r}")
    if binning not in BINNINGS:
        raise OptreesInputError(f"binning must be one of {BINNINGS}, got {binning!r}")
    if nodes not in CATEGORICAL_NODES:
        raise OptreesInputError(
            f"categorical_nodes must be one of {CATEGORICAL_NODES}, got {nodes!r}")
    if n_bins == "auto":
        return
    if isinstance(n_bins, bool) or not isinstance(n_bins, numbers.Integral) or n_bins < 2:
        raise OptreesInputError(f"n_bins must be 'auto' or an integer >= 2, got {n_bins!r}")


def _column_order(cols: list, feature_order: list | None) -> list:
    order: list = []
    for c in feature_order or []:
        if c not in cols:
            raise OptreesInputError(f"feature_order names unknown column {c!r}")
        if c in order:
            raise OptreesInputError(f"feature_order lists column {c!r} twice")
        order.append(c)
    return order + [c for c in cols if c not in order]


def _level(s: pd.Series, name: str, n_bins: int, binning: str, nodes: str,
           ordinal: bool | str, weights: np.ndarray | None = None,
           thresholds: np.ndarray | None = None) -> Level:
    """The level of one raw column (``weights``: row weights of the quantile bins;
    ``thresholds``: further cuts of a numeric column)."""
    order = ordinal_categories(s, ordinal)
    if order is not None:
        lv = Level(name, "numeric", categories=order)
        lv.cuts = quantile_cuts(lv.positions(s).astype(float), n_bins, weights)
        lv.nodes = bin_runs(lv.n_codes, binning)
    elif is_numeric(s):
        x = np.asarray(s.astype(float).to_numpy(dtype=float))
        lv = Level(name, "numeric", cuts=quantile_cuts(x, n_bins, weights, thresholds))
        lv.nodes = bin_runs(lv.n_codes, binning)
    else:
        lv = Level(name, "categorical", categories=observed_categories(s))
        lv.nodes = category_nodes(lv.n_codes, nodes)
    return lv


def numeric_columns(df: pd.DataFrame, ordinal: bool | str = "auto") -> list:
    """Columns binned over their values (numeric and not ordinal categories)."""
    return [c for c in df.columns
            if ordinal_categories(df[c], ordinal) is None and is_numeric(df[c])]


def data_thresholds(df: pd.DataFrame, y: np.ndarray, depth: int, regression: bool,
                    ordinal: bool | str = "auto", weights: np.ndarray | None = None,
                    min_share: float = 0.0) -> dict[str, np.ndarray]:
    """Cuts of ``n_bins="auto"`` beyond the quantile bins: the thresholds of a CART tree of
    ``depth`` on the numeric columns (:func:`~optrees.encoding.bins.tree_thresholds`), and
    with ``min_share`` > 0 also those of a CART tree whose leaves hold that share of the
    weight (rules of too little support are no OMT rules: the second tree is one OMT can
    start from, :mod:`.cartstart`)."""
    cols = numeric_columns(df, ordinal)
    X = df[cols].astype(float)
    cuts = tree_thresholds(X, y, depth, regression, weights)
    if min_share > 0:
        held = tree_thresholds(X, y, depth, regression, weights,
                               min_weight_fraction_leaf=min(0.5, min_share))
        cuts = {c: np.concatenate([cuts.get(c, np.zeros(0)), held.get(c, np.zeros(0))])
                for c in {*cuts, *held}}
    return cuts


def _bin_count(n_bins: int | str, n_rows: int, weights: np.ndarray | None) -> int:
    """Quantile bins per column: ``n_bins``, or for "auto" :func:`auto_bins` of the rows'
    total weight (so integer weights bin as duplicated rows)."""
    if n_bins != "auto":
        return int(n_bins)
    return auto_bins(n_rows if weights is None else float(np.sum(weights)))


def build_graph(df: pd.DataFrame, feature_order: list | None = None,
                n_bins: int | str = "auto", binning: str = "cumulative",
                categorical_nodes: str = "values", ordinal: bool | str = "auto",
                weights: np.ndarray | None = None,
                thresholds: dict[str, np.ndarray] | None = None) -> Graph:
    """Build the feature graph of a raw table; ``feature_order`` lists columns first in order
    (attribute hierarchy, [OMT] §5), the remaining columns follow in table order.

    ``n_bins``: quantile bins per numeric or ordinal column, or "auto" (:func:`_bin_count`).
    ``categorical_nodes``: "values" (one node per value, the paper's graph), "complements"
    (also "!= v" nodes) or "subsets" (every proper value subset for <= 5 values, else
    complements).  ``ordinal``: "auto" bins ordered categoricals like numeric columns over
    their category order, True also categoricals whose categories are all numbers, False
    treats every categorical as nominal.  ``weights``: row weights of the quantile bins
    (integer weights give the bins of duplicated rows; see :func:`bin_weights` for weights
    below 1).  ``thresholds``: further cuts per numeric column (:func:`data_thresholds`)."""
    _check_options(n_bins, binning, categorical_nodes, ordinal)
    weights = bin_weights(weights)
    bins = _bin_count(n_bins, len(df), weights)
    thresholds = thresholds or {}
    levels: list[Level] = []
    dropped: list[str] = []
    for c in _column_order(list(df.columns), feature_order):
        lv = _level(df[c], str(c), bins, binning, categorical_nodes, ordinal, weights,
                    thresholds.get(str(c)))
        if lv.n_codes < 2:
            dropped.append(str(c))
        else:
            levels.append(lv)
    g = Graph(levels, np.zeros((len(df), 0), dtype=np.int32), dropped)
    g.codes = g.encode(df)
    return g
