"""scikit-learn estimators, one module per family of methods."""

from ._base import TimeLimitWarning
from .cgh import CGHClassifier
from .rules import RUGClassifier
from .trees import BendersOCTClassifier, BendOCTClassifier, FlowOCTClassifier

__all__ = [
    "BendOCTClassifier", "BendersOCTClassifier", "CGHClassifier", "FlowOCTClassifier",
    "RUGClassifier",
    "TimeLimitWarning",
]
