"""The papers' experimental protocols as task grids (full and ``--quick`` variants).

A protocol is a sequence of stages; each stage turns the results so far into tasks (the
FlowOCT protocol tunes lambda on validation in stage ``tune`` and refits the chosen lambda on
train+validation in stage ``test``). Defaults follow the papers; every grid dimension can be
overridden (datasets, methods, depths, seeds, lams, time limit).

(Over 400 lines: the grid of every paper's protocol, each a few lines, in one place.)
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from .._validation import OptreesInputError
from . import omt, rug
from .config import Config
from .papers import RUG_TABLE4
from .tasks import ENCODINGS, METHODS, Task, accel_file, load_data
from .variants import ACCEL_ABLATION, ACCEL_VARIANTS, CUT_VARIANTS

FLOW_DATASETS = ("monk1", "monk2", "monk3", "house-votes-84", "balance-scale", "tic-tac-toe",
                 "car-evaluation", "kr-vs-kp")
"""[FlowOCT] Table 1 (all bundled)."""

OMT_DATASETS = ("soybean-small", "monk3", "monk1", "hayes-roth", "monk2", "house-votes-84",
                "spect", "breast-cancer", "balance-scale", "tic-tac-toe", "car-evaluation",
                "kr-vs-kp")
"""[OMT] Table 1: the twelve small/medium datasets."""

CGH_DATASETS = ("balance-scale", "banknote", "car-evaluation", "ionosphere", "iris", "monk1",
                "monk2", "monk3", "seismic-bumps", "spambase", "tic-tac-toe", "wine")
"""[CGH] §7.2 small datasets (``bench/cgh.py --datasets small``)."""

RUG_DATASETS = ("monk1", "monk2", "monk3", "house-votes-84", "tic-tac-toe", "balance-scale",
                "car-evaluation", "kr-vs-kp", "banknote", "wdbc", "ionosphere", "transfusion",
                "magic", "adult", "skin", "wine", "iris")
"""[RUG] §4 data sets (the default list of ``bench/rug.py``)."""

RUG_FAIR = {"adult": "sex", "compas": "Race"}
"""FairRUG datasets and their sensitive attribute."""

RUG_MULTICLASS = ("ecoli", "glass", "seeds", "wine", "nursery")
"""[RUG] Table 2 (ecoli, glass, seeds, wine; sensorless is not in the data directory) and the
multi-class data set of Table 4 that RUG rows report, nursery (student, law, attrition can be
named with --datasets)."""
RUG_PAPER_METHODS = ("rug-paper", "ruleopt-paper")
"""RUG (optrees) and its peer ruleopt with the paper's multi-class protocol: stratified
80/20 split, grid :data:`~optrees.bench.tasks.RUG_PAPER_GRID` by shuffled 5-fold CV."""

ACCEL_CATEGORICAL = ("balance-scale", "breast-cancer", "car_evaluation", "hayes-roth",
                     "house-votes-84", "kr-vs-kp", "monk1", "monk2", "monk3", "soybean-small",
                     "spect", "tic-tac-toe")
ACCEL_NUMERIC = ("ILPD", "ann-thyroid", "banknote", "biodeg", "credit", "fertility",
                 "hepatitis", "ionosphere", "iris", "ozone-one", "parkinsons", "plrx",
                 "segmentation", "seismic-bumps", "sonar", "spambase", "thoracic",
                 "transfusion", "wdbc", "wine", "wpbc")
"""[BendOCT] §6: 12 categorical datasets (one-hot, ``enc``) and 21 with numeric
features (``QB_5`` and ``QT_5``); 33 datasets x 2 depths x 15 lambdas -> 1620 instances."""

PAPER_LAMS = (0.08, 0.06, 0.04, 0.02, 0.01, 0.008, 0.006, 0.004, 0.002, 0.001, 0.0008, 0.0006,
              0.0004, 0.0002, 0.0001)
FLOW_LAMS = tuple(round(0.1 * j, 1) for j in range(10))


Stage = Callable[[Config, pd.DataFrame], list[Task]]


@dataclass(frozen=True)
class Protocol:
    """One paper's protocol: defaults (full and quick), stages, and CSV columns."""

    name: str
    description: str
    full: Config
    quick: Config
    stages: tuple[tuple[str, Stage], ...]
    param_columns: tuple[str, ...]
    metric_columns: tuple[str, ...]
    allowed_methods: tuple[str, ...]
    accel_data: bool = False

    @property
    def columns(self) -> tuple[str, ...]:
        """CSV header of this protocol."""
        return (("key", "protocol", "stage", "dataset", "method", "seed")
                + self.param_columns
                + ("status", "objective", "bound", "gap", "n_train", "n_test", "n_features",
                   "n_features_binary", "train_acc", "val_acc", "test_acc")
                + self.metric_columns
                + ("fit_seconds", "solve_seconds", "time_limit", "params", "error"))


def _task(cfg: Config, stage: str, method: str, dataset: str, seed: int,
          params: dict[str, Any]) -> Task:
    return Task.make(cfg.protocol, stage, method, dataset, seed, params, cfg.time_limit,
                     cfg.data_dir)


# ----------------------------------------------------------------------------- flow
def flow_tune_tasks(cfg: Config, _: pd.DataFrame | None = None) -> list[Task]:
    """Stage ``tune`` of [FlowOCT] §4: every method and lambda on the train part of each
    50/25/25 split; BinOCT (no regularisation, §4 footnote 1) once; CART only in stage
    ``test``. Per split and depth: lambda by lambda, all methods on each instance."""
    fits: list[tuple[str, float | None]] = []
    for i, lam in enumerate(cfg.lams or (None,)):
        for method in cfg.methods:
            if method == "binoct" and i == 0:
                fits.append((method, None))
            elif method not in ("binoct", "cart") and lam is not None:
                fits.append((method, float(lam)))
    tasks = []
    for ds in cfg.datasets:
        for seed in cfg.seeds:
            for depth in cfg.depths:
                for method, lam in fits:
                    params: dict[str, Any] = {"split": "50/25/25", "depth": depth}
                    if lam is not None:
                        params["lam"] = lam
                    tasks.append(_task(cfg, "tune", method, ds, seed, params))
    return tasks


def select_lambda(tune: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, method, seed, depth): the tuning row with the best validation accuracy;
    ties go to the larger lambda (the simpler tree)."""
    ok = tune[(tune["error"] == "") & tune["val_acc"].notna()].copy()
    if ok.empty:
        return ok
    ok["_lam"] = ok["lam"].fillna(0.0) if "lam" in ok else 0.0
    ok = ok.sort_values(["val_acc", "_lam"], ascending=False, kind="mergesort")
    best = ok.groupby(["dataset", "method", "seed", "depth"], sort=True).head(1)
    return best.drop(columns="_lam").sort_values("key").reset_index(drop=True)


def flow_test_tasks(cfg: Config, done: pd.DataFrame) -> list[Task]:
    """Stage ``test``: the lambda of :func:`select_lambda` refitted on train+validation (and
    CART, which has no lambda)."""
    tune = done[done["stage"] == "tune"] if not done.empty else done
    tasks = []
    if not tune.empty:
        for r in select_lambda(tune).itertuples():
            params: dict[str, Any] = {"split": "50/25/25", "fit_on": "train+val",
                                      "depth": int(r.depth)}
            if pd.notna(getattr(r, "lam", float("nan"))):
                params["lam"] = float(r.lam)
            tasks.append(_task(cfg, "test", r.method, r.dataset, int(r.seed), params))
    if "cart" in cfg.methods:
        for ds in cfg.datasets:
            for seed in cfg.seeds:
                for depth in cfg.depths:
                    tasks.append(_task(cfg, "test", "cart", ds, seed,
                                       {"split": "50/25/25", "fit_on": "train+val",
                                        "depth": depth}))
    return tasks


# ----------------------------------------------------------------------------- accelerated
def accel_encodings(name: str) -> tuple[str, ...]:
    """Encodings the accelerated protocol uses for ``name``."""
    norm = name.lower().replace("_", "-")
    if norm in {d.lower().replace("_", "-") for d in ACCEL_CATEGORICAL}:
        return ("enc",)
    if norm in {d.lower().replace("_", "-") for d in ACCEL_NUMERIC}:
        return ("QB_5", "QT_5")
    return ENCODINGS


def accel_tasks(cfg: Config, _: pd.DataFrame | None = None) -> list[Task]:
    """[BendOCT] §6: every variant on all rows of each encoding (``cfg.extra["encodings"]``:
    dataset -> encodings, default :func:`accel_encodings`), per depth and lambda."""
    tasks = []
    for ds in cfg.datasets:
        for enc in cfg.extra.get("encodings", {}).get(ds, accel_encodings(ds)):
            for depth in cfg.depths:
                for lam in cfg.lams:
                    for variant in cfg.methods:
                        tasks.append(_task(cfg, "solve", "benders", ds, 0, {
                            "split": "all", "encoding": enc, "depth": depth,
                            "lam": float(lam), "variant": variant}))
    return tasks


# ----------------------------------------------------------------------------- cgh / rug
def cgh_tasks(cfg: Config, _: pd.DataFrame | None = None, *, split: str = "50/25",
              params: dict[str, dict[str, Any]] | None = None) -> list[Task]:
    """[CGH] §7.2: CGH and CART (on the features CGH sees) per dataset, depth and split.
    ``params``: method -> extra task params (e.g. ``{"cgh": {"tau": 300}}``); CART takes
    CGH's ``categorical`` setting."""
    params = params or {}
    categorical = params.get("cgh", {}).get("categorical")
    tasks = []
    for ds in cfg.datasets:
        for depth in cfg.depths:
            for seed in cfg.seeds:
                for method in cfg.methods:
                    task_params: dict[str, Any] = {"split": split, "depth": depth,
                                                   **params.get(method, {})}
                    if method == "cart":
                        task_params["features"] = "cgh"
                        if categorical is not None:
                            task_params["categorical"] = categorical
                    tasks.append(_task(cfg, "test", method, ds, seed, task_params))
    return tasks


def _rug(cfg: Config, _: pd.DataFrame) -> list[Task]:
    depth = cfg.depths[0] if cfg.depths else 3
    tasks = []
    for ds in cfg.datasets:
        for seed in cfg.seeds:
            for method in cfg.methods:
                base: dict[str, Any] = {"split": rug.SPLIT}
                where = {"time_limit": cfg.time_limit, "data_dir": cfg.data_dir}
                if method == "cart":
                    tasks.append(rug.cart_task(ds, seed, depth, **where))
                elif method in ("rug", "rug-cv"):
                    tasks.append(rug.rug_task(ds, seed, grid=method == "rug-cv", depth=depth,
                                              **where))
                elif method in RUG_PAPER_METHODS:
                    params = {"split": "80/20", "tune": "cv5-paper"}
                    if ds in RUG_TABLE4:  # the paper's fairness grid: 5, 10, 15 rounds
                        params["calls_grid"] = "5/10/15"
                    tasks.append(_task(cfg, "test", method, ds, seed, params))
                elif method == "fairrug":
                    if ds not in RUG_FAIR:
                        continue
                    for fairness in ("none", "dmc", "eop"):
                        params = {**base, "max_depth": depth, "pen_par": 1.0,
                                  "max_rmp_calls": 10, "sensitive": RUG_FAIR[ds],
                                  "threshold": 0.0, "rule_length_cost": False}
                        if fairness != "none":
                            params.update(fairness=fairness, epsilon=0.025)
                        tasks.append(_task(cfg, "test", method, ds, seed, params))
    return tasks


_RUG_PARAMS = ("split", "depth", "features", "max_depth", "pen_par", "max_rmp_calls", "tune",
               "calls_grid", "fairness", "epsilon", "sensitive", "threshold",
               "rule_length_cost")
_RUG_METRICS = ("test_f1", "n_rules", "avg_rule_length", "rules_per_sample",
                "rule_length_per_sample", "n_rmp_calls", "tuned", "dmc", "eop")


# ----------------------------------------------------------------------------- script grids
def cut_ablation_tasks(datasets: Sequence[str], depths: Sequence[int], lam: float,
                       time_limit: float | None,
                       variants: Sequence[str] = tuple(CUT_VARIANTS)) -> list[tuple[str, Task]]:
    """(variant, task) pairs of the cut ablation (:data:`CUT_VARIANTS`): each variant on the
    stratified 50 % training half (seed 0) of each bundled dataset."""
    bad = [v for v in variants if v not in CUT_VARIANTS]
    if bad:
        raise OptreesInputError(f"unknown variant(s) {bad}; choose from {', '.join(CUT_VARIANTS)}")
    pairs = []
    for ds in datasets:
        for depth in depths:
            for variant in variants:
                method, switches = CUT_VARIANTS[variant]
                pairs.append((variant, Task.make(
                    "cuts", "fit", method, ds, 0,
                    {"split": "50/50", "depth": depth, "lam": float(lam), **switches},
                    time_limit)))
    return pairs


def in_sample_tasks(datasets: Sequence[str], methods: Sequence[str], depth: int, lam: float,
                    time_limit: float | None, seed: int = 0) -> list[Task]:
    """The [FlowOCT] §4 methods on every row of each bundled dataset (in-sample); BinOCT
    and CART have no lambda (BinOCT runs only for lambda = 0); CART sees the binarized
    features."""
    bad = [m for m in methods if m not in METHODS]
    if bad:
        raise OptreesInputError(f"unknown method(s) {bad}")
    tasks = []
    for ds in datasets:
        for method in methods:
            if method == "binoct" and lam > 0:
                continue
            params: dict[str, Any] = {"split": "all", "depth": depth}
            if method not in ("binoct", "cart"):
                params["lam"] = float(lam)
            tasks.append(Task.make("in-sample", "fit", method, ds, seed, params, time_limit))
    return tasks


_TREE = ("bb_nodes", "n_leaves")
PROTOCOLS: dict[str, Protocol] = {
    "flow": Protocol(
        name="flow",
        description="FlowOCT vs Benders (as published, and with path-bound cuts + polishing) "
                    "vs OCT vs BinOCT ([FlowOCT] §4): 50/25/25 splits, lambda tuned on "
                    "validation, refit on train+validation",
        full=Config("flow", False, FLOW_DATASETS,
                    ("flow", "benders-plain", "benders", "oct", "binoct"),
                    (2, 3, 4, 5), tuple(range(5)), FLOW_LAMS, 3600.0),
        quick=Config("flow", True, ("monk1", "monk3"), ("flow", "benders-plain", "benders"),
                     (2,), (0,), (0.0, 0.5), 10.0),
        stages=(("tune", flow_tune_tasks), ("test", flow_test_tasks)),
        param_columns=("split", "fit_on", "depth", "lam"),
        metric_columns=_TREE,
        allowed_methods=("flow", "benders-plain", "benders", "oct", "binoct", "cart"),
    ),
    "accelerated": Protocol(
        name="accelerated",
        description="accelerated BendOCT ablation ([BendOCT] §6) on the "
                    "accel-OCT encodings, all rows, accuracy - lambda * leaves",
        full=Config("accelerated", False, ACCEL_CATEGORICAL + ACCEL_NUMERIC,
                    ACCEL_ABLATION, (3, 4), (0,), PAPER_LAMS, 3600.0),
        quick=Config("accelerated", True, ("monk1", "monk3"), ("bendoct", "all-ec"), (2,),
                     (0,), (0.01,), 10.0),
        stages=(("solve", accel_tasks),),
        param_columns=("split", "encoding", "depth", "lam", "variant"),
        metric_columns=_TREE,
        allowed_methods=tuple(ACCEL_VARIANTS),
        accel_data=True,
    ),
    "omt": Protocol(
        name="omt",
        description="OMT vs OCT, BinOCT, FlowOCT and CART ([OMT] §6): random 50/25/25 "
                    "splits, test accuracy and instances solved vs time; with several "
                    "--lams, OMT's leaf penalty is chosen on validation and refitted on "
                    "train+validation",
        full=Config("omt", False, OMT_DATASETS, ("omt", "oct", "binoct", "flow", "cart"),
                    (2, 3, 4, 5), tuple(range(5)), (), 1200.0),
        quick=Config("omt", True, ("monk1", "monk3"), ("omt", "oct", "binoct", "flow", "cart"),
                     (2,), (0,), (), 10.0),
        stages=(("tune", omt.tune_stage), ("test", omt.test_stage)),
        param_columns=("split", "fit_on", "depth", "leaf_penalty", *omt.OPTIONS),
        metric_columns=(*_TREE, "test_f1", "n_rules", "mip_gap", "iterations", "columns",
                        "cg_seconds", "mip_seconds"),
        allowed_methods=("omt", "oct", "binoct", "flow", "benders", "cart"),
    ),
    "cgh": Protocol(
        name="cgh",
        description="CGH vs CART ([CGH] §7.2): 5 random 50 % train / "
                    "25 % test splits",
        full=Config("cgh", False, CGH_DATASETS, ("cgh", "cart"), (2, 3, 4), tuple(range(5)),
                    (), 600.0),
        quick=Config("cgh", True, ("monk1", "balance-scale"), ("cgh", "cart"), (2,), (0,), (),
                     10.0),
        stages=(("test", cgh_tasks),),
        param_columns=("split", "depth", "features"),
        metric_columns=("lp_integral", "lp_bound", "n_leaves"),
        allowed_methods=("cgh", "cart"),
    ),
    "rug": Protocol(
        name="rug",
        description="RUG / FairRUG vs CART ([RUG] §4): stratified 70/30 "
                    "split; accuracy, F1, rules, fairness",
        full=Config("rug", False, RUG_DATASETS + tuple(RUG_FAIR),
                    ("rug", "rug-cv", "cart", "fairrug"), (3,), (0,), (), None),
        quick=Config("rug", True, ("monk1", "tic-tac-toe", "car-evaluation"), ("rug", "cart"),
                     (3,), (0,), (), 10.0),
        stages=(("test", _rug),),
        param_columns=_RUG_PARAMS,
        metric_columns=_RUG_METRICS,
        allowed_methods=("rug", "rug-cv", "cart", "fairrug", *RUG_PAPER_METHODS),
    ),
    "rug-multiclass": Protocol(
        name="rug-multiclass",
        description="RUG vs ruleopt on [RUG] Tables 2 and 4 (multi-class): stratified 80/20 "
                    "splits, 5-fold CV grid max_depth {3, 5} x pen_par {0.1, 1, 10} x "
                    "max_rmp_calls {5, 15, 30} (Table 4: {5, 10, 15}); paired accuracy",
        full=Config("rug-multiclass", False, RUG_MULTICLASS, RUG_PAPER_METHODS, (3,),
                    tuple(range(5)), (), 300.0),  # the paper's time limit per fit
        quick=Config("rug-multiclass", True, ("wine", "seeds"), RUG_PAPER_METHODS, (3,),
                     (0,), (), 60.0),
        stages=(("test", _rug),),
        param_columns=_RUG_PARAMS,
        metric_columns=_RUG_METRICS,
        allowed_methods=RUG_PAPER_METHODS,
    ),
}
"""Protocol name -> :class:`Protocol`."""


_DEFAULT = object()


def get_protocol(name: str) -> Protocol:
    """The protocol called ``name``, or an :class:`OptreesInputError` listing the choices."""
    if name not in PROTOCOLS:
        raise OptreesInputError(f"unknown protocol {name!r}; choose from {', '.join(PROTOCOLS)}")
    return PROTOCOLS[name]


def resolve(name: str, *, quick: bool = False, datasets: Sequence[str] | None = None,
            methods: Sequence[str] | None = None, depths: Sequence[int] | None = None,
            seeds: int | Sequence[int] | None = None, lams: Sequence[float] | None = None,
            time_limit: Any = _DEFAULT,
            data_dir: str | os.PathLike[str] | None = None) -> Config:
    """The grid of protocol ``name`` with overrides applied, validated up front: unknown
    methods, unknown datasets and missing data files raise :class:`OptreesInputError`."""
    proto = get_protocol(name)
    cfg = proto.quick if quick else proto.full
    changes: dict[str, Any] = {}
    if datasets is not None:
        changes["datasets"] = tuple(datasets)
    if methods is not None:
        bad = [m for m in methods if m not in proto.allowed_methods]
        if bad:
            what = "variant" if proto.accel_data else "method"
            raise OptreesInputError(f"unknown {what}(s) {bad} for protocol {name!r}; choose "
                                    f"from {', '.join(proto.allowed_methods)}")
        changes["methods"] = tuple(methods)
    if depths is not None:
        changes["depths"] = tuple(int(d) for d in depths)
    if seeds is not None:
        changes["seeds"] = tuple(range(seeds)) if isinstance(seeds, int) else tuple(seeds)
    if lams is not None:
        changes["lams"] = tuple(float(v) for v in lams)
    if time_limit is not _DEFAULT:
        changes["time_limit"] = None if time_limit is None else float(time_limit)
    if data_dir is not None:
        changes["data_dir"] = str(data_dir)
    cfg = replace(cfg, extra={}, **changes)
    for method in cfg.methods:
        if method not in METHODS and not proto.accel_data:
            raise OptreesInputError(f"unknown method {method!r}")
    _check_data(proto, cfg)
    return cfg


def _check_data(proto: Protocol, cfg: Config) -> None:
    if not cfg.datasets:
        raise OptreesInputError("no datasets given")
    encodings: dict[str, tuple[str, ...]] = {}
    for ds in cfg.datasets:
        if proto.accel_data:
            wanted = accel_encodings(ds)
            found = []
            for enc in wanted:
                try:
                    accel_file(ds, enc, cfg.data_dir)
                    found.append(enc)
                except OptreesInputError:
                    if len(wanted) == 1:
                        raise
            if not found:  # unknown name: say where we looked
                accel_file(ds, wanted[0], cfg.data_dir)
            encodings[ds] = tuple(found)
        else:
            load_data(ds, None, cfg.data_dir)
    if encodings:
        cfg.extra["encodings"] = encodings
