"""scikit-learn estimators for the optimal-tree MIPs (FlowOCT, BendersOCT, BendOCT)."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin

from .._params import (
    CLASS_WEIGHT,
    RANDOM_STATE,
    TIME_LIMIT,
    VERBOSE,
    Boolean,
    Either,
    GeneratedInit,
    Integer,
    Options,
    Param,
    Params,
    Real,
    optional,
    validate_params,
)
from .._validation import (
    OptreesInputError,
    check_target,
    fit_weights,
    positive_class_index,
)
from ..encoding.bins import cart_cuts
from ..encoding.common import is_numeric
from ..encoding.thresholds import ThresholdColumns
from ..models.result import FitResult
from ..trees.accel.eqp import VARIANTS as EQP_VARIANTS
from ..trees.accel.path_bound import VARIANTS as PB_VARIANTS
from ..trees.benders import BendersOCT
from ..trees.fair_thresholds import (
    MAX_CERTIFIED_DEPTH,
    Certificate,
    better_fair_stump,
)
from ..trees.fairness import TreeFairness, record_tree_fairness
from ..trees.flow import FlowOCT
from ..trees.formulation import check_model_size
from ..trees.numeric_solve import MAX_NUMERIC_DEPTH, solve_numeric_tree
from ..trees.objectives import ClassificationView, MisclassificationCosts, objective_class
from ..trees.objectives.feature_costs import solve_with_feature_costs
from ..trees.objectives.solve import solve_costs
from ..trees.problem import TreeProblem
from ..trees.solve import search_off, solve_tree
from ..trees.subtrees.fair import MAX_FAIR_DEPTH
from ._base import (
    Deadline,
    _BinaryInput,
    _TreePredictor,
    drop_weightless,
    fit_deadline,
    fit_frame,
    has_numeric_column,
    logged_fit,
    mark_numeric,
    stop_on_ctrl_c,
    store_result,
    warn_unseen,
)
from .tree_params import (
    BENDERS_DEFAULTS,
    BINARIZER,
    DEPTH,
    FAIRNESS_PARAMS,
    FEATURE_COSTS,
    MAX_LEAVES,
    MIN_SAMPLES_LEAF,
    MISCLASSIFICATION_COSTS,
    SIDE_DEFAULTS,
    SUBTREE_SEARCH,
    TREE_DEFAULTS,
    WARM_START,
)

FAIR_BINS = 20
"""Quantile cuts per numeric column of ``binarizer="auto"`` under fairness when the exact front
search takes the fit (depth <= 3, no max_leaves); the MIP fallback keeps the default 5.
Measured on adult (70 % for training, lam = 0, every fit proved; 2-core machine under load):
over sex / race, statistical parity, equal opportunity and equalized odds, depths 2 and 3,
20 cuts gained 0.4-3.7 test points (race, parity 0.05, depth 2: 0.7693 -> 0.7980; sex,
parity 0.05, depth 3: 0.8138 -> 0.8257) for 1-3x the time (race, depth 3: 41 s -> 129 s)."""

FAIR_EVERY_THRESHOLD = {1: 5_000, 2: 1_000, 3: 200}
"""Most 0/1 columns the exact front search gets under fairness at each depth.  Numeric
columns are cut at every threshold, those with the fewest values first, while the columns
stay within it (the others get FAIR_BINS quantile cuts and CART's); when all are, the
optimum holds over every threshold.  The front search's time grows with the square of the
columns at depth 2 and their cube at depth 3; at depth 1 the 0/1 matrix itself (rows x
columns bytes) is what the budget bounds.  Measured on adult (statistical parity by
sex, BendOCT, proved): depth 2, 22,621 rows, 490 columns, 1.0-2.1 s; depth 3, 30,162 rows,
148 / 163 columns 9-11 s / 16-20 s (beside a test run), 482 columns not proved in 300 s."""

CERTIFICATE_SECONDS = 10.0
"""Time the certificate over every threshold of a fair fit may take at least (else four
times the fit so far), within the time limit: a fit that cannot be certified keeps most of
its time.  Measured on adult (22,621 rows, ``fnlwgt`` coarse): depth 2, 1.5 s per
multiplier, 2-3 multipliers to certify.  Depth 3 searches every threshold of all trees per
multiplier (attrition, 1,102 rows: 12-14 s; adult: about 100 s), so its first attempt
takes this time only: an adult fit of 6.5 s then takes 16.5 s and stays over its quantile
cuts (with four times the fit: 31-34 s), while on attrition the first search, stopped,
finds a better fair tree and the repeated fit, given four times the fit, certifies it
(all four fits of bench/fair_every_threshold.py within 60 s)."""


def fair_cuts(df: pd.DataFrame, depth: int,
              cart: dict[str, np.ndarray] | None) -> dict[str, np.ndarray] | None:
    """The cuts added to FAIR_BINS quantiles for a fair fit of ``depth`` on ``df``: every
    value of the numeric columns with the fewest values within FAIR_EVERY_THRESHOLD
    columns, and CART's cuts ``cart`` on the other columns."""
    values = {str(c): np.unique(df[c].to_numpy(dtype=float)) for c in df.columns
              if is_numeric(df[c])}
    cats = sum(max(1, int(df[c].nunique()) - (int(df[c].nunique()) == 2))
               for c in df.columns if not is_numeric(df[c]))
    total = cats + sum(min(len(v) - 1, FAIR_BINS - 1) for v in values.values())
    cuts = dict(cart or {})
    for name, v in sorted(values.items(), key=lambda item: len(item[1])):
        more = (len(v) - 1) - min(len(v) - 1, FAIR_BINS - 1)
        if total + more > FAIR_EVERY_THRESHOLD[depth]:
            break
        if more:  # x >= v for each value v but the smallest: every threshold
            total += more
            cuts[name] = v[1:]
    return cuts or None


def min_leaf_rows(value: float, n_rows: int) -> int:
    """``min_samples_leaf`` in rows: a count as given, a fraction of ``n_rows`` rounded up
    (scikit-learn's rule)."""
    return int(value) if isinstance(value, int) else max(1, math.ceil(value * n_rows))


class _OptimalTreeClassifier(GeneratedInit, _BinaryInput, _TreePredictor, ClassifierMixin,
                             BaseEstimator):
    """Shared fit/predict for the strong-flow tree MIPs (objective (1) of [FlowOCT]).

    Fitted attributes: ``tree_`` (:class:`BinaryTree`), ``objective_`` ((1-lam)*correct -
    lam*splits of ``tree_`` on the training data), ``bound_`` (proven upper bound), ``gap_``,
    ``status_`` ("optimal", "time_limit", "interrupted" after Ctrl-C, ...),
    ``solve_seconds_`` (solver), ``fit_seconds_`` (everything), ``stats_``,
    ``n_features_in_``, ``feature_names_in_`` (string column names of a DataFrame X),
    ``classes_`` (sorted labels of any type), ``thresholds_`` (over which thresholds the
    optimum holds: "all" = every threshold of the numeric columns, also when the
    binarizer cut each of them between every two values, or when a fair fit over quantile
    cuts is certified for every threshold, "binarized" = the binarizer's thresholds
    only).  ``time_limit`` counts from ``fit`` entry
    (binarization, warm start and model build included); the same ``random_state`` gives
    the same tree whenever the solve finishes (a time-limited solve is not reproducible).
    """

    _parameters: ClassVar[dict[str, Param]] = {
        "depth": DEPTH,
        "lam": Param(Real(0.0, 1.0, high_open=True), "weight of the split penalty"),
        "time_limit": TIME_LIMIT,
        "binarizer": BINARIZER,
        "warm_start": WARM_START,
        "random_state": RANDOM_STATE,
        "verbose": VERBOSE,
        "symmetry_breaking": Param(Boolean(), "rows that keep one of each pair of mirror "
                                   "trees (same optimum, faster)", cli=""),
        "class_weight": CLASS_WEIGHT,
        "min_samples_leaf": MIN_SAMPLES_LEAF,
        "max_leaves": MAX_LEAVES,
        **FAIRNESS_PARAMS,
        "misclassification_costs": MISCLASSIFICATION_COSTS,
        "feature_costs": FEATURE_COSTS,
    }

    _defaults: ClassVar[dict[str, Any]] = {**TREE_DEFAULTS, "symmetry_breaking": True,
                                            **SIDE_DEFAULTS}

    def _formulation(self, problem: TreeProblem, p: Params):  # pragma: no cover - abstract
        raise NotImplementedError

    def _penalty(self, p: Params) -> str:
        return "splits"

    @logged_fit
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> _OptimalTreeClassifier:
        """Encode ``X``, solve the tree MIP within ``time_limit`` and set ``tree_`` and the
        fitted attributes (the best tree found, with its bound and gap); returns ``self``.

        ``sample_weight`` (one number >= 0 per row) and ``class_weight`` make "correct" the
        weight of the correctly classified rows: integer weights give the tree of duplicated
        rows, weight 0 the tree without the row."""
        p = validate_params(self)
        deadline = fit_deadline(p.time_limit)
        df = fit_frame(self, X)
        classes, y_enc = check_target(y, df.shape[0])
        w = fit_weights(sample_weight, p.class_weight, classes, y_enc)
        df, y_enc, w = drop_weightless(df, y_enc, w)
        costs = p.get("misclassification_costs")
        matrix = None if costs is None else MisclassificationCosts.from_spec(costs, classes)
        if p.get("feature_costs") is not None:
            result = self._solve_feature_costs(df, y_enc, w, classes, p, deadline, matrix)
        elif matrix is not None:
            result = self._solve_costs(matrix, df, y_enc, w, classes, p, deadline)
        else:
            result = self._solve(df, y_enc, w, classes, p, deadline)
        self.classes_ = classes
        self.tree_ = mark_numeric(result.model, getattr(self, "encoder_", None))
        self.n_bb_nodes_ = result.stats["bb_nodes"]
        store_result(self, result, deadline, "returning the best tree found")
        record_tree_fairness(self, df, y_enc, w, stacklevel=5)  # fairness_, from predictions
        return self

    def _solve(self, df: Any, y: np.ndarray, w: np.ndarray | None, classes: np.ndarray,
               p: Params, deadline: Deadline, view: ClassificationView | None = None
               ) -> FitResult:
        """Binarize and solve (rows weighted by ``w``, None: 1); the solver stops at
        ``deadline`` or the first Ctrl-C.  ``view``: the rows are an objective's
        pseudo-rows (:mod:`optrees.trees.objectives`)."""
        # side constraints (FlowOCT, BendersOCT, BendOCT; the OCT and BinOCT baselines have none)
        min_leaf = min_leaf_rows(p.get("min_samples_leaf", 1), len(y))
        max_leaves = p.get("max_leaves")
        if max_leaves is not None and max_leaves >= 2**p.depth:
            max_leaves = None  # every tree of the depth keeps within it
        fair = self._tree_fairness(df, y, classes, p)
        self._tree_columns = None
        if fair is not None and p.drop_sensitive:  # the groups stay, the column goes
            df = df.drop(columns=[str(p.sensitive)])
            self._tree_columns = list(df.columns)
        every = self._every_threshold(df, p)
        if every and fair is None:  # the numeric search takes min_leaf and max_leaves
            return self._solve_numeric(df, y, w, classes, p, deadline, min_leaf, max_leaves)
        self.encoder_ = None
        cuts = self._cart_cuts(df, y, w, p, min_leaf, max_leaves)

        def binarized(n_bins: int | None, extra: Any = cuts) -> TreeProblem:
            """The problem over the 0/1 columns of ``n_bins`` cuts (None: the default) and
            ``extra`` ones (CART's)."""
            return TreeProblem(self._fit_binary(df, w, n_bins, extra), y, len(classes),
                               p.depth, p.lam, self._penalty(p), w, min_leaf, max_leaves, fair,
                               view)

        fine = every and fair is not None and max_leaves is None and p.depth <= MAX_FAIR_DEPTH
        extra = fair_cuts(df, p.depth, cuts) if fine else None
        certificate: list[Certificate] = []  # built by the first round that needs it
        kept: tuple | None = None  # the round before: its result and binarization
        for _ in range(3):  # at depth 1 and 3, each round adds the cuts of a better fair tree
            problem = binarized(FAIR_BINS, extra) if fine else binarized(None)
            if fine and search_off(problem) is not None:  # the MIP gets the default cuts
                problem = binarized(None)
            # one-hot categorical and 0/1 columns lose nothing, nor do numeric columns cut
            # between every two values
            lossy = self.binarizer_ is not None and not self.binarizer_.keeps_every_threshold(df)
            self.thresholds_ = "binarized" if lossy else "all"
            form = self._formulation(problem, p)
            check_model_size(form.model_size(), f"{type(self).__name__} at depth {p.depth} on "
                             f"{problem.n_samples} samples x {problem.n_features} binary "
                             "features")
            started = deadline.elapsed()
            with stop_on_ctrl_c(deadline):
                result = solve_tree(problem, form, deadline, classes,
                                    (self.feature_names_, self.negated_names_), p.random_state,
                                    p.verbose, p.warm_start, search=self._search(p))
            if kept and result.status != "optimal" and \
                    result.objective < kept[0].objective - 1e-12:
                # a repeat stopped by the time limit below the round before: keep that one
                result, (self.binarizer_, self.feature_names_, self.negated_names_) = kept
                self.thresholds_ = "binarized"
                break
            if every:  # the numeric search does not take fairness: the binarizer's thresholds
                result.stats["every_threshold"] = (
                    "off: fairness, over quantile cuts and CART's" if lossy
                    else "fairness: every threshold as 0/1 columns")
            if not (fine and lossy and result.status == "optimal"):
                break
            # the certificate's time, leaving this round's for a repeat (one stopped below
            # this round gives it back); depth 3's searches are long, so four times the fit
            # only once one found a better tree
            first = p.depth >= 3 and kept is None
            within = deadline.reserve(deadline.elapsed() - started).within(
                CERTIFICATE_SECONDS if first else max(CERTIFICATE_SECONDS,
                                                      4.0 * deadline.elapsed()))
            more = self._certify_thresholds(df, problem, result, certificate, within)
            if not more:
                break
            kept = (result, (self.binarizer_, self.feature_names_, self.negated_names_))
            extra = dict(extra or {})
            for column, value in more:
                extra[column] = np.append(extra.get(column, []), value)
        return result

    def _solve_costs(self, costs: MisclassificationCosts, df: Any, y: np.ndarray,
                     w: np.ndarray | None, classes: np.ndarray, p: Params,
                     deadline: Deadline) -> FitResult:
        """The tree of least misclassification cost (:mod:`optrees.trees.objectives`): the
        same solve on the cost objective's weighted-classification rows."""
        if p.get("fairness") is not None:
            raise OptreesInputError("fairness together with misclassification_costs is not "
                                    "supported: fit one of them")

        def solve(view: ClassificationView, lam: float, min_leaf: int) -> FitResult:
            q = Params(p, lam=lam, min_samples_leaf=min_leaf)
            return self._solve(df.iloc[view.rows].reset_index(drop=True), view.labels,
                               view.weights, classes, q, deadline, view)

        return solve_costs(costs, solve, lambda: self._encode(df), y, w, p.lam,
                           self._penalty(p), min_leaf_rows(p.min_samples_leaf, len(y)))

    def _solve_feature_costs(self, df: Any, y: np.ndarray, w: np.ndarray | None,
                             classes: np.ndarray, p: Params, deadline: Deadline,
                             matrix: MisclassificationCosts | None) -> FitResult:
        """The best tree when tests cost (:mod:`optrees.trees.objectives.feature_costs`):
        the 0/1 subtree search, which carries a path's columns; numeric columns binarized
        (quantile and CART's cuts), no MIP (the search's bound)."""
        costs = objective_class("feature_costs").from_spec(p.feature_costs, list(df.columns))
        for name in ("fairness", "max_leaves"):
            if p.get(name) is not None:
                raise OptreesInputError(f"feature_costs together with {name} is not "
                                        "supported: fit one of them")
        min_leaf = min_leaf_rows(p.min_samples_leaf, len(y))
        self.encoder_ = None
        X = self._fit_binary(df, w, None, self._cart_cuts(df, y, w, p, min_leaf, None))
        lossy = self.binarizer_ is not None and not self.binarizer_.keeps_every_threshold(df)
        self.thresholds_ = "binarized" if lossy else "all"
        columns = (list(df.columns) if self.binarizer_ is None
                   else [lit.column for lit in self.binarizer_.literals_])
        with stop_on_ctrl_c(deadline):
            result = solve_with_feature_costs(
                X, [str(c) for c in columns], (self.feature_names_, self.negated_names_), y, w,
                classes, p.depth, p.lam, self._penalty(p), min_leaf, costs, matrix, deadline)
        if lossy:
            result.stats["every_threshold"] = ("off: feature costs are searched over 0/1 "
                                               "columns (quantile cuts and CART's)")
        return result

    def _certify_thresholds(self, df: Any, problem: TreeProblem, result: FitResult,
                            certificate: list[Certificate], deadline: Deadline
                            ) -> list[tuple[str, float]]:
        """Whether a fair optimum over quantile cuts holds over every threshold (two
        classes, depth <= 3; :mod:`optrees.trees.fair_thresholds`): no fair tree (at depth
        <= 2: testing a coarse column) beats it; then ``thresholds_`` becomes "all".  Returns
        the cuts ``(column, value)`` (rows with ``x >= value`` on the right) of a better fair
        tree found on the way (depth 1: every stump enumerated; depth 3: the certificate's
        searches), for the next round; ``certificate`` keeps the certificate across rounds.
        It stops at ``deadline``."""
        fair = problem.fairness
        if problem.n_classes != 2 or problem.depth > MAX_CERTIFIED_DEPTH:
            return []
        encoder = ThresholdColumns(df, "onehot")
        coarse = set(self.binarizer_.coarse_columns(df))
        column: list[str | None] = []  # per feature of the encoder: its coarse column
        for kind, c, values in encoder.specs:
            column += [str(c) if str(c) in coarse else None] if kind == "num" else \
                [None] * len(values)
        X = encoder.transform(df)
        coords, cells = fair.coordinates(problem.y, problem.weights)
        score = (result.objective - problem.split_cost) / problem.correct_weight
        args = (X, np.array([c is not None for c in column]), problem.y, problem.weights, coords,
                cells, fair.epsilon, fair.positive)
        if problem.depth == 1:
            better = better_fair_stump(*args, score, problem.leaf_penalty, problem.min_leaf)
            if better is not None:
                return [(encoder.names[better[0]], better[1])]
            how = "every stump on them enumerated"
        else:
            if not certificate:
                certificate.append(Certificate(*args, problem.depth, problem.leaf_penalty,
                                               problem.min_leaf))
            cert = certificate[0]
            done = cert.run(score, result.stats.get("search_multipliers"), deadline)
            if math.isfinite(cert.bound):  # over every threshold, in the fit's units
                top = min(cert.bound, float(problem.weights.sum()) - problem.leaf_penalty)
                result.stats["every_threshold_bound"] = (problem.split_cost +
                                                         problem.correct_weight * top)
            if not done:
                result.stats["every_threshold"] += "; not certified for every threshold"
                if cert.better is None or cert.better.score <= score + cert.tol:
                    return []
                # x >= the value above t, for each test x <= t on a coarse column
                return [(column[f], float(X[X[:, f] > t, f].min()))
                        for f, t in cert.better.tests if column[f] is not None]
            how = "a Lagrangian bound"
        self.thresholds_ = "all"
        result.stats["every_threshold"] = ("fairness: over quantile cuts, certified optimal "
                                           f"for every threshold by {how}")
        return []

    def _tree_fairness(self, df: Any, y: np.ndarray, classes: np.ndarray,
                       p: Params) -> TreeFairness | None:
        """The fairness constraint of the fit (None without ``fairness``); one clear error
        for a missing or unknown column, a single group or a class count it cannot take."""
        kind = p.get("fairness")
        for name in ("sensitive", "legitimate"):
            col = p.get(name)
            if col is not None and str(col) not in df.columns:
                raise OptreesInputError(f"{name} column {col!r} is not a column of X "
                                        f"(columns: {list(df.columns)})")
        if kind is None:
            return None
        if p.sensitive is None:
            raise OptreesInputError(f"fairness={kind!r} needs the sensitive attribute: set "
                                    "sensitive=<column name of X>")
        groups = pd.factorize(df[str(p.sensitive)], use_na_sentinel=False)[0]
        if groups.max(initial=0) < 1:
            raise OptreesInputError(f"the sensitive column {p.sensitive!r} has a single group; "
                                    "fairness compares two or more")
        legit = None
        if kind == "conditional_parity":
            if p.legitimate is None:
                raise OptreesInputError("fairness='conditional_parity' needs legitimate=<column "
                                        "name of X> (parity is asked within its values)")
            legit = pd.factorize(df[str(p.legitimate)], use_na_sentinel=False)[0]
        return TreeFairness(kind, float(p.epsilon), groups,
                            positive_class_index(p.positive_class, classes), legit)

    def _cart_cuts(self, df: Any, y: np.ndarray, w: np.ndarray | None, p: Params,
                   min_leaf: int, max_leaves: int | None) -> dict[str, np.ndarray] | None:
        """Under ``binarizer="auto"``, the cuts of CART of the fit's depth, leaf size and leaf
        budget (:func:`~optrees.encoding.bins.cart_cuts`), added to the quantile cuts: the
        warm start (CART on the 0/1 columns) then finds CART's own tree, so the MIP's tree is
        never below CART's on training data (ties between equally good splits aside)."""
        if not (isinstance(p.binarizer, str) and p.binarizer == "auto") or \
                not has_numeric_column(df):
            return None
        return cart_cuts(df, y, p.depth, w, min_samples_leaf=min_leaf,
                         max_leaf_nodes=max_leaves if max_leaves is None or max_leaves > 1
                         else 2)

    def _search(self, p: Params) -> bool:
        """Whether the exact subtree search runs before the MIP (BendersOCT, BendOCT)."""
        return False

    def _every_threshold(self, df: Any, p: Params) -> bool:
        """Whether to solve over every threshold: the subtree search is on, ``binarizer`` is
        "auto", the depth is at most MAX_NUMERIC_DEPTH and some numeric column is not 0/1."""
        return (self._search(p) and isinstance(p.binarizer, str) and p.binarizer == "auto"
                and p.depth <= MAX_NUMERIC_DEPTH and has_numeric_column(df))

    def _solve_numeric(self, df: Any, y: np.ndarray, w: np.ndarray | None,
                       classes: np.ndarray, p: Params, deadline: Deadline,
                       min_leaf: int = 1, max_leaves: int | None = None) -> FitResult:
        """Solve over every threshold of the numeric columns (categoricals one-hot), leaves
        of at least ``min_leaf`` rows, at most ``max_leaves`` leaves (None: any)."""
        self.encoder_ = ThresholdColumns(df, "onehot")
        self.binarizer_ = None
        self.feature_names_ = list(self.encoder_.names)
        self.negated_names_ = list(self.encoder_.negated)
        self.thresholds_ = "all"
        with stop_on_ctrl_c(deadline):
            return solve_numeric_tree(self.encoder_.transform(df), y, classes, p.depth, p.lam,
                                      self._penalty(p), deadline,
                                      (self.feature_names_, self.negated_names_), w,
                                      min_leaf, max_leaves)

    def _fitted_frame(self, X: Any) -> Any:
        """X checked against the fit-time columns, without a dropped sensitive column."""
        df = super()._fitted_frame(X)
        columns = getattr(self, "_tree_columns", None)
        return df if columns is None else df[columns]

    def _features(self, X: Any) -> np.ndarray:
        if getattr(self, "encoder_", None) is None:
            return super()._features(X)
        df = self._fitted_frame(X)
        warn_unseen(self, df, self.encoder_.categories())
        return self._encode(df)


class FlowOCTClassifier(_OptimalTreeClassifier):
    """Optimal classification tree by the strong max-flow MIP FlowOCT ([FlowOCT] eq. 1),
    solved by SCIP.

    ``strengthen=True`` separates the cuts (4) of [FlowOCT] §2.2.3 at fractional nodes;
    ``symmetry_breaking=False`` gives eq. (1) exactly as printed (same optimum, slower).

    ``subtree_search`` (on by default) first solves the problem by the exact searches that
    :class:`BendersOCTClassifier` uses for the same objective: over every threshold of
    numeric columns (``binarizer="auto"``, depth ≤ 4, ``thresholds_ == "all"``, no MIP), or
    on the 0/1 columns with half of the time, its tree then starting the MIP and its bound
    capping it.  ``subtree_search=False`` is eq. (1) alone, over the binarizer's thresholds.
    """

    _parameters: ClassVar[dict[str, Param]] = {
        "strengthen": Param(Boolean(), "separate the cuts (4) at fractional nodes"),
        "subtree_search": SUBTREE_SEARCH,
    }

    _defaults: ClassVar[dict[str, Any]] = {**TREE_DEFAULTS, "symmetry_breaking": True,
                                            "strengthen": False, "subtree_search": True,
                                            **SIDE_DEFAULTS}

    def _search(self, p: Params) -> bool:
        return bool(p.subtree_search)

    def _formulation(self, problem: TreeProblem, p: Params) -> FlowOCT:
        return FlowOCT(problem, strengthen=p.strengthen, symmetry_breaking=p.symmetry_breaking)


class BendersOCTClassifier(_OptimalTreeClassifier):
    """Optimal classification tree by Benders decomposition of FlowOCT (eq. 8, Prop. 1).

    ``penalty="splits"`` (default) maximizes (1 - lam) * correct - lam * splits as in
    [FlowOCT]; ``penalty="leaves"`` maximizes accuracy - lam * leaves, the BendOCT
    model of [BendOCT] (§4); ``objective_`` is reported in the chosen units.

    By default two techniques of [BendOCT] that do not change the optimum are on,
    for either penalty: path-bound cutting planes (§5.4) and solution polishing (§5.2).  They
    make the proof of optimality much faster (balance-scale, 312 rows, 5 splits, loaded
    machine: depth 2, 3-12 s -> at most 0.16 s; depth 3, lam = 0: no proof in 300 s ->
    0.8-1.0 s).  ``split_bound_cuts`` (on by default) adds our extension of the path-bound
    cuts (optrees.trees.accel.split_bound): D2S bounds for every split of a node of height 3,
    which proves depth-3 optima at the root node and many depth-4 optima in seconds.
    With ``subtree_search=False`` as well, ``path_bound_cuts=False, polishing=False,
    split_bound_cuts=False`` gives the method of [FlowOCT] exactly as published.
    Further switches: ``strengthened_cuts`` (§5.1), ``eqp`` (§5.3: "H-G" with H in basic (16),
    chain (18), chain_da (19), recursive (20), recursive_da (21) and G in basic (17), group
    (22), e.g. "recursive_da-group"; ``eqp_max_split`` = max ``|F*|``) and the path-bound
    variant (True or "basic" = cut (24); "negative" adds (25), "structure" (26), "both" both).
    With any of them on, the master uses the leaf structure (3b)-(3g), which expresses the
    split penalty exactly (a tree has one leaf more than splits).

    ``subtree_search`` (on by default) first solves the problem by the exact subtree search
    (``optrees.trees.subtrees``: MurTree-style dynamic programming with bounds and a cache)
    with half of the time; when it proves the optimum no MIP is built (``stats_["search_*"]``
    say what it did, ``n_bb_nodes_`` is 0), otherwise its tree is the MIP's warm start and its
    bound caps the MIP's.  ``path_bound_cuts=False, polishing=False, split_bound_cuts=False,
    subtree_search=False`` is the published method.

    Numeric columns over every threshold: with ``subtree_search`` on, ``binarizer="auto"``,
    depth ≤ 4 and a numeric column that is not 0/1, the tree is found by the exact numeric
    search (``optrees.trees.numeric_solve``: every midpoint of every numeric column,
    categoricals one-hot, CART as the first incumbent) and tests ``x <= t`` on the raw values
    (``thresholds_ == "all"``, ``encoder_`` reads new tables).  No MIP runs then (one over
    every threshold is not practical): a search stopped by the time limit returns its best
    tree, never worse than CART, with status "time_limit" and the search's valid bound.  An
    explicit ``binarizer``, ``subtree_search=False`` or depth ≥ 5 solves over the
    binarizer's thresholds (``thresholds_ == "binarized"``).
    ``fractional_cuts=True`` also separates min-cut inequalities at fractional LP solutions;
    ``symmetry_breaking=False`` gives eq. (8) exactly as printed (same optimum, slower).
    """

    _parameters: ClassVar[dict[str, Param]] = {
        "fractional_cuts": Param(Boolean(), "also separate min-cut rows at fractional LP "
                                 "solutions"),
        "penalty": Param(Options("splits", "leaves"), "what lam penalizes: splits ([FlowOCT]) "
                         "or leaves ([BendOCT])"),
        "polishing": Param(Boolean(), "solution polishing ([BendOCT] §5.2)"),
        "path_bound_cuts": Param(Either(Boolean(), Options(*PB_VARIANTS)),
                                 "path-bound cuts ([BendOCT] §5.4): True = 'basic' (24), "
                                 "'negative' (25), 'structure' (26), 'both'", bare=True),
        "strengthened_cuts": Param(Boolean(), "strengthened Benders cuts ([BendOCT] §5.1)"),
        "eqp": Param(optional(Options(*EQP_VARIANTS)), "EQP inequalities ([BendOCT] §5.3), "
                     "e.g. 'recursive_da-group'"),
        "eqp_max_split": Param(Integer(0, 3), "largest |F*| of the EQP sets", cli=""),
        "split_bound_cuts": Param(Boolean(), "D2S bounds for every split of a height-3 node "
                                  "(our extension of [BendOCT] §5.4)"),
        "subtree_search": SUBTREE_SEARCH,
    }

    _defaults: ClassVar[dict[str, Any]] = {**TREE_DEFAULTS, "symmetry_breaking": True,
                                            "fractional_cuts": False, "penalty": "splits",
                                            **BENDERS_DEFAULTS, **SIDE_DEFAULTS}

    def _penalty(self, p: Params) -> str:
        return p.penalty

    def _search(self, p: Params) -> bool:
        return bool(p.subtree_search)

    def _formulation(self, problem: TreeProblem, p: Params) -> BendersOCT:
        return BendersOCT(problem, fractional_cuts=p.fractional_cuts,
                          symmetry_breaking=p.symmetry_breaking, polishing=p.polishing,
                          path_bound_cuts=p.path_bound_cuts or False,
                          strengthened_cuts=p.strengthened_cuts, eqp=p.eqp,
                          eqp_max_split=p.eqp_max_split, split_bound_cuts=p.split_bound_cuts)


class BendOCTClassifier(BendersOCTClassifier):
    """Accelerated BendOCT ([BendOCT]): accuracy - lam * leaves, with path-bound
    cuts with both improvements (25)-(26) and solution polishing on by default; strengthened
    cuts off, as in the paper's best configuration, plus our split-bound cuts
    (``split_bound_cuts``, see BendersOCTClassifier).  ``path_bound_cuts``: False, True (=
    "basic", cut (24) only), "negative", "structure" or "both".  The paper also turns on EQP
    inequalities (``eqp="recursive_da-group"``); in this SCIP implementation they slowed the
    solves we measured (14 instances of bench/accel_bendoct.py, depth 3, 60 s limit: 14 solved,
    median 0.25 s without; 12 solved, median 2.8 s with), so they are off by default.  Every
    switch can be changed for ablation; the optimal objective does not change.
    """

    # fixed for this estimator (class attributes, so they are not constructor parameters)
    penalty = "leaves"
    symmetry_breaking = True
    fractional_cuts = False

    _defaults: ClassVar[dict[str, Any]] = {**TREE_DEFAULTS, "depth": 3, "lam": 0.01,
                                            **BENDERS_DEFAULTS, **SIDE_DEFAULTS}
