"""Peers side by side: another package solves the same instances in the same run.

The peer of the accelerated protocol is pystreed (STreeD, a test-only dependency): it solves
accuracy - lambda * leaves, the objective of ``BendersOCTClassifier(penalty="leaves")``, to
proven optimality by dynamic programming, so each of our fits gets the peer's time and optimum
next to its own (``peer_seconds``, ``peer_objective``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .report import is_solved
from .tasks import Task, load_data, run_task

PEERS = ("pystreed",)
REPEATS = 3
"""Fits under :data:`QUICK` seconds are timed as the median of this many (ours and the
peer's alike)."""
QUICK = 1.0
TOL = 1e-9
"""Largest objective difference to a peer's proven optimum that is not a wrong claim."""


@dataclass(frozen=True)
class PeerFit:
    """A peer's median seconds and proven optimal objective on one instance."""

    seconds: float
    objective: float


def _binary_data(task: Task) -> tuple[np.ndarray, np.ndarray]:
    X, y = load_data(task.dataset, task.param.get("encoding"), task.data_dir)
    return X.to_numpy(dtype=np.uint8), np.unique(np.asarray(y), return_inverse=True)[1]


def pystreed_fit(X: np.ndarray, y: np.ndarray, depth: int, lam: float,
                 repeats: int = REPEATS) -> PeerFit:
    """pystreed on accuracy - lam * leaves: median seconds of ``repeats`` fits and the
    optimum; raises RuntimeError when pystreed does not prove optimality."""
    import pystreed

    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        ref = pystreed.STreeDClassifier(max_depth=depth,
                                        optimization_task="cost-complex-accuracy",
                                        cost_complexity=lam).fit(X, y)
        times.append(time.perf_counter() - t0)
    if not ref.fit_result.is_optimal():
        raise RuntimeError("pystreed did not prove optimality")
    objective = float(np.mean(ref.predict(X) == y) - lam * ref.get_n_leaves())
    return PeerFit(float(np.median(times)), objective)


def _instance(task: Task) -> tuple[Any, ...]:
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
    """The first fit of a process pays for imports and set-up: one untimed fit of each."""
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
            key = _instance(task)
            if key not in refs:
                X, y = _binary_data(task)
                refs[key] = pystreed_fit(X, y, int(key[2]), float(key[3]))
            row = _timed(task)
            row.update(peer_seconds=refs[key].seconds, peer_objective=refs[key].objective)
        rows.append(row)
        if on_row is not None:
            on_row(row)
    return rows


def peer_table(df: pd.DataFrame, by: str = "variant") -> pd.DataFrame:
    """Per ``by`` value, on the instances it solved: how many, the median and the largest
    ratio of its seconds to the peer's, and the peer's median seconds."""
    solved = df[is_solved(df["status"])]
    ratio = solved["fit_seconds"] / solved["peer_seconds"]
    grouped = solved.assign(_ratio=ratio).groupby(by, sort=False)
    return grouped.agg(solved=("_ratio", "size"), median_ratio=("_ratio", "median"),
                       max_ratio=("_ratio", "max"), peer_median_s=("peer_seconds", "median"))


def wrong_claims(df: pd.DataFrame, tol: float = TOL) -> pd.DataFrame:
    """Rows that claim optimality with an objective other than the peer's proven optimum."""
    solved = df[is_solved(df["status"])]
    return solved[(solved["objective"] - solved["peer_objective"]).abs() > tol]

