"""Pieces shared by all estimators: warnings, input checks at fit / predict time, raw-table ->
0/1 input, the fit's one :class:`Deadline` and the Ctrl-C policy.

Ctrl-C (SIGINT) during ``fit``
------------------------------
``fit`` returns a model with ``status_ == "interrupted"`` and an :class:`InterruptedWarning`
instead of raising ``KeyboardInterrupt``: inside :func:`stop_on_ctrl_c` the first SIGINT
stops the fit's deadline, and every stage winds down as at its time limit.

* SCIP (FlowOCT, BendersOCT, BendOCT, OCT, BinOCT) catches SIGINT itself while it runs,
  stops with its incumbent and stops the deadline it was given; Ctrl-C while the model is
  built stops the build at its next deadline check and the warm start (CART) is returned.
* HiGHS (RUG, OMT, CGH) polls the deadline's stop flag in its interrupt callbacks, so a
  running LP or MIP stops at once; column generation (and CGH's split sampling) then ends as
  at its deadline and the best model so far is returned.
* During input validation and encoding no model exists yet: ``KeyboardInterrupt``.
* A second Ctrl-C raises ``KeyboardInterrupt`` as usual.
"""

from __future__ import annotations

import functools
import math
import numbers
import signal
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted, validate_data

from .._logging import progress, verbosity
from .._stack import user_stacklevel
from .._validation import (
    OptreesInputError,
    check_frame,
    check_seed,  # noqa: F401 - estimators import it from here
    drop_weightless,  # noqa: F401 - estimators import it from here
    positive_rows,  # noqa: F401 - estimators import it from here
)
from ..encoding.binary import Encoding, has_numeric_column, seen_categories  # noqa: F401 - re-exported
from ..models.result import FINISHED_STATUSES, FitResult
from ..solvers.deadline import Deadline  # also the method estimators' type hints
from ._columns import (  # noqa: F401 - ColumnWarning re-exported
    ColumnWarning,
    warn_columns,
)


class TimeLimitWarning(UserWarning):
    """The time limit stopped the solver before optimality was proven."""


class InterruptedWarning(TimeLimitWarning):
    """Ctrl-C stopped ``fit``; the best model found so far was returned.

    A subclass of :class:`TimeLimitWarning` (both mean "stopped early, model not proven
    optimal"), so filters for early stops catch both."""


class UnseenCategoryWarning(UserWarning):
    """``predict`` met a category that was not seen at fit time (it matches no
    ``column = value`` test: every such test is false for that row)."""


# ---------------------------------------------------------------------------- Ctrl-C
def fit_deadline(limit: float | None) -> Deadline:
    """The deadline of the solve part of a fit that starts now, for ``time_limit=limit``.

    ``time_limit`` covers the whole fit, so a little is kept back for what follows a stopped
    solve (freeing a large solver model, building and scoring the returned model): 0.1 s
    plus 1 % of the limit, at most 5 % of it.  Measured overshoot without this reserve on
    kr-vs-kp, depth 3, 2.5 s: about 0.2 s, half of it after the solver stopped."""
    fit = Deadline(limit)
    if limit is None:
        return fit
    return fit.reserve(min(0.1 + 0.01 * limit, 0.05 * limit))


@contextmanager
def stop_on_ctrl_c(deadline: Deadline) -> Iterator[Deadline]:
    """Within the block the first SIGINT stops ``deadline`` (every stage then winds down and
    returns its best model); the second raises ``KeyboardInterrupt``.  Only in the main
    thread (signals go there); elsewhere a no-op.  SCIP catches SIGINT itself while it runs
    and stops the deadline it was given."""
    if threading.current_thread() is not threading.main_thread():
        yield deadline
        return
    previous = signal.getsignal(signal.SIGINT)

    def handler(signum, frame):  # noqa: ARG001 - signal-handler signature
        if deadline.stopped:
            raise KeyboardInterrupt
        deadline.stop()

    try:
        signal.signal(signal.SIGINT, handler)
    except ValueError:  # pragma: no cover - not the main interpreter
        yield deadline
        return
    try:
        yield deadline
    finally:
        signal.signal(signal.SIGINT, previous)


def store_result(estimator: Any, result: FitResult, deadline: Deadline, what: str) -> None:
    """Set the fitted attributes every estimator has from a method's :class:`FitResult`:
    ``objective_``, ``bound_``, ``gap_``, ``status_`` ("interrupted" after Ctrl-C),
    ``solve_seconds_``, ``fit_seconds_``, ``stats_``; warn when the fit stopped early, i.e.
    with a status not in :data:`FINISHED_STATUSES` (``what``: the model returned, e.g.
    "returning the best tree found")."""
    status = "interrupted" if deadline.stopped and result.status != "optimal" else result.status
    estimator.objective_ = float(result.objective)
    estimator.bound_ = result.settled_bound
    estimator.gap_ = float(result.gap)
    estimator.status_ = status
    estimator.solve_seconds_ = float(result.seconds)
    estimator.fit_seconds_ = deadline.elapsed()
    estimator.stats_ = dict(result.stats)
    if status not in FINISHED_STATUSES:
        warn_stopped(estimator, status, estimator.fit_seconds_,
                     f"{what} (objective {estimator.objective_:g}, "
                     + (f"gap {estimator.gap_:.2%})" if math.isfinite(estimator.gap_)
                        else "no finite bound proven)"))


def mark_numeric(tree: Any, encoder: Any) -> Any:
    """``tree`` told which of its features are raw numbers (from the :class:`ThresholdColumns`
    ``encoder`` it was fitted through, if any), so that a split of a 0-4 column at 0.5
    prints as ``x <= 0.5``, not as a Boolean; returns it."""
    if encoder is not None and getattr(tree, "feature_names", None) == list(encoder.names):
        tree.numeric = list(encoder.numeric)
    return tree


def warn_stopped(estimator: Any, status: str, seconds: float, what: str) -> None:
    """The one warning for an early stop: :class:`InterruptedWarning` after Ctrl-C,
    :class:`TimeLimitWarning` otherwise."""
    name = type(estimator).__name__
    if status == "interrupted":
        warnings.warn(f"{name}: interrupted (Ctrl-C) after {seconds:.1f}s; {what}",
                      InterruptedWarning, stacklevel=user_stacklevel())
    else:
        warnings.warn(f"{name}: stopped with status '{status}' after {seconds:.1f}s; {what}",
                      TimeLimitWarning, stacklevel=user_stacklevel())


# ---------------------------------------------------------------------------- time limit
def logged_fit(fit: Callable) -> Callable:
    """Run ``fit`` at the estimator's ``verbose`` level and log a closing progress line."""

    @functools.wraps(fit)
    def wrapper(self, *args: Any, **kwargs: Any) -> Any:
        verbose = getattr(self, "verbose", 0)
        if not isinstance(verbose, numbers.Integral) or verbose < 0:  # bool is Integral
            raise OptreesInputError(f"verbose must be 0, 1, 2 or a bool, got {verbose!r}")
        with verbosity(int(verbose)):
            out = fit(self, *args, **kwargs)
            bound = getattr(self, "bound_", None)
            progress("done", getattr(self, "fit_seconds_", 0.0),
                     incumbent=getattr(self, "objective_", None),
                     bound=bound if bound is not None and np.isfinite(bound) else None,
                     gap=getattr(self, "gap_", None), status=getattr(self, "status_", "?"))
        return out

    return wrapper


def _str_columns(df: pd.DataFrame) -> list[str]:
    return [str(c) for c in df.columns.tolist()]  # (iterating a str Index: 1 us a name)


def _string_names(X: Any) -> np.ndarray | None:
    """The column names of a pandas DataFrame whose names are all ``str`` (what
    scikit-learn's ``validate_data`` stores as ``feature_names_in_``), else None.  Checked
    here because scikit-learn's check imports narwhals' pandas layer on first use (0.1-0.2 s
    of a process's first fit, ``bench/cold_start.py``); other tables go to scikit-learn."""
    if not isinstance(X, pd.DataFrame) or X.shape[1] == 0:
        return None
    names = np.asarray(X.columns, dtype=object)
    return names if all(type(name) is str for name in names) else None


def fit_frame(estimator: Any, X: Any) -> pd.DataFrame:
    """Checked DataFrame of the training X; sets ``n_features_in_`` (and
    ``feature_names_in_`` when X has string column names) the scikit-learn way."""
    df = check_frame(X)
    names = _string_names(X)
    if isinstance(X, np.ndarray):  # what validate_data sets for an array, without its 25 us
        if hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_  # (fitted before on a table with names)
        estimator.n_features_in_ = X.shape[1]
    elif names is not None:  # what validate_data sets for a table of str names
        estimator.feature_names_in_ = names
        estimator.n_features_in_ = len(names)
    else:
        validate_data(estimator, X, reset=True, skip_check_array=True)
    warn_columns(estimator, df)
    estimator._fit_columns = _str_columns(df)
    estimator._fit_labels = df.columns.tolist()  # as given (e.g. integers), for saved models
    if df is not X and estimator._fit_labels == estimator._fit_columns:
        return df  # a frame of our own, named x0, x1, ... already (set_axis: 0.1 ms)
    return df.set_axis(estimator._fit_columns, axis=1)


def predict_frame(estimator: Any, X: Any, attribute: str) -> pd.DataFrame:
    """Checked DataFrame of X at predict time: NotFittedError before fit, same number of
    columns (and same names, if fitted with names) as at fit time; columns renamed to the
    fit-time names."""
    check_is_fitted(estimator, attribute)
    df = check_frame(X)
    names = _string_names(X)
    fitted = getattr(estimator, "feature_names_in_", None)
    if (names is not None and fitted is not None and len(names) == len(fitted)
            and estimator.n_features_in_ == len(names) and (names == fitted).all()):
        return df.set_axis(estimator._fit_columns, axis=1)  # what validate_data accepts
    try:
        validate_data(estimator, X, reset=False, skip_check_array=True)
    except ValueError as exc:  # scikit-learn's wording, our exception type
        raise OptreesInputError(
            f"{str(exc).rstrip()}\n(pass X with the same columns, in the same order, as at "
            "fit time)") from exc
    return df.set_axis(estimator._fit_columns, axis=1)


def warn_unseen(estimator: Any, df: pd.DataFrame, categories: dict[str, Any]) -> None:
    """Warn (:class:`UnseenCategoryWarning`, once for every column) about categories not
    seen at fit time."""
    parts = []
    for col, seen in categories.items():
        values = pd.unique(df[col].astype(object))
        known = set(seen)
        new = [v for v in values if v not in known]
        if new:
            parts.append(f"column {col!r} has categories not seen in fit: {new[:5]}")
    if parts:
        warnings.warn(
            f"{type(estimator).__name__}: {'; '.join(parts)}; every 'column = value' test "
            "is false for those rows", UnseenCategoryWarning, stacklevel=user_stacklevel())


class _BinaryInput:
    """Turns raw X into the 0/1 matrix the tree MIPs need (fit once, reuse at predict)."""

    def _features(self, X: Any) -> np.ndarray:
        df = self._fitted_frame(X)
        warn_unseen(self, df, self._categories)
        return self._encode(df)

    def _encode(self, df: pd.DataFrame) -> np.ndarray:
        """The features of a frame with the fit's columns, by the fitted encoding."""
        return Encoding(self.binarizer_, getattr(self, "encoder_", None)).transform(df)


class _TreeOutput:
    """Text, picture and DOT of the fitted ``tree_`` (binary or multiway), and what its
    bound is over."""

    @property
    def gap_scope_(self) -> str:
        """What ``bound_`` / ``gap_`` are certified over when that is not every tree of the
        estimator's kind ("" when it is): a tree found over a binarizer's thresholds is
        optimal among the trees on those thresholds only."""
        if getattr(self, "thresholds_", None) == "binarized":
            return "gap over the binarizer's thresholds"
        return ""

    def export_text(self) -> str:
        """The fitted tree as indented text: one line per test, class counts at the leaves."""
        check_is_fitted(self, "tree_")
        return self.tree_.export_text()

    def plot(self, path: Any = None, **kwargs: Any) -> Any:
        """matplotlib Figure of the tree (saved to ``path`` when given: PNG, SVG, PDF)."""
        check_is_fitted(self, "tree_")
        return self.tree_.plot(path=path, **kwargs)

    def to_dot(self) -> str:
        """Graphviz DOT source of the tree (render with ``dot -Tpng``)."""
        check_is_fitted(self, "tree_")
        return self.tree_.to_dot()


class _TreePredictor(_TreeOutput):
    """predict / predict_proba / apply / export_text of every estimator with a ``tree_``
    (a :class:`BinaryTree`); subclasses map raw X to the tree's features in ``_features``."""

    def _features(self, X: Any) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _fitted_frame(self, X: Any) -> pd.DataFrame:
        """X as a checked DataFrame with the fit-time columns."""
        return predict_frame(self, X, "tree_")

    # (features first: they raise NotFittedError before ``self.tree_`` is looked up)
    def predict(self, X: Any) -> np.ndarray:
        """Predicted label of each row of ``X`` (the columns of the training table)."""
        Z = self._features(X)
        return self.tree_.predict(Z)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class frequencies of the training samples in the leaf each sample reaches."""
        Z = self._features(X)
        return self.tree_.predict_proba(Z)

    def apply(self, X: Any) -> np.ndarray:
        """Index of the leaf of ``tree_`` that each row of ``X`` reaches."""
        Z = self._features(X)
        return self.tree_.apply(Z)
