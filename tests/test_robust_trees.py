"""RobustTreeClassifier against oracles written from the definition (Justin et al.; see
optrees.robust): every tree of depth <= 2 enumerated here, each tree's worst case by brute
force over all joint perturbations (tiny data) or by the cheapest-rows argument over every
point of the grid (small data)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from optrees import BendOCTClassifier, OptreesInputError, RobustTreeClassifier
from optrees.solvers.deadline import Deadline

# ---------------------------------------------------------------- oracle (plain numpy)


def all_trees(low, high, n_classes, depth):
    """Every tree of depth <= ``depth``: ("leaf", k) or ("split", f, t, left, right) with
    t in low[f] .. high[f] - 1 (x[f] <= t goes left)."""
    trees = [("leaf", k) for k in range(n_classes)]
    if depth == 0:
        return trees
    sub = all_trees(low, high, n_classes, depth - 1)
    for f in range(len(low)):
        for t in range(low[f], high[f]):
            trees += [("split", f, t, a, b) for a in sub for b in sub]
    return trees


def predict(tree, points):
    if tree[0] == "leaf":
        return np.full(len(points), tree[1])
    _, f, t, a, b = tree
    return np.where(points[:, f] <= t, predict(a, points), predict(b, points))


def branches(tree):
    return 0 if tree[0] == "leaf" else 1 + branches(tree[3]) + branches(tree[4])


def grid(low, high):
    ranges = [range(lo, hi + 1) for lo, hi in zip(low, high, strict=True)]
    return np.array(list(itertools.product(*ranges)))


def move_costs(X, costs, points):
    """(n, G): cost of moving row i to grid point g, sum_f costs[i, f] |g_f - x_if|."""
    steps = np.abs(points[None, :, :] - X[:, None, :]).astype(float)
    with np.errstate(invalid="ignore"):  # inf * 0 where no step is needed
        return np.where(steps > 0, costs[:, None, :] * steps, 0.0).sum(axis=2)


def worst_brute(tree, X, y, costs, budget, low, high):
    """Fewest correct rows over every joint choice of perturbed points within budget."""
    points = grid(low, high)
    pay = move_costs(X, costs, points)
    right = predict(tree, points)[None, :] == y[:, None]  # (n, G)
    rows = np.arange(len(y))
    choices = np.array(list(itertools.product(range(len(points)), repeat=len(y))))
    feasible = pay[rows, choices].sum(axis=1) <= budget + 1e-9  # every joint perturbation
    return int(right[rows, choices].sum(axis=1)[feasible].min())


def worst_knapsack(tree, X, y, costs, budget, low, high):
    """Cheapest misclassification of each row over the grid, cheapest rows flipped first."""
    points = grid(low, high)
    pay = move_costs(X, costs, points)
    wrong = predict(tree, points)[None, :] != y[:, None]
    c = np.sort(np.where(wrong, pay, np.inf).min(axis=1))
    flipped = 0
    spent = 0.0
    for ci in c:
        if spent + ci > budget + 1e-9:
            break
        spent += ci
        flipped += 1
    return len(y) - flipped


def optimum(X, y, costs, budget, depth, lam, worst):
    """The best tree's worst-case accuracy minus lam per branch.  A tree's worst case depends
    only on its labels over the grid, so trees with the same labels share one evaluation."""
    low, high = X.min(axis=0), X.max(axis=0)
    K = int(y.max()) + 1
    points = grid(low, high)
    best, seen = -np.inf, {}
    for t in all_trees(low, high, K, depth):
        key = predict(t, points).tobytes()
        if key not in seen:
            seen[key] = worst(t, X, y, costs, budget, low, high) / len(y)
        best = max(best, seen[key] - lam * branches(t))
    return best


def data(seed, n, F, top, K=2):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, top + 1, size=(n, F))
    y = rng.integers(0, K, size=n)
    y[:K] = np.arange(K)  # every class present
    return X, y


# ---------------------------------------------------------------- tests


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("budget", [1, 2, 3])
def test_tiny_optimum_matches_brute_force(seed, budget):
    X, y = data(seed, 4, 2, 2)
    costs = np.ones(X.shape)
    m = RobustTreeClassifier(depth=2, budget=budget).fit(X, y)
    want = optimum(X, y, costs, budget, 2, 0.0, worst_brute)
    assert m.status_ == "optimal"
    assert m.objective_ == pytest.approx(want)
    assert m.worst_case_accuracy(X, y, costs, budget) == pytest.approx(want)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("budget", [0.0, 1.5, 3.0, 6.0])
def test_small_optimum_with_row_feature_costs(seed, budget):
    rng = np.random.default_rng(100 + seed)
    X, y = data(seed, 12, 3, 3 - seed % 2, K=2 + seed % 2)
    costs = rng.choice([0.0, 0.5, 1.0, 2.0, np.inf], size=X.shape)
    m = RobustTreeClassifier(depth=2, budget=budget).fit(X, y, costs=costs)
    want = optimum(X, y, costs, budget, 2, 0.0, worst_knapsack)
    assert m.status_ == "optimal" and m.gap_ == 0.0
    assert m.objective_ == pytest.approx(want)
    assert m.worst_case_accuracy_ == pytest.approx(want)


@pytest.mark.parametrize("seed", range(3))
def test_side_ordered_phase_alone_finds_the_optimum(seed, monkeypatch):
    """No warm phase: the structures come ordered by the sides' robust bounds only."""
    import optrees.robust.search as search

    monkeypatch.setattr(search, "WARM_SHARE", 0.0)
    X, y = data(20 + seed, 12, 3, 3)
    costs = np.random.default_rng(seed).choice([0.5, 1.0, 2.0], size=X.shape)
    for budget in (1.0, 2.5, 4.0):
        m = RobustTreeClassifier(depth=2, budget=budget).fit(X, y, costs=costs)
        assert m.status_ == "optimal"
        assert m.objective_ == pytest.approx(optimum(X, y, costs, budget, 2, 0.0,
                                                     worst_knapsack))


@pytest.mark.parametrize("time_limit", [None, 1000.0])
def test_the_warm_phase_ends_even_without_a_time_limit(time_limit, monkeypatch):
    """The nominal walk gets at most WARM_SECONDS: without a limit (or with a long one) it
    alone could run for minutes where the root phase proves in seconds (balance-scale,
    depth 3, budget 20: no proof in 300 s without a limit, 3.5 s with time_limit=10)."""
    import optrees.robust.search as search

    ends = []
    walk = search.RobustSearch._walk

    def recording(self, stream, deadline):
        ends.append(deadline.remaining())
        return walk(self, stream, deadline)

    monkeypatch.setattr(search.RobustSearch, "_walk", recording)
    X, y = data(5, 14, 3, 3)
    m = RobustTreeClassifier(depth=2, budget=2.0, time_limit=time_limit).fit(X, y)
    assert m.status_ == "optimal"
    assert ends[0] <= search.WARM_SECONDS


@pytest.mark.parametrize("lam", [0.02, 0.1])
def test_branch_penalty(lam):
    X, y = data(7, 12, 3, 3)
    costs = np.ones(X.shape)
    m = RobustTreeClassifier(depth=2, budget=2, lam=lam).fit(X, y)
    want = optimum(X, y, costs, 2, 2, lam, worst_knapsack)
    assert m.objective_ == pytest.approx(want)
    pred = m.predict(X)
    assert m.tree_.n_branches <= 3 and pred.shape == y.shape


def test_depth3_objective_is_the_returned_trees_worst_case():
    X, y = data(3, 10, 3, 3)
    costs = np.ones(X.shape)
    m = RobustTreeClassifier(depth=3, budget=2, time_limit=10).fit(X, y)
    low, high = X.min(axis=0), X.max(axis=0)
    points = grid(low, high)
    tree_pred = m.predict(points)
    pay = move_costs(X, costs, points)
    c = np.sort(np.where(tree_pred[None, :] != y[:, None], pay, np.inf).min(axis=1))
    flipped = int((np.cumsum(c) <= 2 + 1e-9).sum())
    assert m.objective_ == pytest.approx((len(y) - flipped) / len(y))
    assert m.bound_ >= m.objective_
    if m.status_ == "optimal":  # a depth-2 tree is a depth-3 tree
        assert m.objective_ >= optimum(X, y, costs, 2, 2, 0.0, worst_knapsack) - 1e-12


@pytest.mark.parametrize("seed", range(3))
def test_budget_zero_is_the_optimal_accuracy_tree(seed):
    X, y = data(seed, 30, 3, 4)
    m = RobustTreeClassifier(depth=2, budget=0).fit(X, y)
    low, high = X.min(axis=0), X.max(axis=0)
    best = max(float((predict(t, X) == y).mean()) for t in all_trees(low, high, 2, 2))
    assert m.objective_ == pytest.approx(best)
    assert m.score(X, y) == pytest.approx(best)
    bend = BendOCTClassifier(depth=2, time_limit=30).fit(X.astype(float), y)
    assert bend.score(X.astype(float), y) == pytest.approx(best)


def test_worst_case_on_new_rows_matches_the_oracle():
    X, y = data(11, 12, 3, 3)
    m = RobustTreeClassifier(depth=2, budget=2).fit(X, y)
    Xt, yt = data(12, 10, 3, 3)
    Xt = np.clip(Xt, X.min(axis=0), X.max(axis=0))  # perturbations stay in training range
    costs = np.random.default_rng(0).choice([0.5, 1.0, 3.0], size=Xt.shape)
    low, high = X.min(axis=0), X.max(axis=0)
    points = grid(low, high)
    pay = move_costs(Xt, costs, points)
    wrong = m.predict(points)[None, :] != yt[:, None]
    c = np.sort(np.where(wrong, pay, np.inf).min(axis=1))
    for budget in (0.0, 1.0, 2.5, 7.0):
        want = (len(yt) - int((np.cumsum(c) <= budget + 1e-9).sum())) / len(yt)
        assert m.worst_case_accuracy(Xt, yt, costs, budget) == pytest.approx(want)


def test_stopped_search_keeps_a_valid_bound():
    X, y = data(5, 60, 4, 4)
    m = RobustTreeClassifier(depth=3, budget=3, time_limit=1e-4)
    with pytest.warns(UserWarning):
        m.fit(X, y)
    assert m.status_ == "time_limit"
    assert m.bound_ >= m.objective_
    exact = RobustTreeClassifier(depth=3, budget=3).fit(X, y)
    assert exact.status_ == "optimal"
    assert m.objective_ <= exact.objective_ + 1e-12 <= m.bound_ + 1e-12


def test_solve_after_deadline_does_no_search():
    from optrees.robust.search import solve_robust_tree

    X, y = data(5, 30, 3, 3)
    result = solve_robust_tree(X, y, np.array([0, 1]), np.ones(X.shape), 2.0, 2, 0.0,
                               Deadline(0.0), ["a", "b", "c"])
    assert result.status == "time_limit" and result.stats["structures"] == 0
    assert result.bound >= result.objective


def test_export_text_and_constant_feature():
    X = np.array([[0, 5], [1, 5], [2, 5], [3, 5]])
    y = np.array(["a", "a", "b", "b"])
    m = RobustTreeClassifier(depth=2, budget=0).fit(X, y)
    assert m.score(X, y) == 1.0
    assert "x0 <= 1" in m.export_text() and "x1" not in m.export_text()


@pytest.mark.parametrize("X, costs, match", [
    (np.array([[0.5, 1], [1, 2], [0, 1]]), None, "non-integer"),
    (np.array([[0, 1], [1, 2], [0, 1]]), -np.ones((3, 2)), "costs must be numbers >= 0"),
    (np.array([[0, 1], [1, 2], [0, 1]]), np.ones((3, 3)), "shape"),
    (np.array([[0, 1], [1, 2], [0, 1]]), np.full((3, 2), np.nan), "costs must be numbers"),
    (np.array([["a", 1], ["b", 2], ["a", 1]], dtype=object), None, "not numeric"),
])
def test_bad_input_is_one_clear_error(X, costs, match):
    y = np.array([0, 1, 0])
    with pytest.raises(OptreesInputError, match=match):
        RobustTreeClassifier(depth=1, budget=1).fit(X, y, costs=costs)


@pytest.mark.parametrize("params", [{"depth": 4}, {"budget": -1}, {"lam": -0.1}])
def test_bad_parameters(params):
    X, y = data(0, 6, 2, 2)
    with pytest.raises(OptreesInputError):
        RobustTreeClassifier(**params).fit(X, y)


def test_integer_categories_are_read_as_their_values():
    """A categorical column of integer categories (the bundled UCI sets' kind) is the same
    feature as its integer values."""
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.integers(1, 4, 40), "b": rng.integers(0, 3, 40)})
    y = (X["a"] + X["b"] > 3).astype(int).to_numpy()
    as_ints = RobustTreeClassifier(depth=2, budget=2).fit(X, y)
    as_categories = RobustTreeClassifier(depth=2, budget=2).fit(X.astype("category"), y)
    assert as_categories.export_text() == as_ints.export_text()
    assert as_categories.objective_ == as_ints.objective_


def test_export_text_reads_as_the_other_trees():
    """The text layout of the other trees (``|---`` lines, ``class:`` leaves), the right
    branch of an integer test written as what it is (``x >= t + 1``)."""
    from optrees.models.robust_tree import IntegerTree

    tree = IntegerTree(feature=np.array([0, -1, 1, -1, -1, -1, -1]),
                       threshold=np.array([1, 0, 3, 0, 0, 0, 0]),
                       label=np.array([-1, 0, -1, -1, -1, 1, 0]),
                       classes=np.array(["no", "yes"]), low=np.zeros(2), high=np.full(2, 9),
                       feature_names=["age", "priors"])
    assert tree.export_text() == "\n".join([
        "|--- age <= 1",
        "|   |--- class: no",
        "|--- age >= 2",
        "|   |--- priors <= 3",
        "|   |   |--- class: yes",
        "|   |--- priors >= 4",
        "|   |   |--- class: no"])
    leaf = IntegerTree(feature=np.array([-1]), threshold=np.array([0]), label=np.array([1]),
                       classes=np.array([0, 1]), low=np.zeros(1), high=np.ones(1),
                       feature_names=["x"])
    assert leaf.export_text() == "class: 1"
