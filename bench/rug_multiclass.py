"""Multi-class RUG (optrees) against ruleopt 1.2.1 on every multi-class data set (issue #42
item 7): the same stratified 70/30 splits, the same encoded matrix, three settings.

Usage:  OPTREES_DATA=../shared/datasets PYTHONPATH=$PWD python bench/rug_multiclass.py
        [--datasets iris,wine,...] [--settings d3,defaults,own] [--seeds 0-9]
        [--max-rows 3000] [--rule-labels auto] [--csv rows.csv]

Settings:
- ``d3``: ``max_depth=3``, 10 pricing rounds (optrees: 11 master LPs, as ruleopt counts
  rounds after the first LP), rule cost = length, ruleopt's objective weight
  ``penalty / longest first rule`` as optrees' ``pen_par``, threshold 1e-6
  (:func:`optrees.bench.peers.ruleopt_fit` / ``optrees_rug_fit``, as bench/rug_vs_ruleopt.py);
- ``defaults``: ruleopt's defaults, ``ruleopt.RUGClassifier(solver=HiGHSSolver(),
  random_state=s)`` (Gini rule cost, trees grown until pure, 10 rounds, threshold 1e-6),
  against optrees given the same (:data:`RULEOPT_DEFAULTS`);
- ``own``: each package at its own defaults, as a new user gets it: ruleopt as above
  against ``optrees.RUGClassifier(random_state=s)`` (depth 3, length cost, pen_par 1, 10
  LPs, threshold 0.05): the depth differs, so this compares defaults, not methods.

Data sets: the data directory's multi-class sets (``optrees.datasets`` names) and
scikit-learn's loaders (``sk-iris``, ``sk-wine``, ``sk-digits``).  Both get the matrix
optrees' pricing trees see (numeric columns as they are, categoricals one-hot); ruleopt's
classes are the label indices.  ``NAME:ordinal`` gives both the ordered categorical columns
as their integer codes instead (e.g. ``car-evaluation:ordinal``: thresholds such as
``safety <= med``).  ``--max-rows``: larger sets are first reduced to a stratified sample of
that many rows (seed 0), so that one run stays within minutes; ``n=`` shows the rows used.

Prints a line per split and setting, then per data set and setting the mean test accuracy
of both, the paired difference optrees - ruleopt (points, mean +- standard error) and the
ratio of mean fit times.  Results measured with it are in bench/README.md
("rug_multiclass.py").
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees.bench import peers  # noqa: E402
from optrees.bench.scripts import checkout_data_dir  # noqa: E402
from optrees.bench.tasks import load_data  # noqa: E402

DATASETS = ("iris", "wine", "seeds", "ecoli", "glass", "soybean-small", "hayes-roth",
            "balance-scale", "car-evaluation", "student", "nursery", "ann-thyroid",
            "statlog-satellite", "law", "shuttle", "letter", "sk-iris", "sk-wine", "sk-digits")
"""Every multi-class data set of the data directory, then scikit-learn's loaders."""
RULEOPT_DEFAULTS = dict(max_depth=64, pen_par=1.0, max_rmp_calls=11, threshold=1e-6,
                        rule_length_cost=False)
"""ruleopt's defaults in optrees' parameters: trees grown until pure (``max_depth=None``;
64 is never reached here), 10 pricing rounds (11 LPs), weights above 1e-6 kept, penalty 1
on the Gini cost scaled by 1 / (largest Gini cost of the first tree's leaves): the first
tree's leaves are pure, of cost ``eps``, so every pure rule costs 1 after scaling, as rule
cost 1 (``rule_length_cost=False``) does; an impure leaf would cost far more (not
expressible in optrees, and rare when trees grow until pure)."""


def load(name: str) -> tuple[pd.DataFrame, np.ndarray]:
    """``X, y`` of a data directory set or of a scikit-learn loader (``sk-``); ``NAME:ordinal``:
    its ordered categorical columns as their codes (a numeric column for both packages)."""
    if name.startswith("sk-"):
        from sklearn import datasets

        bunch = getattr(datasets, f"load_{name[3:]}")(as_frame=True)
        return bunch.data, bunch.target.to_numpy()
    if name.endswith(":ordinal"):  # ordered categoricals as their codes 0, 1, ... (numeric)
        X, y = load(name[: -len(":ordinal")])
        return X.apply(lambda c: c.cat.codes.astype(float) if isinstance(
            c.dtype, pd.CategoricalDtype) and c.cat.ordered else c), y
    X, y = load_data(name)
    return X, y.to_numpy()


def reduce(X: pd.DataFrame, y: np.ndarray, max_rows: int) -> tuple[pd.DataFrame, np.ndarray]:
    """A stratified sample of ``max_rows`` rows (seed 0) when there are more."""
    if len(y) <= max_rows:
        return X, y
    _, counts = np.unique(y, return_counts=True)
    strat = y if counts.min() >= 2 else None
    X, _, y, _ = train_test_split(X, y, train_size=max_rows, random_state=0, stratify=strat)
    return X, y


def fit_pair(setting: str, Xtr: pd.DataFrame, Xte: pd.DataFrame, ytr: np.ndarray,
             yte: np.ndarray, seed: int, rule_labels: str) -> dict:
    """One split, one setting: ruleopt and optrees on the same matrix and rows."""
    from optrees import RUGClassifier
    from optrees.encoding.columns import RawColumns

    raw = RawColumns(Xtr)
    Mte = raw.encode_rows(RawColumns(Xte), np.arange(len(Xte)))
    classes, ytr_i = np.unique(ytr, return_inverse=True)
    if setting == "d3":
        ro, ro_s, pen_par = peers.ruleopt_fit(raw.matrix, ytr_i, 3, 10, 1.0, seed)
        ot, ot_s = peers.optrees_rug_fit(Xtr, ytr, 3, 10, pen_par, seed, "auto", rule_labels)
    else:
        from ruleopt import RUGClassifier as RuleoptRUG
        from ruleopt.solver import HiGHSSolver

        t0 = time.perf_counter()
        ro = RuleoptRUG(solver=HiGHSSolver(), random_state=seed).fit(raw.matrix, ytr_i)
        ro_s = time.perf_counter() - t0
        params = {} if setting == "own" else RULEOPT_DEFAULTS
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ot = RUGClassifier(random_state=seed, rule_labels=rule_labels,
                               **params).fit(Xtr, ytr)
        ot_s = time.perf_counter() - t0
    ro_pred = classes[np.asarray(ro.predict(Mte), dtype=int)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # categories unseen in training
        ot_pred = ot.predict(Xte)
    return dict(setting=setting, seed=seed, ro_acc=float(np.mean(ro_pred == yte)),
                ot_acc=float(np.mean(ot_pred == yte)), ro_s=ro_s, ot_s=ot_s,
                ro_rules=len(ro.decision_rules), ot_rules=len(ot.rules_),
                ot_train=float(np.mean(ot.predict(Xtr) == ytr)),
                ro_train=float(np.mean(classes[np.asarray(ro.predict(raw.matrix), dtype=int)]
                                       == ytr)))


def summary(rows: pd.DataFrame) -> pd.DataFrame:
    """Per (data set, setting): means, paired difference (points) and time ratio."""
    out = []
    for (name, setting), g in rows.groupby(["dataset", "setting"], sort=False):
        diff = 100 * (g["ot_acc"] - g["ro_acc"]).to_numpy()
        se = diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else float("nan")
        out.append(dict(dataset=name, setting=setting, n=int(g["n"].iloc[0]),
                        K=int(g["K"].iloc[0]), splits=len(diff),
                        ro_acc=g["ro_acc"].mean(), ot_acc=g["ot_acc"].mean(),
                        diff=diff.mean(), se=se, better=int((diff > 0).sum()),
                        worse=int((diff < 0).sum()), ro_train=g["ro_train"].mean(),
                        ot_train=g["ot_train"].mean(), ro_rules=g["ro_rules"].mean(),
                        ot_rules=g["ot_rules"].mean(),
                        ratio=g["ot_s"].mean() / g["ro_s"].mean()))
    return pd.DataFrame(out)


def warm_up() -> None:
    """One untimed tiny fit of each (numba's cache, ruleopt's imports)."""
    from optrees import RUGClassifier

    rng = np.random.default_rng(0)
    X, y = rng.random((60, 3)), rng.integers(0, 3, 60)
    RUGClassifier(max_depth=2, max_rmp_calls=2).fit(X, y)
    peers.ruleopt_fit(X, y, 2, 1, 1.0, 0)


def parse_seeds(text: str) -> list[int]:
    """``0-9`` or ``0,3,5``."""
    if "-" in text:
        first, last = (int(s) for s in text.split("-"))
        return list(range(first, last + 1))
    return [int(s) for s in text.split(",")]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--settings", default="d3,defaults",
                    help="comma list of d3, defaults (ruleopt's), own (each package's)")
    ap.add_argument("--seeds", default="0-9")
    ap.add_argument("--max-rows", type=int, default=3000)
    ap.add_argument("--rule-labels", default="auto")
    ap.add_argument("--csv", help="append the per-split rows to this CSV")
    args = ap.parse_args()
    checkout_data_dir(__file__)
    warm_up()
    rows = []
    for name in filter(None, args.datasets.split(",")):
        X, y = load(name)
        n_all = len(y)
        X, y = reduce(X, y, args.max_rows)
        K = len(np.unique(y))
        for seed in parse_seeds(args.seeds):
            _, counts = np.unique(y, return_counts=True)
            Xtr, Xte, ytr, yte = train_test_split(
                X, y, test_size=0.3, random_state=seed,
                stratify=y if counts.min() >= 2 else None)
            for setting in args.settings.split(","):
                r = fit_pair(setting, Xtr, Xte, ytr, yte, seed, args.rule_labels)
                r.update(dataset=name, n=len(y), n_all=n_all, K=K)
                rows.append(r)
                print(f"{name:17s} n={len(y):5d} K={K:2d} {setting:8s} seed={seed:2d} | "
                      f"ruleopt {r['ro_acc']:.4f} ({r['ro_rules']:3d} rules, "
                      f"{r['ro_s']:6.2f}s) | optrees {r['ot_acc']:.4f} ({r['ot_rules']:3d} "
                      f"rules, {r['ot_s']:6.2f}s) | train {r['ro_train']:.3f} / "
                      f"{r['ot_train']:.3f}", flush=True)
    df = pd.DataFrame(rows)
    if args.csv:
        path = Path(args.csv)
        df.to_csv(path, mode="a", header=not path.exists(), index=False)
    print("\nper data set (test accuracy; diff = optrees - ruleopt in points, paired):")
    for m in summary(df).to_dict("records"):
        print(f"{m['dataset']:17s} {m['setting']:8s} n={m['n']:5d} K={m['K']:2d} "
              f"splits={m['splits']:2d} | ruleopt {m['ro_acc']:.4f} optrees {m['ot_acc']:.4f}"
              f" | diff {m['diff']:+6.2f} +- {m['se']:5.2f} (better {m['better']}, worse "
              f"{m['worse']}) | train {m['ro_train']:.3f} / {m['ot_train']:.3f} | rules "
              f"{m['ro_rules']:5.1f} / {m['ot_rules']:5.1f} | time ratio {m['ratio']:.2f}",
              flush=True)


if __name__ == "__main__":
    main()
