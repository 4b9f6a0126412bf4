"""``optrees rashomon --csv F --target y --epsilon E``: the Rashomon set of a CSV file
(:func:`optrees.trees.rashomon_set`): its exact count, the optimum, the best few trees and
each literal's share of the set's trees."""

from __future__ import annotations

import argparse
from typing import Any

from .cli_base import DROPNA_HELP, NA_HELP, NAMES_HELP, SEP_HELP, _HelpFormatter, _UsageError
from .fairness_vocabulary import TREE_NOTIONS as FAIRNESS


def add_rashomon_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``rashomon`` sub-command to an ``argparse`` subparsers object; return it."""
    p = subparsers.add_parser(
        "rashomon", formatter_class=_HelpFormatter,
        help="count every tree within (1 + epsilon) of the optimum (TreeFARMS's objective: "
             "misclassification rate + lam * leaves); print the best few and each literal's "
             "share of the set")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--csv", help="CSV file with a header row, or --names")
    source.add_argument("--dataset", help="a bundled or $OPTREES_DATA dataset name")
    p.add_argument("--target", default=None, help="target column of --csv")
    p.add_argument("--depth", type=int, default=3, help="largest depth of the trees (<= 4; "
                   "<= 3 over every threshold of numeric columns)")
    p.add_argument("--lam", type=float, default=0.01, help="penalty per leaf")
    p.add_argument("--epsilon", type=float, required=True,
                   help="the set's bound: (1 + epsilon) x the optimum (+ epsilon with "
                        "--additive)")
    p.add_argument("--additive", action="store_true", help="bound = optimum + epsilon")
    p.add_argument("--max-trees", type=int, default=3,
                   help="how many of the best trees to print")
    p.add_argument("--max-leaves", type=int, default=None, help="most leaves of a tree")
    p.add_argument("--min-samples-leaf", type=int, default=1, help="fewest rows in a leaf")
    p.add_argument("--max-nodes", type=int, default=None,
                   help="cap on the set's stored entries (about 60 bytes each; default "
                        "10,000,000): a larger set is counted, not listed")
    p.add_argument("--binarize", action="store_true",
                   help="the Binarizer's quantile cuts of every column (default: 0/1 columns "
                        "as they are, categories one-hot, numeric columns over every "
                        "threshold at depth <= 3)")
    p.add_argument("--time-limit", type=float, default=None,
                   help="seconds to prove the optimum (default: none)")
    p.add_argument("--weight-column", default=None, help="column of row weights (>= 0)")
    p.add_argument("--top-features", type=int, default=10,
                   help="how many literals of the importance table to print")
    p.add_argument("--sep", default=None, help=SEP_HELP)
    p.add_argument("--dropna", action="store_true", help=DROPNA_HELP)
    p.add_argument("--na", action="append", default=None, metavar="MARKER", help=NA_HELP)
    p.add_argument("--names", default=None, metavar="NAME,...", help=NAMES_HELP)
    p.add_argument("--drop", default=None, metavar="COL,...",
                   help="columns of --csv that are not features (default: none)")
    fair = p.add_argument_group("fairness (the set of fair trees: each tree's leaves labelled "
                                "freely, its training gap within the cap, its objective within "
                                "the bound of the certified fair optimum)")
    fair.add_argument("--fairness", default=None, choices=list(FAIRNESS),
                      help="group-fairness notion of the trees (needs --sensitive)")
    fair.add_argument("--sensitive", default=None, help="sensitive attribute column")
    fair.add_argument("--fairness-cap", type=float, default=0.05,
                      help="largest gap between two groups (BendOCT's epsilon)")
    fair.add_argument("--positive-class", default=None,
                      help="the class whose predictions are compared (default: the last)")
    fair.add_argument("--legitimate", default=None,
                      help="legitimate attribute column of conditional_parity")
    fair.add_argument("--drop-sensitive", action="store_true",
                      help="keep the sensitive column out of the trees' tests")
    return p


def cmd_rashomon(args: argparse.Namespace) -> int:
    """Read the data as ``optrees fit`` does, build the set, print it."""
    from . import cli_data as data
    from ._validation import OptreesInputError
    from .trees import rashomon_set
    from .trees.solve.rashomon import MAX_NODES

    if args.csv is not None and args.target is None:
        raise _UsageError("--csv needs --target (the target column)")
    for flag in ("max_trees", "top_features"):
        if getattr(args, flag) < 0:
            raise _UsageError(f"--{flag.replace('_', '-')} must be >= 0, got "
                              f"{getattr(args, flag)}")
    X, y = data.load_data(args)
    w = None
    if args.weight_column is not None:
        X, w = _weights(X, args.weight_column)
    if args.fairness is None and any(getattr(args, flag) is not None for flag in
                                     ("sensitive", "positive_class", "legitimate")):
        raise _UsageError("--sensitive, --positive-class and --legitimate need --fairness")
    if args.fairness is not None and args.sensitive is None:
        raise _UsageError("--fairness needs --sensitive COLUMN (the sensitive attribute)")
    try:
        if args.fairness is not None:
            rs = _fair_set(X, y, w, args)
        else:
                rs = rashomon_set(X, y, depth=args.depth, lam=args.lam, epsilon=args.epsilon,
                              additive=args.additive, min_samples_leaf=args.min_samples_leaf,
                              sample_weight=w, max_leaves=args.max_leaves,
                              max_nodes=MAX_NODES if args.max_nodes is None else
                              args.max_nodes, time_limit=args.time_limit,
                              binarizer="auto" if args.binarize else None)
    except OptreesInputError as exc:  # the library's advice, in the command's words
        text = str(exc).replace("give binarizer='auto' or a Binarizer", "give --binarize")
        raise _UsageError(text.replace("pass a binarizer", "give --binarize")) from exc
    print(report(rs, args, len(X)))
    return 0


def _fair_set(X: Any, y: Any, w: Any, args: argparse.Namespace) -> Any:
    """The fair set: BendOCT certifies the fair optimum, its ``rashomon`` lists the set."""
    from . import cli_data as data
    from .estimators.trees import BendOCTClassifier
    from .trees.solve.rashomon import MAX_NODES

    positive = None if args.positive_class is None else \
        data.label(args.positive_class, y, "--positive-class")
    fit = BendOCTClassifier(
        depth=args.depth, lam=args.lam, fairness=args.fairness, epsilon=args.fairness_cap,
        sensitive=args.sensitive, positive_class=positive, legitimate=args.legitimate,
        drop_sensitive=args.drop_sensitive, min_samples_leaf=args.min_samples_leaf,
        max_leaves=args.max_leaves, time_limit=args.time_limit)  # binarizer "auto": 0/1
    fit.fit(X, y, sample_weight=w)
    return fit.rashomon(args.epsilon, additive=args.additive,
                        max_nodes=MAX_NODES if args.max_nodes is None else args.max_nodes)


def _weights(X: Any, column: str) -> tuple[Any, Any]:
    from .cli_data import row_weights

    if column not in X.columns:
        raise _UsageError(f"--weight-column {column!r} is not a column of the data "
                          f"(columns: {list(X.columns)})")
    return X.drop(columns=[column]), row_weights(X, column)


def report(rs: Any, args: argparse.Namespace, n_rows: int) -> str:
    """The printed report of a set."""
    kind = f"optimum + {args.epsilon:g}" if rs.additive else f"(1 + {args.epsilon:g}) x optimum"
    source = args.csv if args.csv is not None else args.dataset
    leaves = "" if rs.max_leaves is None else f", at most {rs.max_leaves} leaves"
    lines = [f"Rashomon set on {source}: {n_rows} rows, {len(rs.feature_names)} literals; "
             f"depth <= {rs.depth}, lam {rs.lam:g}{leaves}",
             f"objective: misclassification rate + lam * leaves (TreeFARMS's); optimum "
             f"{rs.optimum:.6g}, bound {kind} = {rs.bound:.6g}",
             f"trees in the set: {len(rs):,} (exact)"]
    if getattr(rs, "fairness", None) is not None:
        lines[1] = lines[1].replace("optimum", "fair optimum", 1)
        lines.insert(2, f"fairness: {rs.fairness} <= {rs.cap:g} on the training rows, leaves "
                        f"labelled freely; the set's largest gap {rs.gaps.max():.4f} "
                        f"({rs.n_structures:,} tree structures checked)")
    if not rs.listable:
        values, counts = rs.objective_counts()
        lines += [f"too many to list under max_nodes={rs.max_nodes:,} (counted, not stored); "
                  f"raise --max-nodes, lower --epsilon or raise --lam to list them",
                  f"objectives: {len(values):,} distinct, the best {values[0]:.6g} "
                  f"({counts[0]:,} trees)"]
        return "\n".join(lines)
    for i in range(min(args.max_trees, len(rs))):
        tree = rs[i]
        lines += ["", f"tree {i}: objective {tree.objective:.6g}, {tree.n_leaves} leaves",
                  tree.export_text().rstrip()]
    if args.top_features:
        share = rs.feature_importance().sort_values(ascending=False, kind="stable")
        top = share.head(args.top_features)
        width = max(len(str(name)) for name in top.index)
        lines += ["", "share of the set's trees splitting on each literal (the highest "
                  f"{len(top)} of {len(share)}):"]
        lines += [f"  {str(name).ljust(width)}  {value:.4f}" for name, value in top.items()]
    return "\n".join(lines)
