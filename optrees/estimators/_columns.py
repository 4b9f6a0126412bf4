"""Warnings about training columns that look like something else: an identifier (a
distinct text value in every row) or numbers stored as text (a missing-value marker such
as '?', or decimal commas, turned a numeric column into categories)."""

from __future__ import annotations

import numbers
import re
import warnings
from typing import Any

import numpy as np
import pandas as pd

from .._stack import user_stacklevel


class ColumnWarning(UserWarning):
    """A training column is probably not what the fit takes it for: an identifier (each of
    its ``column = value`` tests holds for one row), or numbers stored as text (read as
    categories, so no threshold is tried on them)."""


MIN_ROWS = 20
"""From this many rows on, columns are checked (fewer rows: a toy table, where distinct
labels are common)."""

MAX_MARKERS = 3
"""Numbers stored as text: at most this many distinct values that are not numbers (markers
such as '?', 'NA', '-')."""


DECIMAL_COMMA = r"[+-]?\d*,\d+(?:[eE][+-]?\d+)?"
"""A number written with a decimal comma (``171,3``, ``-0,5``, ``,25``), as many European
CSV files hold them (with ``;`` between the fields)."""


def as_numbers(values: pd.Series) -> tuple[np.ndarray, bool]:
    """``values`` read as numbers, NaN where a value is not one, a decimal comma read as a
    point; and whether some value had a decimal comma.  Each distinct value is read once
    (a text column of 100k rows has a few)."""
    codes, uniques = pd.factorize(values)  # a missing value: code -1
    read = [_number(v) for v in np.asarray(uniques, dtype=object)]  # a loop: a few values
    numbers = np.array([x for x, _ in read] + [np.nan], dtype=np.float64)
    return numbers[codes], any(c for _, c in read)


def _number(value: Any) -> tuple[float, bool]:
    """A distinct value as a number (NaN if it is none; pandas' ``to_numeric`` reading, not
    Python's, which also takes '1_000'), and whether it had a decimal comma."""
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        return float(value), False
    text = str(value).strip()
    if "_" not in text:
        try:
            return float(text), False
        except ValueError:
            pass
    if re.fullmatch(DECIMAL_COMMA, text):
        return float(text.replace(",", ".")), True
    return np.nan, False


def _markers(values: pd.Series, distinct: int) -> tuple[list[Any], bool] | None:
    """The non-numeric values of a text column of ``distinct`` values, more than two, at
    least half of whose rows are numbers (decimal commas too), when they are at most
    ``MAX_MARKERS`` distinct ones (an empty list: every value is a number), and whether some
    number has a decimal comma; else None."""
    if distinct <= 2:  # two values: categories or a threshold, the same
        return None
    numbers, comma = as_numbers(values)
    text = values[np.isnan(numbers)]
    if 2 * len(text) > len(values):
        return None
    distinct = list(pd.unique(text.astype(object)))
    return (distinct, comma) if len(distinct) <= MAX_MARKERS else None


def warn_columns(estimator: Any, df: pd.DataFrame) -> None:
    """Warn (:class:`ColumnWarning`) about each text column (not a ``Categorical``: that
    type is the user's own choice) that is an identifier, and once about all text columns
    that hold numbers and a few markers.  ``estimator``: the caller, or its name."""
    if len(df) < MIN_ROWS:
        return
    name = estimator if isinstance(estimator, str) else type(estimator).__name__
    as_text: dict[str, int] = {}
    markers: list[Any] = []
    commas = False
    for col in df.columns:
        kind = df[col].dtype
        if not (pd.api.types.is_object_dtype(kind) or pd.api.types.is_string_dtype(kind)):
            continue
        distinct = df[col].nunique(dropna=False)
        if distinct == len(df):
            warnings.warn(f"{name}: column {col!r} has a distinct value in each of the "
                          f"{len(df)} rows (an identifier?); a '{col} = value' test fits one "
                          "row: drop the column (command line: --drop)", ColumnWarning,
                          stacklevel=user_stacklevel())
            continue
        found = _markers(df[col], distinct)
        if found is not None:
            as_text[col] = int(df[col].isin(found[0]).sum())
            markers += [m for m in found[0] if m not in markers]
            commas |= found[1]
    if as_text:
        # a column's count is of its rows holding a marker: none in a column of numbers
        # only (a decimal comma), which printed "(0 rows)"
        shown = ", ".join(f"{c!r} ({k} row{'s' * (k != 1)} with a marker)" if k else repr(c)
                          for c, k in list(as_text.items())[:8])
        more = f" and {len(as_text) - 8} more" if len(as_text) > 8 else ""
        what = f"numbers and {markers[:5]}" if markers else "numbers as text"
        hint = (f"If {markers[0]!r} marks a missing value, fill or remove those rows, or drop "
                f"the columns (command line: --na {markers[0]!r} reads it as missing, "
                "--dropna leaves out such rows)" if markers
                else "Convert them to numbers if they measure something")
        if commas:
            hint += (" (some hold a comma, as in '1,5': a decimal comma or a thousands "
                     "separator; read the file with pandas.read_csv(..., decimal=',') or "
                     "thousands=',')")
        warnings.warn(f"{name}: {len(as_text)} column(s) hold {what}: {shown}{more}; they are "
                      f"read as categories, with no threshold tested. {hint}", ColumnWarning,
                      stacklevel=user_stacklevel())
