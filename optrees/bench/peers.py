"""Peers side by side: another package solves the same instances in the same run.

The peer of the accelerated protocol is pystreed (STreeD, a test-only dependency): it solves
accuracy - lambda * leaves, the objective of ``BendersOCTClassifier(penalty="leaves")``, to
proven optimality by dynamic programming, so each of our fits gets the peer's time and optimum
next to its own (``peer_seconds``, ``peer_objective``). RUG's peer is ruleopt 1.2.1 (a
bench-only dependency, :func:`ruleopt_side_by_side`).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin

from .report import is_solved
from .tasks import Task, load_data, run_task
from .timing import fastest

PEERS = ("pystreed",)
"""Peers of :func:`run_with_peer` (ruleopt has its own runner, :func:`ruleopt_side_by_side`)."""
REPEATS = 3
"""Fits under :data:`QUICK` seconds are timed as the median of this many (ours and the
peer's alike)."""
QUICK = 1.0
TOL = 1e-9
"""Largest objective difference to a peer's proven optimum that is not a wrong claim."""


@dataclass(frozen=True)
class PeerFit:
    """A peer's median seconds and objective on one instance, and whether it proved that
    objective optimal within its time limit."""

    seconds: float
    objective: float
    proved: bool = True


def _binary_data(task: Task) -> tuple[np.ndarray, np.ndarray]:
    X, y = load_data(task.dataset, task.param.get("encoding"), task.data_dir)
    return X.to_numpy(dtype=np.uint8), np.unique(np.asarray(y), return_inverse=True)[1]


def pystreed_fit(X: np.ndarray, y: np.ndarray, depth: int, lam: float,
                 repeats: int = REPEATS, time_limit: float | None = None) -> PeerFit:
    """pystreed on accuracy - lam * leaves within ``time_limit`` seconds: median seconds of
    ``repeats`` fits (one when it did not prove optimality), its objective and the proof."""
    import pystreed

    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        ref = pystreed.STreeDClassifier(max_depth=depth,
                                        optimization_task="cost-complex-accuracy",
                                        cost_complexity=lam,
                                        time_limit=time_limit or 1e6).fit(X, y)
        times.append(time.perf_counter() - t0)
        if not ref.fit_result.is_optimal():
            break
    objective = float(np.mean(ref.predict(X) == y) - lam * ref.get_n_leaves())
    return PeerFit(float(np.median(times)), objective, bool(ref.fit_result.is_optimal()))


def instance_key(task: Task) -> tuple[Any, ...]:
    """(dataset, encoding, depth, lambda): what the peer solves once for all variants."""
    p = task.param
    return task.dataset, p.get("encoding"), p.get("depth"), p.get("lam")


def _timed(task: Task) -> dict[str, Any]:
    """``run_task``; a fit under :data:`QUICK` seconds gets the median time of
    :data:`REPEATS` fits."""
    row = run_task(task)
    seconds = row.get("fit_seconds", np.nan)
    if seconds < QUICK:
        more = [run_task(task).get("fit_seconds", np.nan) for _ in range(REPEATS - 1)]
        row["fit_seconds"] = float(np.median([seconds, *more]))
    return row


def _warm_up(task: Task) -> None:
    """The first fit of a process pays for imports and set-up: one untimed fit of each, and
    every kernel loaded (a small fit alone runs numpy and loads none, so the first large
    timed fit would compile or load them)."""
    from ..compile_all import compile_everything

    compile_everything()
    X, y = _binary_data(task)
    pystreed_fit(X, y, 2, 0.01, repeats=1)
    params = {**task.param, "depth": 2}
    if "variant" in params:
        params["variant"] = "default"  # BendOCTClassifier's defaults: a quick fit
    run_task(Task.make(task.protocol, task.stage, task.method, task.dataset, task.seed,
                       params, task.time_limit, task.data_dir))


def run_with_peer(tasks: Sequence[Task], peer: str | None = "pystreed",
                  on_row: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """Run ``tasks`` one after the other (accelerated-protocol tasks when ``peer`` is set),
    each row passed to ``on_row`` as it finishes. With a ``peer`` every instance is also
    solved by it (once) and rows get ``peer_seconds`` and ``peer_objective``."""
    if peer is not None and peer not in PEERS:
        raise ValueError(f"unknown peer {peer!r}; choose from {PEERS}")
    refs: dict[tuple[Any, ...], PeerFit] = {}
    rows = []
    for i, task in enumerate(tasks):
        if peer is None:
            row = run_task(task)
        else:
            if i == 0:
                _warm_up(task)
            key = instance_key(task)
            if key not in refs:
                X, y = _binary_data(task)
                refs[key] = pystreed_fit(X, y, int(key[2]), float(key[3]),
                                         time_limit=task.time_limit)
            row = _timed(task)
            row.update(peer_seconds=refs[key].seconds, peer_objective=refs[key].objective,
                       peer_proved=refs[key].proved)
        rows.append(row)
        if on_row is not None:
            on_row(row)
    return rows


def peer_table(df: pd.DataFrame, by: str = "variant") -> pd.DataFrame:
    """Per ``by`` value, on the instances it solved: how many, the median and the largest
    ratio of its seconds to the peer's, and the peer's median seconds."""
    solved = df[is_solved(df["status"]) & _peer_proved(df)]
    ratio = solved["fit_seconds"] / solved["peer_seconds"]
    grouped = solved.assign(_ratio=ratio).groupby(by, sort=False)
    return grouped.agg(solved=("_ratio", "size"), median_ratio=("_ratio", "median"),
                       max_ratio=("_ratio", "max"), peer_median_s=("peer_seconds", "median"))


def wrong_claims(df: pd.DataFrame, tol: float = TOL) -> pd.DataFrame:
    """Rows that claim optimality with an objective other than the peer's proven optimum,
    or below the peer's best objective when the peer proved nothing."""
    solved = df[is_solved(df["status"])]
    diff = solved["objective"] - solved["peer_objective"]
    proved = _peer_proved(solved)
    return solved[(proved & (diff.abs() > tol)) | (~proved & (diff < -tol))]


def missed(df: pd.DataFrame) -> pd.DataFrame:
    """Instances the peer proved optimal that a row did not."""
    return df[_peer_proved(df) & ~is_solved(df["status"])]


def _peer_proved(df: pd.DataFrame) -> pd.Series:
    """The peer proved its objective (rows from before the flag existed: it always did)."""
    if "peer_proved" not in df:
        return pd.Series(True, index=df.index)
    return df["peer_proved"].fillna(True).astype(bool)



# ----------------------------------------------------------------------------- ruleopt (RUG)
def ruleopt_model(depth: int, calls: int, penalty: float, seed: int | None,
                  **options: Any) -> Any:
    """ruleopt's RUGClassifier as every bench run sets it up: HiGHS with objective weight
    ``penalty``, rule cost = length, ``calls`` pricing rounds (``options``: further
    parameters of ruleopt, e.g. ``threshold``)."""
    from ruleopt import RUGClassifier as RuleoptRUG
    from ruleopt.rule_cost import Length
    from ruleopt.solver import HiGHSSolver

    return RuleoptRUG(solver=HiGHSSolver(penalty=penalty), rule_cost=Length(),
                      max_rmp_calls=calls, max_depth=depth, random_state=seed, **options)


def ruleopt_fit(X: np.ndarray, y: np.ndarray, depth: int, calls: int, penalty: float,
                seed: int) -> tuple[Any, float, float]:
    """ruleopt's RUGClassifier (:func:`ruleopt_model`): ``(model, seconds, pen_par)``, where
    ``pen_par`` is ruleopt's objective weight ``penalty / max(costs of the first tree's
    rules)`` as optrees' ``pen_par``."""
    t0 = time.perf_counter()
    model = ruleopt_model(depth, calls, penalty, seed)
    model.fit(X, y)
    seconds = time.perf_counter() - t0
    costs = np.asarray(model.coefficients_.costs)
    first = costs[: sum(1 for info in model.rule_info_.values() if info[0] == 0)]
    return model, seconds, penalty / float(np.max(first))


def optrees_rug_fit(X: pd.DataFrame, y: np.ndarray, depth: int, calls: int, pen_par: float,
                    seed: int, lp_method: str, rule_labels: str = "auto") -> tuple[Any, float]:
    """optrees' RUGClassifier with ruleopt's settings: ``calls + 1`` master LPs (ruleopt
    counts pricing rounds after the first LP), rule cost = length, threshold 1e-6."""
    from ..estimators.rules import RUGClassifier

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = RUGClassifier(max_depth=depth, pen_par=pen_par, max_rmp_calls=calls + 1,
                              threshold=1e-6, rule_length_cost=True, random_state=seed,
                              lp_method=lp_method, rule_labels=rule_labels).fit(X, y)
    return model, time.perf_counter() - t0


def ruleopt_side_by_side(dataset: str, seed: int, *, depth: int = 3, calls: int = 10,
                         penalty: float = 1.0, lp_methods: Sequence[str] = ("simplex",),
                         repeat: int = 1, rule_labels: str = "auto") -> list[dict[str, Any]]:
    """One stratified 70/30 split: ruleopt once (on the matrix optrees' pricing trees see),
    then optrees with each LP method (and ``rule_labels``); a row per method with both
    seconds (fastest of ``repeat``), test accuracies and rule counts."""
    from ..encoding.columns import RawColumns
    from .rug import split

    X, _ = load_data(dataset)
    Xtr, Xte, ytr, yte = split(dataset, seed)
    raw_tr = RawColumns(Xtr)
    Mte = raw_tr.encode_rows(RawColumns(X), X.index.get_indexer(Xte.index))
    classes, ytr_i = np.unique(ytr, return_inverse=True)
    ro, ro_s, pen_par = fastest(
        lambda: ruleopt_fit(raw_tr.matrix, ytr_i, depth, calls, penalty, seed), repeat)
    ro_acc = float(np.mean(ro.predict(Mte) == np.searchsorted(classes, yte)))
    rows = []
    for method in lp_methods:
        ot, ot_s = fastest(
            lambda m=method: optrees_rug_fit(Xtr, ytr, depth, calls, pen_par, seed, m,
                                             rule_labels), repeat)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # categories unseen in training
            ot_acc = float(np.mean(ot.predict(Xte) == yte))
        rows.append(dict(dataset=dataset, n=len(X), seed=seed, pen_par=pen_par,
                         lp_method=method, ro_s=ro_s, ro_acc=ro_acc,
                         ro_rules=len(ro.decision_rules), ot_s=ot_s, ot_acc=ot_acc,
                         ot_rules=len(ot.rules_), ot_lps=ot.n_rmp_calls_,
                         ot_pool=len(ot.all_rules_), ot_status=ot.status_))
    return rows


class RuleoptRUG(ClassifierMixin, BaseEstimator):
    """ruleopt's RUGClassifier as a bench method (``ruleopt-paper``) on the matrix optrees'
    pricing trees see (numeric columns as they are, categoricals one-hot), with the paper's
    parameters: ``pen_par`` = ruleopt's penalty, ``max_rmp_calls`` pricing rounds, rule cost =
    length, ``threshold`` on the scaled weights."""

    def __init__(self, max_depth: int = 3, pen_par: float = 1.0, max_rmp_calls: int = 10,
                 threshold: float = 0.05, random_state: int | None = None) -> None:
        self.max_depth = max_depth
        self.pen_par = pen_par
        self.max_rmp_calls = max_rmp_calls
        self.threshold = threshold
        self.random_state = random_state

    def fit(self, X: pd.DataFrame, y: Any) -> RuleoptRUG:
        """Fit ruleopt on the encoded ``X``."""
        from ..encoding.columns import RawColumns

        self.raw_ = RawColumns(X)
        self.classes_, y_idx = np.unique(np.asarray(y), return_inverse=True)
        self.model_ = ruleopt_model(self.max_depth, self.max_rmp_calls, self.pen_par,
                                    self.random_state, threshold=self.threshold)
        self.model_.fit(self.raw_.matrix, y_idx)
        self.n_rules_ = len(self.model_.decision_rules_)
        self.status_ = "heuristic"
        return self

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """Class labels of ruleopt's prediction on the encoded rows of ``X``."""
        from ..encoding.columns import RawColumns

        M = self.raw_.encode_rows(RawColumns(X), np.arange(len(X)))
        return self.classes_[np.asarray(self.model_.predict(M), dtype=int)]


def paired_summary(rows: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, LP method): mean seconds, accuracies and rules of both, and the paired
    test accuracy difference optrees - ruleopt (points: mean, standard error, splits where
    optrees is better / equal)."""
    out = []
    for (name, method), g in rows.groupby(["dataset", "lp_method"], sort=False):
        diff = 100 * (g["ot_acc"] - g["ro_acc"]).to_numpy()
        out.append({"dataset": name, "lp_method": method, "n": int(g["n"].iloc[0]),
                    **{k: float(g[k].mean()) for k in
                       ("ro_s", "ro_acc", "ro_rules", "ot_s", "ot_acc", "ot_rules")},
                    "splits": len(diff), "diff": diff.mean(),
                    "se": diff.std(ddof=1) / np.sqrt(len(diff)),
                    "better": int((diff > 0).sum()), "equal": int((diff == 0).sum())})
    return pd.DataFrame(out)
