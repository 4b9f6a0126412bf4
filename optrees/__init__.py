"""optrees: interpretable classifiers (optimal trees, rule sets) by mathematical optimization.

The public names are imported on first use (PEP 562), so ``import optrees`` and the command
line stay fast: the estimators pull in scikit-learn and the MIP solvers only when needed.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import metrics
    from ._validation import OptreesInputError, OptreesTimeLimitError
    from .comparison import compare
    from .datasets import list_datasets, load_dataset
    from .encoding.binarize import Binarizer
    from .estimators import (
        BendersOCTClassifier,
        BendOCTClassifier,
        BendOCTClassifierCV,
        BinOCTClassifier,
        CGHClassifier,
        ColumnWarning,
        FlowOCTClassifier,
        InterruptedWarning,
        OCTClassifier,
        OMTClassifier,
        OMTRegressor,
        OptimalTreeRegressor,
        OptimalTreeRegressorCV,
        RUGClassifier,
        RUXClassifier,
        TimeLimitWarning,
        UnseenCategoryWarning,
    )
    from .estimators.policy import OptimalPolicyTree
    from .estimators.robust import RobustTreeClassifier
    from .estimators.survival import OptimalSurvivalTree
    from .fairness import FairnessWarning
    from .io import load_model, save_model
    from .models.binary_tree import BinaryTree
    from .models.multiway_tree import MultiwayTree
    from .models.regression_tree import RegressionTree
    from .models.rule_set import RuleSet

__version__ = "0.1.0"

_ESTIMATORS = (
    "BendOCTClassifier", "BendOCTClassifierCV", "BendersOCTClassifier", "BinOCTClassifier",
    "CGHClassifier", "FlowOCTClassifier", "ColumnWarning", "InterruptedWarning",
    "OCTClassifier",
    "OMTClassifier", "OMTRegressor", "OptimalTreeRegressor", "OptimalTreeRegressorCV",
    "RUGClassifier", "RUXClassifier", "TimeLimitWarning", "UnseenCategoryWarning",
)
_HOME: dict[str, str] = {  # public name -> the module that defines it
    **dict.fromkeys(_ESTIMATORS, ".estimators"),
    "Binarizer": ".encoding.binarize",
    "compare": ".comparison",
    "FairnessWarning": ".fairness",
    "OptimalPolicyTree": ".estimators.policy",
    "RobustTreeClassifier": ".estimators.robust",
    "OptimalSurvivalTree": ".estimators.survival",
    "BinaryTree": ".models.binary_tree",
    "MultiwayTree": ".models.multiway_tree",
    "RegressionTree": ".models.regression_tree",
    "OptreesInputError": "._validation",
    "OptreesTimeLimitError": "._validation",
    "RuleSet": ".models.rule_set",
    "list_datasets": ".datasets",
    "load_dataset": ".datasets",
    "load_model": ".io",
    "save_model": ".io",
}

__all__ = [
    "BendOCTClassifier",
    "BendOCTClassifierCV",
    "BendersOCTClassifier",
    "Binarizer",
    "BinOCTClassifier",
    "BinaryTree",
    "CGHClassifier",
    "FairnessWarning",
    "FlowOCTClassifier",
    "ColumnWarning",
    "InterruptedWarning",
    "MultiwayTree",
    "OCTClassifier",
    "OMTClassifier",
    "OMTRegressor",
    "OptimalPolicyTree",
    "OptimalSurvivalTree",
    "OptimalTreeRegressor",
    "OptimalTreeRegressorCV",
    "OptreesInputError",
    "OptreesTimeLimitError",
    "RUGClassifier",
    "RUXClassifier",
    "RegressionTree",
    "RobustTreeClassifier",
    "RuleSet",
    "TimeLimitWarning",
    "UnseenCategoryWarning",
    "compare",
    "list_datasets",
    "load_dataset",
    "load_model",
    "metrics",
    "save_model",
]


def __getattr__(name: str) -> Any:
    """Import a public name on first access and cache it in the package namespace."""
    if name == "metrics":
        value: Any = import_module(".metrics", __name__)
    elif name in _HOME:
        value = getattr(import_module(_HOME[name], __name__), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names as well as the ones already imported (for tab completion)."""
    return sorted({*globals(), *__all__})
