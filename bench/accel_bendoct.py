"""Accelerated BendOCT benchmark ([BendOCT] §6) on the paper's own encodings.

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
    splitbound  + split-bound cuts (our extension of §5.4, optrees.trees.mip.accel.split_bound)
    default     pb-both + split-bound cuts: BendOCTClassifier's defaults
    eqp-H       (only with --variants) EQP alone with H = basic (16), chain (18),
                chain_da (19), recursive (20) or recursive_da (21), group selection (22);
                eqp-recursive_da is the same as eqp

The variants are those of the accelerated protocol (``optrees.bench.variants``: this script's
names are aliases of the protocol's where they coincide, e.g. ``base`` = ``bendoct``), and the
grid, the fits, the summaries and the pystreed comparison are the harness's
(``optrees.bench``: protocols.accel_tasks, peers.run_with_peer, report).

With ``--pystreed`` every instance is also solved by pystreed (cost-complex-accuracy, the same
objective; a test-only dependency) and each variant's time to proven optimum is printed as a
multiple of pystreed's, with the median ratio per variant in the summary (both times are the
median of 3 fits when a fit takes less than a second); a variant that claims optimality with
another objective than pystreed's fails the run.

Usage:
    python bench/accel_bendoct.py --quick
    python bench/accel_bendoct.py --datasets breast-cancer,wine --depths 3 --lams 0.01,0.001 \\
        --variants default --pystreed
    python bench/accel_bendoct.py --datasets monk1,monk2,monk3,house-votes-84 --depths 3,4 \\
        --lams 0.01,0.001 --time-limit 300
Prints one line per run and a summary: instances solved and mean / median seconds (solved) and
mean gap (unsolved) per variant, the same by depth, the median speed-up over ``base``, and the
largest objective difference among variants that proved optimality.
"""

from __future__ import annotations

import argparse
import resource
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import OptreesInputError  # noqa: E402
from optrees.bench import peers, report  # noqa: E402
from optrees.bench.protocols import (  # noqa: E402
    ACCEL_CATEGORICAL,
    ACCEL_NUMERIC,
    PAPER_LAMS,
    accel_encodings,
    accel_tasks,
    resolve,
)
from optrees.bench.scripts import checkout_data_dir  # noqa: E402
from optrees.bench.tasks import accel_file, default_encoding  # noqa: E402
from optrees.bench.variants import ACCEL_SCRIPT, ACCEL_VARIANTS  # noqa: E402

HEADER = (f"{'dataset':16} {'d':>2} {'lam':>7} {'variant':16} {'status':10} {'seconds':>8} "
          f"{'gap':>7} {'objective':>9}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default="monk1,monk2,monk3,house-votes-84,balance-scale")
    ap.add_argument("--depths", default="3,4")
    ap.add_argument("--lams", default=",".join(map(str, PAPER_LAMS)))
    ap.add_argument("--variants", default=",".join(ACCEL_SCRIPT),
                    help="comma-separated, from " + ", ".join(
                        dict.fromkeys([*ACCEL_SCRIPT, *ACCEL_VARIANTS])))
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--pystreed", action="store_true",
                    help="also time pystreed on every instance and print the ratios")
    ap.add_argument("--encoding", choices=["auto", "enc", "QT_5", "QB_5"], default="auto",
                    help="auto: one-hot if the data set has it, else QT-5")
    ap.add_argument("--quick", action="store_true",
                    help="monk1, monk3, house-votes-84 at depth 3, lam 0.01, 60 s")
    ap.add_argument("--sample", type=int, default=0, metavar="N",
                    help="N instances per depth drawn from the paper's whole grid (all 33 "
                         "data sets, every encoding, the 15 lambdas), instead of --datasets, "
                         "--encoding and --lams")
    ap.add_argument("--seed", type=int, default=0, help="seed of --sample")
    args = ap.parse_args(argv)
    if args.quick:
        args.datasets, args.depths, args.lams = "monk1,monk3,house-votes-84", "3", "0.01"
    return args


def tasks_of(args: argparse.Namespace, data_dir: Path | None) -> list:
    """The accelerated protocol's tasks for the options: one encoding per dataset, or with
    ``--sample`` the sampled instances of the whole grid."""
    if args.sample:
        return sampled_tasks(args, data_dir)
    datasets = args.datasets.split(",")
    cfg = resolve("accelerated", datasets=datasets, methods=args.variants.split(","),
                  depths=[int(d) for d in args.depths.split(",")],
                  lams=[float(v) for v in args.lams.split(",")],
                  time_limit=args.time_limit, data_dir=data_dir)
    encodings = {}
    for name in datasets:
        if args.encoding == "auto":
            encodings[name] = (default_encoding(name, data_dir),)
        else:
            accel_file(name, args.encoding, data_dir)  # raises if there is no such file
            encodings[name] = (args.encoding,)
    cfg.extra["encodings"] = encodings
    return accel_tasks(cfg)


def sampled_tasks(args: argparse.Namespace, data_dir: Path | None,
                  lams: Sequence[float] = PAPER_LAMS) -> list:
    """``--sample`` instances per depth (0: all), drawn without replacement from the paper's
    grid (data set x encoding x lambda of ``lams``), every variant on each; instances in grid
    order."""
    datasets = [*ACCEL_CATEGORICAL, *ACCEL_NUMERIC]
    cfg = resolve("accelerated", datasets=datasets, methods=args.variants.split(","),
                  depths=[int(d) for d in args.depths.split(",")], lams=list(lams),
                  time_limit=args.time_limit, data_dir=data_dir)
    cfg.extra["encodings"] = {ds: accel_encodings(ds) for ds in datasets}
    tasks = accel_tasks(cfg)
    keys = sorted({peers.instance_key(t) for t in tasks}, key=str)
    rng = np.random.default_rng(args.seed)
    chosen = set()
    for depth in cfg.depths:
        of_depth = [k for k in keys if k[2] == depth]
        size = len(of_depth) if args.sample <= 0 else min(args.sample, len(of_depth))
        picks = rng.choice(len(of_depth), size, replace=False)
        chosen.update(of_depth[i] for i in picks)
    return [t for t in tasks if peers.instance_key(t) in chosen]


def print_row(row: dict) -> None:
    """One line per fit (with pystreed's time and the ratio when it ran too)."""
    extra = ""
    if "peer_seconds" in row:
        extra = (f"  pystreed {row['peer_seconds']:.3f}s: "
                 f"x{row['fit_seconds'] / row['peer_seconds']:.1f}")
        if not row.get("peer_proved", True):
            extra += " (not proved)"
    if row.get("error"):
        extra += f"  {row['error']}"
    print(f"{row['dataset']:16} {row['depth']:>2} {row['lam']:>7g} {row['variant']:16} "
          f"{row['status']:10} {row.get('fit_seconds', float('nan')):8.2f} "
          f"{row.get('gap', float('nan')):7.2%} {row.get('objective', float('nan')):9.5f}"
          + extra, flush=True)


def print_summary(df: pd.DataFrame, pystreed: bool) -> None:
    """Solved counts (all, by depth), speed-up over base, pystreed ratios, exactness."""
    print("\n=== summary ===")
    print(report.solved_table(df, ["variant"]).to_string())
    print("\n=== by depth ===")
    print(report.solved_table(df, ["depth", "variant"]).to_string())
    if "base" in set(df["variant"]):  # speed-up over vanilla on instances both solve
        for variant, r in report.speedup_table(df, "base").iterrows():
            if r["both"]:
                print(f"{variant:16} solved {int(r['solved'])} vs base {int(r['solved_base'])}; "
                      f"median speed-up on {int(r['both'])} solved by both: "
                      f"{r['median_speedup']:.1f}x")
    if pystreed:  # time to proven optimum as a multiple of pystreed's
        for by in ("variant", ["depth", "variant"]):
            for key, r in peers.peer_table(df, by).iterrows():
                print(f"{str(key):16} vs pystreed on {int(r['solved'])} both proved: median "
                      f"x{r['median_ratio']:.2f}, max x{r['max_ratio']:.1f} "
                      f"(pystreed median {r['peer_median_s']:.3f}s)")
        proved = df.drop_duplicates(["dataset", "encoding", "depth", "lam"])
        print(f"pystreed proved {int(proved['peer_proved'].sum())} of {len(proved)} instances")
        for r in peers.missed(df).itertuples():
            print(f"not proved although pystreed did: {r.dataset} {r.encoding} d={r.depth} "
                  f"lam={r.lam:g} {r.variant}")
    print(f"max objective spread among variants that proved optimality: "
          f"{report.objective_spread(df):.2e}")


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    data_dir = checkout_data_dir(__file__)
    try:
        tasks = tasks_of(args, data_dir)
    except OptreesInputError as exc:
        raise SystemExit(str(exc)) from exc
    print(HEADER)
    try:
        rows = peers.run_with_peer(tasks, "pystreed" if args.pystreed else None, print_row)
    except RuntimeError as exc:  # the peer did not prove optimality
        raise SystemExit(str(exc)) from exc
    df = pd.DataFrame(rows)
    print_summary(df, args.pystreed)
    # the peak of the whole run bounds every instance's memory (it includes pystreed's)
    print(f"peak RSS of the run: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f}"
          " MB")
    if args.pystreed:
        wrong = peers.wrong_claims(df)
        if len(wrong):
            raise SystemExit("objective differs from pystreed's optimum: " + "; ".join(
                f"{r.dataset} d={r.depth} lam={r.lam:g} {r.variant}: {r.objective} != "
                f"{r.peer_objective}" for r in wrong.itertuples()))


if __name__ == "__main__":
    main()
