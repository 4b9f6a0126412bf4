"""OMT's synthetic scale test: seconds, peak memory and accuracy on N generated rows, next to
scikit-learn CART of the same depth (``bench/omt.py --scale N``)."""

from __future__ import annotations

import resource
import time
import warnings
from typing import Any

import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeClassifier

TEST_ROWS = 200_000
"""Rows of the independent test draw (at most N)."""


def synthetic(n: int, k: int, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """n x k standard normal features; label = noisy depth-3 threshold tree on 3 features."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, k)).astype(np.float32)
    a, b, c = X[:, 0] > 0.2, X[:, 1] > -0.5, X[:, 2] > 0.8
    y = np.where(a, b ^ c, b & ~c).astype(np.int64)
    flip = rng.random(n) < 0.1
    y[flip] = 1 - y[flip]
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(k)]), y


def peak_mb() -> float:
    """Peak resident memory of this process (MB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def scale_data(n: int, k: int) -> tuple[tuple[pd.DataFrame, np.ndarray],
                                        tuple[pd.DataFrame, np.ndarray], float]:
    """Training draw (seed 0), test draw (seed 1, min(n, :data:`TEST_ROWS`) rows), seconds."""
    t0 = time.perf_counter()
    train = synthetic(n, k)
    test = synthetic(min(n, TEST_ROWS), k, seed=1)
    return train, test, time.perf_counter() - t0


def scale_omt(train: tuple[pd.DataFrame, np.ndarray], test: tuple[pd.DataFrame, np.ndarray],
              depth: int, k_best: int | None, beam: int | None, n_bins: int | str,
              time_limit: float | None) -> dict[str, Any]:
    """Fit OMT (K = 100 unless given); seconds, accuracies, solver statistics and the peak RSS
    taken right after the fit."""
    from ..estimators.omt import OMTClassifier

    (X, y), (X_te, y_te) = train, test
    clf = OMTClassifier(depth=depth, k_best=k_best or 100, beam=beam, n_bins=n_bins,
                        time_limit=time_limit, random_state=0)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        clf.fit(X, y)
        seconds = time.perf_counter() - t0
    return {"seconds": seconds, "train_acc": float(np.mean(clf.predict(X) == y)),
            "test_acc": float(np.mean(clf.predict(X_te) == y_te)), "peak_mb": peak_mb(),
            "status": clf.status_, "gap": clf.gap_, "rules": len(clf.paths_),
            **{k: clf.stats_[k] for k in ("units", "iterations", "columns", "pricing_seconds",
                                          "lp_seconds", "mip_seconds")}}


def scale_cart(train: tuple[pd.DataFrame, np.ndarray], test: tuple[pd.DataFrame, np.ndarray],
               depth: int) -> dict[str, Any]:
    """scikit-learn CART of ``depth`` on the same draws: seconds and accuracies."""
    (X, y), (X_te, y_te) = train, test
    cart = DecisionTreeClassifier(max_depth=depth, random_state=0)
    t0 = time.perf_counter()
    cart.fit(X, y)
    return {"seconds": time.perf_counter() - t0, "train_acc": cart.score(X, y),
            "test_acc": cart.score(X_te, y_te)}
