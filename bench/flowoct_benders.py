"""FlowOCT vs. Benders benchmark, following the protocol of the FlowOCT paper (§4).

Each dataset is split (stratified, ``random_state=seed``) into 50% train / 25% validation /
25% test. For every dataset x depth x lambda x method x seed one tree is fitted on the train
part and a CSV row is appended (and flushed) to ``--out`` as soon as the fit finishes, so
partial results survive an interrupted run. The file is appended to; the header is written
only when the file is new. At the end a summary table of *this* invocation is printed, with
the two headline targets for balance-scale, and a list of sanity-check failures (objective
above bound, objective inconsistent with the training accuracy, tree deeper than asked, ...).

``--select-lam`` additionally does the paper's model selection: per (dataset, depth, method,
seed) it picks the lambda with the best validation accuracy (ties -> larger lambda, i.e. the
simpler tree), refits on train+validation with it and reports the test accuracy averaged over
seeds (like Table 2 of the paper); those rows go to ``<out>_selected.csv``.

Usage (from the repository root)::

    python bench/flowoct_benders.py --quick
    python bench/flowoct_benders.py --datasets balance-scale --depths 3 --lams 0 \\
        --methods benders --time-limit 300
    python bench/flowoct_benders.py --seeds 5 --time-limit 3600 --select-lam   # full paper grid
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
import warnings
from functools import partial
from pathlib import Path

import pandas as pd
from sklearn.model_selection import train_test_split

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import (  # noqa: E402
    BendersOCTClassifier,
    FlowOCTClassifier,
    TimeLimitWarning,
    load_dataset,
)
from optrees.bench.protocols import FLOW_DATASETS  # noqa: E402
from optrees.bench.tasks import PLAIN_BENDERS  # noqa: E402

DATASETS = list(FLOW_DATASETS)
# "benders" = the estimator's defaults (eq. 8 + path-bound cuts and polishing of
# accelerated-bendoct.txt); "benders-plain" = eq. (8) as published
METHODS = {"flow": FlowOCTClassifier, "benders": BendersOCTClassifier,
           "benders-plain": partial(BendersOCTClassifier, **PLAIN_BENDERS)}
COLUMNS = ["dataset", "n_train", "n_features_binary", "depth", "lam", "method", "seed",
           "seconds", "solve_seconds", "status", "gap", "objective", "bound", "bb_nodes",
           "train_acc", "val_acc", "test_acc"]
TOL = 1e-6


def csv_list(conv):
    """argparse type for comma-separated lists, e.g. ``--depths 2,3``."""
    def parse(text: str) -> list:
        return [conv(v) for v in text.split(",") if v.strip()]
    return parse


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--datasets", type=csv_list(str), default=DATASETS)
    p.add_argument("--depths", type=csv_list(int), default=[2, 3, 4, 5])
    p.add_argument("--lams", type=csv_list(float), default=[round(0.1 * j, 1) for j in range(10)])
    p.add_argument("--methods", type=csv_list(str), default=["flow", "benders-plain", "benders"])
    p.add_argument("--seeds", type=int, default=5, help="number of splits (seeds 0..S-1)")
    p.add_argument("--time-limit", type=float, default=60.0, help="seconds per fit")
    p.add_argument("--out", type=Path, default=Path("bench/results/flowoct_benders.csv"))
    p.add_argument("--quick", action="store_true",
                   help="balance-scale + monk1, depth 2, lam in {0, 0.1}, all methods, 1 seed")
    p.add_argument("--select-lam", action="store_true",
                   help="pick lambda on validation, refit on train+val, report test accuracy")
    args = p.parse_args(argv)
    if args.quick:
        args.datasets, args.depths, args.lams = ["balance-scale", "monk1"], [2], [0.0, 0.1]
        args.methods, args.seeds = ["flow", "benders-plain", "benders"], 1
    unknown = set(args.methods) - set(METHODS)
    if unknown:
        p.error(f"unknown method(s) {sorted(unknown)}; choose from {sorted(METHODS)}")
    return args


def split(X, y, seed: int):
    """50/25/25 stratified train/validation/test split."""
    X_rest, X_te, y_rest, y_te = train_test_split(
        X, y, test_size=0.25, stratify=y, random_state=seed)
    X_tr, X_va, y_tr, y_va = train_test_split(
        X_rest, y_rest, test_size=1 / 3, stratify=y_rest, random_state=seed)
    return (X_tr, y_tr), (X_va, y_va), (X_te, y_te)


def fit(method: str, depth: int, lam: float, seed: int, limit: float, X, y, issues: list):
    est = METHODS[method](depth=depth, lam=lam, time_limit=limit, binarizer="auto",
                          warm_start=True, random_state=seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y)
    for w in caught:
        if not issubclass(w.category, TimeLimitWarning):
            issues.append(f"{w.category.__name__}: {w.message}")
    return est


def check(est, tag: str, X_tr, y_tr, issues: list) -> None:
    """Sanity checks on a fitted estimator; failures are appended to ``issues``."""
    train_acc = est.score(X_tr, y_tr)
    implied = (1 - est.lam) * train_acc * len(y_tr) - est.lam * est.tree_.n_splits
    if abs(implied - est.objective_) > TOL:
        issues.append(f"{tag}: objective {est.objective_:.6g} != (1-lam)*correct - lam*splits"
                      f" = {implied:.6g}")
    if est.objective_ > est.bound_ + TOL:
        issues.append(f"{tag}: objective {est.objective_:.6g} > bound {est.bound_:.6g}")
    if est.status_ == "optimal" and est.gap_ > TOL:
        issues.append(f"{tag}: status optimal but gap {est.gap_:.3g}")
    if est.tree_.depth > est.depth:
        issues.append(f"{tag}: tree depth {est.tree_.depth} > {est.depth}")


def cross_check(df: pd.DataFrame, issues: list) -> None:
    """Same instance, different methods: no objective may exceed another method's bound."""
    for key, grp in df.groupby(["dataset", "depth", "lam", "seed"]):
        if grp.objective.max() > grp.bound.min() + TOL:
            issues.append(f"{key}: best objective {grp.objective.max():.6g} exceeds the "
                          f"bound {grp.bound.min():.6g} proven by another method")


def run_grid(args, issues: list) -> pd.DataFrame:
    args.out.parent.mkdir(parents=True, exist_ok=True)
    new_file = not args.out.exists() or args.out.stat().st_size == 0
    rows = []
    with args.out.open("a", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS)
        if new_file:
            writer.writeheader()
            fh.flush()
        for name in args.datasets:
            X, y = load_dataset(name)
            for seed in range(args.seeds):
                (X_tr, y_tr), (X_va, y_va), (X_te, y_te) = split(X, y, seed)
                for depth in args.depths:
                    for lam in args.lams:
                        for method in args.methods:
                            est = fit(method, depth, lam, seed, args.time_limit,
                                      X_tr, y_tr, issues)
                            tag = f"{name} d={depth} lam={lam:g} {method} seed={seed}"
                            check(est, tag, X_tr, y_tr, issues)
                            row = dict(
                                dataset=name, n_train=len(y_tr),
                                n_features_binary=len(est.feature_names_), depth=depth,
                                lam=lam, method=method, seed=seed,
                                seconds=round(est.fit_seconds_, 3),
                                solve_seconds=round(est.solve_seconds_, 3),
                                status=est.status_, gap=est.gap_, objective=est.objective_,
                                bound=est.bound_, bb_nodes=est.n_bb_nodes_,
                                train_acc=est.score(X_tr, y_tr), val_acc=est.score(X_va, y_va),
                                test_acc=est.score(X_te, y_te))
                            writer.writerow(row)
                            fh.flush()
                            rows.append(row)
                            print(f"{tag}: {est.status_} {est.fit_seconds_:.2f}s "
                                  f"gap={est.gap_:.3g} test={row['test_acc']:.3f}", flush=True)
    return pd.DataFrame(rows, columns=COLUMNS)


def summarize(df: pd.DataFrame) -> None:
    table = df.groupby(["dataset", "depth", "method"], sort=False).agg(
        runs=("status", "size"),
        optimal=("status", lambda s: int((s == "optimal").sum())),
        median_s=("seconds", "median"),
        mean_gap=("gap", "mean"),
        mean_test_acc=("test_acc", "mean"))
    print("\n=== summary (per dataset/depth/method) ===")
    print(table.to_string(float_format=lambda v: f"{v:.4f}"))

    print("\n=== targets ===")
    for method in ("benders", "benders-plain"):
        bs = df[(df.dataset == "balance-scale") & (df.method == method)]
        print(f"balance-scale d=2 λ∈{{0,0.1}} {method} seconds to optimality:")
        t1 = bs[(bs.depth == 2) & bs.lam.isin([0.0, 0.1])]
        for r in t1.itertuples():
            print(f"  λ={r.lam:g} seed={r.seed}: {r.status}, {r.seconds:.2f}s "
                  f"(solver {r.solve_seconds:.2f}s)")
        if t1.empty:
            print("  (not run)")
        print(f"balance-scale d=3 λ=0 {method} status/seconds:")
        t2 = bs[(bs.depth == 3) & (bs.lam == 0.0)]
        for r in t2.itertuples():
            print(f"  seed={r.seed}: {r.status}, {r.seconds:.2f}s, gap={r.gap:.4g}, "
                  f"obj={r.objective:g}, bound={r.bound:g}, nodes={r.bb_nodes}")
        if t2.empty:
            print("  (not run)")


def select_lam(args, df: pd.DataFrame, issues: list) -> None:
    """Paper's model selection: best validation lambda, refit on train+val, test accuracy."""
    rows = []
    for (name, depth, method, seed), grp in df.groupby(["dataset", "depth", "method", "seed"]):
        best = grp.sort_values(["val_acc", "lam"], ascending=False).iloc[0]
        X, y = load_dataset(name)
        (X_tr, y_tr), (X_va, y_va), (X_te, y_te) = split(X, y, int(seed))
        X_tv, y_tv = pd.concat([X_tr, X_va]), pd.concat([y_tr, y_va])
        est = fit(method, int(depth), float(best.lam), int(seed), args.time_limit,
                  X_tv, y_tv, issues)
        check(est, f"select {name} d={depth} {method} seed={seed}", X_tv, y_tv, issues)
        rows.append(dict(dataset=name, depth=depth, method=method, seed=seed, lam=best.lam,
                         status=est.status_, seconds=round(est.fit_seconds_, 3),
                         test_acc=est.score(X_te, y_te)))
    sel = pd.DataFrame(rows)
    out = args.out.with_name(args.out.stem + "_selected.csv")
    sel.to_csv(out, index=False)
    table = sel.pivot_table(index=["dataset", "depth"], columns="method",
                            values="test_acc", aggfunc="mean", sort=False)
    table = table.reindex(columns=[m for m in args.methods if m in table.columns]) * 100
    print(f"\n=== out-of-sample accuracy (%) after λ selection, mean over seeds -> {out} ===")
    print(table.to_string(float_format=lambda v: f"{v:.1f}"))
    print("\nselected λ per (dataset, depth, method, seed):")
    print(sel[["dataset", "depth", "method", "seed", "lam", "status"]].to_string(index=False))


def main(argv=None) -> None:
    args = parse_args(argv)
    t0 = time.perf_counter()
    issues: list[str] = []
    df = run_grid(args, issues)
    cross_check(df, issues)
    summarize(df)
    if args.select_lam:
        select_lam(args, df, issues)
    print(f"\nsanity checks: {'OK' if not issues else f'{len(issues)} problem(s)'}")
    for msg in issues:
        print(f"  ! {msg}")
    print(f"rows appended to {args.out}; wall time {time.perf_counter() - t0:.1f}s")


if __name__ == "__main__":
    main()
