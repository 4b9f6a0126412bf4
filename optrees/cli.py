"""Command line: ``optrees demo | fit | predict | datasets | bench``.

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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__, cli_report
from .cli_base import _HelpFormatter, _Parser, _UsageError
from .cli_bench import add_bench_parser
from .registry import cli_methods

if TYPE_CHECKING:
    import pandas as pd

METHODS: dict[str, str] = {name: m.class_name for name, m in cli_methods().items()}
"""``--method`` -> estimator class name (from :mod:`optrees.registry`)."""

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

PLAIN: tuple[str, ...] = ("polishing", "path_bound_cuts", "split_bound_cuts", "subtree_search")
"""What ``--plain`` turns off (each of them given explicitly wins)."""

RESERVED = {"--depth", "--lam", "--time-limit", "--seed", "--verbose", "--numeric", "--bins",
            "--plain", "--class-weight", "--weight-column"}
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
    """Parameters set by the shared options; a value other than the command line's default
    for an option the method has no parameter for is refused."""
    defaults = vars(build_parser().parse_args(["fit"]))  # the shared options only
    kwargs: dict[str, Any] = {}
    for dest, names in GENERAL.items():
        name = next((n for n in names if _takes(cls, n)), None)
        value = getattr(args, dest)
        if name is not None and name in inspect.signature(cls).parameters:
            kwargs[name] = value
        elif value != defaults[dest] and (name is None or value != getattr(cls, name)):
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
    from .cli_options import given, method_options

    options = method_options(RESERVED)
    kwargs: dict[str, Any] = {}
    flags: dict[str, str] = {}
    for flag, value in given(args, options).items():
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
            "--weight-column": (args.weight_column, _fits_with_weights)}
    for flag, (value, used_by) in uses.items():
        if value is not None and not used_by(cls):
            raise _unused(flag, args.method,
                          [m for m in METHODS if used_by(_estimator_class(m))])
    est = cls(**kwargs)
    _check_params(est, args, flags)
    if getattr(args, "fairness", None) is not None and getattr(args, "sensitive", None) is None:
        raise _UsageError("--fairness needs --sensitive COLUMN (the sensitive attribute)")
    return est


# -------------------------------------------------------------------------------------- data
def _check_out(path: str | None) -> None:
    """Fail before any work when --out cannot be written."""
    if path is None:
        return
    folder = Path(path).resolve().parent
    if not folder.is_dir():
        raise _UsageError(f"cannot write {path}: directory {folder} does not exist")
    if Path(path).is_dir():
        raise _UsageError(f"cannot write {path}: it is a directory")


def _read_csv(path: str) -> pd.DataFrame:
    """The CSV file at ``path`` (header row + at least one data row)."""
    import pandas as pd

    try:
        df = pd.read_csv(path)
    except FileNotFoundError as exc:
        raise _UsageError(f"CSV file not found: {path}") from exc
    except (OSError, pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as exc:
        raise _UsageError(f"cannot read CSV file {path}: {exc}") from exc
    if df.empty:
        raise _UsageError(f"CSV file {path} has no data rows (only a header: {list(df.columns)})")
    return df


def _check_sources(args: argparse.Namespace) -> None:
    """The data options of ``fit``, checked before anything is read."""
    if (args.dataset is None) == (args.csv is None):
        raise _UsageError("give exactly one of --dataset NAME or --csv FILE")
    if args.csv is not None and args.target is None:
        raise _UsageError("--csv needs --target COLUMN")
    if args.dataset is not None and args.target is not None:
        raise _UsageError("--target is for --csv; a dataset has its own target column")
    if not 0 <= args.test_size < 1:
        raise _UsageError(f"--test-size must be in [0, 1), got {args.test_size}")


def _load_data(args: argparse.Namespace) -> tuple[pd.DataFrame, pd.Series]:
    """X and y of --dataset or --csv, checked as ``fit`` checks them (missing values in any
    row, infinite values, labels), so that no finished fit is thrown away over the test part."""
    from ._validation import check_frame, check_target

    if args.dataset is not None:
        from .datasets import load_dataset

        X, y = load_dataset(args.dataset)
    else:
        df = _read_csv(args.csv)
        if args.target not in df.columns:
            raise _UsageError(
                f"target column {args.target!r} not in {args.csv} (columns: {list(df.columns)})")
        X, y = df.drop(columns=[args.target]), df[args.target]
    check_frame(X)
    check_target(y, len(X))
    for flag in ("--sensitive", "--legitimate"):  # method options: absent unless given
        column = getattr(args, flag[2:], None)
        if column is not None and column not in X.columns:
            raise _UsageError(f"{flag} column {column!r} is not a feature column "
                              f"(columns: {list(X.columns)})")
    return X, y


def _label(text: str, y: pd.Series, flag: str) -> Any:
    """The label of ``y`` that prints as ``text`` (a CSV's labels may be numbers)."""
    labels = {str(v): v for v in y.unique()}
    if text not in labels:
        raise _UsageError(f"{flag}: {text!r} is not a label of the target "
                          f"(labels: {sorted(labels)[:10]})")
    return labels[text]


def _class_weight(text: str, y: pd.Series) -> Any:
    """``--class-weight``: "balanced", or "LABEL=W,LABEL=W" with labels as y prints them."""
    if text == "balanced":
        return "balanced"
    weights = {}
    for part in text.split(","):
        label, eq, value = part.partition("=")
        if not eq:
            raise _UsageError(f"--class-weight takes 'balanced' or LABEL=WEIGHT,...; got {text!r}")
        key = _label(label.strip(), y, "--class-weight")
        try:
            weights[key] = float(value)
        except ValueError as exc:
            raise _UsageError(f"--class-weight: weight {value!r} of {label!r} is not a "
                              "number") from exc
    return weights


def _pop_weights(args: argparse.Namespace, parts: list[Any]) -> list[Any] | None:
    """``--weight-column``: the training and test rows' weights (None: no test part), the
    column removed from X."""
    column = args.weight_column
    if column is None:
        return None
    if column not in parts[0].columns:
        raise _UsageError(f"--weight-column {column!r} is not a column of the data "
                          f"(columns: {list(parts[0].columns)})")
    weights = [None if X is None else X[column].to_numpy() for X in parts[:2]]
    parts[:2] = [None if X is None else X.drop(columns=[column]) for X in parts[:2]]
    return weights


def _split(X: pd.DataFrame, y: pd.Series, test_size: float, seed: int) -> list[Any]:
    """``[X_train, X_test, y_train, y_test]`` (test part None when ``test_size`` is 0)."""
    from sklearn.model_selection import train_test_split

    from ._validation import check_target

    if test_size == 0:
        return [X, None, y, None]
    try:
        parts = train_test_split(X, y, test_size=test_size, random_state=seed)
    except ValueError as exc:  # too few rows for this test size
        raise _UsageError(f"cannot split {len(y)} rows with --test-size {test_size}: {exc}"
                          ) from exc
    check_target(parts[2], len(parts[2]))  # e.g. a single class left in the training part
    return parts


# ---------------------------------------------------------------------------------- commands
def cmd_demo(args: argparse.Namespace) -> int:
    """BendersOCT of depth 2 on monk1, 75 % train / 25 % test."""
    from sklearn.model_selection import train_test_split

    from .datasets import load_dataset
    from .estimators import BendersOCTClassifier

    X, y = load_dataset("monk1")
    parts = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
    print("BendersOCT, depth 2, on monk1 (75% train / 25% test)\n")
    est = BendersOCTClassifier(depth=2, lam=0.0, time_limit=25, random_state=0)
    cli_report.fit_quietly(est, parts[0], parts[2])
    cli_report.report_tree(est, parts, cli_report.mip_summary)
    return 0


def cmd_fit(args: argparse.Namespace) -> int:
    """Fit ``--method``; options, parameters and data are all checked before the fit."""
    _check_out(args.out)
    _check_sources(args)
    est = _build_estimator(args)
    X, y = _load_data(args)
    if args.class_weight is not None:
        est.set_params(class_weight=_class_weight(args.class_weight, y))
    if getattr(args, "positive_class", None) is not None:
        est.set_params(positive_class=_label(args.positive_class, y, "--positive-class"))
    parts = _split(X, y, args.test_size, args.seed)
    weights = _pop_weights(args, parts)
    cli_report.fit_quietly(est, parts[0], parts[2], None if weights is None else weights[0])
    if args.method == "rug":
        cli_report.report_rug(est, parts, getattr(args, "sensitive", None), weights)
    else:
        cli_report.report_tree(est, parts, cli_report.SUMMARIES.get(args.method,
                                                                  cli_report.mip_summary),
                               weights)
    cli_report.save(est, args.out)
    return 0


def cmd_predict(args: argparse.Namespace) -> int:
    """Predict every row of ``--csv`` with a saved model; to ``--out`` or stdout."""
    import pandas as pd

    from .io import load_model, write_atomic

    _check_out(args.out)
    model = load_model(args.model)
    out = pd.DataFrame({"prediction": model.predict(_read_csv(args.csv))})
    if args.out:
        write_atomic(args.out, out.to_csv(index=False))
        print(f"{len(out)} predictions written to {args.out}")
    else:
        out.to_csv(sys.stdout, index=False)
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


# ------------------------------------------------------------------------------------ parser
def _add_fit_parser(sub: Any, method_options: bool) -> None:
    """The ``fit`` sub-command: data options, the options every method shares, and (with
    ``method_options``, which imports the estimators) each method's own options."""
    fit = sub.add_parser("fit", help="fit an optimal tree or rule set and print it",
                         formatter_class=_HelpFormatter)
    fit.add_argument("--dataset", help="bundled or data-dir dataset name (see `optrees "
                     "datasets`); give it or --csv (default: none)")
    fit.add_argument("--csv", help="CSV file with a header row (default: none)")
    fit.add_argument("--target", help="target column of --csv (default: none)")
    fit.add_argument("--method", choices=sorted(METHODS), default="benders",
                     help="; ".join(f"{n}: {m.summary}" for n, m in cli_methods().items()))
    fit.add_argument("--depth", type=int, default=2, help="tree depth (rug: of the pricing "
                     "trees, i.e. conditions per rule)")
    fit.add_argument("--lam", type=float, default=0.0, help="complexity penalty")
    fit.add_argument("--time-limit", type=float, default=60.0, help="seconds")
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
    fit.add_argument("--weight-column", default=None,
                     help="column of row weights (>= 0), not a feature (default: none)")
    fit.add_argument("--plain", action="store_true",
                     help="benders, flow: the published method, without the subtree "
                          "search (and, benders, the path-bound cuts, split-bound cuts and "
                          "polishing) that are on by default")
    fit.add_argument("-v", "--verbose", action="count", default=0,
                     help="-v: progress lines (bound, incumbent, gap); -vv: also the solver log")
    fit.add_argument("--out", help="write the fitted model as JSON (default: not saved)")
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
    sub.add_parser("demo", help="BendersOCT depth 2 on the bundled monk1 data")
    _add_fit_parser(sub, method_options=bool(argv) and argv[0] == "fit")
    pred = sub.add_parser("predict", help="predict a CSV with a saved model",
                          formatter_class=_HelpFormatter)
    pred.add_argument("--model", required=True, help="model JSON written by `fit --out`")
    pred.add_argument("--csv", required=True, help="CSV file with the model's columns")
    pred.add_argument("--out", help="CSV for predictions (default: stdout)")
    ds = sub.add_parser("datasets", help="list datasets with their shapes",
                        formatter_class=_HelpFormatter)
    ds.add_argument("--data-dir", default=None,
                    help="folder of non-bundled datasets (default: $OPTREES_DATA)")
    add_bench_parser(sub)
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
    handler = {"demo": cmd_demo, "fit": cmd_fit, "predict": cmd_predict,
               "datasets": cmd_datasets, "bench": cmd_bench}[args.command]
    from ._validation import OptreesInputError

    start = time.perf_counter()
    try:
        code = handler(args)
    except (_UsageError, OptreesInputError, FileNotFoundError) as exc:
        print(f"optrees: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C outside a solve (a solve returns its incumbent)
        print("optrees: interrupted", file=sys.stderr)
        return 130
    if args.command == "demo":
        print(f"\ndemo finished in {time.perf_counter() - start:.1f}s")
    sys.stdout.flush()  # a closed pipe shows here, inside main's BrokenPipeError handler
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """The ``optrees`` entry point; returns the exit code."""
    try:
        return _run(argv)
    except BrokenPipeError:
        return _quiet_broken_pipe()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
