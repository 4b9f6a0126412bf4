"""optrees: interpretable classifiers (optimal trees, rule sets) by mathematical optimization."""

from . import metrics
from ._validation import OptreesInputError
from .binarize import Binarizer
from .datasets import list_datasets, load_dataset
from .estimators import (
    BendersOCTClassifier,
    BendOCTClassifier,
    BinOCTClassifier,
    CGHClassifier,
    FlowOCTClassifier,
    InterruptedWarning,
    OCTClassifier,
    OMTClassifier,
    OMTRegressor,
    RUGClassifier,
    TimeLimitWarning,
    UnseenCategoryWarning,
)
from .io import load_model, save_model
from .models.binary_tree import BinaryTree
from .models.multiway_tree import MultiwayTree
from .models.rule_set import RuleSet

__version__ = "0.1.0"

__all__ = [
    "BendOCTClassifier",
    "BendersOCTClassifier",
    "Binarizer",
    "BinOCTClassifier",
    "BinaryTree",
    "CGHClassifier",
    "FlowOCTClassifier",
    "InterruptedWarning",
    "MultiwayTree",
    "OCTClassifier",
    "OMTClassifier",
    "OMTRegressor",
    "OptreesInputError",
    "RUGClassifier",
    "RuleSet",
    "TimeLimitWarning",
    "UnseenCategoryWarning",
    "list_datasets",
    "load_dataset",
    "load_model",
    "metrics",
    "save_model",
]
