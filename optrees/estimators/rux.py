"""scikit-learn estimator for RUX: a weighted rule set read from a fitted tree ensemble's
leaves, weighted by RUG's master LP (3) solved once (FairRUG's rows with ``fairness``)."""

from __future__ import annotations

import math
import re
import warnings
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from sklearn.base import is_classifier

from .._params import (
    CLASS_WEIGHT,
    RANDOM_STATE,
    TIME_LIMIT,
    VERBOSE,
    Check,
    Integer,
    Options,
    Param,
    Params,
    Real,
    as_given,
    optional,
    validate_params,
)
from .._validation import OptreesInputError, check_frame, check_target, fit_weights
from ..encoding.columns import RawColumns
from ..fairness import OLD_SPELLINGS, RUG_NOTIONS, fairness_summary, record_fairness
from ..rug.costs import RULE_COSTS
from ..rug.ensemble import ensemble_trees, leaf_rules
from ..rug.ensemble_fit import (
    NAMED,
    encoded_names,
    fit_ensemble,
    is_fitted,
    new_ensemble,
    raw_literals,
)
from ..rug.fairness import Fairness
from ..rug.rux import solve_rux
from ..rug.solve import LP_METHODS, lp_interior
from ._base import (
    Deadline,
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
from .rules import RUGClassifier

_NONNEGATIVE = Real(0.0, math.inf, high_open=True)

ENSEMBLE_SHARE = 0.3
"""Share of a time limit the ensemble RUX fits itself may take: its LP over the leaves took
about half the forest's time (magic, 100 trees: forest 5.4 s, leaves and LP 2.5 s)."""

READ_SHARE = 0.1
"""Share of the time left that reading the ensemble's leaves may take (trees are read while
it lasts): the work on what was read took about six times as long (magic, a fitted forest
of 300 trees of depth 5, 6,146 leaves read: reading 0.75 s, the leaves' cells and the LP
4.6 s)."""


def _ensemble(value: Any) -> Any:
    """A name of :data:`NAMED`, or a tree ensemble classifier (checked at fit)."""
    if isinstance(value, str):
        if value not in NAMED:
            raise ValueError
        return value
    if value is None or not is_classifier(value):
        raise OptreesInputError(
            f"estimator must be a tree ensemble classifier or one of {', '.join(NAMED)}, got "
            f"{type(value).__name__ if value is not None else None}")
    return value


_PARAMETERS: dict[str, Param] = {
    "estimator": Param(Check(f"a tree ensemble classifier (fitted: used as it is; unfitted: "
                             f"fitted on X) or one of {', '.join(NAMED)}", _ensemble),
                       "the ensemble whose leaves are the rules, or the name of one RUX "
                       "fits", cli="--ensemble"),
    "n_estimators": Param(Integer(1), "trees of the ensemble RUX fits by name"),
    "max_depth": Param(Integer(1), "depth of the trees of the ensemble RUX fits by name"),
    "pen_par": Param(_NONNEGATIVE, "weight of the rule costs (lambda of the master LP)"),
    "rule_cost": Param(Options(*RULE_COSTS), "cost of a leaf: Gini impurity, length or 1 "
                       "(scaled so the largest is 1)"),
    "threshold": Param(Real(0.0, 1.0), "drop rules lighter than threshold * largest weight"),
    "lp_method": Param(Options(*LP_METHODS), "master LP by simplex (few rules), interior "
                       "point (as ruleopt) or 'auto': interior point for > 2 classes"),
    "time_limit": TIME_LIMIT,
    "random_state": RANDOM_STATE,
    "fairness": Param(optional(Options(*RUG_NOTIONS, *OLD_SPELLINGS)),
                      "FairRUG constraint, needs sensitive or groups"),
    "epsilon": Param(_NONNEGATIVE, "fairness cap"),
    "sensitive": Param(Check("None or a column name of X", as_given),
                       "sensitive attribute column"),
    "positive_class": Param(Check("None or a class of y", as_given),
                            "the positive class of 'equal_opportunity'"),
    "class_weight": CLASS_WEIGHT,
    "verbose": VERBOSE,
}


class RUXClassifier(RUGClassifier):
    """RUX: the leaves of a fitted tree ensemble as rules, weighted by one solve of RUG's
    master LP (3) -- a small readable rule set that keeps much of the ensemble's accuracy.

    ``estimator``: a *fitted* RandomForestClassifier, ExtraTreesClassifier,
    GradientBoostingClassifier (every tree of every class), HistGradientBoostingClassifier,
    LightGBM's LGBMClassifier or XGBoost's XGBClassifier, without categorical splits.  Each
    leaf that training rows reach is a rule (the tests on its path, thresholds on X's
    columns, named as X's or the ensemble's columns) of the class of its weighted training
    majority (``optrees.rug.ensemble``); ``optrees.rug.rux.solve_rux`` weighs them.
    ``fit(X, y)`` must get X with the columns the ensemble was fitted on.

    Fitted attributes as :class:`RUGClassifier` (``rules_``, ``all_rules_``, ``objective_``,
    ``bound_``, ``gap_``, ``status_``, ``lp_status_``, ``v_``, ``stats_``, ``fairness_``);
    ``explain``, ``export_text``, ``predict_proba`` and ``plot`` are RUG's.

    Parameters
    ----------
    pen_par
        lambda >= 0, the weight of the rule costs in (3).
    rule_cost
        'gini' (ruleopt's default: the leaf's impurity, so pure leaves are nearly free),
        'length' (number of conditions) or 'unit'; divided by the largest cost.
    threshold
        Rules with weight < threshold * (largest weight) are dropped from ``rules_``
        (0: every rule with positive LP weight stays).
    lp_method
        As :class:`RUGClassifier` ('auto': interior point for more than two classes without
        fairness, else simplex).
    fairness, epsilon, sensitive, positive_class
        FairRUG's caps on the LP as in :class:`RUGClassifier`; there is no repair step (the
        realised training gap is measured and a FairnessWarning says when it is over).
        ``sensitive`` must be a column the ensemble was fitted on (it stays in the rules).
    """

    _parameters: ClassVar[dict[str, Param]] = _PARAMETERS
    drop_sensitive = False  # the ensemble's rules may test every column it was fitted on

    _defaults: ClassVar[dict[str, Any]] = {
        "estimator": "random_forest", "n_estimators": 100, "max_depth": 3, "pen_par": 1.0,
        "rule_cost": "gini", "threshold": 0.0,
        "lp_method": "auto", "time_limit": None, "random_state": None, "fairness": None,
        "epsilon": 0.025, "sensitive": None, "positive_class": None, "class_weight": None,
        "verbose": 0}
    _positional = ('estimator',)

    @property
    def gap_scope_(self) -> str:
        """What ``bound_`` / ``gap_`` are certified over: the LP (3) over every leaf of the
        ensemble (its candidate rules; leaves of trees the time limit kept it from reading
        priced into the bound), or, when the time limit stopped that pricing, over the
        leaves of the trees read; when it stopped the growing of RUX's own ensemble, over
        the leaves of the trees grown."""
        stats = getattr(self, "stats_", {})
        grown = stats.get("ensemble_grown")  # (trees grown, asked for) of RUX's own ensemble
        if stats.get("bound_scope"):
            return f"gap of the rule LP over {stats['bound_scope']}" + (
                "" if grown is None else f" ({grown[0]} of {grown[1]} trees grown in time)")
        if grown is not None:
            return (f"gap of the rule LP over the leaves of the {grown[0]} of {grown[1]} "
                    "trees grown in time")
        return super().gap_scope_  # every leaf of the ensemble, read or priced

    @logged_fit
    def fit(self, X: Any, y: Any, sample_weight: Any = None, groups: Any = None
            ) -> RUXClassifier:
        """Read the ensemble's leaves on the training rows and weigh them by (3);
        ``sample_weight`` (third, as in scikit-learn) / ``class_weight``: the slack of row i
        costs its weight (rows of weight 0 left out); ``groups``: the sensitive group per row
        when ``sensitive`` is None."""
        p = validate_params(self, {k: v for k, v in _PARAMETERS.items() if k != "epsilon"})
        deadline = fit_deadline(p.time_limit)
        own = isinstance(p.estimator, str) or not is_fitted(p.estimator)
        trees = None if own else self._trees()
        df = fit_frame(self, X)
        if not own:  # the fitted ensemble's columns, by its names
            df = df.set_axis(self._names(X), axis=1)
        self.classes_, y_enc = check_target(y, df.shape[0])
        weights = fit_weights(sample_weight, p.class_weight, self.classes_, y_enc)
        fair, df = self._fairness(df, groups, p.fairness)
        keep = positive_rows(weights)
        df, y_enc, weights = drop_weightless(df, y_enc, weights)
        if fair is not None and keep is not None:
            fair = Fairness(fair.kind, fair.groups[keep], fair.epsilon, fair.positive,
                            fair.group_names)
        self._columns = [str(c) for c in df.columns]
        cut = None  # (trees grown, trees asked for) when the time limit cut the ensemble
        if own:  # a third of the time for the ensemble, the rest to read it and for the LP
            leaves, cut = self._own_leaves(df, y_enc, weights, p,
                                           deadline.share(ENSEMBLE_SHARE), deadline)
        else:
            self.estimator_, self._categories = p.estimator, {}
            leaves = leaf_rules(trees, df.to_numpy(dtype=float), self._columns,
                                deadline.share(READ_SHARE))
        if leaves.n_read < leaves.n_trees:  # the deadline stopped the reading
            cut = (leaves.n_read, leaves.n_trees if cut is None else cut[1])
        interior = lp_interior(p.lp_method, len(self.classes_), fair is not None)
        with stop_on_ctrl_c(deadline):
            result = solve_rux(leaves, y_enc, self.classes_, self._columns, deadline,
                               pen_par=p.pen_par, rule_cost=p.rule_cost, fairness=fair,
                               interior=interior, seed=p.random_state,
                               sample_weight=weights)
        if cut is not None and result.status == "optimal":
            result.status = "time_limit"  # the LP's optimum over the trees grown in time
            result.stats["ensemble_trees"] = cut[0]
        if own and cut is not None and cut[1] > leaves.n_trees:  # fewer trees grown
            result.stats["ensemble_grown"] = (leaves.n_trees, cut[1])
        self.all_rules_ = result.model
        self.rules_ = self.all_rules_.pruned(p.threshold).by_weight()
        v_fit = result.stats.pop("v")
        self.v_ = v_fit if keep is None else np.full(len(keep), np.nan)
        if keep is not None:
            self.v_[keep] = v_fit
        self.lp_status_ = result.stats["lp_status"]
        self.n_rmp_calls_ = 1
        self.fairness_groups_ = None if fair is None else fair.groups
        grown_text = "" if cut is None or "ensemble_trees" not in result.stats else \
            f" over the {cut[0]} of {cut[1]} trees grown and read in time"
        store_result(self, result, deadline, {
            "lp": f"returning the LP's rule set{grown_text}",
            "vote": "no LP solved in time: returning every leaf weighted alike (the "
                    "ensemble's vote, scaled to lower the LP's objective"
                    + (", its slacks within the fairness caps)" if fair is not None else ")"),
            "majority": "no LP solved in time: every row gets the majority class"}[
                result.stats["start"]])
        self.fairness_ = None
        if fair is not None:
            realised = self._realised(df, y_enc, weights, fair, p.threshold)
            self._record_fairness(fair, realised(self.rules_))
        return self

    def _trees(self) -> list[Any]:
        """The fitted ensemble's trees, or one clear error (not a tree ensemble)."""
        return ensemble_trees(self.estimator)

    def _own_leaves(self, df: pd.DataFrame, y_enc: np.ndarray, weights: np.ndarray | None,
                    p: Params, deadline: Deadline, fit: Deadline
                    ) -> tuple[Any, tuple[int, int] | None]:
        """The leaves of the ensemble RUX fits itself (``estimator_``) on the raw columns
        (categoricals one-hot), as rules on those columns, and (trees grown, trees asked
        for) when ``deadline`` stopped it adding trees (:func:`fit_ensemble`), else None;
        the leaves are read within a share of the ``fit``'s deadline."""
        raw = RawColumns(df)
        ensemble = new_ensemble(p.estimator, p.n_estimators, p.max_depth, p.random_state)
        asked = ensemble.get_params().get("n_estimators")
        self.estimator_ = fit_ensemble(ensemble, raw.matrix, y_enc, weights, deadline)
        grown = _n_trees(self.estimator_)
        # fewer trees: the deadline's doing, unless boosting stopped itself (n_iter_no_change)
        natural = getattr(ensemble, "n_iter_no_change", None) is not None and \
            not deadline.expired()
        cut = (grown, int(asked)) if grown is not None and isinstance(asked, int) and \
            grown < asked and not natural else None
        self._categories = seen_categories(df)
        leaves = leaf_rules(ensemble_trees(self.estimator_), raw.matrix,
                            encoded_names(raw.encoded), fit.share(READ_SHARE))
        leaves.literals = [raw_literals(lits, raw.encoded, self._columns)
                           for lits in leaves.literals]
        return leaves, cut

    def _names(self, X: Any) -> list[str]:
        """The names of X's columns for the rules (the ensemble's when it knows them), after
        checking that X has numeric columns, those the ensemble was fitted on; else one
        error naming the difference."""
        df = check_frame(X)
        est = self.estimator
        n_in = getattr(est, "n_features_in_", None)
        if n_in is not None and df.shape[1] != n_in:
            raise OptreesInputError(f"X has {df.shape[1]} columns but the ensemble was fitted "
                                    f"on {n_in}")
        names = getattr(est, "feature_names_in_", None)
        if names is not None:
            names = [str(c) for c in names]
            if isinstance(X, pd.DataFrame):
                cols = [str(c) for c in df.columns]
                if _rewritten(names) == _rewritten(cols):  # LightGBM's "a b" -> "a_b"
                    names = cols
                if cols != names:
                    missing = [c for c in names if c not in cols]
                    extra = [c for c in cols if c not in names]
                    raise OptreesInputError(
                        "X's columns differ from those the ensemble was fitted on"
                        + (f": missing {missing[:5]}" if missing else "")
                        + (f", not in the ensemble {extra[:5]}" if extra else "")
                        + ("" if missing or extra else ": same names, another order"))
        bad = [str(c) for c in df.columns if not pd.api.types.is_numeric_dtype(df[c])]
        if bad:
            raise OptreesInputError(f"the ensemble's trees need numeric columns; not numeric: "
                                    f"{bad[:5]}")
        return names if names is not None else [str(c) for c in df.columns]

    def _frame(self, X: Any) -> pd.DataFrame:
        """X at predict time, with the columns the rules test (a warning names categories
        the fit did not see)."""
        df = predict_frame(self, X, "rules_").set_axis(self._columns, axis=1)
        warn_unseen(self, df, self._categories)
        return df

    def _without_fairness(self, df: pd.DataFrame, groups: Any) -> pd.DataFrame:
        """fairness=None: ``groups`` are refused, a ``sensitive`` column is checked and a
        warning says that nothing uses it."""
        if groups is not None:
            raise OptreesInputError("groups were given but fairness is None")
        if self.sensitive is not None:
            self._groups(df, None)  # the column must exist
            warnings.warn(f"RUXClassifier: sensitive={self.sensitive!r} has no effect without "
                          "fairness; set fairness='dmc', 'odm' or 'equal_opportunity' to use it",
                          UserWarning, stacklevel=user_stacklevel())
        return df

    def _record_fairness(self, fair: Fairness, gap: float) -> None:
        """``fairness_`` and the warning when the realised gap is over the cap (no repair)."""
        summary = fairness_summary(fair.kind, fair.epsilon, gap, fair.group_names)
        record_fairness(self, summary, "RUX caps the LP's slacks and has no repair step")


def _n_trees(ensemble: Any) -> int | None:
    """Trees (forests) or boosting stages / iterations an ensemble grew, None when unknown."""
    booster = getattr(ensemble, "booster_", None)  # LightGBM
    if booster is not None:
        return int(booster.current_iteration())
    if hasattr(ensemble, "get_booster"):  # XGBoost
        return int(ensemble.get_booster().num_boosted_rounds())
    grown = getattr(ensemble, "n_estimators_", None)  # gradient boosting's stages
    if grown is None and isinstance(getattr(ensemble, "estimators_", None), list):
        grown = len(ensemble.estimators_)  # a forest's trees
    return None if grown is None else int(grown)


def _rewritten(names: list[str]) -> list[str]:
    """Column names without the characters LightGBM replaces in the names it keeps."""
    return [re.sub(r"[^0-9A-Za-z]", "_", n) for n in names]
