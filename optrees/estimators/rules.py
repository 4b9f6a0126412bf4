"""scikit-learn estimator for RUG / FairRUG ([RUG] §3): weighted rule sets on raw columns."""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._params import (
    CLASS_WEIGHT,
    RANDOM_STATE,
    TIME_LIMIT,
    VERBOSE,
    Check,
    GeneratedInit,
    Integer,
    Options,
    Param,
    Real,
    as_given,
    check_param,
    optional,
    validate_params,
)
from .._validation import (
    OptreesInputError,
    check_group_count,
    check_target,
    fit_weights,
    not_a_column,
    positive_class_index,
)
from ..encoding.columns import RawColumns
from ..fairness import (
    OLD_SPELLINGS,
    RUG_NOTIONS,
    canonical_notion,
    fairness_summary,
    realised_gap,
    record_fairness,
)
from ..models.rule_set import Explanation, RuleSet
from ..rug.fairness import Fairness
from ..rug.repair import NO_RULES
from ..rug.solve import LP_METHODS, PRICING, RULE_LABELS, solve_rug
from ._base import (
    drop_weightless,
    fit_deadline,
    fit_frame,
    logged_fit,
    positive_rows,
    predict_frame,
    seen_categories,
    stop_on_ctrl_c,
    store_result,
    user_stacklevel,
    warn_unseen,
)

_NONNEGATIVE = Real(0.0, math.inf, high_open=True)
_TRUTH = Check("True or False (any value is read as its truth value)", bool)


# In the order the checks ran before the table existed (the first bad parameter is named).
_PARAMETERS: dict[str, Param] = {
    "max_depth": Param(Integer(1), "depth of the pricing trees (conditions per rule)", cli=""),
    "pen_par": Param(_NONNEGATIVE, "weight of the rule costs (lambda of the master LP)"),
    "max_rmp_calls": Param(Integer(1), "master LP solves"),
    "threshold": Param(Real(0.0, 1.0), "drop rules lighter than threshold * largest weight"),
    "time_limit": TIME_LIMIT,
    "random_state": RANDOM_STATE,
    "pricing": Param(Options(*PRICING), "'tree' (dual-weighted trees) or exact pricing of "
                     "rules of <= max_depth literals ('enumerate', 'milp', 'exact': either)",
                     cli=""),
    "n_thresholds": Param(Integer(2), "quantile thresholds per numeric column (exact pricing)",
                          cli=""),
    "lp_method": Param(Options(*LP_METHODS), "master LP by simplex (few rules), interior "
                       "point stopped near the optimum as ruleopt (weight on more rules), or "
                       "'auto': interior point for > 2 classes without fairness, else simplex"),
    "rule_labels": Param(Options(*RULE_LABELS), "class of a pricing tree's rule: the heaviest "
                         "class of its training rows ('majority'), the dual-weighted one "
                         "('duals', the paper's), or 'auto': majority for > 2 classes"),
    "fairness": Param(optional(Options(*RUG_NOTIONS, *OLD_SPELLINGS)),
                      "FairRUG constraint, needs --sensitive"),
    "rule_length_cost": Param(_TRUTH, "rule cost = its length (else 1)", cli=""),
    "epsilon": Param(_NONNEGATIVE, "fairness cap"),
    "fairness_repair": Param(_TRUTH, "re-weight the rules until the realised training gap "
                             "meets epsilon (FairRUG's LP caps slacks, not errors)", cli=""),
    "sensitive": Param(Check("None or a column name of X", as_given),
                       "sensitive attribute column; its fairness scores are printed"),
    "drop_sensitive": Param(_TRUTH, "keep the sensitive column out of the rules", cli=""),
    "positive_class": Param(Check("None or a class of y", as_given),
                            "the positive class of 'equal_opportunity' (None: the last "
                            "class)"),
    "class_weight": CLASS_WEIGHT,
    "verbose": VERBOSE,
}
_CHECKED_UP_FRONT = {name: param for name, param in _PARAMETERS.items() if name != "epsilon"}
"""What ``fit`` checks first; ``epsilon`` only when ``fairness`` is set (as before the table:
a cap nothing uses is not checked)."""


class RUGClassifier(GeneratedInit, ClassifierMixin, BaseEstimator):
    """Rule generation (RUG) by column generation on the master LP (3); FairRUG with fairness.

    Fitted attributes: ``rules_`` (pruned :class:`RuleSet`), ``all_rules_`` (the whole pool with
    LP weights), ``objective_`` (LP objective), ``n_rmp_calls_``, ``lp_status_`` (HiGHS status of
    the last LP used), ``status_`` ('converged' | 'stalled' | 'iteration_limit' |
    'time_limit' (also when it stopped FairRUG's repair) | 'interrupted'; 'stalled': with
    majority rule labels a round added no rule while leaves of the pricing tree still priced
    out with another class, see ``rule_labels``), ``n_features_in_``, ``feature_names_in_``,
    ``objective_history_``, ``v_`` (slacks), ``fit_seconds_``, ``classes_``, and those of
    every estimator: ``bound_`` (``lower_bound_``, or ``-inf`` without one), ``gap_``,
    ``solve_seconds_``, ``stats_``; with ``fairness``, ``fairness_`` (see ``epsilon``).
    Uncovered samples are predicted as the majority training class.

    Parameters
    ----------
    max_depth
        Depth of the pricing trees (rules have at most this many conditions).
    pen_par
        lambda >= 0, the weight of the rule costs in the LP objective.
    max_rmp_calls
        At most this many solves of the restricted master LP.
    threshold
        Rules with weight < threshold * (largest weight) are dropped after fitting.
    rule_length_cost
        Rule cost c_j = rule length (True, default) or 1 (False).
    time_limit
        Seconds; on timeout the current model is returned with a TimeLimitWarning.
    random_state
        Seed of the pricing trees and of HiGHS.
    fairness
        None, 'dmc' (11)-(12), 'odm' (15)-(16) or 'equal_opportunity' (the paper's EOP: DMC
        on ``positive_class``; the former name 'eop' still works, with a
        DeprecationWarning).  The names are those of ``optrees.fairness.NOTIONS``, shared
        with the tree estimators and :func:`optrees.metrics.fairness_gap`.
    epsilon
        Fairness cap (>= 0).  FairRUG's LP caps the gap of group means of its slacks, which
        only approximate errors; the fit measures the gap of its notion again on the training
        rows from the rule set's predictions (``fairness_``: notion, groups, cap, realised
        value, met or not; also ``stats_["fairness"]``) and warns with
        :class:`~optrees.FairnessWarning` when it exceeds ``epsilon``.
    fairness_repair
        True (default): when the realised training gap exceeds ``epsilon``, re-solve the
        master LP over the rule pool with the cap tightened step by step until it does not
        (``optrees.rug.repair``; ``stats_["fairness_repair"]`` says what was tried).  For
        'dmc' and 'equal_opportunity' the repaired rule set meets ``epsilon`` on the
        training rows (at worst by predicting the default class everywhere), also when the
        time limit stops the repair (``status_`` 'time_limit'; the warning says what was
        kept); for 'odm' it may not, and the warning then gives the number.  Nothing is
        promised about unseen data.
        After a repair ``objective_`` and ``v_`` are those of the master LP's objective at
        the repaired weights (which may exceed the LP's own caps on the slacks).
    sensitive
        The sensitive attribute: a column name of X, or None and pass ``groups`` to
        :meth:`fit`.  A named column stays a feature of the rules unless ``drop_sensitive``.
        Without ``fairness`` it constrains nothing (a UserWarning says so, unless
        ``drop_sensitive`` leaves it out of the rules).
    positive_class
        The positive class for 'equal_opportunity' (default: the last class in sorted
        order).
    pricing
        'tree' (the proxy PSP of §3.4: dual-weighted decision trees; a leaf whose training
        coverage is already in the pool does not enter again, not even for another class:
        see ``optrees.rug.generation``) or an exact
        solution of PSP (8) over conjunctions of at most ``max_depth`` literals
        (``x <= t`` / ``x > t`` at ``n_thresholds`` quantiles, ``x == v`` / ``x != v``):
        'enumerate', 'milp' (HiGHS) or 'exact' (enumeration when small, else the MILP).
        Exact pricing reports ``lower_bound_`` on the master LP (see
        ``optrees.rug.exact``); it is meant for small problems.
    lp_method
        How the master LP is solved.  'simplex': an optimal vertex, so few rules get
        weight.  'interior': interior point without crossover, stopped near the optimum as
        ruleopt does; small weights stay on many more rules (in bench/rug_vs_ruleopt.py as
        many as ruleopt's, about 4x as many as 'simplex' on adult).  Each such solve is
        certified to a relative gap of 1e-3 by a dual bound, else simplex re-solves it.
        'auto' (default): 'interior' for more than two classes without ``fairness``, else
        'simplex'.  With more than two classes ties and even lost votes can have zero loss
        in (3), and a vertex ties votes exactly and hides those samples from the pricing
        trees (on nursery, mean test accuracy 0.47 by simplex, 0.68 by interior point, 0.66
        for ruleopt); see ``optrees.rug.solve.LP_METHODS``.
    rule_labels
        The class of a rule from a pricing tree's leaf.  'duals' (the paper's code and
        ruleopt): the class minimizing its reduced cost, i.e. the dual-weighted majority of
        the samples it covers.  'majority': the class with the most (weighted) training
        samples it covers, so every rule's class is the most frequent one among its rows.
        'auto' (default): 'majority' for more than two classes, else 'duals'.  With more
        than two classes the LP counts a sample as met when its class's vote exceeds the
        *mean* of the other votes, and dual labels let two rules of different classes on
        nearly the same rows both count as right while the vote can pick only one (ecoli:
        a rule for class 7 covering 112 rows of class 0 and 40 of class 7; test accuracy
        0.40).  Over 20 splits in bench/rug_vs_ruleopt.py 'majority' raised mean test
        accuracy on ecoli from 0.758 to 0.812 and on nursery from 0.677 to 0.760, with fewer
        rules; for two classes the two agreed within 0.1 points.  Exact pricing prices every
        (rule, class) pair, so it takes 'auto' (= 'duals') or 'duals' only.
    verbose
        0 silent, 1 a progress line per master LP solve, 2 also the HiGHS log.
    """

    _parameters: ClassVar[dict[str, Param]] = _PARAMETERS

    _defaults: ClassVar[dict[str, Any]] = {
        "max_depth": 3, "pen_par": 1.0, "max_rmp_calls": 10, "threshold": 0.05,
        "rule_length_cost": True, "time_limit": None, "random_state": None, "fairness": None,
        "epsilon": 0.025, "sensitive": None, "drop_sensitive": False, "positive_class": None,
        "pricing": "tree", "n_thresholds": 10, "lp_method": "auto", "verbose": 0,
        "class_weight": None, "rule_labels": "auto", "fairness_repair": True}

    @property
    def gap_scope_(self) -> str:
        """What ``bound_`` / ``gap_`` are certified over: the master LP over the candidate
        rules (RUG's pool, RUX's leaves), not every rule set."""
        return "gap of the rule LP over its candidate rules"

    # ------------------------------------------------------------------ fit
    @logged_fit
    def fit(self, X: Any, y: Any, sample_weight: Any = None, groups: Any = None
            ) -> RUGClassifier:
        """Generate rules by column generation on the master LP and keep the weighted ones in
        ``rules_``.  ``sample_weight`` (third, as in scikit-learn and the tree estimators) /
        ``class_weight``: the slack of row i costs its weight in the master LP (fairness
        compares weighted group means); rows of weight 0 are left out (their ``v_`` is NaN).
        ``groups``: the sensitive group of each row when ``sensitive`` is None."""
        p = validate_params(self, _CHECKED_UP_FRONT)
        if p.rule_labels == "majority" and p.pricing != "tree":
            raise OptreesInputError(f"rule_labels='majority' needs pricing='tree' (got "
                                    f"{p.pricing!r}): exact pricing prices every (rule, "
                                    "class) pair")
        deadline = fit_deadline(p.time_limit)
        df = fit_frame(self, X)
        self.classes_, y_enc = check_target(y, df.shape[0])
        weights = fit_weights(sample_weight, p.class_weight, self.classes_, y_enc)
        fair, df = self._fairness(df, groups, p.fairness)
        keep = positive_rows(weights)
        df, y_enc, weights = drop_weightless(df, y_enc, weights)
        all_groups = None if fair is None else fair.groups
        if fair is not None and keep is not None:
            fair = dataclasses.replace(fair, groups=fair.groups[keep])
        self._columns = [str(c) for c in df.columns]  # the columns the rules may test
        self._categories = seen_categories(df)
        raw = RawColumns(df)
        realised = None if fair is None else self._realised(df, y_enc, weights, fair,
                                                              p.threshold)
        with stop_on_ctrl_c(deadline):
            # Ctrl-C: the loop winds down as at its deadline (a running LP stops at once)
            result = solve_rug(raw, y_enc, self.classes_, deadline, max_depth=p.max_depth,
                               pen_par=p.pen_par, max_rmp_calls=p.max_rmp_calls,
                               rule_length_cost=p.rule_length_cost, fairness=fair,
                               pricing=p.pricing, n_thresholds=p.n_thresholds,
                               lp_method=p.lp_method, rule_labels=p.rule_labels,
                               seed=p.random_state, sample_weight=weights,
                               realised=realised if p.fairness_repair else None,
                               threshold=p.threshold)
        self.all_rules_ = result.model
        self.rules_ = self.all_rules_.pruned(p.threshold).by_weight()  # rule 0 = heaviest
        v_fit = result.stats.pop("v")  # per sample: not a count for stats_
        self.v_ = v_fit if keep is None else np.full(len(keep), np.nan)
        if keep is not None:  # one entry per row of X: NaN where the weight was 0
            self.v_[keep] = v_fit
        self.lower_bound_ = result.stats["lower_bound"]
        self.n_rmp_calls_ = result.stats["n_rmp_calls"]
        self.lp_status_ = result.stats["lp_status"]
        self.objective_history_ = list(result.stats["objective_history"])
        self.fairness_groups_ = all_groups
        store_result(self, result, deadline, self._returned(result.stats))
        self.fairness_ = None
        if fair is not None:
            self._record_fairness(fair, realised(self.rules_))
        return self

    def _realised(self, df: pd.DataFrame, y_enc: np.ndarray, weights: np.ndarray | None,
                  fair: Fairness, threshold: float) -> Callable[[RuleSet], float]:
        """The realised training gap of ``fair``'s notion of a rule set (pruned at
        ``threshold`` as ``rules_`` is), from its predictions on the training rows ``df``
        (:func:`optrees.fairness.realised_gap`: the definitions, weighted as the fit)."""
        def realised(rules: RuleSet) -> float:
            pred = rules.pruned(threshold).predict_index(df)
            return realised_gap(fair.kind, y_enc, pred, fair.groups, positive=fair.positive,
                                sample_weight=weights)

        return realised

    def _returned(self, stats: dict[str, Any]) -> str:
        """What an early stop returns, for its warning: the rule set after the master LP
        solves, or what the fairness repair kept when the time limit stopped it."""
        text = f"returning the rule set after {self.n_rmp_calls_} master LP solves"
        repair = stats.get("fairness_repair")
        if repair is None or not repair["stopped"]:
            return text
        if not repair["met"]:
            return f"{text}; the time limit stopped the fairness repair before it met the cap"
        kept = ("the rule set without rules (every row the default class)"
                if repair["chosen"] == NO_RULES else f"the repair's {repair['chosen']}")
        return (f"the time limit stopped the fairness repair: returning {kept}, the best "
                "rule set found that meets the cap on the training rows")

    def _record_fairness(self, fair: Fairness, gap: float) -> None:
        """``fairness_`` / ``stats_["fairness"]`` and the warning when the cap is not met."""
        summary = fairness_summary(fair.kind, fair.epsilon, gap, fair.group_names)
        repair = self.stats_.get("fairness_repair")
        if not self.fairness_repair:
            note = "fairness_repair=False"
        elif repair is None:
            note = "no repair was tried"
        elif repair["stopped"]:
            note = ("the time limit stopped the repair before any rule set met it (the rule "
                    f"set without rules gives {repair.get('realised_after', float('nan')):.4f})")
        else:
            note = ("the repair could not meet it (tightened LP caps gave "
                    f"{[round(r, 4) for r in repair['realised']]}; the rule set without rules "
                    f"gives {repair.get('realised_after', float('nan')):.4f})")
        record_fairness(self, summary, note)

    def _fairness(self, df: pd.DataFrame, groups: Any,
                  kind: str | None) -> tuple[Fairness | None, pd.DataFrame]:
        """FairRUG's groups and cap (None without fairness ``kind``) and the columns the rules
        may test (without a dropped sensitive column)."""
        if kind is None:
            return None, self._without_fairness(df, groups)
        kind = canonical_notion(kind)
        epsilon = check_param("epsilon", self.epsilon, _PARAMETERS["epsilon"].rule)
        gvec, df = self._groups(df, groups)
        gnames, gidx = np.unique(gvec, return_inverse=True)
        if len(gnames) < 2:
            raise OptreesInputError(
                f"the sensitive attribute has a single group ({gnames[0]!r}); fairness "
                "constraints need at least two groups")
        check_group_count(len(gnames), "groups" if self.sensitive is None else
                          f"the sensitive column {self.sensitive!r}")
        positive = positive_class_index(self.positive_class, self.classes_)
        return Fairness(kind, gidx, epsilon, positive, list(gnames)), df

    def _without_fairness(self, df: pd.DataFrame, groups: Any) -> pd.DataFrame:
        """fairness=None: ``groups`` are refused; a ``sensitive`` column is checked and
        dropped if asked, else a warning says that nothing uses it (not silently ignored)."""
        if groups is not None:
            raise OptreesInputError("groups were given but fairness is None")
        if self.sensitive is None:
            return df
        _, df = self._groups(df, None)
        if not self.drop_sensitive:
            warnings.warn(
                f"RUGClassifier: sensitive={self.sensitive!r} has no effect without fairness: "
                "no fairness constraint is imposed; set fairness='dmc', 'odm' or "
                "'equal_opportunity' to use "
                "it (or drop_sensitive=True to keep the column out of the rules)",
                UserWarning, stacklevel=user_stacklevel())
        return df

    def _groups(self, df: pd.DataFrame, groups: Any) -> tuple[np.ndarray, pd.DataFrame]:
        if groups is not None and self.sensitive is not None:
            raise OptreesInputError("give the sensitive attribute either as sensitive=COLUMN "
                                    "or as groups=..., not both")
        if groups is None:
            if self.sensitive is None:
                raise OptreesInputError(
                    f"fairness='{self.fairness}' needs the sensitive attribute: set "
                    "sensitive=<column name> or pass groups=<group per sample> to fit")
            name = str(self.sensitive)  # the columns are named by their text after fit_frame
            if name not in df.columns:
                raise not_a_column("sensitive", self.sensitive, df.columns)
            gvec = df[name].astype(object).to_numpy()
            if self.drop_sensitive:
                df = df.drop(columns=[name])
                if df.shape[1] == 0:
                    raise OptreesInputError("X has no columns left after dropping the "
                                            "sensitive attribute")
            return gvec, df
        gvec = np.asarray(groups.to_numpy() if isinstance(groups, pd.Series) else groups,
                          dtype=object)
        if gvec.ndim != 1 or len(gvec) != len(df):
            raise OptreesInputError(
                f"groups must be one value per sample: X has {len(df)} rows, groups has "
                f"shape {gvec.shape}")
        if pd.isna(pd.Series(gvec)).any():
            raise OptreesInputError("groups contain missing values")
        return gvec, df

    # ------------------------------------------------------------------ predict
    def _frame(self, X: Any) -> pd.DataFrame:
        df = predict_frame(self, X, "rules_")[self._columns]  # drops a dropped sensitive column
        warn_unseen(self, df, self._categories)
        return df

    def predict(self, X: Any) -> np.ndarray:
        """Label with the largest weighted vote of the rules that fire on each row of ``X``."""
        df = self._frame(X)  # NotFittedError before fit
        return self.rules_.predict(df)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Normalized weighted votes of the covering rules (see :class:`RuleSet`)."""
        df = self._frame(X)
        return self.rules_.predict_proba(df)

    def decision_function(self, X: Any) -> np.ndarray:
        """Prediction vectors (n, K) of §3.1; for two classes the score of ``classes_[1]``."""
        df = self._frame(X)
        D = self.rules_.decision_function(df)
        return D[:, 1] if len(self.classes_) == 2 else D

    def explain(self, X: Any) -> Explanation:
        """Per sample, the rules that fire with their weights (empty: default class);
        ``"rule": j`` is ``rules_.rules[j]``, printed as "rule j" by :meth:`export_text`.
        A list that ``print`` shows as text."""
        df = self._frame(X)
        return self.rules_.explain(df)

    def export_text(self) -> str:
        """The rules as ``IF ... THEN class = ...`` lines, heaviest first (see :class:`RuleSet`)."""
        check_is_fitted(self, "rules_")
        return self.rules_.export_text()

    def plot(self, path: Any = None, max_rules: int | None = 20, **kwargs: Any) -> Any:
        """matplotlib Figure of the rule weights (saved to ``path`` when given)."""
        check_is_fitted(self, "rules_")
        return self.rules_.plot(max_rules=max_rules, path=path, **kwargs)
