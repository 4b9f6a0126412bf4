"""Markdown summaries of benchmark results (one table builder per protocol)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..models.result import FINISHED_STATUSES as FINISHED

# Statuses counted as "solved": a MIP proved optimality, or column generation (OMT, RUG)
# stopped on its own criteria before the time limit ([OMT] §6 counts an instance as solved
# when it finishes within the time limit).


def is_solved(status: pd.Series) -> pd.Series:
    """Boolean mask of solved instances (see :data:`FINISHED`)."""
    return status.isin(FINISHED)


def md_table(df: pd.DataFrame, index: bool = True, digits: int = 2) -> str:
    """``df`` as a GitHub Markdown table (floats with ``digits`` decimals, NaN as ``-``)."""
    if df.empty:
        return "_(no rows)_\n"
    frame = df.reset_index() if index else df

    def cell(v: object) -> str:
        if isinstance(v, float | np.floating):
            return "-" if math.isnan(v) else f"{v:.{digits}f}"
        return str(v)

    cols = [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(cell(v) for v in row) + " |")
    return "\n".join(lines) + "\n"


def solved_table(df: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Instances, solved to optimality, mean seconds of solved, mean gap (%) of unsolved."""
    rows = []
    for key, g in df.groupby(list(by), sort=False):
        solved = is_solved(g["status"])
        rows.append({
            **dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True)),
            "instances": len(g),
            "solved": int(solved.sum()),
            "mean_s_solved": g.loc[solved, "fit_seconds"].mean(),
            "mean_gap_unsolved_%": 100 * g.loc[~solved, "gap"].replace(np.inf, np.nan).mean(),
            "errors": int((g["error"] != "").sum()),
        })
    return pd.DataFrame(rows).set_index(list(by)) if rows else pd.DataFrame()


def accuracy_table(df: pd.DataFrame, index: Sequence[str], column: str = "method",
                   value: str = "test_acc", order: Sequence[str] | None = None) -> pd.DataFrame:
    """Mean ± std of ``value`` in % per ``index`` x ``column`` (as strings)."""
    ok = df[df["error"] == ""]
    if ok.empty:
        return pd.DataFrame()
    grouped = ok.groupby([*index, column], sort=False)[value]
    mean, std = grouped.mean().unstack(column), grouped.std(ddof=0).unstack(column)
    cols = [c for c in (order or mean.columns) if c in mean.columns]
    out = pd.DataFrame(index=mean.index)
    for c in cols:
        out[c] = [("-" if pd.isna(m) else f"{100 * m:.1f} ± {100 * (0 if pd.isna(s) else s):.1f}")
                  for m, s in zip(mean[c], std[c], strict=True)]
    return out


def errors_section(df: pd.DataFrame, limit: int = 20) -> str:
    """Markdown list of the first ``limit`` failed tasks."""
    bad = df[df["error"] != ""]
    if bad.empty:
        return ""
    lines = [f"\n## Errors ({len(bad)} tasks)\n"]
    for r in bad.head(limit).itertuples():
        lines.append(f"- `{r.key}`: {r.error}")
    if len(bad) > limit:
        lines.append(f"- ... and {len(bad) - limit} more (see the CSV)")
    return "\n".join(lines) + "\n"


def median_runtime(df: pd.DataFrame, time_limit: float | None) -> pd.DataFrame:
    """Median fit seconds per depth x method, unsolved fits capped at the time limit
    (omt-multiway.txt Table 2)."""
    ok = df[df["error"] == ""].copy()
    if ok.empty:
        return pd.DataFrame()
    if time_limit is not None:
        ok.loc[~is_solved(ok["status"]), "fit_seconds"] = ok["fit_seconds"].clip(
            upper=time_limit)
    return ok.pivot_table(index="depth", columns="method", values="fit_seconds",
                          aggfunc="median", sort=False)


def summary_markdown(protocol: str, description: str, df: pd.DataFrame,
                     sections: Sequence[tuple[str, str]], figures: Sequence[str],
                     header: dict[str, object]) -> str:
    """Assemble the summary: title, run facts, sections (title, body), figures, errors."""
    lines = [f"# Benchmark `{protocol}`\n", description + "\n"]
    lines += [f"- {k}: {v}" for k, v in header.items()]
    lines.append("")
    for title, body in sections:
        lines += [f"## {title}\n", body]
    if figures:
        lines.append("## Figures\n")
        lines += [f"![{f}]({f})" for f in figures]
        lines.append("")
    return "\n".join(lines) + errors_section(df)
