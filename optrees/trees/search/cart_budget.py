"""scikit-learn's CART within a time limit: its fit cannot be stopped, so its time is predicted.

Issue #42: CART's fit took 3.9 s on 120,000 x 23 rows at depth 3 on a loaded machine (the
numeric search's incumbent: a 5 s fit took 7.5-9.9 s), and 0.8 s on 150,000 x 100 0/1 rows
(the MIP's warm start, started with less than that left).  Under a time limit and on many
rows, :func:`fit_in_time` first fits CART on a sample of :func:`probe_rows` rows; its time
predicts the fit on every row, which runs only when predicted to take at most
:data:`CART_SHARE` of the time left, as it always ran before.  Otherwise CART is fitted on as
many sampled rows as fit in that share.  The caller scores every tree on all the rows, and
the best one is kept.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from ...solvers.deadline import Deadline

CART_SHARE = 0.5
"""Most of the time left that CART's fit is predicted to take: the search that follows stops
on time, so only a prediction off by 2x overruns (at 0.25, CART on 120,000 x 23 rows with
3.8 s of a 5 s limit left was sampled in 2 of 3 runs for the same tree)."""

PROBE_CELLS = 250_000
"""Rows x features of the sample whose fit predicts the time of CART on every row."""

T = TypeVar("T")


def probe_rows(n_features: int) -> int:
    """Rows of the timing sample: :data:`PROBE_CELLS` cells, between 500 and 10,000 rows."""
    return int(min(10_000, max(500, PROBE_CELLS // max(n_features, 1))))


def predicted_seconds(seconds: float, rows: int, n: int) -> float:
    """CART's time on ``n`` rows from ``seconds`` on ``rows``: it sorts each node's rows,
    ``n log n`` per feature and level."""
    return seconds * (n / rows) * math.log(n) / math.log(rows)


def fit_in_time(n: int, n_features: int, deadline: Deadline | None,
                fit: Callable[[np.ndarray | None], T | None],
                better: Callable[[T | None, T | None], T | None],
                random_state: int | None = 0) -> T | None:
    """``fit(None)`` (CART on every one of the ``n`` rows) when there is time for it, else the
    ``better`` of ``fit(rows)`` on sampled rows (sorted indices), as the module says.  No
    limit or few rows (under 4 probes): ``fit(None)``, even once the
    deadline has passed (a stopped search keeps its promise, never worse than CART, for
    little time).  Many rows and the deadline passed: None, no fit starts."""
    probe = probe_rows(n_features)
    if deadline is None or not deadline.limited or n < 4 * probe:
        return fit(None)
    if deadline.expired():
        return None
    rng = np.random.default_rng(random_state)
    start = time.perf_counter()
    best = fit(np.sort(rng.choice(n, probe, replace=False)))
    budget = CART_SHARE * deadline.remaining()
    seconds = time.perf_counter() - start
    if predicted_seconds(seconds, probe, n) <= budget:
        return better(best, fit(None))
    rows = int(probe * budget / max(seconds, 1e-9) * math.log(probe) / math.log(n))
    if rows >= 2 * probe and not deadline.expired():
        best = better(best, fit(np.sort(rng.choice(n, min(rows, n), replace=False))))
    return best
