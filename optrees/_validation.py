"""Input checks shared by every estimator: one place for the error messages users see."""

from __future__ import annotations

import functools
import numbers
import warnings

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ._stack import user_stacklevel
from .encoding.common import plain


class OptreesInputError(ValueError):
    """Raised for bad user input; the message names the problem."""


class OptreesTypeError(OptreesInputError, TypeError):
    """Bad input of the wrong type (e.g. a dict in a cell of X); also a ``TypeError``."""


class OptreesTimeLimitError(TimeoutError):
    """``time_limit`` ran out before any model existed to return (a stopped solve returns its
    best model with ``status_ == "time_limit"`` instead); the message says how far the fit
    got and what gives it time.  Not an input error: the same input fits with more time."""


def check_depth(depth: object, upper: int | None = None, why: str = "") -> int:
    """Tree depth must be an integer >= 1 and, when ``upper`` is given, at most ``upper``.

    The upper bound keeps a model whose size grows like 2^depth from being allocated at all
    (depth 50 used to end in numpy's "Unable to allocate 8.00 PiB"); ``why`` says what grows.
    """
    if isinstance(depth, bool) or not isinstance(depth, numbers.Integral) or depth < 1:
        raise OptreesInputError(f"depth must be an integer >= 1, got {depth!r}")
    if upper is not None and depth > upper:
        reason = f": {why}" if why else ""
        raise OptreesInputError(
            f"depth={depth!r} is above the upper bound {upper} for this method{reason}")
    return int(depth)


def check_lam(lam: object, upper: float = 1.0) -> float:
    """Regularization weight must lie in [0, upper)."""
    if isinstance(lam, bool) or not isinstance(lam, numbers.Real) or not (0.0 <= lam < upper):
        raise OptreesInputError(f"lam must be a number in [0, {upper:g}), got {lam!r}")
    return float(lam)


def check_min_leaf(value: object, name: str = "min_leaf") -> int:
    """Fewest rows on each side of a split: an integer >= 1 (``name``: the parameter's name
    in the message)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise OptreesInputError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def check_max_leaves(value: object, depth: int | None = None) -> int | None:
    """Most leaves of a tree: None (no budget) or an integer >= 1; with ``depth``, None too
    when every tree of that depth keeps within it (``value >= 2**depth``)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise OptreesInputError(f"max_leaves must be None or an integer >= 1, got {value!r}")
    return None if depth is not None and value >= 2**depth else int(value)


MAX_GROUPS = 50
"""Most sensitive groups a fairness constraint takes.  It compares every two groups, so its
rows grow as groups^2: a numeric column of 1,996 values (magic, 2,000 rows) took 5.7 GB and
failed, 200 values overran a 10 s limit by 1.9 s."""


def check_group_count(n_groups: int, what: str) -> None:
    """One clear error when ``what`` (the sensitive column or ``groups``) has more than
    :data:`MAX_GROUPS` distinct values: a measurement rather than a group attribute."""
    if n_groups > MAX_GROUPS:
        raise OptreesInputError(
            f"{what} has {n_groups:,} distinct values; fairness compares every two groups and "
            f"takes at most {MAX_GROUPS}: a numeric measurement is no group attribute, so bin "
            f"it first (for example pandas.cut(column, 4)) or pass groups= to fit")


def not_a_column(name: str, value: object, columns: object) -> OptreesInputError:
    """The error for a ``sensitive`` / ``legitimate`` that names no column of X, kept short
    whatever was given: an array is described by its type and length, never printed."""
    if isinstance(value, (np.ndarray, pd.Series, pd.Index, list, tuple)):
        where = "; for one group per row use fit(X, y, groups=...)" \
            if name == "sensitive" else ""
        return OptreesInputError(f"{name}= takes a column name of X (got a "
                                 f"{type(value).__name__} of {len(value)} values){where}")
    names = list(columns)  # type: ignore[call-overload]
    shown = ", ".join(repr(c) for c in names[:10]) + (", ..." if len(names) > 10 else "")
    text = repr(value)
    text = text if len(text) <= 60 else text[:57] + "..."
    return OptreesInputError(f"{name} column {text} is not a column of X "
                             f"({len(names)} columns: {shown})")


def check_real(name: str, value: object, low: float, high: float = np.inf) -> float:
    """A finite number in [low, high]."""
    if (isinstance(value, bool) or not isinstance(value, numbers.Real)
            or not np.isfinite(value) or not low <= value <= high):
        raise OptreesInputError(f"{name} must be a number in [{low:g}, {high:g}], got {value!r}")
    return float(value)


def check_seed(random_state: object) -> int:
    """``random_state``: None (= seed 0, so results are reproducible by default) or an int
    >= 0.  A ``RandomState`` instance is refused: the solvers need an integer seed."""
    if random_state is None:
        return 0
    if (isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral)
            or random_state < 0):
        raise OptreesInputError(
            f"random_state must be None or an integer >= 0, got {random_state!r}")
    return int(random_state)


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
    """Validate labels; return (classes, encoded y in 0..K-1). Needs >= 2 classes, no missing.

    Labels may be of any sortable type (strings, integers, integral floats, booleans); a
    column vector ``(n, 1)`` is accepted with a ``DataConversionWarning``; real-valued
    (continuous) targets are refused with "Unknown label type: continuous".
    """
    if y is None:
        raise OptreesInputError(
            "this classifier requires y to be passed, but the target y is None"
        )
    if sp.issparse(y):
        raise OptreesInputError("sparse y is not supported; pass a dense array of labels")
    y_arr = np.asarray(y.to_numpy() if isinstance(y, pd.Series | pd.DataFrame) else y)
    if y_arr.ndim == 2 and y_arr.shape[1] == 1:
        from sklearn.exceptions import DataConversionWarning  # lazy: sklearn is slow to import

        warnings.warn(
            "A column-vector y was passed when a 1d array was expected; y is used as "
            "y.ravel(). Pass y with shape (n_samples,) to avoid this warning.",
            DataConversionWarning, stacklevel=user_stacklevel(),
        )
        y_arr = y_arr.ravel()
    if y_arr.ndim != 1:
        raise OptreesInputError(
            f"y must be one-dimensional (one label per row), got shape {y_arr.shape}"
        )
    if len(y_arr) != n_rows:
        raise OptreesInputError(
            f"X and y have different numbers of rows: X has {n_rows}, y has {len(y_arr)}"
        )
    # integers and booleans have no missing value (the object Series costs 0.1 ms)
    if y_arr.dtype.kind not in "biu" and pd.isna(pd.Series(y_arr, dtype=object)).any():
        raise OptreesInputError("y contains missing values (NaN/None)")
    if np.iscomplexobj(y_arr):
        raise OptreesInputError("Unknown label type: complex numbers are not class labels")
    if y_arr.dtype.kind == "f" and not np.all(np.isfinite(y_arr)):
        raise OptreesInputError("y contains infinite values")
    if y_arr.dtype.kind == "f" and np.any(y_arr != np.round(y_arr)):
        raise OptreesInputError(
            "Unknown label type: continuous. y holds non-integer numbers, but a classifier "
            "needs class labels (strings, integers); for a numeric target use a regressor"
        )
    try:
        classes, y_enc = np.unique(y_arr, return_inverse=True)
    except TypeError as exc:
        kinds = sorted({type(v).__name__ for v in y_arr})
        raise OptreesInputError(
            f"Unknown label type: y mixes label types {kinds} that cannot be ordered; "
            "use one type for all labels (e.g. all strings)"
        ) from exc
    if len(classes) < 2:
        only = classes[0].item() if isinstance(classes[0], np.generic) else classes[0]
        raise OptreesInputError(
            f"y has a single class ({only!r}); a classifier needs more than one class"
        )
    return classes, y_enc.astype(np.int64).ravel()


def _plain_value_type(v: object) -> bool:
    return v is None or isinstance(v, str | numbers.Number | np.bool_ | bool)


def check_regression_target(y: object, n_rows: int) -> np.ndarray:
    """``y`` as a float vector of ``n_rows`` finite numbers, or one clear error (a column
    vector is raveled with scikit-learn's warning, pointing at the user's line)."""
    if y is None:
        raise OptreesInputError("this regressor requires y to be passed, but the target y is "
                                "None")
    values = np.asarray(y.to_numpy() if isinstance(y, pd.Series | pd.DataFrame) else y)
    if values.ndim == 2 and values.shape[1] == 1:
        from sklearn.exceptions import DataConversionWarning  # lazy: sklearn is slow to import

        warnings.warn("A column-vector y was passed when a 1d array was expected; y is used "
                      "as y.ravel(). Pass y with shape (n_samples,) to avoid this warning.",
                      DataConversionWarning, stacklevel=user_stacklevel())
        values = values.ravel()
    if values.ndim != 1 or len(values) != n_rows:
        raise OptreesInputError(f"y must be one-dimensional with {n_rows} values (one per "
                                f"row of X), got shape {values.shape}")
    if values.dtype == bool or np.iscomplexobj(values):
        raise OptreesInputError(f"y must hold real numbers for a regression tree, got dtype "
                                f"{values.dtype}")
    try:
        target = values.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise OptreesInputError("y must hold numbers for a regression tree (a label such "
                                "as a string is a classification target)") from exc
    if not np.isfinite(target).all():
        raise OptreesInputError("y contains missing or infinite values")
    return target


def check_frame(X: object) -> pd.DataFrame:
    """Turn X into a DataFrame; reject empty, sparse, complex, NaN and infinite input.

    A numpy array of dtype object whose values are all real numbers is converted to float
    (scikit-learn's convention); DataFrame columns keep their dtypes (non-numeric columns
    are categorical).  Cells must be strings, numbers or booleans.
    """
    if X is None:
        raise OptreesInputError("X is None; expected a 2-D table (array or DataFrame)")
    if sp.issparse(X):
        raise OptreesInputError(
            "sparse input is not supported: X is a sparse matrix; pass a dense array or "
            "DataFrame (e.g. X.toarray())"
        )
    integers = False  # a numpy matrix of integers or booleans: no NaN, no text, no date
    if isinstance(X, pd.DataFrame):
        df = X
    else:
        if isinstance(X, pd.Series):
            arr = X.to_numpy()
        else:
            try:
                arr = np.asarray(X)
            except ValueError as exc:  # ragged nested lists
                raise OptreesInputError(f"X is not a rectangular table: {exc}") from exc
        if arr.ndim != 2:
            raise OptreesInputError(
                f"X must be two-dimensional (rows x columns): Expected 2D array, got "
                f"{arr.ndim}D array of shape {arr.shape} instead. Reshape your data either "
                "using X.reshape(-1, 1) if it has a single feature or X.reshape(1, -1) if "
                "it contains a single sample"
            )
        df = pd.DataFrame(arr, columns=_default_columns(arr.shape[1]))
        integers = arr.dtype.kind in "biu"
        if arr.dtype == object and df.size:
            df = df.apply(_numeric_if_possible)
    if not df.columns.is_unique:
        dup = list(dict.fromkeys(df.columns[df.columns.duplicated()]))
        raise OptreesInputError(f"X has duplicate column names: {dup[:5]}")
    if df.shape[0] == 0:
        raise OptreesInputError(
            f"X is empty: Found array with 0 sample(s) (shape={df.shape}) while a minimum "
            "of 1 is required."
        )
    if df.shape[1] == 0:
        raise OptreesInputError(
            f"X is empty: Found array with 0 feature(s) (shape={df.shape}) while a minimum "
            "of 1 is required."
        )
    if integers:  # nothing below can fail (0.1-0.2 ms on a small fit)
        return df
    dtypes = list(df.dtypes.items())  # column by column access is slow on wide frames
    # numpy numbers and booleans: none of pandas' dtype checks below apply (they cost 15 us
    # a column); their values are checked with the others
    simple = [isinstance(dt, np.dtype) and dt.kind in "biuf" for _, dt in dtypes]
    complex_cols = [c for (c, dt), easy in zip(dtypes, simple, strict=True)
                    if not easy and pd.api.types.is_complex_dtype(dt)]
    for (c, dt), easy in zip(dtypes, simple, strict=True):
        if easy:
            continue
        _refuse_dates(c, dt)
        if pd.api.types.is_object_dtype(dt):
            bad = [v for v in df[c] if not _plain_value_type(v)]
            if any(isinstance(v, complex) for v in bad):
                complex_cols.append(c)
            elif bad:
                raise OptreesTypeError(
                    f"column {c!r} of X holds a value of type {type(bad[0]).__name__}: "
                    "argument must be a string or a number (cells of X must be strings, "
                    "numbers or booleans)"
                )
    if complex_cols:
        raise OptreesInputError(
            f"Complex data not supported: X has complex numbers in columns {complex_cols[:5]}"
        )
    # one float matrix for the numeric columns (the whole frame when all are numeric: cheap)
    numeric = np.array([easy or pd.api.types.is_numeric_dtype(dt)
                        for (_, dt), easy in zip(dtypes, simple, strict=True)])
    missing, infinite = np.zeros(len(dtypes), bool), np.zeros(len(dtypes), bool)
    if numeric.any():
        values = (df if numeric.all() else df.iloc[:, numeric]).to_numpy(
            dtype=float, na_value=np.nan)
        missing[numeric] = np.isnan(values).any(axis=0)
        infinite[numeric] = np.isinf(values).any(axis=0)
    if not numeric.all():
        missing[~numeric] = df.iloc[:, ~numeric].isna().to_numpy().any(axis=0)
    if missing.any():
        bad = list(df.columns[missing])
        raise OptreesInputError(f"X contains missing values (NaN/None) in columns {bad[:5]}")
    if infinite.any():
        cols = list(df.columns[infinite])
        raise OptreesInputError(f"X contains infinite values in columns {cols[:5]}")
    return df


@functools.lru_cache(maxsize=64)
def _default_columns(n: int) -> pd.Index:
    """The names x0, x1, ... of an array's n columns (an Index is immutable: built once per
    width, it saves 20 us a fit)."""
    return pd.Index([f"x{j}" for j in range(n)])


def _refuse_dates(column: object, dtype: object) -> None:
    """Date and time columns are refused by every estimator alike, at fit and at predict: as
    categories each date would be its own value, as numbers thresholds would be unreadable."""
    if (pd.api.types.is_datetime64_any_dtype(dtype) or pd.api.types.is_timedelta64_dtype(dtype)
            or isinstance(dtype, pd.PeriodDtype)):
        raise OptreesInputError(
            f"column {column!r} of X has dtype {dtype}: dates and times are not supported "
            "(cells of X must be strings, numbers or booleans); convert the column to a "
            "number first, e.g. days since a fixed date")


def _numeric_if_possible(s: pd.Series) -> pd.Series:
    if all(isinstance(v, numbers.Real) and not isinstance(v, bool | np.bool_) for v in s):
        return s.astype(float)
    return s


def check_binary_matrix(X: object, checked: bool = False) -> np.ndarray:
    """Return X as a 0/1 uint8 matrix, or raise naming the first non-binary column
    (``checked``: X is a DataFrame that :func:`check_frame` already accepted)."""
    df = X if checked and isinstance(X, pd.DataFrame) else check_frame(X)
    try:
        arr = df.to_numpy(dtype=float)
    except (TypeError, ValueError) as exc:
        raise OptreesInputError(
            "X has non-numeric columns; binary 0/1 data is required here "
            "(pass a binarizer to handle raw data)"
        ) from exc
    nonbin = (arr != 0) & (arr != 1)
    if nonbin.any():
        j = int(np.argmax(nonbin.any(axis=0)))
        raise OptreesInputError(
            f"X must be binary (0/1) here, but column {df.columns[j]!r} has value "
            f"{arr[nonbin[:, j], j][0]!r} (pass a binarizer to handle raw data)"
        )
    return arr.astype(np.uint8)


def positive_class_index(positive_class: object, classes: np.ndarray) -> int:
    """Index of ``positive_class`` among the sorted ``classes`` (None: the last class); one
    clear error when it is not a class of y."""
    if positive_class is None:
        return len(classes) - 1
    hit = np.flatnonzero(classes == positive_class)
    if len(hit) == 0:
        raise OptreesInputError(
            f"positive_class {positive_class!r} is not a class of y ({list(classes)})")
    return int(hit[0])


def positive_rows(w: np.ndarray | None) -> np.ndarray | None:
    """Mask of the rows of positive weight; None when every row has one."""
    return None if w is None or w.all() else w > 0


def drop_weightless(df: pd.DataFrame, y: np.ndarray, w: np.ndarray | None
                    ) -> tuple[pd.DataFrame, np.ndarray, np.ndarray | None]:
    """The rows of positive weight: a row of weight 0 is as if it were not there (it must
    not move a quantile, a threshold or a category list)."""
    keep = positive_rows(w)
    if keep is None:
        return df, y, w
    return df.loc[keep].reset_index(drop=True), y[keep], w[keep]


def small_weight_exponent(w: np.ndarray | None) -> int:
    """0, or when the rows' mean positive weight is below 1 the exponent e < 0 of the power
    of two nearest it: the exact searches' tolerances are relative to max(1, total weight),
    so all weights x 1e-12 looked alike and gave the one-leaf tree; ``w / 2^e`` (exact) has
    a mean weight about 1, and every accuracy, rate or share of the weight is unchanged."""
    if w is None:
        return 0
    pos = np.asarray(w, dtype=np.float64)
    pos = pos[pos > 0]
    if not len(pos):
        return 0
    top = int(np.frexp(pos.max())[1])  # pos / 2^top < 1: the mean cannot overflow
    e = top + round(float(np.log2(np.mean(np.ldexp(pos, -top)))))
    return min(e, 0)


def fit_weights(sample_weight: object, class_weight: object, classes: np.ndarray,
                y_enc: np.ndarray) -> np.ndarray | None:
    """Weight of every training row: ``sample_weight[i] * class_weight[y_i]`` (None when
    both are None: every row weighs 1), checked the way scikit-learn checks them.

    ``sample_weight``: None, a number (every row) or one finite number >= 0 per row.
    ``class_weight``: None, a dict {label: weight} (labels missing from it weigh 1) or
    "balanced": ``W / (K * W_k)`` with ``W_k`` the sample weight of class k (the weighted
    form of scikit-learn's ``n / (K * n_k)``, so integer sample weights act as duplicated
    rows).  The caller's array is never modified; all-zero weights are refused."""
    n = len(y_enc)
    if sample_weight is None and class_weight is None:
        return None
    if sample_weight is None:
        w = np.ones(n)
    else:
        w = _sample_weight_array(sample_weight, n)
    if class_weight is not None:
        w = w * class_weights(class_weight, classes, y_enc, w)[y_enc]
        if not w.any():
            raise OptreesInputError(
                "sample_weight x class_weight is zero for every row: nothing to fit")
    return w


def _sample_weight_array(sample_weight: object, n: int) -> np.ndarray:
    """``sample_weight`` as a new float array of length n, or a clear error."""
    if isinstance(sample_weight, numbers.Number) and not isinstance(sample_weight, bool):
        values = np.full(n, sample_weight)  # a complex number stays complex: refused below
    else:
        try:
            values = np.array(sample_weight)
        except ValueError as exc:
            raise OptreesInputError(f"sample_weight is not a list of numbers: {exc}") from exc
    if values.dtype == bool or not (np.issubdtype(values.dtype, np.number)
                                    or values.dtype == object):
        raise OptreesInputError(
            f"sample_weight must hold numbers, got dtype {values.dtype}")
    if np.iscomplexobj(values):
        raise OptreesInputError("sample_weight must hold real numbers, not complex ones")
    try:
        values = values.astype(float)
    except (TypeError, ValueError) as exc:
        raise OptreesInputError(f"sample_weight must hold numbers: {exc}") from exc
    if values.shape != (n,):
        raise OptreesInputError(
            f"sample_weight has shape {values.shape}; expected ({n},), one weight per row "
            "of X")
    if not np.isfinite(values).all():
        raise OptreesInputError("sample_weight contains NaN or infinite values")
    if (values < 0).any():
        i = int(np.argmax(values < 0))
        raise OptreesInputError(
            f"sample_weight must be >= 0 (row {i} has {values[i]:g})")
    if not values.any():
        raise OptreesInputError("sample_weight is zero for every row: nothing to fit")
    return values


def class_weights(class_weight: object, classes: np.ndarray, y_enc: np.ndarray,
                  w: np.ndarray) -> np.ndarray:
    """Weight of each class (see :func:`fit_weights`): labels missing from a dict weigh 1,
    labels that are not classes are refused."""
    K = len(classes)
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise OptreesInputError(
                f"class_weight must be None, 'balanced' or a dict, got {class_weight!r}")
        totals = np.bincount(y_enc, weights=w, minlength=K)
        present = totals > 0
        out = np.zeros(K)
        out[present] = totals.sum() / (present.sum() * totals[present])
        return out
    if not isinstance(class_weight, dict):
        raise OptreesInputError(
            f"class_weight must be None, 'balanced' or a dict, got {class_weight!r}")
    known = {plain(c) for c in classes}
    unknown = [k for k in class_weight if plain(k) not in known]
    if unknown:
        raise OptreesInputError(
            f"class_weight has labels that are not classes of y: {unknown[:5]} "
            f"(classes: {[plain(c) for c in classes][:10]})")
    given = {plain(k): v for k, v in class_weight.items()}
    out = np.ones(K)
    for j, c in enumerate(classes):
        value = given.get(plain(c), 1.0)
        if (isinstance(value, bool) or not isinstance(value, numbers.Real)
                or not np.isfinite(value) or value < 0):
            raise OptreesInputError(
                f"class_weight[{plain(c)!r}] must be a finite number >= 0, got {value!r}")
        out[j] = float(value)
    return out


# ------------------------------------------------------------------ which task
MANY_INTEGERS = 30
"""An integer target with more distinct values than this is taken as a number to predict
(the registry's classification data sets have at most 26 classes)."""


def regression_reason(y: pd.Series) -> str | None:
    """Why a target given without ``--task`` reads as a number to predict, or None (a class
    label): numbers not all integers (a classifier refuses them: scikit-learn's "continuous"
    target), or more than :data:`MANY_INTEGERS` distinct integers."""
    if not pd.api.types.is_numeric_dtype(y) or pd.api.types.is_bool_dtype(y):
        return None
    values = y.to_numpy(dtype=float)
    values = values[np.isfinite(values)]
    distinct = len(np.unique(values))
    if not np.array_equal(values, np.round(values)):
        return f"numeric with {distinct} distinct values, not all integers"
    if distinct > MANY_INTEGERS:
        return f"integer with {distinct} distinct values (more than {MANY_INTEGERS})"
    return None
