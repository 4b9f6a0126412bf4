"""OMTClassifier / OMTRegressor: optimal multiway-split trees by column generation
(omt-multiway.txt, see :mod:`optrees.colgen.omt`).

Raw columns are used directly: categorical columns give one graph node per value, numeric
columns are cut into ``n_bins`` quantile bins (``binning="cumulative"``: every run of bins is a
node, §5).  The fitted ``tree_`` is a :class:`MultiwayTree` that predicts on raw tables.
"""

from __future__ import annotations

import math
import numbers
import time
import warnings
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import DataConversionWarning

from .._validation import (
    OptreesInputError,
    check_depth,
    check_real,
    check_target,
    check_time_limit,
)
from ..colgen.omt import RuleConstraint, solve_omt
from ..colgen.omt_graph import build_graph
from ..models.multiway_tree import MultiwayTree
from ._base import (
    _TreeOutput,
    check_seed,
    fit_frame,
    interruptible,
    logged_fit,
    predict_frame,
    solve_deadline,
    warn_stopped,
    warn_unseen,
)

_CLS_LOSSES = ("misclassification", "weighted", "f1")
_REG_LOSSES = ("squared", "absolute")


def _int_param(name: str, v: Any, low: int) -> int:
    if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < low:
        raise OptreesInputError(f"{name} must be an integer >= {low}, got {v!r}")
    return int(v)


def _num(name: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or not np.isfinite(v):
        raise OptreesInputError(f"{name} must be a finite number, got {v!r}")
    return float(v)


class _OMTBase(_TreeOutput, BaseEstimator):
    """Shared fit machinery; subclasses set the task and the loss."""

    _task = "classification"

    def __init__(self, depth: int = 3, leaves: int | None = None, min_support: float = 0.01,
                 loss: str = "misclassification", n_bins: int = 8, binning: str = "cumulative",
                 categorical_nodes: str = "values", ordinal: bool | str = "auto",
                 feature_order: list | None = None, feature_costs: dict | None = None,
                 rule_budget: float | None = None, total_budget: float | None = None,
                 constraints: list | None = None, forbidden: list | None = None,
                 requires: dict | None = None, k_best: int = 1000, beam: int | None = None,
                 exact_pricing: bool = False, max_iter: int = 40, max_columns: int = 10_000,
                 max_stall: int = 10, cg_tol: float = 1e-4, mip_gap: float = 0.0,
                 tie_break: float = 0.0,
                 leaf_penalty: float = 0.0, time_limit: float | None = 60.0,
                 random_state: int | None = None, verbose: bool = False) -> None:
        self.depth = depth
        self.leaves = leaves
        self.min_support = min_support
        self.loss = loss
        self.n_bins = n_bins
        self.binning = binning
        self.categorical_nodes = categorical_nodes
        self.ordinal = ordinal
        self.feature_order = feature_order
        self.feature_costs = feature_costs
        self.rule_budget = rule_budget
        self.total_budget = total_budget
        self.constraints = constraints
        self.forbidden = forbidden
        self.requires = requires
        self.k_best = k_best
        self.beam = beam
        self.exact_pricing = exact_pricing
        self.max_iter = max_iter
        self.max_columns = max_columns
        self.max_stall = max_stall
        self.cg_tol = cg_tol
        self.mip_gap = mip_gap
        self.tie_break = tie_break
        self.leaf_penalty = leaf_penalty
        self.time_limit = time_limit
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------------ validation
    def _min_count(self, n: int) -> int:
        ms = self.min_support
        if isinstance(ms, bool) or not isinstance(ms, numbers.Real) or not ms > 0:
            raise OptreesInputError(
                f"min_support must be a fraction in (0, 1) or a count >= 1, got {ms!r}")
        if isinstance(ms, numbers.Integral) or ms >= 1:
            if float(ms) != int(ms):
                raise OptreesInputError(f"min_support >= 1 must be an integer, got {ms!r}")
            count = int(ms)
        else:
            count = max(1, math.ceil(float(ms) * n))
        if count > n:
            raise OptreesInputError(
                f"min_support={ms!r} asks for at least {count} training samples per rule, but "
                f"there are only {n} training samples")
        return count

    def _level_index(self, graph: Any, name: Any, what: str) -> int:
        names = [lv.name for lv in graph.levels]
        key = str(name)
        if key not in names:
            if key in graph.dropped:
                return -1
            raise OptreesInputError(f"{what} names unknown feature {name!r}")
        return names.index(key)

    def _rule_params(self, graph: Any) -> dict[str, Any]:
        k = len(graph.levels)
        costs = None
        if self.feature_costs is not None:
            if not isinstance(self.feature_costs, dict):
                raise OptreesInputError("feature_costs must be a dict {feature: cost}")
            costs = np.zeros(k)
            for f, c in self.feature_costs.items():
                c = _num(f"feature_costs[{f!r}]", c)
                if c < 0:
                    raise OptreesInputError(f"feature_costs[{f!r}] must be >= 0, got {c}")
                g = self._level_index(graph, f, "feature_costs")
                if g >= 0:
                    costs[g] = c
        rule_budget = None
        if self.rule_budget is not None:
            rule_budget = _num("rule_budget", self.rule_budget)
            if rule_budget < 0:
                raise OptreesInputError(
                    f"rule_budget={rule_budget} is infeasible: a rule costs at least 0")
            if costs is None:
                raise OptreesInputError("rule_budget needs feature_costs")
        cons: list[RuleConstraint] = []
        if self.total_budget is not None:
            tb = _num("total_budget", self.total_budget)
            if tb < 0:
                raise OptreesInputError(
                    f"total_budget={tb} is infeasible: the total cost of rules is at least 0")
            if costs is None:
                raise OptreesInputError("total_budget needs feature_costs")
            cons.append(RuleConstraint(costs.copy(), 0.0, -math.inf, tb, "total_budget"))
        for i, c in enumerate(self.constraints or []):
            if not isinstance(c, dict):
                raise OptreesInputError(
                    "constraints must be dicts {'coef': {feature: a}, 'const': b, "
                    "'lower': lo, 'upper': up}")
            coef = np.zeros(k)
            for f, a in (c.get("coef") or {}).items():
                g = self._level_index(graph, f, f"constraints[{i}]")
                if g >= 0:
                    coef[g] = _num(f"constraints[{i}] coefficient", a)
            lo = float(c.get("lower", -math.inf))
            up = float(c.get("upper", math.inf))
            if lo > up:
                raise OptreesInputError(f"constraints[{i}] is infeasible: lower {lo} > upper {up}")
            cons.append(RuleConstraint(coef, _num("const", c.get("const", 0.0)), lo, up,
                                       str(c.get("name", f"constraint {i}"))))
        forbidden = []
        for fs in self.forbidden or []:
            idx = [self._level_index(graph, f, "forbidden") for f in fs]
            if len(idx) < 2:
                raise OptreesInputError(f"a forbidden combination needs >= 2 features: {fs!r}")
            if min(idx) < 0:
                continue  # a dropped (constant) feature is never used
            m = np.zeros(k, dtype=bool)
            m[idx] = True
            forbidden.append(m)
        requires = [np.zeros(0, dtype=np.int64) for _ in range(k)]
        for f, pre in (self.requires or {}).items():
            g = self._level_index(graph, f, "requires")
            pre = [pre] if isinstance(pre, str) else list(pre)
            idx = [self._level_index(graph, p, "requires") for p in pre]
            if g < 0:
                continue
            if min(idx, default=0) < 0:
                raise OptreesInputError(
                    f"requires: {f!r} needs a constant feature, so it can never be used")
            late = [p for p, h in zip(pre, idx, strict=True) if h > g]
            if late:
                raise OptreesInputError(
                    f"requires: {late} must come before {f!r} in the feature order "
                    "(set feature_order)")
            requires[g] = np.asarray(idx, dtype=np.int64)
        return {"feature_costs": costs, "rule_budget": rule_budget, "constraints": cons,
                "forbidden": forbidden, "requires": requires}

    # ------------------------------------------------------------------ fit
    def _check_params(self) -> dict[str, Any]:
        """The data-independent parameters, checked before X and y are looked at."""
        depth = check_depth(self.depth)
        return {
            "depth": depth,
            "limit": check_time_limit(self.time_limit),
            "seed": check_seed(self.random_state),
            "leaves": 2 ** depth if self.leaves is None else _int_param("leaves", self.leaves, 1),
            "k_best": _int_param("k_best", self.k_best, 1),
            "beam": None if self.beam is None else _int_param("beam", self.beam, 1),
            "max_iter": _int_param("max_iter", self.max_iter, 0),
            "max_columns": _int_param("max_columns", self.max_columns, 1),
            "max_stall": _int_param("max_stall", self.max_stall, 0),
            "cg_tol": _num("cg_tol", self.cg_tol),
            "mip_gap": _num("mip_gap", self.mip_gap),
            "tie_break": _num("tie_break", self.tie_break),
            "leaf_penalty": check_real("leaf_penalty", self.leaf_penalty, 0.0),
        }

    def _fit_frame(self, X: Any) -> pd.DataFrame:
        """Checked training frame (string column names); sets ``n_features_in_`` and, for X
        with string column names, ``feature_names_in_``."""
        df = fit_frame(self, X)
        if len(set(df.columns)) != df.shape[1]:
            raise OptreesInputError("X has duplicate column names")
        return df

    def _fit(self, df: pd.DataFrame, y_target: np.ndarray, classes: np.ndarray | None,
             t0: float, opts: dict[str, Any], class_weights: np.ndarray | None = None,
             pos: int = 1) -> Any:
        n = len(df)
        min_count = self._min_count(n)
        graph = build_graph(df, self.feature_order, self.n_bins, self.binning,
                            self.categorical_nodes, self.ordinal)
        params = self._rule_params(graph)
        deadline = solve_deadline(t0, opts["limit"])
        t_solve = time.perf_counter()
        with interruptible() as stop:
            # Ctrl-C: column generation (between master solves and inside pricing) and the
            # running HiGHS solve stop as at the deadline; the master MIP gets no more time,
            # so the best of the warm start and the MIP incumbent so far is returned.
            try:
                fit = solve_omt(graph, y_target, task=self._task, loss=self.loss,
                                n_classes=None if classes is None else len(classes),
                                depth=opts["depth"], leaves=opts["leaves"],
                                min_count=min_count, class_weights=class_weights,
                                pos_label=pos, k_best=opts["k_best"], beam=opts["beam"],
                                exact_pricing=bool(self.exact_pricing),
                                max_iter=opts["max_iter"], max_columns=opts["max_columns"],
                                max_stall=opts["max_stall"],
                                cg_tol=opts["cg_tol"], mip_gap=opts["mip_gap"],
                                deadline=deadline, seed=opts["seed"],
                                tie_break=opts["tie_break"],
                                leaf_penalty=opts["leaf_penalty"], verbose=bool(self.verbose),
                                **params)
            except RuntimeError:
                if stop.requested:  # stopped before any rule set existed: nothing to return
                    raise KeyboardInterrupt from None
                raise
        solve_seconds = time.perf_counter() - t_solve
        res = fit.result
        rules_info = []
        for st, pr, xi, sup in zip(res.steps, res.predictions, res.xi, fit.support,
                                   strict=True):
            rules_info.append({
                "conditions": [graph.levels[g].node_text(v) for g, v in st],
                "features": [graph.levels[g].name for g, _ in st],
                "prediction": (classes[int(pr)].item() if hasattr(classes[int(pr)], "item")
                               else classes[int(pr)]) if classes is not None else float(pr),
                "n_samples": int(sup), "loss": float(xi),
                "cost": float(sum(params["feature_costs"][g] for g, _ in st))
                if params["feature_costs"] is not None else 0.0,
            })
        tree = MultiwayTree.from_rules(graph.levels, fit.conditions, res.predictions,
                                       fit.support, graph.codes, y_target,
                                       None if classes is None else list(classes), rules_info)
        # the tree must reproduce the selected rules on the training data
        leaf_rule = tree.rule[tree.apply_codes(tree.encode(df))]
        unit_rule = np.full(len(fit.solver.n_count), -1)
        for r, st in enumerate(res.steps):
            unit_rule[fit.solver.pricer.cover(st)] = r
        expected = unit_rule[fit.unit_of_sample]
        if not np.array_equal(leaf_rule[expected >= 0], expected[expected >= 0]):
            raise RuntimeError("OMT internal error: the tree does not reproduce the rules")
        if classes is not None:
            self.classes_ = classes
        self.tree_ = tree
        self.paths_ = rules_info
        self.graph_ = graph
        # categories a rule can test (unseen ones at predict time make every test false)
        self._categories = {lv.name: list(lv.categories) for lv in graph.levels
                            if lv.categories}
        self.objective_ = float(res.objective)
        self.bound_ = float(res.lp_bound)
        self.gap_ = float(res.gap)
        self.mip_gap_ = float(res.mip_gap)
        self.lp_exact_ = bool(res.lp_exact)
        self.status_ = ("interrupted" if stop.requested and res.status == "time_limit"
                        else res.status)
        self.n_uncovered_ = int(res.uncovered)
        self.n_iter_ = int(res.stats.get("iterations", 0))
        self.stats_ = res.stats
        self.f1_ = fit.f1
        self.solve_seconds_ = solve_seconds
        self.fit_seconds_ = time.perf_counter() - t0
        if self.status_ in ("time_limit", "interrupted"):
            # stacklevel 5: warn_stopped <- _fit <- fit <- logged_fit <- the caller
            warn_stopped(self, self.status_, self.fit_seconds_,
                         f"returning the best tree found (objective {self.objective_:g}, "
                         f"LP value {self.bound_:.6g})", stacklevel=5)
        return self

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
    (fraction of the training data, or a count).  ``n_bins`` / ``binning``: numeric columns
    (§5).
    ``categorical_nodes``: "values" (one graph node per category, the paper), "complements"
    (also "!= v": the graph the paper's experiments had on one-hot encoded data; often more
    accurate, e.g. +9 test points on balance-scale and tic-tac-toe at depth 4, but slower)
    or "subsets" (all proper value subsets for <= 5 values).  ``ordinal``: "auto" (default)
    bins ordered categoricals over their category order like numeric columns (nodes are runs
    such as "safety >= med"; ``load_dataset`` marks ordered columns, e.g. car-evaluation's),
    True also categoricals with numeric categories (monk's codes), False none.
    ``feature_order``: graph level order (attribute hierarchy).  Constraints (§5):
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
    ``leaf_penalty`` (>= 0; 0 = the paper): every rule costs leaf_penalty x the number of
    training samples (the sum of their class weights), i.e. the objective is error rate +
    leaf_penalty x rules as in BendOCT; for regression leaf_penalty x the one-leaf tree's
    loss.  Choose it on held-out data against overfitting small training sets.

    Fitted: ``tree_`` (:class:`MultiwayTree`), ``paths_``, ``objective_`` (nu_IP),
    ``bound_`` (nu_LP), ``gap_`` ((nu_IP - nu_LP) / nu_IP), ``mip_gap_``, ``lp_exact_``,
    ``status_`` ("optimal", "converged", "stalled", "iteration_limit", "column_limit",
    "time_limit" or
    "interrupted"), ``n_uncovered_``, ``f1_`` (loss="f1"), ``n_iter_`` (column-generation
    rounds of the last master solve), ``stats_``, ``fit_seconds_``, ``solve_seconds_``,
    ``classes_``, ``n_features_in_``, ``feature_names_in_``.
    """

    _task = "classification"

    def __init__(self, depth: int = 3, leaves: int | None = None, min_support: float = 0.01,
                 loss: str = "misclassification", class_weight: Any = None,
                 pos_label: Any = None, n_bins: int = 8, binning: str = "cumulative",
                 categorical_nodes: str = "values", ordinal: bool | str = "auto",
                 feature_order: list | None = None, feature_costs: dict | None = None,
                 rule_budget: float | None = None, total_budget: float | None = None,
                 constraints: list | None = None, forbidden: list | None = None,
                 requires: dict | None = None, k_best: int = 1000, beam: int | None = None,
                 exact_pricing: bool = False, max_iter: int = 40, max_columns: int = 10_000,
                 max_stall: int = 10, cg_tol: float = 1e-4, mip_gap: float = 0.0,
                 tie_break: float = 0.0,
                 leaf_penalty: float = 0.0, time_limit: float | None = 60.0,
                 random_state: int | None = None, verbose: bool = False) -> None:
        super().__init__(depth, leaves, min_support, loss, n_bins, binning, categorical_nodes,
                         ordinal, feature_order,
                         feature_costs, rule_budget, total_budget, constraints, forbidden,
                         requires, k_best, beam, exact_pricing, max_iter, max_columns,
                         max_stall, cg_tol, mip_gap, tie_break, leaf_penalty, time_limit,
                         random_state, verbose)
        self.class_weight = class_weight
        self.pos_label = pos_label

    @logged_fit
    def fit(self, X: Any, y: Any) -> OMTClassifier:
        """Build the feature graph, generate rules by column generation and pick at most
        ``leaves`` of them by the master MIP within ``time_limit``; returns ``self``."""
        t0 = time.perf_counter()
        if self.loss not in _CLS_LOSSES:
            raise OptreesInputError(f"loss must be one of {_CLS_LOSSES}, got {self.loss!r}")
        opts = self._check_params()
        cw = self.class_weight
        if not (cw is None or isinstance(cw, dict) or (isinstance(cw, str) and cw == "balanced")):
            raise OptreesInputError(
                f"class_weight must be None, 'balanced' or a dict, got {cw!r}")
        if self.loss == "f1" and cw is not None:
            raise OptreesInputError("class_weight has no meaning for loss='f1'; leave it None")
        if self.loss == "f1" and opts["leaf_penalty"] > 0:
            raise OptreesInputError("leaf_penalty is not supported with loss='f1' (F1 is not a "
                                    "sum over rules); leave it 0")
        df = self._fit_frame(X)
        classes, y_enc = check_target(y, len(df))
        K = len(classes)
        if opts["leaves"] < K:
            # stacklevel 4: warn <- fit <- logged_fit <- the caller
            warnings.warn(f"leaves={opts['leaves']} < {K} classes: at most {opts['leaves']} "
                          "classes can be predicted", UserWarning, stacklevel=4)
        weights = None
        if self.loss == "weighted" or cw is not None:
            if cw is None or isinstance(cw, str):  # "balanced" (the default of "weighted")
                weights = len(y_enc) / (K * np.bincount(y_enc, minlength=K))
            else:
                missing = [c for c in classes if c not in cw]
                if missing:
                    raise OptreesInputError(f"class_weight has no weight for classes {missing}")
                weights = np.array([_num("class_weight", cw[c]) for c in classes])
                if (weights < 0).any():
                    raise OptreesInputError("class_weight values must be >= 0")
        pos = 1
        if self.loss == "f1":
            if K != 2:
                raise OptreesInputError(f"loss='f1' needs a binary target, got {K} classes")
            if self.pos_label is not None:
                if self.pos_label not in list(classes):
                    raise OptreesInputError(
                        f"pos_label {self.pos_label!r} is not a class of y {list(classes)}")
                pos = list(classes).index(self.pos_label)
        return self._fit(df, y_enc, classes, t0, opts, weights, pos)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class frequencies of the training samples in the leaf each row of ``X`` reaches."""
        df = self._frame(X)  # NotFittedError before ``self.tree_`` is looked up
        return self.tree_.predict_proba(df)


class OMTRegressor(RegressorMixin, _OMTBase):
    """Optimal multiway-split regression tree: ``loss`` "squared" (mean per rule) or
    "absolute" (median per rule on a grid of at most 64 candidate values).  Other parameters
    and fitted attributes as :class:`OMTClassifier`."""

    _task = "regression"

    def __init__(self, depth: int = 3, leaves: int | None = None, min_support: float = 0.01,
                 loss: str = "squared", n_bins: int = 8, binning: str = "cumulative",
                 categorical_nodes: str = "values", ordinal: bool | str = "auto",
                 feature_order: list | None = None, feature_costs: dict | None = None,
                 rule_budget: float | None = None, total_budget: float | None = None,
                 constraints: list | None = None, forbidden: list | None = None,
                 requires: dict | None = None, k_best: int = 1000, beam: int | None = None,
                 exact_pricing: bool = False, max_iter: int = 40, max_columns: int = 10_000,
                 max_stall: int = 10, cg_tol: float = 1e-4, mip_gap: float = 0.0,
                 tie_break: float = 0.0,
                 leaf_penalty: float = 0.0, time_limit: float | None = 60.0,
                 random_state: int | None = None, verbose: bool = False) -> None:
        super().__init__(depth, leaves, min_support, loss, n_bins, binning, categorical_nodes,
                         ordinal, feature_order,
                         feature_costs, rule_budget, total_budget, constraints, forbidden,
                         requires, k_best, beam, exact_pricing, max_iter, max_columns,
                         max_stall, cg_tol, mip_gap, tie_break, leaf_penalty, time_limit,
                         random_state, verbose)

    @logged_fit
    def fit(self, X: Any, y: Any) -> OMTRegressor:
        """As :meth:`OMTClassifier.fit`, with a mean (squared loss) or median (absolute loss)
        per rule; returns ``self``."""
        t0 = time.perf_counter()
        if self.loss not in _REG_LOSSES:
            raise OptreesInputError(f"loss must be one of {_REG_LOSSES}, got {self.loss!r}")
        opts = self._check_params()
        df = self._fit_frame(X)
        if y is None:
            raise OptreesInputError(
                "this regressor requires y to be passed, but the target y is None")
        y_arr = np.asarray(y.to_numpy() if isinstance(y, pd.Series | pd.DataFrame) else y)
        if y_arr.ndim == 2 and y_arr.shape[1] == 1:
            # stacklevel 4: warn <- fit <- logged_fit <- the caller
            warnings.warn("A column-vector y was passed when a 1d array was expected; y is used "
                          "as y.ravel(). Pass y with shape (n_samples,) to avoid this warning.",
                          DataConversionWarning, stacklevel=4)
            y_arr = y_arr.ravel()
        if y_arr.ndim != 1 or len(y_arr) != len(df):
            raise OptreesInputError(
                f"y must be one-dimensional with {len(df)} values, got shape {y_arr.shape}")
        try:
            y_f = y_arr.astype(float)
        except (TypeError, ValueError) as exc:
            raise OptreesInputError("y must be numeric for a regression tree") from exc
        if not np.isfinite(y_f).all():
            raise OptreesInputError("y contains missing or infinite values")
        return self._fit(df, y_f, None, t0, opts)
