"""The reference of :func:`optrees.compare`: scikit-learn's CART tuned by ``GridSearchCV``
over ``max_depth`` and ``ccp_alpha``, categorical columns one-hot encoded, within its share
of the budget (:class:`TimedGridSearchCV`)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.model_selection import GridSearchCV, ParameterGrid
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


clock = time.perf_counter
"""The clock the search's time limit is read on (a test's fake one replaces it)."""


class TimedGridSearchCV(GridSearchCV):
    """``GridSearchCV`` that tries its grid points shallowest ``max_depth`` first (the
    cheapest fits) and starts no new one once the next would end past ``time_limit``
    seconds (None: no limit; the first point always runs, on every fold); the best of the
    points run is chosen and refitted as usual.  ``n_points_run_`` of ``n_points_``."""

    def __init__(self, estimator: Any, param_grid: dict, *, cv: Any = None,
                 time_limit: float | None = None) -> None:
        super().__init__(estimator, param_grid, cv=cv)
        self.time_limit = time_limit

    def _run_search(self, evaluate_candidates: Callable) -> None:
        points = sorted(ParameterGrid(self.param_grid), key=_depth_first)
        self.n_points_, self.n_points_run_ = len(points), 0
        started = last = clock()
        for params in points:
            now = clock()
            if self.n_points_run_ and self.time_limit is not None \
                    and 2 * now - last - started > self.time_limit:  # now + (now - last)
                break
            last = now
            evaluate_candidates([params])
            self.n_points_run_ += 1


def _depth_first(params: dict) -> float:
    depth = params.get("max_depth")
    return math.inf if depth is None else float(depth)


def cart_search(task: str, X: pd.DataFrame, y: Any, cv: int, seed: int,
                time_limit: float | None = None) -> Pipeline:
    """The unfitted search of CART for ``task`` within ``time_limit`` seconds (None: none),
    its ``ccp_alpha`` values read off the pruning path of the training rows ``X, y``: the
    encoder, then the search over the encoded rows (encoded once, not once per fit; the
    encoder sees the categories of every training row, which tells a fold nothing about its
    test rows' targets)."""
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
                     ("search", TimedGridSearchCV(tree_class(random_state=seed), grid, cv=cv,
                                                  time_limit=time_limit))])
