"""Helpers every encoder and model uses: plain Python values and column kinds."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

COMPARE = {"<=": np.less_equal, ">": np.greater, "<": np.less, ">=": np.greater_equal}
"""A numeric literal's operators and how they compare (``<`` / ``>=``: XGBoost's tests)."""


def plain(v: Any) -> Any:
    """numpy scalars as Python ones (``np.int64(3)`` -> ``3``), anything else unchanged."""
    return v.item() if isinstance(v, np.generic) else v


def is_numeric(s: pd.Series, bool_numeric: bool = False) -> bool:
    """Whether a column holds numbers to split by thresholds: a numeric, non-categorical
    dtype; booleans count as numeric (0/1) only with ``bool_numeric``."""
    return is_numeric_dtype(s.dtype, bool_numeric)


def is_numeric_dtype(dtype: Any, bool_numeric: bool = False) -> bool:
    """:func:`is_numeric` from the column's dtype alone (no Series needed: fast on wide
    frames, whose ``df.dtypes`` costs one call)."""
    if isinstance(dtype, np.dtype):  # numpy's own: by kind, 10x faster than pandas' checks
        return dtype.kind in "iufc" or (dtype.kind == "b" and bool_numeric)
    if isinstance(dtype, pd.CategoricalDtype):
        return False
    if pd.api.types.is_bool_dtype(dtype):
        return bool_numeric
    return bool(pd.api.types.is_numeric_dtype(dtype))


def numeric_values(df: pd.DataFrame, bool_numeric: bool = False,
                   dtypes: list | None = None) -> np.ndarray:
    """The numeric columns of ``df`` (:func:`is_numeric_dtype`) as one float matrix
    (missing values as NaN); shape (rows, 0) when there is none.  ``dtypes``: the frame's
    ``df.dtypes.tolist()`` when the caller has it (reading it costs 15-20 us)."""
    dtypes = df.dtypes.tolist() if dtypes is None else dtypes
    cols = [i for i, dt in enumerate(dtypes) if is_numeric_dtype(dt, bool_numeric)]
    part = df if len(cols) == df.shape[1] else df.iloc[:, cols]
    return part.to_numpy(dtype=float, na_value=np.nan)


def zero_one(values: np.ndarray) -> bool:
    """Whether every entry of ``values`` is 0 or 1 (integers: read off their range, without
    the temporaries of the comparisons)."""
    if values.dtype.kind in "biu":
        return values.size == 0 or bool(values.min() >= 0 and values.max() <= 1)
    return bool(((values == 0) | (values == 1)).all())


def numeric_columns_zero_one(df: pd.DataFrame, bool_numeric: bool = False,
                             dtypes: list | None = None) -> tuple[int, bool]:
    """How many columns of ``df`` are numeric (:func:`is_numeric_dtype`) and whether they
    all hold only 0 and 1: column by column in their own dtype, stopping at the first other
    value (a float matrix of a million rows cost seconds)."""
    dtypes = df.dtypes.tolist() if dtypes is None else dtypes
    cols = [i for i, dt in enumerate(dtypes) if is_numeric_dtype(dt, bool_numeric)]
    for i in cols:
        column = df.iloc[:, i]
        values = (column.to_numpy() if isinstance(dtypes[i], np.dtype)
                  else column.to_numpy(dtype=float, na_value=np.nan))
        if not zero_one(values):
            return len(cols), False
    return len(cols), True
