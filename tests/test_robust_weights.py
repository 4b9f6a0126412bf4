"""RobustTreeClassifier's sample weights against oracles written from the definition: a row
of weight w is floor(w) copies of weight 1 and one copy of the fractional rest, each shifted
on its own at the row's costs; the adversary flips the copies of most weight within the
budget (every subset of copies enumerated here)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from test_robust_trees import all_trees, data, grid, move_costs, predict

from optrees import OptreesInputError, RobustTreeClassifier
from optrees.robust.adversary import cheapest_wrong_leaves, flipped_rows, flipped_weight


def copies(c, w):
    """(cost, weight) of every copy of the rows: floor(w) of weight 1, one of the rest."""
    out = []
    for ci, wi in zip(c, w, strict=True):
        k = int(np.floor(wi))
        out += [(ci, 1.0)] * k
        if wi > k:
            out.append((ci, wi - k))
    return np.array(out).reshape(-1, 2)


def most_flipped(c, w, budget):
    """Largest weight of a subset of copies whose costs add up to at most the budget."""
    items = copies(c, w)
    if len(items) == 0:
        return 0.0
    subsets = np.array(list(itertools.product([0, 1], repeat=len(items))), dtype=bool)
    with np.errstate(invalid="ignore"):
        cost = np.where(subsets, items[:, 0], 0.0).sum(axis=1)
    value = np.where(subsets, items[:, 1], 0.0).sum(axis=1)
    return float(value[cost <= budget + 1e-9].max())


def weighted_optimum(X, y, w, costs, budget, depth):
    """Best worst-case correct weight share over every tree of depth <= ``depth`` (trees
    with the same labels over the grid have the same worst case: one evaluation each)."""
    low, high = X.min(axis=0), X.max(axis=0)
    points = grid(low, high)
    pay = move_costs(X, costs, points)
    best, seen = -1.0, set()
    for tree in all_trees(low, high, int(y.max()) + 1, depth):
        labels = predict(tree, points)
        if labels.tobytes() in seen:
            continue
        seen.add(labels.tobytes())
        wrong = labels[None, :] != y[:, None]
        c = np.where(wrong, pay, np.inf).min(axis=1)
        best = max(best, (w.sum() - most_flipped(c, w, budget)) / w.sum())
    return best


@pytest.mark.parametrize("seed", range(60))
def test_flipped_weight_is_the_best_subset_of_copies(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 6))
    c = rng.choice([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, np.inf], size=n)
    w = [rng.choice([0.5, 1.0, 2.0, 3.0, 0.25, 1.5, 2.75], size=n),
         rng.integers(1, 4, size=n).astype(float),
         rng.choice([0.3, 0.7, 1.2], size=n)][seed % 3]
    budget = float(rng.choice([0.0, 0.5, 1.0, 2.0, 3.5, 5.0]))
    want = most_flipped(c, w, budget)
    assert flipped_weight(c, w, budget) == pytest.approx(want)
    assert flipped_weight(np.stack([c, c[::-1]]), w, budget)[0] == pytest.approx(want)


def knapsack_table(c, w, budget, unit=0.5):
    """The same as most_flipped for costs that are multiples of ``unit`` (or inf), by the
    0/1 knapsack's table over the copies: ``best[b]`` the most weight within ``b`` units."""
    cap = int(np.floor(budget / unit + 1e-9))
    best = np.zeros(cap + 1)
    for ci, wi in copies(c, w):
        k = int(round(ci / unit)) if ci <= budget else cap + 1  # inf: never paid
        if k <= cap:
            best[k:] = np.maximum(best[k:], best[:len(best) - k] + wi)
    return float(best[cap])


def assert_a_response(v, c, w, budget):
    """``v`` (weight flipped of each row) is a move the adversary can make: within each
    row's weight, whole unit copies plus at most the row's one fractional copy, paid for
    within the budget."""
    assert (v >= 0).all() and (v <= w + 1e-12).all()
    whole = np.floor(v + 1e-12)
    frac = v - whole
    assert np.allclose(frac[frac > 1e-12], (w - np.floor(w))[frac > 1e-12])
    moves = whole + (frac > 1e-12)
    with np.errstate(invalid="ignore"):
        assert np.where(moves > 0, moves * c, 0.0).sum() <= budget + 1e-9


@pytest.mark.parametrize("seed", range(30))
def test_best_response_on_more_rows_matches_the_knapsack_table(seed):
    """flipped_weight and flipped_rows on up to 30 rows (several groups of fractional
    copies, ties in cost) against the knapsack over every copy."""
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(6, 31))
    c = rng.choice([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, np.inf], size=n)
    w = [rng.choice([0.5, 1.0, 2.0, 0.25, 1.5, 2.75, 0.3, 1.7], size=n),
         rng.integers(0, 4, size=n).astype(float), None][seed % 3]
    budget = float(rng.choice([0.5, 2.0, 4.5, 8.0]))
    ww = np.ones(n) if w is None else w
    want = knapsack_table(c, ww, budget)
    assert flipped_weight(c, w, budget) == pytest.approx(want)
    v = flipped_rows(c, w, budget)
    assert_a_response(v, c, ww, budget)
    assert v.sum() == pytest.approx(want)


@pytest.mark.parametrize("seed", range(10))
def test_cheapest_wrong_leaves_is_the_first_cheapest_leaf_of_another_label(seed):
    """Each row's cheapest move into a leaf whose label is not the row's, and the first
    leaf (left to right) at that cost; leaf 0 where no such leaf is reachable (inf)."""
    rng = np.random.default_rng(seed)
    n, L, K = 12, int(rng.integers(1, 9)), 3
    dist = rng.choice([0.0, 1.0, 2.5, np.inf], size=(n, L))
    y = rng.integers(0, K, size=n)
    batch = rng.integers(0, K, size=(3, L))
    for labels, (cost, leaf) in [(batch[0], cheapest_wrong_leaves(dist, batch[0], y)),
                                 *zip(batch, zip(*cheapest_wrong_leaves(dist, batch, y),
                                                 strict=True), strict=True)]:
        for i in range(n):
            others = [j for j in range(L) if labels[j] != y[i]]
            want = min((dist[i, j] for j in others), default=np.inf)
            first = next((j for j in others if dist[i, j] == want), 0) if want < np.inf else 0
            assert cost[i] == want
            assert leaf[i] == first


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("budget", [1.0, 2.5])
def test_weighted_optimum_matches_enumeration(seed, budget):
    rng = np.random.default_rng(40 + seed)
    X, y = data(seed, 6, 2, 2)
    w = rng.choice([0.5, 1.0, 2.0, 1.5], size=len(y))
    costs = rng.choice([0.5, 1.0, 2.0], size=X.shape)
    m = RobustTreeClassifier(depth=2, budget=budget).fit(X, y, costs=costs, sample_weight=w)
    want = weighted_optimum(X, y, w, costs, budget, 2)
    assert m.status_ == "optimal"
    assert m.objective_ == pytest.approx(want)
    assert m.worst_case_accuracy(X, y, costs, budget, sample_weight=w) == pytest.approx(want)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("depth", [1, 2])
def test_integer_weights_are_duplicated_rows(seed, depth):
    rng = np.random.default_rng(seed)
    X, y = data(60 + seed, 14, 3, 3)
    w = rng.integers(1, 4, size=len(y))
    costs = rng.choice([0.5, 1.0, 2.0], size=X.shape)
    budget = 3.0
    weighted = RobustTreeClassifier(depth=depth, budget=budget, time_limit=60).fit(
        X, y, costs=costs, sample_weight=w)
    rep = np.repeat(np.arange(len(y)), w)
    repeated = RobustTreeClassifier(depth=depth, budget=budget, time_limit=60).fit(
        X[rep], y[rep], costs=costs[rep])
    assert weighted.status_ == repeated.status_ == "optimal"
    assert weighted.objective_ == pytest.approx(repeated.objective_)
    assert weighted.worst_case_accuracy_ == pytest.approx(repeated.worst_case_accuracy_)
    assert weighted.export_text() == repeated.export_text()


def test_zero_weight_rows_are_left_out():
    rng = np.random.default_rng(5)
    X, y = data(5, 16, 3, 3)
    costs = rng.choice([0.5, 1.0], size=X.shape)
    w = np.ones(len(y))
    w[[3, 7, 11]] = 0.0
    keep = w > 0
    zero = RobustTreeClassifier(depth=2, budget=2).fit(X, y, costs=costs, sample_weight=w)
    gone = RobustTreeClassifier(depth=2, budget=2).fit(X[keep], y[keep], costs=costs[keep])
    assert zero.objective_ == pytest.approx(gone.objective_)
    assert zero.export_text() == gone.export_text()


@pytest.mark.parametrize("w, match", [
    (np.array([1.0, -1.0, 1.0, 1.0]), "sample_weight must be >= 0"),
    (np.array([1.0, np.nan, 1.0, 1.0]), "NaN"),
    (np.array([1.0, 1.0]), "shape"),
    (np.zeros(4), "zero for every row"),
])
def test_bad_weights_are_one_clear_error(w, match):
    X, y = data(0, 4, 2, 2)
    with pytest.raises(OptreesInputError, match=match):
        RobustTreeClassifier(depth=1, budget=1).fit(X, y, sample_weight=w)


# ------------------------------------------------------------- the search's bounds
def _labelled_trees(search, structure):
    """Every labelling of a depth-2 structure as an oracle tree."""
    s, (a, _, _), (b, _, _) = structure
    f, t = search.feat, search.thr
    for k in itertools.product(range(search.K), repeat=4):
        yield ("split", f[s], t[s],
               ("split", f[a], t[a], ("leaf", k[0]), ("leaf", k[1])),
               ("split", f[b], t[b], ("leaf", k[2]), ("leaf", k[3])))


def _worst_within_sides(tree, X, y, costs, budget, points, pay):
    """Worst case when each row may move only to points on its own side of the root split
    (the adversary the bounds are about: it flips no more than the free one)."""
    _, f, t, _, _ = tree
    same_side = (points[None, :, f] <= t) == (X[:, f] <= t)[:, None]
    wrong = (predict(tree, points)[None, :] != y[:, None]) & same_side
    c = np.sort(np.where(wrong, pay, np.inf).min(axis=1))
    return len(y) - int((np.cumsum(c) <= budget + 1e-9).sum())


@pytest.mark.parametrize("seed", range(3))
def test_root_and_pair_bounds_hold_for_every_tree(seed):
    """The roots phase's bounds, against the enumeration: a root split's bound from the
    sides' optima at each share of the budget, and a structure's bound from its sides'
    values over the shares, are at least every labelled tree's worst case against the
    adversary that keeps rows on their side of the root (by the cheapest-rows argument over
    the grid of points), which is at least the free adversary's."""
    from optrees.robust.search import SIDE_SHARES, RobustSearch
    from optrees.robust.streams import roots
    from optrees.solvers.deadline import Deadline

    rng = np.random.default_rng(seed)
    X, y = data(80 + seed, 12, 2, 4)
    costs = rng.choice([0.5, 1.0, 2.0], size=X.shape)
    budget = 3.0
    search = RobustSearch(X, y, 2, costs, budget, 2, 0.0)
    search.deadline = Deadline(60)
    points = grid(X.min(axis=0), X.max(axis=0))
    pay = move_costs(X, costs, points)
    tight = 0
    for root in roots(search.goes_left, search.onehot, np.arange(len(y)), 2,
                      search.side_values):
        pair = search.pair_values(root.split)
        best_of_root = -1
        i = 0
        while (item := root.stream.item(i)) is not None:
            best = max(_worst_within_sides(t, X, y, costs, budget, points, pay)
                       for t in _labelled_trees(search, item[1]))
            assert item[0] >= best - 1e-9  # the half-budget sum ordering the stream
            assert pair(item[1]) >= best - 1e-9
            tight += pair(item[1]) < item[0] - 1e-9
            best_of_root = max(best_of_root, best)
            i += 1
        for e in SIDE_SHARES:
            assert search.share_bound(root, e) >= best_of_root - 1e-9
    assert tight > 0  # the pair bound is tighter than the half-budget sum somewhere
