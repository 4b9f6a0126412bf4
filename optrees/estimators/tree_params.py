"""The parameter tables and constructor defaults of the tree MIP estimators (FlowOCT,
BendersOCT, BendOCT, OCT, BinOCT): one line per parameter, read by the estimators, the
command line and the docs."""

from __future__ import annotations

from typing import Any

from .._params import (
    Boolean,
    Check,
    Either,
    Integer,
    Options,
    Param,
    Real,
    as_given,
    optional,
)
from .._validation import check_depth
from ..trees.mip.formulation import MAX_TREE_DEPTH, TREE_DEPTH_WHY
from ..trees.problem.fairness import FAIRNESS


def _binarizer(value: Any) -> Any:
    if value is None or (isinstance(value, str) and value == "auto") or hasattr(
            value, "fit_transform"):
        return value
    raise ValueError


BINARIZER = Param(Check("'auto', None or a Binarizer", _binarizer),
                  "how raw columns become 0/1 features ('auto': one-hot / thresholds at "
                  "quantiles, or every threshold with the subtree search; None: X is "
                  "already 0/1)", cli="")
DEPTH = Param(Check("an integer >= 1", lambda v: check_depth(v, MAX_TREE_DEPTH, TREE_DEPTH_WHY)),
              "depth of the tree (number of tests on the longest path)")
SUBTREE_SEARCH = Param(Boolean(), "solve by the exact searches first (every threshold of "
                       "numeric columns at depth <= 5; else dynamic programming over the 0/1 "
                       "columns with bounds and a cache); the MIP runs only when they prove "
                       "nothing within half of the time")
WARM_START = Param(Boolean(), "start the solver from CART of the same depth",
                   cli="--no-warm-start")
MIN_SAMPLES_LEAF = Param(Either(Integer(1), Real(0.0, 1.0, low_open=True, high_open=True)),
                         "fewest training rows on each side of a split: a count, or a "
                         "fraction of the rows (rows, not weight, as in scikit-learn)")
MAX_LEAVES = Param(optional(Integer(1)), "most leaves of the tree (None: 2^depth)")


N_JOBS_RULE = optional(Either(Integer(1), Integer(None, -1)))
"""``n_jobs`` as scikit-learn reads it: None, k >= 1, or -1 for every core (-2 all but one)."""
SEARCH_N_JOBS = Param(N_JOBS_RULE, "threads of the exact 0/1 search's root (-1: every core; "
                      "the same tree for any value)")


FAIRNESS_PARAMS = {
    "fairness": Param(optional(Options(*FAIRNESS)), "group-fairness constraint of the tree "
                      "on the training data (needs --sensitive)"),
    "epsilon": Param(Real(0.0, 1.0), "largest gap between two groups the fairness constraint "
                     "allows"),
    "sensitive": Param(Check("None or a column name of X", as_given),
                       "sensitive attribute column (its groups are compared)"),
    "positive_class": Param(Check("None or a class of y", as_given),
                            "the class whose predictions fairness compares (None: the last "
                            "class)"),
    "legitimate": Param(Check("None or a column name of X", as_given),
                        "legitimate attribute column of conditional_parity (parity within "
                        "each of its values)"),
    "drop_sensitive": Param(Boolean(), "keep the sensitive column out of the tree's tests"),
}
TREE_DEFAULTS = {"depth": 2, "lam": 0.0, "time_limit": 60.0, "binarizer": "auto",
                 "warm_start": True, "random_state": None, "verbose": False}
"""Constructor defaults every tree MIP estimator shares (first in its signature)."""
SIDE_DEFAULTS = {"class_weight": None, "min_samples_leaf": 1, "max_leaves": None,
                 "fairness": None, "epsilon": 0.05, "sensitive": None, "positive_class": None,
                 "legitimate": None, "drop_sensitive": False, "misclassification_costs": None,
                 "feature_costs": None}
"""Constructor defaults of the weights, side constraints and objective (last in a
signature)."""
BENDERS_DEFAULTS = {"polishing": True, "path_bound_cuts": "both", "strengthened_cuts": False,
                    "eqp": None, "eqp_max_split": 2, "split_bound_cuts": True,
                    "subtree_search": True}
"""Constructor defaults of BendersOCT's and BendOCT's accelerations."""
MISCLASSIFICATION_COSTS = Param(
    Check("None, a K x K matrix or a dict {(true, predicted): cost}", as_given),
    "cost of predicting each class for a row of each class (rows: true class, in the order "
    "of classes_; a dict's missing pairs: 0 on the diagonal, 1 off it); the tree minimises "
    "its total cost plus the penalty", cli="")
FEATURE_COSTS = Param(
    Check("None or a dict {column name: cost}", as_given),
    "cost paid by each row for each distinct column tested on its path (in units of one "
    "misclassified row; columns not named cost 0); solved over 0/1 columns by the subtree "
    "search, numeric columns binarized", cli="")
