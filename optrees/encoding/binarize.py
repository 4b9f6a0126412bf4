"""Turn raw tabular data into 0/1 features for the optimal-tree and rule-set models.

Numeric columns are encoded with k-quantile cut points, either as thresholds (QT-k: one column
``x >= t`` per cut point) or as buckets (QB-k: one-hot of the k quantile intervals). Categorical
columns are one-hot encoded. Every output column carries a :class:`BinaryLiteral` describing it
on the raw feature, so a tree learned on the binary matrix can be printed on the original data.

(Over 400 lines: the literal type, the number formats of its names and the Binarizer's
three encodings with their parameter checks.)
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._numbers import clean_cuts
from .._params import Check, Integer, Options, Param, optional, validate_params
from .._validation import OptreesInputError, check_frame
from .bins import bin_weights, weighted_quantile

__all__ = ["Binarizer", "BinaryLiteral"]

_OPS = (">=", "<", "in_range", "==", "is_true")


@dataclass(frozen=True)
class BinaryLiteral:
    """What one output column of :class:`Binarizer` means on the raw data.

    ``op`` / ``value`` semantics (``x`` = raw column ``column``):

    - ``">="``: ``x >= value`` (float threshold; QT-k, and the last QB-k bucket)
    - ``"<"``: ``x < value`` (first QB-k bucket)
    - ``"in_range"``: ``low <= x < high`` with ``value = (low, high)`` (middle QB-k buckets)
    - ``"=="``: ``x == value`` (one category of a categorical column)
    - ``"is_true"``: ``x == 1`` (numeric 0/1 column passed through; ``value = 1``)

    ``name`` is the readable form (``"age >= 37.5"``, ``"30 <= age < 40"``, ``"color = red"``,
    ``"smoker"``) and ``negated_name`` the readable form of its negation (for the false branch).
    Fields can also be read dict-style: ``lit["op"]``.
    """

    column: str
    op: str
    value: Any
    name: str
    negated_name: str

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def evaluate(self, x: object) -> np.ndarray:
        """Evaluate the literal on raw values of ``column``; returns a uint8 0/1 array."""
        if self.op == "==":
            s = x if isinstance(x, pd.Series) else pd.Series(np.asarray(x))
            return s.eq(self.value).to_numpy(dtype=np.uint8)
        try:
            v = np.asarray(x, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise OptreesInputError(
                f"column {self.column!r} must be numeric for the test '{self.name}'") from exc
        if self.op == ">=":
            res = v >= self.value
        elif self.op == "<":
            res = v < self.value
        elif self.op == "in_range":
            res = (v >= self.value[0]) & (v < self.value[1])
        elif self.op == "is_true":
            res = v == 1
        else:  # pragma: no cover - guarded by construction
            raise ValueError(f"unknown op {self.op!r}")
        return res.astype(np.uint8)


def _py(v: Any) -> Any:
    """numpy scalar -> plain Python scalar (for readable literals)."""
    return v.item() if isinstance(v, np.generic) else v


def _fmt_number(v: float, digits: int | None) -> str:
    """Readable number: integers without '.0', at most ``digits`` significant digits."""
    v = float(v)
    if not np.isfinite(v):
        return repr(v)
    if v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    if digits is None:
        return repr(v)
    av = abs(v)
    if av >= 1e15 or av < 1e-4:
        return f"{v:.{digits}g}"
    if av >= 10.0**digits:
        return str(round(v))
    return np.format_float_positional(v, precision=digits, unique=True, fractional=False, trim="-")


def _fmt_thresholds(thresholds: np.ndarray) -> list[str]:
    """Format thresholds with the fewest significant digits (>= 4) that keep them distinct
    and read back as each threshold exactly (a rounded cut names a literal that rows
    between it and the real cut do not satisfy as printed)."""
    for digits in range(4, 18):
        texts = [_fmt_number(t, digits) for t in thresholds]
        if len(set(texts)) == len(texts) and all(
                float(s) == float(t) for s, t in zip(texts, thresholds, strict=True)):
            return texts
    return [repr(float(t)) for t in thresholds]


def _fmt_category(v: Any) -> str:
    if isinstance(v, numbers.Real) and not isinstance(v, bool):
        return _fmt_number(v, None)
    return str(v)


def _is_categorical_dtype(dtype: Any) -> bool:
    return (
        isinstance(dtype, pd.CategoricalDtype)
        or pd.api.types.is_bool_dtype(dtype)
        or pd.api.types.is_object_dtype(dtype)
        or pd.api.types.is_string_dtype(dtype)
    )


def _observed_categories(s: pd.Series) -> list[Any]:
    """Distinct values of a categorical column: dtype order for pandas categoricals, else sorted
    (order of appearance if values are not comparable)."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        codes = np.unique(s.cat.codes.to_numpy())
        return [_py(v) for v in s.cat.categories[codes[codes >= 0]]]
    try:
        vals = [_py(v) for v in pd.unique(s.to_numpy())]
    except TypeError as exc:
        raise OptreesInputError(
            f"column {str(s.name)!r} has unhashable values; categorical values must be strings, "
            "numbers or booleans"
        ) from exc
    try:
        vals = sorted(vals)
    except TypeError:
        pass
    return vals


def _check_input(X: object) -> pd.DataFrame:
    """``check_frame`` plus the cases it does not cover (sparse and complex input)."""
    if sp.issparse(X):
        raise OptreesInputError(
            "sparse input is not supported by Binarizer; pass a dense array or DataFrame"
        )
    df = check_frame(X)
    complex_cols = [str(c) for c in df.columns if pd.api.types.is_complex_dtype(df[c].dtype)]
    if complex_cols:
        raise OptreesInputError(f"Complex data not supported (columns {complex_cols[:5]})")
    return df


def _numeric_values(s: pd.Series, name: str) -> np.ndarray:
    try:
        return s.to_numpy(dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise OptreesInputError(
            f"column {name!r} was numeric at fit time but has non-numeric values now"
        ) from exc


def _cut_dict(value: Any) -> Any:
    """``extra_cuts`` as given when it is None or a dict (else ValueError)."""
    if value is not None and not isinstance(value, dict):
        raise ValueError(value)
    return value


class Binarizer(TransformerMixin, BaseEstimator):
    """Binarize a raw table into 0/1 features.

    Parameters
    ----------
    numeric : {"thresholds", "buckets"}, default "thresholds"
        Encoding of numeric columns. ``"thresholds"`` (QT-k): one column ``x >= t`` per cut point
        ``t``. ``"buckets"`` (QB-k): one-hot of the intervals between cut points, named
        ``"age < 30"``, ``"30 <= age < 40"``, ..., ``"age >= 70"``.
    n_bins : int, default 5
        k. Cut points are the distinct quantiles (numpy's default linear interpolation) at levels
        j/k, j = 1..k-1, excluding the column minimum (``x >= min`` is constant), each written
        as the decimal of fewest significant digits (at least 4) that leaves the same training
        values on each side (4.639999999999999 becomes 4.64): a literal's name is its cut
        exactly. A column with at most k distinct values uses its distinct values except the
        smallest as cut points, so every distinct value is separable.
    categorical : "auto" or list of column names, default "auto"
        ``"auto"``: columns of pandas category/object/string/bool dtype are categorical. A list
        names further (e.g. int-coded) columns to treat as categorical; non-numeric columns are
        categorical in either case. Numeric non-categorical columns whose distinct values are
        exactly {0, 1} are passed through unchanged under their own name.
    max_categories : int or None, default None
        If set, a categorical column keeps only its ``max_categories`` most frequent categories
        (ties: category order); rows with any other category get all zeros for that column.
    extra_cuts : dict or None, default None
        Cut points added to those of the quantiles, per numeric column name (``{"age": [65]}``
        adds ``age >= 65``).  Cuts at or below a column's minimum or above its maximum add
        nothing, and an added cut replaces a quantile cut that splits the training values
        the same way (no value between them).  The tree estimators' ``binarizer="auto"``
        puts CART's thresholds here, so CART's tree is among the trees their MIP searches.

    Notes
    -----
    Categorical columns produce one column per category (``"color = red"``), except that a
    column with exactly two categories produces one column, ``"col = <second category>"``.
    **Categories not seen at fit time give all-zero one-hot rows at transform time** (for a
    two-category column that is indistinguishable from the first category). Constant columns
    produce no output and are listed in ``dropped_columns_``. Input may be a DataFrame or a 2-D
    array (columns named ``x0, x1, ...``; an object array is categorical under ``"auto"``).
    Missing values are rejected with :class:`~optrees._validation.OptreesInputError`.

    Attributes
    ----------
    feature_names_in_ : ndarray of str
        Raw column names seen in fit.
    n_features_in_ : int
        Number of raw columns.
    column_kinds_ : dict[str, str]
        Per raw column: "numeric", "categorical", "binary" (0/1 pass-through) or "constant".
    thresholds_ : dict[str, ndarray]
        Cut points of each encoded numeric column (sorted).
    categories_ : dict[str, list]
        Encoded categories of each categorical column (one-hot order).
    dropped_columns_ : list[str]
        Constant columns (no output).
    literals_ : list[BinaryLiteral]
        One per output column, in output order; see :class:`BinaryLiteral`.
    """

    def __init__(
        self,
        numeric: str = "thresholds",
        n_bins: int = 5,
        categorical: str | Sequence[str] = "auto",
        max_categories: int | None = None,
        extra_cuts: dict[str, Sequence[float]] | None = None,
    ) -> None:
        self.numeric = numeric
        self.n_bins = n_bins
        self.categorical = categorical
        self.max_categories = max_categories
        self.extra_cuts = extra_cuts

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = []  # output is always uint8
        return tags

    # ------------------------------------------------------------------ parameter checks
    _parameters: ClassVar[dict[str, Param]] = {
        "numeric": Param(Options("thresholds", "buckets"),
                         "numeric columns as thresholds (QT-k) or buckets (QB-k)"),
        "n_bins": Param(Integer(2), "k of QT-k / QB-k"),
        "categorical": Param(Check("'auto' or a list of column names", lambda v: v),
                             "columns to one-hot encode ('auto': the non-numeric ones)"),
        "max_categories": Param(optional(Integer(1)), "most frequent values kept per "
                                "categorical column"),
        "extra_cuts": Param(Check("None or a dict of column name -> cut points", _cut_dict),
                            "cut points added per numeric column"),
    }

    def _check_params(self, columns: list[str]) -> set[str]:
        validate_params(self)
        cat = self.categorical
        if isinstance(cat, str):
            if cat != "auto":
                raise OptreesInputError(
                    f"categorical must be 'auto' or a list of column names, got {cat!r}"
                )
            return set()
        try:
            listed = [str(c) for c in cat]
        except TypeError as exc:
            raise OptreesInputError(
                f"categorical must be 'auto' or a list of column names, got {cat!r}"
            ) from exc
        missing = [c for c in listed if c not in set(columns)]
        if missing:
            raise OptreesInputError(
                f"categorical lists columns not in X: {missing}; X has columns {columns[:10]}"
            )
        return set(listed)

    @staticmethod
    def _names(df: pd.DataFrame) -> list[str]:
        names = [str(c) for c in df.columns]
        if len(set(names)) != len(names):
            dup = sorted({n for n in names if names.count(n) > 1})
            raise OptreesInputError(f"X has duplicate column names: {dup[:5]}")
        return names

    # ------------------------------------------------------------------ fit
    def fit(self, X: object, y: object = None, sample_weight: object = None) -> Binarizer:
        """Learn cut points and categories from X (``y`` is ignored).  With
        ``sample_weight`` (one number >= 0 per row) quantiles and category frequencies are
        weighted: integer weights give the cut points of duplicated rows."""
        df = _check_input(X)
        w = None if sample_weight is None else np.asarray(sample_weight, dtype=float)
        if w is not None and w.shape != (df.shape[0],):
            raise OptreesInputError(
                f"sample_weight has shape {w.shape}; expected ({df.shape[0]},)")
        names = self._names(df)
        listed = self._check_params(names)
        counted = bin_weights(w)  # the lightest row as one row when weights are below 1
        k = int(self.n_bins)
        levels = np.arange(1, k) / k

        kinds: dict[str, str] = {}
        thresholds: dict[str, np.ndarray] = {}
        categories: dict[str, list[Any]] = {}
        literals: list[BinaryLiteral] = []

        for name, col in zip(names, df.columns, strict=True):
            s = df[col]
            if name in listed or _is_categorical_dtype(s.dtype):
                cats = _observed_categories(s)
                if len(cats) <= 1:
                    kinds[name] = "constant"
                    continue
                kinds[name] = "categorical"
                n_cats = len(cats)
                if self.max_categories is not None and n_cats > max(self.max_categories, 2):
                    counts = (s.value_counts(sort=False) if w is None
                              else pd.Series(w, index=s.index).groupby(s, observed=True).sum())
                    freq = np.array([counts.get(c, 0) for c in cats])
                    keep = np.sort(np.argsort(-freq, kind="stable")[: self.max_categories])
                    cats = [cats[i] for i in keep]
                encoded = cats[1:] if n_cats == 2 else cats
                categories[name] = encoded
                for c in encoded:
                    text = _fmt_category(c)
                    literals.append(
                        BinaryLiteral(name, "==", c, f"{name} = {text}", f"{name} != {text}")
                    )
                continue

            if not pd.api.types.is_numeric_dtype(s.dtype):
                raise OptreesInputError(
                    f"column {name!r} has unsupported dtype {s.dtype}; "
                    "use numeric, bool, string, object or category columns"
                )
            values = _numeric_values(s, name)
            order = np.argsort(values, kind="stable")
            x = values[order]
            n_distinct = 1 + int(np.count_nonzero(x[1:] != x[:-1]))
            if n_distinct == 1:
                kinds[name] = "constant"
                continue
            if n_distinct <= k:
                distinct = x[np.r_[0, np.flatnonzero(x[1:] != x[:-1]) + 1]]
                if n_distinct == 2 and distinct[0] == 0 and distinct[1] == 1:
                    kinds[name] = "binary"
                    literals.append(BinaryLiteral(name, "is_true", 1, name, f"not {name}"))
                    continue
                cuts = distinct[1:]
            else:
                cuts = np.unique(clean_cuts(np.quantile(x, levels) if w is None
                                            else weighted_quantile(x, counted[order], levels),
                                            x))
                cuts = cuts[cuts > x[0]]
            cuts = self._with_extra_cuts(name, cuts, x)
            kinds[name] = "numeric"
            thresholds[name] = cuts
            literals.extend(self._numeric_literals(name, cuts))

        unknown = sorted(str(c) for c in (self.extra_cuts or {})
                         if kinds.get(str(c)) not in ("numeric", "binary", "constant"))
        if unknown:
            raise OptreesInputError(f"extra_cuts names columns that are not numeric columns of "
                                    f"X: {unknown[:5]}")

        # Make output names unique (only odd column names can collide, e.g. a column "x >= 1").
        seen: dict[str, int] = {}
        for i, lit in enumerate(literals):
            if lit.name in seen:
                seen[lit.name] += 1
                new = f"{lit.name} [{seen[lit.name]}]"
                literals[i] = BinaryLiteral(lit.column, lit.op, lit.value, new, lit.negated_name)
            seen.setdefault(literals[i].name, 1)

        self.feature_names_in_ = np.array(names, dtype=object)
        self.n_features_in_ = len(names)
        self.column_kinds_ = kinds
        self.thresholds_ = thresholds
        self.categories_ = categories
        self.dropped_columns_ = [n for n in names if kinds[n] == "constant"]
        self.literals_ = literals
        return self

    def _with_extra_cuts(self, name: str, cuts: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``cuts`` and the column's ``extra_cuts`` within ``(min, max]`` of its sorted
        values ``x``, sorted, one per split of the values (an extra cut wins): two cuts
        with no value between them make the same 0/1 column."""
        extra = {str(c): v for c, v in (self.extra_cuts or {}).items()}.get(name)
        if extra is None:
            return cuts
        try:
            extra = np.asarray(extra, dtype=float).ravel()
        except (TypeError, ValueError) as exc:
            raise OptreesInputError(f"extra_cuts[{name!r}] must hold numbers, got "
                                    f"{extra!r}") from exc
        if not np.isfinite(extra).all():
            raise OptreesInputError(f"extra_cuts[{name!r}] must hold finite numbers")
        extra = np.unique(extra[(extra > x[0]) & (extra <= x[-1])])
        both = np.r_[extra, cuts]
        _, first = np.unique(np.searchsorted(x, both, "left"), return_index=True)
        return np.sort(both[first])

    def _numeric_literals(self, name: str, cuts: np.ndarray) -> list[BinaryLiteral]:
        texts = _fmt_thresholds(cuts)
        vals = [float(t) for t in cuts]
        if self.numeric == "thresholds":
            return [
                BinaryLiteral(name, ">=", v, f"{name} >= {t}", f"{name} < {t}")
                for v, t in zip(vals, texts, strict=True)
            ]
        lits = [BinaryLiteral(name, "<", vals[0], f"{name} < {texts[0]}", f"{name} >= {texts[0]}")]
        for i in range(len(vals) - 1):
            text = f"{texts[i]} <= {name} < {texts[i + 1]}"
            lits.append(
                BinaryLiteral(name, "in_range", (vals[i], vals[i + 1]), text, f"not ({text})")
            )
        lits.append(
            BinaryLiteral(name, ">=", vals[-1], f"{name} >= {texts[-1]}", f"{name} < {texts[-1]}")
        )
        return lits

    # ------------------------------------------------------------------ transform
    def _align(self, X: object) -> pd.DataFrame:
        """Validate X and return it with columns named/ordered as at fit time."""
        is_frame = isinstance(X, pd.DataFrame)
        df = _check_input(X)
        fitted = list(self.feature_names_in_)
        if not is_frame:
            if df.shape[1] != len(fitted):
                raise OptreesInputError(
                    f"X has {df.shape[1]} features, but Binarizer is expecting "
                    f"{len(fitted)} features as input"
                )
            df = df.set_axis(fitted, axis=1)
            return df
        names = self._names(df)
        if names != fitted:
            missing = [c for c in fitted if c not in names]
            extra = [c for c in names if c not in set(fitted)]
            if missing:
                raise OptreesInputError(f"X is missing columns seen in fit: {missing}")
            if extra:
                raise OptreesInputError(f"X has columns not seen in fit: {extra}")
            raise OptreesInputError(
                f"X columns are in a different order than in fit; expected {fitted}"
            )
        return df.set_axis(fitted, axis=1)

    def keeps_every_threshold(self, X: pd.DataFrame) -> bool:
        """Whether the output separates every two distinct values of each numeric column of
        ``X`` (the fitted frame) the way a threshold does: a cut ``x >= t`` between each two
        consecutive values (buckets: at most two), so a tree over the output is as good as
        one over every threshold of the raw values."""
        return not self.coarse_columns(X)

    def coarse_columns(self, X: pd.DataFrame) -> list[str]:
        """The numeric columns of ``X`` (the fitted frame) whose output does not separate
        every two distinct values (see :meth:`keeps_every_threshold`)."""
        check_is_fitted(self, "literals_")
        X = X.set_axis([str(c) for c in X.columns], axis=1)
        coarse = []
        for name, cuts in self.thresholds_.items():
            x = np.unique(_numeric_values(X[name], name))
            between = np.searchsorted(cuts, x[1:], "right") - np.searchsorted(cuts, x[:-1],
                                                                               "right")
            if (self.numeric == "buckets" and len(cuts) > 1) or np.any(between == 0):
                coarse.append(name)
        return coarse

    def transform(self, X: object) -> np.ndarray:
        """Binarize X; returns an (n_rows, n_outputs) uint8 matrix ordered as ``literals_``."""
        check_is_fitted(self, "literals_")
        df = self._align(X)
        out = np.zeros((df.shape[0], len(self.literals_)), dtype=np.uint8)
        pos = 0
        for name in self.feature_names_in_:
            kind = self.column_kinds_[name]
            if kind == "constant":
                continue
            s = df[name]
            if kind == "categorical":
                cats = self.categories_[name]
                codes = pd.Index(cats, tupleize_cols=False).get_indexer(s)
                m = len(cats)
                out[:, pos : pos + m] = codes[:, None] == np.arange(m, dtype=codes.dtype)
            elif kind == "binary":
                out[:, pos] = _numeric_values(s, name) == 1
                m = 1
            else:
                x = _numeric_values(s, name)
                cuts = self.thresholds_[name]
                if self.numeric == "thresholds":
                    m = len(cuts)
                    out[:, pos : pos + m] = x[:, None] >= cuts[None, :]
                else:
                    m = len(cuts) + 1
                    bucket = np.searchsorted(cuts, x, side="right")
                    out[:, pos : pos + m] = bucket[:, None] == np.arange(m)
            pos += m
        return out

    def get_feature_names_out(self, input_features: object = None) -> np.ndarray:
        """Readable names of the output columns (e.g. ``"age >= 37.5"``, ``"color = red"``)."""
        check_is_fitted(self, "literals_")
        if input_features is not None:
            given = [str(c) for c in input_features]
            if given != list(self.feature_names_in_):
                raise OptreesInputError(
                    "input_features does not match the columns seen in fit: "
                    f"{list(self.feature_names_in_)}"
                )
        return np.array([lit.name for lit in self.literals_], dtype=object)
