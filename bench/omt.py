"""OMT benchmark ([OMT] §6 protocol) and a synthetic scale test.

Accuracy/runtime: every dataset is split at random (seeds 0..S-1) into 50 % train / 25 %
validation / 25 % test; OMTClassifier with l = 2^d leaves, rule length <= d, min support 1 %,
K = 1000 (100 on large data), 40 CG iterations, 10,000 columns is fitted on the train part.
With several ``--leaf-penalties`` one tree is fitted per penalty and the one with the best
validation accuracy (ties: the larger penalty) is reported, as the FlowOCT protocol picks its
lambda (``--refit``: that penalty refitted on train + validation, as the FlowOCT protocol
does); with one value (default 0, the paper's objective) the validation part is unused.
Ordered categoricals (car-evaluation, breast-cancer ranges) are always binned over their
order; ``--ordinal`` also numeric-valued categories (balance-scale, monk, hayes-roth).
Prints one line per reported fit and a summary per dataset/depth: mean test accuracy next to
the paper's Table 1 OMT value (d = 4, 5), median seconds (of the reported fit; with a penalty
grid also the total over the grid), mean LP-IP gap, statuses.  ``--jobs N`` runs N fits at
once (timings are then taken on a loaded machine).

Scale: ``--scale N`` draws N rows with ``--scale-features`` numeric features whose label is a
noisy depth-3 tree, fits at ``--scale-depth`` and reports seconds, peak memory (RSS), train
accuracy and test accuracy on an independent draw, next to scikit-learn CART of the same
depth on the same data (OMT sees ``--n-bins`` quantile bins per feature, CART exact
thresholds).  Large data uses the merged-row master of :mod:`optrees.omt.master`.

    python bench/omt.py --datasets monk1,car-evaluation --depths 4 --seeds 5
    python bench/omt.py --depths 4,5 --ordinal --categorical-nodes complements \
        --leaf-penalties 0,0.002,0.005,0.01,0.02,0.04 --jobs 2
    python bench/omt.py --datasets HTRU_2,shuttle --depths 2,3 --k-best 100 --time-limit 3600
    python bench/omt.py --scale 1000000 --scale-features 18 --scale-depth 3
"""

from __future__ import annotations

import argparse
import csv
import multiprocessing
import os
import resource
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared" / "datasets"
if "OPTREES_DATA" not in os.environ and SHARED.is_dir():
    os.environ["OPTREES_DATA"] = str(SHARED)

from optrees.datasets import load_dataset  # noqa: E402
from optrees.estimators._base import TimeLimitWarning  # noqa: E402
from optrees.estimators.omt import OMTClassifier  # noqa: E402

SMALL = ["soybean-small", "monk3", "monk1", "hayes-roth", "monk2", "house-votes-84", "spect",
         "breast-cancer", "balance-scale", "tic-tac-toe", "car-evaluation", "kr-vs-kp"]
LARGE = ["HTRU_2", "shuttle", "skin", "magic"]
# the paper's Table 1, OMT column: mean test accuracy at d = 4 and d = 5 (reference only)
PAPER = {"soybean-small": (0.883, 0.95), "monk3": (0.987, 0.987), "monk1": (1.0, 1.0),
         "hayes-roth": (0.75, 0.77), "monk2": (0.603, 0.779), "house-votes-84": (0.962, 0.955),
         "spect": (0.834, 0.803), "breast-cancer": (0.74, 0.669),
         "balance-scale": (0.781, 0.772), "tic-tac-toe": (0.802, 0.82),
         "car-evaluation": (0.879, 0.91), "kr-vs-kp": (0.96, 0.968)}


def split(X, y, seed):
    """50 % train / 25 % validation / 25 % test."""
    X_tr, X_rest, y_tr, y_rest = train_test_split(X, y, train_size=0.5, random_state=seed)
    X_va, X_te, y_va, y_te = train_test_split(X_rest, y_rest, test_size=0.5, random_state=seed)
    return X_tr, y_tr, X_va, y_va, X_te, y_te


def fit_one(task: tuple) -> dict:
    """One OMT fit on one split (``part`` "train", or "train+val" for a refit); accuracies on
    train / validation / test (validation is NaN after a refit, which trains on it)."""
    name, d, seed, lam, opts, part = task
    X, y = load_dataset(name)
    X_tr, y_tr, X_va, y_va, X_te, y_te = split(X, y, seed)
    X_fit, y_fit = X_tr, y_tr
    if part == "train+val":
        X_fit, y_fit = pd.concat([X_tr, X_va]), pd.concat([y_tr, y_va])
    clf = OMTClassifier(depth=d, leaf_penalty=lam, random_state=seed, **opts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TimeLimitWarning)
        warnings.simplefilter("ignore", UserWarning)
        t0 = time.perf_counter()
        clf.fit(X_fit, y_fit)
        sec = time.perf_counter() - t0
        acc = {k: float(np.mean(clf.predict(A) == np.asarray(b)))
               for k, A, b in (("train", X_fit, y_fit), ("val", X_va, y_va),
                               ("test", X_te, y_te))}
    if part == "train+val":
        acc["val"] = float("nan")
    s = clf.stats_
    return {**task_key(task), "n": len(X), **acc, "seconds": sec, "status": clf.status_,
            "gap": clf.gap_, "mip_gap": clf.mip_gap_, "iterations": s["iterations"],
            "columns": s["columns"], "cg_seconds": s["cg_seconds"],
            "mip_seconds": s["mip_seconds"], "rules": len(clf.paths_)}


KEY = ("dataset", "depth", "seed", "leaf_penalty", "part", "time_limit", "categorical_nodes",
       "ordinal", "k_best", "n_bins")


def task_key(task: tuple) -> dict:
    name, d, seed, lam, opts, part = task
    return {"dataset": name, "depth": d, "seed": seed, "leaf_penalty": lam, "part": part,
            "time_limit": opts["time_limit"], "categorical_nodes": opts["categorical_nodes"],
            "ordinal": str(opts["ordinal"]), "k_best": opts["k_best"], "n_bins": opts["n_bins"]}


def key_of(r: dict) -> tuple:
    return tuple(str(float(r[k])) if k in ("leaf_penalty", "time_limit") else str(r[k])
                 for k in KEY)


def run_tasks(tasks: list, args, done: dict) -> list[dict]:
    """Fits of ``tasks`` (from ``done``, the CSV rows of an earlier run, where present); new
    fits are appended to the CSV as they finish."""
    todo = [t for t in tasks if key_of(task_key(t)) not in done]
    fits = [done[key_of(task_key(t))] for t in tasks if key_of(task_key(t)) in done]
    if not todo:
        return fits
    header = None
    if args.csv and os.path.exists(args.csv):  # append in the file's column order
        with open(args.csv, newline="") as f:
            header = next(csv.reader(f), None)
    out = open(args.csv, "a", newline="") if args.csv else None  # noqa: SIM115
    writer = None
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        for i, r in enumerate(pool.imap_unordered(fit_one, todo), 1):
            fits.append(r)
            print(f"[{i}/{len(todo)}] {r['dataset']} d={r['depth']} seed={r['seed']} "
                  f"lam={r['leaf_penalty']:g} {r['part']} test={r['test']:.3f} "
                  f"{r['seconds']:.1f}s", file=sys.stderr, flush=True)
            if out is not None:  # every fit, flushed as it finishes
                if writer is None:
                    writer = csv.DictWriter(out, fieldnames=header or list(r),
                                            extrasaction="ignore")
                    if header is None:
                        writer.writeheader()
                writer.writerow(r)
                out.flush()
    if out is not None:
        out.close()
    return fits


def select(fits: list[dict]) -> dict:
    """The fit with the best validation accuracy; ties go to the larger penalty."""
    best = max(fits, key=lambda r: (r["val"], r["leaf_penalty"]))
    return {**best, "grid_seconds": sum(r["seconds"] for r in fits)}


def synthetic(n: int, k: int, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """n x k standard normal features; label = noisy depth-3 threshold tree on 3 features."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, k)).astype(np.float32)
    a, b, c = X[:, 0] > 0.2, X[:, 1] > -0.5, X[:, 2] > 0.8
    y = np.where(a, b ^ c, b & ~c).astype(np.int64)
    flip = rng.random(n) < 0.1
    y[flip] = 1 - y[flip]
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(k)]), y


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_scale(args) -> int:
    """Fit OMT on ``--scale`` synthetic rows; report seconds, peak RSS (taken before CART
    runs), train / test accuracy (test: an independent draw of min(n, 200,000) rows) and
    scikit-learn CART at the same depth on the same data."""
    t0 = time.perf_counter()
    X, y = synthetic(args.scale, args.scale_features)
    X_te, y_te = synthetic(min(args.scale, 200_000), args.scale_features, seed=1)
    t_gen = time.perf_counter() - t0
    print(f"synthetic {args.scale} x {args.scale_features} generated in {t_gen:.1f}s, "
          f"RSS {peak_mb():.0f} MB", flush=True)
    clf = OMTClassifier(depth=args.scale_depth, k_best=args.k_best or 100,
                        beam=args.beam, n_bins=args.n_bins, time_limit=args.time_limit,
                        random_state=0)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        clf.fit(X, y)
        sec = time.perf_counter() - t0
    acc = float(np.mean(clf.predict(X) == y))
    test = float(np.mean(clf.predict(X_te) == y_te))
    peak = peak_mb()
    s = clf.stats_
    print(f"fit {sec:.1f}s  train acc {acc:.4f}  test acc {test:.4f}  status {clf.status_}  "
          f"units {s['units']}  iterations {s['iterations']}  columns {s['columns']}  "
          f"pricing {s['pricing_seconds']:.1f}s  LP {s['lp_seconds']:.1f}s  "
          f"MIP {s['mip_seconds']:.1f}s  gap {clf.gap_:.4f}  rules {len(clf.paths_)}  "
          f"peak RSS {peak:.0f} MB", flush=True)
    cart = DecisionTreeClassifier(max_depth=args.scale_depth, random_state=0)
    t0 = time.perf_counter()
    cart.fit(X, y)
    print(f"CART d={args.scale_depth}: {time.perf_counter() - t0:.1f}s  train acc "
          f"{cart.score(X, y):.4f}  test acc {cart.score(X_te, y_te):.4f}  "
          f"(OMT train {acc:.4f}, test {test:.4f})")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", default=",".join(SMALL))
    ap.add_argument("--depths", default="2,3,4,5")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--time-limit", type=float, default=1200.0)
    ap.add_argument("--k-best", type=int, default=None, help="K (default 1000, large: 100)")
    ap.add_argument("--beam", type=int, default=None)
    ap.add_argument("--n-bins", type=int, default=8)
    ap.add_argument("--categorical-nodes", default="values")
    ap.add_argument("--ordinal", action="store_true")
    ap.add_argument("--leaf-penalties", default="0",
                    help="comma-separated; several: pick by validation accuracy")
    ap.add_argument("--refit", action="store_true",
                    help="refit the selected penalty on train + validation (FlowOCT protocol)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--csv", default=None,
                    help="every fit (all penalties) is appended here; fits already in the "
                    "file (same dataset, depth, seed, penalty and options) are reused")
    ap.add_argument("--scale", type=int, default=0)
    ap.add_argument("--scale-features", type=int, default=18)
    ap.add_argument("--scale-depth", type=int, default=3)
    args = ap.parse_args(argv)
    if args.scale:
        return run_scale(args)
    lams = [float(v) for v in args.leaf_penalties.split(",")]
    tasks, options = [], {}
    for name in args.datasets.split(","):
        load_dataset(name)  # fail early on an unknown name
        options[name] = {"k_best": args.k_best or (100 if name in LARGE else 1000),
                         "beam": args.beam, "n_bins": args.n_bins,
                         "time_limit": args.time_limit,
                         "categorical_nodes": args.categorical_nodes,
                         "ordinal": True if args.ordinal else "auto"}
        tasks += [(name, d, seed, lam, options[name], "train")
                  for d in map(int, args.depths.split(",")) for seed in range(args.seeds)
                  for lam in lams]
    done = {}
    if args.csv and os.path.exists(args.csv):  # resume: reuse the fits of an earlier run
        done = {key_of(r): r for r in pd.read_csv(args.csv).to_dict("records")}
    fits = run_tasks(tasks, args, done)
    groups: dict[tuple, list[dict]] = {}
    for r in fits:
        groups.setdefault((r["dataset"], r["depth"], r["seed"]), []).append(r)
    rows = [select(g) for g in groups.values()]
    if args.refit:  # the selected penalty, refitted on train + validation
        refits = run_tasks([(r["dataset"], r["depth"], r["seed"], r["leaf_penalty"],
                             options[r["dataset"]], "train+val") for r in rows], args, done)
        by_split = {(r["dataset"], r["depth"], r["seed"]): r for r in refits}
        rows = [{**by_split[(r["dataset"], r["depth"], r["seed"])],
                 "grid_seconds": r["grid_seconds"], "val": r["val"]} for r in rows]
    rows.sort(key=lambda r: (args.datasets.split(",").index(r["dataset"]), r["depth"],
                             r["seed"]))
    for r in rows:
        print(f"{r['dataset']:15s} d={r['depth']} seed={r['seed']} lam={r['leaf_penalty']:g} "
              f"({r['part']}) train={r['train']:.3f} val={r['val']:.3f} test={r['test']:.3f} "
              f"{r['seconds']:7.2f}s (CG {r['cg_seconds']:.2f}s, MIP {r['mip_seconds']:.2f}s; "
              f"grid {r['grid_seconds']:.1f}s) gap={r['gap']:.4f} {r['status']} "
              f"it={r['iterations']} cols={r['columns']} rules={r['rules']}", flush=True)
    df = pd.DataFrame(rows)
    print("\nsummary: mean test acc (paper Table 1 OMT at d=4/5), median seconds, mean gap")
    for (name, d), g in df.groupby(["dataset", "depth"], sort=False):
        ref = PAPER.get(name, (None, None))
        paper = ref[0] if d == 4 else ref[1] if d == 5 else None
        pstr = f"{paper:.3f}" if paper is not None else "  -  "
        print(f"{name:15s} d={d} test={g.test.mean():.3f} (paper {pstr}) "
              f"median {g.seconds.median():7.2f}s (grid {g.grid_seconds.median():.1f}s)  "
              f"gap {g.gap.mean():.4f}  lam {sorted(g.leaf_penalty)}  "
              f"{dict(g.status.value_counts())}")
    df["paper"] = [PAPER.get(n, (np.nan, np.nan))[d - 4] if d in (4, 5) else np.nan
                   for n, d in zip(df.dataset, df.depth, strict=True)]
    means = df.dropna(subset=["paper"]).groupby(["dataset", "depth"])[["test", "paper"]].mean()
    if len(means):
        diff = means.test - means.paper
        print(f"test - paper over {len(diff)} dataset/depth pairs: mean {100 * diff.mean():+.2f}"
              f" points, {int((diff >= -0.015).sum())} within 1.5 points or better")
    for d, g in df.groupby("depth"):
        med = g.groupby("dataset").seconds.median()
        print(f"d={d}: median runtime over all fits {g.seconds.median():.2f}s; "
              f"per-dataset medians {med.round(2).to_dict()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
