"""Tests that kill mutants of the MIPs' fairness rows and their lazy cuts
(``optrees/trees/mip/fairness_rows.py``, ``bench/mutation.py`` group ``tree-fairness``).

Oracle: every canonical tree of depth 2 over two 0/1 columns, walked by hand in numpy.  A lazy
row is valid when every such tree, with its correctness c_i = [prediction_i == y_i] and its
``q_i = [prediction_i == positive]``, satisfies it; ``violated`` is exact when it is False at
every tree's own values and True where one of those values is wrong.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from optrees.solvers.scip import ScipModel
from optrees.trees.mip.flow import FlowOCT
from optrees.trees.problem.fairness import TreeFairness
from optrees.trees.problem.tree_problem import HeapTree, TreeProblem

F, DEPTH = 2, 2


def _predict(split: np.ndarray, label: np.ndarray, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Heap node where each row stops (a leaf or a node that does not branch) and its label."""
    stop = []
    for x in X:
        n = 1
        while n <= len(split) and split[n - 1] >= 0:
            n = 2 * n + int(x[split[n - 1]])
        stop.append(n)
    stop = np.array(stop)
    return stop, label[stop - 1]


def _canonical_trees(K: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Every tree of depth <= 2 over F columns with K classes, once: below a node that does
    not branch nothing branches and the label repeats."""
    out = []
    for root in range(-1, F):
        if root < 0:
            out += [(np.array([-1, -1, -1]), np.full(7, k)) for k in range(K)]
            continue
        sides = []
        for f in range(-1, F):
            if f < 0:
                sides += [(f, (k, k, k)) for k in range(K)]
            else:
                sides += [(f, (0, a, b)) for a in range(K) for b in range(K)]
        for (fl, (ll, l4, l5)), (fr, (lr, l6, l7)) in itertools.product(sides, sides):
            out.append((np.array([root, fl, fr]), np.array([0, ll, lr, l4, l5, l6, l7])))
    return out


@pytest.fixture(scope="module", params=[2, 3])
def case(request):
    """A FlowOCT model of 3 groups, statistical parity, K classes (positive class 1) and
    every canonical tree."""
    K = request.param
    rng = np.random.default_rng(7)
    n = 14
    X = np.array(list(itertools.product([0, 1], repeat=F)) * 4)[:n]
    y = rng.integers(0, K, n)
    groups = rng.integers(0, 3, n)
    w = rng.integers(1, 4, n).astype(float)
    fair = TreeFairness("statistical_parity", 0.1, groups, 1)
    problem = TreeProblem(X, y, K, DEPTH, sample_weight=w, fairness=fair)
    form, model = FlowOCT(problem), ScipModel()
    form.build(model)
    yield K, X, y, form, _canonical_trees(K)
    model.free()


def _tree_values(form, X, y, split, label, positive=1):
    """The model's vector of a tree, checked against the definition: the sink flow of row i
    is [prediction_i == y_i] and each q_i is [prediction_i == positive]."""
    x = form.start_values(HeapTree(split.copy(), label.copy()))
    _, pred = _predict(split, label, X)
    np.testing.assert_array_equal(x[form.z_t].sum(axis=1), (pred == y).astype(float))
    cuts = form.fair_cuts
    if hasattr(cuts, "q"):
        np.testing.assert_array_equal(x[cuts.q], (pred[cuts.rows] == positive).astype(float))
    return x, pred


def _holds(row, x, tol=1e-9) -> bool:
    value = float(row.coefs @ x[row.ids])
    return row.lhs - tol <= value <= row.rhs + tol


def test_lazy_fairness_rows_are_exact_and_valid_for_every_tree(case):
    """At every tree's own values nothing is violated; with one row's correctness (or, with
    three classes, one q_i) set wrong, ``violated`` says so and ``separate`` returns rows that
    cut that point off and that every tree satisfies."""
    K, X, y, form, trees = case
    cuts = form.fair_cuts
    assert type(cuts).__name__ == ("PredictionCuts" if K > 2 else "CorrectnessCuts")
    # a q_i for the rows of the other classes only (a positive row's q_i is its c_i)
    assert K == 2 or (len(cuts.rows) > 0 and (y[cuts.rows] != 1).all())
    values = [_tree_values(form, X, y, s, lab) for s, lab in trees]
    for x, _ in values:
        assert not cuts.violated(x)
        assert cuts.separate(x, True) == []
    rng = np.random.default_rng(K)
    rows, n_cuts = [], cuts.n_cuts
    for t in rng.choice(len(trees), 25, replace=False):
        split, label = trees[t]
        x, pred = values[t]
        stop, _ = _predict(split, label, X)
        bad = []
        for i in np.flatnonzero(pred == y)[:2]:          # a correct row claimed incorrect
            xb = x.copy()
            xb[form.z_t[i, stop[i] - 1]] = 0.0
            bad.append(xb)
        if K > 2:
            for k in range(min(len(cuts.rows), 3)):       # q_i flipped both ways
                xb = x.copy()
                xb[cuts.q[k]] = 1.0 - xb[cuts.q[k]]
                bad.append(xb)
        if K > 2:                                         # every q_i wrong at once
            xb = x.copy()
            xb[cuts.q] = 1.0 - xb[cuts.q]
            new = cuts.separate(xb, True)
            rows += new
            for k in range(len(cuts.q)):                  # a row cuts off each wrong q_i
                assert any(cuts.q[k] in r.ids and not _holds(r, xb) for r in new)
        for xb in bad:
            assert cuts.violated(xb)
            assert cuts.separate(xb, False) == []          # fractional points: no rows
            new = cuts.separate(xb, True)
            assert new and any(not _holds(r, xb) for r in new)
            rows += new
    assert cuts.n_cuts - n_cuts == len(rows) > 0          # stats_["correctness_cuts"]
    for x, _ in values:
        assert all(_holds(r, x) for r in rows)


class _Recorder:
    """Stands in for the model: numbers the new variables after ``n`` and keeps the rows."""

    def __init__(self, n: int) -> None:
        self.n, self.rows, self.bounds = n, [], []

    def add_vars(self, k, vtype, ub=None, name=None):
        self.n += k
        if k:
            self.bounds.append((vtype, ub))
        return list(range(self.n - k, self.n))

    def add_row(self, ids, vals, lhs, rhs):
        self.rows.append((np.asarray(ids), np.asarray(vals, dtype=float), lhs, rhs))


def _cells(kind, y, legit, positive) -> list[np.ndarray]:
    """The rows whose group rates the notion compares, one mask per cell."""
    pos = y == positive
    return {"statistical_parity": [np.ones(len(y), bool)],
            "conditional_parity": [legit == v for v in np.unique(legit)],
            "predictive_equality": [~pos], "equal_opportunity": [pos],
            "equalized_odds": [~pos, pos]}[kind]


def _rate_differences(kind, y, pred, groups, legit, w, positive) -> list[float]:
    """Per cell of the notion, per pair of groups a < b with weight in it: the weighted rate
    of positive predictions of a minus that of b."""
    out = []
    for cell in _cells(kind, y, legit, positive):
        rates = [w[m] @ (pred[m] == positive) / w[m].sum() for g in np.unique(groups)
                 if w[m := cell & (groups == g)].sum() > 0]
        out += [a - b for a, b in itertools.combinations(rates, 2)]
    return out


@pytest.mark.parametrize("K", [2, 3])
@pytest.mark.parametrize("kind", ["statistical_parity", "conditional_parity",
                                  "predictive_equality", "equal_opportunity", "equalized_odds"])
def test_each_fairness_row_is_a_rate_difference_within_epsilon(kind, K):
    """At every tree (with its own c_i and q_i), row r of add_fairness_rows minus the middle
    of its range is the r-th rate difference of the definition, and its half-width is
    epsilon.  Three groups (one without weight in some cells), weights 0 to 3."""
    from optrees.trees.mip.fairness_rows import add_fairness_rows

    rng = np.random.default_rng(11 + K)
    n, positive, eps = 14, K - 1, 0.15
    X = np.array(list(itertools.product([0, 1], repeat=F)) * 4)[:n]
    y = np.r_[np.arange(K), rng.integers(0, K, n - K)]
    groups = np.r_[0, 1, 2, rng.integers(0, 3, n - 3)]
    groups[(y == positive) & (groups == 2)] = 0          # group 2 has no positive rows
    legit = rng.integers(0, 2, n)
    w = rng.integers(0, 4, n).astype(float)
    w[:3], w[3] = 1.0, 0.0                               # row 3: class 0, weight 0
    fair = TreeFairness(kind, eps, groups, positive, legit)
    form, model = FlowOCT(TreeProblem(X, y, K, DEPTH, sample_weight=w, fairness=fair)), \
        ScipModel()
    form.build(model)
    try:
        rec = _Recorder(model.n_vars)
        cuts = add_fairness_rows(form, rec)
        # q_i in [0, 1] exactly for the rows of the other classes with weight in a cell where
        # two groups or more have weight
        compared = np.any([c & (len(np.unique(groups[c & (w > 0)])) > 1)
                           for c in _cells(kind, y, legit, positive)], axis=0)
        want_q = np.flatnonzero(compared & (w > 0) & (y != positive)) if K > 2 else []
        np.testing.assert_array_equal(getattr(cuts, "rows", []), want_q)
        assert rec.bounds == ([("C", 1.0)] if len(want_q) else [])
        assert cuts.n_cuts == 0                               # none separated yet
        trees = _canonical_trees(K)
        for t in np.random.default_rng(0).choice(len(trees), 120, replace=False):
            split, label = trees[t]
            x = np.zeros(rec.n)
            x[:model.n_vars] = form.start_values(HeapTree(split.copy(), label.copy()))
            _, pred = _predict(split, label, X)
            if hasattr(cuts, "q"):                       # rows of a third class
                x[cuts.q] = (pred[cuts.rows] == positive)
            want = _rate_differences(kind, y, pred, groups, legit, w, positive)
            got = [vals @ x[ids] - (lhs + rhs) / 2 for ids, vals, lhs, rhs in rec.rows]
            np.testing.assert_allclose(got, want, atol=1e-12)
            np.testing.assert_allclose([(rhs - lhs) / 2 for *_, lhs, rhs in rec.rows], eps)
    finally:
        model.free()


def test_a_value_off_by_exactly_the_tolerance_is_accepted(case):
    """``violated`` accepts a correctness or a q_i that misses its tree's value by the
    tolerance (boundary included) and rejects twice that.  The tolerance is set to 2^-20 so
    that 1 - tol and the differences are exact floats."""
    K, X, y, form, trees = case
    cuts = form.fair_cuts
    tol, cuts.tol = cuts.tol, 2.0**-20
    try:
        for split, label in trees[::40]:
            x, pred = _tree_values(form, X, y, split, label)
            stop, _ = _predict(split, label, X)
            points = []                                   # (point, off by the tolerance)
            for i in np.flatnonzero(pred == y)[:1]:
                for off in (1, 2):
                    xb = x.copy()
                    xb[form.z_t[i, stop[i] - 1]] = 1.0 - off * cuts.tol
                    points.append((xb, off == 1))
            for k in range(len(getattr(cuts, "rows", []))):
                for off in (1, 2):
                    xb = x.copy()
                    xb[cuts.q[k]] += off * cuts.tol * (-1.0 if xb[cuts.q[k]] else 1.0)
                    points.append((xb, off == 1))
            assert points
            for xb, within in points:
                assert cuts.violated(xb) is not within
                assert (cuts.separate(xb, True) == []) is within
    finally:
        cuts.tol = tol


def test_nothing_to_compare_adds_no_row_and_no_variable():
    """Equal opportunity with all positive rows in one group: no pair of rates, so
    add_fairness_rows adds no row, no q variable, and only the correctness cuts."""
    from optrees.trees.mip.fairness_rows import add_fairness_rows

    X = np.array(list(itertools.product([0, 1], repeat=F)) * 3)
    y = np.array([0, 1, 2] * 4)
    groups = np.where(y == 2, 0, np.arange(12) % 2)
    fair = TreeFairness("equal_opportunity", 0.1, groups, 2)
    form, model = FlowOCT(TreeProblem(X, y, 3, 1, fairness=fair)), ScipModel()
    form.build(model)
    try:
        rec = _Recorder(model.n_vars)
        cuts = add_fairness_rows(form, rec)
        assert (rec.n, rec.rows) == (model.n_vars, [])
        assert type(cuts).__name__ == "CorrectnessCuts"
    finally:
        model.free()
