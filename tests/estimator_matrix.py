"""The one list of estimators every shared test runs on (scikit-learn checks, bad input,
determinism, time limit, Ctrl-C).  Adding an estimator = adding one ``Spec`` line to SPECS
(a classifier) or REGRESSOR_SPECS (a regressor: the same concerns on a numeric target, in
test_regressor_matrix.py, which says row by row what applies); survival and policy trees are
in TASK_SPECS (test_task_matrix.py: the concerns that apply to their own targets).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from sklearn.ensemble import _forest

from optrees import (  # the classes of optrees.registry (test_registry checks)
    BendersOCTClassifier,
    BendOCTClassifier,
    BinOCTClassifier,
    CGHClassifier,
    FlowOCTClassifier,
    OCTClassifier,
    OMTClassifier,
    OMTRegressor,
    OptimalPolicyTree,
    OptimalSurvivalTree,
    OptimalTreeRegressor,
    RobustTreeClassifier,
    RUGClassifier,
    RUXClassifier,
)


def integer_table(X: Any) -> Any:
    """``X`` for an estimator of integer features only: each column of a table that is not
    integer-valued replaced by its values' ranks (0, 1, ... in sorted order)."""
    if not isinstance(X, pd.DataFrame):
        return X
    out = X.copy()
    for name in out.columns:
        col = out[name]
        numeric = pd.api.types.is_numeric_dtype(col)
        if not numeric or not (col.dropna() == col.dropna().round()).all():
            out[name] = pd.Categorical(col if numeric else col.astype(str)).codes.astype(
                np.int64)
    return out


@dataclass(frozen=True)
class Spec:
    """How the shared tests drive one estimator class.

    fast:    parameters of a quick instance (small depth, short time limit): used by
             check_estimator and the bad-input table.
    exact:   parameters of an instance that finishes (optimal / converged) within seconds on
             monk3: the determinism tests (a time-limited solve is not reproducible).
    hard:    parameters of an instance that cannot finish on ``hard_data`` within its
             ``time_limit`` (time-limit and Ctrl-C tests); None = not tested there.
    backend: the solver doing the heavy lifting ("scip" / "highs"), for the Ctrl-C test.
    depth:   name of the depth-like parameter (rules: max_depth).
    expected_failed_checks: scikit-learn checks this estimator fails, with the reason.
    task:    "classification", "regression", "survival" or "policy" (optrees.registry's
             Method.task).
    integer_features: the estimator takes integer features only (robust trees): the shared
             tests give it ``integer_table(X)`` where they would use string columns.
    """

    cls: type
    fast: dict[str, Any]
    exact: dict[str, Any] = field(default_factory=dict)
    hard: dict[str, Any] | None = None
    hard_data: str = "kr-vs-kp"
    backend: str = "scip"
    depth: str = "depth"
    expected_failed_checks: dict[str, str] = field(default_factory=dict)
    task: str = "classification"
    integer_features: bool = False

    @property
    def id(self) -> str:
        return self.cls.__name__

    def make(self, **overrides: Any):
        """An instance with ``fast`` and ``overrides``; ``random_state`` only for an
        estimator that has one (an exact search without randomness has none)."""
        params = inspect.signature(self.cls).parameters
        if "random_state" not in params:
            overrides.pop("random_state", None)
        return self.cls(**{**self.fast, **overrides})


# check_fit_idempotent fits twice and compares: only a solve that finishes is reproducible
# (what SCIP finds before a time limit depends on the machine's load; CI once failed on it).
# BendersOCT / BendOCT prove depth 2 by the subtree search within milliseconds; the pure MIPs
# FlowOCT, BinOCT and OCT run check_estimator at depth 1, which SCIP proves within 2.5 s on
# every check's data (measured; the 30 s limit only guards against a stuck solve).
_TREE_FAST = dict(depth=2, time_limit=0.3)
_MIP_CHECK = dict(depth=1, time_limit=30)
# scikit-learn 1.6 (the lowest version we support) runs this check whatever the estimator's
# sparse tag says; sparse X is refused with one clear message (newer versions skip it)
_SPARSE_WEIGHTS = {
    "check_sample_weight_equivalence_on_sparse_data":
        "sparse X is refused with a clear error; scikit-learn 1.6 runs the check regardless"}
# class weights {0: 1000, others: 1e-4} are honoured exactly: with no split penalty the
# optimum spends its spare leaves on pure minority leaves, which also catch class-0 test
# points (BendOCT's default leaf penalty of 0.01 keeps them merged; with lam = 0.001 FlowOCT
# and OCT pass: test_sklearn_compat.py).  Binarizing with CART's cuts (binarizer="auto")
# gives the depth-1 MIPs the cut that isolates such a leaf.
_EXACT_WEIGHTS = {
    "check_class_weight_classifiers":
        "the exact weighted optimum (lam = 0) isolates pure minority leaves; the check needs "
        "min_weight_fraction_leaf, which the tree MIPs do not have"}
_DEPTH_ONE_FAILS = {
    "check_classifiers_train":
        "a depth-1 tree has two leaves: it cannot separate the check's three classes to the "
        "83 % accuracy the check asks for",
    **_EXACT_WEIGHTS, **_SPARSE_WEIGHTS}

# newer scikit-learn (1.9.1 here, not 1.6.1) draws a forest's bootstrap rows by sample_weight
_WEIGHTED_BOOTSTRAP = "sample_weight" in inspect.signature(
    _forest._generate_sample_indices).parameters

# the scikit-learn checks that fit only on real-valued X (robust trees take integer features)
_REAL_X = ("fits on real-valued X; robust trees take integer (ordinal) features (Justin et "
           "al.'s model) and refuse it with one clear error")
ROBUST_FLOAT_CHECKS = (
    "check_classifiers_classes", "check_classifiers_one_label_sample_weights",
    "check_classifiers_train", "check_dict_unchanged", "check_dont_overwrite_parameters",
    "check_dtype_object", "check_estimators_dtypes", "check_estimators_fit_returns_self",
    "check_estimators_nan_inf", "check_estimators_overwrite_params",
    "check_estimators_pickle", "check_f_contiguous_array_estimator", "check_fit2d_1feature",
    "check_fit2d_predict1d", "check_fit_check_is_fitted", "check_fit_idempotent",
    "check_fit_score_takes_y", "check_methods_sample_order_invariance",
    "check_methods_subset_invariance", "check_n_features_in",
    "check_n_features_in_after_fitting", "check_pipeline_consistency",
    "check_positive_only_tag_during_fit", "check_readonly_memmap_input",
    "check_sample_weight_equivalence_on_dense_data", "check_sample_weights_list",
    "check_supervised_y_2d")

SPECS: list[Spec] = [
    # FlowOCT without its exact searches: the MIP of eq. (1) (with them it solves as
    # BendersOCT does, checked below)
    Spec(FlowOCTClassifier, {**_MIP_CHECK, "subtree_search": False},
         exact=dict(depth=1, time_limit=60, subtree_search=False),
         hard=dict(depth=3, time_limit=3.0, subtree_search=False),
         expected_failed_checks=_DEPTH_ONE_FAILS),
    # depth 8 without a penalty: the subtree search proves kr-vs-kp at depth 5 in 1.6 s, not
    # at depth 8 in 20 s (the split-bound cuts alone prove depth 3 in 0.3 s)
    Spec(BendersOCTClassifier, _TREE_FAST, exact=dict(depth=2, time_limit=60),
         hard=dict(depth=8, lam=0.0, time_limit=3.0),
         expected_failed_checks={**_EXACT_WEIGHTS, **_SPARSE_WEIGHTS}),
    Spec(BendOCTClassifier, _TREE_FAST, exact=dict(depth=2, time_limit=60),
         hard=dict(depth=8, lam=0.0, time_limit=3.0), expected_failed_checks=_SPARSE_WEIGHTS),
    Spec(RUGClassifier, dict(max_depth=2, max_rmp_calls=5, time_limit=5), backend="highs",
         depth="max_depth", exact=dict(max_depth=3, time_limit=60),
         hard=dict(max_depth=8, max_rmp_calls=10_000, pen_par=0.01, time_limit=2.5),
         hard_data="magic",  # converges on kr-vs-kp in about 1.2 s
         # check_sample_weight_equivalence_on_dense_data passes since tree pricing keeps one
         # column per training coverage (issue #22); tree pricing stays a heuristic whose
         # float ties may differ on weighted and on repeated rows (test_sample_weight.py)
         expected_failed_checks=_SPARSE_WEIGHTS),
    # RUX fits its own random forest (10 trees of depth 2) and solves one LP; a forest's
    # bootstrap draws rows, so a weight of 2 is not the same as a repeated row
    Spec(RUXClassifier, dict(n_estimators=10, max_depth=2, time_limit=5), backend="highs",
         depth="max_depth", exact=dict(n_estimators=20, max_depth=3, time_limit=60),
         expected_failed_checks={
             **_SPARSE_WEIGHTS,
             "check_sample_weight_equivalence_on_dense_data":
                 "the random forest RUX fits draws bootstrap rows: a row of weight 2 and a "
                 "repeated row give different forests (scikit-learn's own forest fails "
                 "this check too)",
             **({} if _WEIGHTED_BOOTSTRAP else {"check_class_weight_classifiers":
                 "before scikit-learn drew a forest's bootstrap rows by their weights (1.6 "
                 "here), the forest RUX fits keeps leaves of the weighted-out classes and "
                 "the LP keeps their pure, nearly free rules: 3 blobs, class 0 is 70-82 % "
                 "of the test predictions, not the 87 % the check asks"})}),
    # a 5 s limit: CGH converges here in 0.1-0.2 s, but under load a 1 s limit stopped its
    # split sampling at a share of it, and check_fit_idempotent saw two different trees
    Spec(CGHClassifier, dict(depth=2, tau=20, time_limit=5.0), backend="highs",
         exact=dict(depth=2, time_limit=60),
         hard=dict(depth=4, tau=100, time_limit=2.5), hard_data="spambase",
         expected_failed_checks={
             "check_class_weight_classifiers":
                 "as BendersOCT's: the weighted training optimum (no leaf penalty) spends "
                 "leaves on pure minority leaves, which also catch class-0 test points",
             **_SPARSE_WEIGHTS}),
    # OCT at depth 2 needs about 6 s per check to finish (see _MIP_CHECK)
    Spec(OCTClassifier, _MIP_CHECK, exact=dict(depth=1, time_limit=60),
         hard=dict(depth=3, time_limit=2.5), expected_failed_checks=_DEPTH_ONE_FAILS),
    Spec(BinOCTClassifier, _MIP_CHECK, exact=dict(depth=1, time_limit=60),
         hard=dict(depth=3, time_limit=2.5), expected_failed_checks=_DEPTH_ONE_FAILS),
    Spec(OMTClassifier, dict(depth=2, k_best=50, time_limit=5),
         backend="highs", exact=dict(depth=2, time_limit=60),
         # "auto": with the default penalty kr-vs-kp's generation can end within 2.5 s
         # ("stalled" once its exact round is cut by its share of the time)
         hard=dict(depth=4, k_best=1000, leaf_penalty="auto", time_limit=2.5),
         hard_data="kr-vs-kp", expected_failed_checks=_SPARSE_WEIGHTS),
    # integer (ordinal) features only, the model of Justin et al.; an exact search, no solver.
    # The checks below fit on real-valued X, which it refuses with one clear error; on the
    # same data coded as integers it passes every check (test_robust_sklearn.py)
    Spec(RobustTreeClassifier, dict(depth=2, budget=1.0, time_limit=5),
         exact=dict(depth=2, budget=2.0, time_limit=60),
         hard=dict(depth=3, budget=49.3, time_limit=2.5), hard_data="balance-scale",
         backend="search", integer_features=True,
         expected_failed_checks={**dict.fromkeys(ROBUST_FLOAT_CHECKS, _REAL_X),
                                 **_SPARSE_WEIGHTS}),
]

SPEC_IDS = [s.id for s in SPECS]

REGRESSOR_SPECS: list[Spec] = [
    # depth 3 on 1,000 rows of 12 numeric columns is not proved within 3 s (the search is
    # stopped after its first intervals); "hard_data" names the generated table of
    # test_regressor_matrix.hard_regression
    Spec(OptimalTreeRegressor, dict(depth=2, time_limit=5), exact=dict(depth=2, time_limit=60),
         hard=dict(depth=3, time_limit=2.5), hard_data="synthetic-1000x12", backend="search",
         expected_failed_checks=_SPARSE_WEIGHTS, task="regression"),
    Spec(OMTRegressor, dict(depth=2, k_best=50, time_limit=5), backend="highs",
         exact=dict(depth=2, time_limit=60), hard=dict(depth=4, time_limit=2.5),
         hard_data="synthetic-1000x12", expected_failed_checks=_SPARSE_WEIGHTS,
         task="regression"),
]
REGRESSOR_IDS = [s.id for s in REGRESSOR_SPECS]

TASK_SPECS: list[Spec] = [
    # "hard_data" names the generated table of test_task_matrix.hard_table (2,000 rows of 10
    # numeric columns: depth 3 is not proved within 1 ms)
    Spec(OptimalSurvivalTree, dict(depth=2, time_limit=5), exact=dict(depth=2, time_limit=60),
         hard=dict(depth=3, time_limit=0.001), hard_data="synthetic-2000x10",
         backend="search", task="survival"),
    Spec(OptimalPolicyTree, dict(depth=2, time_limit=5, teacher="ipw"),
         exact=dict(depth=2, time_limit=60, teacher="ipw"),
         hard=dict(depth=3, time_limit=0.001, teacher="ipw"), hard_data="synthetic-2000x10",
         task="policy"),
]
TASK_IDS = [s.id for s in TASK_SPECS]
