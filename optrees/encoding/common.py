"""Helpers every encoder and model uses: plain Python values and column kinds."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd


def plain(v: Any) -> Any:
    """numpy scalars as Python ones (``np.int64(3)`` -> ``3``), anything else unchanged."""
    return v.item() if isinstance(v, np.generic) else v


def is_numeric(s: pd.Series, bool_numeric: bool = False) -> bool:
    """Whether a column holds numbers to split by thresholds: a numeric, non-categorical
    dtype; booleans count as numeric (0/1) only with ``bool_numeric``."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        return False
    if pd.api.types.is_bool_dtype(s):
        return bool_numeric
    return bool(pd.api.types.is_numeric_dtype(s))
