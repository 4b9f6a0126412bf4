"""Depth and penalty chosen by cross-validation (issue #44): :class:`BendOCTClassifierCV` reads
every λ of a depth off one λ-path per fold (:mod:`optrees.trees.solve.path`),
:class:`OptimalTreeRegressorCV` off its regression path
(:mod:`optrees.trees.solve.regression_path`) under ``lams="path"``, or fits each grid point
on each fold.  The per-fold work is in :mod:`.cv_folds`; the choice of the grid point (best
score or the one-standard-error rule, preferring points whose folds all finished) is
:func:`~optrees.estimators.cv_choice.select_index`."""

from __future__ import annotations

import time
import warnings
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone, is_classifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import check_cv
from sklearn.utils.validation import check_is_fitted

from .._logging import verbosity
from .._params import (
    GeneratedInit,
    Param,
    Params,
    validate_params,
)
from .._validation import OptreesInputError, check_regression_target, check_target
from ..encoding.binary import has_numeric_column
from ..trees.mip.formulation import MAX_TREE_DEPTH
from ..trees.solve.path import MAX_PATH_DEPTH
from ..trees.solve.regression import MAX_REGRESSION_DEPTH
from ..trees.solve.regression_deep import MAX_DEEP_DEPTH
from ._base import TimeLimitWarning, user_stacklevel
from .cv_choice import deeper_fits, select_index
from .cv_folds import (
    FoldFit,
    FoldPath,
    fit_fold,
    frame_of,
    late_records,
    path_fold,
    training_path,
)
from .cv_grid import FoldJob, fold_jobs, grid_fold, grid_refit_units
from .cv_params import CV_DEFAULTS, CV_PARAMS, depths_check, lams_check, passed_through
from .cv_progress import choice_line, depth_lines, done_line, records_of
from .cv_refit import refit_from_path
from .cv_results import cv_results
from .regression import OptimalTreeRegressor
from .trees import BendOCTClassifier

REFIT_SHARE = 0.01
"""Least share of ``time_limit`` the refit gets when the folds used all of it."""
AUTO_MAX_DEPTH = 8
"""The deepest depth ``depths="auto"`` grows BendOCTClassifierCV to."""
STRETCH = 2
"""Levels BendOCTClassifierCV's ``depths="auto"`` adds at once, as a last stage, where the
next depth is not predicted to finish (``_TreeCV._grows``)."""
GROW_SHARE = 0.5
"""``depths="auto"`` tries one more depth only while less than this share of
``time_limit`` is spent."""


def _as_they_come(n_jobs: Any) -> Parallel:
    """joblib's ``Parallel`` returning each task's output as it arrives (its progress line
    then), or all at the end where the backend cannot (joblib 1.3's Dask backend refuses
    ``return_as="generator"``)."""
    try:
        return Parallel(n_jobs=n_jobs, return_as="generator")
    except ValueError as exc:
        if "return_as" not in str(exc):
            raise
        return Parallel(n_jobs=n_jobs)


# ---------------------------------------------------------------------------- estimators
class _TreeCV(GeneratedInit):
    """Shared fit: the folds, the time shares, the parallel fold work, ``cv_results_``, the
    choice and the refit.  Subclasses name their ``_base`` estimator."""

    _base: ClassVar[type]
    _auto_depths: ClassVar[tuple[int, ...]]
    _auto_max_depth: ClassVar[int]
    _stretch: ClassVar[int] = 0
    _refit_off_path: ClassVar[bool] = False
    """The refit reads its tree off the all-rows path (:mod:`.cv_refit`) where the chosen
    depth has one, instead of a fit at λ beside the path."""

    def _path_units(self, depth: int) -> float:
        """A fold's path's share of ``time_limit``, in fits of its depth."""
        return 1.0

    def _path_off(self, df: Any, p: Params, depth: int) -> str | None:
        """Why the path cannot give this depth's λ (None: it can)."""
        return "no λ-path for this estimator"

    def _grid_lams(self, depth: int, n: int) -> tuple[float, ...]:
        """The λ fitted at ``depth`` under ``lams="path"`` when the path is off there (``n``:
        the fewest training rows of a fold)."""
        return ()

    def _check_y(self, y: Any, n: int) -> np.ndarray:
        """``y`` checked as the base estimator checks it (one clear error before any
        fold), as an array of its labels or values."""
        return np.asarray(check_regression_target(y, n))

    def _base_estimator(self, p: Params, **grid: Any) -> Any:
        names = passed_through(self._base)[1]
        return self._base(**{k: p[k] for k in names}, **grid)

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> _TreeCV:
        """Score every grid point on every fold, choose one by ``rule`` and (``refit``) fit it
        on all rows; ``sample_weight`` weights the fits, not the test scores (as
        scikit-learn's GridSearchCV).  Returns ``self``."""
        p = validate_params(self)
        with verbosity(int(p.verbose)):
            return self._fit(X, y, sample_weight, p)

    def _fit(self, X: Any, y: Any, sample_weight: Any, p: Params) -> _TreeCV:
        started = time.perf_counter()
        df = frame_of(X)
        if not isinstance(X, (pd.DataFrame, np.ndarray)):
            X = np.asarray(X)  # a list or an array-like: rows indexable by the folds
        y_arr = self._check_y(y, len(df))
        if sample_weight is not None:
            sample_weight = np.asarray(sample_weight)
            if sample_weight.shape != (len(df),):
                raise OptreesInputError(f"sample_weight must hold one number per row of X "
                                        f"({len(df)}), got shape {sample_weight.shape}")
        splitter = check_cv(p.cv, y_arr, classifier=is_classifier(self))
        try:
            splits = list(splitter.split(df, y_arr))
        except ValueError as exc:  # e.g. more folds than rows, or than any class's rows
            raise OptreesInputError(f"cv={p.cv!r} cannot split these {len(df)} rows: "
                                    f"{exc}") from None
        smallest = min(len(test) for _, test in splits)
        if smallest < 2 and not is_classifier(self) and p.scoring in (None, "r2"):
            raise OptreesInputError(f"cv={p.cv!r} leaves a fold with {smallest} test row of "
                                    f"these {len(df)}: R² is undefined on fewer than two; "
                                    "use fewer folds")
        scorer = check_scoring(self._base_estimator(p), p.scoring)
        auto = isinstance(p.depths, str)
        depths = list(self._auto_depths if auto else p.depths)
        self.path_off_: dict[int, str | None] = {}
        lams: dict[int, Any] = {}
        done: list[FoldFit | FoldPath] = []
        n_train = min(len(train) for train, _ in splits)
        stage, stretched = list(depths), False
        while True:
            for d in stage:
                self.path_off_[d] = self._path_off(df, p, d)
                lams[d] = p.lams if p.lams != "path" or self.path_off_[d] is None \
                    else self._grid_lams(d, n_train)
            left = p.time_limit if p.time_limit is None or not done else \
                p.time_limit - (time.perf_counter() - started)  # a grown depth: what is left
            stage_started = time.perf_counter()
            scored = self._score_stage(stage, lams, X, y_arr, sample_weight, splits, scorer,
                                       p, left, first=not done)
            done += scored
            depth_lines(cv_results(done, self.path_off_, lams, len(splits), depths), stage)
            # how much faster than one after another the stage's tasks ran (n_jobs)
            speedup = sum(r.seconds for r in scored) / \
                max(time.perf_counter() - stage_started, 1e-9)
            grow = 0 if not auto or stretched else \
                self._grows(done, p, lams, len(splits), depths, time.perf_counter() - started,
                            speedup, len(df) / max(n_train, 1))
            if not grow:
                break
            stretched = grow > 1
            stage = [max(depths) + grow]
            depths.append(stage[0])
        self.depths_ = tuple(depths)
        self.cv_results_ = cv_results(done, self.path_off_, lams, len(splits), depths)
        self.n_splits_, self.scorer_ = len(splits), scorer
        self.best_index_ = select_index(self.cv_results_, p.rule)
        self.best_params_ = dict(self.cv_results_["params"][self.best_index_])
        self.best_score_ = float(self.cv_results_["mean_test_score"][self.best_index_])
        choice_line(self.cv_results_, self.best_index_, p.rule)
        stopped = sum(r.stopped for r in done)
        late = sum(not r.ran for r in done)
        if stopped or late:
            said = [f"{stopped} of {len(done)} fold fits stopped at their share of time_limit; "
                    "their scores are those of the best trees found"] if stopped else []
            said += [f"{late} were not started, time_limit spent (their grid points are not "
                     "scored: mean_test_score nan)"] if late else []
            warnings.warn(f"{type(self).__name__}: {'; '.join(said)}", TimeLimitWarning,
                          stacklevel=user_stacklevel())
        if p.refit:
            self._refit(X, y_arr, sample_weight, p, time.perf_counter() - started)
        self.n_features_in_ = df.shape[1]
        if is_classifier(self):
            self.classes_ = check_target(y_arr, len(df))[0]
        self.fit_seconds_ = time.perf_counter() - started
        done_line(getattr(self, "best_estimator_", None) if p.refit else None)
        return self

    def _grows(self, done: list[FoldFit | FoldPath], p: Params, lams: dict[int, Any], k: int,
               depths: list[int], spent: float, speedup: float, row_ratio: float) -> int:
        """``depths="auto"``: by how many levels to grow (0: not at all).  One while the
        deepest depth tried has the best mean test score, none of its folds was stopped by
        its share (a deeper one would be too), less than GROW_SHARE of ``time_limit`` is
        spent, and the deeper depth's folds and refit are predicted to finish in what is
        left (:func:`~optrees.estimators.cv_choice.deeper_fits`: the deepest depth's
        measured time times its measured growth over the depth before).  Where only that
        prediction fails, ``_stretch`` levels (0: none) once, as a last stage whose fits are
        expected to stop at their shares: their trees are the best found (for BendOCT at
        least two stacked optima, :func:`~optrees.trees.search.binary.entry.solve_subtree`),
        chosen only when they beat every finished point by more than a standard error
        (:func:`~optrees.estimators.cv_choice.trusted`)."""
        deepest = max(depths)
        if deepest >= self._auto_max_depth or any(r.stopped or not r.ran for r in done
                                                  if r.depth == deepest):
            return 0
        if p.time_limit is not None and spent >= GROW_SHARE * p.time_limit:
            return 0
        results = cv_results(done, self.path_off_, lams, k, depths)
        if np.isnan(results["mean_test_score"]).all() or \
                results["params"][select_index(results, "best")]["depth"] != deepest:
            return 0
        path = self.path_off_.get(deepest) is None
        refit_units = (1.0 + 1.0 / self._path_units(deepest + 1)) if path else \
            grid_refit_units(self._base_estimator(p, depth=deepest), lams[deepest])
        left = None if p.time_limit is None else p.time_limit - spent
        if deeper_fits(done, deepest, left, speedup, row_ratio,
                       refit_units if p.refit else 0.0):
            return 1
        return min(self._stretch, self._auto_max_depth - deepest)

    def _score_stage(self, depths: list[int], lams: dict[int, Any], X: Any, y: np.ndarray,
                     sample_weight: np.ndarray | None, splits: list[Any], scorer: Any,
                     p: Params, left: float | None, first: bool) -> list[FoldFit | FoldPath]:
        """Every fold's path or fits at ``depths`` within ``left`` seconds: shares
        proportional to ``2^depth``, with one for the refit at the deepest depth; a task
        started behind schedule gets its part of what is left instead (``on_schedule``),
        and one started when it is all spent is not run (``unless_late``), except those of
        the ``first`` stage's first job (its shallowest depth's path or grid, or its
        first λ)."""
        jobs: list[FoldJob] = []  # per fold: (depth, None) is one path, (depth, lams) a grid
        for d in depths:
            jobs += [(d, None)] if self.path_off_[d] is None else \
                fold_jobs(self._base_estimator(p, depth=d), lams[d])

        def weight(depth: int, lam: Any) -> float:  # a grid: its λ's fits' shares
            return 2.0**depth * (self._path_units(depth) if lam is None else
                                 len(lam) if isinstance(lam, tuple) else 1.0)

        refit = 2.0**max(depths) if p.refit else 0.0
        units = len(splits) * sum(weight(d, lam) for d, lam in jobs) + refit
        deadline_at = None if left is None else time.time() + max(left, 0.0)
        later = units  # units of this task, every later one and the refit (submission order)
        tasks = []
        # depth by depth, so that the tasks a spent time leaves unstarted (unless_late) are
        # the deepest depth's, not some folds of every depth; the first stage's first job
        # (its shallowest depth's path, grid, or first λ) always runs: a selection needs one
        # point scored on every fold, and fixed costs per fit (CART, binarizing) would
        # overrun a short limit if every λ of that depth ran (20 stacked fits: 5.6 s for 5)
        keep = next(j for j in jobs if j[0] == min(depths)) if first else None
        for depth, lam in jobs:
            for fold, (train, test) in enumerate(splits):
                # divided first: a huge time_limit times 2^depth would overflow to inf
                limit = None if left is None else max(left, 0.0) / units * weight(depth, lam)
                schedule = None if deadline_at is None else \
                    (deadline_at, weight(depth, lam), later)
                later -= weight(depth, lam)
                est = self._base_estimator(p, depth=depth, time_limit=limit,
                                           lam=lam if isinstance(lam, float) else 0.0)
                late = None if (depth, lam) == keep else late_records(fold, depth, lam)
                if isinstance(lam, tuple):  # one task fits every λ of the depth
                    task = delayed(grid_fold)(est, lam, X, y, sample_weight, train, test,
                                              scorer, fold, schedule, late=late)
                elif lam is None:  # the default score of a classifier is accuracy
                    plain = p.scoring is None and is_classifier(self)
                    task = delayed(path_fold)(est, X, y, sample_weight, train, test,
                                              None if plain else scorer, fold, schedule,
                                              late=late)
                else:
                    task = delayed(fit_fold)(est, X, y, sample_weight, train, test,
                                             scorer, fold, schedule, late=late)
                tasks.append(task)
        # a generator: each task's line is logged as its output arrives
        return list(records_of(_as_they_come(p.n_jobs)(tasks),
                               len(splits)))

    def _refit(self, X: Any, y: np.ndarray, sample_weight: np.ndarray | None, p: Params,
               spent: float) -> None:
        """``best_estimator_``: the chosen point fitted on all rows, with what is left of
        ``time_limit`` after ``spent`` seconds (at least REFIT_SHARE of it)."""
        left = None if p.time_limit is None else \
            max(p.time_limit - spent, REFIT_SHARE * p.time_limit)
        started = time.perf_counter()
        best = self._base_estimator(p, **self.best_params_, time_limit=left)
        on_path = self.path_off_.get(self.best_params_["depth"]) is None
        if on_path and self._refit_off_path:  # one path gives the tree and path_
            self.best_estimator_, self.path_ = refit_from_path(best, X, y, sample_weight)
            self.refit_time_ = time.perf_counter() - started
            return
        self.best_estimator_ = best.fit(X, y) if sample_weight is None else \
            best.fit(X, y, sample_weight=sample_weight)
        self.refit_time_ = time.perf_counter() - started
        self.path_ = None
        if on_path:
            # the chosen depth's λ-path on all rows, in what is left of the time
            left = None if p.time_limit is None else max(
                p.time_limit - spent - self.refit_time_, REFIT_SHARE * p.time_limit)
            self.path_ = training_path(clone(best).set_params(time_limit=left), X, y,
                                       sample_weight)[0]

    # -------------------------------------------------------------- delegation
    def _fitted(self) -> Any:
        check_is_fitted(self, "cv_results_")
        if not hasattr(self, "best_estimator_"):
            raise OptreesInputError(f"{type(self).__name__} was fitted with refit=False: no "
                                    "best_estimator_ to predict with (fit the base estimator "
                                    "with best_params_)")
        return self.best_estimator_

    def predict(self, X: Any) -> np.ndarray:
        """``best_estimator_``'s prediction."""
        return self._fitted().predict(X)

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """``scorer_`` of ``best_estimator_`` on (X, y) (the chosen ``scoring``), weighted by
        ``sample_weight`` when given."""
        est = self._fitted()
        if sample_weight is None:
            return float(self.scorer_(est, X, y))
        return float(self.scorer_(est, X, y, sample_weight=sample_weight))


_BEND_TABLE, _BEND_DEFAULTS = passed_through(BendOCTClassifier)
FALLBACK_LAMS = (0.0, 0.005, 0.01, 0.02)
"""BendOCTClassifierCV's λ under ``lams="path"`` at a depth <= MAX_PATH_DEPTH that the path
cannot give (numeric columns, fairness, costs)."""
DEEP_LEAF_ROWS = (1, 2, 4, 8)
"""Deeper than MAX_PATH_DEPTH, ``lams="path"`` fits λ = k / n for these k (n: the fewest
training rows of a fold): a leaf must earn k rows, so no optimum keeps a split that gains
nothing, as λ = 0's may."""


class BendOCTClassifierCV(_TreeCV, ClassifierMixin, BaseEstimator):
    """:class:`BendOCTClassifier` (accuracy - lam * leaves) with its depth and leaf penalty
    chosen by cross-validation, as scikit-learn's ``LogisticRegressionCV``.

    For each fold and depth, one λ-path (``optrees.trees.pareto_front``: the best tree of
    every leaf count from one search) gives BendOCT's optimum for every λ at once, scored on
    the fold's test rows.  ``lams="path"`` takes, per depth, one λ inside each interval in
    which no fold's optimum changes (``path_lams``); a list takes those λ.  The path
    holds on 0/1 tables and under an explicit ``binarizer`` at depth <= 4 without fairness or
    costs; otherwise (``path_off_[depth]`` says why, e.g. numeric columns, which ``binarizer=
    "auto"`` searches over every threshold) each grid point is fitted on each fold, and
    ``"path"`` means ``FALLBACK_LAMS`` (deeper than 4: λ = k / n, ``DEEP_LEAF_ROWS``).
    ``binarizer=optrees.Binarizer()`` gets the path on numeric columns over quantile cuts.

    ``depths="auto"`` (the default) tries 2, 3 and 4, then one depth more at a time (up to
    ``AUTO_MAX_DEPTH``) while the deepest depth tried holds the best mean test score, none of
    its fold fits was stopped by its share of time, less than half of ``time_limit`` is
    spent, and the deeper depth's folds and refit are predicted to finish in what is left
    (the deepest depth's median fold time times its measured growth over the depth before,
    at least 2; ``cv_choice.deeper_fits``).  Where only that prediction fails, it tries
    ``STRETCH`` depths more once, as a last stage whose fold fits are expected to stop at
    their shares: their trees are the searches' best, at least two stacked optima (the best
    tree of half the depth, its leaves replaced by the best subtrees of the rest on their
    rows), chosen under the rule for stopped points below.  ``depths_`` lists the depths
    tried.

    ``time_limit`` is the budget of everything: each fold's path or fit gets a share
    proportional to ``2^depth``, the shares (with one for the refit at the deepest depth)
    summing to ``time_limit`` as if run one after another (``n_jobs`` > 1 ends sooner); each
    task gets its part of what is left when it starts (less when the tasks before it
    overran theirs, more when they ended early); a depth grown by ``"auto"`` shares what is
    left the same way; the refit gets what is left, at least 1 % of ``time_limit``.  A fold
    stopped by its share is scored with its best tree found (one :class:`TimeLimitWarning`
    counts them; ``cv_results_["n_stopped_folds"]`` and ``split<i>_stopped`` say where).
    Such a grid point is chosen only when its mean test score beats that of every point whose
    folds all finished by more than its standard error (else the rule chooses among those:
    ``cv_choice.trusted``): its scores are of trees that are not its optima, and its refit
    would likely stop too.  Ctrl-C stops the whole selection (``KeyboardInterrupt``), not
    only the fold it lands in.

    Fitted: ``best_params_`` ({"depth", "lam"}), ``best_score_``, ``best_index_``,
    ``cv_results_`` (scikit-learn's format, ``pandas.DataFrame(cv_results_)`` works; also
    ``mean_n_leaves`` per grid point, ``from_path``, ``split<i>_stopped`` (whether fold i's
    fit or path stopped at its share), ``n_stopped_folds``, ``n_unstarted_folds`` (fold tasks
    not run, the time spent: scored nan) and ``n_unproved_folds`` (those two and the folds of
    a method that proves nothing, whose points the same rule holds back: the regressor's
    stacked trees deeper than 4); ``mean_fit_time`` of a path point is
    its fold's whole path, shared by every λ of the depth), ``best_estimator_`` (refit on
    all rows), ``path_`` (with ``refit``: the chosen depth's λ-path on all rows, the points
    ``optrees.trees.pareto_front`` gives, over the encoded columns; None where it is off),
    ``n_splits_``, ``scorer_``, ``path_off_``, ``depths_``.  Ties between trees of one
    objective are broken by the path's search, which may pick another optimum than a fit.
    """

    _base = BendOCTClassifier
    _auto_depths, _auto_max_depth, _stretch = (2, 3, 4), AUTO_MAX_DEPTH, STRETCH
    _parameters: ClassVar[dict[str, Param]] = {
        "depths": Param(depths_check(MAX_TREE_DEPTH), "depths to try; 'auto': 2, 3 and 4, then "
                        f"one more (up to {AUTO_MAX_DEPTH}) while the deepest scores best, "
                        "its folds finished, less than half of time_limit is spent and the "
                        f"next is predicted to fit in what is left ({STRETCH} more, once, "
                        "where only that prediction fails)"),
        "lams": Param(lams_check(1.0, True), "leaf penalties to try, or 'path': every λ at which "
                      "a fold's optimum changes"),
        **CV_PARAMS, **_BEND_TABLE,
    }
    _defaults: ClassVar[dict[str, Any]] = {"depths": "auto", "lams": "path",
                                            **CV_DEFAULTS, **_BEND_DEFAULTS}

    def _check_y(self, y: Any, n: int) -> np.ndarray:
        classes, y_enc = check_target(y, n)
        labels = classes[y_enc]
        # labels of one type in an object array (e.g. integers): their own dtype, which
        # scikit-learn's scorers need (they call an object array's type "unknown")
        return np.asarray(labels.tolist()) if labels.dtype == object else labels

    def _grid_lams(self, depth: int, n: int) -> tuple[float, ...]:
        if depth > MAX_PATH_DEPTH:  # a leaf must earn k training rows: no idle splits
            return tuple(k / n for k in DEEP_LEAF_ROWS if k < n) or (0.0,)  # (λ < 1)
        return FALLBACK_LAMS

    def _path_off(self, df: Any, p: Params, depth: int) -> str | None:
        if depth > MAX_PATH_DEPTH:
            return f"depth > {MAX_PATH_DEPTH}"
        for name in ("fairness", "misclassification_costs", "feature_costs"):
            if p[name] is not None:
                return f"{name} is set"
        if isinstance(p.binarizer, str) and has_numeric_column(df):
            return ("numeric columns: binarizer='auto' searches every threshold (give "
                    "binarizer=Binarizer() for the path over quantile cuts)")
        return None

    def predict_proba(self, X: Any) -> np.ndarray:
        """``best_estimator_``'s class probabilities."""
        return self._fitted().predict_proba(X)


_REG_TABLE, _REG_DEFAULTS = passed_through(OptimalTreeRegressor)


REGRESSION_LAMS = (0.0, 0.001, 0.01, 0.05)
"""OptimalTreeRegressorCV's default λ, and its λ where its path is off (``max_leaves``,
linear leaves): a regression path costs one search per hull tree, more than these four fits."""


class OptimalTreeRegressorCV(_TreeCV, RegressorMixin, BaseEstimator):
    """:class:`OptimalTreeRegressor` with its depth and leaf penalty chosen by
    cross-validation.

    ``lams="path"``: per fold and depth, the regression path
    (``optrees.trees.regression_front``: the lower convex hull of (leaves, normalised loss)
    by λ-bisection over the exact penalised search, every hull tree proved) gives the
    regressor's optimum for every λ at once, scored on the fold's test rows; one λ inside
    each interval in which no fold's optimum changes is tried (``path_lams``); it tries more
    λ than a list, at one search per hull tree (1.3-2.5x the default list's time in
    ``bench/regression_path_cost.py``).  A list (the default, ``REGRESSION_LAMS``) scores each
    (depth, lam)'s optimum on each fold (its scores equal ``cross_val_score``'s, up to ties:
    another tree of the same objective), the λ of a fold and depth in one task sharing the
    searches' depth-2 fronts (``cv_grid.grid_fold``; ``mean_fit_time``: its part); with
    ``max_leaves``, linear leaves, a depth above 4 (a stacked tree: ``OptimalTreeRegressor``;
    its folds count as unproved, so such a point is chosen only when it beats every proved
    point by more than its standard error) or a base whose ``fit`` is its own, by a fit each, as
    ``"path"`` with ``max_leaves`` or linear leaves (``path_off_[depth]`` says why) over
    ``REGRESSION_LAMS``.
    ``depths="auto"`` tries 1, 2 and 3, and 4 when 3 scores best, none of its folds stopped
    and depth 4's folds and refit are predicted to finish in what is left (as
    :class:`BendOCTClassifierCV`'s: a depth 4 whose folds all stop would be scored by unproved
    trees, and its refit would stop too). ``time_limit`` (a path's share is ``2^depth - 1``
    fits', a grid task's its λ's; a search it stops counts as a stopped fit), the rule (a
    point whose folds stopped is chosen only beyond one standard error of the finished ones),
    ``cv_results_`` and the fitted attributes are as :class:`BendOCTClassifierCV`'s (the
    default scoring is R²; the default folds are not stratified); ``path_``: the chosen
    depth's regression path on all rows
    (:class:`~optrees.trees.solve.regression_path.RegressionPathPoint`: ``loss``, a lower
    ``bound``, ``lams``), None where it is off; there ``best_estimator_``'s tree is read off
    it at the chosen λ (``optrees.estimators.cv_refit``: one path for both, the same kind
    of tree the folds scored, also when time stops the path).  Ties between trees of one
    objective are broken by the path's searches, which may pick another optimum than a
    fit."""

    _base = OptimalTreeRegressor
    _refit_off_path = True
    _auto_depths, _auto_max_depth = (1, 2, 3), MAX_REGRESSION_DEPTH
    _parameters: ClassVar[dict[str, Param]] = {
        "depths": Param(depths_check(MAX_DEEP_DEPTH), "depths to try; 'auto': 1, 2 and 3, "
                        "then 4 if 3 scores best, its folds finished and 4 is predicted to "
                        "fit in what is left"),
        "lams": Param(lams_check(None, True), "leaf penalties to try (units of the target's "
                      "variance), or 'path': every λ at which a fold's optimum changes"),
        **CV_PARAMS, **_REG_TABLE,
    }
    _defaults: ClassVar[dict[str, Any]] = {"depths": "auto", "lams": REGRESSION_LAMS,
                                            **CV_DEFAULTS, **_REG_DEFAULTS}

    def _path_off(self, df: Any, p: Params, depth: int) -> str | None:
        if p.lams != "path":
            return "lams is a list: each λ is fitted"
        if p.max_leaves is not None:
            return "max_leaves is set"
        if p.leaf_model != "constant":
            return "linear leaves"
        if depth > MAX_REGRESSION_DEPTH:
            return f"depth {depth} > {MAX_REGRESSION_DEPTH}: a stacked tree, not an exact search"
        return None

    def _grid_lams(self, depth: int, n: int) -> tuple[float, ...]:
        return REGRESSION_LAMS

    def _path_units(self, depth: int) -> float:
        # a hull of h vertices takes up to 2h - 2 searches, each about one fit's time (a
        # chord between adjacent leaf counts none): 3 at depth 2 and 7 at depth 3 on bupa
        return 2.0**depth - 1.0
