"""Command line: ``optrees demo | fit | predict | plot | datasets | bench | compare``.

Start-up imports only the standard library; each command imports what it needs, so that
``optrees --help`` and ``optrees datasets`` do not wait for scikit-learn and the solvers.
Errors (unknown dataset, missing column, bad parameter) print one line and exit with code 2,
before any fitting starts and without leaving a partial file behind.

(Over 400 lines: the parser, the checks of every option against the method and the
commands of one command line; reports are in ``cli_report``, bench options in ``cli_bench``.)
"""

from __future__ import annotations

import argparse
import inspect
import os
import re
import sys
import time
from collections.abc import Sequence
from typing import Any

from . import __version__, cli_policy, cli_report
from . import cli_data as data
from .cli_base import (
    DROPNA_HELP,
    NA_HELP,
    NAMES_HELP,
    SEP_HELP,
    _HelpFormatter,
    _Parser,
    _UsageError,
)
from .cli_bench import add_bench_parser
from .cli_compare import add_compare_parser
from .cli_model import cmd_plot, cmd_predict
from .cli_rashomon import add_rashomon_parser, cmd_rashomon
from .registry import cli_methods

METHODS: dict[str, str] = {name: m.class_name for name, m in cli_methods().items()}
"""``--method`` -> estimator class name (from :mod:`optrees.registry`)."""

DEFAULT_METHOD: dict[str, str] = {"classification": "benders", "regression": "regtree"}
"""The method of each ``--task`` when ``--method`` is not given."""

# ------------------------------------------------------------------------------- fit options
GENERAL: dict[str, tuple[str, ...]] = {
    "depth": ("depth", "max_depth"),
    "lam": ("lam",),
    "time_limit": ("time_limit",),
    "seed": ("random_state",),
    "verbose": ("verbose",),
}
"""Options every method shares (written out below, with the command line's own defaults)
-> the estimator parameters they set; a method takes the first one it has."""

OFF: dict[str, Any] = {"lam": 0.0}
"""Shared option values that mean "off", accepted by a method without that parameter."""

OWN: tuple[str, ...] = ("seed",)
"""Shared options the command uses itself (``--seed`` draws the test rows), accepted by a
method without their parameter (the robust trees' exact search has no randomness)."""

PLAIN: tuple[str, ...] = ("polishing", "path_bound_cuts", "split_bound_cuts", "subtree_search")
"""What ``--plain`` turns off (each of them given explicitly wins)."""

RESERVED = {"--depth", "--lam", "--time-limit", "--seed", "--verbose", "--quiet", "--numeric",
            "--bins", "--plain", "--class-weight", "--weight-column", "--costs", "--drop",
            "--dropna", "--na", "--names", "--feature-costs"}
"""Flags defined here; the method options (:mod:`optrees.cli_options`) are the others."""


def _estimator_class(method: str) -> type:
    """The estimator class of ``--method`` (this imports scikit-learn and the solvers)."""
    return cli_methods()[method].load()


def _takes(cls: type, name: str) -> bool:
    """Whether ``cls`` has the parameter ``name`` (in its constructor or fixed)."""
    return name in inspect.signature(cls).parameters or hasattr(cls, name)


def _fits_with_weights(cls: type) -> bool:
    """Whether ``cls.fit`` takes ``sample_weight``."""
    return "sample_weight" in inspect.signature(cls.fit).parameters


def _or(names: Sequence[str]) -> str:
    """``a, b or c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def _unused(flag: str, method: str, users: Sequence[str]) -> _UsageError:
    hint = f"; you need --method {_or(list(users))}" if users else ""
    return _UsageError(f"{flag} is not used by --method {method}{hint}")


def _general_params(args: argparse.Namespace, cls: type) -> dict[str, Any]:
    """Parameters set by the shared options (not given: the method's own default); a value
    for an option the method has no parameter for is refused, unless it means "off"
    (:data:`OFF`)."""
    defaults = vars(build_parser().parse_args(["fit"]))  # the shared options only
    kwargs: dict[str, Any] = {}
    for dest, names in GENERAL.items():
        name = next((n for n in names if _takes(cls, n)), None)
        value = getattr(args, dest)
        if name is not None and name in inspect.signature(cls).parameters:
            if value is not None or defaults[dest] is not None:  # None: the method's default
                kwargs[name] = value
        elif dest not in OWN and value not in (defaults[dest], OFF.get(dest)) and (
                name is None or value != getattr(cls, name)):
            # no such parameter, or one the method fixes (BinOCT's lam = 0)
            users = [m for m in METHODS if any(
                n in inspect.signature(_estimator_class(m)).parameters for n in names)]
            raise _unused("--" + dest.replace("_", "-"), args.method, users)
    binarize = (args.numeric, args.bins) != (None, None)  # else the estimator's "auto"
    if binarize and _takes(cls, "binarizer"):
        from .encoding.binarize import Binarizer

        kwargs["binarizer"] = Binarizer(numeric=args.numeric or "thresholds",
                                        n_bins=5 if args.bins is None else args.bins)
    elif binarize:
        flag = "--numeric" if args.numeric is not None else "--bins"
        raise _unused(flag, args.method, [m for m in METHODS
                                          if _takes(_estimator_class(m), "binarizer")])
    if args.plain:
        if not any(_takes(cls, n) for n in PLAIN):
            raise _unused("--plain", args.method, [m for m in METHODS if any(
                _takes(_estimator_class(m), n) for n in PLAIN)])
        kwargs.update(dict.fromkeys([n for n in PLAIN if _takes(cls, n)], False))
    return kwargs


def _method_params(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, str]]:
    """Parameters set by the method options, and the option of each (for messages)."""
    from .cli_options import given, method_options, refuse_without_fairness

    options = method_options(RESERVED)
    kwargs: dict[str, Any] = {}
    flags: dict[str, str] = {}
    typed = given(args, options)
    for flag, value in typed.items():
        use = options[flag].users.get(args.method)
        if use is None:
            raise _unused(flag, args.method, list(options[flag].users))
        if use.fixed:
            if value != use.default:
                users = [m for m, u in options[flag].users.items() if not u.fixed]
                raise _UsageError(f"{_unused(flag, args.method, users)} (it always uses "
                                  f"{use.name}={use.default!r})")
            continue
        kwargs[use.name] = value
        flags[use.name] = f"{flag} {_word(value)}"
    refuse_without_fairness(typed, args.method)
    return kwargs, flags


def _word(value: Any) -> str:
    return {True: "on", False: "off", None: "none"}.get(value, str(value)) \
        if isinstance(value, bool) or value is None else str(value)


def _check_params(est: Any, args: argparse.Namespace, flags: dict[str, str]) -> None:
    """The estimator's declared parameter checks, before any data is loaded; the message
    names the option: ``--seed -1: random_state must be ...``."""
    from ._params import validate_params
    from ._validation import OptreesInputError

    for dest, names in GENERAL.items():
        for name in names:
            flags.setdefault(name, f"--{dest.replace('_', '-')} {getattr(args, dest)}")
    try:
        validate_params(est)
        binarizer = getattr(est, "binarizer", None)
        if hasattr(binarizer, "get_params"):
            validate_params(binarizer)
    except OptreesInputError as exc:
        message = str(exc)
        name = re.match(r"\w*", message).group()  # "depth must be ...", "depth=50 is ..."
        if name == "n_bins":
            raise _UsageError(f"--bins {args.bins}: {message}") from exc
        if name in flags:
            raise _UsageError(f"{flags[name]}: {message}") from exc
        raise


def _build_estimator(args: argparse.Namespace) -> Any:
    """The estimator of ``--method`` with the options given; every option and parameter is
    checked here, before any data is loaded."""
    cls = _estimator_class(args.method)
    method_kwargs, flags = _method_params(args)
    kwargs = {**_general_params(args, cls), **method_kwargs}
    uses = {"--class-weight": (args.class_weight, lambda c: _takes(c, "class_weight")),
            "--weight-column": (args.weight_column, _fits_with_weights),
            "--costs": (args.costs, lambda c: _takes(c, "misclassification_costs")),
            "--feature-costs": (args.feature_costs, lambda c: _takes(c, "feature_costs"))}
    for flag, (value, used_by) in uses.items():
        if value is not None and not used_by(cls):
            raise _unused(flag, args.method,
                          [m for m in METHODS if used_by(_estimator_class(m))])
    est = cls(**kwargs)
    _check_params(est, args, flags)
    if getattr(args, "fairness", None) is not None and getattr(args, "sensitive", None) is None:
        raise _UsageError("--fairness needs --sensitive COLUMN (the sensitive attribute)")
    return est


# ---------------------------------------------------------------------------------- commands
def cmd_demo(args: argparse.Namespace) -> int:
    """BendersOCT of depth 2 on monk1, then a regression tree of depth 2 on liver-disorders
    (each 75 % train / 25 % test)."""
    from .cli_data import split_rows
    from .datasets import load_dataset
    from .estimators import BendersOCTClassifier, OptimalTreeRegressor

    X, y = load_dataset("monk1")
    parts = split_rows(X, y, test_size=0.25, seed=0, stratify=True)
    print("BendersOCT, depth 2, on monk1 (75% train / 25% test)\n")
    est = BendersOCTClassifier(depth=2, lam=0.0, time_limit=25, random_state=0)
    cli_report.fit_quietly(est, parts[0], parts[2])
    cli_report.report_tree(est, parts, cli_report.mip_summary)
    X, y = load_dataset("liver-disorders")
    parts = split_rows(X, y, test_size=0.25, seed=0)
    print("\nOptimalTreeRegressor, depth 2, at least 10 rows per leaf, on liver-disorders "
          "(target drinks; 75% train / 25% test)\n")
    reg = OptimalTreeRegressor(depth=2, min_samples_leaf=10, time_limit=25, random_state=0)
    cli_report.fit_quietly(reg, parts[0], parts[2])
    cli_report.report_tree(reg, parts, cli_report.regression_summary)
    return 0


def _settings_line(args: argparse.Namespace, est: Any) -> str:
    """``bendoct: depth 3, lam 0.01, time limit 60s``: the shared settings the fit runs with
    (the method's own defaults where an option is not given)."""
    params = est.get_params()
    parts = []
    for dest, names in GENERAL.items():
        name = next((n for n in names if n in params), None)
        if name is None or dest in ("seed", "verbose"):
            continue
        value = params[name]
        text = "none" if value is None else f"{value:g}"
        unit = "s" if dest == "time_limit" and value is not None else ""
        parts.append(f"{dest.replace('_', ' ')} {text}{unit}")
    return f"{args.method}: {', '.join(parts)}"


def fit_verbosity(args: argparse.Namespace) -> int:
    """``verbose`` of ``optrees fit``: 0 with ``-q``, the count of ``-v`` when given, else 1
    when the output is a terminal (progress lines while a person waits) and 0 otherwise
    (pipes, files and tests keep their output)."""
    if args.quiet:
        return 0
    if args.verbose:
        return args.verbose
    return 1 if sys.stdout.isatty() else 0


def _task_of(args: argparse.Namespace) -> str | None:
    """The task ``--task`` or ``--method`` fixes (checked to agree); None when neither is
    given: the target decides (:func:`optrees._validation.regression_reason`)."""
    if args.method is None:
        return args.task
    task = cli_methods()[args.method].task
    if args.task is not None and args.task != task:
        others = [n for n, m in cli_methods().items() if m.task == args.task]
        raise _UsageError(f"--method {args.method} is a {task} method; --task {args.task} "
                          f"takes --method {_or(others)}")
    return task


def _detect_task(args: argparse.Namespace) -> tuple[Any, Any, str]:
    """Neither ``--task`` nor ``--method`` given: load the data and read the task off the
    target (a one-line message when it is a regression); ``args.method`` becomes its
    method."""
    from ._validation import regression_reason

    X, y = data.load_data(args, task=None)
    why = regression_reason(y)
    task = "regression" if why else "classification"
    args.method = DEFAULT_METHOD[task]
    if why:
        name = args.target if args.csv else getattr(y, "name", "y")
        print(f"target {name!r} is {why}: a regression (--task regression); give --task "
              "classification to treat its values as classes", flush=True)
    return X, y, task


def _note_classes_of_numbers(args: argparse.Namespace, y: Any, task: str) -> None:
    """A classifier chosen by ``--method`` alone on a target that reads as a regression:
    say that each of its values is a class (attrition's MonthlyIncome: 1,349 classes, a
    training accuracy of 0.0027, without a word)."""
    from ._validation import regression_reason

    if task == "classification" and args.task is None:
        why = regression_reason(y)
        if why:
            name = args.target if args.csv else getattr(y, "name", "y")
            print(f"optrees: note: target {name!r} is {why}: --method {args.method} takes "
                  "each value as a class; --task regression fits a regression tree",
                  file=sys.stderr, flush=True)


def cmd_fit(args: argparse.Namespace) -> int:
    """Fit ``--method`` (or the method of ``--task``, or of the task the target reads as);
    options, parameters, data and output paths are all checked before the fit."""
    data.check_out(args.out)
    data.check_picture(args.plot)
    args.verbose = fit_verbosity(args)
    task_of_data = None if args.dataset is None else data.dataset_task(args.dataset)
    if task_of_data in ("survival", "policy"):  # the dataset's target needs its task
        if args.task not in (None, task_of_data):
            raise _UsageError(f"--dataset {args.dataset} is a {task_of_data} dataset: use "
                              f"--task {task_of_data}")
        args.task = task_of_data
    from .cli_options import given, implied_task, method_options

    if args.task == "policy":
        return cli_policy.cmd_fit_policy(args, list(given(args, method_options(RESERVED))))
    cli_policy.refuse_outside(args)
    if args.task == "survival":
        from .cli_survival import cmd_fit_survival

        return cmd_fit_survival(args, list(given(args, method_options(RESERVED))))
    if args.event is not None or args.time is not None:
        raise _UsageError("--event and --time are for --task survival")
    data.check_sources(args)
    implied = None if args.task or args.method else implied_task(args, RESERVED)
    if implied is not None:
        args.task = implied[0]
        print(f"{implied[1]} is a {implied[0]} option: --task {implied[0]}", flush=True)
    task = _task_of(args)
    args.method = args.method or DEFAULT_METHOD[task or "classification"]
    est = _build_estimator(args)  # every option checked before any data is loaded
    if task is None:
        X, y, task = _detect_task(args)
        if args.method != DEFAULT_METHOD["classification"]:
            est = _build_estimator(args)  # the options, checked for the regression too
        data.check_target_of(task, y, len(X))
    else:
        X, y = data.load_data(args, task)
        _note_classes_of_numbers(args, y, task)
    if args.class_weight is not None:
        est.set_params(class_weight=data.class_weight(args.class_weight, y))
    if args.costs is not None:
        est.set_params(misclassification_costs=data.costs(args.costs, y))
    if args.feature_costs is not None:
        est.set_params(feature_costs=data.feature_costs(args.feature_costs, X))
    if getattr(args, "positive_class", None) is not None:
        est.set_params(positive_class=data.label(args.positive_class, y, "--positive-class"))
    parts = data.split(X, y, args.test_size, args.seed, task)
    weights = data.pop_weights(args, parts)
    check = getattr(est, "check_features", None)
    if check is not None:  # e.g. robust trees: integer columns only, said before the fit
        check(parts[0])
    print(_settings_line(args, est) + "\n", flush=True)
    cli_report.fit_quietly(est, parts[0], parts[2], None if weights is None else weights[0])
    if args.method in ("rug", "rux"):  # rule sets
        cli_report.report_rug(est, parts, getattr(args, "sensitive", None), weights)
    else:
        cli_report.report_tree(est, parts, cli_report.SUMMARIES.get(args.method,
                                                                  cli_report.mip_summary),
                               weights)
    cli_report.save(est, args.out, args.target if args.csv else getattr(y, "name", None))
    if args.plot:
        est.plot(path=args.plot)
        print(f"picture written to {args.plot}")
    return 0


def cmd_datasets(args: argparse.Namespace) -> int:
    """The dataset table: shapes from the registry, availability from the data directory."""
    import pandas as pd

    from .datasets import list_datasets

    with pd.option_context("display.max_rows", None, "display.width", 120):
        print(list_datasets(args.data_dir).to_string(index=False))
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    """``optrees bench``: see :mod:`optrees.bench.cli`."""
    from .bench.cli import cmd_bench as run

    return run(args)


def cmd_compare(args: argparse.Namespace) -> int:
    """``optrees compare``: see :mod:`optrees.cli_compare`."""
    from .cli_compare import cmd_compare as run

    return run(args)


# ------------------------------------------------------------------------------------ parser

def _method_defaults(dest: str, read: bool) -> str:
    """``the method's (bendoct / omt: 3; flow / benders: 2)``: the estimators' defaults of
    one shared option, read from their constructors when ``read`` (which imports them)."""
    if not read:
        return "the method's"
    by_value: dict[str, list[str]] = {}
    for method in METHODS:
        params = inspect.signature(_estimator_class(method)).parameters
        name = next((n for n in GENERAL[dest] if n in params), None)
        if name is not None:
            value = params[name].default
            by_value.setdefault("none" if value is None else f"{value:g}", []).append(method)
    return "the method's (" + "; ".join(f"{' / '.join(ms)}: {v}"
                                        for v, ms in by_value.items()) + ")"

def _add_fit_parser(sub: Any, method_options: bool) -> None:
    """The ``fit`` sub-command: data options, the options every method shares, and (with
    ``method_options``, which imports the estimators) each method's own options."""
    fit = sub.add_parser("fit", help="fit an optimal tree or rule set and print it",
                         formatter_class=_HelpFormatter)
    fit.add_argument("--dataset", help="bundled or data-dir dataset name (see `optrees "
                     "datasets`); give it or --csv (default: none)")
    fit.add_argument("--csv", help="CSV file with a header row, or --names (default: none)")
    fit.add_argument("--target", help="target column of --csv (default: none)")
    fit.add_argument("--method", choices=sorted(METHODS), default=None,
                     help="; ".join(f"{n}: {m.summary}" for n, m in cli_methods().items())
                     + " (default: benders, or regtree for a regression)")
    fit.add_argument("--task", choices=["classification", "regression", "survival", "policy"],
                     default=None,
                     help="what the target is: classes to predict, or a number (regression: "
                          "--method regtree); default: --method's, else a regression when "
                          "the target is numeric and not all integers or has more than "
                          "30 distinct integers (a one-line message says so); survival: "
                          "an optimal survival tree of --csv with --event and --time; "
                          "policy: an optimal policy tree with --treatment and --outcome")
    fit.add_argument("--event", help="--task survival: the event column of --csv (1 or "
                     "true: observed, 0 or false: censored; default: none)")
    fit.add_argument("--time", help="--task survival: the time column of --csv (default: "
                     "none)")
    cli_policy.add_arguments(fit)
    fit.add_argument("--depth", type=int, default=None, help="tree depth (rug: of the pricing "
                     "trees, i.e. conditions per rule); default: "
                     + _method_defaults("depth", method_options))
    fit.add_argument("--lam", type=float, default=None, help="complexity penalty; default: "
                     + _method_defaults("lam", method_options))
    fit.add_argument("--time-limit", type=float, default=None, help="seconds; default: "
                     + _method_defaults("time_limit", method_options))
    fit.add_argument("--test-size", type=float, default=0.25,
                     help="share of the rows held out for the test accuracy")
    fit.add_argument("--seed", type=int, default=0, help="random seed (split and solver)")
    fit.add_argument("--numeric", choices=["thresholds", "buckets"], default=None,
                     help="binarization of numeric columns (QT-k or QB-k); default: every "
                          "threshold for bendoct / benders / flow with the subtree search (depth "
                          "<= 4), else QT-5")
    fit.add_argument("--bins", type=int, default=None, help="k of QT-k / QB-k (default 5)")
    fit.add_argument("--class-weight", default=None,
                     help="'balanced' or LABEL=WEIGHT,... (trees: the weight of each class's "
                          "rows; default: 1 each)")
    fit.add_argument("--costs", default=None, metavar="FILE.csv",
                     help="misclassification costs (bendoct, benders, flow): a CSV matrix, "
                          "true labels as first column, predicted labels as header, or three "
                          "columns true,predicted,cost (pairs not given: 0 on the diagonal, "
                          "else 1); the tree minimises the total cost (default: accuracy)")
    fit.add_argument("--feature-costs", default=None, metavar="COL=COST,...",
                     help="cost each row pays for each distinct column tested on its path "
                          "(bendoct, benders, flow; in units of one misclassified row; "
                          "default: none)")
    fit.add_argument("--weight-column", default=None,
                     help="column of row weights (>= 0), not a feature (default: none)")
    fit.add_argument("--drop", default=None, metavar="COL,...",
                     help="columns of --csv that are not features (an identifier, a leak); "
                          "`predict` ignores them too (default: none)")
    fit.add_argument("--dropna", action="store_true", help=DROPNA_HELP)
    fit.add_argument("--na", action="append", default=None, metavar="MARKER", help=NA_HELP)
    fit.add_argument("--names", default=None, metavar="NAME,...", help=NAMES_HELP)
    fit.add_argument("--plain", action="store_true",
                     help="benders, flow: the published method, without the subtree "
                          "search (and, benders, the path-bound cuts, split-bound cuts and "
                          "polishing) that are on by default")
    fit.add_argument("-v", "--verbose", action="count", default=0,
                     help="-v: progress lines (bound, incumbent, gap; the default when the "
                          "output is a terminal); -vv: also the solver log")
    fit.add_argument("-q", "--quiet", action="store_true",
                     help="no progress lines, even on a terminal")
    fit.add_argument("--sep", default=None, help=SEP_HELP)
    fit.add_argument("--out", help="write the fitted model as JSON (default: not saved)")
    fit.add_argument("--plot", help="draw the fitted model to this picture (.png, .svg, .pdf; "
                     "default: none)")
    if method_options:
        from .cli_options import add_method_options
        from .cli_options import method_options as options

        add_method_options(fit, options(RESERVED))


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The ``optrees`` parser with all sub-commands.  Building it imports nothing heavy,
    except for ``argv`` of the ``fit`` command: its method options are read from the
    estimators' parameter tables."""
    parser = _Parser(prog="optrees", description=__doc__.split("\n\n")[0],
                     formatter_class=_HelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="BendersOCT depth 2 on the bundled monk1 data, and a "
                   "regression tree on the bundled liver-disorders data")
    _add_fit_parser(sub, method_options=bool(argv) and argv[0] == "fit")
    pred = sub.add_parser("predict", help="predict a CSV with a saved model",
                          formatter_class=_HelpFormatter)
    pred.add_argument("--model", required=True, help="model JSON written by `fit --out`")
    pred.add_argument("--csv", required=True, help="CSV file with the model's columns")
    pred.add_argument("--out", help="CSV for predictions (default: stdout)")
    pred.add_argument("--sep", default=None, help=SEP_HELP)
    pred.add_argument("--na", action="append", default=None, metavar="MARKER", help=NA_HELP)
    pred.add_argument("--names", default=None, metavar="NAME,...", help=NAMES_HELP)
    pred.add_argument("--proba", action="store_true",
                      help="also write each class's probability (columns proba_<class>)")
    pred.add_argument("--target", default=None,
                      help="target column of --csv, for the accuracy (default: the column the "
                           "model was fitted on, if the file has it)")
    plot = sub.add_parser("plot", help="draw a saved model (tree or rule set) to a picture",
                          formatter_class=_HelpFormatter)
    plot.add_argument("model", help="model JSON written by `fit --out`")
    plot.add_argument("--out", required=True, help="picture file (.png, .svg, .pdf)")
    plot.add_argument("--max-rules", type=int, default=None,
                      help="rule sets: draw the heaviest N rules (default: 20)")
    ds = sub.add_parser("datasets", help="list datasets with their shapes",
                        formatter_class=_HelpFormatter)
    ds.add_argument("--data-dir", default=None,
                    help="folder of non-bundled datasets (default: $OPTREES_DATA)")
    add_bench_parser(sub)
    add_compare_parser(sub)
    add_rashomon_parser(sub)
    return parser


def _quiet_broken_pipe() -> int:
    """stdout's reader went away (``optrees predict ... | head``): Python's recipe (docs of
    :mod:`signal`, "Note on SIGPIPE"): point stdout at devnull so that the flush at exit
    does not fail again, and exit with 1, without a traceback."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 1


def _run(argv: Sequence[str] | None) -> int:
    """Parse and run one command; errors become one line on stderr and exit code 2."""
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        args = build_parser(argv).parse_args(argv)
    except _UsageError as exc:
        print(f"optrees: error: {exc}", file=sys.stderr)
        return 2
    except SystemExit as exc:  # --help and --version print and exit
        return int(exc.code or 0)
    handler = {"demo": cmd_demo, "fit": cmd_fit, "predict": cmd_predict, "plot": cmd_plot,
               "datasets": cmd_datasets, "bench": cmd_bench, "compare": cmd_compare,
               "rashomon": cmd_rashomon}[args.command]
    from ._validation import OptreesInputError, OptreesTimeLimitError

    start = time.perf_counter()
    try:
        code = handler(args)
    except (_UsageError, OptreesInputError, OptreesTimeLimitError, FileNotFoundError) as exc:
        print(f"optrees: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C outside a solve (a solve returns its incumbent)
        print("optrees: interrupted", file=sys.stderr)
        return 130
    if args.command == "demo":
        print(f"\ndemo finished in {time.perf_counter() - start:.1f}s")
    sys.stdout.flush()  # a closed pipe shows here, inside main's BrokenPipeError handler
    return code


def _show_warning(message: Warning | str, category: type[Warning], filename: str,
                  lineno: int, file: Any = None, line: str | None = None) -> None:
    """A warning as one line of the command's output, ``optrees: warning: ...``, without
    the source file and line that Python's default shows (a library's, not the user's)."""
    print(f"optrees: warning: {message}", file=sys.stderr if file is None else file)


def main(argv: Sequence[str] | None = None) -> int:
    """The ``optrees`` entry point; returns the exit code.  Run as the command (``argv``
    None), warnings print as one line each."""
    import warnings

    try:
        with warnings.catch_warnings():
            if argv is None:
                warnings.showwarning = _show_warning
            return _run(argv)
    except BrokenPipeError:
        return _quiet_broken_pipe()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
