"""Accelerated BendOCT benchmark (accelerated-bendoct.txt §6) on the paper's own encodings.

Reads ``binarized/accel-oct/<name>_enc.csv`` (or ``_QB_5_enc`` / ``_QT_5_enc``) from the data
directory ($OPTREES_DATA, default ../shared/datasets), trains on all rows as the paper does
(it measures optimisation, not generalisation) and solves accuracy - lam * leaves with
BendersOCTClassifier(penalty="leaves") for each variant:

    base        BendOCT of §4 (CART warm start)
    polish      + solution polishing (§5.2)
    pathbound   + path-bound cutting planes (§5.4)
    strengthened  + strengthened Benders cuts (§5.1)
    eqp         + EQP inequalities (§5.3; recursive, disaggregated, group selection)
    accel       polishing + path-bound cuts + EQP: the paper's best set
                (BendOCTClassifier's default leaves EQP off, see its docstring)
    accel+sc    all four
    pb-basic    polishing + path-bound cuts (24)
    pb-both     polishing + path-bound cuts with both improvements (25) and (26)
    pb-both+eqp pb-both + EQP (recursive, disaggregated, group selection): the paper's best
    splitbound  + split-bound cuts (our extension of §5.4, optrees.trees.accel.split_bound)
    default     pb-both + split-bound cuts: BendOCTClassifier's defaults
    eqp-H       (only with --variants) EQP alone with H = basic (16), chain (18),
                chain_da (19), recursive (20) or recursive_da (21), group selection (22);
                eqp-recursive_da is the same as eqp

With ``--pystreed`` every instance is also solved by pystreed (cost-complex-accuracy, the same
objective; a test-only dependency) and each variant's time to proven optimum is printed as a
multiple of pystreed's, with the median ratio per variant in the summary (both times are the
median of 3 fits when a fit takes less than a second).

Usage:
    python bench/accel_bendoct.py --quick
    python bench/accel_bendoct.py --datasets breast-cancer,wine --depths 3 --lams 0.01,0.001 \
        --variants default --pystreed
    python bench/accel_bendoct.py --datasets monk1,monk2,monk3,house-votes-84 --depths 3,4 \\
        --lams 0.01,0.001 --time-limit 300
Prints one line per run and a summary: instances solved and mean seconds / gap per variant.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import BendersOCTClassifier, OptreesInputError  # noqa: E402
from optrees.bench.protocols import PAPER_LAMS  # noqa: E402
from optrees.bench.tasks import PLAIN_BENDERS, load_data  # noqa: E402
from optrees.trees.accel.eqp import H_VARIANTS  # noqa: E402

_SWITCHES = {
    "base": {},
    "polish": {"polishing": True},
    "pathbound": {"path_bound_cuts": True},
    "strengthened": {"strengthened_cuts": True},
    "eqp": {"eqp": "recursive_da-group"},
    "accel": {"polishing": True, "path_bound_cuts": True, "eqp": "recursive_da-group"},
    "accel+sc": {"polishing": True, "path_bound_cuts": True, "eqp": "recursive_da-group",
                 "strengthened_cuts": True},
    "pb-basic": {"polishing": True, "path_bound_cuts": True},
    "pb-both": {"polishing": True, "path_bound_cuts": "both"},
    "pb-both+eqp": {"polishing": True, "path_bound_cuts": "both", "eqp": "recursive_da-group"},
    "splitbound": {"split_bound_cuts": True},
    "default": {"polishing": True, "path_bound_cuts": "both", "split_bound_cuts": True},
}
DEFAULT_VARIANTS = list(_SWITCHES)
# ablation of the H variants of §5.3 (App. B.4.1), each alone with group selection
_SWITCHES.update({f"eqp-{h}": {"eqp": f"{h}-group"} for h in H_VARIANTS})
VARIANTS = {name: {**PLAIN_BENDERS, **on} for name, on in _SWITCHES.items()}


def load(name: str, data_dir: Path, encoding: str = "auto") -> tuple[np.ndarray, np.ndarray]:
    """The one-hot (``_enc``) encoding of ``name``, else its QT-5 encoding (``auto``)."""
    for enc in (("enc", "QT_5") if encoding == "auto" else (encoding,)):
        try:
            X, target = load_data(name, enc, data_dir)
        except OptreesInputError as exc:
            error = exc
            continue
        return X.to_numpy(dtype=np.uint8), np.unique(target, return_inverse=True)[1]
    raise SystemExit(f"no accel-OCT encoding for {name!r}: {error}")


def streed(X: np.ndarray, y: np.ndarray, depth: int, lam: float) -> tuple[float, float]:
    """pystreed's (seconds, optimal objective) for accuracy - lam * leaves (median of 3)."""
    import pystreed

    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        ref = pystreed.STreeDClassifier(max_depth=depth, optimization_task="cost-complex-accuracy",
                                        cost_complexity=lam).fit(X, y)
        times.append(time.perf_counter() - t0)
    if not ref.fit_result.is_optimal():
        raise SystemExit("pystreed did not prove optimality")
    return float(np.median(times)), float(np.mean(ref.predict(X) == y) - lam * ref.get_n_leaves())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default="monk1,monk2,monk3,house-votes-84,balance-scale")
    ap.add_argument("--depths", default="3,4")
    ap.add_argument("--lams", default=",".join(map(str, PAPER_LAMS)))
    ap.add_argument("--variants", default=",".join(DEFAULT_VARIANTS),
                    help=f"comma-separated, from {', '.join(VARIANTS)}")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--pystreed", action="store_true",
                    help="also time pystreed on every instance and print the ratios")
    ap.add_argument("--encoding", choices=["auto", "enc", "QT_5", "QB_5"], default="auto",
                    help="auto: one-hot if the data set has it, else QT-5")
    ap.add_argument("--quick", action="store_true",
                    help="monk1, monk3, house-votes-84 at depth 3, lam 0.01, 60 s")
    args = ap.parse_args()
    if args.quick:
        args.datasets, args.depths, args.lams = "monk1,monk3,house-votes-84", "3", "0.01"
    data_dir = Path(os.environ.get("OPTREES_DATA",
                                   Path(__file__).resolve().parents[2] / "shared" / "datasets"))
    unknown = set(args.variants.split(",")) - set(VARIANTS)
    if unknown:
        raise SystemExit(f"unknown variants {sorted(unknown)}; choose from {list(VARIANTS)}")
    warnings.simplefilter("ignore")
    rows = []
    print(f"{'dataset':16} {'d':>2} {'lam':>7} {'variant':16} {'status':10} {'seconds':>8} "
          f"{'gap':>7} {'objective':>9}")
    warm = args.pystreed  # the first fit of a process pays for imports and set-up: not timed
    for name in args.datasets.split(","):
        X, y = load(name, data_dir, args.encoding)
        if warm:
            streed(X, y, 2, 0.01)
            BendersOCTClassifier(depth=2, penalty="leaves", binarizer=None).fit(X, y)
            warm = False
        for depth in map(int, args.depths.split(",")):
            for lam in map(float, args.lams.split(",")):
                ref = streed(X, y, depth, lam) if args.pystreed else None
                for variant in args.variants.split(","):
                    def fit(variant=variant, depth=depth, lam=lam, X=X, y=y):
                        return BendersOCTClassifier(
                            depth=depth, lam=lam, penalty="leaves", binarizer=None,
                            time_limit=args.time_limit, **VARIANTS[variant]).fit(X, y)

                    est = fit()
                    seconds = est.fit_seconds_
                    if ref is not None and seconds < 1.0:  # median of 3, like pystreed's
                        seconds = float(np.median([seconds] + [fit().fit_seconds_
                                                               for _ in range(2)]))
                    rows.append(dict(dataset=name, depth=depth, lam=lam, variant=variant,
                                     status=est.status_, seconds=seconds,
                                     gap=est.gap_, objective=est.objective_))
                    extra = ""
                    if ref is not None:
                        rows[-1]["pystreed_s"] = ref[0]
                        if est.status_ == "optimal" and abs(est.objective_ - ref[1]) > 1e-9:
                            raise SystemExit(f"objective {est.objective_} != pystreed {ref[1]}")
                        extra = f"  pystreed {ref[0]:.3f}s: x{seconds / ref[0]:.1f}"
                    print(f"{name:16} {depth:>2} {lam:>7g} {variant:16} {est.status_:10} "
                          f"{seconds:8.2f} {est.gap_:7.2%} {est.objective_:9.5f}"
                          + extra, flush=True)
    df = pd.DataFrame(rows)
    df["solved"] = df.status == "optimal"
    summary = df.groupby("variant", sort=False).apply(
        lambda g: pd.Series({
            "instances": len(g),
            "solved": int(g.solved.sum()),
            "mean_s_solved": g.seconds[g.solved].mean(),
            "median_s_solved": g.seconds[g.solved].median(),
            "mean_gap_unsolved": g.gap[~g.solved].mean(),
        }), include_groups=False)
    print("\n=== summary ===")
    print(summary.to_string())
    if "base" in set(df.variant):  # speed-up over vanilla on instances both solve
        key = ["dataset", "depth", "lam"]
        base = df[df.variant == "base"].set_index(key)
        for variant in [v for v in df.variant.unique() if v != "base"]:
            other = df[df.variant == variant].set_index(key)
            both = base.solved & other.solved.reindex(base.index, fill_value=False)
            if both.any():
                ratio = (base.seconds[both] / other.seconds.reindex(base.index)[both]).median()
                print(f"{variant:16} solved {int(other.solved.sum())} vs base "
                      f"{int(base.solved.sum())}; median speed-up on {int(both.sum())} "
                      f"solved by both: {ratio:.1f}x")
    if args.pystreed:  # time to proven optimum as a multiple of pystreed's
        solved = df[df.solved]
        for variant, g in solved.groupby("variant", sort=False):
            ratio = g.seconds / g.pystreed_s
            print(f"{variant:16} vs pystreed on {len(g)} solved: median x{ratio.median():.1f}, "
                  f"max x{ratio.max():.1f} (pystreed median {g.pystreed_s.median():.3f}s)")
    # every variant is exact: objectives of instances solved by two variants must agree
    solved = df[df.solved].groupby(["dataset", "depth", "lam"]).objective
    spread = (solved.max() - solved.min()).max() if len(df[df.solved]) else 0.0
    print(f"max objective spread among variants that proved optimality: {spread:.2e}")


if __name__ == "__main__":
    main()
