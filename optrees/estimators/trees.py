"""scikit-learn estimators for the optimal-tree MIPs (FlowOCT, BendersOCT, BendOCT)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

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
    check_max_leaves,
    check_target,
    fit_weights,
)
from ..encoding.binary import Encoding, every_threshold, has_numeric_column
from ..models.result import FitResult
from ..trees.mip.accel.eqp import VARIANTS as EQP_VARIANTS
from ..trees.mip.accel.path_bound import VARIANTS as PB_VARIANTS
from ..trees.mip.benders import BendersOCT
from ..trees.mip.flow import FlowOCT
from ..trees.problem.fairness import record_tree_fairness
from ..trees.problem.tree_problem import TreeProblem
from ..trees.solve.fair_rashomon import MAX_STRUCTURES, build_fair_set
from ..trees.solve.fit import TreeFit, TreeMethod, fit_groups, min_leaf_rows, tree_fairness
from ..trees.solve.rashomon import (
    MAX_NODES,
    MAX_RASHOMON_DEPTH,
    RashomonSet,
    ThresholdLiterals,
    build_set,
    check_epsilon,
    check_threshold_depth,
)
from ._base import (
    Deadline,
    _BinaryInput,
    _TreePredictor,
    drop_weightless,
    fit_deadline,
    fit_frame,
    logged_fit,
    mark_numeric,
    stop_on_ctrl_c,
    store_result,
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
    SEARCH_N_JOBS,
    SIDE_DEFAULTS,
    SUBTREE_SEARCH,
    TREE_DEFAULTS,
    WARM_START,
)


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
    def fit(self, X: Any, y: Any, sample_weight: Any = None,
            groups: Any = None) -> _OptimalTreeClassifier:
        """Encode ``X``, solve the tree MIP within ``time_limit`` and set ``tree_`` and the
        fitted attributes (the best tree found, with its bound and gap); returns ``self``.

        ``sample_weight`` (one number >= 0 per row) and ``class_weight`` make "correct" the
        weight of the correctly classified rows: integer weights give the tree of duplicated
        rows (``min_samples_leaf`` counts rows, not weight: with it they may differ), weight 0
        the tree without the row.  ``groups``: the sensitive group of each row
        for ``fairness`` when it is not a column of X (``sensitive`` None), as in
        RUGClassifier.fit."""
        p = validate_params(self)
        deadline = fit_deadline(p.time_limit)
        df = fit_frame(self, X)
        classes, y_enc = check_target(y, df.shape[0])
        w = fit_weights(sample_weight, p.class_weight, classes, y_enc)
        groups = fit_groups(groups, p, df.shape[0], w)
        df, y_enc, w = drop_weightless(df, y_enc, w)
        result = self._solve(df, y_enc, w, classes, p, deadline, groups)
        self.classes_ = classes
        self.tree_ = mark_numeric(result.model, getattr(self, "encoder_", None))
        self.n_bb_nodes_ = result.stats["bb_nodes"]
        store_result(self, result, deadline, "returning the best tree found")
        record_tree_fairness(self, df, y_enc, w, groups)  # from predictions
        return self

    def _solve(self, df: Any, y: np.ndarray, w: np.ndarray | None, classes: np.ndarray,
               p: Params, deadline: Deadline, groups: np.ndarray | None = None) -> FitResult:
        """The fit in the trees room (:class:`~optrees.trees.solve.fit.TreeFit`: encoding, engine,
        objective); keeps the encoding predict needs.  Solvers stop at ``deadline`` or the
        first Ctrl-C."""
        return self._solve_encoding(df, y, w, classes, p, deadline, groups)[0]

    def _solve_encoding(self, df: Any, y: np.ndarray, w: np.ndarray | None,
                        classes: np.ndarray, p: Params, deadline: Deadline,
                        groups: np.ndarray | None = None) -> tuple[FitResult, Encoding]:
        """:meth:`_solve`, with the fit's :class:`Encoding` (its ``matrix`` included)."""
        method = TreeMethod(lambda problem: self._formulation(problem, p), self._search(p),
                            self._penalty(p), type(self).__name__)
        result, encoding = TreeFit(p, method, stop_on_ctrl_c).solve(
            df, y, w, classes, deadline, groups)
        self.binarizer_, self.encoder_ = encoding.binarizer, encoding.encoder
        self.feature_names_, self.negated_names_ = encoding.names, encoding.negated
        self._categories, self.thresholds_ = encoding.categories, encoding.thresholds
        self._tree_columns = encoding.columns
        return result, encoding

    def _search(self, p: Params) -> bool:
        """Whether the exact subtree search runs before the MIP (BendersOCT, BendOCT)."""
        return False

    def _fitted_frame(self, X: Any) -> Any:
        """X checked against the fit-time columns, without a dropped sensitive column."""
        df = super()._fitted_frame(X)
        columns = getattr(self, "_tree_columns", None)
        return df if columns is None else df[columns]


class FlowOCTClassifier(_OptimalTreeClassifier):
    """Optimal classification tree by the strong max-flow MIP FlowOCT ([FlowOCT] eq. 1),
    solved by SCIP.

    ``strengthen=True`` separates the cuts (4) of [FlowOCT] §2.2.3 at fractional nodes;
    ``symmetry_breaking=False`` gives eq. (1) exactly as printed (same optimum, slower).

    ``subtree_search`` (on by default) first solves the problem by the exact searches that
    :class:`BendersOCTClassifier` uses for the same objective: over every threshold of
    numeric columns (``binarizer="auto"``, depth ≤ 5, ``thresholds_ == "all"``, no MIP), or
    on the 0/1 columns with half of the time, its tree then starting the MIP and its bound
    capping it.  ``subtree_search=False`` is eq. (1) alone, over the binarizer's thresholds.
    """

    _parameters: ClassVar[dict[str, Param]] = {
        "strengthen": Param(Boolean(), "separate the cuts (4) at fractional nodes"),
        "subtree_search": SUBTREE_SEARCH,
        "n_jobs": SEARCH_N_JOBS,
    }

    _defaults: ClassVar[dict[str, Any]] = {**TREE_DEFAULTS, "symmetry_breaking": True,
                                            "strengthen": False, "subtree_search": True,
                                            **SIDE_DEFAULTS, "n_jobs": None}

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
    cuts (optrees.trees.mip.accel.split_bound): D2S bounds for every split of a node of height 3,
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
    (``optrees.trees.search.binary``: MurTree-style dynamic programming with bounds and a cache)
    with half of the time; when it proves the optimum no MIP is built (``stats_["search_*"]``
    say what it did, ``n_bb_nodes_`` is 0), otherwise its tree is the MIP's warm start and its
    bound caps the MIP's.  ``path_bound_cuts=False, polishing=False, split_bound_cuts=False,
    subtree_search=False`` is the published method.  ``n_jobs`` threads share the root
    features of that search (depth >= 4, or depth 3 on large tables; without a leaf budget or
    fairness), with one cache and incumbent: the same tree for every ``n_jobs``.

    Numeric columns over every threshold: with ``subtree_search`` on, ``binarizer="auto"``,
    depth ≤ 5 (≤ 4 with ``max_leaves``) and a numeric column that is not 0/1, the tree is
    found by the exact numeric search (``optrees.trees.solve.numeric``: every midpoint of
    every numeric column, categoricals one-hot, CART as the first incumbent) and tests
    ``x <= t`` on the raw values
    (``thresholds_ == "all"``, ``encoder_`` reads new tables).  No MIP runs then (one over
    every threshold is not practical): a search stopped by the time limit returns its best
    tree, never worse than CART (grown on a sample of the rows when too little time is left
    for CART on every row), with status "time_limit" and the search's valid bound.  An
    explicit ``binarizer``, ``subtree_search=False``, depth ≥ 6 or ``max_leaves`` at depth 5
    solves over the binarizer's thresholds (``thresholds_ == "binarized"``).
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
        "n_jobs": SEARCH_N_JOBS,
    }

    _defaults: ClassVar[dict[str, Any]] = {**TREE_DEFAULTS, "symmetry_breaking": True,
                                            "fractional_cuts": False, "penalty": "splits",
                                            **BENDERS_DEFAULTS, **SIDE_DEFAULTS,
                                            "n_jobs": None}

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


RASHOMON_KEEP_CELLS = 2_000_000
"""Largest rows x columns of a training table a fitted BendOCT keeps for :meth:`rashomon`
(a reference to the matrix the fit encoded: 0/1 bytes, or the encoder's floats, at most
16 MB)."""


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
                                            **BENDERS_DEFAULTS, **SIDE_DEFAULTS,
                                            "n_jobs": None}

    def _solve(self, df: Any, y: np.ndarray, w: np.ndarray | None, classes: np.ndarray,
               p: Params, deadline: Deadline, groups: np.ndarray | None = None) -> FitResult:
        """The fit; keeps a reference to the encoded training matrix the fit built (no copy,
        no second encoding), labels and weights for :meth:`rashomon` when the fit is over 0/1
        literals or every threshold without side objectives, else why not."""
        result, encoding = self._solve_encoding(df, y, w, classes, p, deadline, groups)
        side = [name for name in ("misclassification_costs", "feature_costs")
                if p.get(name) is not None]
        self._rashomon_fairness = None if p.get("fairness") is None else \
            tree_fairness(df, classes, p, groups)  # the set's cap, as the fit's
        if side:
            self._rashomon_data = side[0]
        elif df.shape[0] * df.shape[1] > RASHOMON_KEEP_CELLS:  # not kept: rashomon_set(X, y)
            self._rashomon_data = "too large"
        else:
            self._rashomon_data = None if encoding.matrix is None else (encoding.matrix, y, w)
        self._rashomon_encoder = self.encoder_
        if self._rashomon_fairness is not None and self.encoder_ is None and \
                isinstance(self._rashomon_data, tuple) and encoding.thresholds == "all":
            frame = df if encoding.columns is None else df[encoding.columns]
            if has_numeric_column(frame):
                # a fair optimum over every threshold (certified): the set is over them too
                self._rashomon_encoder = every_threshold(frame).encoder
                self._rashomon_data = (self._rashomon_encoder.transform(frame), y, w)
        return result

    def __getstate__(self) -> dict:
        """A pickle keeps the 0/1 training matrix as packed bits (8 rows a byte)."""
        state = super().__getstate__()
        data = state.get("_rashomon_data")
        if isinstance(data, tuple) and len(data) == 3 and \
                getattr(self, "_rashomon_encoder", self.encoder_) is None:
            matrix, y, w = data
            state["_rashomon_data"] = (np.packbits(matrix, axis=0), len(matrix), y, w)
        return state

    def __setstate__(self, state: dict) -> None:
        data = state.get("_rashomon_data")
        if isinstance(data, tuple) and len(data) == 4:  # packed by __getstate__
            packed, n, y, w = data
            state["_rashomon_data"] = (np.unpackbits(packed, axis=0, count=n), y, w)
        super().__setstate__(state)

    def rashomon(self, epsilon: float, *, additive: bool = False,
                 max_nodes: int = MAX_NODES,
                 max_structures: int = MAX_STRUCTURES) -> RashomonSet:
        """Every tree of the fit's depth, data, weights and ``min_samples_leaf`` whose
        objective (misclassification rate + lam * leaves, TreeFARMS's; ``1 - objective_``
        for the fitted tree) is at most ``(1 + epsilon)`` times the certified optimum (the
        optimum + ``epsilon`` when ``additive``), of at most ``max_leaves`` leaves, over the
        fit's 0/1 literals, or over every threshold of numeric columns (literals ``x > t``)
        for a fit over every threshold at depth <= 3; see :class:`optrees.trees.RashomonSet`.
        Needs a proved fit (``status_ == "optimal"``).

        A fit with ``fairness`` gives a :class:`~optrees.trees.FairRashomonSet`: every tree
        *with its leaf labels* (free, not each leaf's heaviest class) whose training gap of
        the notion is at most the fit's cap and whose objective is within the bound of the
        certified fair optimum; at most ``max_structures`` tree structures are checked."""
        check_is_fitted(self, "tree_")
        data = getattr(self, "_rashomon_data", None)
        if isinstance(max_structures, bool) or \
                not isinstance(max_structures, (int, np.integer)) or max_structures < 1:
            raise OptreesInputError(f"max_structures must be an integer >= 1, got "
                                    f"{max_structures!r}")
        if self.status_ != "optimal":
            raise OptreesInputError(
                f"the fit's status is {self.status_!r}, not 'optimal': the Rashomon set is "
                f"defined by the certified optimum; refit with a longer time_limit")
        if isinstance(data, str) or data is None:
            raise OptreesInputError(self._no_rashomon(data))
        if self.depth > MAX_RASHOMON_DEPTH:
            raise OptreesInputError(f"the Rashomon set is built at depth <= "
                                    f"{MAX_RASHOMON_DEPTH}, the fit's depth is {self.depth}")
        matrix, y, w = data
        w = np.ones(len(y)) if w is None else np.asarray(w, float)
        literals, encoder = None, getattr(self, "_rashomon_encoder", self.encoder_)
        if encoder is not None:  # every threshold of the encoder's numeric columns
            check_threshold_depth(self.depth)
            literals = ThresholdLiterals(encoder, matrix, self.depth)
            X01, names = literals.matrix, (literals.names, literals.negated)
        else:
            X01, names = matrix, (self.feature_names_, self.negated_names_)
        settings = (X01, y, w, self.classes_, names, self.depth, self.lam,
                    check_epsilon(epsilon), additive,
                    min_leaf_rows(self.min_samples_leaf, len(y)), 1.0 - self.objective_)
        fairness = getattr(self, "_rashomon_fairness", None)
        if fairness is not None:
            return build_fair_set(*settings, fairness, max_nodes, literals,
                                  check_max_leaves(self.max_leaves, self.depth),
                                  int(max_structures))
        return build_set(*settings, max_nodes, literals,
                         check_max_leaves(self.max_leaves, self.depth))


    def _no_rashomon(self, reason: str | None) -> str:
        """Why this fit has no Rashomon set, in one message."""
        if reason in ("misclassification_costs", "feature_costs"):
            return (f"this fit has {reason}: the Rashomon set is over TreeFARMS's objective "
                    "(misclassification rate + lam * leaves), not this fit's; refit without "
                    f"{reason}")
        if reason == "too large" and getattr(self, "_rashomon_fairness", None) is not None:
            return (f"this fair fit's training table has more than {RASHOMON_KEEP_CELLS:,} "
                    "cells, too many to keep in a fitted estimator, and the fair set is built "
                    "from a fitted one only: fit on fewer rows or columns")
        if reason == "too large":
            return (f"this fit's training table has more than {RASHOMON_KEEP_CELLS:,} cells, "
                    "too many to keep in every fitted estimator: call optrees.trees.rashomon_set"
                    "(X, y, depth=..., lam=..., epsilon=...) with the fit's data and parameters")
        return ("this fit kept no training matrix for the Rashomon set (refit it: a model "
                "loaded from a file or fitted by another version has none)")
