"""A raw table as the tree MIPs' and searches' features, and what predict needs to encode
new tables the same way (:class:`Encoding`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.utils.validation import has_fit_parameter

from .._numbers import clean_midpoints, threshold_text
from .._validation import OptreesInputError, check_binary_matrix
from .binarize import Binarizer, BinaryLiteral
from .common import is_numeric_dtype, numeric_columns_zero_one
from .thresholds import ThresholdColumns


@dataclass
class Encoding:
    """How a fit's columns became features: a fitted ``binarizer`` (0/1 literals; None with
    ``encoder`` None: the table was 0/1 already) or ``encoder`` (every threshold of the
    numeric columns), the features' ``names`` and ``negated`` names, the categories seen
    (for the unseen-category warning), over which thresholds the fit's optimum holds
    (``thresholds``: "all" or "binarized"), the columns kept (None: all) and ``matrix``, the
    fit's encoded training table (a reference kept for a Rashomon set; None until set)."""

    binarizer: Any = None
    encoder: ThresholdColumns | None = None
    names: list[str] = field(default_factory=list)
    negated: list[str] = field(default_factory=list)
    categories: dict[str, list] = field(default_factory=dict)
    thresholds: str = "all"
    columns: list[str] | None = None
    matrix: np.ndarray | None = field(default=None, repr=False, compare=False)

    def transform(self, df: pd.DataFrame) -> np.ndarray:
        """The features of a table with the fit's columns."""
        if self.encoder is not None:
            return self.encoder.transform(df)
        if self.binarizer is None:
            return check_binary_matrix(df, checked=True)
        return self.binarizer.transform(df)

    def feature_columns(self, df: pd.DataFrame) -> list[str]:
        """The raw column each 0/1 feature tests."""
        if self.binarizer is None:
            return [str(c) for c in df.columns]
        return [str(lit.column) for lit in self.binarizer.literals_]

    def lossy(self, df: pd.DataFrame) -> bool:
        """Whether a threshold of ``df``'s numeric columns was lost to the binarizer."""
        return self.binarizer is not None and not self.binarizer.keeps_every_threshold(df)


def seen_categories(df: pd.DataFrame, dtypes: list | None = None) -> dict[str, list]:
    """The values of every non-numeric column at fit time (booleans and categoricals too);
    ``dtypes``: ``df.dtypes.tolist()`` when the caller has it."""
    dtypes = df.dtypes.tolist() if dtypes is None else dtypes
    return {c: list(pd.unique(df[c].astype(object)))
            for c, dt in zip(df.columns.tolist(), dtypes, strict=True)
            if not is_numeric_dtype(dt)}


def has_numeric_column(df: pd.DataFrame, dtypes: list | None = None) -> bool:
    """Whether some numeric (not boolean) column holds a value other than 0 and 1."""
    return not numeric_columns_zero_one(df, dtypes=dtypes)[1]


def is_binary_frame(df: pd.DataFrame, dtypes: list | None = None) -> bool:
    """Whether every column is numeric or boolean and holds only 0 and 1."""
    n_numeric, zero_ones = numeric_columns_zero_one(df, bool_numeric=True, dtypes=dtypes)
    return n_numeric == df.shape[1] and zero_ones


def binarize(df: pd.DataFrame, spec: Any, sample_weight: np.ndarray | None = None,
             n_bins: int | None = None, extra_cuts: dict[str, np.ndarray] | None = None,
             dtypes: list | None = None) -> tuple[np.ndarray, Encoding]:
    """The 0/1 matrix of a checked frame and its :class:`Encoding`: ``spec`` None or "auto" on
    a 0/1 table keeps it; "auto" otherwise is a :class:`Binarizer` of ``n_bins`` quantile
    cuts (None: its default) plus ``extra_cuts``; any other fit/transform object is cloned
    and fitted (with ``sample_weight`` when its ``fit`` takes it); ``dtypes``:
    ``df.dtypes.tolist()`` when the caller has it."""
    dtypes = df.dtypes.tolist() if dtypes is None else dtypes
    categories = seen_categories(df, dtypes)
    if spec is None or (isinstance(spec, str) and spec == "auto" and
                        is_binary_frame(df, dtypes)):
        names = [str(c) for c in df.columns.tolist()]
        return (check_binary_matrix(df, checked=True),
                Encoding(None, None, names, [f"not {c}" for c in names], categories))
    if isinstance(spec, str):
        if spec != "auto":
            raise OptreesInputError(f"binarizer must be 'auto', None or a Binarizer, got "
                                    f"{spec!r}")
        spec = Binarizer(extra_cuts=extra_cuts) if n_bins is None else \
            Binarizer(n_bins=n_bins, extra_cuts=extra_cuts)
    fitted = clone(spec)
    if sample_weight is not None and has_fit_parameter(fitted, "sample_weight"):
        X = fitted.fit(df, sample_weight=sample_weight).transform(df)
    else:
        X = fitted.fit_transform(df)
    if X.shape[1] == 0:
        raise OptreesInputError("the binarizer produced no features (all columns constant)")
    at_midpoints(fitted, df)
    encoding = Encoding(fitted, None, [lit.name for lit in fitted.literals_],
                        [lit.negated_name for lit in fitted.literals_], categories)
    encoding.thresholds = "binarized" if encoding.lossy(df) else "all"
    return X, encoding


def at_midpoints(fitted: Any, df: pd.DataFrame) -> None:
    """Move a fitted :class:`Binarizer`'s numeric cuts ``v`` (tests ``x >= v``) to just above
    the midpoint ``t`` the every-threshold search uses (:func:`~optrees._numbers.clean_midpoints`)
    of the training values of ``df`` either side of ``v``, and name its literals ``x > t`` /
    ``x <= t``: the documented form, and what the model then does on every input (the cut
    is the next float above ``t``, so ``x >= cut`` is ``x > t``), while the training rows
    fall as before.  A column whose cuts would not stay distinct is left as it was; other
    transformers are left alone."""
    if not isinstance(fitted, Binarizer):
        return
    moved: dict[str, dict[float, tuple[float, str]]] = {}
    for name, cuts in fitted.thresholds_.items():
        values = np.unique(np.asarray(df[name], dtype=np.float64))
        values = values[np.isfinite(values)]
        k = np.searchsorted(values, cuts, "left")
        inside = (k > 0) & (k < len(values))
        if not inside.all():
            continue
        t = clean_midpoints(values[k - 1], values[k])
        new = np.nextafter(t, np.inf)
        if len(new) > 1 and not np.all(np.diff(new) > 0):
            continue
        fitted.thresholds_[name] = new
        moved[name] = {float(v): (float(c), threshold_text(float(m)))
                       for v, c, m in zip(cuts, new, t, strict=True)}
    fitted.literals_ = [_moved(lit, moved.get(lit.column)) for lit in fitted.literals_]


def _moved(lit: BinaryLiteral, cuts: dict[float, tuple[float, str]] | None) -> BinaryLiteral:
    """``lit`` with its cut(s) moved (``cuts``: old cut -> (new cut, text of the midpoint))."""
    if cuts is None or lit.op not in (">=", "<", "in_range"):
        return lit
    c = lit.column
    if lit.op == "in_range":
        (lo, a), (hi, b) = cuts[float(lit.value[0])], cuts[float(lit.value[1])]
        text = f"{a} < {c} <= {b}"
        return BinaryLiteral(c, "in_range", (lo, hi), text, f"not ({text})")
    cut, t = cuts[float(lit.value)]
    above, below = f"{c} > {t}", f"{c} <= {t}"
    return BinaryLiteral(c, lit.op, cut, *((above, below) if lit.op == ">=" else (below, above)))


def every_threshold(df: pd.DataFrame) -> Encoding:
    """The encoding over every threshold of the numeric columns (categoricals one-hot)."""
    encoder = ThresholdColumns(df, "onehot")
    return Encoding(None, encoder, list(encoder.names), list(encoder.negated),
                    encoder.categories(), "all")
