"""Input checks shared by every estimator: one place for the error messages users see."""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd


class OptreesInputError(ValueError):
    """Raised for bad user input; the message names the problem."""


def check_depth(depth: object) -> int:
    """Tree depth must be an integer >= 1."""
    if isinstance(depth, bool) or not isinstance(depth, numbers.Integral) or depth < 1:
        raise OptreesInputError(f"depth must be an integer >= 1, got {depth!r}")
    return int(depth)


def check_lam(lam: object, upper: float = 1.0) -> float:
    """Regularization weight must lie in [0, upper)."""
    if isinstance(lam, bool) or not isinstance(lam, numbers.Real) or not (0.0 <= lam < upper):
        raise OptreesInputError(f"lam must be a number in [0, {upper:g}), got {lam!r}")
    return float(lam)


def check_time_limit(time_limit: object) -> float | None:
    """Time limit in seconds: None (no limit) or a positive number."""
    if time_limit is None:
        return None
    if (
        isinstance(time_limit, bool)
        or not isinstance(time_limit, numbers.Real)
        or not np.isfinite(time_limit)
        or time_limit <= 0
    ):
        raise OptreesInputError(
            f"time_limit must be a positive number of seconds or None, got {time_limit!r}"
        )
    return float(time_limit)


def check_target(y: object, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Validate labels; return (classes, encoded y in 0..K-1). Needs >= 2 classes, no missing."""
    y_arr = np.asarray(y.to_numpy() if isinstance(y, pd.Series | pd.DataFrame) else y)
    if y_arr.ndim == 2 and y_arr.shape[1] == 1:
        y_arr = y_arr.ravel()
    if y_arr.ndim != 1:
        raise OptreesInputError(f"y must be one-dimensional, got shape {y_arr.shape}")
    if len(y_arr) != n_rows:
        raise OptreesInputError(
            f"X and y have different numbers of rows: X has {n_rows}, y has {len(y_arr)}"
        )
    if pd.isna(pd.Series(y_arr)).any():
        raise OptreesInputError("y contains missing values (NaN/None)")
    classes, y_enc = np.unique(y_arr, return_inverse=True)
    if len(classes) < 2:
        raise OptreesInputError(
            f"y has a single class ({classes[0]!r}); a classifier needs at least two classes"
        )
    return classes, y_enc.astype(np.int64)


def check_frame(X: object) -> pd.DataFrame:
    """Turn X into a DataFrame; reject empty input, NaN and infinities with a clear message."""
    if isinstance(X, pd.DataFrame):
        df = X
    else:
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise OptreesInputError(f"X must be two-dimensional, got shape {arr.shape}")
        df = pd.DataFrame(arr, columns=[f"x{j}" for j in range(arr.shape[1])])
    if df.shape[0] == 0 or df.shape[1] == 0:
        raise OptreesInputError(f"X is empty (shape {df.shape})")
    bad = [c for c in df.columns if df[c].isna().any()]
    if bad:
        raise OptreesInputError(f"X contains missing values (NaN/None) in columns {bad[:5]}")
    num = df.select_dtypes(include=[np.number])
    if num.shape[1] and not np.isfinite(num.to_numpy(dtype=float)).all():
        cols = [c for c in num.columns if not np.isfinite(num[c].to_numpy(dtype=float)).all()]
        raise OptreesInputError(f"X contains infinite values in columns {cols[:5]}")
    return df


def check_binary_matrix(X: object) -> np.ndarray:
    """Return X as a 0/1 uint8 matrix, or raise naming the first non-binary column."""
    df = check_frame(X)
    try:
        arr = df.to_numpy(dtype=float)
    except (TypeError, ValueError) as exc:
        raise OptreesInputError(
            "X has non-numeric columns; binary 0/1 data is required here "
            "(pass a binarizer to handle raw data)"
        ) from exc
    nonbin = ~np.isin(arr, (0.0, 1.0))
    if nonbin.any():
        j = int(np.argmax(nonbin.any(axis=0)))
        raise OptreesInputError(
            f"X must be binary (0/1) here, but column {df.columns[j]!r} has value "
            f"{arr[nonbin[:, j], j][0]!r} (pass a binarizer to handle raw data)"
        )
    return arr.astype(np.uint8)
