"""Command line: ``optrees demo | fit | predict | datasets | bench``.

Start-up imports only the standard library; each command imports what it needs, so that
``optrees --help`` and ``optrees datasets`` do not wait for scikit-learn and the solvers.
Errors (unknown dataset, missing column, bad parameter) print one line and exit with code 2,
before any fitting starts and without leaving a partial file behind.
"""

from __future__ import annotations

import argparse
import inspect
import os
import re
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from . import __version__

if TYPE_CHECKING:
    import pandas as pd

METHODS: dict[str, str] = {  # --method -> estimator class in optrees.estimators
    "benders": "BendersOCTClassifier",
    "bendoct": "BendOCTClassifier",
    "binoct": "BinOCTClassifier",
    "cgh": "CGHClassifier",
    "flow": "FlowOCTClassifier",
    "oct": "OCTClassifier",
    "omt": "OMTClassifier",
    "rug": "RUGClassifier",
}

_KEEP = object()
"""Value of an option left unset: the estimator's own default applies."""

_ONLY: dict[str, str] = {"exact_pricing": "cgh", "omt_exact": "omt"}
"""Options that set a parameter whose name another method's estimator also has, with another
meaning: each belongs to one method only."""

class _UsageError(Exception):
    """A command-line usage error (reported in one line, exit code 2)."""


class _Parser(argparse.ArgumentParser):
    """Reports a usage error in one line instead of usage + message + SystemExit."""

    def error(self, message: str) -> NoReturn:
        """Raise the one-line error that :func:`main` prints."""
        raise _UsageError(f"{message} (see `{self.prog} --help`)")


class _HelpFormatter(argparse.HelpFormatter):
    """Shows every option's default: "(default: 2)", "(default: off)" for a flag; options
    whose default is None say in their own help what happens without them."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if (not action.option_strings or action.required or "default:" in text
                or action.default in (None, argparse.SUPPRESS)):
            return text
        return f"{text} (default: {'off' if action.default is False else '%(default)s'})"


# ------------------------------------------------------------------------------- fit options
def _estimator_class(method: str) -> type:
    """The estimator class of ``--method`` (this imports scikit-learn and the solvers)."""
    from . import estimators

    return getattr(estimators, METHODS[method])


def _option_params(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """The estimator constructor parameters each method option sets, with their values.

    ``{option dest: {parameter: value}}``; a method uses an option when its estimator's
    constructor has one of these parameters, so which method uses what is read from the
    estimators' signatures.  ``_KEEP`` leaves the estimator's default.
    """
    from .encoding.binarize import Binarizer

    binarizer = {"binarizer": Binarizer(numeric=args.numeric, n_bins=args.bins)}
    path_bound = {None: _KEEP, "off": False}.get(args.path_bound_cuts, args.path_bound_cuts)
    order = [c for c in args.feature_order.split(",") if c] if args.feature_order else None
    return {
        "depth": {"depth": args.depth, "max_depth": args.depth},
        "lam": {"lam": args.lam},
        "time_limit": {"time_limit": args.time_limit},
        "seed": {"random_state": args.seed},
        "verbose": {"verbose": args.verbose},
        "numeric": binarizer,
        "bins": binarizer,
        "no_warm_start": {"warm_start": not args.no_warm_start},
        "strengthen": {"strengthen": args.strengthen},
        "fractional_cuts": {"fractional_cuts": args.fractional_cuts},
        "penalty": {"penalty": args.penalty},
        "strengthened_cuts": {"strengthened_cuts": args.strengthened_cuts},
        "eqp": {"eqp": args.eqp},
        # --plain first: --polishing, --path-bound-cuts and --split-bound-cuts override it
        "plain": dict.fromkeys(("polishing", "path_bound_cuts", "split_bound_cuts"),
                               False if args.plain else _KEEP),
        "polishing": {"polishing": _KEEP if args.polishing is None else args.polishing},
        "path_bound_cuts": {"path_bound_cuts": path_bound},
        "split_bound_cuts": {"split_bound_cuts": _KEEP if args.split_bound_cuts is None
                             else args.split_bound_cuts},
        "alpha": {"alpha": args.alpha},
        "exact_pricing": {"exact_pricing": args.exact_pricing},
        "leaves": {"leaves": args.leaves},
        "min_support": {"min_support": args.min_support},
        "omt_loss": {"loss": args.omt_loss},
        "k_best": {"k_best": args.k_best},
        "omt_exact": {"exact_pricing": args.omt_exact},
        "max_iter": {"max_iter": args.max_iter},
        "bins_omt": {"n_bins": args.bins_omt},
        "binning": {"binning": args.binning},
        "ordinal": {"ordinal": {"auto": "auto", "yes": True, "no": False}[args.ordinal]},
        "categorical_nodes": {"categorical_nodes": args.categorical_nodes},
        "feature_order": {"feature_order": order},
        "leaf_penalty": {"leaf_penalty": args.leaf_penalty},
        "pen_par": {"pen_par": args.pen_par},
        "max_rmp_calls": {"max_rmp_calls": args.max_rmp_calls},
        "threshold": {"threshold": args.threshold},
        "fairness": {"fairness": args.fairness},
        "sensitive": {"sensitive": args.sensitive},
        "epsilon": {"epsilon": args.epsilon},
        "lp_method": {"lp_method": args.lp_method},
    }


def _accepted(method: str, dest: str, params: dict[str, Any]) -> dict[str, Any]:
    """The parameters of option ``dest`` that the estimator of ``method`` takes."""
    if _ONLY.get(dest, method) != method:
        return {}
    signature = inspect.signature(_estimator_class(method)).parameters
    return {p: v for p, v in params.items() if p in signature}


def _uses(method: str, dest: str, params: dict[str, Any]) -> bool:
    """Whether ``method`` uses option ``dest`` with these values: its estimator takes the
    parameter, or fixes it (a class attribute) to the same value (``bendoct``'s penalty)."""
    if _ONLY.get(dest, method) != method:
        return False
    if _accepted(method, dest, params):
        return True
    cls = _estimator_class(method)
    given = {p: v for p, v in params.items() if v is not _KEEP}
    return bool(given) and all(getattr(cls, p, _KEEP) == v for p, v in given.items())


def _option_name(dest: str) -> str:
    """``--time-limit`` for ``time_limit``."""
    return "--" + dest.replace("_", "-")


def _or(names: Sequence[str]) -> str:
    """``a, b or c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def _check_options_used(args: argparse.Namespace, table: dict[str, dict[str, Any]]) -> None:
    """Refuse an option set to a non-default value that ``--method`` would silently ignore."""
    defaults = vars(build_parser().parse_args(["fit"]))
    for dest, params in table.items():
        if getattr(args, dest) == defaults[dest] or _uses(args.method, dest, params):
            continue
        users = [m for m in METHODS if _uses(m, dest, params)]
        hint = f"; you need --method {_or(users)}" if users else ""
        raise _UsageError(f"{_option_name(dest)} is not used by --method {args.method}{hint}")


class _ParamsChecked(Exception):
    """Raised by :class:`_NoData` once ``fit`` has checked every parameter and reads X."""


class _NoData:
    """Stand-in for X: ``fit`` checks its parameters first, then stops here when it reads X."""

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        """Stop ``fit`` at its first look at the data."""
        raise _ParamsChecked


def _check_binarizer(est: Any, args: argparse.Namespace) -> None:
    """The binarizer's own checks (e.g. ``n_bins >= 2``), which need a table: a one-row one."""
    import pandas as pd
    from sklearn.base import clone

    from ._validation import OptreesInputError

    binarizer = est.get_params(deep=False).get("binarizer")
    if not hasattr(binarizer, "fit"):
        return
    try:
        clone(binarizer).fit(pd.DataFrame({"x": [0.0]}))
    except OptreesInputError as exc:  # --numeric has choices, so it is --bins
        raise _UsageError(f"--bins {args.bins}: {exc}") from exc


def _check_params(est: Any, args: argparse.Namespace, table: dict[str, dict[str, Any]]) -> None:
    """Run the parameter checks ``est.fit`` starts with (depth bounds included), on a copy and
    without data: a bad value is refused before any data is loaded.  The message names the
    option: ``--seed -1: random_state must be ...``."""
    from sklearn.base import clone

    from ._validation import OptreesInputError

    _check_binarizer(est, args)
    try:
        clone(est).fit(_NoData(), None)
    except _ParamsChecked:
        return
    except OptreesInputError as exc:
        message = str(exc)
        name = re.match(r"\w*", message).group()  # "depth must be ...", "depth=50 is ..."
        for dest, params in table.items():
            if name in _accepted(args.method, dest, params):
                option = f"{_option_name(dest)} {getattr(args, dest)}"
                raise _UsageError(f"{option}: {message}") from exc
        raise


def _build_estimator(args: argparse.Namespace) -> Any:
    """The estimator of ``--method`` with the options given; every option and parameter is
    checked here, before any data is loaded."""
    table = _option_params(args)
    _check_options_used(args, table)
    kwargs: dict[str, Any] = {}
    for dest, params in table.items():
        kwargs.update({p: v for p, v in _accepted(args.method, dest, params).items()
                       if v is not _KEEP})
    est = _estimator_class(args.method)(**kwargs)
    _check_params(est, args, table)
    if args.fairness is not None and args.sensitive is None:
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
    if args.sensitive is not None and args.sensitive not in X.columns:
        raise _UsageError(f"--sensitive column {args.sensitive!r} is not a feature column "
                          f"(columns: {list(X.columns)})")
    return X, y


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


# ------------------------------------------------------------------------------------ report
def _mip_summary(est: Any) -> list[str]:
    """Status lines of the exact tree MIPs (FlowOCT, BendersOCT, BendOCT, OCT, BinOCT)."""
    return [f"status          : {est.status_}",
            f"objective       : {est.objective_:g}   bound: {est.bound_:g}   "
            f"gap: {est.gap_:.2%}"]


def _cgh_summary(est: Any) -> list[str]:
    """Status line of CGH (a binary tree with real thresholds on the raw columns)."""
    return [f"status          : {est.status_}  (LP integral: {est.lp_integral_}, "
            f"LP bound {est.lp_bound_:g}, CART {est.cart_objective_} correct)"]


def _omt_summary(est: Any) -> list[str]:
    """Status lines of OMT (a multiway-split tree from a path MIP and column generation)."""
    return [f"status          : {est.status_}",
            f"objective       : {est.objective_:g}   LP bound: {est.bound_:g}   "
            f"gap (IP-LP)/IP: {est.gap_:.2%}"]


_SUMMARIES: dict[str, Callable[[Any], list[str]]] = {"cgh": _cgh_summary, "omt": _omt_summary}


def _fit(est: Any, X: pd.DataFrame, y: pd.Series) -> None:
    """Fit; a time limit is reported in the status line rather than as a warning."""
    from .estimators import TimeLimitWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TimeLimitWarning)
        est.fit(X, y)


def _report_tree(est: Any, parts: list[Any], summary: Callable[[Any], list[str]]) -> None:
    """Print the tree, the ``summary`` lines, accuracies and time."""
    X_tr, X_te, y_tr, y_te = parts
    print(est.tree_.export_text())
    print()
    print("\n".join(summary(est)))
    print(f"train accuracy  : {est.score(X_tr, y_tr):.4f}  (n={len(y_tr)})")
    if X_te is not None and len(y_te):
        print(f"test accuracy   : {est.score(X_te, y_te):.4f}  (n={len(y_te)})")
    detail = ""
    if hasattr(est, "n_bb_nodes_"):  # branch-and-bound methods
        detail = f" (solver {est.solve_seconds_:.2f}s, {est.n_bb_nodes_} B&B nodes)"
    print(f"time            : {est.fit_seconds_:.2f}s{detail}")


def _report_rug(est: Any, parts: list[Any], sensitive: str | None) -> None:
    """RUG / FairRUG: print the rules, interpretability metrics and fairness scores."""
    from . import metrics

    X_tr, X_te, y_tr, y_te = parts
    print(est.export_text())
    print()
    print(f"status          : {est.status_}  ({est.n_rmp_calls_} master LPs, "
          f"{est.fit_seconds_:.2f}s)")
    named = [("train", X_tr, y_tr)] + ([("test", X_te, y_te)] if X_te is not None else [])
    for name, X, y in named:
        print(f"{name} accuracy  : {est.score(X, y):.4f}  (n={len(y)})")
        info = metrics.interpretability(est, X)
        print("                  " + "  ".join(f"{k} {v:.2f}" for k, v in info.items()))
        if sensitive is not None:
            pred, groups = est.predict(X), X[sensitive].to_numpy()
            print(f"                  DMC {metrics.dmc_score(y, pred, groups):.3f}  "
                  f"ODM {metrics.odm_score(y, pred, groups):.3f}  "
                  f"EOP {metrics.eop_score(y, pred, groups):.3f}")


def _save(est: Any, out: str | None) -> None:
    """Write the model to ``out`` (atomically) when given."""
    if out:
        from .io import save_model

        save_model(est, out)
        print(f"model written to {out}")


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
    _fit(est, parts[0], parts[2])
    _report_tree(est, parts, _mip_summary)
    return 0


def cmd_fit(args: argparse.Namespace) -> int:
    """Fit ``--method``; options, parameters and data are all checked before the fit."""
    _check_out(args.out)
    _check_sources(args)
    est = _build_estimator(args)
    X, y = _load_data(args)
    parts = _split(X, y, args.test_size, args.seed)
    _fit(est, parts[0], parts[2])
    if args.method == "rug":
        _report_rug(est, parts, args.sensitive)
    else:
        _report_tree(est, parts, _SUMMARIES.get(args.method, _mip_summary))
    _save(est, args.out)
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
def _add_fit_parser(sub: Any) -> None:
    """The ``fit`` sub-command and its options (grouped by the method that uses them)."""
    fit = sub.add_parser("fit", help="fit an optimal tree or rule set and print it",
                         formatter_class=_HelpFormatter)
    fit.add_argument("--dataset", help="bundled or data-dir dataset name (see `optrees "
                     "datasets`); give it or --csv (default: none)")
    fit.add_argument("--csv", help="CSV file with a header row (default: none)")
    fit.add_argument("--target", help="target column of --csv (default: none)")
    fit.add_argument("--method", choices=sorted(METHODS), default="benders",
                     help="bendoct = benders --penalty leaves")
    fit.add_argument("--depth", type=int, default=2, help="tree depth (rug: of the pricing "
                     "trees, i.e. conditions per rule)")
    fit.add_argument("--lam", type=float, default=0.0, help="complexity penalty")
    fit.add_argument("--penalty", choices=["splits", "leaves"], default="splits",
                     help="splits: (1-lam)*correct - lam*splits; leaves: accuracy - lam*leaves")
    fit.add_argument("--time-limit", type=float, default=60.0, help="seconds")
    fit.add_argument("--test-size", type=float, default=0.25,
                     help="share of the rows held out for the test accuracy")
    fit.add_argument("--seed", type=int, default=0, help="random seed (split and solver)")
    fit.add_argument("--numeric", choices=["thresholds", "buckets"], default="thresholds",
                     help="binarization of numeric columns (QT-k or QB-k)")
    fit.add_argument("--bins", type=int, default=5, help="k of QT-k / QB-k")
    fit.add_argument("--fractional-cuts", action="store_true",
                     help="benders: also separate min-cut inequalities at fractional points")
    fit.add_argument("--strengthen", action="store_true", help="flow: separate cuts (4)")
    fit.add_argument("--plain", action="store_true",
                     help="benders: the published method, without the path-bound cuts, "
                          "split-bound cuts and polishing that are on by default")
    fit.add_argument("--polishing", action=argparse.BooleanOptionalAction, default=None,
                     help="benders: D2S solution polishing (accel. §5.2; default: on)")
    fit.add_argument("--path-bound-cuts", nargs="?", const="basic", default=None,
                     choices=["off", "basic", "negative", "structure", "both"],
                     help="benders: D2S path-bound cuts (accel. §5.4); without a value "
                          "'basic' (default: 'both' = with cuts (25) and (26))")
    fit.add_argument("--split-bound-cuts", action=argparse.BooleanOptionalAction,
                     default=None,
                     help="benders: D2S bounds for every split of a height-3 node (our "
                          "extension of accel. §5.4; default: on)")
    fit.add_argument("--strengthened-cuts", action="store_true",
                     help="benders: strengthened Benders cuts (accel. §5.1)")
    fit.add_argument("--eqp", default=None, metavar="H-G",
                     help="benders: equivalent-point inequalities (accel. §5.3), e.g. "
                          "recursive_da-group; an unknown name lists them all (default: off)")
    fit.add_argument("--no-warm-start", action="store_true", help="no CART warm start")
    cgh = fit.add_argument_group("cgh (column-generation heuristic on raw thresholds)")
    cgh.add_argument("--alpha", type=float, default=90.0, help="%% of rows per sampling CART")
    cgh.add_argument("--exact-pricing", choices=["auto", "enumerate", "milp", "none"],
                     default="auto", help="how the LP optimum is proven")
    omt = fit.add_argument_group("omt (multiway-split tree: path MIP + column generation)")
    omt.add_argument("--leaves", type=int, default=None,
                     help="max rules l (default: 2^depth)")
    omt.add_argument("--min-support", type=float, default=0.01,
                     help="min samples per rule: a fraction (< 1) or a count")
    omt.add_argument("--omt-loss", choices=["misclassification", "weighted", "f1"],
                     default="misclassification", help="objective")
    omt.add_argument("--k-best", type=int, default=1000, help="paths per pricing round (K)")
    omt.add_argument("--omt-exact", action="store_true", help="exact K-shortest-path pricing")
    omt.add_argument("--max-iter", type=int, default=40, help="column-generation rounds")
    omt.add_argument("--bins-omt", type=int, default=8, help="quantile bins of numeric columns")
    omt.add_argument("--binning", choices=["cumulative", "plain"], default="cumulative",
                     help="numeric bins as ranges from either end (cumulative) or single bins")
    omt.add_argument("--ordinal", choices=["auto", "yes", "no"], default="auto",
                     help="categories as ordered intervals: auto = ordered categoricals, "
                     "yes = also numeric-valued categories, no = none")
    omt.add_argument("--categorical-nodes", choices=["values", "complements", "subsets"],
                     default="values", help="graph nodes of a categorical column: one per "
                     "value (the paper), also '!= v', or every value subset (<= 5 values)")
    omt.add_argument("--feature-order", default=None,
                     help="comma-separated column order (default: the data's order)")
    omt.add_argument("--leaf-penalty", type=float, default=0.0,
                     help="cost per rule in error rate (0 = the paper)")
    rug = fit.add_argument_group("rug (rule generation; --depth is the pricing-tree depth)")
    rug.add_argument("--pen-par", type=float, default=1.0, help="weight of the rule costs")
    rug.add_argument("--max-rmp-calls", type=int, default=10, help="master LP solves")
    rug.add_argument("--threshold", type=float, default=0.05,
                     help="drop rules lighter than threshold * largest weight")
    rug.add_argument("--fairness", choices=["dmc", "odm", "eop"], default=None,
                     help="FairRUG constraint, needs --sensitive (default: none)")
    rug.add_argument("--sensitive", default=None,
                     help="sensitive attribute column; its fairness scores are printed "
                          "(default: none)")
    rug.add_argument("--epsilon", type=float, default=0.025, help="fairness cap")
    rug.add_argument("--lp-method", choices=["simplex", "interior"], default="simplex",
                     help="master LP by simplex (few rules) or interior point stopped near "
                          "the optimum, as ruleopt (weight on many more rules)")
    fit.add_argument("-v", "--verbose", action="count", default=0,
                     help="-v: progress lines (bound, incumbent, gap); -vv: also the solver log")
    fit.add_argument("--out", help="write the fitted model as JSON (default: not saved)")


class _ProtocolsHelp(argparse.Action):
    """``-h`` of ``bench``: describes the protocols, imported only when help is asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: Any = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        """Print the help with the protocols' descriptions, then exit."""
        from .bench.protocols import PROTOCOLS

        parser.description = "Run an experimental protocol: " + "; ".join(
            f"{k}: {v.description}" for k, v in PROTOCOLS.items())
        parser.print_help()
        parser.exit()


PAPER = "paper"
"""``optrees bench --time-limit`` default: each protocol's own (its paper's) time limit."""


def _csv_list(conv: Callable[[str], Any]) -> Callable[[str], list[Any]]:
    """An argparse type: comma-separated values, each converted by ``conv``."""

    def parse(text: str) -> list[Any]:
        try:
            return [conv(v.strip()) for v in text.split(",") if v.strip()]
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"bad list {text!r}: {exc}") from exc

    return parse


def _bench_time_limit(text: str) -> float | str | None:
    """An argparse type: seconds > 0, 'none' (no limit) or 'paper' (the protocol's)."""
    if text.lower() in ("none", "inf"):
        return None
    if text.lower() == PAPER:
        return PAPER
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("--time-limit must be positive (or 'none')")
    return value


def add_bench_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``bench`` sub-command to an ``argparse`` subparsers object; return it.

    It lives here, not in :mod:`optrees.bench.cli`, because importing ``optrees.bench`` loads
    the whole benchmark harness (scikit-learn, the solvers), which ``optrees --help`` need not.
    """
    p = subparsers.add_parser(
        "bench", help="run a paper's experimental protocol (CSV + Markdown + figures)",
        add_help=False, formatter_class=_HelpFormatter)
    p.add_argument("-h", "--help", action=_ProtocolsHelp,
                   help="show this help message (with the protocols) and exit")
    # no `choices`, so an unknown protocol gets our own message (exit code 2)
    p.add_argument("protocol", help="a protocol name (listed by --help)")
    p.add_argument("--quick", action="store_true", help="small grid, under 3 minutes")
    p.add_argument("--out", default="bench/results", help="output directory")
    p.add_argument("--jobs", type=int, default=1, help="parallel local processes (-1: all)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--scheduler", default=None,
                       help="Dask scheduler address (default: none, local processes)")
    where.add_argument("--dask-local", type=int, default=None, metavar="N",
                       help="start a local Dask cluster with N worker processes (default: no)")
    p.add_argument("--time-limit", type=_bench_time_limit, default=PAPER,
                   help="seconds per fit, 'none' (no limit) or 'paper' (the protocol's)")
    p.add_argument("--data-dir", default=None,
                   help="folder of non-bundled datasets (default: $OPTREES_DATA)")
    p.add_argument("--datasets", type=_csv_list(str), default=None,
                   help="comma-separated datasets (default: the protocol's)")
    p.add_argument("--methods", type=_csv_list(str), default=None,
                   help="methods (for 'accelerated': BendOCT variants; default: the "
                        "protocol's)")
    p.add_argument("--depths", type=_csv_list(int), default=None,
                   help="comma-separated depths (default: the protocol's)")
    p.add_argument("--lams", type=_csv_list(float), default=None,
                   help="comma-separated penalties (default: the protocol's)")
    p.add_argument("--seeds", type=int, default=None,
                   help="number of random splits (default: the protocol's)")
    p.add_argument("--retry-errors", action="store_true",
                   help="re-run tasks whose stored row has an error")
    p.add_argument("--no-plots", action="store_true", help="skip the figures")
    p.add_argument("--connect-timeout", type=float, default=10.0,
                   help="seconds to wait for the Dask scheduler")
    p.set_defaults(handler=cmd_bench)
    return p


def build_parser() -> argparse.ArgumentParser:
    """The ``optrees`` parser with all sub-commands (building it imports nothing heavy)."""
    parser = _Parser(prog="optrees", description=__doc__.split("\n\n")[0],
                     formatter_class=_HelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="BendersOCT depth 2 on the bundled monk1 data")
    _add_fit_parser(sub)
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
        args = build_parser().parse_args(argv)
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
