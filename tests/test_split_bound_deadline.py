"""Issue #42: the split-bound root row keeps the fit's time limit.

``SplitBoundCuts.root_row`` judges its D2S bounds affordable from a fixed speed; the bounds
(:func:`split_scores` over every root feature, O(K |I| F^3)) then ran without asking the
deadline: a BendersOCT build on 150,000 rows with a 100 s limit took 120.8 s.  Now the
bounds ask the deadline between blocks of features and, once it has passed, the root row is
not added.  The deadlines here are stubs that pass inside the bounds, whatever the machine's
speed."""

from __future__ import annotations

import numpy as np
import pytest

from optrees import BendersOCTClassifier
from optrees.estimators import trees as tree_estimators
from optrees.solvers import scip
from optrees.solvers.deadline import Deadline, TimeUp
from optrees.trees.mip import d2s as d2s_module
from optrees.trees.mip.benders import BendersOCT
from optrees.trees.problem.tree_problem import TreeProblem
from tests.deadlines import CountedDeadline, Until, UntilEverywhere


def _data(n: int = 3_000, f: int = 6, k: int = 3, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (n, f)).astype(np.uint8)
    y = (X[:, 0] + X[:, 1] * 2 + rng.integers(0, 2, n)) % k
    return X, y


def _best(X: np.ndarray, y: np.ndarray, w: np.ndarray, k: int, lam: float, depth: int
          ) -> float:
    """Best score (correct weight - lam x leaves) of a tree of depth <= ``depth`` on the
    rows given, by trying every split: the definition, in plain numpy."""
    leaf = float(np.bincount(y, w, minlength=k).max()) - lam
    if depth == 0:
        return leaf
    best = leaf
    for a in range(X.shape[1]):
        right = X[:, a] == 1
        best = max(best, _best(X[~right], y[~right], w[~right], k, lam, depth - 1)
                   + _best(X[right], y[right], w[right], k, lam, depth - 1))
    return best


def _stop_in_bounds(monkeypatch, deadline) -> list[bool]:
    """Make ``deadline`` pass at the first product of the batched bounds; returns, per
    product, whether it ran after that."""
    real = d2s_module._side_counters
    after: list[bool] = []

    def side_counters(*args):
        after.append(deadline.over)
        deadline.over = True
        return real(*args)

    monkeypatch.setattr(d2s_module, "_side_counters", side_counters)
    return after


@pytest.mark.parametrize("weighted", [False, True])
def test_split_scores_with_a_deadline_equal_the_definition(weighted) -> None:
    """With time left the checked batch gives, for every feature f, the best depth-2 score
    of each side x_f = 0 / x_f = 1 (tried split by split in numpy)."""
    X, y = _data(300, 4)
    X[:, 3] = 1  # a constant column: the batch's other path (D2S of the whole subset)
    rng = np.random.default_rng(2)
    w = rng.uniform(0.5, 2.0, len(y)) if weighted else None
    rows = np.flatnonzero(rng.random(len(y)) < 0.7)
    lam = 2.5
    left, right = d2s_module.split_scores(X, y, 3, lam, rows, weights=w,
                                          deadline=Deadline(3600))
    Xs, ys = X[rows], y[rows]
    ws = np.ones(len(rows)) if w is None else w[rows]
    for f in range(X.shape[1]):
        side = Xs[:, f] == 1
        assert left[f] == pytest.approx(_best(Xs[~side], ys[~side], ws[~side], 3, lam, 2))
        assert right[f] == pytest.approx(_best(Xs[side], ys[side], ws[side], 3, lam, 2))


def test_split_scores_stop_between_products() -> None:
    """A deadline that passes during the batch: TimeUp before the next product."""
    X, y = _data()
    for checks in (0, 1, 3):
        with pytest.raises(TimeUp):
            d2s_module.split_scores(X, y, 3, 0.0, deadline=CountedDeadline(checks))


def test_benders_build_without_the_root_row_after_the_deadline(monkeypatch) -> None:
    """The deadline passes at the first product of the root row's bounds (stub): no further
    product runs, the build returns without the row (nothing cached, no optimal tree from
    it), and with time the same build adds it."""
    X, y = _data()
    problem = TreeProblem(X, y, 3, 3, 0.0, "leaves")
    deadline = Until()
    after = _stop_in_bounds(monkeypatch, deadline)
    form = BendersOCT(problem, split_bound_cuts=True)
    model = scip.ScipModel()
    try:
        form.build(model, deadline)
    finally:
        model.free()
    assert after and after.count(True) <= 1  # at most the other side of the same product
    assert form.split_cuts.n_cuts == 0 and not form.split_cuts._bounds
    assert form.split_cuts.best_root_tree() is None

    form = BendersOCT(problem, split_bound_cuts=True)
    model = scip.ScipModel()
    try:
        form.build(model, Deadline(3600))
    finally:
        model.free()
    assert form.split_cuts.n_cuts == 1 and form.split_cuts.best_root_tree() is not None


def test_root_tree_subtrees_ask_the_deadline() -> None:
    """The optimal depth-3 tree from the root row needs two more D2S subtrees (pair counts
    over every row): the start's deadline stops them."""
    X, y = _data(20_000)  # more than one block of D2S's pair counts
    form = BendersOCT(TreeProblem(X, y, 3, 3, 0.0, "leaves"), split_bound_cuts=True)
    model = scip.ScipModel()
    try:
        form.build(model, None)
    finally:
        model.free()
    with pytest.raises(TimeUp):
        form.split_cuts.best_root_tree(CountedDeadline(0))


def test_fit_stopped_in_the_root_row_returns_the_start(monkeypatch) -> None:
    """The fit's deadline passes during the root row's bounds (stub): no further bound
    work, no SCIP solve, and the fit returns a tree with status "time_limit" whose
    objective is its correct count (numpy; BendersOCT's objective is in samples)."""
    X, y = _data()
    deadline = UntilEverywhere()
    monkeypatch.setattr(tree_estimators, "fit_deadline", lambda limit: deadline)
    after = _stop_in_bounds(monkeypatch, deadline)
    real_solve, solves = scip.ScipModel.solve, []

    def solve(self, *args, **kwargs):
        solves.append(1)
        return real_solve(self, *args, **kwargs)

    monkeypatch.setattr(scip.ScipModel, "solve", solve)
    with pytest.warns(UserWarning):
        m = BendersOCTClassifier(depth=3, lam=0.0, time_limit=60, subtree_search=False,
                                 split_bound_cuts=True).fit(X, y)
    assert after and after.count(True) <= 1
    assert solves == []
    assert m.status_ == "time_limit"
    assert m.objective_ == pytest.approx(np.sum(m.predict(X) == y), abs=1e-9)
    assert m.objective_ >= np.bincount(y).max()
