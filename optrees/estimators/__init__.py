"""scikit-learn estimators, one module per family of methods."""

from ._base import (
    ColumnWarning,
    InterruptedWarning,
    TimeLimitWarning,
    UnseenCategoryWarning,
)
from .baselines import BinOCTClassifier, OCTClassifier
from .cgh import CGHClassifier
from .cv import BendOCTClassifierCV, OptimalTreeRegressorCV
from .omt import OMTClassifier, OMTRegressor
from .regression import OptimalTreeRegressor
from .rules import RUGClassifier
from .rux import RUXClassifier
from .trees import BendersOCTClassifier, BendOCTClassifier, FlowOCTClassifier

__all__ = [
    "BendOCTClassifier", "BendOCTClassifierCV", "BendersOCTClassifier", "BinOCTClassifier",
    "CGHClassifier", "FlowOCTClassifier", "OCTClassifier", "OMTClassifier", "OMTRegressor",
    "OptimalTreeRegressor", "OptimalTreeRegressorCV", "RUGClassifier", "RUXClassifier",
    "ColumnWarning", "InterruptedWarning", "TimeLimitWarning",
    "UnseenCategoryWarning",
]
