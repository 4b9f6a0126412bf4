"""``run_protocol``: grid -> tasks -> CSV -> Markdown summary + figures."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._validation import OptreesInputError
from . import report
from .protocols import _DEFAULT, Config, Protocol, get_protocol, resolve
from .runner import connect, run_tasks


@dataclass
class BenchResult:
    """Where a protocol run wrote its outputs, and its rows."""

    protocol: str
    csv: Path
    markdown: Path
    figures: list[Path] = field(default_factory=list)
    frame: pd.DataFrame = field(default_factory=pd.DataFrame)
    seconds: float = 0.0


def run_protocol(
    name: str,
    *,
    out_dir: str | os.PathLike[str] = "bench/results",
    quick: bool = False,
    jobs: int = 1,
    scheduler: str | None = None,
    dask_local: int | None = None,
    time_limit: Any = _DEFAULT,
    data_dir: str | os.PathLike[str] | None = None,
    datasets: Sequence[str] | None = None,
    methods: Sequence[str] | None = None,
    depths: Sequence[int] | None = None,
    seeds: int | Sequence[int] | None = None,
    lams: Sequence[float] | None = None,
    retry_errors: bool = False,
    progress: bool = True,
    plots: bool = True,
    timeout: float = 10.0,
) -> BenchResult:
    """Run protocol ``name`` (see :data:`PROTOCOLS`) and write, in ``out_dir``,
    ``<name>[-quick].csv`` (one row per fit, resumable), ``<name>[-quick].md`` (summary)
    and the figures (PNG + SVG). Overrides replace the protocol's grid dimensions;
    ``time_limit`` (seconds per fit, None = no limit) defaults to the paper's value."""
    t0 = time.perf_counter()
    proto = get_protocol(name)
    cfg = resolve(name, quick=quick, datasets=datasets, methods=methods, depths=depths,
                  seeds=seeds, lams=lams, time_limit=time_limit, data_dir=data_dir)
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OptreesInputError(f"cannot create the output directory {out}: {exc}") from exc
    stem = f"{name}-quick" if quick else name
    csv_path = out / f"{stem}.csv"
    client = owned = None
    if scheduler is not None or dask_local is not None:
        client, owned = connect(scheduler, dask_local, timeout)
    try:
        done = pd.DataFrame()
        for stage_name, stage in proto.stages:  # a stage sees the rows of earlier stages
            part = run_tasks(stage(cfg, done), csv_path, proto.columns, jobs=jobs,
                             client=client, retry_errors=retry_errors, progress=progress,
                             label=f"{stem}:{stage_name}")
            if not part.empty:
                done = part if done.empty else pd.concat([done, part], ignore_index=True)
    finally:
        if client is not None:
            client.close()
        if owned is not None:
            owned.close()
    df = done.sort_values("key").reset_index(drop=True) if not done.empty else done
    figures = _figures(proto, cfg, df, out, stem) if plots and not df.empty else []
    seconds = time.perf_counter() - t0
    md = _markdown(proto, cfg, df, [f.name for f in figures if f.suffix == ".png"], seconds)
    md_path = out / f"{stem}.md"
    md_path.write_text(md, encoding="utf-8")
    return BenchResult(name, csv_path, md_path, figures, df, seconds)


# ----------------------------------------------------------------------------- summaries
def _ordered(table: pd.DataFrame, order: Sequence[str]) -> pd.DataFrame:
    return table.reindex(columns=[c for c in order if c in table.columns])


def _ok(df: pd.DataFrame) -> pd.DataFrame:
    return df[df["error"] == ""] if not df.empty else df


def _sections(proto: Protocol, cfg: Config, df: pd.DataFrame) -> list[tuple[str, str]]:
    if df.empty:
        return [("Results", "_(no rows)_\n")]
    name = proto.name
    mips = df[df["method"] != "cart"]
    if name == "flow":
        tune, test = df[df["stage"] == "tune"], df[df["stage"] == "test"]
        sel = test[["dataset", "depth", "method", "seed", "lam"]] if "lam" in test else test
        return [
            ("Out-of-sample accuracy (%) after lambda selection (paper Table 2)",
             report.md_table(report.accuracy_table(test, ["dataset", "depth"],
                                                   order=cfg.methods))),
            ("Tuning fits: solved to optimality (lambda = 0 / lambda > 0)",
             report.md_table(report.solved_table(
                 tune.assign(lam_group=np.where(tune["lam"].fillna(0) > 0, "lam>0", "lam=0")),
                 ["lam_group", "method"]))),
            ("Selected lambda per split", report.md_table(sel, index=False)),
        ]
    if name == "accelerated":
        out = [
            ("Ablation: instances solved, mean / median seconds (solved), mean gap (unsolved)",
             report.md_table(report.solved_table(df, ["variant"]))),
            ("Per dataset and encoding",
             report.md_table(report.solved_table(df, ["dataset", "encoding", "variant"]))),
            ("By depth", report.md_table(report.solved_table(df, ["depth", "variant"]))),
        ]
        if "bendoct" in set(df["variant"]):
            out.append(("Median speed-up over `bendoct` on the instances both solve",
                        report.md_table(report.speedup_table(df, "bendoct"))))
        spread = report.objective_spread(df)
        out.append(("Exactness", f"Largest objective difference between variants that "
                                 f"proved optimality on the same instance: {spread:.2e}\n"))
        return out
    if name == "omt":  # the reported fits (a penalty grid's fits are stage "tune")
        df = df[df["stage"] == "test"]
        mips = df[df["method"] != "cart"]
        return [
            ("Out-of-sample accuracy (%), mean ± std over splits (paper Table 1)",
             report.md_table(report.accuracy_table(df, ["dataset", "depth"],
                                                   order=cfg.methods))),
            ("Median runtime (s), unsolved capped at the time limit (paper Table 2)",
             report.md_table(_ordered(report.median_runtime(mips, cfg.time_limit),
                                      cfg.methods))),
            ("Instances solved", report.md_table(report.solved_table(mips, ["method"]))),
        ]
    if name == "cgh":
        table = report.cgh_paper_table(report.cgh_summary(df))
        agree = report.cgh_agreement(table)
        return [("CGH vs CART and the paper: mean accuracy (%) over splits, seconds, share of "
                 "integral final master LPs (lp_integral, Table 4) and of time-outs",
                 report.md_table(table)
                 + f"\nWithin {report.CGH_WITHIN} points of the paper's CGH test accuracy: "
                   f"{len(agree['close'])} of {len(agree['compared'])} (dataset, depth) "
                   "pairs.\n")]
    if name == "rug-multiclass":
        return [("RUG vs ruleopt and the paper ([RUG] Tables 2 / 4): test accuracy (%), mean "
                 "± standard error over the splits, paired difference, rules, seconds",
                 report.md_table(report.rug_paper_table(df)))]
    if name == "rug":
        ok = _ok(df)
        plain = ok[~ok["method"].isin(["fairrug", "rug-paper", "ruleopt-paper"])]
        cols = {"test_acc": "mean", "test_f1": "mean", "n_rules": "mean",
                "avg_rule_length": "mean", "rules_per_sample": "mean", "fit_seconds": "mean"}
        cols = {k: v for k, v in cols.items() if k in plain}
        out = [("Accuracy, F1, interpretability, seconds",
                report.md_table(plain.groupby(["dataset", "method"], sort=False).agg(cols),
                                digits=3))]
        fair = ok[ok["method"] == "fairrug"]
        if not fair.empty:
            f = fair.assign(fairness=fair["fairness"].fillna("none"))
            out.append(("FairRUG", report.md_table(
                f.groupby(["dataset", "fairness"], sort=False)[
                    ["test_acc", "test_f1", "dmc", "eop", "n_rules", "fit_seconds"]].mean(),
                digits=3)))
        if ok["method"].isin(["rug-paper", "ruleopt-paper"]).any():
            out.append(("RUG vs ruleopt, the paper's multi-class protocol ([RUG] Tables 2 / 4)",
                        report.md_table(report.rug_paper_table(df))))
        return out
    return []


def _markdown(proto: Protocol, cfg: Config, df: pd.DataFrame, figures: list[str],
              seconds: float) -> str:
    header = {
        "mode": "quick" if cfg.quick else "full",
        "datasets": ", ".join(cfg.datasets),
        "methods" if proto.name != "accelerated" else "variants": ", ".join(cfg.methods),
        "depths": ", ".join(map(str, cfg.depths)),
        "seeds": len(cfg.seeds),
        "time limit per fit": "none" if cfg.time_limit is None else f"{cfg.time_limit:g} s",
        "tasks": len(df),
        "errors": int((df["error"] != "").sum()) if not df.empty else 0,
        "wall time of this invocation": f"{seconds:.1f} s",
    }
    if cfg.lams:
        header["lambdas"] = ", ".join(f"{v:g}" for v in cfg.lams)
    return report.summary_markdown(proto.name, proto.description, df,
                                   _sections(proto, cfg, df), figures, header)


def _figures(proto: Protocol, cfg: Config, df: pd.DataFrame, out: Path,
             stem: str) -> list[Path]:
    from . import plots

    figs: list[Path] = []
    name = proto.name
    if name == "flow":
        tune = df[df["stage"] == "tune"]
        lam = tune["lam"].fillna(0.0)
        figs += plots.performance_profile(
            tune, out / f"{stem}_profile", time_limit=cfg.time_limit,
            panels=[("lambda = 0", lam == 0), ("lambda > 0", lam > 0)])
        figs += plots.gap_vs_size(tune, out / f"{stem}_gap_vs_size",
                                  title="optimality gap of the tuning fits")
        test = df[df["stage"] == "test"]
        figs += plots.table_figure(report.accuracy_table(test, ["dataset", "depth"],
                                                         order=cfg.methods),
                                   out / f"{stem}_accuracy", "test accuracy (%)")
    elif name == "accelerated":
        figs += plots.performance_profile(df, out / f"{stem}_profile", by="variant",
                                          time_limit=cfg.time_limit,
                                          title="instances solved vs time")
        figs += plots.gap_vs_size(df, out / f"{stem}_gap_vs_size", by="variant")
        figs += plots.table_figure(report.solved_table(df, ["variant"]),
                                   out / f"{stem}_ablation", "ablation")
    elif name in ("omt", "cgh", "rug", "rug-multiclass"):
        df = df[df["stage"] == "test"]
        mips = df[df["method"] != "cart"]
        if name == "omt":
            # no gap-vs-size here: OMT's gap (MIP vs final LP) is not a proven gap
            figs += plots.performance_profile(mips, out / f"{stem}_profile",
                                              time_limit=cfg.time_limit,
                                              title="instances solved vs time")
        index = ["dataset", "depth"] if name not in ("rug", "rug-multiclass") else ["dataset"]
        plain = df[df["method"] != "fairrug"]
        figs += plots.table_figure(report.accuracy_table(plain, index, order=cfg.methods),
                                   out / f"{stem}_accuracy", "test accuracy (%)")
    return figs
