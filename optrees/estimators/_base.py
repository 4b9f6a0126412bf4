"""Pieces shared by all estimators: the time-limit warning and raw-table -> 0/1 input."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from .._validation import OptreesInputError, check_binary_matrix, check_frame
from ..binarize import Binarizer


class TimeLimitWarning(UserWarning):
    """The time limit stopped the solver before optimality was proven."""


def _is_binary_frame(df: pd.DataFrame) -> bool:
    num = df.select_dtypes(include=[np.number, "bool"])
    if num.shape[1] != df.shape[1]:
        return False
    return bool(np.isin(num.to_numpy(dtype=float), (0.0, 1.0)).all())


class _BinaryInput:
    """Turns raw X into the 0/1 matrix the tree MIPs need (fit once, reuse at predict)."""

    def _fit_binary(self, X: Any) -> np.ndarray:
        df = check_frame(X)
        self.n_features_in_ = df.shape[1]
        if isinstance(X, pd.DataFrame):
            self.feature_names_in_ = np.asarray(df.columns, dtype=object)
        spec = self.binarizer
        if spec is None or (isinstance(spec, str) and spec == "auto" and _is_binary_frame(df)):
            self.binarizer_ = None
            Xb = check_binary_matrix(df)
            names = [str(c) for c in df.columns]
            self.feature_names_ = names
            self.negated_names_ = [f"not {c}" for c in names]
            return Xb
        if isinstance(spec, str):
            if spec != "auto":
                raise OptreesInputError(
                    f"binarizer must be 'auto', None or a Binarizer, got {spec!r}"
                )
            spec = Binarizer()
        self.binarizer_ = clone(spec)
        Xb = self.binarizer_.fit_transform(df)
        if Xb.shape[1] == 0:
            raise OptreesInputError("the binarizer produced no features (all columns constant)")
        self.feature_names_ = [lit.name for lit in self.binarizer_.literals_]
        self.negated_names_ = [lit.negated_name for lit in self.binarizer_.literals_]
        return Xb

    def _features(self, X: Any) -> np.ndarray:
        df = self._fitted_frame(X)
        if self.binarizer_ is None:
            return check_binary_matrix(df)
        return self.binarizer_.transform(df)




class _TreePredictor:
    """predict / predict_proba / apply / export_text of every estimator with a ``tree_``
    (a :class:`BinaryTree`); subclasses map raw X to the tree's features in ``_features``."""

    def _features(self, X: Any) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _fitted_frame(self, X: Any) -> pd.DataFrame:
        """X as a checked DataFrame with as many columns as at fit time."""
        check_is_fitted(self, "tree_")
        df = check_frame(X)
        if df.shape[1] != self.n_features_in_:
            raise OptreesInputError(
                f"X has {df.shape[1]} columns but the model was fitted on {self.n_features_in_}"
            )
        return df

    def predict(self, X: Any) -> np.ndarray:
        return self.tree_.predict(self._features(X))

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class frequencies of the training samples in the leaf each sample reaches."""
        return self.tree_.predict_proba(self._features(X))

    def apply(self, X: Any) -> np.ndarray:
        return self.tree_.apply(self._features(X))

    def export_text(self) -> str:
        check_is_fitted(self, "tree_")
        return self.tree_.export_text()
