"""optrees: interpretable classifiers (optimal trees, rule sets) by mathematical optimization."""

from . import metrics
from ._validation import OptreesInputError
from .binarize import Binarizer
from .datasets import list_datasets, load_dataset
from .estimators import (
    BendersOCTClassifier,
    BendOCTClassifier,
    CGHClassifier,
    FlowOCTClassifier,
    RUGClassifier,
    TimeLimitWarning,
)
from .io import load_model, save_model
from .models.binary_tree import BinaryTree
from .models.rule_set import RuleSet

__version__ = "0.1.0"

__all__ = [
    "BendOCTClassifier",
    "BendersOCTClassifier",
    "Binarizer",
    "BinaryTree",
    "CGHClassifier",
    "FlowOCTClassifier",
    "OptreesInputError",
    "RUGClassifier",
    "RuleSet",
    "TimeLimitWarning",
    "list_datasets",
    "load_dataset",
    "load_model",
    "metrics",
    "save_model",
]
