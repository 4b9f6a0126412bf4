"""``optrees compare DATA.csv --target y``: :func:`optrees.compare` on a CSV file read as
``optrees fit --csv`` reads it (same errors), the table printed."""

from __future__ import annotations

import argparse
import time
from typing import Any

from .cli_base import DROPNA_HELP, NA_HELP, NAMES_HELP, SEP_HELP, _HelpFormatter, _UsageError

REPORT_SECONDS = (1.0, 0.5)
"""The time kept back from ``--budget`` for the ``--out`` report: seconds for the page and its
score figure (matplotlib's import included), and per row's picture (measured on a 2-core
machine: 0.1-1.3 s CPU each, CART's deep trees the slowest; 4-6 s for eleven rows)."""


def add_compare_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``compare`` sub-command to an ``argparse`` subparsers object; return it."""
    p = subparsers.add_parser(
        "compare", formatter_class=_HelpFormatter,
        help="fit every method of the task and tuned CART on a CSV within a time budget; "
             "print the test scores, sizes, fit times and gaps")
    p.add_argument("csv", help="CSV file with a header row, or --names")
    p.add_argument("--target", required=True, help="target column")
    p.add_argument("--task", choices=["auto", "classification", "regression"], default="auto",
                   help="auto: a regression when the target is numeric and not all integers "
                        "or has more than 30 distinct integers")
    p.add_argument("--budget", type=float, default=300.0,
                   help="seconds for the whole command (reading the CSV, the fits and the --out "
                        "report); each method in turn gets what is left of the fits' share "
                        "divided by the methods still to run")
    p.add_argument("--methods", default=None,
                   help="comma-separated method names (default: every method of the task "
                        "but robust, which answers a worst case under your own budget; CART "
                        "is always compared)")
    p.add_argument("--cv", type=int, default=5, help="folds of the *CV estimators and CART")
    p.add_argument("--test-size", type=float, default=0.25,
                   help="share of the rows held out for the test scores")
    p.add_argument("--seed", type=int, default=0, help="random seed (split, folds, solvers)")
    p.add_argument("--out", default=None, metavar="REPORT.html",
                   help="also write a self-contained HTML report: the data, the table, test "
                        "score against size, each model's picture and text (default: none)")
    p.add_argument("--sep", default=None, help=SEP_HELP)
    p.add_argument("--dropna", action="store_true", help=DROPNA_HELP)
    p.add_argument("--na", action="append", default=None, metavar="MARKER", help=NA_HELP)
    p.add_argument("--names", default=None, metavar="NAME,...", help=NAMES_HELP)
    p.add_argument("--drop", default=None, metavar="COL,...",
                   help="columns of the CSV that are not features (an identifier, a leak; "
                        "default: none)")
    return p


def table_text(table: Any) -> str:
    """The table as printed: the score with its standard error, size, seconds, gap."""
    metric = table.attrs["metric"]
    lines = []
    for r in table.itertuples(index=False):
        score = "" if r.status in ("skipped", "failed") else \
            f"{r.test_score:.4f} ± {r.test_se:.4f}"
        size = "" if r.size != r.size else f"{r.size:.0f} {r.size_unit}"
        seconds = "" if r.fit_seconds != r.fit_seconds else f"{r.fit_seconds:.1f}"
        gap = "" if r.gap != r.gap else f"{r.gap:.2%}"
        status = r.note if r.status in ("skipped", "failed") else \
            f"{r.status}; {r.note}" if r.note else r.status
        lines.append([r.method, score, size, seconds, f"{r.time_limit:.1f}", gap, r.params,
                      status])
    header = ["method", f"test {metric} ± SE", "size", "fit s", "share s", "gap", "chosen",
              "status"]
    widths = [max(len(str(row[i])) for row in [header, *lines]) for i in range(len(header))]
    return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)
                               ).rstrip() for row in [header, *lines])


def cmd_compare(args: argparse.Namespace) -> int:
    """Read the CSV as ``optrees fit`` does, check the options, compare, print the table
    (and write the report to ``--out``)."""
    started = time.perf_counter()
    from . import cli_data as data
    from .comparison import compare

    if not args.budget > 0:
        raise _UsageError(f"--budget must be a number of seconds > 0, got {args.budget:g}")
    data.check_out(args.out)
    methods = None if args.methods is None else \
        [m.strip() for m in args.methods.split(",") if m.strip()]
    fit_like = argparse.Namespace(dataset=None, csv=args.csv, target=args.target,
                                  sep=args.sep, weight_column=None, drop=args.drop,
                                  dropna=args.dropna, na=args.na,
                                  names=args.names)
    X, y = data.load_data(fit_like, task=None)
    # the budget covers the whole command: reading the data, the fits and the report
    reserve = report_reserve(args.task, y, methods, args.budget) if args.out is not None else 0.0
    left = args.budget - (time.perf_counter() - started) - reserve
    if left <= 0:
        raise _UsageError(f"--budget {args.budget:g}s is used up by reading the data and "
                          f"the report's share ({reserve:.1f}s) before any fit: give more")
    table = compare(X, y, task=args.task, methods=methods, time_budget=left,
                    cv=args.cv, test_size=args.test_size, random_state=args.seed)
    table.attrs["time_budget"] = args.budget
    print(f"{table.attrs['task']} of {args.target!r} on {args.csv}: {len(X)} rows, "
          f"{len(table.attrs['test_rows'])} held out; budget {args.budget:g}s"
          + (f" ({reserve:.1f}s of it kept for the report)" if reserve else "")
          + f", fits took {table.attrs['seconds']:.1f}s\n")
    if table.attrs.get("note"):
        print(f"note: {table.attrs['note']}\n")
    print(table_text(table))
    if args.out is not None:
        from .comparison_report import report_html
        from .io import write_atomic

        write_atomic(args.out, report_html(table, X, y, title=f"optrees compare: {args.csv}, "
                                                              f"target {args.target}"))
        print(f"report written to {args.out}")
    print(f"the whole command took {time.perf_counter() - started:.1f}s")
    return 0


def report_reserve(task: str, y: Any, methods: list[str] | None, budget: float) -> float:
    """Seconds kept back from ``budget`` for the report: ``REPORT_SECONDS`` for the rows the
    comparison will have (CART and the chosen methods of the task), at most half the budget
    (a smaller budget than the report needs still fits something, and ends late)."""
    import pandas as pd

    from .comparison import _methods, _resolve_task

    rows = 1 + len(_methods(_resolve_task(task, pd.Series(y)), methods))
    return min(REPORT_SECONDS[0] + REPORT_SECONDS[1] * rows, budget / 2)

