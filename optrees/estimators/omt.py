"""OMTClassifier / OMTRegressor: optimal multiway-split trees by column generation ([OMT],
solved in :mod:`optrees.omt`).

Raw columns are used directly: categorical columns give one graph node per value, numeric
columns are cut into ``n_bins`` quantile bins (``binning="cumulative"``: every run of bins is a
node, [OMT] §5); by default ("auto") more bins on more rows, plus a CART tree's thresholds.
The fitted ``tree_`` is a :class:`MultiwayTree` that predicts on raw tables.
(Over 400 lines: the table of the 30 parameters and the user documentation of both classes.)
"""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

from .._params import (
    RANDOM_STATE,
    TIME_LIMIT,
    VERBOSE,
    Boolean,
    Check,
    Either,
    GeneratedInit,
    Integer,
    Options,
    Param,
    Params,
    Real,
    class_weight_value,
    optional,
    validate_params,
)
from .._validation import (
    OptreesInputError,
    check_regression_target,
    check_target,
    class_weights,
    fit_weights,
)
from ..models.result import FitResult
from ..omt.fit import OMTFit, rule_limit
from ..omt.solve import bound_text
from ._base import (
    Deadline,
    _TreeOutput,
    drop_weightless,
    fit_deadline,
    fit_frame,
    logged_fit,
    predict_frame,
    stop_on_ctrl_c,
    user_stacklevel,
    warn_stopped,
    warn_unseen,
)

_CLS_LOSSES = ("misclassification", "weighted", "f1")
_REG_LOSSES = ("squared", "absolute")


# ------------------------------------------------------------------------------ rules
@dataclass(frozen=True)
class _Finite(Real):
    """A finite number (a plain :class:`Real` lets +-inf through when no bound refuses it)."""

    def describe(self) -> str:
        if self.low is None and self.high is None:
            return "a finite number"
        return super().describe()

    def convert(self, value: Any) -> float:
        v = super().convert(value)
        if not math.isfinite(v):
            raise ValueError
        return v


@dataclass(frozen=True)
class _Support(Real):
    """min_support: a fraction of the training samples in (0, 1) or a count >= 1 (returned
    as given; the count follows from the number of samples at fit time)."""

    def describe(self) -> str:
        return "a fraction in (0, 1) or a count >= 1"

    def convert(self, value: Any) -> Any:
        if (isinstance(value, bool) or not isinstance(value, numbers.Real)
                or not value > 0 or not math.isfinite(value)):
            raise ValueError
        if (isinstance(value, numbers.Integral) or value >= 1) and float(value) != int(value):
            raise OptreesInputError(f"min_support >= 1 must be an integer, got {value!r}")
        return value


def _dict_or_none(value: Any) -> Any:
    if value is None or isinstance(value, dict):
        return value
    raise ValueError


def _as_given(value: Any) -> Any:  # checked against the feature graph at fit time
    return value


_OMT_PARAMETERS: dict[str, Param] = {
    "depth": Param(Integer(1), "maximum rule length (depth of the multiway tree)"),
    "leaves": Param(optional(Integer(1)), "maximum number of rules l (None: 2^depth)"),
    "min_support": Param(_Support(), "training samples per rule: a fraction (< 1) or a count"),
    "n_bins": Param(Either(Options("auto"), Integer(2)), "quantile bins of numeric columns "
                    "(auto: more with more rows, plus a CART tree's thresholds)",
                    cli="--bins-omt"),
    "binning": Param(Options("cumulative", "plain"), "numeric bins as every run of bins "
                     "(cumulative, [OMT] §5) or single bins"),
    "categorical_nodes": Param(Options("values", "complements", "subsets"),
                               "graph nodes of a categorical column: one per value (the "
                               "paper), also '!= v', or every value subset (<= 5 values)"),
    "ordinal": Param(Either(Options("auto"), Boolean()),
                     "categories as ordered intervals: auto = ordered categoricals, on = also "
                     "numeric-valued categories, off = none"),
    "feature_order": Param(Check("None or a list of column names", _as_given),
                           "graph level order (attribute hierarchy); None: the table's order",
                           cli=""),
    "feature_costs": Param(Check("None or a dict {feature: cost}", _dict_or_none),
                           "feature-acquisition cost of each feature", cli=""),
    "rule_budget": Param(optional(_Finite()), "largest cost of one rule (needs feature_costs)",
                         cli=""),
    "total_budget": Param(optional(_Finite()), "largest total cost of the selected rules "
                          "(needs feature_costs)", cli=""),
    "constraints": Param(Check("None or a list of dicts {'coef', 'const', 'lower', 'upper'}",
                               _as_given), "linear constraints over the selected rules "
                         "([OMT] §5)", cli=""),
    "forbidden": Param(Check("None or a list of feature lists", _as_given),
                       "feature combinations no rule may use together", cli=""),
    "requires": Param(Check("None or a dict {feature: features}", _as_given),
                      "features that must precede a feature on a rule", cli=""),
    "k_best": Param(Integer(1), "paths per pricing round (K)"),
    "beam": Param(optional(Integer(1)), "partial paths kept per DP level of heuristic "
                  "pricing (None: k_best)"),
    "exact_pricing": Param(Boolean(), "exact K-shortest-path pricing", cli="--omt-exact"),
    "max_iter": Param(Integer(0), "column-generation rounds"),
    "max_columns": Param(Integer(1), "largest number of generated columns"),
    "max_stall": Param(Integer(0), "heuristic pricing: stop after this many rounds without "
                       "the LP value falling by cg_tol (0: never)"),
    "cg_tol": Param(_Finite(), "relative tolerance of the column-generation stopping tests"),
    "mip_gap": Param(_Finite(), "relative gap of the master MIP"),
    "tie_break": Param(_Finite(), "extra cost of rule length, at most this in total (ties go "
                       "to smaller trees)"),
    "leaf_penalty": Param(optional(Either(Options("auto"), _Finite(0.0, math.inf))),
                          "cost per rule in error rate (None: min(0.02, 1/sqrt(n)) for "
                          "classification, 0 with loss='f1', auto for regression; 0 = the "
                          "paper; auto: chosen on a validation part of the training data)"),
    "time_limit": TIME_LIMIT,
    "random_state": RANDOM_STATE,
    "verbose": VERBOSE,
}


# ------------------------------------------------------------------------------ estimators
# GeneratedInit writes ``__init__`` from ``_defaults`` (scikit-learn reads its signature for
# get_params); a subclass adds parameters or gives one another default.
class _OMTBase(GeneratedInit, _TreeOutput, BaseEstimator):
    """Parameters, fit and predict shared by :class:`OMTClassifier` and :class:`OMTRegressor`;
    subclasses set the task and the loss."""

    _task = "classification"
    _parameters: ClassVar[dict[str, Param]] = _OMT_PARAMETERS
    _defaults: ClassVar[dict[str, Any]] = {
        "depth": 3, "leaves": None, "min_support": 0.01, "loss": "misclassification",
        "n_bins": "auto", "binning": "cumulative", "categorical_nodes": "complements",
        "ordinal": "auto", "feature_order": None, "feature_costs": None, "rule_budget": None,
        "total_budget": None, "constraints": None, "forbidden": None, "requires": None,
        "k_best": 1000, "beam": None, "exact_pricing": False, "max_iter": 40,
        "max_columns": 10_000, "max_stall": 10, "cg_tol": 1e-4, "mip_gap": 0.0, "tie_break": 0.0,
        "leaf_penalty": None, "time_limit": 60.0, "random_state": None, "verbose": False}

    @property
    def gap_scope_(self) -> str:
        """What ``bound_`` / ``gap_`` are certified over: the rule sets on the fitted bins."""
        return "gap over every rule set on its bins"

    # ------------------------------------------------------------------ fit
    def _fit_frame(self, X: Any) -> pd.DataFrame:
        """Checked training frame (string column names); sets ``n_features_in_`` and, for X
        with string column names, ``feature_names_in_``."""
        df = fit_frame(self, X)
        if len(set(df.columns)) != df.shape[1]:
            raise OptreesInputError("X has duplicate column names")
        return df

    def _fit(self, df: pd.DataFrame, y: np.ndarray, classes: np.ndarray | None, p: Params,
             deadline: Deadline, class_weights: np.ndarray | None = None, pos: int = 1,
             w: np.ndarray | None = None) -> Any:
        """Choose the leaf penalty, build the feature graph, solve within ``deadline`` and
        store the result (rows weighted by ``w``; None: 1)."""
        fit = OMTFit(self._task, p, classes, class_weights, pos)
        with stop_on_ctrl_c(deadline):
            # Ctrl-C: column generation (between master solves and inside pricing) and the
            # running HiGHS solve stop as at the deadline; the master MIP gets no more time,
            # so the best of the MIP start and the MIP incumbent so far is returned.
            try:
                done = fit.solve(df, y, w, deadline)
            except RuntimeError:
                if deadline.stopped:  # stopped before any rule set existed: nothing to return
                    raise KeyboardInterrupt from None
                raise
        if classes is not None:
            self.classes_ = classes
        self.graph_ = done.graph
        self.leaf_penalty_ = done.penalty
        self.validation_scores_ = done.scores
        # categories a rule can test (unseen ones at predict time make every test false)
        self._categories = {lv.name: list(lv.categories) for lv in self.graph_.levels
                            if lv.categories}
        self._store(done.result, deadline)
        return self

    def _store(self, result: FitResult, deadline: Deadline) -> None:
        """The fitted attributes.  Not ``store_result``: OMT's ``gap_`` is the paper's
        (nu_IP - nu_LP) / nu_IP, ``status_`` turns "interrupted" only from "time_limit",
        and ``stats_`` holds the column-generation counts only."""
        stats = dict(result.stats)
        self.tree_ = result.model
        self.paths_ = result.model.rules
        self.objective_ = float(result.objective)
        self.bound_ = result.settled_bound
        self.gap_ = float(stats.pop("ip_lp_gap"))
        self.lp_bound_ = float(stats.pop("lp_bound"))
        self.mip_gap_ = float(stats.pop("mip_gap"))
        self.lp_exact_ = bool(stats.pop("lp_exact"))
        self.status_ = ("interrupted" if deadline.stopped and result.status == "time_limit"
                        else result.status)
        self.n_uncovered_ = int(stats.pop("n_uncovered"))
        self.f1_ = stats.pop("f1")
        self.n_iter_ = int(stats.get("iterations", 0))
        self.stats_ = stats
        self.solve_seconds_ = result.seconds
        self.fit_seconds_ = deadline.elapsed()
        if self.status_ in ("time_limit", "interrupted"):
            warn_stopped(self, self.status_, self.fit_seconds_,
                         f"returning the best tree found (objective {self.objective_:g}, "
                         f"{bound_text(self.bound_, self.lp_bound_)})")

    # ------------------------------------------------------------------ predict
    def _frame(self, X: Any) -> pd.DataFrame:
        """X at predict time: NotFittedError before fit, the fit-time columns (number, names
        and order checked the scikit-learn way), a warning for unseen categories."""
        df = predict_frame(self, X, "tree_")
        warn_unseen(self, df, self._categories)
        return df

    # (the frame first: it raises NotFittedError before ``self.tree_`` is looked up)
    def predict(self, X: Any) -> np.ndarray:
        """Prediction of the leaf (rule) each row of ``X`` reaches: a label or a value."""
        df = self._frame(X)
        return self.tree_.predict(df)

    def apply(self, X: Any) -> np.ndarray:
        """Index of the leaf of ``tree_`` that each row of ``X`` reaches."""
        df = self._frame(X)
        return self.tree_.apply(df)


class OMTClassifier(ClassifierMixin, _OMTBase):
    """Optimal multiway-split classification tree (OMT) of depth ``depth`` with at most
    ``leaves`` rules (default 2**depth), by column generation.

    ``loss``: "misclassification" (default), "weighted" (class-weighted error, weights from
    ``class_weight``; None counts as "balanced") or "f1" (F1-score of ``pos_label`` on a
    binary problem, by Dinkelbach's method).  ``class_weight`` ("balanced" or
    {class: weight}, as in scikit-learn) weights the errors of each class: with
    loss="misclassification" a given class_weight makes the loss the weighted error (as
    loss="weighted"); loss="f1" takes no class_weight.  ``min_support``: samples per rule
    (fraction of the training data, or a count).  ``n_bins``: quantile bins per numeric
    (and ordinal) column; "auto" (default) takes sqrt(n) / 4 of them for n training rows
    (their total weight), at least 8 and at most 32, and adds to each numeric column the
    thresholds of a CART tree of the same depth (and of one whose leaves hold
    ``min_support``), so a cut CART would place is placed exactly (a million rows: test
    accuracy 0.8995 as CART's, where 8 bins gave 0.835); an integer gives exactly that many
    quantile bins and nothing else (then OMT is no worse than CART over those bins only).
    ``binning``: the bins as every run of bins ("cumulative", [OMT] §5) or single bins
    ("plain").
    ``categorical_nodes``: "complements" (default: one graph node per category and one per
    "!= v", the graph the paper's experiments had on one-hot encoded data; monk3 at depth 2:
    0.925 test accuracy against 0.613 with "values"), "values" (one node per category, the
    paper's graph; faster) or "subsets" (all proper value subsets for <= 5 values).
    ``ordinal``: "auto" (default) bins ordered categoricals over their category order like
    numeric columns (nodes are runs such as "safety >= med"; ``load_dataset`` marks ordered
    columns, e.g. car-evaluation's), True also categoricals with numeric categories (monk's
    codes), False none.
    ``feature_order``: graph level order (attribute hierarchy).  Constraints ([OMT] §5):
    ``feature_costs`` {feature: cost} with ``rule_budget`` (per rule) and ``total_budget``
    (sum over selected rules); ``constraints``: list of {"coef": {feature: a}, "const": b,
    "lower": lo, "upper": up} meaning lo <= sum_j (b + sum_{f in rule j} a_f) z_j <= up;
    ``forbidden``: feature combinations no rule may use together; ``requires``:
    {feature: [features that must precede it on the rule]}.
    Column generation: ``k_best`` (K), ``beam`` (partial paths kept per DP level; default K),
    ``exact_pricing`` (bounded exact KSP), ``max_iter``, ``max_columns``, ``cg_tol``,
    ``max_stall`` (heuristic pricing: stop after this many rounds without the LP value
    falling by more than cg_tol, relative; 0 = never);
    final master MIP: ``mip_gap`` and the remaining ``time_limit`` (seconds for the whole
    ``fit``, counted from its start; on timeout or Ctrl-C the best tree so far is returned
    with a :class:`TimeLimitWarning` / :class:`InterruptedWarning`).  ``tie_break``: every
    rule costs tie_break * (1 + length) / (leaves * (depth + 1)) extra (at most tie_break in
    total, < 1 error), so among equally accurate trees the smaller one wins (0 = the paper).
    ``leaf_penalty`` (>= 0; 0 = the paper's objective): every rule costs leaf_penalty x the
    number of training samples (the sum of their class weights), i.e. the objective is error
    rate + leaf_penalty x rules as in BendOCT; for regression leaf_penalty x the one-leaf
    tree's loss.  None (default): for classification min(0.02, 1 / sqrt(n)) for n training
    samples (their total weight), 0 for loss="f1"; "auto" for regression.  "auto": each of
    ``AUTO_PENALTIES`` is fitted on about 75 % of the training weight (groups of identical
    rows held out whole, seeded by ``random_state``), one after another from the columns the
    earlier ones generated, and scored on the rest; the best (ties: the lower median) is
    refitted on all rows, every fit sharing ``time_limit``; 0 for loss="f1" or fewer than two
    distinct rows.

    The start of column generation holds the single leaf and CART's trees of depth 1 to
    ``depth`` over the bins, so the tree returned (also after a time limit) is never worse on
    the objective than any of them that meets the rule limits.

    Fitted: ``tree_`` (:class:`MultiwayTree`), ``paths_``, ``objective_`` (nu_IP),
    ``bound_`` (a lower bound on the objective of every rule set of the feature graph: nu_LP
    when pricing proved the LP optimum; nan when none was proven, e.g. heuristic pricing or a
    time limit), ``gap_`` (``(nu_IP - bound_) / nu_IP``, [OMT] Table 2's gap; nan without a
    bound), ``lp_bound_`` (the last master LP value: a bound over the generated rules only
    unless ``bound_`` is set), ``mip_gap_``, ``lp_exact_``,
    ``status_`` ("optimal", "converged", "stalled", "iteration_limit", "column_limit",
    "time_limit" or
    "interrupted"), ``leaf_penalty_`` (the penalty used), ``validation_scores_``
    ("auto": {penalty: held-out accuracy, or minus the mean loss}), ``n_uncovered_``,
    ``f1_`` (loss="f1"), ``n_iter_`` (column-generation rounds of the last master solve),
    ``stats_`` (column-generation counts; ``"generated_lp_gap"``: [OMT] §6's
    (nu_IP - nu_LP) / nu_IP against the last restricted master, a gap over the generated
    rules only), ``fit_seconds_``, ``solve_seconds_``,
    ``classes_``, ``n_features_in_``, ``feature_names_in_``.
    """

    _parameters: ClassVar[dict[str, Param]] = {
        "loss": Param(Options(*_CLS_LOSSES), "objective", cli="--omt-loss"),
        "class_weight": Param(Check("None, 'balanced' or a dict", class_weight_value),
                              "weight of each class's errors ('balanced' or {class: weight})",
                              cli=""),
        "pos_label": Param(Check("None or a class of y", _as_given),
                           "the positive class of loss='f1' (None: the second class)", cli=""),
    }

    _defaults: ClassVar[dict[str, Any]] = {**_OMTBase._defaults, "class_weight": None,
                                            "pos_label": None}

    @logged_fit
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> OMTClassifier:
        """Build the feature graph, generate rules by column generation and pick at most
        ``leaves`` of them by the master MIP within ``time_limit``; returns ``self``.

        ``sample_weight`` (one number >= 0 per row) weights the errors, the quantile bins and
        the supports (``min_support`` is then a share or an amount of weight): integer
        weights give the tree of duplicated rows, weight 0 the tree without the row."""
        p = validate_params(self)
        deadline = fit_deadline(p.time_limit)
        if p.loss == "f1" and p.class_weight is not None:
            raise OptreesInputError("class_weight has no meaning for loss='f1'; leave it None")
        if p.loss == "f1" and p.leaf_penalty not in (None, "auto") and p.leaf_penalty > 0:
            raise OptreesInputError("leaf_penalty is not supported with loss='f1' (F1 is not a "
                                    "sum over rules); leave it None, 0 or 'auto' (= 0 here)")
        df = self._fit_frame(X)
        classes, y_enc = check_target(y, len(df))
        w = fit_weights(sample_weight, None, classes, y_enc)
        df, y_enc, w = drop_weightless(df, y_enc, w)
        K = len(classes)
        if rule_limit(p) < K:
            warnings.warn(f"leaves={rule_limit(p)} < {K} classes: at most {rule_limit(p)} "
                          "classes can be predicted", UserWarning,
                          stacklevel=user_stacklevel())
        weights = self._class_weights(p, classes, y_enc, w)
        pos = self._positive_class(p, classes)
        return self._fit(df, y_enc, classes, p, deadline, weights, pos, w)

    @staticmethod
    def _class_weights(p: Params, classes: np.ndarray, y: np.ndarray,
                       w: np.ndarray | None) -> np.ndarray | None:
        """Weight of each class's errors (None: unweighted); "balanced" is W / (K W_k) over
        the sample weights ``w``."""
        cw = p.class_weight
        if not (p.loss == "weighted" or cw is not None):
            return None
        K = len(classes)
        if cw is None or isinstance(cw, str):  # "balanced" (the default of "weighted")
            W = np.bincount(y, weights=w, minlength=K)  # a class may weigh 0 (weight-0 rows)
            return np.where(W > 0, W.sum() / (K * np.where(W > 0, W, 1.0)), 0.0)
        return class_weights(cw, classes, y, np.ones(len(y)) if w is None else w)

    @staticmethod
    def _positive_class(p: Params, classes: np.ndarray) -> int:
        """Index of the positive class of loss="f1" (1 otherwise)."""
        if p.loss != "f1":
            return 1
        if len(classes) != 2:
            raise OptreesInputError(
                f"loss='f1' needs a binary target, got {len(classes)} classes")
        if p.pos_label is None:
            return 1
        if p.pos_label not in list(classes):
            raise OptreesInputError(
                f"pos_label {p.pos_label!r} is not a class of y {list(classes)}")
        return list(classes).index(p.pos_label)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class frequencies of the training samples in the leaf each row of ``X`` reaches."""
        df = self._frame(X)  # NotFittedError before ``self.tree_`` is looked up
        return self.tree_.predict_proba(df)


class OMTRegressor(RegressorMixin, _OMTBase):
    """Optimal multiway-split regression tree: ``loss`` "squared" (mean per rule) or
    "absolute" (median per rule on a grid of at most 64 candidate values).  Other parameters
    and fitted attributes as :class:`OMTClassifier`."""

    _task = "regression"
    _parameters: ClassVar[dict[str, Param]] = {
        "loss": Param(Options(*_REG_LOSSES), "objective", cli="--omt-loss"),
    }

    _defaults: ClassVar[dict[str, Any]] = {**_OMTBase._defaults, "loss": "squared"}

    @logged_fit
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> OMTRegressor:
        """As :meth:`OMTClassifier.fit` (``sample_weight`` too), with a mean (squared loss)
        or median (absolute loss) per rule; returns ``self``."""
        p = validate_params(self)
        deadline = fit_deadline(p.time_limit)
        df = self._fit_frame(X)
        y_f = check_regression_target(y, len(df))
        w = fit_weights(sample_weight, None, np.zeros(0), np.zeros(len(y_f), dtype=np.int64))
        df, y_f, w = drop_weightless(df, y_f, w)
        return self._fit(df, y_f, None, p, deadline, w=w)
