"""Progress lines of a ``*CV`` selection at ``verbose >= 1`` (issue #44): one per fold task
as it ends, one per depth once all its folds are scored, the grid point chosen and the
refit.  The fold tasks are silent (:func:`optrees._logging.silent`), so a path, a grid of λ
and separate fits report alike, and lines from joblib's workers never interleave."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from .._logging import enabled, progress, since_fit
from .cv_folds import FoldFit, FoldPath

Record = FoldFit | FoldPath


def records_of(outs: Iterable[Any], n_splits: int) -> Iterator[Record]:
    """The fold records of the tasks' outputs (a record, or a grid task's list), logging a
    line per task as its output arrives: fold, depth, what it scored, seconds, best test
    score and how many of its searches stopped."""
    for out in outs:
        recs: list[Record] = out if isinstance(out, list) else [out]
        if enabled() and recs:
            first = recs[0]
            if isinstance(first, FoldPath):
                fits, scores = f"path of {len(first.leaves)} trees", first.scores
            else:
                fits = f"{len(recs)} λ" if len(recs) > 1 else f"λ {first.lam:g}"
                scores = np.array([r.score for r in recs])
            finite = scores[np.isfinite(scores)]
            progress("cv fold", since_fit(), fold=f"{first.fold + 1}/{n_splits}",
                     depth=first.depth, scored=fits,
                     seconds=f"{sum(r.seconds for r in recs):.1f}",
                     best_test_score=f"{finite.max():.4g}" if finite.size else "nan",
                     stopped=sum(r.stopped for r in recs),
                     **({"not_started": len(recs)} if not first.ran else {}))
        yield from recs


def depth_lines(results: dict[str, Any], depths: Iterable[int]) -> None:
    """Per depth of ``depths``: its grid point of best mean test score in ``results``
    (``cv_results_``'s format), its mean leaves and how many of its folds stopped."""
    if not enabled():
        return
    params, means = results["params"], np.asarray(results["mean_test_score"], dtype=float)
    for depth in depths:
        rows = [i for i, pt in enumerate(params) if pt["depth"] == depth]
        if not rows:
            continue
        scored = [i for i in rows if np.isfinite(means[i])]
        best = max(scored, key=lambda i: means[i]) if scored else rows[0]
        progress("cv depth", since_fit(), depth=depth, points=len(rows),
                 best_mean_test_score=f"{means[best]:.4g}",
                 lam=f"{params[best]['lam']:g}",
                 leaves=f"{results['mean_n_leaves'][best]:.1f}",
                 stopped_folds=int(results["n_stopped_folds"][best]))


def choice_line(results: dict[str, Any], index: int, rule: str) -> None:
    """The grid point ``rule`` chose: its depth, λ, mean test score ± standard deviation."""
    if enabled():
        pt = results["params"][index]
        progress("cv chose", since_fit(), depth=pt["depth"], lam=f"{pt['lam']:g}",
                 mean_test_score=f"{results['mean_test_score'][index]:.4g}",
                 std=f"{results['std_test_score'][index]:.3g}", rule=rule)


def done_line(best: Any) -> None:
    """The selection's last line: the refit's status, objective, bound and gap (``best``:
    ``best_estimator_``, None without a refit)."""
    if not enabled():
        return
    if best is None:
        progress("cv done", since_fit(), refit="none")
        return
    bound = getattr(best, "bound_", None)
    progress("cv done", since_fit(), incumbent=getattr(best, "objective_", None),
             bound=bound if bound is not None and np.isfinite(bound) else None,
             gap=getattr(best, "gap_", None), status=getattr(best, "status_", "?"))
