"""Raw table -> float matrix for splits ``column <= threshold`` on the raw values (CGH, and
BinOCT with ``raw_thresholds=True``).

Numeric columns stay as they are; non-numeric ones are one-hot encoded as 0/1 columns named
``"col = v"`` ([CGH] §3), or kept as numbers when their categories are numbers
(``categorical="ordinal"``), or refused unless every value reads as a number
(``categorical="refuse"``).  ``specs`` is what a
saved model stores to read raw tables again (:func:`optrees.io.save_model`).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd

from .._validation import OptreesInputError
from .common import is_numeric, is_numeric_dtype, numeric_values, zero_one

CATEGORICAL = ("onehot", "ordinal", "refuse")


def _numeric_categories(s: pd.Series) -> bool:
    cats = s.cat.categories if isinstance(s.dtype, pd.CategoricalDtype) else pd.unique(s)
    return all(isinstance(c, numbers.Real) and not isinstance(c, bool) for c in cats)


def _as_floats(s: pd.Series) -> bool:
    """Whether every value of the column reads as a number (e.g. numbers of object dtype)."""
    try:
        s.to_numpy(dtype=float)
    except (TypeError, ValueError):
        return False
    return True


class ThresholdColumns:
    """The columns of ``df`` as threshold features: ``specs`` (kind, column, one-hot values),
    ``names`` and ``negated`` (the features' readable tests and their negations), and
    ``numeric`` (per feature: a column of numbers other than only 0 and 1, whose tests a
    tree prints as ``x <= t``, not as a Boolean)."""

    def __init__(self, df: pd.DataFrame, categorical: str = "onehot") -> None:
        if categorical not in CATEGORICAL:
            raise ValueError(f"categorical must be one of {CATEGORICAL}, got {categorical!r}")
        self.columns = list(df.columns)
        self.specs: list[tuple[str, Any, list]] = []
        self.names: list[str] = []
        self.negated: list[str] = []
        self.numeric: list[bool] = []
        if all(is_numeric_dtype(dt, True) for dt in df.dtypes):  # the loop below, at once
            values = numeric_values(df, True)
            flags = ~((values == 0) | (values == 1)).all(axis=0)
            self.specs = [("num", c, []) for c in self.columns]
            self.names = [str(c) for c in self.columns]
            self.negated = [f"not ({c})" for c in self.columns]
            self.numeric = [bool(v) for v in flags]
            return
        for c in self.columns:
            s = df[c]
            if (is_numeric(s, bool_numeric=True)
                    or (categorical == "ordinal" and _numeric_categories(s))
                    or (categorical == "refuse" and _as_floats(s))):
                self.specs.append(("num", c, []))
                self.names.append(str(c))
                self.negated.append(f"not ({c})")
                self.numeric.append(not zero_one(s.to_numpy()))
            elif categorical == "refuse":
                raise OptreesInputError(f"column {c!r} is not numeric")
            else:
                values = _present_values(s)
                self.specs.append(("onehot", c, values))
                self.names += [f"{c} = {v}" for v in values]
                self.negated += [f"{c} != {v}" for v in values]
                self.numeric += [False] * len(values)

    def categories(self) -> dict[Any, list]:
        """The values of every one-hot column seen at fit time (for unseen-category warnings)."""
        return {c: values for kind, c, values in self.specs if kind == "onehot"}

    def transform(self, df: pd.DataFrame) -> np.ndarray:
        """Float matrix with one column per feature (``names``)."""
        if self.specs and all(kind == "num" for kind, _, _ in self.specs):
            columns = [c for _, c, _ in self.specs]
            part = df if list(df.columns) == columns else df[columns]
            try:  # numbers only: one conversion of the frame, not one per column
                return np.asarray(part.to_numpy(dtype=float), dtype=float)
            except (TypeError, ValueError):
                pass  # the loop below names the column at fault
        parts = []
        for kind, c, values in self.specs:
            s = df[c]
            if kind == "num":
                try:
                    parts.append(np.asarray(s.astype(float).to_numpy(), dtype=float)[:, None])
                except (TypeError, ValueError) as exc:
                    raise OptreesInputError(f"column {c!r} is not numeric") from exc
            else:
                obj = s.astype(object).to_numpy()
                parts.append(np.stack([obj == v for v in values], axis=1).astype(float)
                             if values else np.zeros((len(s), 0)))
        return np.hstack(parts) if parts else np.zeros((len(df), 0))


def _present_values(s: pd.Series) -> list:
    """The values a one-hot column tests: a ``Categorical``'s categories in their order,
    other columns' distinct values sorted as text; only values some row holds (missing
    values are none)."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        held = np.unique(s.cat.codes.to_numpy())
        return [s.cat.categories[i] for i in held[held >= 0]]
    return sorted(pd.unique(s.dropna()), key=str)
