"""Deep trees on 0/1 features (issue #47): depth 5 (or 6) on the accelerated grid's encodings,
pystreed side by side in the same run.

The instances are those of ``bench/accel_bendoct.py`` (``binarized/accel-oct/``: one-hot
``enc`` for the categorical sets, ``QB_5`` and ``QT_5`` for the numeric ones, all rows),
solved by ``BendersOCTClassifier(penalty="leaves")`` with its defaults (the 0/1 search first,
the MIP after it when the search proves nothing, at depth 5 only: ``MIP_MAX_DEPTH``) and by
pystreed (cost-complex-accuracy: the same objective, accuracy - lam * leaves) with the same
time limit. Tasks, warm-up, timing (median of 3 fits under a second) and the pystreed call
are the harness's
(:func:`optrees.bench.peers.run_with_peer`).

Usage:
    python bench/deep_trees.py --sample 8 --time-limit 30
    python bench/deep_trees.py --depth 6 --lams 0.005 --time-limit 120
    python bench/deep_trees.py --datasets spect,tic-tac-toe --lams 0.001
Prints one line per instance (ours: seconds, status, objective, bound, gap; pystreed:
seconds, proved, objective; ours / pystreed seconds) and a summary: proved by each, the median
ratio where both prove, and on the instances neither proves the share where our tree is at
least as good as pystreed's and our median gap.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from bench.accel_bendoct import sampled_tasks  # noqa: E402
from optrees.bench import peers, report  # noqa: E402
from optrees.bench.scripts import checkout_data_dir  # noqa: E402

LAMS = (0.005, 0.001)
"""Issue #47's table."""
HEADER = (f"{'dataset':16} {'enc':5} {'lam':>6} | {'ours s':>7} {'status':10} {'objective':>9} "
          f"{'bound':>8} {'gap':>7} | {'peer s':>7} {'proved':6} {'objective':>9} | "
          f"{'ratio':>6}")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--depth", type=int, default=5)
    ap.add_argument("--lams", default=",".join(map(str, LAMS)))
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--sample", type=int, default=0, metavar="N",
                    help="N instances drawn from the grid (0: all of it)")
    ap.add_argument("--seed", type=int, default=0, help="seed of --sample")
    ap.add_argument("--datasets", default="",
                    help="comma-separated data sets (every encoding of each) instead of all")
    ap.add_argument("--no-peer", action="store_true", help="ours only")
    args = ap.parse_args(argv)
    args.depths, args.variants = str(args.depth), "default"  # as bench/accel_bendoct.py's
    return args


def tasks_of(args: argparse.Namespace, data_dir: Path | None) -> list:
    """The sampled grid instances, restricted to ``--datasets`` when given."""
    tasks = sampled_tasks(args, data_dir, [float(v) for v in args.lams.split(",")])
    if args.datasets:
        keep = set(args.datasets.split(","))
        tasks = [t for t in tasks if t.dataset in keep]
    return tasks


def print_row(row: dict) -> None:
    """One line per instance."""
    peer = ""
    if "peer_seconds" in row:
        peer = (f"{row['peer_seconds']:7.2f} {'yes' if row['peer_proved'] else 'no':6} "
                f"{row['peer_objective']:9.5f} | "
                f"{row.get('fit_seconds', np.nan) / row['peer_seconds']:6.2f}")
    error = f"  {row['error']}" if row.get("error") else ""
    print(f"{row['dataset']:16} {row['encoding']:5} {row['lam']:6g} | "
          f"{row.get('fit_seconds', np.nan):7.2f} {row['status']:10} "
          f"{row.get('objective', np.nan):9.5f} {row.get('bound', np.nan):8.5f} "
          f"{row.get('gap', np.nan):7.2%} | {peer}{error}", flush=True)


def summary(df: pd.DataFrame) -> list[str]:
    """Proved by each, median ratio where both prove, and on instances neither proves: the
    share where our tree is at least as good as pystreed's and our median gap."""
    ours = report.is_solved(df["status"])
    lines = [f"instances: {len(df)}; proved by optrees: {int(ours.sum())}"]
    if "peer_proved" not in df:
        return lines
    theirs = df["peer_proved"].astype(bool)
    both = ours & theirs
    ratio = df.loc[both, "fit_seconds"] / df.loc[both, "peer_seconds"]
    lines += [f"proved by pystreed: {int(theirs.sum())}; by both: {int(both.sum())}",
              f"median ratio ours / pystreed where both prove: {ratio.median():.2f} "
              f"(max {ratio.max():.2f})" if len(ratio) else "no instance proved by both"]
    missed = df[theirs & ~ours]
    lines += [f"proved by pystreed, not by optrees: {r.dataset} {r.encoding} lam={r.lam:g}"
              for r in missed.itertuples()]
    neither = df[~ours & ~theirs]
    if len(neither):
        as_good = (neither["objective"] >= neither["peer_objective"] - peers.TOL).mean()
        lines.append(f"neither proves: {len(neither)}; our tree >= pystreed's on "
                     f"{as_good:.0%}; our median gap {neither['gap'].median():.2%}")
    return lines


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    tasks = tasks_of(args, checkout_data_dir(__file__))
    print(f"depth {args.depth}, {len(tasks)} instances, {args.time_limit:g} s each")
    print(HEADER)
    rows = peers.run_with_peer(tasks, None if args.no_peer else "pystreed", print_row)
    df = pd.DataFrame(rows)
    print("\n=== summary ===")
    print("\n".join(summary(df)))
    if not args.no_peer:
        wrong = peers.wrong_claims(df)
        for r in wrong.itertuples():
            print(f"WRONG: {r.dataset} {r.encoding} lam={r.lam:g}: {r.objective} claimed "
                  f"optimal, pystreed {r.peer_objective}")


if __name__ == "__main__":
    main()
