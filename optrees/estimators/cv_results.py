"""``cv_results_`` of a ``*CV`` estimator (:mod:`optrees.estimators.cv`) in scikit-learn's
format, from its fold records: each path point read at its λ, each grid point's fits."""

from __future__ import annotations

from typing import Any

import numpy as np

from .cv_choice import path_lams
from .cv_folds import FoldFit, FoldPath


def cv_results(done: list[FoldFit | FoldPath], path_off: dict[int, str | None],
               lams: dict[int, tuple[float, ...] | str], k: int,
               depths: list[int]) -> dict[str, Any]:
    """One entry per grid point of ``depths`` (``path_off[depth]`` None: the depth's λ are
    read off the folds' paths, at ``path_lams`` under ``"path"``), from the ``k`` folds'
    records ``done``; beside scikit-learn's keys, ``mean_n_leaves``, ``from_path``,
    ``split<i>_stopped``, ``n_stopped_folds``, ``n_unstarted_folds`` (not run: the
    selection's time was spent; scored nan) and ``n_unproved_folds`` (stopped, not started,
    or finished by a method that proves nothing: a deep regression tree's "heuristic")."""
    paths = {(r.fold, r.depth): r for r in done if isinstance(r, FoldPath)}
    fits = {(r.fold, r.depth, r.lam): r for r in done if isinstance(r, FoldFit)}
    params, scores, times, leaves, stopped, unrun, heuristic = [], [], [], [], [], [], []
    for depth in depths:
        if path_off[depth] is None:
            folds = [paths[f, depth] for f in range(k)]
            grid = path_lams(folds) if lams[depth] == "path" else lams[depth]
            for lam in grid:
                picks = [f.pick(lam) for f in folds]
                params.append({"depth": depth, "lam": float(lam)})
                scores.append([f.scores[i] for f, i in zip(folds, picks, strict=True)])
                leaves.append([f.leaves[i] for f, i in zip(folds, picks, strict=True)])
                times.append([f.seconds for f in folds])
                stopped.append([f.stopped for f in folds])
                unrun.append([not f.ran for f in folds])
                heuristic.append([False] * k)
        else:
            for lam in lams[depth]:
                runs = [fits[f, depth, float(lam)] for f in range(k)]
                params.append({"depth": depth, "lam": float(lam)})
                scores.append([r.score for r in runs])
                leaves.append([r.leaves for r in runs])
                times.append([r.seconds for r in runs])
                stopped.append([r.stopped for r in runs])
                unrun.append([not r.ran for r in runs])
                heuristic.append([r.heuristic for r in runs])
    S = np.array(scores, dtype=float)
    stop, late = np.array(stopped, dtype=bool), np.array(unrun, dtype=bool)
    T = np.array(times, dtype=float)
    mean = S.mean(axis=1)
    return {
        "params": params,
        "param_depth": np.ma.MaskedArray([q["depth"] for q in params], mask=False),
        "param_lam": np.ma.MaskedArray([q["lam"] for q in params], mask=False),
        **{f"split{i}_test_score": S[:, i] for i in range(k)},
        "mean_test_score": mean,
        "std_test_score": S.std(axis=1),
        "rank_test_score": _rank(mean),
        "mean_fit_time": T.mean(axis=1),
        "std_fit_time": T.std(axis=1),
        "mean_n_leaves": np.array(leaves, dtype=float).mean(axis=1),
        "from_path": np.array([path_off[q["depth"]] is None for q in params]),
        **{f"split{i}_stopped": stop[:, i] for i in range(k)},
        "n_stopped_folds": stop.sum(axis=1),
        "n_unstarted_folds": late.sum(axis=1),
        "n_unproved_folds": (stop | late | np.array(heuristic, dtype=bool)).sum(axis=1),
    }


def _rank(mean: np.ndarray) -> np.ndarray:
    """scikit-learn's ``rank_test_score``: 1 for the best, ties share the lowest rank."""
    filled = np.where(np.isnan(mean), -np.inf, mean)
    return np.array([1 + int(np.sum(filled > m)) for m in filled], dtype=np.int32)
