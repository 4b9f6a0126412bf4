"""The fairness vocabulary of the package: one name per notion, for the tree estimators,
RUGClassifier, :mod:`optrees.metrics` and ``fairness_`` (:mod:`optrees.fairness`)."""

from __future__ import annotations

import warnings

from ._stack import user_stacklevel

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


def canonical_notion(notion: str) -> str:
    """The notion's name in :data:`NOTIONS` (case and ``-`` / ``_`` aside); a former name
    (:data:`OLD_SPELLINGS`) gives its new one with a DeprecationWarning."""
    name = str(notion).strip().lower().replace("-", "_")
    if name in OLD_SPELLINGS:
        new = OLD_SPELLINGS[name]
        warnings.warn(f"fairness notion {notion!r} is now called {new!r} (the same gap: "
                      "equal error rates of the positive class are equal true positive "
                      "rates); the old name will go", DeprecationWarning,
                      stacklevel=user_stacklevel())
        return new
    return name
