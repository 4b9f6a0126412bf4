"""Interpretability and fairness metrics of [RUG] (§4.2, §4.3, Tables 1-4).

Interpretability (a :class:`RuleSet`, or a fitted estimator with ``rules_``):

* ``n_rules`` (NoR): rules in the model (after pruning);
* ``avg_rule_length`` (Avg. RL): mean number of conditions per rule;
* ``avg_rules_per_sample`` (Avg. NoRpS): mean number of rules that fire on a sample of X
  (uncovered samples count 0);
* ``avg_rule_length_per_sample`` (Avg. RLpS): per sample, the mean length of its firing rules,
  averaged over the covered samples of X.

Fairness scores, from labels, predictions and a group per sample, reported as in Tables 3-4
as ``1 - (largest gap)`` (1 = perfectly fair):

* ``dmc_score``: gap = max over classes k and groups g, g' of
  ``|P(yhat != y | y = k, G = g) - P(yhat != y | y = k, G = g')|`` (disparate mistreatment
  per class, (10)); class/group cells without samples are skipped;
* ``odm_score``: gap = max over g, g' of ``|P(yhat != y | G = g) - P(yhat != y | G = g')|`` (14);
* ``eop_score``: the DMC gap on the positive class only (equal opportunity: equal false
  negative rates).

``fairness_gap`` measures every notion of the package by its name
(``optrees.fairness.NOTIONS``: the tree estimators' statistical parity, conditional
parity, predictive equality, equal opportunity, equalized odds, and DMC / ODM).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ._validation import OptreesInputError
from .fairness_vocabulary import NOTIONS, canonical_notion
from .models.rule_set import RuleSet


def _rule_set(model: Any) -> RuleSet:
    if isinstance(model, RuleSet):
        return model
    rs = getattr(model, "rules_", None)
    if isinstance(rs, RuleSet):
        return rs
    raise OptreesInputError("expected a RuleSet or a fitted estimator with a rules_ RuleSet")


def _frame_for(model: Any, X: Any) -> Any:
    if not isinstance(model, RuleSet) and hasattr(model, "_frame"):
        return model._frame(X)
    return X


def n_rules(model: Any) -> int:
    """NoR: number of rules of the model (after pruning)."""
    return len(_rule_set(model))


def avg_rule_length(model: Any) -> float:
    """Avg. RL: mean number of conditions per rule (0 without rules)."""
    rs = _rule_set(model)
    return float(np.mean([r.length for r in rs.rules])) if len(rs) else 0.0


def _fired(model: Any, X: Any) -> tuple[np.ndarray, np.ndarray]:
    rs = _rule_set(model)
    A = rs.coverage(_frame_for(model, X)) & (rs.weights > 0)[None, :]
    lengths = np.array([r.length for r in rs.rules], dtype=float)
    return A, lengths


def avg_rules_per_sample(model: Any, X: Any) -> float:
    """Avg. NoRpS: mean number of rules that fire on a sample of ``X`` (uncovered ones count 0)."""
    A, _ = _fired(model, X)
    return float(A.sum(axis=1).mean()) if A.shape[0] else 0.0


def avg_rule_length_per_sample(model: Any, X: Any) -> float:
    """Avg. RLpS: mean length of the rules that fire on a sample, averaged over covered samples."""
    A, lengths = _fired(model, X)
    counts = A.sum(axis=1)
    covered = counts > 0
    if not covered.any():
        return 0.0
    per_sample = (A[covered] @ lengths) / counts[covered]
    return float(per_sample.mean())


def interpretability(model: Any, X: Any) -> dict[str, float]:
    """NoR, Avg. RL, Avg. NoRpS, Avg. RLpS (§4.2) of a rule model on the samples X."""
    return {"NoR": n_rules(model), "Avg.RL": avg_rule_length(model),
            "Avg.NoRpS": avg_rules_per_sample(model, X),
            "Avg.RLpS": avg_rule_length_per_sample(model, X)}


# --------------------------------------------------------------------------- fairness
def _arrays(y_true: Any, y_pred: Any, groups: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    def arr(v: Any) -> np.ndarray:
        return np.asarray(v.to_numpy() if isinstance(v, pd.Series) else v, dtype=object)

    yt, yp, g = arr(y_true), arr(y_pred), arr(groups)
    if not (yt.ndim == yp.ndim == g.ndim == 1) or not (len(yt) == len(yp) == len(g)):
        raise OptreesInputError(
            f"y_true, y_pred and groups must be 1-D of equal length, got lengths "
            f"{len(yt)}, {len(yp)}, {len(g)}")
    if len(yt) == 0:
        raise OptreesInputError("empty input")
    return yt, yp, g


def _weights(sample_weight: Any, n: int) -> np.ndarray:
    if sample_weight is None:
        return np.ones(n)
    w = np.asarray(sample_weight, dtype=float)
    if w.shape != (n,) or not np.all(np.isfinite(w)) or (w < 0).any():
        raise OptreesInputError(f"sample_weight must be {n} finite values >= 0")
    return w


def _last_label(labels: np.ndarray) -> Any:
    """The largest label in sorted order (the default positive class, e.g. 1 of 0/1)."""
    return sorted(pd.unique(labels), key=lambda v: (str(type(v)), v))[-1]


def _group_gap(event: np.ndarray, cell: np.ndarray, g: np.ndarray, w: np.ndarray) -> float:
    """Largest minus smallest weighted rate of ``event`` within ``cell`` over the groups
    with weight in the cell (0 with fewer than two such groups)."""
    rates = []
    for gg in pd.unique(g[cell]):
        member = cell & (g == gg)
        total = float(w[member].sum())
        if total > 0:
            rates.append(float(w[member & event].sum()) / total)
    return float(max(rates) - min(rates)) if len(rates) >= 2 else 0.0


def dmc_gap(y_true: Any, y_pred: Any, groups: Any, classes: Any = None,
            sample_weight: Any = None) -> float:
    """Largest difference in per-class error rate between two groups (10), rates weighted
    by ``sample_weight`` (None: 1 each); ``classes``: the classes compared (None: all)."""
    yt, yp, g = _arrays(y_true, y_pred, groups)
    w = _weights(sample_weight, len(yt))
    err = yt != yp
    ks = pd.unique(yt) if classes is None else classes
    return max((_group_gap(err, yt == k, g, w) for k in ks), default=0.0)


def odm_gap(y_true: Any, y_pred: Any, groups: Any, sample_weight: Any = None) -> float:
    """Largest difference in overall (weighted) error rate between two groups (14)."""
    yt, yp, g = _arrays(y_true, y_pred, groups)
    w = _weights(sample_weight, len(yt))
    return _group_gap(yt != yp, np.ones(len(yt), dtype=bool), g, w)


def eop_gap(y_true: Any, y_pred: Any, groups: Any, positive: Any = None,
            sample_weight: Any = None) -> float:
    """Largest difference in (weighted) false negative rate of the ``positive`` class (the
    largest label when None) between two groups: the DMC gap on that class ([RUG] §3.5)."""
    yt, _, _ = _arrays(y_true, y_pred, groups)
    if positive is None:
        positive = _last_label(yt)
    if not (yt == positive).any():
        raise OptreesInputError(f"no sample has the positive class {positive!r}")
    return dmc_gap(y_true, y_pred, groups, [positive], sample_weight)


def fairness_gap(kind: str, y_true: Any, y_pred: Any, groups: Any, positive: Any = None,
                 legitimate: Any = None, sample_weight: Any = None) -> float:
    """The gap of any fairness notion of the package (``optrees.fairness.NOTIONS``):
    the largest difference between two groups of a (weighted) rate.  Rates of ``positive``
    predictions within the cells of the tree notions: "statistical_parity" (all rows),
    "conditional_parity" (per value of ``legitimate``), "predictive_equality" (rows of the
    other classes), "equal_opportunity" (rows of ``positive``), "equalized_odds" (both);
    error rates for "dmc" (per class, :func:`dmc_gap`) and "odm" (all rows,
    :func:`odm_gap`).  ``positive`` defaults to the largest label in sorted order.  A group
    without weight in a cell is not compared there."""
    kind = canonical_notion(kind)
    if kind not in NOTIONS:
        raise OptreesInputError(f"kind must be one of {', '.join(NOTIONS)}, got {kind!r}")
    if kind == "dmc":
        return dmc_gap(y_true, y_pred, groups, sample_weight=sample_weight)
    if kind == "odm":
        return odm_gap(y_true, y_pred, groups, sample_weight=sample_weight)
    yt, yp, g = _arrays(y_true, y_pred, groups)
    w = _weights(sample_weight, len(yt))
    if positive is None:
        positive = _last_label(yt)
    pos = yt == positive
    if kind == "conditional_parity":
        if legitimate is None:
            raise OptreesInputError("conditional_parity needs the legitimate attribute")
        legit = np.asarray(legitimate, dtype=object)
        cells = [legit == v for v in pd.unique(legit)]
    else:
        cells = {"statistical_parity": [np.ones(len(yt), dtype=bool)],
                 "predictive_equality": [~pos], "equal_opportunity": [pos],
                 "equalized_odds": [~pos, pos]}[kind]
    predicted = yp == positive
    return max((_group_gap(predicted, cell, g, w) for cell in cells), default=0.0)


def dmc_score(y_true: Any, y_pred: Any, groups: Any) -> float:
    """1 - :func:`dmc_gap`: 1 means equal per-class error rates in every group."""
    return 1.0 - dmc_gap(y_true, y_pred, groups)


def odm_score(y_true: Any, y_pred: Any, groups: Any) -> float:
    """1 - :func:`odm_gap`: 1 means equal overall error rates in every group."""
    return 1.0 - odm_gap(y_true, y_pred, groups)


def eop_score(y_true: Any, y_pred: Any, groups: Any, positive: Any = None) -> float:
    """1 - the largest gap in false negative rate of the positive class between two groups.

    ``positive`` defaults to the largest label in sorted order (e.g. 1 for 0/1 labels).
    """
    return 1.0 - eop_gap(y_true, y_pred, groups, positive)
