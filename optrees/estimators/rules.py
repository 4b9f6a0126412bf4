"""scikit-learn estimator for RUG / FairRUG (rug-rule-generation.txt §3): weighted rule sets."""

from __future__ import annotations

import numbers
import time
import warnings
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._validation import OptreesInputError, check_frame, check_target, check_time_limit
from ..colgen.rug import Fairness, RawColumns, RuleGeneration
from ..models.rule_set import RuleSet
from ._base import TimeLimitWarning

_FAIRNESS = (None, "dmc", "odm", "eop")


def _check_int(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise OptreesInputError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def _check_real(name: str, value: Any, low: float, high: float = np.inf) -> float:
    if (isinstance(value, bool) or not isinstance(value, numbers.Real)
            or not np.isfinite(value) or not low <= value <= high):
        raise OptreesInputError(f"{name} must be a number in [{low:g}, {high:g}], got {value!r}")
    return float(value)


class RUGClassifier(ClassifierMixin, BaseEstimator):
    """Rule generation (RUG) by column generation on the master LP (3); FairRUG with fairness.

    Parameters
    ----------
    max_depth : depth of the pricing trees (rules have at most this many conditions).
    pen_par : lambda >= 0, the weight of the rule costs in the LP objective.
    max_rmp_calls : at most this many solves of the restricted master LP.
    threshold : rules with weight < threshold * (largest weight) are dropped after fitting.
    rule_length_cost : rule cost c_j = rule length (True, default) or 1 (False).
    time_limit : seconds; on timeout the current model is returned with a TimeLimitWarning.
    random_state : seed of the pricing trees and of HiGHS.
    fairness : None, 'dmc' (11)-(12), 'odm' (15)-(16) or 'eop' (DMC on ``positive_class``).
    epsilon : fairness cap (>= 0).
    sensitive : the sensitive attribute: a column name of X, or None and pass ``groups`` to
        :meth:`fit`.  A named column stays a feature of the rules unless ``drop_sensitive``.
    positive_class : the positive class for 'eop' (default: the last class in sorted order).

    Fitted attributes: ``rules_`` (pruned :class:`RuleSet`), ``all_rules_`` (the whole pool with
    LP weights), ``objective_`` (LP objective), ``n_rmp_calls_``, ``lp_status_`` (HiGHS status of
    the last LP used), ``status_`` ('converged' | 'iteration_limit' | 'time_limit'),
    ``objective_history_``, ``v_`` (slacks), ``fit_seconds_``, ``classes_``.
    Uncovered samples are predicted as the majority training class.
    """

    def __init__(self, max_depth: int = 3, pen_par: float = 1.0, max_rmp_calls: int = 10,
                 threshold: float = 0.05, rule_length_cost: bool = True,
                 time_limit: float | None = None, random_state: int | None = None,
                 fairness: str | None = None, epsilon: float = 0.025,
                 sensitive: Any = None, drop_sensitive: bool = False,
                 positive_class: Any = None) -> None:
        self.max_depth = max_depth
        self.pen_par = pen_par
        self.max_rmp_calls = max_rmp_calls
        self.threshold = threshold
        self.rule_length_cost = rule_length_cost
        self.time_limit = time_limit
        self.random_state = random_state
        self.fairness = fairness
        self.epsilon = epsilon
        self.sensitive = sensitive
        self.drop_sensitive = drop_sensitive
        self.positive_class = positive_class

    # ------------------------------------------------------------------ fit
    def fit(self, X: Any, y: Any, groups: Any = None) -> RUGClassifier:
        t0 = time.perf_counter()
        max_depth = _check_int("max_depth", self.max_depth, 1)
        pen_par = _check_real("pen_par", self.pen_par, 0.0)
        max_calls = _check_int("max_rmp_calls", self.max_rmp_calls, 1)
        threshold = _check_real("threshold", self.threshold, 0.0, 1.0)
        limit = check_time_limit(self.time_limit)
        if self.random_state is not None:
            _check_int("random_state", self.random_state, 0)
        seed = 0 if self.random_state is None else int(self.random_state)
        if self.fairness not in _FAIRNESS:
            raise OptreesInputError(
                f"fairness must be one of None, 'dmc', 'odm', 'eop', got {self.fairness!r}")
        df = check_frame(X)
        self.classes_, y_enc = check_target(y, df.shape[0])
        fair = None
        if self.fairness is not None:
            epsilon = _check_real("epsilon", self.epsilon, 0.0)
            gvec, df = self._groups(df, groups)
            gnames, gidx = np.unique(gvec, return_inverse=True)
            if len(gnames) < 2:
                raise OptreesInputError(
                    f"the sensitive attribute has a single group ({gnames[0]!r}); fairness "
                    "constraints need at least two groups")
            positive = len(self.classes_) - 1
            if self.positive_class is not None:
                hit = np.flatnonzero(self.classes_ == self.positive_class)
                if len(hit) == 0:
                    raise OptreesInputError(
                        f"positive_class {self.positive_class!r} is not a class of y "
                        f"({list(self.classes_)})")
                positive = int(hit[0])
            fair = Fairness(self.fairness, gidx, epsilon, positive, list(gnames))
        elif groups is not None:
            raise OptreesInputError("groups were given but fairness is None")
        if isinstance(X, pd.DataFrame):
            self.feature_names_in_ = np.asarray([str(c) for c in df.columns], dtype=object)
        self.n_features_in_ = df.shape[1]
        self._columns = [str(c) for c in df.columns]
        df = df.set_axis(self._columns, axis=1)
        raw = RawColumns(df)
        deadline = None if limit is None else t0 + limit
        gen = RuleGeneration(raw, y_enc, len(self.classes_), max_depth=max_depth,
                             pen_par=pen_par, max_rmp_calls=max_calls,
                             rule_length_cost=bool(self.rule_length_cost), fairness=fair,
                             random_state=seed, deadline=deadline)
        res = gen.run()
        default = int(np.argmax(np.bincount(y_enc, minlength=len(self.classes_))))
        self.all_rules_ = RuleSet(res.rules, self.classes_, self._columns, default)
        self.rules_ = self.all_rules_.pruned(threshold)
        self.objective_ = res.objective
        self.n_rmp_calls_ = res.n_rmp_calls
        self.lp_status_ = res.lp_status
        self.status_ = res.status
        self.objective_history_ = list(res.history)
        self.v_ = res.v
        self.fairness_groups_ = None if fair is None else fair.groups
        self.fit_seconds_ = time.perf_counter() - t0
        if res.status == "time_limit":
            warnings.warn(
                f"RUGClassifier: time limit reached after {self.fit_seconds_:.1f}s and "
                f"{res.n_rmp_calls} master LP solves; returning the current rule set",
                TimeLimitWarning, stacklevel=2)
        return self

    def _groups(self, df: pd.DataFrame, groups: Any) -> tuple[np.ndarray, pd.DataFrame]:
        if groups is not None and self.sensitive is not None:
            raise OptreesInputError("give the sensitive attribute either as sensitive=COLUMN "
                                    "or as groups=..., not both")
        if groups is None:
            if self.sensitive is None:
                raise OptreesInputError(
                    f"fairness='{self.fairness}' needs the sensitive attribute: set "
                    "sensitive=<column name> or pass groups=<group per sample> to fit")
            if self.sensitive not in df.columns:
                raise OptreesInputError(
                    f"sensitive column {self.sensitive!r} is not a column of X "
                    f"(columns: {list(df.columns)[:10]})")
            gvec = df[self.sensitive].astype(object).to_numpy()
            if self.drop_sensitive:
                df = df.drop(columns=[self.sensitive])
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
        check_is_fitted(self, "rules_")
        df = check_frame(X)
        if self.fairness is not None and self.drop_sensitive and self.sensitive in df.columns:
            df = df.drop(columns=[self.sensitive])
        if isinstance(X, pd.DataFrame) and all(c in df.columns for c in self._columns):
            return df[self._columns]
        if df.shape[1] != len(self._columns):
            raise OptreesInputError(
                f"X has {df.shape[1]} columns but the model was fitted on {len(self._columns)}")
        return df.set_axis(self._columns, axis=1)

    def predict(self, X: Any) -> np.ndarray:
        return self.rules_.predict(self._frame(X))

    def predict_proba(self, X: Any) -> np.ndarray:
        """Normalized weighted votes of the covering rules (see :class:`RuleSet`)."""
        return self.rules_.predict_proba(self._frame(X))

    def decision_function(self, X: Any) -> np.ndarray:
        """Prediction vectors (n, K) of §3.1; for two classes the score of ``classes_[1]``."""
        D = self.rules_.decision_function(self._frame(X))
        return D[:, 1] if len(self.classes_) == 2 else D

    def explain(self, X: Any) -> list[list[dict[str, Any]]]:
        """Per sample, the rules that fire with their weights (empty: default class)."""
        return self.rules_.explain(self._frame(X))

    def export_text(self) -> str:
        check_is_fitted(self, "rules_")
        return self.rules_.export_text()
