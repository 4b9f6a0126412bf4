"""Benchmark figures (matplotlib, Agg backend), each written as PNG and SVG."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..export import pyplot
from .report import is_solved


def _save(fig, stem: Path) -> list[Path]:  # noqa: ANN001
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_suffix(".png"), stem.with_suffix(".svg")]
    for p in paths:
        fig.savefig(p, dpi=120, bbox_inches="tight")
    pyplot().close(fig)
    return paths


def performance_profile(df: pd.DataFrame, stem: str | Path, by: str = "method",
                        title: str = "", time_limit: float | None = None,
                        panels: Sequence[tuple[str, pd.Series]] | None = None) -> list[Path]:
    """Instances solved (y) within a time (x), one line per ``by`` value
    (solved: see :func:`optrees.bench.report.is_solved`).

    ``panels``: optional (title, boolean mask) pairs, one subplot each (e.g. lambda = 0 and
    lambda > 0 as in [FlowOCT] Fig. 3).
    """
    plt = pyplot()
    from matplotlib.ticker import MaxNLocator

    panels = list(panels) if panels else [(title, pd.Series(True, index=df.index))]
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4), squeeze=False)
    for ax, (ptitle, mask) in zip(axes[0], panels, strict=True):
        part = df[mask & (df["error"] == "")]
        for name, g in part.groupby(by, sort=True):
            times = np.sort(g.loc[is_solved(g["status"]), "fit_seconds"].to_numpy(float))
            xs = np.concatenate([[0.0], times])
            ys = np.arange(len(xs))
            end = time_limit if time_limit else (xs[-1] if len(xs) else 1.0)
            ax.step(np.append(xs, max(end, xs[-1])), np.append(ys, ys[-1]), where="post",
                    label=f"{name} ({len(times)}/{len(g)})")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("instances solved")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(ptitle)
        ax.grid(alpha=0.3)
        if len(part):
            ax.legend(fontsize=8)
    fig.tight_layout()
    return _save(fig, Path(stem))


def gap_vs_size(df: pd.DataFrame, stem: str | Path, by: str = "method",
                title: str = "") -> list[Path]:
    """Optimality gap (%) against instance size (training rows x binary features)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 4))
    part = df[(df["error"] == "") & df["gap"].notna()].copy()
    feats = part["n_features_binary"] if "n_features_binary" in part else part["n_features"]
    part["size"] = part["n_train"] * feats.fillna(part["n_features"])
    part["gap_pct"] = (100 * part["gap"].replace(np.inf, 1.0)).clip(upper=100)
    for name, g in part.groupby(by, sort=True):
        ax.scatter(g["size"], g["gap_pct"], s=14, alpha=0.7, label=str(name))
    if len(part) and part["size"].max() > 10 * part["size"].min() > 0:
        ax.set_xscale("log")
    top = part["gap_pct"].max() if len(part) else 0.0
    ax.set_ylim(-2, max(5.0, 1.05 * top))
    ax.set_xlabel("rows x binary features")
    ax.set_ylabel("optimality gap (%)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if len(part):
        ax.legend(fontsize=8)
    fig.tight_layout()
    return _save(fig, Path(stem))


def table_figure(table: pd.DataFrame, stem: str | Path, title: str = "") -> list[Path]:
    """Render a (small) table, e.g. the accuracy table, as an image for the README."""
    plt = pyplot()
    frame = table.reset_index()
    rows = max(len(frame), 1)
    fig, ax = plt.subplots(figsize=(1.6 + 1.5 * len(frame.columns), 0.6 + 0.3 * rows))
    ax.axis("off")
    if len(frame):
        cells = [[f"{v:.3g}" if isinstance(v, float) else str(v) for v in r]
                 for r in frame.itertuples(index=False)]
        tab = ax.table(cellText=cells, colLabels=[str(c) for c in frame.columns],
                       loc="center", cellLoc="center")
        tab.auto_set_font_size(False)
        tab.set_fontsize(8)
        tab.scale(1, 1.2)
    ax.set_title(title)
    return _save(fig, Path(stem))
