"""Feature graph of OMT (omt-multiway.txt §3, §5): one level per feature, a node per value.

A level encodes its raw column into *elementary codes* (categories, or quantile bins of a
numeric column); a node of the level is a set of codes, stored as a row of the 0/1 matrix
``nodes`` (n_nodes x n_codes).  SKIP is implicit: a path that does not use a level skips it.

* categorical column: one node per observed value (the paper's graph);
* numeric column, ``binning="cumulative"`` (§5): kappa quantile bins and every contiguous run
  of bins except the full range, i.e. kappa(kappa+1)/2 - 1 = O(kappa^2) nodes, so a rule can
  express ``x >= t``, ``x < t`` and ``t1 <= x < t2`` at any of the kappa-1 cut points;
* numeric column, ``binning="plain"``: the kappa bins only;
* ordinal column (an ordered pandas categorical unless ``ordinal=False``; with
  ``ordinal=True`` also a categorical whose categories are all numbers): binned like a
  numeric column over the category positions, so a node is a run of consecutive categories
  ("safety >= med"); the level keeps the category list for encoding and text.

Because runs of bins are closed under intersection, refining an interval (as a binary tree
does by splitting twice on one feature) stays a single node of the level.
A column with a single observed value has no useful node and is dropped (``Graph.dropped``).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import OptreesInputError
from ..encoding.common import plain
from ..models.level import Level

_BINNING = ("cumulative", "plain")
_CATNODES = ("values", "complements", "subsets")


def _is_numeric(s: pd.Series) -> bool:
    return (pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)
            and not isinstance(s.dtype, pd.CategoricalDtype))


def _numeric_cuts(x: np.ndarray, n_bins: int) -> np.ndarray:
    """kappa quantile bins (cut points halfway between distinct values; fewer if ties)."""
    uniq = np.unique(x)
    if len(uniq) <= n_bins:
        return (uniq[:-1] + uniq[1:]) / 2.0
    q = np.quantile(x, np.linspace(0, 1, n_bins + 1)[1:-1], method="lower")
    pos = np.unique(np.searchsorted(uniq, q))  # cut just above these distinct values
    pos = pos[pos < len(uniq) - 1]
    return (uniq[pos] + uniq[pos + 1]) / 2.0


def _interval_nodes(n_codes: int, binning: str) -> np.ndarray:
    if binning == "plain":
        return np.eye(n_codes, dtype=bool)
    rows = []
    for a in range(n_codes):
        for b in range(a, n_codes):
            if a == 0 and b == n_codes - 1:
                continue  # the full range is SKIP
            r = np.zeros(n_codes, dtype=bool)
            r[a:b + 1] = True
            rows.append(r)
    return np.array(rows, dtype=bool).reshape(-1, n_codes)


@dataclass
class Graph:
    """The feature graph: levels in path order, training codes (rows x levels)."""

    levels: list[Level]
    codes: np.ndarray  # (n, n_levels) int32, training data
    dropped: list[str]

    def encode(self, df: pd.DataFrame) -> np.ndarray:
        if not self.levels:
            return np.zeros((len(df), 0), dtype=np.int32)
        return np.stack([lv.encode(df[lv.name]) for lv in self.levels], axis=1)


def _categorical_nodes(n_codes: int, mode: str, max_subset_values: int = 5) -> np.ndarray:
    eye = np.eye(n_codes, dtype=bool)
    if mode == "values" or n_codes <= 2:
        return eye
    if mode == "subsets" and n_codes <= max_subset_values:
        rows = [np.array([(m >> c) & 1 for c in range(n_codes)], dtype=bool)
                for m in range(1, 2 ** n_codes - 1)]
        rows.sort(key=lambda r: (r.sum(), tuple(~r)))
        return np.array(rows, dtype=bool)
    return np.vstack([eye, ~eye])  # values and their complements ("!= v")


def _numeric_categories(s: pd.Series) -> bool:
    cats = s.cat.categories if isinstance(s.dtype, pd.CategoricalDtype) else pd.unique(s)
    return len(cats) > 0 and all(isinstance(c, numbers.Real) and not isinstance(c, bool)
                                 for c in cats)


def _ordinal_categories(s: pd.Series, ordinal: bool | str) -> list | None:
    """Category order of an ordinal column (ordered categorical: its order; numeric
    categories with ``ordinal=True``: ascending), or None if the column is nominal."""
    if ordinal is False or not isinstance(s.dtype, pd.CategoricalDtype):
        return None
    if s.cat.ordered:
        return [plain(v) for v in s.cat.categories]
    if ordinal is True and _numeric_categories(s):
        return sorted(plain(v) for v in s.cat.categories)
    return None


def build_graph(df: pd.DataFrame, feature_order: list | None = None, n_bins: int = 8,
                binning: str = "cumulative", categorical_nodes: str = "values",
                ordinal: bool | str = "auto") -> Graph:
    """Build the feature graph of a raw table; ``feature_order`` lists columns first in order
    (attribute hierarchy, §5), the remaining columns follow in table order.

    ``categorical_nodes``: "values" (one node per value, the paper's graph), "complements"
    (also "!= v" nodes) or "subsets" (every proper value subset for <= 5 values, else
    complements).  ``ordinal``: "auto" bins ordered categoricals like numeric columns over
    their category order, True also categoricals whose categories are all numbers, False
    treats every categorical as nominal."""
    if not (isinstance(ordinal, bool) or ordinal == "auto"):
        raise OptreesInputError(f"ordinal must be True, False or 'auto', got {ordinal!r}")
    if binning not in _BINNING:
        raise OptreesInputError(f"binning must be one of {_BINNING}, got {binning!r}")
    if categorical_nodes not in _CATNODES:
        raise OptreesInputError(
            f"categorical_nodes must be one of {_CATNODES}, got {categorical_nodes!r}")
    if (isinstance(n_bins, bool) or not isinstance(n_bins, numbers.Integral)
            or n_bins < 2):
        raise OptreesInputError(f"n_bins must be an integer >= 2, got {n_bins!r}")
    cols = list(df.columns)
    order: list = []
    for c in feature_order or []:
        if c not in cols:
            raise OptreesInputError(f"feature_order names unknown column {c!r}")
        if c in order:
            raise OptreesInputError(f"feature_order lists column {c!r} twice")
        order.append(c)
    order += [c for c in cols if c not in order]
    levels: list[Level] = []
    dropped: list[str] = []
    for c in order:
        s = df[c]
        order_ = _ordinal_categories(s, ordinal)
        if order_ is not None:
            lv = Level(str(c), "numeric", categories=order_)
            pos = lv._positions(s)
            lv.cuts = _numeric_cuts(pos.astype(float), int(n_bins))
            lv.nodes = _interval_nodes(lv.n_codes, binning)
        elif _is_numeric(s):
            x = np.asarray(s.astype(float).to_numpy(dtype=float))
            lv = Level(str(c), "numeric", cuts=_numeric_cuts(x, int(n_bins)))
            lv.nodes = _interval_nodes(lv.n_codes, binning)
        else:
            cats = (list(s.cat.categories) if isinstance(s.dtype, pd.CategoricalDtype)
                    else sorted(pd.unique(s), key=str))
            cats = [v for v in cats if (s == v).any()]
            lv = Level(str(c), "categorical", categories=cats)
            lv.nodes = _categorical_nodes(lv.n_codes, categorical_nodes)
        if lv.n_codes < 2:
            dropped.append(str(c))
            continue
        levels.append(lv)
    g = Graph(levels, np.zeros((len(df), 0), dtype=np.int32), dropped)
    g.codes = g.encode(df)
    return g
