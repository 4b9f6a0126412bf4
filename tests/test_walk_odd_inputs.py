"""The public API walked with odd inputs: a target with a large offset, weights or outcomes
in tiny units, missing event times, labels that are not there.  Each test states what the
answer must be from the definition (plain numpy on the fitted model's own leaves), not from
the package's objective objects, and failed on the code before its fix."""

import warnings

import numpy as np
import pandas as pd
import pytest

from optrees import OMTRegressor


def _table(n, seed):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"a": rng.normal(size=n), "b": rng.uniform(size=n),
                         "c": rng.integers(0, 4, n).astype(float)})


def _classes(seed=1, n=120):
    X = _table(n, seed)
    rng = np.random.default_rng(seed + 100)
    y = ((X.a > 0.2) ^ (X.b > 0.5)).astype(int).to_numpy().copy()
    flip = rng.uniform(size=n) < 0.15
    y[flip] = 1 - y[flip]
    return X, y, rng.integers(1, 5, n).astype(float)


def _leaf_means(leaves, y, w=None):
    """Each row's prediction from the definition: the weighted mean of y over its leaf."""
    w = np.ones(len(y)) if w is None else w
    out = np.empty(len(y))
    for leaf in np.unique(leaves):
        at = leaves == leaf
        out[at] = w[at] @ y[at] / w[at].sum()
    return out


def _same_partition(a, b):
    """Two leaf labellings put the rows in the same groups."""
    pairs = set(zip(a.tolist(), b.tolist(), strict=True))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


# ------------------------------------------------------------------ 1. OMT: y + constant
def test_omt_regressor_does_not_change_when_a_constant_is_added_to_y():
    """OMT's CART bins and CART start partitions grew on y itself: y + 1e9 gave another
    tree (objective 127.0 against 89.5: scikit-learn's variances of 1e9-sized targets lose
    their digits).  Now the same leaves, and predictions that move by the constant."""
    X = _table(200, 0)
    rng = np.random.default_rng(7)
    y = np.sin(3 * X.a.to_numpy()) + 2 * (X.b.to_numpy() > 0.6) + 0.1 * rng.normal(size=200)
    fits = {}
    for offset in (0.0, 1e9):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fits[offset] = OMTRegressor(depth=2, random_state=0, leaf_penalty=0.01,
                                        time_limit=60).fit(X, y + offset)
    a, b = fits[0.0], fits[1e9]
    assert _same_partition(a.apply(X), b.apply(X))
    np.testing.assert_allclose(b.predict(X) - 1e9, _leaf_means(a.apply(X), y), atol=1e-6)
    np.testing.assert_allclose(a.predict(X), _leaf_means(a.apply(X), y), atol=1e-9)
    sse = float(((y - _leaf_means(a.apply(X), y)) ** 2).sum())
    assert b.objective_ == pytest.approx(a.objective_, rel=1e-6)
    assert a.objective_ >= sse - 1e-9  # the loss (plus the rules' penalty)
