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
from ._stack import user_stacklevel
from .fairness_vocabulary import (  # noqa: F401 - the vocabulary, re-exported
    NOTIONS,
    OLD_SPELLINGS,
    RUG_NOTIONS,
    TREE_NOTIONS,
    canonical_notion,
)

MET_TOL = 1e-9
"""``realised <= cap + MET_TOL`` counts as met (rates are ratios of float sums)."""


class FairnessWarning(UserWarning):
    """A fair fit's realised training measure exceeds its cap."""


def realised_gap(notion: str, y_true: Any, y_pred: Any, groups: Any, *,
                 positive: Any = None, legitimate: Any = None,
                 sample_weight: Any = None) -> float:
    """The gap of ``notion`` (one of :data:`NOTIONS`) of the predictions ``y_pred``: the
    largest difference between two groups of its rate
    (:func:`optrees.metrics.fairness_gap`)."""
    return metrics.fairness_gap(canonical_notion(notion), y_true, y_pred, groups,
                                positive, legitimate, sample_weight)


def fairness_summary(notion: str, cap: float, realised: float,
                     group_names: Any) -> dict[str, Any]:
    """The ``fairness_`` dict of a fit (see the module docstring)."""
    return {"notion": canonical_notion(notion), "groups": [_plain(g) for g in group_names],
            "cap": float(cap), "realised": float(realised),
            "met": bool(realised <= cap + MET_TOL), "on": "training data"}


def record_fairness(estimator: Any, summary: dict[str, Any], note: str = "") -> None:
    """Set ``fairness_`` and ``stats_["fairness"]`` and warn when the cap is not met
    (``note``: what was done about it, appended to the warning)."""
    estimator.fairness_ = summary
    estimator.stats_["fairness"] = summary
    if summary["met"]:
        return
    warnings.warn(
        f"{type(estimator).__name__}: the realised training {summary['notion']} gap "
        f"{summary['realised']:.4f} exceeds the cap epsilon={summary['cap']:g}"
        + (f"; {note}" if note else ""), FairnessWarning, stacklevel=user_stacklevel())


def summary_line(summary: dict[str, Any]) -> str:
    """One line for the CLI: notion, realised gap against its cap, met or not."""
    verdict = "met" if summary["met"] else "NOT met"
    return (f"{summary['notion']} gap {summary['realised']:.4f} (train, from predictions) "
            f"against cap {summary['cap']:g}: {verdict}")


def _plain(value: Any) -> Any:
    """A group name as a plain Python value (for JSON and printing)."""
    return value.item() if isinstance(value, np.generic) else value
