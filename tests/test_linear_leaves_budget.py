"""``max_leaves`` with linear leaves (issue #43, item 4) against an oracle written from the
definition in plain numpy: every tree of depth <= 2 (depth 3 on a smaller instance) over
the splits of a tiny data set, each leaf's weighted ridge regression solved in closed form,
the best one with at most ``max_leaves`` leaves and ``min_samples_leaf`` rows a leaf."""

from __future__ import annotations

import numpy as np
import pytest

from optrees.estimators import OptimalTreeRegressor


# ---------------------------------------------------------------- the oracle (plain numpy)
def regressors(X: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The leaves' regressors as the guide defines them: every numeric column with two
    values or more, less its weighted mean, over its weighted (population) sd."""
    mean = w @ X / w.sum()
    sd = np.sqrt(w @ (X - mean) ** 2 / w.sum())
    return (X[:, sd > 0] - mean[sd > 0]) / sd[sd > 0]


def leaf_cost(Z: np.ndarray, y: np.ndarray, w: np.ndarray, ridge: float) -> float:
    """``min over (b0, b) of sum w (y - b0 - Z b)^2 + ridge |b|^2``: the normal equations
    ``(A'WA + ridge D) b = A'Wy`` with ``A = [1, Z]``, ``D`` the identity less its
    intercept entry (the intercept is not penalised)."""
    A = np.hstack([np.ones((len(y), 1)), Z])
    D = np.eye(A.shape[1])
    D[0, 0] = 0.0
    b = np.linalg.lstsq(A.T @ (w[:, None] * A) + ridge * D, A.T @ (w * y), rcond=None)[0]
    return float(w @ (y - A @ b) ** 2 + ridge * b[1:] @ b[1:])


def splits_of(X: np.ndarray) -> list[np.ndarray]:
    """Every split ``x_c > t`` (t between two distinct values of column c) as a row mask."""
    out = []
    for c in range(X.shape[1]):
        u = np.unique(X[:, c])
        out += [X[:, c] > t for t in (u[:-1] + u[1:]) / 2]
    return out


def trees(rows: np.ndarray, depth: int, splits: list[np.ndarray]):
    """Every tree of depth <= ``depth`` on ``rows``, as the list of its leaves' row masks."""
    yield [rows]
    if depth > 0:
        for s in splits:
            for left in list(trees(rows & ~s, depth - 1, splits)):
                for right in trees(rows & s, depth - 1, splits):
                    yield left + right


def optimum(X, y, w, depth, lam, ridge, max_leaves, min_leaf=1) -> float:
    """The least ``(SSE + ridge sum |b|^2) / (W var y) + lam * leaves`` over the trees of
    depth <= ``depth`` with at most ``max_leaves`` leaves of ``min_leaf`` rows or more."""
    Z, W = regressors(X, w), w.sum()
    scale = W * (w @ (y - w @ y / W) ** 2 / W)
    memo: dict[bytes, float] = {}

    def cost(rows: np.ndarray) -> float:
        key = rows.tobytes()
        if key not in memo:
            memo[key] = np.inf if rows.sum() < min_leaf else \
                leaf_cost(Z[rows], y[rows], w[rows], ridge) / scale + lam
        return memo[key]

    every = trees(np.ones(len(y), dtype=bool), depth, splits_of(X))
    return min(sum(cost(r) for r in leaves) for leaves in every if len(leaves) <= max_leaves)


def tiny(seed: int, n: int = 24, weights: str = "unit", copy: bool = True) -> tuple:
    """Two 0/1 columns, with ``copy`` a copy of the first (ties between features), and a
    column of three values; y linear with a slope that changes across the cells."""
    rng = np.random.default_rng(seed)
    B = rng.integers(0, 2, (n, 2))
    level = rng.integers(0, 3, n)
    X = np.column_stack([B, B[:, :1]] if copy else [B]).astype(float)
    X = np.column_stack([X, level])
    y = np.where(B[:, 0] > 0, 2.0 * level, 1.0 - level) + 1.5 * B[:, 1] * (level > 0) \
        + rng.normal(0, 0.3, n)
    w = {"unit": np.ones(n), "integer": rng.integers(1, 4, n).astype(float),
         "real": rng.uniform(0.2, 2.0, n)}[weights]
    return X, y, w


def fit(X, y, w, **kw) -> OptimalTreeRegressor:
    return OptimalTreeRegressor(leaf_model="linear", time_limit=60, **kw).fit(X, y, w)


def check(est: OptimalTreeRegressor, X, y, w, max_leaves: int, min_leaf: int,
          want: float) -> None:
    """The fit is proved, its objective the oracle's optimum, and on the training rows it
    has at most ``max_leaves`` leaves of ``min_leaf`` rows or more."""
    assert est.status_ == "optimal" and est.gap_ == 0.0
    assert est.bound_ == est.objective_
    assert est.objective_ == pytest.approx(want, abs=1e-9)
    leaves = est.tree_.feature < 0
    assert leaves.sum() <= max_leaves
    reached, count = np.unique(est.apply(X), return_counts=True)
    assert len(reached) == leaves.sum() and (count >= min_leaf).all()


# ---------------------------------------------------------------- the budget is exact
@pytest.mark.parametrize("seed,weights,lam,ridge,max_leaves,min_leaf", [
    (0, "unit", 0.0, 1.0, 2, 1), (0, "unit", 0.0, 1.0, 3, 1),
    (1, "integer", 0.002, 0.5, 3, 1), (2, "real", 0.0, 2.0, 2, 3),
    (3, "real", 0.001, 0.3, 2, 4), (4, "unit", 0.0, 0.1, 1, 1)])
def test_depth2_matches_every_tree_within_the_budget(seed, weights, lam, ridge, max_leaves,
                                                     min_leaf):
    X, y, w = tiny(seed, weights=weights)
    est = fit(X, y, w, depth=2, lam=lam, leaf_ridge=ridge, max_leaves=max_leaves,
              min_samples_leaf=min_leaf)
    check(est, X, y, w, max_leaves, min_leaf,
          optimum(X, y, w, 2, lam, ridge, max_leaves, min_leaf))
    if max_leaves > 1:  # the budget binds: the tree without it is cheaper and bigger
        free = fit(X, y, w, depth=2, lam=lam, leaf_ridge=ridge, min_samples_leaf=min_leaf)
        assert free.objective_ < est.objective_ - 1e-6
        assert (free.tree_.feature < 0).sum() > max_leaves


@pytest.mark.parametrize("seed,weights,max_leaves,min_leaf", [
    (5, "unit", 4, 1), (6, "real", 5, 1), (7, "integer", 5, 2), (8, "unit", 6, 1),
    (9, "unit", 3, 2)])
def test_depth3_matches_every_tree_within_the_budget(seed, weights, max_leaves, min_leaf):
    """Two 0/1 columns and a column of three values: 4 splits, 40,805 trees of depth <= 3;
    the budget binds, and (but at 3 leaves, which no tree of depth 3 has) the best tree of
    the budget is cheaper than every tree of depth 2."""
    X, y, w = tiny(seed, n=20, weights=weights, copy=False)
    est = fit(X, y, w, depth=3, lam=0.001, leaf_ridge=0.4, max_leaves=max_leaves,
              min_samples_leaf=min_leaf)
    want = optimum(X, y, w, 3, 0.001, 0.4, max_leaves, min_leaf)
    check(est, X, y, w, max_leaves, min_leaf, want)
    free = fit(X, y, w, depth=3, lam=0.001, leaf_ridge=0.4, min_samples_leaf=min_leaf)
    assert free.objective_ < est.objective_ - 1e-6
    if max_leaves > 3:
        assert want < optimum(X, y, w, 2, 0.001, 0.4, 4, min_leaf) - 1e-6


def test_a_root_with_an_exact_leaf_beside_three_leaves_is_found():
    """The rows with x0 = 1 have one y (their leaf costs lam alone), the others need three
    leaves: the best tree of 4 leaves is x0's chain of depth 3, which a search pruning
    root x0 by its left child's trees of fewer leaves than it may take would miss."""
    rng = np.random.default_rng(0)
    n = 24
    a = (np.arange(n) < 6).astype(float)
    b, c = rng.integers(0, 2, (2, n)).astype(float)
    level = rng.integers(0, 3, n).astype(float)
    y = np.where(b == 0, level, np.where(c == 0, -2 * level, 4.0 + level)) \
        + rng.normal(0, 0.1, n)
    X, y, w = np.column_stack([a, b, c, level]), np.where(a == 1, 5.0, y), np.ones(n)
    est = fit(X, y, w, depth=3, lam=0.001, leaf_ridge=0.4, max_leaves=4)
    want = optimum(X, y, w, 3, 0.001, 0.4, 4)
    check(est, X, y, w, 4, 1, want)
    assert want < optimum(X, y, w, 2, 0.001, 0.4, 4) - 1e-3


def test_a_budget_of_every_leaf_changes_nothing():
    X, y, w = tiny(10, weights="real")
    free = fit(X, y, w, depth=2, lam=0.001, leaf_ridge=0.5)
    full = fit(X, y, w, depth=2, lam=0.001, leaf_ridge=0.5, max_leaves=4)
    assert full.objective_ == free.objective_
    np.testing.assert_array_equal(full.predict(X), free.predict(X))


# ---------------------------------------------------------------- ties and weights
def test_equal_trees_go_to_the_fewest_leaves():
    """y exactly linear in the regressors, no penalty: every tree costs 0 (up to rounding),
    whatever the budget, and the single leaf is taken."""
    X, _, _ = tiny(11)
    y = X @ [1.0, -2.0, 1.0, 0.5]  # the copy's slope is shared with its column
    for max_leaves in (None, 2, 3):
        est = fit(X, y, None, depth=2, lam=0.0, leaf_ridge=0.0, max_leaves=max_leaves)
        assert est.objective_ == pytest.approx(0.0, abs=1e-9)
        assert est.tree_.n_nodes == 1


def test_integer_weights_equal_duplicated_rows_under_a_budget():
    X, y, w = tiny(12, weights="integer")
    rep = np.repeat(np.arange(len(y)), w.astype(int))
    for max_leaves in (2, 3):
        est = fit(X, y, w, depth=2, lam=0.001, leaf_ridge=0.7, max_leaves=max_leaves)
        dup = fit(X[rep], y[rep], None, depth=2, lam=0.001, leaf_ridge=0.7,
                  max_leaves=max_leaves)
        assert est.objective_ == pytest.approx(dup.objective_, abs=1e-10)
        np.testing.assert_allclose(est.predict(X), dup.predict(X), atol=1e-8)


# ---------------------------------------------------------------- a stopped search
def test_a_stopped_depth3_search_under_a_budget_keeps_a_valid_bound(monkeypatch):
    """Stopped before its first root feature: its tree is the depth-2 optimum of the budget
    (the oracle's), its bound at most the depth-3 optimum of the budget."""
    from deadlines import until_after

    from optrees.trees.search.regression.linear import LinearLeafSearch
    from optrees.trees.solve.linear_leaves import solve_linear_leaves

    X, y, w = tiny(13, n=20, copy=False)
    deadline = until_after(monkeypatch, LinearLeafSearch, "pair_sums")  # at the roots
    result = solve_linear_leaves(X, y, w, 3, 0.001, 1, deadline, max_leaves=5,
                                 regressors=[0, 1, 2], ridge=0.4)
    assert result.status == "time_limit"
    assert result.objective == pytest.approx(optimum(X, y, w, 2, 0.001, 0.4, 5), abs=1e-9)
    best = optimum(X, y, w, 3, 0.001, 0.4, 5)
    assert result.objective > best + 1e-6  # the stop cost something: a real test
    assert result.bound <= best + 1e-9
