"""``optrees.compare``: every registered method of a task, and scikit-learn's CART tuned by
``GridSearchCV`` as the reference, fitted on one training part of the user's data within one
total time budget and scored on the held-out rows (issue #44, item 3).

(The module is not called ``compare``: ``optrees.compare`` is the function.)
"""

from __future__ import annotations

import math
import numbers
import time
import warnings
from typing import Any

import numpy as np
import pandas as pd

from ._validation import (
    MANY_INTEGERS,
    OptreesInputError,
    check_frame,
    check_regression_target,
    check_target,
)
from .estimators._base import UnseenCategoryWarning
from .estimators._columns import warn_columns
from .registry import Method, compare_methods, cv_estimator, task_methods

TASKS = ("auto", "classification", "regression")
REFERENCE = "cart"
"""The name of the reference row: scikit-learn's CART tuned by GridSearchCV."""
RESERVE = 0.10
"""Share of ``time_budget`` kept back from the methods' time limits for what no time limit
covers: the split, model building around the solvers, the predictions."""
MIN_SHARE = 0.25
"""A method is fitted only with at least this part of the first share (the budget split
evenly); with less (earlier fits ran over) it is skipped."""
COLUMNS = ["method", "test_score", "test_se", "size", "size_unit", "fit_seconds",
           "time_limit", "gap", "params", "status", "note", "model"]


def compare(X: Any, y: Any, task: str = "auto", methods: list[str] | None = None,
            time_budget: float = 300.0, cv: int = 5, test_size: float = 0.25,
            random_state: int = 0) -> pd.DataFrame:
    """Fit every method of ``task`` (``methods``: a subset of them by name) and CART, and
    score each on the same held-out ``test_size`` share of the rows (stratified for a
    classification when every class has two rows).

    ``task`` "auto": a regression when ``y`` is numeric and not all integers or has more than
    30 distinct integers (as ``optrees fit``), else a classification.  A method with a
    ``*CV`` estimator (``optrees.registry.cv_estimator``) is tuned by it with ``cv``
    shuffled folds (stratified for a classification; CART gets the same folds); the others
    run with their defaults.  CART (``method`` "cart") is
    ``GridSearchCV(DecisionTreeClassifier / Regressor)`` over ``max_depth`` and ``ccp_alpha``
    (``optrees.comparison_cart``), categorical columns one-hot encoded.

    The budget is shared as the rows run: after the checks, the split and the imports,
    ``RESERVE`` of what is left is kept for work no time limit covers, and each row (fitted
    in ``fit_order``: CART, the methods that usually finish early, then the MIPs and
    column generations that spend their limit) gets as its time limit what is left of the
    rest divided by the rows still to run; so the time a fast fit does not use goes to the
    later ones (the ``*CV`` estimators spend their share on all their folds and the refit;
    CART's search tries its grid shallowest depth first and starts no point that would end
    past its share, status "time_limit" when it left some out).  A method whose
    share would be less than ``MIN_SHARE`` of the first one (earlier fits ran over) is not
    fitted (status "skipped", the reason in ``note``); a fit that fails is kept as status
    "failed".

    Returns one row per method, in registry order after CART: ``test_score`` (accuracy, or
    R² for a regression, on the test rows), ``test_se`` (its standard error over the test
    rows: accuracy ``sqrt(p (1 - p) / n)``; R² the standard error of the mean of the
    squared errors divided by the test targets' variance, the variance taken as fixed),
    ``size`` (leaves of a tree, rules of a rule set; ``size_unit`` says which),
    ``fit_seconds``, ``time_limit`` (the share given), ``gap`` (the fitted model's certified
    relative optimality gap ``gap_`` for its own objective; nan when it has none, e.g. CART
    or a heuristic), ``params`` (the chosen or default depth and penalty), ``status``
    ("ok", the fit's ``status_`` when not optimal, "skipped", "failed"), ``note`` (why a
    row was skipped or failed; over what a gap is certified when not every model of the
    row's kind: "gap over the binarizer's thresholds", OMT's bins, a rule LP's pool) and
    ``model`` (the fitted estimator: ``model.predict`` on the test rows gives the score).
    ``attrs``: ``task``, ``metric``, ``test_rows`` (positions in ``X`` of the test rows),
    ``time_budget``, ``seconds`` (the whole call), ``note`` ("" or why the scores mean
    little: classes with fewer training rows than the folds need).
    """
    started = time.perf_counter()
    budget = _check_budget(time_budget)
    df, target = _check_data(X, y)
    auto, task = task == "auto", _resolve_task(task, target)
    chosen = _methods(task, methods)
    _check_options(cv, test_size, random_state, task, target, len(df))
    train, test = _split(target, task, test_size, random_state)
    parts = (df.iloc[train], df.iloc[test], target.iloc[train], target.iloc[test])
    folds = _folds(task, cv, random_state)
    for method in chosen.values():  # imports (seconds on a cold start) before the shares
        if cv_estimator(method.class_name) is None:
            method.load()
    from . import comparison_cart  # noqa: F401 - scikit-learn's trees, imported likewise
    left = budget - (time.perf_counter() - started)
    if left <= 0:  # no share to give: a table of rows all skipped, with negative shares
        raise OptreesInputError(f"time_budget {budget:g}s was used up by the checks, the "
                                f"split and the imports ({budget - left:.1f}s) before any "
                                "fit: give a larger budget")
    names = fit_order(chosen)
    warn_columns("compare", df)  # once here: each method's fit is silenced below
    kept = RESERVE * left
    first = (left - kept) / len(names)
    rows = {}
    for k, name in enumerate(names):
        left = budget - (time.perf_counter() - started)
        share = (left - kept) / (len(names) - k)  # what earlier rows left over is shared
        if share < MIN_SHARE * first or share <= 0:
            rows[name] = _skipped(name, max(share, 0.0), _skip_note(share, first))
            continue
        rows[name] = _run(name, chosen.get(name), task, parts, share, folds, random_state)
    _warn_test_rows(rows)
    table = pd.DataFrame([rows[name] for name in [REFERENCE, *chosen]], columns=COLUMNS)
    table.attrs.update(task=task, metric="accuracy" if task == "classification" else "R²",
                       test_rows=np.asarray(test), time_budget=budget,
                       seconds=time.perf_counter() - started,
                       note=_few_rows_note(target.iloc[train], task, auto, cv))
    return table


def _few_rows_note(y_train: pd.Series, task: str, auto: bool, cv: int) -> str:
    """Why a classification's scores mean little: classes with fewer training rows than the
    ``cv`` folds need (each fold's search sees too few or none), and when the target was
    taken as classes by the integer rule, how to predict it as a number instead; else ""."""
    counts = y_train.value_counts()
    few = int((counts < cv).sum())
    if task != "classification" or few == 0:
        return ""
    which = "every class has a single training row" if counts.max() == 1 else \
        f"{few} of the {len(counts)} classes have fewer than {cv} training rows"
    note = f"{which}, fewer than the {cv} folds need: the scores mean little"
    if auto and pd.api.types.is_numeric_dtype(y_train) and \
            not pd.api.types.is_bool_dtype(y_train):
        note += (f"; the target was taken as classes (integers with at most {MANY_INTEGERS} "
                 "distinct values are classes): task='regression' (optrees compare --task "
                 "regression) predicts it as a number")
    return note


def _skip_note(share: float, first: float) -> str:
    """Why a row is not fitted: nothing left of the budget, or a share too small."""
    if share <= 0:
        return "skipped: the budget was used up before this method"
    return (f"skipped: its share {_seconds(share)} is less than {MIN_SHARE:.0%} of the first "
            f"share {_seconds(first)} (earlier fits ran over)")


def _seconds(value: float) -> str:
    """``12.3s``, or ``0.042s`` below a second (never ``0.0s`` for a positive time)."""
    return f"{value:.1f}s" if value >= 1 else f"{value:.2g}s"


def fit_order(chosen: dict[str, Method]) -> list[str]:
    """The order the rows are fitted in: CART, the methods that usually end before their
    time limit, then those that spend it (``Method.runs_to_limit``), each group in registry
    order.  A share is what is left over the rows still to run, so the time the early
    finishers leave goes to the methods that can use it, and when earlier fits run over,
    those skipped are ones that would have stopped at their limit anyway."""
    return [REFERENCE, *[n for n, m in chosen.items() if not m.runs_to_limit],
            *[n for n, m in chosen.items() if m.runs_to_limit]]


# ---------------------------------------------------------------------------- checks
def _check_budget(time_budget: Any) -> float:
    if isinstance(time_budget, bool) or not isinstance(time_budget, numbers.Real) \
            or not math.isfinite(time_budget) or time_budget <= 0:
        raise OptreesInputError(f"time_budget must be a number of seconds > 0, got "
                                f"{time_budget!r}")
    return float(time_budget)


def _check_data(X: Any, y: Any) -> tuple[pd.DataFrame, pd.Series]:
    df = check_frame(X)
    names = [str(c) for c in df.columns]
    if len(set(names)) < len(names):  # e.g. 1 and "1": the fits see them by name
        dup = sorted({c for c in names if names.count(c) > 1})
        raise OptreesInputError(f"X has columns of the same name as text: {dup[:5]}; give "
                                "every column its own name")
    df = df.set_axis(names, axis=1).reset_index(drop=True)
    if isinstance(y, pd.DataFrame) and y.shape[1] == 1:
        y = y.iloc[:, 0]
    if not isinstance(y, pd.Series):
        arr = np.asarray(y)
        if arr.ndim == 2 and arr.shape[1] == 1:
            arr = arr.ravel()
        if arr.ndim != 1:
            raise OptreesInputError(f"y must be one column of targets, got shape {arr.shape}")
        y = pd.Series(arr)
    target = y.reset_index(drop=True)
    if len(target) != len(df):
        raise OptreesInputError(f"y must hold one value per row of X ({len(df)} rows), got "
                                f"{len(target)} values")
    return df, target


def _plain(value: Any) -> str:
    """A value as a user wrote it: 7.0 or 'a', not np.float64(7.0)."""
    return repr(value.item() if hasattr(value, "item") else value)


def _resolve_task(task: Any, y: pd.Series) -> str:
    if task not in TASKS:
        raise OptreesInputError(f"task must be one of {', '.join(map(repr, TASKS))}, got "
                                f"{task!r}")
    if task != "auto":
        return task
    from ._validation import regression_reason

    if y.nunique() == 1:  # neither task has anything to compare: say so as such
        raise OptreesInputError(f"y is constant ({_plain(y.iloc[0])}): there is nothing to "
                                "predict and nothing to compare")

    return "regression" if regression_reason(y) else "classification"


def _methods(task: str, methods: list[str] | None) -> dict[str, Method]:
    """The registry's methods of ``task`` (``methods``: those names, each checked)."""
    available = task_methods(task)
    if methods is None:
        return compare_methods(task)
    if isinstance(methods, str) or not all(isinstance(m, str) for m in methods):
        raise OptreesInputError(f"methods must be a list of method names, got {methods!r}")
    unknown = [m for m in methods if m not in available and m != REFERENCE]
    if unknown:
        raise OptreesInputError(f"unknown {task} method(s) {unknown}; the {task} methods are "
                                f"{sorted(available)} (CART is always compared)")
    return {m: available[m] for m in available if m in methods}


def _check_options(cv: Any, test_size: Any, random_state: Any, task: str, y: pd.Series,
                   n: int) -> None:
    if isinstance(cv, bool) or not isinstance(cv, numbers.Integral) or cv < 2:
        raise OptreesInputError(f"cv must be an integer >= 2 (folds), got {cv!r}")
    if isinstance(test_size, bool) or not isinstance(test_size, numbers.Real) \
            or not 0 < test_size < 1:
        raise OptreesInputError(f"test_size must be a share in (0, 1), got {test_size!r}")
    if isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral):
        raise OptreesInputError(f"random_state must be an integer, got {random_state!r}")
    if task == "regression":
        check_regression_target(y, n)
        if y.nunique() == 1:  # every R² would be nan, every model the constant
            raise OptreesInputError(f"y is constant ({_plain(y.iloc[0])}): a regression's test "
                                    "score R² is undefined, there is nothing to compare")
    else:
        check_target(y, n)
    n_test = math.ceil(test_size * n)
    if n_test < 2 or n - n_test < cv:
        raise OptreesInputError(f"{n} rows are too few for test_size {test_size} and {cv} "
                                "folds: at least 2 test rows and one training row per fold")


def _split(y: pd.Series, task: str, test_size: float, seed: int
           ) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the training and test rows."""
    from sklearn.model_selection import train_test_split

    rows = np.arange(len(y))
    stratify = y if task == "classification" and y.value_counts().min() >= 2 else None
    try:
        train, test = train_test_split(rows, test_size=test_size, random_state=seed,
                                       stratify=stratify)
    except ValueError:  # too few rows of a class for a stratified test part
        train, test = train_test_split(rows, test_size=test_size, random_state=seed)
    return np.sort(train), np.sort(test)


def _folds(task: str, cv: int, seed: int) -> Any:
    """Shuffled folds (stratified for a classification), the same for every search."""
    from sklearn.model_selection import KFold, StratifiedKFold

    kind = StratifiedKFold if task == "classification" else KFold
    return kind(n_splits=cv, shuffle=True, random_state=seed)


# ---------------------------------------------------------------------------- rows
def _skipped(name: str, share: float, note: str) -> dict[str, Any]:
    return {"method": name, "test_score": math.nan, "test_se": math.nan, "size": math.nan,
            "size_unit": "", "fit_seconds": math.nan, "time_limit": share, "gap": math.nan,
            "params": "", "status": "skipped" if note.startswith("skipped") else "failed",
            "note": note, "model": None}


def _estimator(method: Method | None, task: str, X: pd.DataFrame, y: pd.Series,
               share: float, cv: Any, seed: int) -> Any:
    """The estimator of one row, with its time limit (CART: its GridSearchCV)."""
    if method is None:
        from .comparison_cart import cart_search

        return cart_search(task, X, y, cv, seed, time_limit=share)
    cv_class = cv_estimator(method.class_name)
    est = cv_class(cv=cv) if cv_class is not None else method.load()()
    names = est.get_params()
    est.set_params(time_limit=share, **({"random_state": seed} if "random_state" in names
                                        else {}))
    return est


def _run(name: str, method: Method | None, task: str, parts: tuple[Any, ...], share: float,
         cv: Any, seed: int) -> dict[str, Any]:
    X_train, X_test, y_train, y_test = parts
    try:
        est = _estimator(method, task, X_train, y_train, share, cv, seed)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # time limits show in the status column
            est.fit(X_train, y_train)
        seconds = time.perf_counter() - t0
        with warnings.catch_warnings(record=True) as said:  # shown once for all methods
            warnings.simplefilter("always", UnseenCategoryWarning)
            pred = est.predict(X_test)
    except Exception as exc:  # noqa: BLE001 - one method failing must not end the comparison
        return _skipped(name, share, f"failed: {type(exc).__name__}: {exc}")
    score, se = test_score(task, np.asarray(y_test), np.asarray(pred))
    fitted = final_model(est)
    status = getattr(fitted, "status_", "optimal") if method is not None else _cart_status(est)
    gap = float(getattr(fitted, "gap_", math.nan))
    size, unit = model_size(fitted)
    return {"method": name, "test_score": score, "test_se": se, "size": size,
            "size_unit": unit, "fit_seconds": seconds,
            "time_limit": share,
            "gap": gap if math.isfinite(gap) else math.nan,
            "params": _params_text(est, fitted), "status": "ok" if status == "optimal"
            else str(status), "note": gap_scope(fitted, gap) if method is not None
            else _cart_note(est), "model": est,
            "warnings": [str(w.message) for w in said
                         if issubclass(w.category, UnseenCategoryWarning)]}


def _warn_test_rows(rows: dict[str, dict[str, Any]]) -> None:
    """Each warning about the test rows (a category not seen in the training part) once,
    with the methods that gave it, instead of once per method in the same words."""
    said: dict[str, list[str]] = {}
    for name, row in rows.items():
        for message in row.get("warnings", []):
            said.setdefault(message.split(": ", 1)[-1], []).append(name)
    for message, names in said.items():
        warnings.warn(f"compare ({', '.join(names)}): the test rows: {message}",
                      UnseenCategoryWarning, stacklevel=3)


def gap_scope(model: Any, gap: float) -> str:
    """What a finite ``gap`` is certified over when that is not every model of the row's
    kind (a 0 % gap of OCT on numeric columns proves nothing about other thresholds), as the
    fitted model states it (``gap_scope_``; "" for a model that does not say)."""
    if not math.isfinite(gap):
        return ""
    return str(getattr(model, "gap_scope_", ""))


def test_score(task: str, y: np.ndarray, pred: np.ndarray) -> tuple[float, float]:
    """(accuracy, sqrt(p (1 - p) / n)) or (R², SE of the mean squared error / var(y))."""
    n = len(y)
    if task == "classification":
        p = float(np.mean(y == pred))
        return p, math.sqrt(p * (1 - p) / n)
    sq = (y.astype(float) - pred.astype(float)) ** 2
    var = float(np.var(y.astype(float)))
    if var == 0:
        return math.nan, math.nan
    return 1 - float(sq.mean()) / var, float(sq.std(ddof=1) / math.sqrt(n)) / var


def _search(est: Any) -> Any:
    """The last step of a pipeline (CART's search), else ``est``."""
    return est[-1] if hasattr(est, "steps") else est


def final_model(est: Any) -> Any:
    """The fitted model behind a search (``best_estimator_``)."""
    est = _search(est)
    return getattr(est, "best_estimator_", est)


def model_size(model: Any) -> tuple[float, str]:
    """(leaves, "leaves") of a tree (of OMT's multiway tree, the leaves that hold training
    rows: its rules), (rules, "rules") of a rule set."""
    if hasattr(model, "get_n_leaves"):
        return float(model.get_n_leaves()), "leaves"
    tree = getattr(model, "tree_", None)
    if tree is not None and hasattr(tree, "n_model_leaves"):  # OMT: its rules, not copies
        return float(tree.n_model_leaves), "leaves"
    if tree is not None and hasattr(tree, "n_leaves"):
        return float(tree.n_leaves), "leaves"
    rules = getattr(model, "rules_", None)
    if rules is not None:
        return float(len(rules)), "rules"
    return math.nan, ""


def _cart_status(est: Any) -> str:
    """"optimal" (shown "ok") when CART's search tried its whole grid, else "time_limit"."""
    search = _search(est)
    return "optimal" if search.n_points_run_ == search.n_points_ else "time_limit"


def _cart_note(est: Any) -> str:
    """How much of CART's grid its share paid for, when not all of it."""
    search = _search(est)
    if search.n_points_run_ == search.n_points_:
        return ""
    return (f"grid stopped at its time limit: {search.n_points_run_} of {search.n_points_} "
            "points tried (shallowest max_depth first)")


PARAM_NAMES = ("depth", "max_depth", "lam", "ccp_alpha")


def _params_text(est: Any, fitted: Any) -> str:
    """``depth=3, lam=0.01``: the chosen parameters of a search, else the model's own."""
    if hasattr(_search(est), "best_params_"):
        params = _search(est).best_params_
    else:
        params = fitted.get_params()
    return ", ".join(f"{k}={_fmt(params[k])}" for k in PARAM_NAMES if k in params)


def _fmt(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)
