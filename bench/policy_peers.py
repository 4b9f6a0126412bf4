"""Policy trees against ODTlearn's FlowOPT (a MIP on CBC) and econml's greedy PolicyTree, in
one run (issue #45).

The peers live in their own virtual environment (``--peer-python``, default
``/work/venv_peer/bin/python`` with ``odtlearn==1.1.0 mip==1.15.0 econml``; GPL and
heavy, never a dependency of optrees): this script writes each instance to a temporary
``.npz`` file and runs the peer there in a subprocess.

Data: ``bench/policy_trees.py``'s synthetic study (5 normal columns, 3 treatments, known
mean outcomes, confounded treatment); each seed a 70/30 split.  The teacher's inputs are
cross-fitted once (OptimalPolicyTree's defaults) and given to every method.

- FlowOPT (``FlowOPT_IPW`` / ``_DM`` / ``_DR``, depth 2, CBC) on the 0/1 quantile columns, and
  ours on the same columns: both maximise the same teacher's total score, so the training
  policy values must agree where both prove; times and their ratio.
- econml ``PolicyTree(max_depth=2, honest=False)`` fitted on the raw columns with the
  teacher's score matrix, and ours over every threshold of the raw columns: the test rows'
  regret ``mean_i (max_k mu_k - mu_policy)`` and share given their best treatment.

Usage: PYTHONPATH=$PWD python bench/policy_peers.py [--n 300] [--seeds 5] [--teacher dr]
       [--time-limit 120] [--peer-python PATH]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from bench.policy_trees import quantile_bits, synthetic, teacher_inputs  # noqa: E402
from optrees import OptimalPolicyTree  # noqa: E402

PEER = """
import json, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")
d = np.load(sys.argv[1])
teacher, limit = sys.argv[2], int(float(sys.argv[3]))
out = {"flow": {"seconds": float("nan"), "error": "not run (--skip-flowopt)"}}
if sys.argv[4] == "flow":
    from odtlearn import flow_opt
    cls = {"ipw": flow_opt.FlowOPT_IPW, "dm": flow_opt.FlowOPT_DM, "dr": flow_opt.FlowOPT_DR}
    t0 = time.perf_counter()
    try:
        m = cls[teacher](solver="cbc", depth=2, time_limit=limit, num_threads=1)
        args = {"ipw": (d["prop"],), "dm": (d["yhat"],), "dr": (d["prop"], d["yhat"])}[teacher]
        m.fit(d["bits"], d["t"], d["y"], *args)
        out["flow"] = {"seconds": time.perf_counter() - t0,
                       "pred": np.asarray(m.predict(d["bits"])).astype(int).tolist()}
    except Exception as exc:
        out["flow"] = {"seconds": time.perf_counter() - t0, "error": repr(exc)[:200]}
from econml.policy import PolicyTree
t0 = time.perf_counter()
p = PolicyTree(max_depth=2, honest=False, min_samples_leaf=1, min_samples_split=2,
               random_state=0).fit(d["X"], d["gamma"])
out["econml"] = {"seconds": time.perf_counter() - t0,
                 "test_pred": p.predict(d["X_test"]).astype(int).tolist()}
print(json.dumps(out))
"""


def run_peer(python: str, data: dict, teacher: str, limit: float, flow: bool) -> dict:
    """The peers' answers on one instance (JSON from the peer environment)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "instance.npz"
        np.savez(path, **data)
        proc = subprocess.run([python, "-c", PEER, str(path), teacher, str(limit),
                               "flow" if flow else "-"],
                              capture_output=True, text=True, timeout=limit * 3 + 300)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def regret(truth: np.ndarray, policy: np.ndarray) -> tuple[float, float]:
    """Mean regret and share of rows given their best treatment."""
    best = truth.max(axis=1)
    got = truth[np.arange(len(policy)), policy]
    return float((best - got).mean()), float(np.mean(np.isclose(got, best)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--teacher", default="dr", choices=["ipw", "dm", "dr"])
    ap.add_argument("--time-limit", type=float, default=120.0)
    ap.add_argument("--peer-python", default="/work/venv_peer/bin/python")
    ap.add_argument("--skip-flowopt", action="store_true",
                    help="econml only (FlowOPT on CBC needs n of about 100)")
    args = ap.parse_args()
    print(f"n={args.n} (70 % train), depth 2, teacher {args.teacher}, limit "
          f"{args.time_limit:g}s\n")
    print(f"{'seed':>4} {'value ours':>10} {'FlowOPT':>10} {'ours s':>7} {'Flow s':>7} "
          f"{'ratio':>7} | {'regret ours':>11} {'econml':>8} {'best ours':>9} {'econml':>7}")
    rows = []
    for seed in range(args.seeds):
        X, t, y, truth = synthetic(args.n, seed)
        rng = np.random.default_rng(seed)
        test = rng.random(args.n) < 0.3
        Xa, Xb, ta, ya = X[~test], X[test], t[~test], y[~test]
        mu, yhat = teacher_inputs(Xa, ta, ya, seed)
        bits, _ = quantile_bits(Xa)
        t0 = time.perf_counter()
        ours = OptimalPolicyTree(depth=2, teacher=args.teacher, time_limit=args.time_limit,
                                 random_state=seed).fit(bits, ta, ya, propensity=mu,
                                                        outcome_predictions=yhat)
        ours_s = time.perf_counter() - t0
        gamma = ours.scores_
        raw = OptimalPolicyTree(depth=2, teacher=args.teacher, time_limit=args.time_limit,
                                random_state=seed).fit(Xa, ta, ya, propensity=mu,
                                                       outcome_predictions=yhat)
        peer = run_peer(args.peer_python, {
            "bits": bits, "t": ta, "y": ya, "prop": mu, "yhat": yhat, "gamma": gamma,
            "X": Xa.to_numpy(), "X_test": Xb.to_numpy()}, args.teacher, args.time_limit,
            not args.skip_flowopt)
        flow = peer["flow"]
        flow_value = (float(gamma[np.arange(len(ta)), flow["pred"]].mean())
                      if "pred" in flow else float("nan"))
        ours_regret, ours_best = regret(truth[test], raw.predict(Xb))
        econ_regret, econ_best = regret(truth[test], np.asarray(peer["econml"]["test_pred"]))
        rows.append((ours.policy_value_, flow_value, ours_s, flow["seconds"], ours_regret,
                     econ_regret, ours_best, econ_best, ours.status_))
        note = f"  FlowOPT: {flow['error']}" if "error" in flow else ""
        if not flow["seconds"] < 0.98 * args.time_limit and "error" not in flow:
            note += "  FlowOPT stopped at its time limit (not proved)"
        print(f"{seed:>4} {ours.policy_value_:>10.5f} {flow_value:>10.5f} {ours_s:>7.3f} "
              f"{flow['seconds']:>7.2f} {flow['seconds'] / ours_s:>6.0f}x | "
              f"{ours_regret:>11.4f} {econ_regret:>8.4f} {ours_best:>9.3f} {econ_best:>7.3f}"
              f"{note}", flush=True)
    a = np.array([r[:8] for r in rows], dtype=float)

    def mse(col: int) -> str:
        v = a[:, col]
        se = v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else float("nan")
        return f"{v.mean():.4f} ± {se:.4f}"

    if not args.skip_flowopt:
        proved = a[:, 3] < 0.98 * args.time_limit
        same = int(np.sum(np.abs(a[proved, 0] - a[proved, 1]) < 1e-6))
        ratio = np.median(a[proved, 3] / a[proved, 2]) if proved.any() else np.nan
        higher = int(np.sum(a[~proved, 0] > a[~proved, 1] + 1e-9))
        print(f"\nFlowOPT proved {int(proved.sum())} of {len(a)}; on those, the same value "
              f"(1e-6) {same}, median FlowOPT / ours time {ratio:.0f}x; ours higher where "
              f"it stopped: {higher} of {int((~proved).sum())}")
    print(f"test regret ours {mse(4)}, econml {mse(5)}; best treatment ours {mse(6)}, "
          f"econml {mse(7)}")


if __name__ == "__main__":
    main()
