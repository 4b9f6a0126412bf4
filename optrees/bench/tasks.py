"""One benchmark task = one (protocol, method, dataset, split seed, params) fit.

:class:`Task` is a frozen, picklable description with a stable :attr:`Task.key`;
:func:`run_task` executes it and returns one CSV row (a dict). ``run_task`` never raises: a
solver that hits its time limit gives a row with its status and gap, and any exception is
recorded in the ``error`` column, so one bad fit cannot stop a grid.

(Over 400 lines: one fit recipe per method and baseline of every protocol, and the one
row format they all write.)
"""

from __future__ import annotations

import importlib
import inspect
import json
import math
import os
import time
import traceback
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.metrics import f1_score
from sklearn.model_selection import GridSearchCV, KFold, train_test_split
from sklearn.tree import DecisionTreeClassifier

from .._validation import OptreesInputError
from ..registry import METHODS as REGISTRY
from ..registry import PLAIN_BENDERS  # noqa: F401 - re-exported for the tests and scripts
from .variants import accel_switches

METHODS: dict[str, str] = {
    **{name: m.target for name, m in REGISTRY.items()},
    # protocol variants of registry methods (tuning and fairness are task parameters)
    "rug-cv": REGISTRY["rug"].target,
    "fairrug": REGISTRY["rug"].target,
    "rug-paper": "optrees.bench.rug:PaperRUG",
    "ruleopt-paper": "optrees.bench.peers:RuleoptRUG",
    "cart": "optrees.bench.tasks:CARTBaseline",
}
"""Method name -> ``module:Class``, imported only when a task of that method runs: the
registry's methods (:mod:`optrees.registry`) and the protocols' own variants."""

METHOD_PARAMS: dict[str, dict[str, Any]] = {name: dict(m.params) for name, m in REGISTRY.items()
                                            if m.params}
"""Fixed keyword arguments of methods that share an estimator class with another method."""

RUG_CV_GRID = {"max_depth": [3, 5], "pen_par": [0.1, 1.0, 10.0], "max_rmp_calls": [5, 10, 15]}
"""[RUG] §4: 5-fold CV grid of RUG (``tune="cv5"``)."""

RUG_PAPER_GRID = {"max_depth": [3, 5], "pen_par": [0.1, 1.0, 10.0],
                  "max_rmp_calls": [5, 15, 30]}
"""[RUG] Table 2's grid (``tune="cv5-paper"``), in the paper's units: ``pen_par`` is scaled by
1 / (largest rule cost of the first tree) and ``max_rmp_calls`` counts pricing rounds after the
first LP, as in the paper's code and ruleopt (:class:`optrees.bench.rug.PaperRUG` maps them
onto RUGClassifier).  Table 4 (fairness data sets) used ``max_rmp_calls`` 5, 10, 15."""

SPLITS = ("50/25/25", "50/25/25-random", "50/25", "70/30", "80/20", "50/50", "train=F",
          "all")
META_KEYS = ("split", "fit_on", "encoding", "variant", "tune", "sensitive", "calls_grid")
"""Task params that steer the harness; all other params are estimator keyword arguments."""
STAT_COLUMNS = ("iterations", "columns", "cg_seconds", "mip_seconds")
"""Entries of a column-generation estimator's ``stats_`` copied into the row."""

ACCEL_FOLDER = Path("binarized") / "accel-oct"
ENCODINGS = ("enc", "QB_5", "QT_5")
"""accel-OCT encodings (files of the data directory); ``ordinal`` recodes a bundled table."""

ORDINAL_LEVELS = {
    "car-evaluation": {
        "buying": ("low", "med", "high", "vhigh"), "maint": ("low", "med", "high", "vhigh"),
        "doors": ("2", "3", "4", "5more"), "persons": ("2", "4", "more"),
        "lug_boot": ("small", "med", "big"), "safety": ("low", "med", "high"),
    },
}
"""Encoding ``ordinal``: ranked string features coded 0, 1, ... in this order ([CGH] appendix
A step 3: "transforming meaningful ranked (ordinal) string features into numerical
features"); other tables are unchanged."""


def _norm_value(value: Any) -> Any:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return float(value)
    return value


def _fmt(value: Any) -> str:
    return repr(value) if isinstance(value, float) else str(value)


@dataclass(frozen=True)
class Task:
    """A single fit. ``params`` is a sorted tuple of (name, value) pairs (hashable).

    ``data_dir`` tells the worker where non-bundled data lives; it is not part of the key.
    """

    protocol: str
    stage: str
    method: str
    dataset: str
    seed: int
    params: tuple[tuple[str, Any], ...]
    time_limit: float | None
    data_dir: str | None = field(default=None, compare=False)

    @classmethod
    def make(cls, protocol: str, stage: str, method: str, dataset: str, seed: int,
             params: dict[str, Any], time_limit: float | None,
             data_dir: str | os.PathLike[str] | None = None) -> Task:
        """Build a task from a plain params dict (values normalised for a stable key)."""
        items = tuple(sorted((str(k), _norm_value(v)) for k, v in params.items()))
        tl = None if time_limit is None else float(time_limit)
        return cls(protocol, stage, method, dataset, int(seed), items, tl,
                   None if data_dir is None else str(data_dir))

    @property
    def param(self) -> dict[str, Any]:
        """``params`` as a dict."""
        return dict(self.params)

    @property
    def key(self) -> str:
        """Stable, human-readable identifier; resume skips tasks whose key is in the CSV."""
        ps = ",".join(f"{k}={_fmt(v)}" for k, v in self.params)
        tl = "none" if self.time_limit is None else _fmt(self.time_limit)
        return f"{self.protocol}|{self.stage}|{self.dataset}|{self.method}|seed={self.seed}|" \
               f"{ps}|tl={tl}"


# ----------------------------------------------------------------------------- data
def accel_file(name: str, encoding: str, data_dir: str | os.PathLike[str] | None) -> Path:
    """Path of the accel-OCT encoding ``<name>_<encoding>.csv`` (``enc``: ``<name>_enc.csv``).

    Names are matched case-insensitively with ``-`` and ``_`` interchangeable
    (``car-evaluation`` finds ``car_evaluation_enc.csv``).
    """
    if encoding not in ENCODINGS:
        raise OptreesInputError(f"unknown encoding {encoding!r}; choose from {ENCODINGS}")
    root = data_dir if data_dir is not None else os.environ.get("OPTREES_DATA")
    suffix = "_enc.csv" if encoding == "enc" else f"_{encoding}_enc.csv"
    if root is None:
        raise OptreesInputError(
            f"dataset {name!r} ({encoding}) needs {ACCEL_FOLDER / (name + suffix)} from a data "
            "directory, but none is set: pass --data-dir (data_dir=) or set OPTREES_DATA"
        )
    folder = Path(root) / ACCEL_FOLDER
    wanted = (name + suffix).lower().replace("-", "_")
    if folder.is_dir():
        for path in sorted(folder.iterdir()):
            if path.name.lower().replace("-", "_") == wanted:
                return path
    raise OptreesInputError(
        f"dataset {name!r} ({encoding}): file {name + suffix} not found in {folder}"
    )


def ordinal_frame(name: str, X: pd.DataFrame) -> pd.DataFrame:
    """``X`` with the ranked string columns of :data:`ORDINAL_LEVELS` coded 0, 1, ..."""
    X = X.copy()
    for col, levels in ORDINAL_LEVELS.get(name, {}).items():
        codes = pd.Categorical(X[col].astype(str), categories=levels, ordered=True).codes
        if (codes < 0).any():
            raise OptreesInputError(f"{name}: {col} has values outside {levels}")
        X[col] = codes.astype(np.int64)
    return X


@lru_cache(maxsize=16)
def _load_cached(dataset: str, encoding: str | None,
                 data_dir: str | None) -> tuple[pd.DataFrame, pd.Series]:
    if encoding in (None, "ordinal"):
        from ..datasets import load_dataset

        try:
            X, y = load_dataset(dataset, data_dir=data_dir)
        except FileNotFoundError as exc:
            raise OptreesInputError(f"{exc} (optrees bench: --data-dir)") from exc
        return (X, y) if encoding is None else (ordinal_frame(dataset, X), y)
    df = pd.read_csv(accel_file(dataset, encoding, data_dir))
    if "target" not in df.columns:
        raise OptreesInputError(f"{accel_file(dataset, encoding, data_dir)} has no 'target' column")
    return df.drop(columns="target").astype(np.uint8), df["target"]


def load_data(dataset: str, encoding: str | None = None,
              data_dir: str | os.PathLike[str] | None = None) -> tuple[pd.DataFrame, pd.Series]:
    """Raw ``X, y`` of a task (cached per process): the table of ``load_dataset``
    (``encoding`` None, or ``"ordinal"``: see :data:`ORDINAL_LEVELS`) or an accel-OCT
    encoding (:data:`ENCODINGS`). Bad names / missing files raise
    :class:`OptreesInputError` naming the file and the folder searched."""
    return _load_cached(dataset, encoding, None if data_dir is None else str(data_dir))


def default_encoding(dataset: str, data_dir: str | os.PathLike[str] | None = None) -> str:
    """The accel-OCT encoding of ``dataset`` with one column per category value (``enc``)
    when there is one, else its quantile-threshold encoding ``QT_5``."""
    try:
        accel_file(dataset, "enc", data_dir)
        return "enc"
    except OptreesInputError:
        accel_file(dataset, "QT_5", data_dir)  # raises, naming the file and the folder
        return "QT_5"


Part = tuple[pd.DataFrame, pd.Series]


def split_data(X: pd.DataFrame, y: pd.Series, scheme: str,
               seed: int) -> tuple[Part, Part | None, Part | None]:
    """(train, validation, test) parts of one split; missing parts are None.

    ``50/25/25``: stratified train/validation/test ([FlowOCT] §4);
    ``50/25/25-random``: random train/validation/test ([OMT] §6: "5 random splits");
    ``50/25``: its train and test parts, validation unused ([CGH] §7.2);
    ``70/30``: stratified train/test ([RUG] §4); ``80/20``: the same with a 20 % test part
    ([RUG] Tables 2 and 4, the paper's code); ``50/50``: stratified halves;
    ``train=F``: random fraction F (0 < F < 1) to train, the rest to test; ``all``: train on
    every row.
    """
    if scheme == "all":
        return (X, y), None, None
    if scheme.startswith("train="):
        try:
            fraction = float(scheme[len("train="):])
        except ValueError:
            fraction = math.nan
        if not 0 < fraction < 1:
            raise OptreesInputError(f"split {scheme!r}: the train fraction must be in (0, 1)")
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, train_size=fraction, random_state=seed)
        return (X_tr, y_tr), None, (X_te, y_te)
    if scheme == "50/50":
        X_tr, X_te, y_tr, y_te = train_test_split(
            X, y, train_size=0.5, stratify=y, random_state=seed)
        return (X_tr, y_tr), None, (X_te, y_te)
    if scheme == "50/25/25":
        X_rest, X_te, y_rest, y_te = train_test_split(
            X, y, test_size=0.25, stratify=y, random_state=seed)
        X_tr, X_va, y_tr, y_va = train_test_split(
            X_rest, y_rest, test_size=1 / 3, stratify=y_rest, random_state=seed)
        return (X_tr, y_tr), (X_va, y_va), (X_te, y_te)
    if scheme in ("50/25/25-random", "50/25"):
        X_tr, X_rest, y_tr, y_rest = train_test_split(X, y, train_size=0.5, random_state=seed)
        X_va, X_te, y_va, y_te = train_test_split(X_rest, y_rest, test_size=0.5,
                                                  random_state=seed)
        val = (X_va, y_va) if scheme == "50/25/25-random" else None
        return (X_tr, y_tr), val, (X_te, y_te)
    if scheme in ("70/30", "80/20"):
        X_tr, X_te, y_tr, y_te = train_test_split(
            X, y, test_size=0.3 if scheme == "70/30" else 0.2, stratify=y, random_state=seed)
        return (X_tr, y_tr), None, (X_te, y_te)
    raise OptreesInputError(f"unknown split {scheme!r}; choose from {SPLITS}")


# ----------------------------------------------------------------------------- methods
class CARTBaseline:
    """scikit-learn CART of depth ``depth`` as a baseline.

    ``features="binarize"``: the features the MIP estimators see (optrees ``Binarizer``,
    0/1 data kept as is); ``"onehot"``: numeric columns as they are, categorical one-hot;
    ``"cgh"``: the features CGHClassifier sees with the same ``categorical`` setting.
    """

    def __init__(self, depth: int = 2, features: str = "binarize",
                 random_state: int | None = None, categorical: str = "onehot") -> None:
        self.depth = depth
        self.features = features
        self.random_state = random_state
        self.categorical = categorical

    def _encode(self, X: pd.DataFrame, fit: bool) -> np.ndarray:
        from ..encoding.binary import is_binary_frame

        if self.features == "binarize":
            if fit:
                self.binary_ = is_binary_frame(X)
                if not self.binary_:
                    from ..encoding.binarize import Binarizer

                    self.binarizer_ = Binarizer().fit(X)
                self.feature_names_ = ([str(c) for c in X.columns] if self.binary_ else
                                       [lit.name for lit in self.binarizer_.literals_])
            return X.to_numpy(dtype=float) if self.binary_ else self.binarizer_.transform(X)
        if self.features == "onehot":  # what RUG's pricing trees see
            from ..encoding.columns import RawColumns

            raw = RawColumns(X)
            if fit:
                self.columns_ = raw
                return raw.matrix
            return self.columns_.encode_rows(raw, np.arange(len(X)))
        if self.features == "cgh":
            if fit:
                from ..encoding.thresholds import ThresholdColumns

                self.encoder_ = ThresholdColumns(X, self.categorical)
            return self.encoder_.transform(X)
        raise OptreesInputError(f"CART features must be 'binarize', 'onehot' or 'cgh', "
                                f"got {self.features!r}")

    def fit(self, X: pd.DataFrame, y: Any) -> CARTBaseline:
        self.tree_ = DecisionTreeClassifier(max_depth=self.depth, random_state=self.random_state)
        self.tree_.fit(self._encode(X, fit=True), np.asarray(y))
        self.classes_ = self.tree_.classes_
        self.status_ = "heuristic"
        return self

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        return self.tree_.predict(self._encode(X, fit=False))

    def score(self, X: pd.DataFrame, y: Any) -> float:
        return float(np.mean(self.predict(X) == np.asarray(y)))


def method_class(method: str) -> type:
    """Import the estimator class of ``method`` (lazily, from :data:`METHODS`)."""
    if method not in METHODS:
        raise OptreesInputError(f"unknown method {method!r}; available: {', '.join(METHODS)}")
    module, _, name = METHODS[method].partition(":")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise OptreesInputError(
            f"method {method!r} needs {METHODS[method]}, which cannot be imported: {exc}"
        ) from exc


def make_estimator(task: Task) -> Any:
    """The estimator of ``task``: non-meta params as keyword arguments, plus ``time_limit``
    and ``random_state`` (= split seed) when the class accepts them."""
    cls = method_class(task.method)
    params = task.param
    kwargs = {**METHOD_PARAMS.get(task.method, {}),
              **{k: v for k, v in params.items() if k not in META_KEYS}}
    variant = params.get("variant")
    if variant is not None:
        switches = accel_switches(variant)
        if task.method != "benders":
            raise OptreesInputError("param 'variant' is for method 'benders' only")
        kwargs.update(penalty="leaves", **switches)
    accepted = inspect.signature(cls.__init__).parameters
    if params.get("encoding") in ENCODINGS and "binarizer" in accepted:
        kwargs.setdefault("binarizer", None)  # accel-OCT encodings are 0/1 already
    if "subtree_search" in accepted and kwargs.get("binarizer", "auto") == "auto":
        # the papers' protocols compare the MIPs on the same binarized features; "auto" would
        # fit BendOCT / BendersOCT over every threshold of numeric columns (issue #18)
        from ..encoding.binarize import Binarizer

        kwargs["binarizer"] = Binarizer()
    if "time_limit" in accepted:
        kwargs["time_limit"] = task.time_limit
    if "random_state" in accepted:
        kwargs["random_state"] = task.seed
    if "sensitive" in params and "sensitive" in accepted:
        kwargs["sensitive"] = params["sensitive"]
    return cls(**kwargs)


# ----------------------------------------------------------------------------- running
def _nan(value: Any) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return math.nan
    return v


def _f1(y: Any, pred: Any) -> float:
    labels = np.unique(np.asarray(y))
    if len(labels) == 2:
        return float(f1_score(y, pred, average="binary", pos_label=labels[-1]))
    return float(f1_score(y, pred, average="weighted"))


def _tune(est: Any, task: Task, X: pd.DataFrame, y: pd.Series) -> dict[str, Any]:
    """``tune="cv5"``: set the parameters of the best 5-fold CV score on :data:`RUG_CV_GRID`
    and return them (``{}`` without ``tune``); ``"cv5-paper"``: the same on
    :data:`RUG_PAPER_GRID` (``max_rmp_calls`` from the task's ``calls_grid`` if given) with
    shuffled 5-fold CV, as the paper's code."""
    tune = task.param.get("tune")
    if tune is None:
        return {}
    if tune not in ("cv5", "cv5-paper"):
        raise OptreesInputError(f"unknown tune {tune!r}; 'cv5' or 'cv5-paper'")
    grid: dict[str, list[Any]] = RUG_CV_GRID
    cv: Any = 5
    if tune == "cv5-paper":
        calls = task.param.get("calls_grid")
        grid = {**RUG_PAPER_GRID, **({"max_rmp_calls": [int(c) for c in str(calls).split("/")]}
                                     if calls else {})}
        cv = KFold(5, shuffle=True, random_state=task.seed)
    search = GridSearchCV(est, grid, cv=cv, n_jobs=1)
    search.fit(X, y)
    est.set_params(**search.best_params_)
    return dict(search.best_params_)


def _describe(est: Any, X_te: pd.DataFrame | None) -> dict[str, Any]:
    """Model size / solver attributes the estimator happens to have."""
    row: dict[str, Any] = {}
    for col, attr in (("status", "status_"), ("objective", "objective_"), ("bound", "bound_"),
                      ("gap", "gap_"), ("solve_seconds", "solve_seconds_"),
                      ("bb_nodes", "n_bb_nodes_"), ("lp_integral", "lp_integral_"),
                      ("lp_bound", "lp_bound_"), ("n_rmp_calls", "n_rmp_calls_"),
                      ("mip_gap", "mip_gap_")):
        if hasattr(est, attr):
            value = getattr(est, attr)
            row[col] = value if isinstance(value, str | bool) else _nan(value)
    tree = getattr(est, "tree_", None)
    if isinstance(tree, DecisionTreeClassifier):
        row["n_leaves"] = int(tree.get_n_leaves())
        row["n_splits"] = int(tree.tree_.node_count) - row["n_leaves"]
        row["tree_depth"] = int(tree.get_depth())
    elif tree is not None and hasattr(tree, "n_leaves"):
        row["n_leaves"] = int(tree.n_leaves)
        if hasattr(tree, "n_splits"):
            row["n_splits"] = int(tree.n_splits)
        if hasattr(tree, "depth"):
            row["tree_depth"] = int(tree.depth)
    if isinstance(getattr(est, "stats_", None), dict):
        row["stats"] = dict(est.stats_)
        row.update({k: est.stats_[k] for k in STAT_COLUMNS if k in est.stats_})
    if hasattr(est, "n_rules_"):  # a peer's rule model (ruleopt)
        row["n_rules"] = int(est.n_rules_)
    if hasattr(est, "paths_"):  # OMT: one rule per root-to-leaf path
        row["n_rules"] = len(est.paths_)
    if hasattr(est, "feature_names_"):
        row["n_features_binary"] = len(est.feature_names_)
    from ..models.rule_set import RuleSet

    if isinstance(getattr(est, "rules_", None), RuleSet) and X_te is not None:
        from .. import metrics

        info = metrics.interpretability(est, X_te)
        row.update(n_rules=info["NoR"], avg_rule_length=info["Avg.RL"],
                   rules_per_sample=info["Avg.NoRpS"],
                   rule_length_per_sample=info["Avg.RLpS"])
    return row


def _warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    """The distinct warnings of a fit, except the expected ``TimeLimitWarning``."""
    texts = (f"{w.category.__name__}: {w.message}" for w in caught
             if w.category.__name__ != "TimeLimitWarning")
    return list(dict.fromkeys(texts))


def run_task(task: Task) -> dict[str, Any]:
    """Fit ``task`` and return its CSV row; exceptions become an ``error`` entry.

    Beyond the CSV columns the row has ``warnings`` (of the fit, see :func:`_warnings`),
    when the model has them ``n_splits``, ``tree_depth`` and ``stats``, and after tuning the
    chosen parameters ``tuned`` (JSON) and ``tune_seconds`` (part of ``fit_seconds``)."""
    params = task.param
    row: dict[str, Any] = {
        "key": task.key, "protocol": task.protocol, "stage": task.stage,
        "dataset": task.dataset, "method": task.method, "seed": task.seed,
        "params": json.dumps(params, sort_keys=True),
        "time_limit": math.nan if task.time_limit is None else task.time_limit,
        **{k: v for k, v in params.items()}, "error": "",
    }
    try:
        X, y = load_data(task.dataset, params.get("encoding"), task.data_dir)
        train, val, test = split_data(X, y, params.get("split", "all"), task.seed)
        if params.get("fit_on", "train") == "train+val":
            if val is None:
                raise OptreesInputError("fit_on='train+val' needs a split with validation")
            train = (pd.concat([train[0], val[0]]), pd.concat([train[1], val[1]]))
        elif params.get("fit_on", "train") != "train":
            raise OptreesInputError(f"fit_on must be 'train' or 'train+val', "
                                    f"got {params['fit_on']!r}")
        est = make_estimator(task)
        row.update(n_train=len(train[1]), n_features=X.shape[1])
        t0 = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tuned = _tune(est, task, *train)
            if tuned:
                row.update(tuned=json.dumps(tuned, sort_keys=True),
                           tune_seconds=time.perf_counter() - t0)
            est.fit(*train)
            row["fit_seconds"] = time.perf_counter() - t0
            row["warnings"] = _warnings(caught)
            row["status"] = "done"
            row.update(_describe(est, None if test is None else test[0]))
            row["train_acc"] = float(est.score(*train))
            if val is not None:
                row["val_acc"] = float(est.score(*val))
            if test is not None:
                pred = est.predict(test[0])
                row["n_test"] = len(test[1])
                row["test_acc"] = float(np.mean(pred == np.asarray(test[1])))
                row["test_f1"] = _f1(test[1], pred)
                sensitive = params.get("sensitive")
                if sensitive is not None:
                    from .. import metrics

                    groups = test[0][sensitive].astype(str).to_numpy()
                    row["dmc"] = metrics.dmc_score(test[1], pred, groups)
                    row["eop"] = metrics.eop_score(test[1], pred, groups)
    except Exception as exc:  # noqa: BLE001 - recorded in the row, the grid goes on
        row["status"] = "error"
        last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
        where = f" at {Path(last[0].filename).name}:{last[0].lineno}" if last else ""
        row["error"] = f"{type(exc).__name__}: {exc}{where}".replace("\n", " ")[:500]
    return row
