"""scikit-learn estimators for the optimal-tree MIPs (FlowOCT, BendersOCT, BendOCT)."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from .._validation import (
    OptreesInputError,
    check_depth,
    check_lam,
    check_target,
    check_time_limit,
)
from ..solvers.base import SolverOptions
from ..solvers.scip import ScipModel
from ..trees.accel.eqp import VARIANTS as EQP_VARIANTS
from ..trees.accel.path_bound import VARIANTS as PB_VARIANTS
from ..trees.benders import BendersOCT
from ..trees.flow import FlowOCT
from ..trees.formulation import (
    MAX_TREE_DEPTH,
    TREE_DEPTH_WHY,
    BuildTimeout,
    check_deadline,
    check_model_size,
)
from ..trees.problem import HeapTree, TreeProblem
from ..trees.warmstart import cart_heap_tree
from ._base import (
    FitInterrupted,
    _BinaryInput,
    _TreePredictor,
    build_deadline,
    check_seed,
    fit_frame,
    interruptible,
    logged_fit,
    solve_deadline,
    solver_time_left,
    warn_stopped,
)


class _OptimalTreeClassifier(_BinaryInput, _TreePredictor, ClassifierMixin, BaseEstimator):
    """Shared fit/predict for the strong-flow tree MIPs (objective (1) of flowoct-benders.txt).

    Fitted attributes: ``tree_`` (:class:`BinaryTree`), ``objective_`` ((1-lam)*correct -
    lam*splits of ``tree_`` on the training data), ``bound_`` (proven upper bound), ``gap_``,
    ``status_`` ("optimal", "time_limit", "interrupted" after Ctrl-C, ...),
    ``solve_seconds_`` (solver), ``fit_seconds_`` (everything), ``stats_``,
    ``n_features_in_``, ``feature_names_in_`` (string column names of a DataFrame X),
    ``classes_`` (sorted labels of any type).  ``time_limit`` counts from ``fit`` entry
    (binarization, warm start and model build included); the same ``random_state`` gives
    the same tree whenever the solve finishes (a time-limited solve is not reproducible).
    """

    def __init__(
        self,
        depth: int = 2,
        lam: float = 0.0,
        time_limit: float | None = 60.0,
        binarizer: Any = "auto",
        warm_start: bool = True,
        random_state: int | None = None,
        verbose: bool = False,
        symmetry_breaking: bool = True,
    ) -> None:
        self.depth = depth
        self.lam = lam
        self.time_limit = time_limit
        self.binarizer = binarizer
        self.warm_start = warm_start
        self.random_state = random_state
        self.verbose = verbose
        self.symmetry_breaking = symmetry_breaking

    def _formulation(self, problem: TreeProblem):  # pragma: no cover - abstract
        raise NotImplementedError

    def _penalty(self) -> str:
        return "splits"

    @logged_fit
    def fit(self, X: Any, y: Any) -> _OptimalTreeClassifier:
        """Binarize ``X``, solve the tree MIP within ``time_limit`` and set ``tree_`` and the
        fitted attributes (the best tree found, with its bound and gap); returns ``self``."""
        t0 = time.perf_counter()
        depth = check_depth(self.depth, MAX_TREE_DEPTH, TREE_DEPTH_WHY)
        lam = check_lam(self.lam)
        limit = check_time_limit(self.time_limit)
        seed = check_seed(self.random_state)
        penalty = self._penalty()
        deadline = solve_deadline(t0, limit)
        df = fit_frame(self, X)
        classes, y_enc = check_target(y, df.shape[0])
        Xb = self._fit_binary(df)
        self.classes_ = classes
        problem = TreeProblem(Xb, y_enc, len(self.classes_), depth, lam, penalty)
        form = self._formulation(problem)
        check_model_size(form.model_size(), f"{type(self).__name__} at depth {depth} on "
                         f"{problem.n_samples} samples x {problem.n_features} binary features")

        # From here on a model exists (or is being searched): Ctrl-C returns the best one.
        with interruptible() as stop:
            start = cart_heap_tree(problem, seed) if self.warm_start else None
            model = ScipModel(SolverOptions(seed=seed, verbose=self.verbose))
            result = None
            try:
                t_build = time.perf_counter()
                with stop.abortable():  # Ctrl-C while building: stop with the warm start
                    form.build(model, deadline=build_deadline(deadline, t_build))
                    if start is not None:
                        check_deadline(deadline)  # no time left to polish the start
                        start = form.improve_start(start)
                        model.add_start(form.start_values(start))
                remaining = solver_time_left(deadline, t_build)
                if (remaining is None or remaining > 0) and not stop.requested:
                    # SCIP catches SIGINT itself and stops with status "interrupted"
                    result = model.solve(remaining)
            except (BuildTimeout, FitInterrupted):
                result = None
            finally:
                model.free()  # within the time limit (build_deadline keeps time for it)

        best = start
        if result is not None and result.values is not None:
            found = form.tree_from_values(result.values).pruned(problem)
            if best is None or found.objective(problem) >= best.objective(problem) - 1e-9:
                best = found
        if best is None:  # no solution at all (time limit before the first incumbent)
            best = HeapTree(np.full(problem.n_internal, -1),
                            np.full(problem.n_nodes, int(np.argmax(problem.class_counts()))))
        self._set_result(problem, best, result, form, t0, stop.requested)
        return self

    def _set_result(self, problem, best, result, form, t0, interrupted=False) -> None:
        tree = best.to_binary_tree(self.classes_)
        tree.feature_names = list(self.feature_names_)
        tree.negated_names = list(self.negated_names_)
        tree.set_counts(problem.X, problem.y)
        self.tree_ = tree
        self.objective_ = float(best.objective(problem))
        self.status_ = result.status if result is not None else "time_limit"
        if interrupted:  # Ctrl-C outside SCIP (SCIP reports "interrupted" itself)
            self.status_ = "interrupted"
        bound = result.bound if result is not None else None
        if self.status_ == "optimal":
            bound = self.objective_ if bound is None else min(bound, self.objective_)
        self.bound_ = float(bound) if bound is not None else float("inf")
        diff = self.bound_ - self.objective_
        if diff <= 1e-6:
            self.gap_ = 0.0
        else:
            self.gap_ = diff / abs(self.objective_) if abs(self.objective_) > 1e-9 else np.inf
        self.solve_seconds_ = result.seconds if result is not None else 0.0
        self.fit_seconds_ = time.perf_counter() - t0
        self.n_bb_nodes_ = result.nodes if result is not None else 0
        self.stats_ = getattr(form, "stats", {})
        if self.status_ != "optimal":
            warn_stopped(self, self.status_, self.fit_seconds_,
                         f"returning the best tree found (objective {self.objective_:g}, "
                         f"gap {self.gap_:.2%})", stacklevel=5)


class FlowOCTClassifier(_OptimalTreeClassifier):
    """Optimal classification tree by the strong max-flow MIP FlowOCT (eq. 1), solved by SCIP.

    ``strengthen=True`` separates the cuts (4) of §2.2.3 at fractional nodes;
    ``symmetry_breaking=False`` gives eq. (1) exactly as printed (same optimum, slower).
    """

    def __init__(
        self,
        depth: int = 2,
        lam: float = 0.0,
        time_limit: float | None = 60.0,
        binarizer: Any = "auto",
        warm_start: bool = True,
        random_state: int | None = None,
        verbose: bool = False,
        symmetry_breaking: bool = True,
        strengthen: bool = False,
    ) -> None:
        super().__init__(depth, lam, time_limit, binarizer, warm_start, random_state, verbose,
                         symmetry_breaking)
        self.strengthen = strengthen

    def _formulation(self, problem: TreeProblem) -> FlowOCT:
        return FlowOCT(problem, strengthen=bool(self.strengthen),
                       symmetry_breaking=bool(self.symmetry_breaking))


class BendersOCTClassifier(_OptimalTreeClassifier):
    """Optimal classification tree by Benders decomposition of FlowOCT (eq. 8, Prop. 1).

    ``penalty="splits"`` (default) maximizes (1 - lam) * correct - lam * splits as in
    flowoct-benders.txt; ``penalty="leaves"`` maximizes accuracy - lam * leaves, the BendOCT
    model of accelerated-bendoct.txt (§4); ``objective_`` is reported in the chosen units.

    By default two techniques of accelerated-bendoct.txt that do not change the optimum are on,
    for either penalty: path-bound cutting planes (§5.4) and solution polishing (§5.2).  They
    make the proof of optimality much faster (balance-scale, 312 rows, 5 splits, loaded
    machine: depth 2, 3-12 s -> at most 0.16 s; depth 3, lam = 0: no proof in 300 s ->
    0.8-1.0 s).  ``split_bound_cuts`` (on by default) adds our extension of the path-bound
    cuts (optrees.trees.accel.split_bound): D2S bounds for every split of a node of height 3,
    which proves depth-3 optima at the root node and many depth-4 optima in seconds.
    ``path_bound_cuts=False, polishing=False, split_bound_cuts=False`` gives the method of
    flowoct-benders.txt exactly as published.
    Further switches: ``strengthened_cuts`` (§5.1), ``eqp`` (§5.3: "H-G" with H in basic (16),
    chain (18), chain_da (19), recursive (20), recursive_da (21) and G in basic (17), group
    (22), e.g. "recursive_da-group"; ``eqp_max_split`` = max ``|F*|``) and the path-bound
    variant (True or "basic" = cut (24); "negative" adds (25), "structure" (26), "both" both).
    With any of them on, the master uses the leaf structure (3b)-(3g), which expresses the
    split penalty exactly (a tree has one leaf more than splits).

    ``fractional_cuts=True`` also separates min-cut inequalities at fractional LP solutions;
    ``symmetry_breaking=False`` gives eq. (8) exactly as printed (same optimum, slower).
    """

    def __init__(
        self,
        depth: int = 2,
        lam: float = 0.0,
        time_limit: float | None = 60.0,
        binarizer: Any = "auto",
        warm_start: bool = True,
        random_state: int | None = None,
        verbose: bool = False,
        symmetry_breaking: bool = True,
        fractional_cuts: bool = False,
        penalty: str = "splits",
        polishing: bool = True,
        path_bound_cuts: bool | str = "both",
        strengthened_cuts: bool = False,
        eqp: str | None = None,
        eqp_max_split: int = 2,
        split_bound_cuts: bool = True,
    ) -> None:
        super().__init__(depth, lam, time_limit, binarizer, warm_start, random_state, verbose,
                         symmetry_breaking)
        self.fractional_cuts = fractional_cuts
        self.penalty = penalty
        self.polishing = polishing
        self.path_bound_cuts = path_bound_cuts
        self.strengthened_cuts = strengthened_cuts
        self.eqp = eqp
        self.eqp_max_split = eqp_max_split
        self.split_bound_cuts = split_bound_cuts

    def _penalty(self) -> str:
        if self.penalty not in ("splits", "leaves"):
            raise OptreesInputError(f"penalty must be 'splits' or 'leaves', got {self.penalty!r}")
        if not (isinstance(self.path_bound_cuts, bool) or self.path_bound_cuts in PB_VARIANTS):
            raise OptreesInputError(f"path_bound_cuts must be a bool or one of {PB_VARIANTS}, "
                                    f"got {self.path_bound_cuts!r}")
        if self.eqp is not None and self.eqp not in EQP_VARIANTS:
            raise OptreesInputError(f"eqp must be None or one of {EQP_VARIANTS}, got {self.eqp!r}")
        if not isinstance(self.eqp_max_split, int) or not 0 <= self.eqp_max_split <= 3:
            raise OptreesInputError(
                f"eqp_max_split must be an integer in 0..3, got {self.eqp_max_split!r}"
            )
        return self.penalty

    def _formulation(self, problem: TreeProblem) -> BendersOCT:
        return BendersOCT(problem, fractional_cuts=bool(self.fractional_cuts),
                          symmetry_breaking=bool(self.symmetry_breaking),
                          polishing=bool(self.polishing),
                          path_bound_cuts=self.path_bound_cuts or False,
                          strengthened_cuts=bool(self.strengthened_cuts),
                          eqp=self.eqp, eqp_max_split=self.eqp_max_split,
                          split_bound_cuts=bool(self.split_bound_cuts))


class BendOCTClassifier(BendersOCTClassifier):
    """Accelerated BendOCT (accelerated-bendoct.txt): accuracy - lam * leaves, with path-bound
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

    def __init__(
        self,
        depth: int = 3,
        lam: float = 0.01,
        time_limit: float | None = 60.0,
        binarizer: Any = "auto",
        warm_start: bool = True,
        random_state: int | None = None,
        verbose: bool = False,
        polishing: bool = True,
        path_bound_cuts: bool | str = "both",
        strengthened_cuts: bool = False,
        eqp: str | None = None,
        eqp_max_split: int = 2,
        split_bound_cuts: bool = True,
    ) -> None:
        self.depth = depth
        self.lam = lam
        self.time_limit = time_limit
        self.binarizer = binarizer
        self.warm_start = warm_start
        self.random_state = random_state
        self.verbose = verbose
        self.polishing = polishing
        self.path_bound_cuts = path_bound_cuts
        self.strengthened_cuts = strengthened_cuts
        self.eqp = eqp
        self.eqp_max_split = eqp_max_split
        self.split_bound_cuts = split_bound_cuts
