"""Command line: ``optrees demo | fit | predict | datasets | bench``."""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
from sklearn.model_selection import train_test_split

from . import metrics
from ._validation import OptreesInputError
from .bench.cli import add_bench_parser, cmd_bench
from .binarize import Binarizer
from .datasets import list_datasets, load_dataset
from .estimators import (
    BendersOCTClassifier,
    BinOCTClassifier,
    CGHClassifier,
    FlowOCTClassifier,
    OCTClassifier,
    OMTClassifier,
    RUGClassifier,
    TimeLimitWarning,
)
from .io import load_model, save_model, write_atomic
from .trees.accel.eqp import G_VARIANTS, H_VARIANTS
from .trees.accel.eqp import VARIANTS as EQP_VARIANTS

METHODS = {"benders": BendersOCTClassifier, "flow": FlowOCTClassifier, "rug": RUGClassifier,
           "cgh": CGHClassifier, "oct": OCTClassifier, "binoct": BinOCTClassifier,
           "omt": OMTClassifier}


def _mip_summary(est) -> list[str]:
    """Status lines of the exact tree MIPs (FlowOCT, BendersOCT, OCT, BinOCT)."""
    return [f"status          : {est.status_}",
            f"objective       : {est.objective_:g}   bound: {est.bound_:g}   "
            f"gap: {est.gap_:.2%}"]


def cmd_demo(args: argparse.Namespace) -> int:
    X, y = load_dataset("monk1")
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
    print("BendersOCT, depth 2, on monk1 (75% train / 25% test)\n")
    est = BendersOCTClassifier(depth=2, lam=0.0, time_limit=25, random_state=0)
    return _fit_and_report(est, X_tr, y_tr, X_te, y_te, lambda: _mip_summary(est))


class _UsageError(Exception):
    """A command-line usage error (reported in one line, exit code 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line instead of usage + message, no SystemExit
        raise _UsageError(f"{message} (see `{self.prog} --help`)")


def _check_out(path: str | None) -> None:
    """Fail before any work when --out cannot be written."""
    if path is None:
        return
    folder = Path(path).resolve().parent
    if not folder.is_dir():
        raise OptreesInputError(f"cannot write {path}: directory {folder} does not exist")
    if Path(path).is_dir():
        raise OptreesInputError(f"cannot write {path}: it is a directory")


def _read_csv(path: str) -> pd.DataFrame:
    try:
        return pd.read_csv(path)
    except FileNotFoundError as exc:
        raise OptreesInputError(f"CSV file not found: {path}") from exc
    except (OSError, pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as exc:
        raise OptreesInputError(f"cannot read CSV file {path}: {exc}") from exc


def cmd_fit(args: argparse.Namespace) -> int:
    _check_out(args.out)
    if (args.dataset is None) == (args.csv is None):
        raise OptreesInputError("give exactly one of --dataset NAME or --csv FILE")
    if args.dataset is not None:
        X, y = load_dataset(args.dataset)
    else:
        if args.target is None:
            raise OptreesInputError("--csv needs --target COLUMN")
        df = _read_csv(args.csv)
        if args.target not in df.columns:
            raise OptreesInputError(
                f"target column {args.target!r} not in {args.csv} (columns: {list(df.columns)})"
            )
        y = df[args.target]
        X = df.drop(columns=[args.target])
    if not 0 <= args.test_size < 1:
        raise OptreesInputError(f"--test-size must be in [0, 1), got {args.test_size}")
    if args.test_size > 0:
        X_tr, X_te, y_tr, y_te = train_test_split(
            X, y, test_size=args.test_size, random_state=args.seed
        )
    else:
        X_tr, y_tr, X_te, y_te = X, y, None, None
    if args.method == "rug":
        return _fit_rug(args, X_tr, y_tr, X_te, y_te)
    if args.method == "cgh":
        return _fit_cgh(args, X_tr, y_tr, X_te, y_te)
    if args.method == "omt":
        return _fit_omt(args, X_tr, y_tr, X_te, y_te)
    if args.fairness or args.sensitive:
        raise OptreesInputError("--fairness and --sensitive need --method rug")
    binarizer = Binarizer(numeric=args.numeric, n_bins=args.bins)
    kwargs = dict(depth=args.depth, lam=args.lam, time_limit=args.time_limit,
                  binarizer=binarizer, random_state=args.seed, verbose=args.verbose,
                  warm_start=not args.no_warm_start)
    if args.method == "benders":
        kwargs["fractional_cuts"] = args.fractional_cuts
        kwargs["penalty"] = args.penalty
        kwargs["strengthened_cuts"] = args.strengthened_cuts
        if args.plain:
            kwargs.update(polishing=False, path_bound_cuts=False, split_bound_cuts=False)
        if args.split_bound_cuts is not None:
            kwargs["split_bound_cuts"] = args.split_bound_cuts
        if args.polishing is not None:
            kwargs["polishing"] = args.polishing
        if args.path_bound_cuts is not None:
            kwargs["path_bound_cuts"] = (False if args.path_bound_cuts == "off"
                                         else args.path_bound_cuts)
        kwargs["eqp"] = args.eqp
    elif (args.penalty != "splits" or args.plain or args.polishing is not None
          or args.path_bound_cuts is not None or args.strengthened_cuts
          or args.eqp is not None or args.split_bound_cuts is not None):
        raise OptreesInputError(
            "--penalty leaves and the acceleration switches need --method benders"
        )
    elif args.method == "flow":
        kwargs["strengthen"] = args.strengthen
    elif args.method == "binoct":
        if args.lam != 0:
            raise OptreesInputError("--method binoct has no split penalty; use --lam 0")
        del kwargs["lam"]
    est = METHODS[args.method](**kwargs)
    return _fit_and_report(est, X_tr, y_tr, X_te, y_te, lambda: _mip_summary(est), args.out)


def _fit_cgh(args, X_tr, y_tr, X_te, y_te) -> int:
    """CGH: a binary tree with real thresholds on the raw columns."""
    est = CGHClassifier(depth=args.depth, alpha=args.alpha, exact_pricing=args.exact_pricing,
                        time_limit=args.time_limit, random_state=args.seed,
                        verbose=args.verbose)
    return _fit_and_report(est, X_tr, y_tr, X_te, y_te, lambda: [
        f"status          : {est.status_}  (LP integral: {est.lp_integral_}, "
        f"LP bound {est.lp_bound_:g}, CART {est.cart_objective_} correct)"], args.out)


def _fit_omt(args, X_tr, y_tr, X_te, y_te) -> int:
    """OMT: a multiway-split tree from a path MIP solved by column generation."""
    order = [c for c in args.feature_order.split(",") if c] if args.feature_order else None
    est = OMTClassifier(depth=args.depth, leaves=args.leaves, min_support=args.min_support,
                        loss=args.omt_loss, k_best=args.k_best, exact_pricing=args.omt_exact,
                        max_iter=args.max_iter, n_bins=args.bins_omt, binning=args.binning,
                        ordinal={"auto": "auto", "yes": True, "no": False}[args.ordinal],
                        categorical_nodes=args.categorical_nodes,
                        feature_order=order, leaf_penalty=args.leaf_penalty,
                        time_limit=args.time_limit, random_state=args.seed,
                        verbose=args.verbose)
    return _fit_and_report(est, X_tr, y_tr, X_te, y_te, lambda: [
        f"status          : {est.status_}",
        f"objective       : {est.objective_:g}   LP bound: {est.bound_:g}   "
        f"gap (IP-LP)/IP: {est.gap_:.2%}"], args.out)


def _fit_and_report(est, X_tr, y_tr, X_te, y_te, summary, out: str | None = None) -> int:
    """Fit (time-limit warnings are reported in the status line), print the tree, the
    ``summary()`` lines, accuracies and time; save the model to ``out`` when given."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TimeLimitWarning)
        est.fit(X_tr, y_tr)
    print(est.tree_.export_text())
    print()
    print("\n".join(summary()))
    print(f"train accuracy  : {est.score(X_tr, y_tr):.4f}  (n={len(y_tr)})")
    if X_te is not None and len(y_te):
        print(f"test accuracy   : {est.score(X_te, y_te):.4f}  (n={len(y_te)})")
    detail = ""
    if hasattr(est, "n_bb_nodes_"):  # branch-and-bound methods
        detail = f" (solver {est.solve_seconds_:.2f}s, {est.n_bb_nodes_} B&B nodes)"
    print(f"time            : {est.fit_seconds_:.2f}s{detail}")
    if out:
        save_model(est, out)
        print(f"model written to {out}")
    return 0


def _fit_rug(args, X_tr, y_tr, X_te, y_te) -> int:
    """RUG / FairRUG: print the rules, interpretability metrics and fairness scores."""
    est = RUGClassifier(max_depth=args.depth, pen_par=args.pen_par,
                        max_rmp_calls=args.max_rmp_calls, threshold=args.threshold,
                        time_limit=args.time_limit, random_state=args.seed,
                        fairness=args.fairness, epsilon=args.epsilon, sensitive=args.sensitive,
                        lp_method=args.lp_method)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TimeLimitWarning)
        est.fit(X_tr, y_tr)
    print(est.export_text())
    print()
    print(f"status          : {est.status_}  ({est.n_rmp_calls_} master LPs, "
          f"{est.fit_seconds_:.2f}s)")
    parts = [("train", X_tr, y_tr)] + ([("test", X_te, y_te)] if X_te is not None else [])
    for name, X, y in parts:
        print(f"{name} accuracy  : {est.score(X, y):.4f}  (n={len(y)})")
        info = metrics.interpretability(est, X)
        print("                  " + "  ".join(f"{k} {v:.2f}" for k, v in info.items()))
        if args.sensitive is not None:
            pred, groups = est.predict(X), X[args.sensitive].to_numpy()
            print(f"                  DMC {metrics.dmc_score(y, pred, groups):.3f}  "
                  f"ODM {metrics.odm_score(y, pred, groups):.3f}  "
                  f"EOP {metrics.eop_score(y, pred, groups):.3f}")
    if args.out:
        save_model(est, args.out)
        print(f"model written to {args.out}")
    return 0


def cmd_predict(args: argparse.Namespace) -> int:
    _check_out(args.out)
    model = load_model(args.model)
    df = _read_csv(args.csv)
    pred = model.predict(df)
    out = pd.DataFrame({"prediction": pred})
    if args.out:
        write_atomic(args.out, out.to_csv(index=False))
        print(f"{len(out)} predictions written to {args.out}")
    else:
        out.to_csv(sys.stdout, index=False)
    return 0


def cmd_datasets(args: argparse.Namespace) -> int:
    table = list_datasets(args.data_dir)
    with pd.option_context("display.max_rows", None, "display.width", 120):
        print(table.to_string(index=False))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="optrees", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="BendersOCT depth 2 on the bundled monk1 data")
    fit = sub.add_parser("fit", help="fit an optimal tree and print it")
    fit.add_argument("--dataset", help="bundled or data-dir dataset name (see `optrees datasets`)")
    fit.add_argument("--csv", help="CSV file with a header row")
    fit.add_argument("--target", help="target column of --csv")
    fit.add_argument("--method", choices=sorted(METHODS), default="benders")
    fit.add_argument("--depth", type=int, default=2)
    fit.add_argument("--lam", type=float, default=0.0)
    fit.add_argument("--penalty", choices=["splits", "leaves"], default="splits",
                     help="splits: (1-lam)*correct - lam*splits; leaves: accuracy - lam*leaves")
    fit.add_argument("--time-limit", type=float, default=60.0)
    fit.add_argument("--test-size", type=float, default=0.25)
    fit.add_argument("--seed", type=int, default=0)
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
                     help="benders: D2S solution polishing (accel. §5.2; on by default)")
    fit.add_argument("--path-bound-cuts", nargs="?", const="basic", default=None,
                     choices=["off", "basic", "negative", "structure", "both"],
                     help="benders: D2S path-bound cuts (accel. §5.4; default 'both' = with "
                          "cuts (25) and (26))")
    fit.add_argument("--split-bound-cuts", action=argparse.BooleanOptionalAction,
                     default=None,
                     help="benders: D2S bounds for every split of a height-3 node (our "
                          "extension of accel. §5.4; on by default)")
    fit.add_argument("--strengthened-cuts", action="store_true",
                     help="benders: strengthened Benders cuts (accel. §5.1)")
    fit.add_argument("--eqp", choices=EQP_VARIANTS, default=None, metavar="H-G",
                     help="benders: equivalent-point inequalities (accel. §5.3), H in "
                          f"{', '.join(H_VARIANTS)}, G in {', '.join(G_VARIANTS)}; "
                          "e.g. recursive_da-group")
    fit.add_argument("--no-warm-start", action="store_true")
    cgh = fit.add_argument_group("cgh (column-generation heuristic on raw thresholds)")
    cgh.add_argument("--alpha", type=float, default=90.0, help="%% of rows per sampling CART")
    cgh.add_argument("--exact-pricing", choices=["auto", "enumerate", "milp", "none"],
                     default="auto")
    omt = fit.add_argument_group("omt (multiway-split tree: path MIP + column generation)")
    omt.add_argument("--leaves", type=int, default=None, help="max rules l (default 2^depth)")
    omt.add_argument("--min-support", type=float, default=0.01,
                     help="min samples per rule: a fraction (< 1) or a count")
    omt.add_argument("--omt-loss", choices=["misclassification", "weighted", "f1"],
                     default="misclassification")
    omt.add_argument("--k-best", type=int, default=1000, help="paths per pricing round (K)")
    omt.add_argument("--omt-exact", action="store_true", help="exact K-shortest-path pricing")
    omt.add_argument("--max-iter", type=int, default=40, help="column-generation rounds")
    omt.add_argument("--bins-omt", type=int, default=8, help="quantile bins of numeric columns")
    omt.add_argument("--binning", choices=["cumulative", "plain"], default="cumulative")
    omt.add_argument("--ordinal", choices=["auto", "yes", "no"], default="auto",
                     help="categories as ordered intervals: auto = ordered categoricals, "
                     "yes = also numeric-valued categories, no = none")
    omt.add_argument("--categorical-nodes", choices=["values", "complements", "subsets"],
                     default="values", help="graph nodes of a categorical column: one per "
                     "value (the paper), also '!= v', or every value subset (<= 5 values)")
    omt.add_argument("--feature-order", default=None, help="comma-separated column order")
    omt.add_argument("--leaf-penalty", type=float, default=0.0,
                     help="cost per rule in error rate (0 = the paper)")
    rug = fit.add_argument_group("rug (rule generation; --depth is the pricing-tree depth)")
    rug.add_argument("--pen-par", type=float, default=1.0, help="weight of the rule costs")
    rug.add_argument("--max-rmp-calls", type=int, default=10)
    rug.add_argument("--threshold", type=float, default=0.05,
                     help="drop rules lighter than threshold * largest weight")
    rug.add_argument("--fairness", choices=["dmc", "odm", "eop"], default=None)
    rug.add_argument("--sensitive", default=None, help="sensitive attribute column")
    rug.add_argument("--epsilon", type=float, default=0.025, help="fairness cap")
    rug.add_argument("--lp-method", choices=["simplex", "interior"], default="simplex",
                     help="master LP by simplex (few rules) or interior point stopped near "
                          "the optimum, as ruleopt (weight on many more rules)")
    fit.add_argument("-v", "--verbose", action="count", default=0,
                     help="-v: progress lines (bound, incumbent, gap); -vv: also the solver log")
    fit.add_argument("--out", help="write the fitted model as JSON")
    pred = sub.add_parser("predict", help="predict a CSV with a saved model")
    pred.add_argument("--model", required=True)
    pred.add_argument("--csv", required=True)
    pred.add_argument("--out", help="CSV for predictions (default: stdout)")
    ds = sub.add_parser("datasets", help="list datasets with their shapes")
    ds.add_argument("--data-dir", default=None, help="folder of non-bundled datasets")
    add_bench_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except _UsageError as exc:
        print(f"optrees: error: {exc}", file=sys.stderr)
        return 2
    handler = {"demo": cmd_demo, "fit": cmd_fit, "predict": cmd_predict,
               "datasets": cmd_datasets, "bench": cmd_bench}[args.command]
    start = time.perf_counter()
    try:
        code = handler(args)
    except (OptreesInputError, FileNotFoundError) as exc:
        print(f"optrees: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C outside a solve (a solve returns its incumbent)
        print("optrees: interrupted", file=sys.stderr)
        return 130
    if args.command == "demo":
        print(f"\ndemo finished in {time.perf_counter() - start:.1f}s")
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
