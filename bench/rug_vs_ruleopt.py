"""optrees RUG vs ruleopt 1.2.1 RUG (same method, HiGHS inside): fit time, test accuracy, rules.

Usage:  OPTREES_DATA=../shared/datasets python bench/rug_vs_ruleopt.py
        [--datasets skin,adult,magic] [--depth 3] [--calls 10] [--penalty 1.0] [--seeds 0]
        [--lp-methods simplex,interior] [--repeat 1] [--fair] [--fair-cv]

ruleopt is a benchmark-only tool (``pip install ruleopt==1.2.1``), not an optrees dependency.

Settings that correspond:
- one stratified 70/30 split per seed; both get the same rows; ruleopt gets the numeric matrix
  optrees' pricing trees see (numeric columns as they are, categoricals one-hot);
- ``max_depth`` of the pricing trees; ``max_rmp_calls`` (ruleopt counts pricing rounds after
  the first LP, i.e. up to calls + 1 LP solves; optrees counts LP solves, so optrees gets
  ``calls + 1`` here to match the number of master LP solves);
- rule cost = rule length (ruleopt ``Length()``), and ruleopt's objective weight
  ``penalty / max(initial rule costs)`` is passed to optrees as ``pen_par``;
- pruning thresholds: ruleopt keeps rules with weight > 1e-6, optrees ``threshold=1e-6``
  relative to the largest weight (both keep essentially every rule with positive weight);
- ruleopt solves the master LP by interior point without crossover (tolerance 1e-4), which is
  optrees' ``lp_method="interior"``; optrees' default ``"simplex"`` returns an optimal vertex.
  ``--lp-methods`` runs each given method against the same ruleopt fit.

``--fair`` also times optrees with fairness off / DMC / EOP (epsilon 0.025) on adult (sex) and
compas (Race) with the FairRUG settings of bench/rug.py (threshold 0, rule cost 1, pen_par =
``--penalty``, ``--calls`` master LP solves), the same settings with fairness on and off;
``--fair-cv`` picks epsilon from {0, 0.01, 0.025, 0.05} by 3-fold CV on the training part
(best validation DMC resp. EOP score, as in the paper) instead of fixing it at 0.025.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import accuracy_score
from sklearn.model_selection import StratifiedKFold, train_test_split

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from optrees.datasets import load_dataset  # noqa: E402
from optrees.encoding.columns import RawColumns  # noqa: E402
from optrees.estimators.rules import RUGClassifier  # noqa: E402
from optrees.metrics import dmc_score, eop_score  # noqa: E402

FAIR = {"adult": "sex", "compas": "Race"}
EPSILONS = (0.0, 0.01, 0.025, 0.05)  # the paper's grid for FairRUG


def fit_ruleopt(Xtr: np.ndarray, ytr: np.ndarray, args, seed: int):
    """ruleopt RUGClassifier with rule cost = length; returns (model, seconds, pen_par)."""
    from ruleopt import RUGClassifier as RuleoptRUG
    from ruleopt.rule_cost import Length
    from ruleopt.solver import HiGHSSolver

    t0 = time.perf_counter()
    model = RuleoptRUG(solver=HiGHSSolver(penalty=args.penalty), rule_cost=Length(),
                       max_rmp_calls=args.calls, max_depth=args.depth, random_state=seed)
    model.fit(Xtr, ytr)
    secs = time.perf_counter() - t0
    # ruleopt scales the costs by 1 / max(cost of the first tree's rules)
    costs = np.asarray(model.coefficients_.costs)
    first = costs[: sum(1 for info in model.rule_info_.values() if info[0] == 0)]
    pen_par = args.penalty / float(np.max(first))
    return model, secs, pen_par


def fit_optrees(Xtr, ytr, args, seed: int, pen_par: float, lp_method: str):
    """optrees RUGClassifier with the corresponding settings; returns (model, seconds)."""
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = RUGClassifier(max_depth=args.depth, pen_par=pen_par,
                              max_rmp_calls=args.calls + 1, threshold=1e-6,
                              rule_length_cost=True, random_state=seed,
                              lp_method=lp_method).fit(Xtr, ytr)
    return model, time.perf_counter() - t0


def best_of(fn, repeat: int):
    """Run ``fn`` ``repeat`` times; return the result of the fastest run."""
    best = None
    for _ in range(repeat):
        out = fn()
        if best is None or out[1] < best[1]:
            best = out
    return best


def run_one(name: str, args, seed: int) -> list[dict]:
    """One split: ruleopt once, then optrees with each LP method; one row per method."""
    X, y = load_dataset(name)
    y = y.to_numpy()
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)
    raw_tr = RawColumns(Xtr)
    raw_all = RawColumns(X)
    te_rows = X.index.get_indexer(Xte.index)
    Mtr, Mte = raw_tr.matrix, raw_tr.encode_rows(raw_all, te_rows)
    classes, ytr_i = np.unique(ytr, return_inverse=True)
    yte_i = np.searchsorted(classes, yte)
    ro, ro_s, pen_par = best_of(lambda: fit_ruleopt(Mtr, ytr_i, args, seed), args.repeat)
    ro_acc = accuracy_score(yte_i, ro.predict(Mte))
    rows = []
    for method in args.lp_methods.split(","):
        ot, ot_s = best_of(lambda m=method: fit_optrees(Xtr, ytr, args, seed, pen_par, m),
                           args.repeat)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # categories unseen in training
            ot_acc = accuracy_score(yte, ot.predict(Xte))
        row = dict(dataset=name, n=len(X), seed=seed, pen_par=pen_par, lp_method=method,
                   ro_s=ro_s, ro_acc=ro_acc, ro_rules=len(ro.decision_rules),
                   ot_s=ot_s, ot_acc=ot_acc, ot_rules=len(ot.rules_), ot_lps=ot.n_rmp_calls_,
                   ot_pool=len(ot.all_rules_))
        print(f"{name:14s} n={len(X):7d} seed={seed} pen_par={pen_par:.4f} | ruleopt "
              f"{ro_s:7.2f}s acc {ro_acc:.4f} rules {row['ro_rules']:3d} | optrees {method:8s} "
              f"{ot_s:7.2f}s acc {ot_acc:.4f} rules {row['ot_rules']:3d} (pool "
              f"{row['ot_pool']}, {ot.n_rmp_calls_} LPs, {ot.status_}) | ratio "
              f"{ot_s / ro_s:.2f}", flush=True)
        rows.append(row)
    return rows


def _fair_score(kind: str, y, p, g, pos) -> float:
    return dmc_score(y, p, g) if kind == "dmc" else eop_score(y, p, g, positive=pos)


def pick_epsilon(Xtr, ytr, kind: str, sensitive: str, base: dict, pos, seed: int) -> float:
    """The paper's choice of epsilon: best mean validation fairness score in 3-fold CV."""
    folds = list(StratifiedKFold(3, shuffle=True, random_state=seed).split(Xtr, ytr))
    best = (-1.0, None)
    for eps in EPSILONS:
        scores = []
        for fit_idx, val_idx in folds:
            Xf, Xv = Xtr.iloc[fit_idx], Xtr.iloc[val_idx]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m = RUGClassifier(**base, fairness=kind, epsilon=eps, sensitive=sensitive,
                                  positive_class=pos).fit(Xf, ytr[fit_idx])
                p = m.predict(Xv)
            scores.append(_fair_score(kind, ytr[val_idx], p, Xv[sensitive].astype(str), pos))
        if np.mean(scores) > best[0]:
            best = (float(np.mean(scores)), eps)
    return best[1]


def run_fair(name: str, sensitive: str, args, seed: int) -> list[dict]:
    """optrees with fairness off / DMC / EOP, the FairRUG settings of bench/rug.py."""
    X, y = load_dataset(name)
    y = y.to_numpy()
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=seed, stratify=y)
    gte = Xte[sensitive].astype(str).to_numpy()
    pos = sorted(np.unique(y))[-1]
    base = dict(max_depth=args.depth, pen_par=args.penalty, max_rmp_calls=args.calls,
                threshold=0.0, rule_length_cost=False, random_state=seed)
    base_s = None
    out = []
    for fairness in (None, "dmc", "eop"):
        eps = 0.025
        if fairness is not None and args.fair_cv:
            eps = pick_epsilon(Xtr, ytr, fairness, sensitive, base, pos, seed)
        kw = {} if fairness is None else dict(fairness=fairness, epsilon=eps,
                                              sensitive=sensitive, positive_class=pos)

        def fit(kw=kw):
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m = RUGClassifier(**base, **kw).fit(Xtr, ytr)
            return m, time.perf_counter() - t0

        m, secs = best_of(fit, args.repeat)
        base_s = secs if fairness is None else base_s
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = m.predict(Xte)
        out.append(dict(dataset=name, fairness=str(fairness), acc=accuracy_score(yte, p),
                        dmc=100 * dmc_score(yte, p, gte),
                        eop=100 * eop_score(yte, p, gte, positive=pos), ratio=secs / base_s))
        eps_txt = "" if fairness is None else f" eps {eps:g}"
        print(f"{name:8s} seed={seed} {str(fairness):5s}{eps_txt:10s} acc "
              f"{accuracy_score(yte, p):.4f} DMC {100 * dmc_score(yte, p, gte):6.2f}% "
              f"EOP {100 * eop_score(yte, p, gte, positive=pos):6.2f}% "
              f"rules {len(m.rules_):3d} {secs:6.2f}s (x{secs / base_s:.2f} of unconstrained)",
              flush=True)
    return out


def fair_summary(rows: list[dict]) -> None:
    """Means over the splits; per split, how often the constraint improved its own score."""
    df = pd.DataFrame(rows)
    print("mean over splits:")
    for (name, fairness), g in df.groupby(["dataset", "fairness"], sort=False):
        line = (f"{name:8s} {fairness:5s} acc {g.acc.mean():.4f} DMC {g.dmc.mean():6.2f}% "
                f"EOP {g.eop.mean():6.2f}% time x{g.ratio.mean():.2f} (max x{g.ratio.max():.2f})")
        if fairness != "None":
            base = df[(df.dataset == name) & (df.fairness == "None")]
            better = int((g[fairness].to_numpy() > base[fairness].to_numpy()).sum())
            line += f"; {fairness.upper()} better than unconstrained on {better} of {len(g)}"
        print(line)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="skin,adult,magic")
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--calls", type=int, default=10)
    ap.add_argument("--penalty", type=float, default=1.0)
    ap.add_argument("--seeds", default="0",
                    help="comma list of split seeds, or a range FIRST-LAST")
    ap.add_argument("--lp-methods", default="simplex,interior",
                    help="optrees lp_method(s) to run against the same ruleopt fit")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--fair", action="store_true")
    ap.add_argument("--fair-cv", action="store_true",
                    help="choose epsilon by 3-fold CV on the fairness score (paper's protocol)")
    args = ap.parse_args()
    if "-" in args.seeds:
        first, last = (int(s) for s in args.seeds.split("-"))
        seeds = list(range(first, last + 1))
    else:
        seeds = [int(s) for s in args.seeds.split(",")]
    rows = []
    for name in filter(None, args.datasets.split(",")):
        for seed in seeds:
            rows += run_one(name, args, seed)
    if len(seeds) > 1 and rows:
        print(f"mean over seeds {args.seeds}:")
        for name, method in dict.fromkeys((r["dataset"], r["lp_method"]) for r in rows):
            sub = [r for r in rows if r["dataset"] == name and r["lp_method"] == method]
            mean = {k: float(np.mean([r[k] for r in sub])) for k in
                    ("ro_s", "ro_acc", "ro_rules", "ot_s", "ot_acc", "ot_rules")}
            print(f"{name:14s} n={sub[0]['n']:7d} | ruleopt {mean['ro_s']:7.2f}s acc "
                  f"{mean['ro_acc']:.4f} rules {mean['ro_rules']:5.1f} | optrees {method:8s} "
                  f"{mean['ot_s']:7.2f}s acc {mean['ot_acc']:.4f} rules {mean['ot_rules']:5.1f}"
                  f" | ratio {mean['ot_s'] / mean['ro_s']:.2f}", flush=True)
            diff = 100 * np.array([r["ot_acc"] - r["ro_acc"] for r in sub])
            se = diff.std(ddof=1) / np.sqrt(len(diff))
            print(f"{'':14s} test accuracy optrees - ruleopt, paired over {len(diff)} splits: "
                  f"{diff.mean():+.2f} +- {se:.2f} points (mean +- standard error); optrees "
                  f"better on {int((diff > 0).sum())}, equal on {int((diff == 0).sum())}")
    if args.fair:
        fair = [r for name, col in FAIR.items() for seed in seeds
                for r in run_fair(name, col, args, seed)]
        fair_summary(fair)


if __name__ == "__main__":
    main()
