"""``optrees fit --task policy --csv FILE --treatment T --outcome Y`` (issue #45): an optimal
policy tree from a CSV of historic treatments and outcomes, printed with each leaf's
treatment, weight and estimated outcome, its status, objective, bound and gap, and the
treatments' shares (against ``--treatment-budget``); ``--out`` saves it, ``--plot`` draws
it.  Everything is checked before the fit."""

from __future__ import annotations

import argparse
import warnings
from typing import Any

from . import cli_data as data
from . import cli_report
from .cli_base import _UsageError, task_estimator
from .cli_survival import LEAF_OPTIONS

SHARED = {"depth": "depth", "lam": "lam", "time_limit": "time_limit", "seed": "random_state",
          "teacher": "teacher", "min_samples_leaf": "min_samples_leaf",
          "max_leaves": "max_leaves"}
"""``fit`` options the policy tree takes -> its parameters (the last two are method options:
absent from the arguments unless given)."""

OPTIONS = ("--treatment", "--outcome", "--propensity", "--teacher", "--treatment-budget")
"""The options only ``--task policy`` takes."""


def add_arguments(fit: argparse.ArgumentParser) -> None:
    """The policy options of ``optrees fit``."""
    fit.add_argument("--treatment", help="--task policy: the column of each row's historic "
                     "treatment (default: none; a policy --dataset: its treatment, propensity "
                     "and outcome columns)")
    fit.add_argument("--outcome", help="--task policy: the outcome column, larger is better "
                     "(default: none)")
    fit.add_argument("--propensity", help="--task policy: the column of the probability of "
                     "each row's own treatment, in (0, 1] (default: estimated by "
                     "cross-fitted logistic regression)")
    fit.add_argument("--teacher", choices=["ipw", "dm", "dr"], default=None,
                     help="--task policy: the outcome estimate of each treatment (default: dr)")
    fit.add_argument("--treatment-budget", default=None, metavar="T=SHARE,...",
                     help="--task policy: most share of the rows' weight given treatment T "
                          "(one T=SHARE per budgeted treatment, depth <= 3; default: none)")


def refuse_outside(args: argparse.Namespace) -> None:
    """One error when a policy option is given without ``--task policy``."""
    for flag in OPTIONS:
        if getattr(args, flag[2:].replace("-", "_")) is not None:
            raise _UsageError(f"{flag} is for --task policy")


def check_options(args: argparse.Namespace, method_flags: list[str]) -> None:
    """The options of a policy fit, before anything is read: ``--csv`` with ``--treatment``
    and ``--outcome``; the options of other tasks are refused by name."""
    if args.dataset is not None:
        if args.csv is not None:
            raise _UsageError("give exactly one of --dataset NAME or --csv FILE")
        from .datasets import list_datasets

        table = list_datasets().set_index("name")
        name = args.dataset.strip().lower().replace("_", "-")
        if name not in table.index or table.loc[name, "task"] != "policy":
            policy = list(table.index[table["task"] == "policy"])
            raise _UsageError(f"--task policy takes a policy dataset ({', '.join(policy)}) or "
                              f"--csv FILE, got --dataset {args.dataset}")
        args.dataset = name
        args.treatment = args.treatment or "treatment"
        args.propensity = args.propensity or "propensity"
        args.outcome = args.outcome or "outcome"
    if args.csv is None and args.dataset is None or args.treatment is None or \
            args.outcome is None:
        raise _UsageError("--task policy needs --csv FILE --treatment COLUMN --outcome COLUMN "
                          "(or --dataset NAME of a policy dataset)")
    if args.target is not None:
        raise _UsageError("--task policy takes --treatment and --outcome, not --target")
    named = [c for c in (args.treatment, args.outcome, args.propensity, args.weight_column)
             if c is not None]
    if len(set(named)) < len(named):
        raise _UsageError("--treatment, --outcome, --propensity and --weight-column must be "
                          "different columns")
    unused = {"--method": args.method, "--class-weight": args.class_weight,
              "--costs": args.costs, "--feature-costs": args.feature_costs,
              "--numeric": args.numeric, "--bins": args.bins, "--plain": args.plain or None,
              "--event": args.event, "--time": args.time}
    for flag in [f for f, value in unused.items() if value is not None] + [
            f for f in method_flags if f not in LEAF_OPTIONS]:
        raise _UsageError(f"{flag} is not used by --task policy (an optimal policy tree)")


def parse_budget(text: str | None, labels: list[str]) -> dict[str, float] | None:
    """``T=SHARE,...`` as ``{treatment: share}``; ``T`` a value of the treatment column
    (``labels``: their texts)."""
    if text is None:
        return None
    out: dict[str, float] = {}
    for part in text.split(","):
        name, eq, share = part.partition("=")
        if not eq or name.strip() not in labels:
            raise _UsageError(f"--treatment-budget {text!r}: give T=SHARE,... with T one of "
                              f"the treatments {labels}")
        try:
            value = float(share)
        except ValueError:
            value = float("nan")
        if not 0.0 <= value <= 1.0:
            raise _UsageError(f"--treatment-budget {text!r}: the share of {name.strip()} must "
                              f"be a number in [0, 1], got {share!r}")
        out[name.strip()] = value
    return out


def load(args: argparse.Namespace) -> tuple[Any, ...]:
    """X, treatments (the codes 0..K-1 of an integer column, else text labels), their texts
    in the estimator's order, outcome, propensity (None without
    ``--propensity``), row weights (None without ``--weight-column``) and the known mean
    outcome of each treatment (a dataset's ``mu_<treatment>`` columns, else None) of
    ``--csv`` or ``--dataset``."""
    import numpy as np
    import pandas as pd

    from ._validation import check_frame

    if args.dataset is not None:
        from .datasets import load_dataset

        X, y = load_dataset(args.dataset)
        df, where = X.assign(**{str(y.name): y}), f"dataset {args.dataset}"
    else:
        df = data.csv_of(args)
        where = f"{args.csv} (separator {df.attrs['csv_sep']!r})"
    for flag, column in (("--treatment", args.treatment), ("--outcome", args.outcome),
                         ("--propensity", args.propensity),
                         ("--weight-column", args.weight_column)):
        if column is not None and column not in df.columns:
            raise _UsageError(f"{flag} column {column!r} not in {where} (columns: "
                              f"{list(df.columns)}){data.no_header_hint(df)}")
    df = data.drop_columns(df, args.drop, {c: f"the {flag} column" for flag, c in (
        ("--treatment", args.treatment), ("--outcome", args.outcome),
        ("--propensity", args.propensity), ("--weight-column", args.weight_column))
        if c is not None})
    df = data.check_rows(df, args.dropna)
    w = None if args.weight_column is None else data.row_weights(df, args.weight_column)
    raw = df[args.treatment]
    if raw.isna().any():
        raise _UsageError(f"--treatment column {args.treatment!r} has missing values")
    codes = raw.to_numpy()
    if not (pd.api.types.is_integer_dtype(raw.dtype)
            and sorted(set(codes.tolist())) == list(range(len(set(codes.tolist()))))):
        codes = raw.astype(str).to_numpy(dtype=object)  # text labels: the tree shows them
    values = [str(v) for v in np.unique(codes)]  # the estimator's order (treatments_)
    truth = [f"mu_{v}" for v in values] if args.dataset is not None else []
    truth = truth if all(c in df.columns for c in truth) else []
    used = [c for c in (args.treatment, args.outcome, args.propensity, args.weight_column)
            if c is not None]
    X = df.drop(columns=used + truth)
    check_frame(X)
    mu = None if args.propensity is None else df[args.propensity].to_numpy()
    return (X, codes, values, df[args.outcome].to_numpy(), mu, w,
            df[truth].to_numpy(dtype=float) if truth else None)


def build(args: argparse.Namespace, budget: dict[Any, float] | None) -> Any:
    """The policy tree with the options given, its parameters checked (the message names
    the option)."""
    from .estimators.policy import OptimalPolicyTree

    return task_estimator(OptimalPolicyTree, args, SHARED, treatment_budget=budget,
                          verbose=args.verbose)


def shares_line(est: Any, labels: list[str], budget: dict[str, float] | None) -> str:
    """``treatment shares : A 0.600, B 0.200 (budget 0.2)`` on the training rows
    (``budget``: ``--treatment-budget``'s shares by label)."""
    budget = budget or {}
    parts = [f"{labels[k]} {s:.3f}" + (f" (budget {budget[labels[k]]:g})"
                                        if labels[k] in budget else "")
             for k, s in enumerate(est.treatment_shares_)]
    return "treatment shares: " + ", ".join(parts)


def cmd_fit_policy(args: argparse.Namespace, method_flags: list[str]) -> int:
    """Check, read, fit and report (the tree, status, objective, bound, gap, shares, time)."""
    import numpy as np

    from .estimators import TimeLimitWarning
    from .estimators.policy_budget import check_budget

    check_options(args, method_flags)
    build(args, None)  # the shared options, checked before the data is read
    X, t, labels, y, mu, w, truth = load(args)
    by_label = parse_budget(args.treatment_budget, labels)
    # the estimator's keys: the labels of text treatments, the codes of 0..K-1 ones
    budget = by_label if by_label is None or t.dtype == object else \
        {labels.index(k): v for k, v in by_label.items()}
    check_budget(budget, len(labels), labels if t.dtype == object else None)
    est = build(args, budget)
    p = est.get_params()
    print(f"policytree: depth {p['depth']}, lam {p['lam']:g}, teacher {p['teacher']}, time "
          f"limit {p['time_limit']:g}s; fit on all {len(t)} rows (a policy's value on held-out "
          "rows needs their counterfactuals)")
    if truth is not None:
        print(f"features        : {', '.join(map(str, X.columns))}")
    print("treatments      : " + ", ".join(labels) + "\n", flush=True)
    with warnings.catch_warnings():  # the status line reports a time limit
        warnings.simplefilter("ignore", TimeLimitWarning)
        est.fit(X, t, y, propensity=mu, sample_weight=w)  # a bad budget: one error line
    print(est.export_text())
    print()
    print("\n".join(cli_report.mip_summary(est)))
    print(f"policy value    : {est.policy_value_:.6g} (the teacher's estimated mean outcome)")
    print(shares_line(est, labels, by_label))
    if truth is not None:  # a dataset with known counterfactuals
        given = [labels.index(str(v)) for v in est.predict(X)]
        got = truth[np.arange(len(t)), given]
        print(f"true regret     : {np.mean(truth.max(axis=1) - got):.6g} per row; best "
              f"treatment for {np.mean(got >= truth.max(axis=1) - 1e-12):.1%} of the rows "
              f"(the data's known mean outcomes mu_*)")
    return cli_report.finish(est, args)
