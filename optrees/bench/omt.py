"""[OMT] §6 protocol: OMT's task grid, the leaf penalty chosen on validation, the refit, and
the comparison with the paper's Table 1 (``optrees bench omt`` and ``bench/omt.py``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .config import Config
from .papers import OMT_TABLE1
from .tasks import Task

SPLIT = "50/25/25-random"
"""[OMT] §6: "5 random splits ... into training (50%), validation (25%), and test sets (25%)"
(no stratification is mentioned; bench/README.md)."""

LARGE = ("HTRU_2", "shuttle", "skin", "magic")
"""Large data sets, where the paper lowers K to 100."""

OPTIONS = ("k_best", "beam", "n_bins", "categorical_nodes", "ordinal")
"""OMTClassifier options a run can set for all its fits (``Config.extra["omt"]``)."""

WITHIN = 0.015
"""A (dataset, depth) pair "agrees" with the paper when at most this far below it."""


def omt_params(dataset: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """OMTClassifier keyword arguments of one data set's fits: the paper's objective and
    graph (leaf penalty 0, one node per category; the estimator's defaults are a penalty and
    "complements") unless ``options`` (see :data:`OPTIONS`) or a stage says otherwise, with
    K = 1000, or 100 on :data:`LARGE` data, when ``k_best`` is None."""
    params = {"leaf_penalty": 0.0, "categorical_nodes": "values",
              **{k: options[k] for k in OPTIONS if k in options}}
    if "k_best" in options and options["k_best"] is None:
        params["k_best"] = 100 if dataset in LARGE else 1000
    return params


def _omt_task(cfg: Config, stage: str, dataset: str, seed: int, depth: int,
              params: dict[str, Any]) -> Task:
    return Task.make(cfg.protocol, stage, "omt", dataset, seed,
                     {"split": SPLIT, "depth": depth,
                      **omt_params(dataset, cfg.extra.get("omt", {})), **params},
                     cfg.time_limit, cfg.data_dir)


def penalty_tasks(cfg: Config, penalties: Sequence[float] | None = None) -> list[Task]:
    """Stage ``tune``: OMT on the train part for every leaf penalty (default ``cfg.lams``,
    else 0), dataset, depth and split seed."""
    return [_omt_task(cfg, "tune", ds, seed, depth, {"leaf_penalty": float(lam)})
            for ds in cfg.datasets for depth in cfg.depths for seed in cfg.seeds
            for lam in (penalties or cfg.lams or (0.0,))]


def select_penalty(tune: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, depth, seed): the fit with the best validation accuracy, ties to the
    larger penalty, with ``grid_seconds``, the seconds of all its penalties' fits."""
    ok = tune[tune["error"] == ""]
    if ok.empty:
        return ok.assign(grid_seconds=pd.Series(dtype=float))
    by = ["dataset", "depth", "seed"]
    grid = ok.groupby(by)["fit_seconds"].sum().rename("grid_seconds")
    best = (ok.sort_values(["val_acc", "leaf_penalty"], ascending=False, kind="mergesort")
            .groupby(by, sort=False).head(1))
    return best.join(grid, on=by).sort_values("key").reset_index(drop=True)


def refit_tasks(cfg: Config, selected: pd.DataFrame) -> list[Task]:
    """Stage ``test``: each selected penalty refitted on train + validation (as [FlowOCT]
    §4, which [OMT] §6 follows, does with its lambda)."""
    return [_omt_task(cfg, "test", r.dataset, int(r.seed), int(r.depth),
                      {"leaf_penalty": float(r.leaf_penalty), "fit_on": "train+val"})
            for r in selected.itertuples()]


def reported(tune: pd.DataFrame, refit: pd.DataFrame | None = None) -> pd.DataFrame:
    """The fit reported per split: the selected one, or its refit (keeping the selection's
    validation accuracy and ``grid_seconds``)."""
    sel = select_penalty(tune)
    if refit is None:
        return sel
    keep = sel[["dataset", "depth", "seed", "val_acc", "grid_seconds"]]
    return refit.drop(columns=["val_acc"]).merge(keep, on=["dataset", "depth", "seed"])


def tune_stage(cfg: Config, _: pd.DataFrame) -> list[Task]:
    """Protocol stage ``tune``: the penalty grid when ``--lams`` gives several penalties."""
    return penalty_tasks(cfg) if "omt" in cfg.methods and len(cfg.lams) > 1 else []


def test_stage(cfg: Config, done: pd.DataFrame) -> list[Task]:
    """Protocol stage ``test``: every method on the train part; with a penalty grid, OMT is
    the selected penalty refitted on train + validation."""
    grid = "omt" in cfg.methods and len(cfg.lams) > 1
    single = {"leaf_penalty": float(cfg.lams[0])} if cfg.lams else {}
    tasks = []
    for ds in cfg.datasets:
        for seed in cfg.seeds:
            for depth in cfg.depths:
                for method in cfg.methods:
                    if method != "omt":
                        tasks.append(Task.make(cfg.protocol, "test", method, ds, seed,
                                               {"split": SPLIT, "depth": depth},
                                               cfg.time_limit, cfg.data_dir))
                    elif not grid:
                        tasks.append(_omt_task(cfg, "test", ds, seed, depth, single))
    if grid and not done.empty:
        tasks += refit_tasks(cfg, select_penalty(done[done["stage"] == "tune"]))
    return tasks


def paper_value(dataset: str, depth: int) -> float:
    """[OMT] Table 1's OMT test accuracy (depth 4 and 5), else NaN."""
    ref = OMT_TABLE1.get(dataset)
    return ref[depth - 4] if ref is not None and depth in (4, 5) else np.nan


def paper_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, depth), in order of appearance: mean test accuracy, the paper's, median
    seconds (of the reported fit and of the penalty grid), mean gap, penalties, statuses."""
    out = []
    for (ds, depth), g in rows.groupby(["dataset", "depth"], sort=False):
        out.append({"dataset": ds, "depth": depth, "test": g["test_acc"].mean(),
                    "paper": paper_value(ds, int(depth)),
                    "seconds": g["fit_seconds"].median(),
                    "grid_seconds": g["grid_seconds"].median(), "gap": g["gap"].mean(),
                    "penalties": sorted(float(v) for v in g["leaf_penalty"]),
                    "statuses": {str(k): int(v) for k, v in g["status"].value_counts().items()}})
    return pd.DataFrame(out)


def paper_agreement(table: pd.DataFrame) -> tuple[int, float, int]:
    """Pairs with a paper value, mean difference (ours - paper), pairs at most
    :data:`WITHIN` below the paper."""
    both = table.dropna(subset=["paper"])
    diff = both["test"] - both["paper"]
    return len(diff), float(diff.mean()) if len(diff) else np.nan, int((diff >= -WITHIN).sum())
