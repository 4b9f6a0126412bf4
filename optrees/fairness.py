"""What a fair fit achieved: the realised training measure of its notion, from predictions.

A fairness cap in a model (the tree MIPs' rows, FairRUG's LP rows (11)-(16)) is a statement
about the model's *own* variables.  FairRUG's rows cap group means of the LP's slacks, which
only approximate errors ([RUG] §3.5, after (12)), so a cap met by the LP need not be met by
the rule set's predictions.  Every fair fit therefore measures its notion again on the
training rows from the fitted model's predictions (:mod:`optrees.metrics`, the textbook
definitions) and keeps the result as ``fairness_`` (and ``stats_["fairness"]``)::

    {"notion": "dmc", "groups": ["F", "M"], "cap": 0.025, "realised": 0.014, "met": True,
     "on": "training data"}

and warns with :class:`FairnessWarning` when ``realised`` exceeds ``cap``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from . import metrics

NOTIONS: dict[str, str] = {
    "statistical_parity": "rate of positive predictions (trees)",
    "conditional_parity": "rate of positive predictions per value of a legitimate "
                          "attribute (trees)",
    "predictive_equality": "rate of positive predictions among the other classes, the false "
                           "positive rate (trees)",
    "equal_opportunity": "rate of positive predictions among the positive class, the true "
                         "positive rate; the same gap as the error rate of the positive "
                         "class, the paper's EOP (trees, RUG)",
    "equalized_odds": "predictive equality and equal opportunity (trees)",
    "dmc": "error rate per class, disparate mistreatment per class [RUG] (10) (RUG)",
    "odm": "overall error rate, overall disparate mistreatment [RUG] (14) (RUG)",
}
"""The fairness vocabulary of the package: every notion by one name, the same for the tree
estimators, RUGClassifier, :mod:`optrees.metrics` and ``fairness_``.  Each compares a rate
between every two groups of the sensitive attribute (``sensitive``, or ``groups`` in
RUGClassifier.fit); ``epsilon`` bounds the largest difference."""
TREE_NOTIONS = ("statistical_parity", "conditional_parity", "predictive_equality",
                "equal_opportunity", "equalized_odds")
"""The notions the tree estimators constrain."""
RUG_NOTIONS = ("dmc", "odm", "equal_opportunity")
"""The notions FairRUG constrains ([RUG] §3.5)."""
OLD_SPELLINGS = {"eop": "equal_opportunity"}
"""Former names, still accepted with a DeprecationWarning."""
MET_TOL = 1e-9
"""``realised <= cap + MET_TOL`` counts as met (rates are ratios of float sums)."""


class FairnessWarning(UserWarning):
    """A fair fit's realised training measure exceeds its cap."""


def canonical_notion(notion: str, stacklevel: int = 3) -> str:
    """The notion's name in :data:`NOTIONS` (case and ``-`` / ``_`` aside); a former name
    (:data:`OLD_SPELLINGS`) gives its new one with a DeprecationWarning."""
    name = str(notion).strip().lower().replace("-", "_")
    if name in OLD_SPELLINGS:
        new = OLD_SPELLINGS[name]
        warnings.warn(f"fairness notion {notion!r} is now called {new!r} (the same gap: "
                      "equal error rates of the positive class are equal true positive "
                      "rates); the old name will go", DeprecationWarning, stacklevel=stacklevel)
        return new
    return name


def realised_gap(notion: str, y_true: Any, y_pred: Any, groups: Any, *,
                 positive: Any = None, legitimate: Any = None,
                 sample_weight: Any = None) -> float:
    """The gap of ``notion`` (one of :data:`NOTIONS`) of the predictions ``y_pred``: the
    largest difference between two groups of its rate
    (:func:`optrees.metrics.fairness_gap`)."""
    return metrics.fairness_gap(canonical_notion(notion, 3), y_true, y_pred, groups,
                                positive, legitimate, sample_weight)


def fairness_summary(notion: str, cap: float, realised: float,
                     group_names: Any) -> dict[str, Any]:
    """The ``fairness_`` dict of a fit (see the module docstring)."""
    return {"notion": canonical_notion(notion, 3), "groups": [_plain(g) for g in group_names],
            "cap": float(cap), "realised": float(realised),
            "met": bool(realised <= cap + MET_TOL), "on": "training data"}


def record_fairness(estimator: Any, summary: dict[str, Any], note: str = "",
                    stacklevel: int = 3) -> None:
    """Set ``fairness_`` and ``stats_["fairness"]`` and warn when the cap is not met
    (``note``: what was done about it, appended to the warning)."""
    estimator.fairness_ = summary
    estimator.stats_["fairness"] = summary
    if summary["met"]:
        return
    warnings.warn(
        f"{type(estimator).__name__}: the realised training {summary['notion']} gap "
        f"{summary['realised']:.4f} exceeds the cap epsilon={summary['cap']:g}"
        + (f"; {note}" if note else ""), FairnessWarning, stacklevel=stacklevel)


def summary_line(summary: dict[str, Any]) -> str:
    """One line for the CLI: notion, realised gap against its cap, met or not."""
    verdict = "met" if summary["met"] else "NOT met"
    return (f"{summary['notion']} gap {summary['realised']:.4f} (train, from predictions) "
            f"against cap {summary['cap']:g}: {verdict}")


def _plain(value: Any) -> Any:
    """A group name as a plain Python value (for JSON and printing)."""
    return value.item() if isinstance(value, np.generic) else value
