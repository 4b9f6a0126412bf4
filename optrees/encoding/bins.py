"""OMT's binning of raw columns into elementary codes ([OMT] §3, §5).

A numeric column is cut into at most kappa quantile bins (``n_bins="auto"``: kappa from the
rows, :func:`auto_bins`, plus the thresholds of a CART tree, :func:`tree_thresholds`); an
ordinal column (ordered categories) is binned the same way over its category positions; a
nominal column keeps one code per observed value.  :func:`bin_runs` gives the code sets a
numeric level offers as branches: single bins ("plain") or every run of consecutive bins
("cumulative", §5).  :func:`cart_cuts` gives the binary-tree estimators' binarizer CART's
cuts the same way.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from .._numbers import clean_midpoints
from .common import is_numeric, plain
from .ranks import Ranked

BINNINGS = ("cumulative", "plain")

AUTO_MIN_BINS = 8
"""Fewest quantile bins of ``n_bins="auto"`` (the former fixed default)."""

AUTO_MAX_BINS = 32
"""Most quantile bins of ``n_bins="auto"``: a cumulative level has kappa(kappa+1)/2 - 1 nodes,
so pricing grows with the square of the bins."""


def bin_weights(weights: np.ndarray | None) -> np.ndarray | None:
    """Row weights as the quantile bins count them: as given when every positive weight is at
    least 1 (integer weights: duplicated rows), else divided by the smallest positive one,
    so the lightest row counts as one row.  Quantiles of duplicated rows sit at position
    (W - 1) q of the total weight W: weights of 1e-300 (W < 1) put every cut at the smallest
    value and left numeric columns without bins, where uniform weights must bin as none
    (OMT's bins and the :class:`~optrees.encoding.binarize.Binarizer`'s quantile cuts)."""
    if weights is None:
        return None
    w = np.asarray(weights, dtype=float)
    pos = w[w > 0]
    low = float(pos.min()) if len(pos) else 1.0
    return w if low >= 1.0 else w / low


def weighted_quantile(x: np.ndarray, w: np.ndarray, levels: np.ndarray,
                      lower: bool = False) -> np.ndarray:
    """numpy's linear (``lower``: "lower") quantiles of the sorted ``x`` with row weights
    ``w``: the value at position ``(W - 1) q`` of the sample where row j is repeated ``w_j``
    times (so integer weights give exactly the quantiles of duplicated rows; unit weights
    numpy's)."""
    cum = np.cumsum(w)
    h = (cum[-1] - 1.0) * np.asarray(levels, dtype=float)
    lo = np.floor(h)

    def at(position: np.ndarray) -> np.ndarray:  # value at a 0-based repeated position
        return x[np.minimum(np.searchsorted(cum, position, side="right"), len(x) - 1)]

    return at(lo) if lower else at(lo) + (h - lo) * (at(lo + 1) - at(lo))


def quantile_positions(x: np.ndarray, uniq: np.ndarray, n_bins: int,
                       weights: np.ndarray | None = None) -> np.ndarray:
    """Indices into the distinct values ``uniq`` of ``x`` after which ``n_bins`` quantile bins
    cut (fewer if ties); ``weights``: row weights (integer weights give the cuts of
    duplicated rows)."""
    if len(uniq) <= n_bins:
        return np.arange(len(uniq) - 1)
    levels = np.linspace(0, 1, n_bins + 1)[1:-1]
    if weights is None:
        q = np.quantile(x, levels, method="lower")
    else:
        order = np.argsort(x, kind="stable")
        q = weighted_quantile(x[order], np.asarray(weights, dtype=float)[order], levels, True)
    pos = np.unique(np.searchsorted(uniq, q))  # cut just above these distinct values
    return pos[pos < len(uniq) - 1]


def midpoints(uniq: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """Cut points halfway between ``uniq[pos]`` and the next distinct value (one formula for
    every source of cuts, so equal cuts are equal floats)."""
    pos = np.unique(np.asarray(pos, dtype=np.int64))
    return clean_midpoints(uniq[pos], uniq[pos + 1])


def quantile_cuts(x: np.ndarray, n_bins: int, weights: np.ndarray | None = None,
                  extra: np.ndarray | None = None) -> np.ndarray:
    """Cut points of ``n_bins`` quantile bins (halfway between distinct values; fewer if ties);
    ``weights``: row weights (integer weights give the cuts of duplicated rows); ``extra``:
    further thresholds, each moved to the midpoint of the gap between distinct values it
    falls in (see :func:`threshold_positions`)."""
    uniq = np.unique(x)
    pos = quantile_positions(x, uniq, n_bins, weights)
    if extra is not None and len(extra):
        pos = np.concatenate([pos, threshold_positions(uniq, extra)])
    return midpoints(uniq, pos)


def threshold_positions(uniq: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """Index i of the gap [uniq[i], uniq[i + 1]) holding each threshold t of a split ``x <=
    t`` (:func:`tree_thresholds`' are on the values, :mod:`.ranks`); thresholds that leave
    every value on one side are dropped."""
    k = np.searchsorted(uniq, np.asarray(thresholds, dtype=float), side="right")
    return k[(k >= 1) & (k < len(uniq))] - 1


def auto_bins(n_rows: float) -> int:
    """Quantile bins of ``n_bins="auto"`` for ``n_rows`` training rows (their total weight):
    ``sqrt(n) / 4`` within [:data:`AUTO_MIN_BINS`, :data:`AUTO_MAX_BINS`], so bins stay coarse
    where few rows back each one and get finer as the rows grow (8 up to 1,024 rows, 32 from
    16,384)."""
    return int(np.clip(round(math.sqrt(max(n_rows, 0.0)) / 4.0), AUTO_MIN_BINS, AUTO_MAX_BINS))


def tree_thresholds(X: pd.DataFrame, y: np.ndarray, depth: int, regression: bool,
                    weights: np.ndarray | None = None, **tree_params: Any
                    ) -> dict[str, np.ndarray]:
    """Thresholds per column of a CART tree of ``depth`` on the numeric table ``X``: cuts a
    greedy tree places exactly where quantile bins only come near ([CGH] §5 takes its
    thresholds from CART trees the same way).  ``weights``: row weights of the tree;
    ``tree_params``: further scikit-learn tree parameters (``min_samples_leaf``, ...)."""
    if X.shape[1] == 0 or len(X) < 2:
        return {}
    # on ranks (on the values, the tree changed with units) among rows of positive weight
    data = Ranked(X.to_numpy(dtype=float), None if weights is None else np.asarray(weights) > 0)
    cls = DecisionTreeRegressor if regression else DecisionTreeClassifier
    tree = data.tree(cls(max_depth=depth, random_state=0, **tree_params).fit(
        data.ranks, y, sample_weight=weights).tree_)
    inner = tree.children_left >= 0
    return {str(c): tree.threshold[inner & (tree.feature == j)] for j, c in enumerate(X.columns)}


def cart_cuts(df: pd.DataFrame, y: np.ndarray, depth: int, weights: np.ndarray | None = None,
              **tree_params: Any) -> dict[str, np.ndarray]:
    """Per numeric column of ``df``, the cut points ``x >= t`` (data values) of the splits a
    CART classifier of ``depth`` makes on ``df`` (other columns one-hot, as a user would give
    them to scikit-learn): 0/1 columns that hold these cuts can express CART's tree."""
    numeric = [c for c in df.columns if is_numeric(df[c])]
    if not numeric:
        return {}
    values = df[numeric].to_numpy(dtype=float)
    others = [c for c in df.columns if not is_numeric(df[c])]
    parts = [values] if not others else \
        [values, pd.get_dummies(df[others].astype(str)).to_numpy(dtype=float)]
    # positional column names: a one-hot name cannot clash with a numeric column's
    thresholds = tree_thresholds(pd.DataFrame(np.hstack(parts)), y, depth, False, weights,
                                 **tree_params)
    cuts = {}
    for j, name in enumerate(numeric):
        found = thresholds.get(str(j), ())
        if len(found):
            uniq = np.unique(values[:, j])
            cuts[str(name)] = uniq[threshold_positions(uniq, found) + 1]
    return cuts


def bin_runs(n_codes: int, binning: str) -> np.ndarray:
    """0/1 rows of the code sets of a binned level: each bin ("plain") or every run of
    consecutive bins except the full range ("cumulative": kappa(kappa+1)/2 - 1 runs, so a rule
    can say ``x >= t``, ``x < t`` and ``t1 <= x < t2``)."""
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


def category_positions(s: pd.Series, categories: list) -> np.ndarray:
    """Index of each value of ``s`` in ``categories`` (-1 for a value not in the list)."""
    obj = s.astype(object).to_numpy()
    pos = np.full(len(obj), -1, dtype=np.int64)
    for c, v in enumerate(categories):
        pos[obj == v] = c
    return pos


def _numeric_categories(s: pd.Series) -> bool:
    cats = s.cat.categories if isinstance(s.dtype, pd.CategoricalDtype) else pd.unique(s)
    return len(cats) > 0 and all(isinstance(c, numbers.Real) and not isinstance(c, bool)
                                 for c in cats)


def ordinal_categories(s: pd.Series, ordinal: bool | str) -> list | None:
    """Category order of an ordinal column, or None if the column is nominal.

    An ordered categorical has its own order; with ``ordinal=True`` a categorical whose
    categories are all numbers is ordered ascending; ``ordinal=False`` makes every column
    nominal."""
    if ordinal is False or not isinstance(s.dtype, pd.CategoricalDtype):
        return None
    if s.cat.ordered:
        return [plain(v) for v in s.cat.categories]
    if ordinal is True and _numeric_categories(s):
        return sorted(plain(v) for v in s.cat.categories)
    return None


def observed_categories(s: pd.Series) -> list:
    """The values a nominal column takes (in category order, else sorted as text)."""
    cats = (list(s.cat.categories) if isinstance(s.dtype, pd.CategoricalDtype)
            else sorted(pd.unique(s), key=str))
    return [v for v in cats if (s == v).any()]
