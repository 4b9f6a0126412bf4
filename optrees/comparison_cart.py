"""The reference of :func:`optrees.compare`: scikit-learn's CART tuned by ``GridSearchCV``
over ``max_depth`` and ``ccp_alpha``, categorical columns one-hot encoded."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

CART_DEPTHS = (1, 2, 3, 4, 6, 8, None)
CART_ALPHAS = 5
"""CART's grid: these ``max_depth`` values times ``ccp_alpha`` 0 and this many quantiles of
the pruning path's alphas (of the full tree on the training rows)."""


def _encoder(X: pd.DataFrame) -> ColumnTransformer:
    """Numbers as they are, every other column one-hot (categories unseen at fit: zeros)."""
    numeric = [c for c in X.columns if pd.api.types.is_numeric_dtype(X[c])
               and not pd.api.types.is_bool_dtype(X[c])]
    other = [c for c in X.columns if c not in numeric]
    return ColumnTransformer([("num", "passthrough", numeric),
                              ("cat", OneHotEncoder(handle_unknown="ignore"), other)],
                             verbose_feature_names_out=False)


def cart_search(task: str, X: pd.DataFrame, y: Any, cv: int, seed: int) -> Pipeline:
    """The unfitted search of CART for ``task``, its ``ccp_alpha`` values read off the
    pruning path of the training rows ``X, y``: the encoder, then the search over the
    encoded rows (encoded once, not once per fit; the encoder sees the categories of every
    training row, which tells a fold nothing about its test rows' targets)."""
    tree_class = DecisionTreeClassifier if task == "classification" else DecisionTreeRegressor
    encoder = _encoder(X)
    path = tree_class(random_state=seed).cost_complexity_pruning_path(
        encoder.fit_transform(X), y)
    alphas = np.unique(path.ccp_alphas[:-1])  # the last one prunes to the root
    grid_alphas = [0.0, *np.quantile(alphas, np.linspace(0, 1, CART_ALPHAS))] \
        if len(alphas) else [0.0]
    grid = {"max_depth": list(CART_DEPTHS),
            "ccp_alpha": sorted({float(a) for a in grid_alphas})}
    return Pipeline([("encode", _encoder(X)),
                     ("search", GridSearchCV(tree_class(random_state=seed), grid, cv=cv))])
