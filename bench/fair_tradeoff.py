"""Accuracy against statistical-parity gap on adult: the README's fair-tree picture (issue #19).

Raw UCI adult (``load_dataset("adult")``, 30,162 rows; sensitive column ``sex``, kept out of
the tree's tests), one stratified 70/30 split, BendOCTClassifier at depth 3 with lam = 0 for
several epsilons (epsilon = 1 binds nothing: the optimal tree over the same binarized
columns), with the default binarizer (5 quantile cuts per numeric column) and with 20 cuts,
and CART of the same depth.  Prints one line per model (cuts, epsilon, status, seconds,
training / test accuracy and gap) and draws accuracy against gap.

Usage:
    python bench/fair_tradeoff.py --out docs/images/fair_tradeoff.png
    python bench/fair_tradeoff.py --depth 2 --eps 0.01,0.05 --out /tmp/x.png
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from optrees import BendOCTClassifier, Binarizer  # noqa: E402
from optrees.bench.scripts import checkout_data_dir  # noqa: E402
from optrees.datasets import load_dataset  # noqa: E402
from optrees.metrics import fairness_gap  # noqa: E402

NOTION = "statistical_parity"


def measure(model, X, y, sens: str) -> tuple[float, float]:
    """Accuracy and statistical-parity gap of ``model`` on (X, y)."""
    pred = model.predict(X)
    return float(np.mean(pred == y)), fairness_gap(NOTION, y, pred, X[sens])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--eps", default="0.005,0.01,0.02,0.05,0.1,1")
    ap.add_argument("--bins", default="5,20", help="quantile cuts per numeric column")
    ap.add_argument("--time-limit", type=float, default=600.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None, help="PNG to write (none: no picture)")
    args = ap.parse_args(argv)
    if checkout_data_dir(__file__) is None:
        raise SystemExit("adult is read from the data directory: set OPTREES_DATA")
    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_dataset("adult")
    sens = "sex"
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y,
                                          random_state=args.seed)
    rows = []
    for bins, eps in itertools.product(map(int, args.bins.split(",")),
                                       map(float, args.eps.split(","))):
        est = BendOCTClassifier(depth=args.depth, lam=0.0, fairness=NOTION, epsilon=eps,
                                sensitive=sens, drop_sensitive=True,
                                binarizer=Binarizer(n_bins=bins), time_limit=args.time_limit)
        t0 = time.perf_counter()
        est.fit(Xtr, ytr)
        rows.append((f"{bins} cuts, eps {eps:g}", (bins, eps), est.status_,
                     time.perf_counter() - t0, *measure(est, Xtr, ytr, sens),
                     *measure(est, Xte, yte, sens)))
    cart = DecisionTreeClassifier(max_depth=args.depth, random_state=0)
    codes = Xtr.drop(columns=[sens]).apply(lambda c: c.cat.codes if c.dtype == "category"
                                           else c)
    cart.fit(codes, ytr)

    class _Cart:  # CART on category codes, scored like the others
        def predict(self, Z):
            return cart.predict(Z.drop(columns=[sens]).apply(
                lambda c: c.cat.codes if c.dtype == "category" else c))

    rows.append(("CART", None, "", 0.0, *measure(_Cart(), Xtr, ytr, sens),
                 *measure(_Cart(), Xte, yte, sens)))
    print(f"adult, depth {args.depth}, {len(ytr)} training rows, statistical parity on {sens}")
    print(f"{'model':19} {'status':8} {'s':>6} | train acc  gap   | test acc  gap")
    for name, _, status, sec, acc, gap, tacc, tgap in rows:
        print(f"{name:19} {status:8} {sec:6.1f} | {acc:.4f}  {gap:.4f} | {tacc:.4f}  "
              f"{tgap:.4f}")
    if args.out is not None:
        draw(rows, args.depth, args.out)
        print(f"wrote {args.out}")
    return 0


def draw(rows, depth: int, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9.6, 4.4))
    for k, bins in enumerate(sorted({r[1][0] for r in rows if r[1] is not None})):
        fair = [r for r in rows if r[1] is not None and r[1][0] == bins and r[1][1] < 1]
        ax.plot([r[5] for r in fair], [r[4] for r in fair], "o-", color=f"C{k}",
                label=f"optimal fair trees, {bins} cuts: training")
        ax.plot([r[7] for r in fair], [r[6] for r in fair], "s:", color=f"C{k}", alpha=0.6,
                label="same trees: test")
        for r in fair:
            ax.annotate(f"{r[1][1]:g}", (r[5], r[4]), textcoords="offset points",
                        xytext=(3, -11), fontsize=7)
        free = [r for r in rows if r[1] is not None and r[1][0] == bins and r[1][1] >= 1]
        ax.plot([r[5] for r in free], [r[4] for r in free], "*", color=f"C{k}",
                markersize=11, label=f"optimal tree without the bound, {bins} cuts")
    cart = next(r for r in rows if r[0] == "CART")
    ax.plot([cart[5]], [cart[4]], "x", color="k", markersize=9, label="CART (training)")
    ax.set_xlabel("statistical-parity gap between sexes")
    ax.set_ylabel("accuracy")
    ax.set_title(f"adult, depth {depth}: accuracy against fairness gap (labels: epsilon)")
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.02, 0.5))
    ax.grid(alpha=0.3)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
