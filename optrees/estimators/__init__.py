"""scikit-learn estimators, one module per family of methods."""

from ._base import TimeLimitWarning
from .rules import RUGClassifier
from .trees import BendersOCTClassifier, BendOCTClassifier, FlowOCTClassifier

__all__ = [
    "BendOCTClassifier", "BendersOCTClassifier", "FlowOCTClassifier", "RUGClassifier",
    "TimeLimitWarning",
]
