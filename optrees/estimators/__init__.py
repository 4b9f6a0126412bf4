"""scikit-learn estimators, one module per family of methods."""

from ._base import TimeLimitWarning
from .trees import BendersOCTClassifier, FlowOCTClassifier

__all__ = ["BendersOCTClassifier", "FlowOCTClassifier", "TimeLimitWarning"]
