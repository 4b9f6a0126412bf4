"""OMT's leaf penalty: the default of classification, and ``leaf_penalty="auto"``'s choice
among :data:`AUTO_PENALTIES` on rows held out of the training data."""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import pandas as pd

from .._logging import progress, since_fit
from .._validation import OptreesInputError
from ..encoding.common import is_numeric
from ..encoding.ranks import value_ranks
from ..solvers.deadline import Deadline

CLASSIFICATION_PENALTY = 0.02
"""Largest ``leaf_penalty=None`` of classification (but loss="f1"), see
:func:`default_penalty`."""


def default_penalty(n: float) -> float:
    """``leaf_penalty=None`` of classification for ``n`` training samples (their total
    weight): :data:`CLASSIFICATION_PENALTY`, or 1 / sqrt(n) when smaller (n > 2,500).

    One fit instead of "auto"'s six.  On the [OMT] §6 splits (12 data sets of at most 2,400
    training rows, depths 2-5) 0.02 was as accurate on test as "auto"'s held-out choice;
    a rule's gain in error rate is measured to about 1 / sqrt(n), so on large data smaller
    gains are real: 0.02 kept 5 rules of the 1,000,000-row synthetic test (test accuracy
    0.877 against CART's 0.900; bench/README.md, ``omt_default.py``, ``omt.py --scale``)."""
    return min(CLASSIFICATION_PENALTY, 1.0 / math.sqrt(max(n, 1.0)))

AUTO_PENALTIES = (0.0, 0.005, 0.01, 0.02, 0.04)
"""Candidates of ``leaf_penalty="auto"`` (cost per rule, in error rate)."""

VALIDATION_SHARE = 0.25
"""Share of the training weight that ``leaf_penalty="auto"`` holds out to score them."""


def holdout(df: pd.DataFrame, y: np.ndarray, w: np.ndarray | None,
            seed: int | None) -> np.ndarray | None:
    """Rows held out by ``leaf_penalty="auto"`` (a boolean mask), about
    :data:`VALIDATION_SHARE` of the weight, or None when fewer than two distinct rows of
    positive weight.

    Whole groups of identical rows (X and y) are drawn in an order given by a seeded hash of
    their content, so integer weights hold out the same data as duplicated rows, and rows of
    weight 0 (kept, they count for nothing) change no other row's draw.  Numeric columns and
    a regression target enter by the rank of their values among the rows of positive
    weight, so the draw does not depend on their units (hashing the values, a column in
    millimetres held out other rows than in metres, and so chose another penalty)."""
    y = np.asarray(y)
    positive = np.ones(len(y), dtype=bool) if w is None else np.asarray(w) > 0
    if y.dtype.kind == "f":  # a regression target by its rank: c * y holds out the same rows
        y = value_ranks(y, positive)
    unit_free = pd.DataFrame({i: value_ranks(df[c].to_numpy(dtype=float), positive)
                              if is_numeric(df[c]) else df[c]
                              for i, c in enumerate(df.columns)})
    keys = (pd.util.hash_pandas_object(unit_free, index=False).to_numpy()
            * np.uint64(1_000_003) + pd.util.hash_array(y))
    uniq, group = np.unique(keys, return_inverse=True)
    weight = np.bincount(group, weights=w, minlength=len(uniq))
    live = np.flatnonzero(weight > 0)
    if len(live) < 2:
        return None
    order = live[np.argsort(_mix(uniq[live] ^ np.uint64(0 if seed is None else seed)),
                            kind="stable")]
    k = int(np.searchsorted(np.cumsum(weight[order]), VALIDATION_SHARE * weight.sum())) + 1
    held = np.zeros(len(uniq), dtype=bool)
    held[order[:min(k, len(live) - 1)]] = True
    return held[group]


def _mix(x: np.ndarray) -> np.ndarray:
    """SplitMix64 finalizer: a fixed pseudo-random permutation of 64-bit keys."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def pick_penalty(scores: dict[float, float]) -> float:
    """The penalty of the best validation score; among ties the lower median.  Scores within
    1e-6 of the best (relative) tie: beyond rounding (weights and duplicated rows sum in
    another order), a difference that small is a few rows of tiny weight (sklearn's
    class-weight check, three classes weighted 1000 / 1e-4 / 1e-4: 2.5e-8 made penalty 0
    win with a tree of minority pockets where the tied median keeps one leaf).

    Ties are common: near-equal penalties often give one tree on the kept rows.  The largest
    tied penalty sits at the edge where a split stops paying, and on all rows it can fall
    beyond it (car-evaluation, depth 2: all five tied; 0.04 refitted a single leaf, 0.7052
    training accuracy, against 0.7847 for the other four).

    Regression scores are :meth:`~optrees.omt.fit.OMTFit.score`'s, of the target divided
    by a power of two near its spread, so the tolerance does not depend on the target's
    units (in y's own units 1e-6 was absolute below a mean loss of 1: for y x 1e-10 every
    candidate tied)."""
    best = max(scores.values())
    tol = 1e-6 * max(1.0, abs(best))
    tied = sorted(lam for lam, v in scores.items() if v >= best - tol)
    return tied[(len(tied) - 1) // 2]


def choose_penalty(fit: Any, df: pd.DataFrame, y: np.ndarray, deadline: Deadline,
                   w: np.ndarray | None) -> tuple[float, dict[float, float]]:
    """The leaf penalty to fit ``fit`` (an :class:`~optrees.omt.fit.OMTFit`) with, and the
    validation score of each candidate.

    None: :func:`default_penalty` (0 for loss="f1"), or "auto" for regression.
    "auto": every candidate is fitted on the rows :func:`holdout` keeps and scored on
    those it holds out (ties: see :func:`pick_penalty`); the candidates are solved one
    after another in one :class:`OMTProblem`, each starting from the columns of the
    earlier ones (and their rules as MIP starts), and each may use an equal share of
    the time left with the final fit on all rows, less a reserve for the final fit's
    set-up (twice the kept rows' set-up, scaled to all rows).  0 (no choice) for loss="f1", too
    few distinct rows, or a ``min_support`` count the kept rows lack."""
    p = fit.p
    if p.leaf_penalty is None and not fit.regression:
        n = len(y) if w is None else float(w.sum())
        return (0.0 if p.loss == "f1" else default_penalty(n)), {}
    if p.leaf_penalty not in (None, "auto"):
        return float(p.leaf_penalty), {}
    held = None if p.loss == "f1" else holdout(df, y, w, p.random_state)
    if held is None:
        return 0.0, {}
    kept = ~held
    t0 = time.perf_counter()
    try:
        problem = fit.problem(df[kept], y[kept], None if w is None else w[kept], deadline)
    except OptreesInputError:  # min_support above the kept rows' weight
        return 0.0, {}
    # the refit on all rows builds its problem again: the candidates leave it that time,
    # twice over (about all rows / kept rows times this build's), so its set-up does not
    # start at the deadline (diabetes x 25, depth 3, limit 0.5 s: the fit took 0.99 s)
    budget = deadline.reserve(2.0 * (time.perf_counter() - t0) * len(y) / int(kept.sum()))
    scores: dict[float, float] = {}
    for i, penalty in enumerate(AUTO_PENALTIES):
        if budget.expired():
            break
        stage = budget.share(1.0 / (len(AUTO_PENALTIES) - i + 1))
        try:
            result = problem.solve(penalty, stage)
        except OptreesInputError:  # rule constraints the kept rows cannot meet
            return 0.0, {}
        except RuntimeError:  # stopped before any rule set existed
            break
        scores[penalty] = fit.score(result, df[held], y[held],
                                     None if w is None else w[held])
        progress("OMT auto", since_fit(), result.objective, penalty=penalty,
                 score=f"{fit.reported(scores[penalty]):.6g}")
    if not scores:
        return 0.0, {}
    return pick_penalty(scores), {lam: fit.reported(v) for lam, v in scores.items()}
