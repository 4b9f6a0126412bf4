"""``optrees fit --task survival --csv FILE --event E --time T`` (or ``--dataset NAME`` of a
survival dataset; issue #45): an optimal survival tree, printed with its status, objective,
bound and gap, and Harrell's C-index on the training and test rows.  Everything is checked
before the fit."""

from __future__ import annotations

import argparse
import warnings
from typing import Any

from . import cli_data as data
from . import cli_report
from .cli_base import _UsageError, task_estimator

SHARED = {"depth": "depth", "lam": "lam", "time_limit": "time_limit", "seed": "random_state",
          "min_samples_leaf": "min_samples_leaf", "max_leaves": "max_leaves"}
"""Shared ``fit`` options the survival tree takes -> its parameters (the last two are method
options: absent from the arguments unless given)."""

LEAF_OPTIONS = ("--min-samples-leaf", "--max-leaves")
"""Method options of the classification trees the survival and policy trees take too."""


def check_options(args: argparse.Namespace, method_flags: list[str]) -> None:
    """The options of a survival fit, before anything is read: ``--csv`` with ``--event``
    and ``--time``; options of the classification methods (``method_flags``: the method
    options given) are refused by name."""
    if args.dataset is not None:
        if args.csv is not None:
            raise _UsageError("give exactly one of --dataset NAME or --csv FILE")
        if args.event is not None or args.time is not None:
            raise _UsageError("--event and --time are for --csv; a survival dataset names "
                              "its own columns")
        if data.dataset_task(args.dataset) != "survival":
            raise _UsageError(f"--dataset {args.dataset} is not a survival dataset (event "
                              "and time); `optrees datasets` lists each dataset's task")
    elif args.csv is None or args.event is None or args.time is None:
        raise _UsageError("--task survival needs --csv FILE --event COLUMN --time COLUMN, "
                          "or --dataset NAME of a survival dataset")
    if args.target is not None:
        raise _UsageError("--task survival takes --event and --time, not --target")
    if args.csv is not None and args.event == args.time:
        raise _UsageError("--event and --time must be two different columns")
    unused = {"--method": args.method, "--class-weight": args.class_weight,
              "--costs": args.costs, "--feature-costs": args.feature_costs,
              "--numeric": args.numeric, "--bins": args.bins, "--plain": args.plain or None}
    for flag in [f for f, value in unused.items() if value is not None] + [
            f for f in method_flags if f not in LEAF_OPTIONS]:
        raise _UsageError(f"{flag} is not used by --task survival (an optimal survival tree "
                          "over every threshold)")


def build(args: argparse.Namespace) -> Any:
    """The survival tree with the shared options given, its parameters checked (the message
    names the option)."""
    from .estimators.survival import OptimalSurvivalTree

    return task_estimator(OptimalSurvivalTree, args, SHARED, verbose=args.verbose)


def load(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    """X, y (event, time) and the row weights (None without ``--weight-column``) of
    ``--csv``, checked as the fit checks them."""
    from ._validation import check_frame
    from .estimators.survival import check_survival_target

    if args.dataset is not None:
        from .datasets import load_dataset

        X, target = load_dataset(args.dataset)
        df = X.assign(**{name: target[name] for name in target.dtype.names})
        args.event, args.time = target.dtype.names
    else:
        df = data.csv_of(args)
    for flag, column in (("--event", args.event), ("--time", args.time),
                         ("--weight-column", args.weight_column)):
        if column is not None and column not in df.columns:
            where = (f"{args.csv} (separator {df.attrs['csv_sep']!r})" if args.dataset is None
                     else f"dataset {args.dataset}")
            raise _UsageError(f"{flag} column {column!r} not in {where}; columns: "
                              f"{list(df.columns)}{data.no_header_hint(df)}")
    df = data.drop_columns(df, args.drop, {c: f"the {flag} column" for flag, c in (
        ("--event", args.event), ("--time", args.time), ("--weight-column", args.weight_column))
        if c is not None})
    df = data.check_rows(df, args.dropna)
    w = None if args.weight_column is None else data.row_weights(df, args.weight_column)
    X = df.drop(columns=[c for c in (args.event, args.time, args.weight_column)
                         if c is not None])
    check_frame(X)
    y = check_survival_target(df[[args.event, args.time]], len(df))
    return X, y, w


def split(X: Any, y: Any, w: Any, test_size: float, seed: int) -> list[Any]:
    """``[X_train, X_test, y_train, y_test, w_train, w_test]`` (test parts None when
    ``test_size`` is 0)."""
    from sklearn.model_selection import train_test_split

    if test_size == 0:
        return [X, None, y, None, w, None]
    arrays = [X, y] if w is None else [X, y, w]
    try:
        parts = train_test_split(*arrays, test_size=test_size, random_state=seed)
    except ValueError as exc:
        raise _UsageError(f"cannot split {len(y)} rows with --test-size {test_size}: "
                          f"{exc}") from exc
    return parts if w is not None else [*parts, None, None]


def c_index_line(name: str, est: Any, X: Any, y: Any) -> str:
    """``train C-index   : 0.7012  (n=300, 210 events)``."""
    return (f"{name + ' C-index':<16}: {est.score(X, y):.4f}  (n={len(y)}, "
            f"{int(y[:, 0].sum())} events)")


def cmd_fit_survival(args: argparse.Namespace, method_flags: list[str]) -> int:
    """Check, fit and report (the tree, status, objective, bound, gap, C-index, time)."""
    from .estimators import TimeLimitWarning

    check_options(args, method_flags)
    est = build(args)
    X, y, w = load(args)
    X_tr, X_te, y_tr, y_te, w_tr, _ = split(X, y, w, args.test_size, args.seed)
    p = est.get_params()
    print(f"survtree: depth {p['depth']}, lam {p['lam']:g}, time limit "
          f"{p['time_limit']:g}s\n", flush=True)
    with warnings.catch_warnings():  # the status line reports a time limit
        warnings.simplefilter("ignore", TimeLimitWarning)
        est.fit(X_tr, y_tr, sample_weight=w_tr)
    print(est.export_text())
    print()
    print("\n".join(cli_report.mip_summary(est)))
    print("objective is    : survival loss / loss of a single leaf + lam x leaves; the bound "
          "is a lower bound")
    print(c_index_line("train", est, X_tr, y_tr))
    if X_te is not None and len(y_te):
        print(c_index_line("test", est, X_te, y_te))
    return cli_report.finish(est, args)
