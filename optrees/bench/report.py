"""Markdown summaries of benchmark results (one table builder per protocol)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..models.result import FINISHED_STATUSES as FINISHED
from .papers import CGH_PAPER

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
    """Instances, solved to optimality, mean and median seconds of solved, mean gap (%) of
    unsolved, errors."""
    rows = []
    for key, g in df.groupby(list(by), sort=False):
        solved = is_solved(g["status"])
        rows.append({
            **dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True)),
            "instances": len(g),
            "solved": int(solved.sum()),
            "mean_s_solved": g.loc[solved, "fit_seconds"].mean(),
            "median_s_solved": g.loc[solved, "fit_seconds"].median(),
            "mean_gap_unsolved_%": 100 * g.loc[~solved, "gap"].replace(np.inf, np.nan).mean(),
            "errors": int((g["error"] != "").sum()),
        })
    return pd.DataFrame(rows).set_index(list(by)) if rows else pd.DataFrame()


def accuracy_table(df: pd.DataFrame, index: Sequence[str], column: str = "method",
                   value: str = "test_acc", order: Sequence[str] | None = None,
                   std: bool = True) -> pd.DataFrame:
    """Mean ± std of ``value`` in % per ``index`` x ``column`` (as strings); ``std=False``:
    the mean in % as a number."""
    ok = df[df["error"] == ""]
    if ok.empty:
        return pd.DataFrame()
    grouped = ok.groupby([*index, column], sort=False)[value]
    mean = grouped.mean().unstack(column)
    cols = [c for c in (order or mean.columns) if c in mean.columns]
    if not std:
        return 100 * mean[cols]
    std_ = grouped.std(ddof=0).unstack(column)
    out = pd.DataFrame(index=mean.index)
    for c in cols:
        out[c] = [("-" if pd.isna(m) else f"{100 * m:.1f} ± {100 * (0 if pd.isna(s) else s):.1f}")
                  for m, s in zip(mean[c], std_[c], strict=True)]
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
    ([OMT] Table 2)."""
    ok = df[df["error"] == ""].copy()
    if ok.empty:
        return pd.DataFrame()
    if time_limit is not None:
        ok.loc[~is_solved(ok["status"]), "fit_seconds"] = ok["fit_seconds"].clip(
            upper=time_limit)
    return ok.pivot_table(index="depth", columns="method", values="fit_seconds",
                          aggfunc="median", sort=False)


def fit_summary(df: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Per ``by`` group: fits, how many proved optimality, median seconds, mean gap, mean
    test accuracy."""
    return df.groupby(list(by), sort=False).agg(
        runs=("status", "size"),
        optimal=("status", lambda s: int((s == "optimal").sum())),
        median_s=("fit_seconds", "median"),
        mean_gap=("gap", "mean"),
        mean_test_acc=("test_acc", "mean"))


def speedup_table(df: pd.DataFrame, base: str, by: str = "variant",
                  instance: Sequence[str] = ("dataset", "encoding", "depth", "lam")
                  ) -> pd.DataFrame:
    """Per ``by`` value other than ``base``: instances solved, solved by ``base``, solved by
    both, and the median of base seconds / seconds on the instances both solve."""
    key = [c for c in instance if c in df.columns]
    solved = df.assign(_solved=is_solved(df["status"]))
    ref = solved[solved[by] == base].set_index(key)
    rows = []
    for name in [v for v in solved[by].unique() if v != base]:
        other = solved[solved[by] == name].set_index(key)
        both = ref["_solved"] & other["_solved"].reindex(ref.index, fill_value=False)
        ratio = ref["fit_seconds"][both] / other["fit_seconds"].reindex(ref.index)[both]
        rows.append({by: name, "solved": int(other["_solved"].sum()),
                     f"solved_{base}": int(ref["_solved"].sum()), "both": int(both.sum()),
                     "median_speedup": ratio.median() if both.any() else math.nan})
    return pd.DataFrame(rows).set_index(by) if rows else pd.DataFrame()


def objective_spread(df: pd.DataFrame,
                     instance: Sequence[str] = ("dataset", "encoding", "depth", "lam")) -> float:
    """Largest difference between the objectives of fits that proved optimality on the same
    instance (0 for exact methods that agree)."""
    solved = df[is_solved(df["status"])]
    if solved.empty:
        return 0.0
    key = [c for c in instance if c in df.columns]
    objective = solved.groupby(key)["objective"]
    return float((objective.max() - objective.min()).max())


# ----------------------------------------------------------------------------- CGH
CGH_WITHIN = 1.5
"""Target: our mean CGH test accuracy within this many points of [CGH]'s."""


def cgh_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, depth): splits, mean train / test accuracy (%) of CGH and of CART, mean
    seconds, share of integral final master LPs ([CGH] Table 4) and of time-outs."""
    ok = df[df["error"] == ""]
    cgh, cart = ok[ok["method"] == "cgh"], ok[ok["method"] == "cart"]
    if cgh.empty:
        return pd.DataFrame()
    out = cgh.groupby(["dataset", "depth"], sort=False).agg(
        seeds=("seed", "size"), cgh_train=("train_acc", "mean"), cgh_test=("test_acc", "mean"),
        seconds=("fit_seconds", "mean"),
        lp_integral=("lp_integral", lambda s: s.astype(str).eq("True").mean()),
        timeout=("status", lambda s: s.eq("time_limit").mean()))
    ref = cart.groupby(["dataset", "depth"], sort=False).agg(
        cart_train=("train_acc", "mean"), cart_test=("test_acc", "mean"),
        cart_seconds=("fit_seconds", "mean"))
    out = out.join(ref)
    acc = ["cgh_train", "cgh_test", "cart_train", "cart_test"]
    out[acc] *= 100
    return out


def cgh_paper_table(summary: pd.DataFrame) -> pd.DataFrame:
    """:func:`cgh_summary` next to [CGH]'s numbers (:data:`CGH_PAPER`), with the
    differences ours - paper of the test accuracies (points)."""
    if summary.empty:
        return summary
    paper = pd.DataFrame([CGH_PAPER.get(key, {}) for key in summary.index], index=summary.index)
    paper = paper.reindex(columns=["cart_train", "cgh_train", "cart_test", "cgh_test"])
    out = pd.DataFrame(index=summary.index)
    out["seeds"] = summary["seeds"]
    for col in ("cart_train", "cgh_train", "cart_test", "cgh_test"):
        out[col] = summary[col]
        out[f"paper_{col}"] = paper[col]
        if col.endswith("test"):
            out[f"diff_{col}"] = summary[col] - paper[col]
    for col in ("seconds", "lp_integral", "timeout"):
        out[col] = summary[col]
    return out


def cgh_agreement(table: pd.DataFrame, within: float = CGH_WITHIN) -> dict[str, list]:
    """(dataset, depth) pairs of :func:`cgh_paper_table` whose CGH test accuracy is within
    ``within`` points of the paper's as printed (one decimal), or worse / better by more."""
    close: list = []
    worse: list = []
    better: list = []
    compared = table.dropna(subset=["diff_cgh_test"]) if not table.empty else table
    for (name, depth), r in compared.iterrows():
        if abs(round(r["diff_cgh_test"], 1)) <= within + 1e-9:  # the paper gives 0.1
            close.append((name, depth))
        else:
            entry = (name, depth, r["diff_cgh_test"], r["diff_cart_test"])
            (worse if r["diff_cgh_test"] < 0 else better).append(entry)
    return {"close": close, "worse": worse, "better": better, "compared": list(compared.index)}


def cgh_gains(summary: pd.DataFrame) -> pd.DataFrame:
    """Per depth: mean gain (points) of CGH over CART in train and in test accuracy."""
    by_depth = summary.assign(
        train_gain=summary["cgh_train"] - summary["cart_train"],
        test_gain=summary["cgh_test"] - summary["cart_test"]).groupby(level="depth")
    return by_depth[["train_gain", "test_gain"]].mean().sort_index()


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


def rug_paper_table(df: pd.DataFrame) -> pd.DataFrame:
    """[RUG] Tables 2 / 4 protocol: per data set, test accuracy (%) of RUG (``rug-paper``) and
    ruleopt (``ruleopt-paper``) as mean ± standard error over the splits, their paired
    difference (points), the paper's RUG row, rules and seconds (fit with its CV)."""
    from .papers import RUG_TABLE2, RUG_TABLE4

    paper = {**RUG_TABLE2, **RUG_TABLE4}
    ok = df[(df["error"] == "") & df["method"].isin(["rug-paper", "ruleopt-paper"])]
    rows = []
    for name, g in ok.groupby("dataset", sort=False):
        acc = g.pivot_table(index="seed", columns="method", values="test_acc") * 100
        secs = g.groupby("method")["fit_seconds"].mean()
        rules = g.groupby("method")["n_rules"].mean() if "n_rules" in g else {}
        row: dict[str, object] = {"dataset": name, "splits": len(acc)}
        for method, short in (("rug-paper", "RUG"), ("ruleopt-paper", "ruleopt")):
            if method in acc:
                a = acc[method].dropna()
                se = a.std(ddof=1) / np.sqrt(len(a)) if len(a) > 1 else np.nan
                row[f"{short} acc"] = f"{a.mean():.2f} ± {se:.2f}"
                row[f"{short} rules"] = rules.get(method, np.nan)
                row[f"{short} s"] = secs.get(method, np.nan)
        if {"rug-paper", "ruleopt-paper"} <= set(acc.columns):
            d = (acc["rug-paper"] - acc["ruleopt-paper"]).dropna()
            se = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else np.nan
            row["RUG - ruleopt"] = f"{d.mean():+.2f} ± {se:.2f}"
        if name in paper and "rug-paper" in acc:
            row["paper RUG"] = paper[name]
            row["RUG - paper"] = acc["rug-paper"].mean() - paper[name]
        rows.append(row)
    return pd.DataFrame(rows).set_index("dataset") if rows else pd.DataFrame()
