"""How a ``*CV`` estimator (:mod:`optrees.estimators.cv`) chooses and how far it grows: the
grid point chosen by a rule (:func:`select_index`, which prefers points whose folds all
finished: :func:`trusted`), the λ of a depth under ``lams="path"`` (:func:`path_lams`) and
whether ``depths="auto"`` can afford one depth more (:func:`deeper_fits`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._params import Options
from .._validation import OptreesInputError
from .cv_folds import FoldFit, FoldPath

RULES = ("best", "1se")
SAME_BREAKPOINT = 1e-9
"""Relative distance below which two folds' breakpoints are one λ (:func:`path_lams`): each
fold computes it from its own sums, so one tie can differ in the last bits (0.0075 as
0.0075000000000000007 and 0.0075000000000000025), and the λ between them would be a tie."""
MIN_GROWTH = 2.0
"""Least factor by which one depth more multiplies a fold's time in :func:`deeper_fits`
(a tree of depth d + 1 has twice the leaves; measured factors are mostly far larger)."""


def _n_splits(cv_results: Mapping[str, Any]) -> int:
    k = 0
    while f"split{k}_test_score" in cv_results:
        k += 1
    return k


def standard_error(cv_results: Mapping[str, Any], index: int) -> float:
    """The standard error of grid point ``index``'s mean test score: its fold scores' sample
    standard deviation over the square root of the number of folds (0 with one fold)."""
    k = _n_splits(cv_results)
    scores = np.array([cv_results[f"split{i}_test_score"][index] for i in range(k)], float)
    return float(np.std(scores, ddof=1) / np.sqrt(k)) if k > 1 else 0.0


def trusted(cv_results: Mapping[str, Any]) -> np.ndarray:
    """The grid points a rule may choose from.  A point some of whose folds stopped at their
    share of time (``n_stopped_folds`` > 0), or were fitted by a method that proves nothing
    (a deep regression tree: ``n_unproved_folds`` counts both), was scored with trees that
    are not its optima (and a stopped point's refit on all rows, in what is left, would
    likely stop too): it is chosen only where its score is earned.  So where some point with
    a score was proved on every fold, the rule chooses among the proved points, unless the
    best point overall is an unproved one whose mean test score beats every proved point's
    by more than its standard error; then among all.  Without those counts (results not
    from a fit), all."""
    mean = np.asarray(cv_results["mean_test_score"], dtype=float)
    every = np.arange(len(mean))
    key = "n_unproved_folds" if "n_unproved_folds" in cv_results else "n_stopped_folds"
    if key not in cv_results:
        return every
    proved = (np.asarray(cv_results[key]) == 0) & ~np.isnan(mean)
    if not proved.any():
        return every
    best = int(np.nanargmax(mean))
    if not proved[best]:
        margin = mean[best] - np.max(mean[proved])
        if margin > standard_error(cv_results, best):
            return every
    return np.flatnonzero(proved)


def select_index(cv_results: Mapping[str, Any], rule: str) -> int:
    """The index of the chosen grid point, among the :func:`trusted` ones.  ``"best"``: the
    highest ``mean_test_score`` (ties: the first, as scikit-learn).  ``"1se"``: among the
    points whose mean test score is at least the best one minus its standard error (the
    sample standard deviation of the best point's fold scores over the square root of the
    number of folds), the smallest tree: fewest ``mean_n_leaves``, then smallest
    ``param_depth``, then largest ``param_lam``."""
    if rule not in RULES:
        raise OptreesInputError(f"rule must be {Options(*RULES).describe()}, got {rule!r}")
    mean = np.asarray(cv_results["mean_test_score"], dtype=float)
    if np.isnan(mean).all():
        raise OptreesInputError("every grid point's mean test score is nan: nothing to choose")
    pool = trusted(cv_results)
    best = int(pool[np.nanargmax(mean[pool])])
    if rule == "best":
        return best
    se = standard_error(cv_results, best)
    # "at least": a mean exactly one standard error below (with 2 folds, the best point's
    # worse fold score) is within, however the float rounding of mean - se falls
    within = pool[mean[pool] >= mean[best] - se - 1e-9 * max(1.0, abs(mean[best]))]
    leaves = np.asarray(cv_results["mean_n_leaves"], dtype=float)
    depth = np.asarray(cv_results["param_depth"], dtype=float)
    lam = np.asarray(cv_results["param_lam"], dtype=float)
    order = np.lexsort((-lam[within], depth[within], leaves[within]))
    return int(within[order[0]])


def path_lams(paths: list[FoldPath]) -> tuple[float, ...]:
    """The λ of a depth under ``lams="path"``: the breakpoints of the folds' paths cut
    [0, inf) into intervals in each of which every fold has one optimum; one λ per interval,
    largest first: the midpoint, ``b / 2`` for the first and ``(b + 1) / 2`` for the last
    (a breakpoint ``b`` is below 1: a leaf never gains more than all the accuracy, nor
    saves more than all the normalised loss of a regression tree).  Breakpoints within
    SAME_BREAKPOINT of each other are one."""
    raw = np.unique([float(b) for f in paths for b in np.concatenate([f.low, f.high])
                     if 0 < b < math.inf])
    if not len(raw):
        return (0.0,)
    cuts = raw[np.concatenate([[True], np.diff(raw) > SAME_BREAKPOINT * raw[1:]])].tolist()
    inner = [(a + b) / 2 for a, b in zip(cuts, cuts[1:], strict=False)]
    return tuple(sorted([cuts[0] / 2, *inner, (cuts[-1] + 1) / 2], reverse=True))


def deeper_fits(done: Sequence[FoldFit | FoldPath], deepest: int, left: float | None,
                speedup: float, row_ratio: float, refit_units: float) -> bool:
    """Whether one depth more than ``deepest`` is predicted to finish in ``left`` seconds:
    its fold tasks and its refit.  A task's time is the median of ``deepest``'s tasks'
    times the growth factor, the ratio of that median to the median of ``deepest - 1``'s
    (at least MIN_GROWTH; medians, so that a one-off cost such as compiling a kernel does
    not count); the tasks run ``speedup`` times faster than one after another (as the last
    stage's did); the refit is one task of the new depth times ``row_ratio`` (all rows over
    a fold's training rows) and ``refit_units`` (its searches in fold tasks: 1 for a fit,
    more for a fit and a path).  ``left`` None: no limit."""
    if left is None:
        return True
    now = [r.seconds for r in done if r.depth == deepest]
    before = [r.seconds for r in done if r.depth == deepest - 1]
    if not now:
        return False
    task = float(np.median(now))
    growth = max(task / float(np.median(before)), MIN_GROWTH) \
        if before and np.median(before) > 0 else math.inf
    folds = growth * task * len(now) / max(speedup, 1.0)
    refit = growth * task * row_ratio * refit_units
    return folds + refit <= left
