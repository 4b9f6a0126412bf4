"""OMT's defaults against scikit-learn CART: what a user gets from ``OMTClassifier().fit`` and
``OMTRegressor().fit`` (issue #22, items 3 and 5).

Classification (default): the [OMT] §6 splits (``optrees.bench.omt.SPLIT``: random
50/25/25, seeds 0..S-1) of its 12 data sets.  On train and validation (the default
``--fit-on train+val``; ``--fit-on train``: the train part only) are fitted
``DecisionTreeClassifier(max_depth=d)`` on the one-hot (binarized) table as the ``cart``
baseline of the harness, and ``OMTClassifier(depth=d)`` with each
``--penalties`` value (``default``: the estimator's default ``leaf_penalty=None``, a fixed
penalty for classification and ``auto`` for regression; ``auto``: the penalty chosen on an
internal validation part; ``0``: the paper's objective; default ``default,auto``) and
``--categorical-nodes`` when given.  Prints the mean
test accuracy per depth next to the paper's Table 1 OMT column (d = 4, 5) and the median fit
seconds.

Why train and validation: [OMT] §6 "closely follows" the setup of [FlowOCT] §4, which tunes
on the validation part and fits its final trees on train and validation; [OMT] does not say
what its validation part is for.  A default estimator tunes itself inside ``fit`` and needs no
validation part of its own, so it gets all rows but the test part, as CART does.

Regression (``--regression``): random 75/25 train/test splits (seeds 0..S-1) of diabetes
(scikit-learn's bundled copy), bupa (target: drinks, as UCI recommends; the "selector" column
dropped) and glass (target: the refractive index RI from the oxides; the class dropped);
``DecisionTreeRegressor(max_depth=d)`` against ``OMTRegressor(depth=d)`` per penalty, test
R² mean ± standard error over the splits.

    python bench/omt_default.py --depths 2,3,4,5 --seeds 5 --csv omt_default.csv
    python bench/omt_default.py --regression --depths 3,4 --seeds 5

Every fit is a row of ``--csv`` (resumable: rows already there are not refitted).  Timings
are wall-clock seconds of ``fit`` on whatever load the machine has.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeRegressor

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import OMTClassifier, OMTRegressor  # noqa: E402
from optrees.bench.omt import SPLIT, paper_value  # noqa: E402
from optrees.bench.protocols import OMT_DATASETS  # noqa: E402
from optrees.bench.tasks import CARTBaseline, load_data, split_data  # noqa: E402
from optrees.datasets import load_dataset  # noqa: E402

REGRESSION = ("diabetes", "bupa", "glass")


def regression_data(name: str) -> tuple[pd.DataFrame, np.ndarray]:
    """X, y of a regression data set of this benchmark (see the module docstring)."""
    if name == "diabetes":
        X, y = load_diabetes(return_X_y=True, as_frame=True)
        return X, y.to_numpy(dtype=float)
    X, _ = load_dataset(name)
    target = {"bupa": "drinks", "glass": "RI"}[name]
    return X.drop(columns=[target]), X[target].to_numpy(dtype=float)


def _penalty(text: str) -> float | str:
    """A ``--penalties`` word: "default" (the estimator's default, leaf_penalty=None),
    "auto" or a number."""
    return text if text in ("default", "auto") else float(text)


def _omt_row(est, fit, test) -> dict:
    """Fit ``est`` on ``fit`` and score it on ``test`` (``est.score``: accuracy of a
    classifier, R² of a regressor)."""
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(*fit)
    seconds = time.perf_counter() - t0
    if hasattr(est, "paths_"):
        leaves = len(est.paths_)
    elif hasattr(est, "get_n_leaves"):                  # scikit-learn's trees
        leaves = est.get_n_leaves()
    else:                                               # the harness's CART baseline
        leaves = est.tree_.get_n_leaves()
    return {"test": est.score(*test), "seconds": seconds,
            "chosen": getattr(est, "leaf_penalty_", np.nan), "leaves": leaves,
            "status": getattr(est, "status_", ""),
            # gap_: (nu_IP - bound_) / nu_IP, nan unless pricing proved the LP bound;
            # generated_lp_gap: the same against the last restricted master (generated rules)
            "gap": getattr(est, "gap_", np.nan),
            "generated_lp_gap": getattr(est, "stats_", {}).get("generated_lp_gap", np.nan)}


def tasks(args: argparse.Namespace):
    """(key, thunk) per fit: the baseline and OMT per penalty on every split and depth."""
    names = args.datasets.split(",") if args.datasets else (
        REGRESSION if args.regression else OMT_DATASETS)
    nodes = {} if args.categorical_nodes is None else {
        "categorical_nodes": args.categorical_nodes}
    tag = "" if args.categorical_nodes is None else f":{args.categorical_nodes}"
    for name in names:
        if args.regression:
            X, y = regression_data(name)
        else:
            X, y = load_data(name)
        for seed in range(args.seeds):
            if args.regression:
                X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25,
                                                          random_state=seed)
                fit, test = (X_tr, y_tr), (X_te, y_te)
            else:
                fit, val, test = split_data(X, y, SPLIT, seed)
                if args.fit_on == "train+val":
                    fit = (pd.concat([fit[0], val[0]]), pd.concat([fit[1], val[1]]))
            for depth in args.depths:
                key = (name, depth, seed)
                cart = (DecisionTreeRegressor(max_depth=depth, random_state=0)
                        if args.regression else CARTBaseline(depth=depth, random_state=0))
                yield (*key, "cart"), lambda e=cart, f=fit, t=test: _omt_row(e, f, t)
                cls = OMTRegressor if args.regression else OMTClassifier
                for lam in args.penalties:
                    est = cls(depth=depth, leaf_penalty=None if lam == "default" else lam,
                              time_limit=args.time_limit,
                              random_state=0, **nodes)
                    yield (*key, f"omt:{lam}{tag}"), lambda e=est, f=fit, t=test: \
                        _omt_row(e, f, t)


def summary(rows: pd.DataFrame, regression: bool) -> None:
    """Per depth and method: mean test score (± s.e. over splits of the per-split means),
    median seconds; classification also the paper's Table 1 column and CART."""
    for name, g in rows.groupby("dataset", sort=False):
        for (depth, method), h in g.groupby(["depth", "method"]):
            se = h["test"].std(ddof=1) / np.sqrt(len(h)) if len(h) > 1 else np.nan
            paper = "" if regression else f" paper {paper_value(name, int(depth)):.3f}"
            print(f"{name:15s} d={depth} {method:10s} test {h['test'].mean():.3f} ± {se:.3f}"
                  f"{paper}  median {h['seconds'].median():6.2f}s  leaves "
                  f"{h['leaves'].mean():5.1f}  lam {sorted(h['chosen'].dropna().round(4))}")
    print()
    for depth, g in rows.groupby("depth"):
        means = g.groupby(["method", "dataset"])["test"].mean().unstack("dataset")
        line = [f"d={depth}"]
        for method, m in means.iterrows():
            sec = g[g["method"] == method]["seconds"].median()
            line.append(f"{method} {m.mean():.4f} (median {sec:.2f}s)")
        for col, what in (("gap", "proved LP-IP gap"),
                          ("generated_lp_gap", "gap over generated rules")):
            if col not in g:  # distributions over the fits (#22: median <= 1 %)
                continue
            for method, h in g.dropna(subset=[col]).groupby("method"):
                q = np.percentile(100 * h[col], [25, 50, 75, 90])
                line.append(f"{method} {what} % quartiles {q[0]:.2f}/{q[1]:.2f}/{q[2]:.2f} "
                            f"p90 {q[3]:.2f} ({len(h)} of {int((g['method'] == method).sum())}"
                            " fits)")
        if not regression:
            ds = means.columns
            paper = np.array([paper_value(n, int(depth)) for n in ds])
            if np.isfinite(paper).all():
                line.append(f"paper {paper.mean():.4f}")
        print("  ".join(line))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--regression", action="store_true")
    ap.add_argument("--datasets", default="")
    ap.add_argument("--depths", default="2,3,4,5", type=lambda s: [int(v) for v in s.split(",")])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--penalties", default="default,auto",
                    type=lambda s: [_penalty(v) for v in s.split(",")])
    ap.add_argument("--fit-on", default="train+val", choices=("train", "train+val"),
                    help="classification: the part the trees are fitted on (see above)")
    ap.add_argument("--categorical-nodes", default=None,
                    choices=("values", "complements", "subsets"),
                    help="OMT's categorical_nodes (default: the estimator's; the method name "
                         "gets it as a suffix)")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--csv", default=None)
    args = ap.parse_args(argv)
    cols = ["dataset", "depth", "seed", "method"]
    done = pd.read_csv(args.csv) if args.csv and Path(args.csv).exists() else pd.DataFrame()
    have = set(map(tuple, done[cols].astype(str).to_numpy())) if len(done) else set()
    rows = [done] if len(done) else []
    for key, thunk in tasks(args):
        if tuple(map(str, key)) in have:
            continue
        row = {**dict(zip(cols, key, strict=True)), **thunk()}
        print(" ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}"
                       for k, v in row.items()), flush=True)
        rows.append(pd.DataFrame([row]))
        if args.csv:
            pd.concat(rows).to_csv(args.csv, index=False)
    table = pd.concat(rows)
    table = table[table["dataset"].isin(args.datasets.split(",") if args.datasets else (
        REGRESSION if args.regression else OMT_DATASETS)) & table["depth"].isin(args.depths)]
    summary(table, args.regression)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
