"""scikit-learn estimators for the baseline tree MIPs OCT and BinOCT ([FlowOCT] §4).

They share fit / predict / fitted attributes with :class:`FlowOCTClassifier`, so the optima of
all four methods are in the same units: ``objective_`` = (1 - lam) * correct - lam * splits.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import pandas as pd

from .._params import Boolean, Param, Params
from .._validation import OptreesInputError
from ..encoding.thresholds import ThresholdColumns
from ..models.result import FitResult
from ..trees.mip.binoct import BinOCT
from ..trees.mip.oct import OCT
from ..trees.problem.tree_problem import TreeProblem
from ..trees.solve.raw_binoct import solve_binoct_raw
from ._base import Deadline, stop_on_ctrl_c
from .tree_params import TREE_DEFAULTS
from .trees import _OptimalTreeClassifier


class OCTClassifier(_OptimalTreeClassifier):
    """Optimal classification tree by Bertsimas & Dunn's OCT MIP, specialized to binary data
    (big-M leaf error counts, one assignment variable per sample and leaf), solved by SCIP.

    Same objective as :class:`FlowOCTClassifier` ((1 - lam) * correct - lam * splits), so both
    reach the same optimum; OCT's LP relaxation is weaker ([FlowOCT] §2.2).
    """

    symmetry_breaking = True  # (OCT.11) d_n <= d_a(n) is part of the formulation

    _defaults: ClassVar[dict[str, Any]] = {**TREE_DEFAULTS, "class_weight": None}

    def _formulation(self, problem: TreeProblem, p: Params) -> OCT:
        return OCT(problem)


class BinOCTClassifier(_OptimalTreeClassifier):
    """Optimal classification tree by Verwer & Zhang's BinOCT MIP (binary-encoded thresholds,
    one big-M row per node, feature and threshold bit), solved by SCIP.

    BinOCT maximizes training accuracy of a full tree of the given depth (no split penalty:
    ``lam`` is fixed to 0), so ``objective_`` is the number of correctly classified training
    samples, as FlowOCT's at lam = 0.  By default it works on the binarized features (threshold
    0.5); ``raw_thresholds=True`` chooses thresholds on the numeric columns themselves (V&Z's
    setting: all midpoints between consecutive distinct values); then ``tree_`` tests
    ``column <= threshold`` and prediction needs the same numeric columns (``binarizer`` is
    not used then).
    """

    lam = 0.0  # fixed: BinOCT has no regularization
    symmetry_breaking = True

    _defaults: ClassVar[dict[str, Any]] = {
        **{k: v for k, v in TREE_DEFAULTS.items() if k != "lam"}, "raw_thresholds": False,
        "class_weight": None}

    _parameters: ClassVar[dict[str, Param]] = {
        "raw_thresholds": Param(Boolean(), "thresholds on the numeric columns themselves "
                                "(every midpoint) instead of the binarized features"),
    }

    def _formulation(self, problem: TreeProblem, p: Params) -> BinOCT:
        return BinOCT.from_problem(problem)

    def _solve(self, df: pd.DataFrame, y: np.ndarray, w: np.ndarray | None,
               classes: np.ndarray, p: Params, deadline: Deadline,
               groups: np.ndarray | None = None) -> FitResult:
        """On binarized features as the other tree MIPs, or on the raw numeric columns."""
        self.raw_ = p.raw_thresholds
        if not self.raw_:
            self.encoder_ = None
            return super()._solve(df, y, w, classes, p, deadline)
        values = self._raw_values(df, fit=True)
        self.binarizer_ = None
        self.thresholds_ = "all"
        self.feature_names_ = [str(c) for c in df.columns]
        self.negated_names_ = [f"not {c}" for c in self.feature_names_]
        with stop_on_ctrl_c(deadline):
            return solve_binoct_raw(values, y, classes, self.feature_names_, p.depth,
                                    deadline, p.random_state, p.verbose, p.warm_start, w)

    # ------------------------------------------------------------------ raw columns
    def _raw_values(self, df: pd.DataFrame, fit: bool = False) -> np.ndarray:
        """The numeric matrix of ``df`` (``fit``: first describe its columns in
        ``encoder_``); one message for a column that is not numeric."""
        try:
            if fit:
                self.encoder_ = ThresholdColumns(df, categorical="refuse")
            return self.encoder_.transform(df)
        except OptreesInputError as exc:
            raise OptreesInputError(
                "raw_thresholds=True needs numeric columns; binarize categorical data "
                "(raw_thresholds=False)"
            ) from exc

    def _features(self, X: Any) -> np.ndarray:
        if getattr(self, "raw_", False):
            return self._raw_values(self._fitted_frame(X))
        return super()._features(X)
