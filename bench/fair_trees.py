"""Fairness-constrained optimal trees (issue #19) side by side with pystreed, ODTlearn optional.

BendOCTClassifier(fairness=..., drop_sensitive=True) against pystreed's
STreeDGroupFairnessClassifier (which never splits on the sensitive feature: drop_sensitive is
its setting) on adult (pystreed's binarization, sensitive "Sex=Male") and compas (RuleDiscovery's
table, sensitive "Race"; Number_of_Priors as five threshold columns), one stratified train/test
split, the same 0/1 features for both.  Statistical parity (pystreed "group-fairness") and equal
opportunity ("equality-of-opportunity"), depth 2-3, several epsilons, one time limit.

Usage:
    python bench/fair_trees.py                                    # the default grid
    python bench/fair_trees.py --datasets compas --depths 2 --eps 0.01 --time-limit 60
    python bench/fair_trees.py --odtlearn 200    # also ODTlearn FairSPOCT + CBC (depth 2,
                                                  # statistical parity) on 200 training rows
Prints per run: training accuracy, proof and seconds of both, ratio ours / pystreed, training
and test gap, test accuracy; then a summary: runs proved, median / worst ratio where both
proved, wrong claims (our proved optimum differing from pystreed's proved one by > 1e-9),
broken constraints (training gap > epsilon + 1e-6).  Exits 1 on a wrong claim or a broken
constraint.  When the two proved optima differ, pystreed runs again without its bounds and
terminal solver; a difference that this removes is printed "PEER" (pystreed 1.4.0 proves
0.80714 on adult, statistical parity, depth 3, eps 0.1; without its bounds 0.80782 = ours).
ODTlearn (GPL-3, with CBC) runs only when importable, on the same subsample as ours.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import BendOCTClassifier  # noqa: E402
from optrees.bench.scripts import checkout_data_dir  # noqa: E402
from optrees.metrics import fairness_gap  # noqa: E402

ADULT_NAMES = ["Sex=Male", "Age<25", "Age=25-60", "Age>=60", "Workclass:Private",
               "Education Num<10", "Marital Status=Married", "Relationship=Married",
               "Occupation=office", "Occupation=heavy-work", "Occupation=other", "Race:White",
               "Capital Gain<5000", "Capital Loss<40", "Hours per Week<40",
               "Hours per Week=40-60", "Hours per Week>=60", "Native Country:United-States"]
NOTIONS = {"statistical_parity": "group-fairness", "equal_opportunity": "equality-of-opportunity"}


def load(name: str, data: Path) -> tuple[pd.DataFrame, np.ndarray, str]:
    """0/1 feature table (sensitive column first), labels, sensitive column name."""
    if name == "adult":
        raw = pd.read_csv(data / "binarized" / "adult.streed.csv", header=None, sep=" ")
        return (pd.DataFrame(raw.iloc[:, 1:].to_numpy(), columns=ADULT_NAMES),
                raw[0].to_numpy().astype(int), "Sex=Male")
    if name == "compas":
        raw = pd.read_csv(data / "compas.csv", sep=";", encoding="utf-8-sig")
        y = raw.pop("Two_yr_Recidivism").to_numpy().astype(int)
        priors = raw.pop("Number_of_Priors")
        for k in (1, 2, 3, 5, 10):
            raw[f"priors>={k}"] = (priors >= k).astype(int)
        return raw, y, "Race"
    raise SystemExit(f"unknown data set {name!r} (adult, compas)")


def split(X: pd.DataFrame, y: np.ndarray, seed: int, test_size: float):
    from sklearn.model_selection import train_test_split

    return train_test_split(X, y, test_size=test_size, stratify=y, random_state=seed)


def run_ours(X, y, sens, notion, depth, eps, limit):
    est = BendOCTClassifier(depth=depth, lam=0.0, binarizer=None, fairness=notion,
                            epsilon=eps, sensitive=sens, drop_sensitive=True, positive_class=1,
                            time_limit=limit)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y)
    return est, time.perf_counter() - t0, est.status_ == "optimal"


def run_pystreed(X, y, sens, notion, depth, eps, limit, bounds=True):
    import pystreed

    off = {} if bounds else {"use_upper_bound": False, "use_lower_bound": False,
                             "use_terminal_solver": False}
    ref = pystreed.STreeDGroupFairnessClassifier(
        optimization_task=NOTIONS[notion], sensitive_feature=list(X.columns).index(sens),
        discrimination_limit=eps, max_depth=depth, time_limit=limit, **off)
    t0 = time.perf_counter()
    ref.fit(X.to_numpy(), y)
    seconds = time.perf_counter() - t0
    return ref, seconds, bool(ref.fit_result.is_optimal())


def run_odtlearn(X, y, sens, depth, eps, limit):
    """ODTlearn's FairSPOCT with CBC (None when odtlearn is not importable)."""
    try:
        from odtlearn.fair_oct import FairSPOCT
    except ImportError:
        return None
    features = X.drop(columns=[sens])
    est = FairSPOCT(solver="cbc", positive_class=1, depth=depth, _lambda=0.0,
                    time_limit=limit, fairness_bound=eps, num_threads=1, verbose=False)
    t0 = time.perf_counter()
    est.fit(features, y, protect_feat=X[[sens]].to_numpy(), legit_factor=X[sens].to_numpy())
    return est.predict(features), time.perf_counter() - t0


def adjudicate(X, y, sens, notion, depth, eps, limit, ours: float) -> str:
    """" PEER" when pystreed without its bounds and terminal solver reaches our optimum (its
    bounds cut it off: adult, statistical parity, depth 3, eps 0.1 in pystreed 1.4.0),
    else " WRONG"."""
    ref, _, proved = run_pystreed(X, y, sens, notion, depth, eps, limit, bounds=False)
    again = float(np.mean(ref.predict(X.to_numpy()) == y))
    return " PEER" if proved and abs(again - ours) <= 1e-9 else " WRONG"


def warm_up() -> None:
    """Imports and compiled kernels of both, outside the timings."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 2, (60, 4)), columns=["s", "a", "b", "c"])
    y = (X.a.to_numpy() ^ (rng.random(60) < 0.2)).astype(int)
    run_ours(X, y, "s", "statistical_parity", 3, 0.05, 60)
    run_pystreed(X, y, "s", "statistical_parity", 3, 0.05, 60)


def scores(model, X: pd.DataFrame, y: np.ndarray, sens: str, notion: str,
           peer: bool) -> tuple[float, float]:
    """Accuracy and fairness gap of ``model`` on (X, y); pystreed predicts from arrays."""
    pred = model.predict(X.to_numpy() if peer else X)
    return float(np.mean(pred == y)), fairness_gap(notion, y, pred, X[sens], positive=1)


def one_run(split_data, sens: str, notion: str, depth: int, eps: float, limit: float) -> dict:
    """Both solvers on one setting: accuracy, gaps, proofs, seconds and the verdict."""
    Xtr, Xte, ytr, yte = split_data
    est, s_ours, p_ours = run_ours(Xtr, ytr, sens, notion, depth, eps, limit)
    ref, s_ref, p_ref = run_pystreed(Xtr, ytr, sens, notion, depth, eps, limit)
    out = {"seconds": (s_ours, s_ref), "proved": (p_ours, p_ref), "flag": ""}
    for part, (X, y) in (("train", (Xtr, ytr)), ("test", (Xte, yte))):
        out[part] = [scores(m, X, y, sens, notion, m is ref) for m in (est, ref)]
    acc = (out["train"][0][0], out["train"][1][0])
    if out["train"][0][1] > eps + 1e-6:
        out["flag"] += " BROKEN"
    if p_ours and p_ref and abs(acc[0] - acc[1]) > 1e-9:
        out["flag"] += adjudicate(Xtr, ytr, sens, notion, depth, eps, limit, acc[0])
    return out


def odtlearn_line(Xtr, ytr, sens: str, depth: int, eps: float, limit: float, rows: int) -> str:
    """Ours and ODTlearn's FairSPOCT on the first ``rows`` training rows."""
    sub_X, sub_y = Xtr.iloc[:rows], ytr[:rows]
    odt = run_odtlearn(sub_X, sub_y, sens, depth, eps, limit)
    small, s_small, _ = run_ours(sub_X, sub_y, sens, "statistical_parity", depth, eps, limit)
    if odt is None:
        return "   odtlearn: not importable"
    return (f"   {rows} rows: ours acc {np.mean(small.predict(sub_X) == sub_y):.4f} in "
            f"{s_small:.3f} s; ODTlearn+CBC acc {np.mean(odt[0] == sub_y):.4f} in "
            f"{odt[1]:.1f} s (ratio {odt[1] / s_small:.0f}x)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default="compas,adult")
    ap.add_argument("--depths", default="2,3")
    ap.add_argument("--eps", default="0.01,0.05,0.1")
    ap.add_argument("--notions", default="statistical_parity,equal_opportunity")
    ap.add_argument("--time-limit", type=float, default=600.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--test-size", type=float, default=0.25)
    ap.add_argument("--odtlearn", type=int, default=0,
                    help="rows of the training split for ODTlearn (0: skip)")
    ap.add_argument("--data-dir", type=Path, default=None)
    args = ap.parse_args(argv)
    data = args.data_dir or checkout_data_dir(__file__)
    if data is None:
        raise SystemExit("no data directory: set OPTREES_DATA or --data-dir")
    warm_up()
    ratios: dict[int, list[float]] = {}
    flags: list[str] = []
    proved = 0
    print(f"{'data':7} {'notion':18} d {'eps':>5} | {'ours acc':>9} {'s':>7} | "
          f"{'streed acc':>10} {'s':>7} | {'ratio':>6} | gap train/test ours, streed | "
          f"test acc ours, streed")
    for name in args.datasets.split(","):
        X, y, sens = load(name, data)
        parts = split(X, y, args.seed, args.test_size)
        for depth, notion, eps in itertools.product(map(int, args.depths.split(",")),
                                                    args.notions.split(","),
                                                    map(float, args.eps.split(","))):
            r = one_run(parts, sens, notion, depth, eps, args.time_limit)
            (s_ours, s_ref), (p_ours, p_ref) = r["seconds"], r["proved"]
            proved += p_ours
            flags.append(r["flag"])
            if p_ours and p_ref:
                ratios.setdefault(depth, []).append(s_ours / s_ref)
            (acc, gap), (acc_ref, gap_ref) = r["train"]
            (test, test_gap), (test_ref, test_gap_ref) = r["test"]
            print(f"{name:7} {notion:18} {depth} {eps:5.2f} | {acc:9.5f} "
                  f"{s_ours:6.2f}{'*' if p_ours else ' '} | {acc_ref:10.5f} "
                  f"{s_ref:6.2f}{'*' if p_ref else ' '} | {s_ours / s_ref:6.1f} | "
                  f"{gap:.4f}/{test_gap:.4f}, {gap_ref:.4f}/{test_gap_ref:.4f} | "
                  f"{test:.4f}, {test_ref:.4f}{r['flag']}", flush=True)
            if args.odtlearn and depth == 2 and notion == "statistical_parity":
                print(odtlearn_line(parts[0], parts[2], sens, depth, eps, args.time_limit,
                                    args.odtlearn), flush=True)
    wrong, broken = sum("WRONG" in f for f in flags), sum("BROKEN" in f for f in flags)
    print(f"\n{len(flags)} runs, {proved} proved by us; wrong claims {wrong}, broken "
          f"constraints {broken}, pystreed's wrong claims {sum('PEER' in f for f in flags)}")
    for depth, r in sorted(ratios.items()):
        print(f"depth {depth}: both proved {len(r)}, ratio ours / pystreed median "
              f"{statistics.median(r):.2f}x, worst {max(r):.2f}x")
    return 1 if wrong or broken else 0


if __name__ == "__main__":
    sys.exit(main())
