"""Issue #42: scikit-learn's CART (which cannot be interrupted) within a fit's time limit.

CART's fit on every row runs when its predicted time fits in a share of the time left (as
before), otherwise on a sample, with the tree scored on every row; on many rows no fit
starts once the deadline has passed.  Oracles: heap trees evaluated in plain numpy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from optrees.solvers.deadline import Deadline
from optrees.trees.problem.tree_problem import TreeProblem
from optrees.trees.search import cart_budget, cart_start
from optrees.trees.search.numeric import entry
from optrees.trees.search.numeric.entry import solve_numeric
from tests.deadlines import Tight, Until


def _recording(monkeypatch) -> list[int]:
    """Rows of every CART fit from now on."""
    sizes: list[int] = []
    fit = DecisionTreeClassifier.fit

    def recorded(self, X, y, *args, **kwargs):
        sizes.append(len(y))
        return fit(self, X, y, *args, **kwargs)

    monkeypatch.setattr(DecisionTreeClassifier, "fit", recorded)
    return sizes


def _heap_predict(feature, threshold, label, X) -> np.ndarray:
    """Walk heap nodes 1, 2n (x <= t), 2n + 1 until a node that does not branch."""
    node = np.ones(len(X), dtype=np.int64)
    for _ in range(int(math.log2(len(label) + 1))):
        inner = node <= len(feature)
        f = np.where(inner, feature[np.minimum(node, len(feature)) - 1], -1)
        go = inner & (f >= 0)
        at = np.minimum(node, len(feature)) - 1
        right = X[np.arange(len(X)), np.maximum(f, 0)] > threshold[at]
        node = np.where(go, 2 * node + right, node)
    return label[node - 1]


def _numeric(n: int = 48_000, f: int = 5, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, f)), 3)
    y = ((X[:, 0] > 0.3) ^ (X[:, 1] * X[:, 2] > 0.1)
         ^ (rng.random(n) < 0.15)).astype(np.int64)
    return X, y


# ----------------------------------------------------------------- the planner alone
def _planner(n: int, deadline, monkeypatch, seconds: float = 0.01):
    """fit_in_time with a fit that records its rows and 'takes' ``seconds`` per 1,000 rows."""
    calls: list[int] = []
    clock = [0.0]
    monkeypatch.setattr(cart_budget.time, "perf_counter", lambda: clock[0])

    def fit(rows):
        size = n if rows is None else len(rows)
        calls.append(size)
        clock[0] += seconds * size / 1000
        return (float(size), rows)

    best = cart_budget.fit_in_time(n, 10, deadline, fit, lambda a, b: max(a, b, key=lambda t: t[0]))
    return calls, best


def test_planner_fits_every_row_when_there_is_time(monkeypatch) -> None:
    calls, best = _planner(100_000, Deadline(3600), monkeypatch)
    assert calls[-1] == 100_000 and best[0] == 100_000  # the full fit, as without a limit
    calls, _ = _planner(100_000, None, monkeypatch)
    assert calls == [100_000]


def test_planner_samples_when_the_full_fit_would_overrun(monkeypatch) -> None:
    # the probe of 10,000 rows 'takes' 0.1 s: every row is predicted at 1.25 s, over the
    # share of 2 s left (1 s) -> one more fit, on 10,000 x 1 / 0.1 x 0.8 = 80,000 rows
    calls, best = _planner(100_000, Tight(2.0), monkeypatch)
    assert max(calls) < 100_000 and len(calls) == 2
    assert calls[1] * 0.01 / 1000 <= cart_budget.CART_SHARE * 2.0
    calls, _ = _planner(100_000, Tight(0.05), monkeypatch)  # not even a larger sample
    assert calls == [cart_budget.probe_rows(10)]


def test_planner_starts_no_fit_on_many_rows_after_the_deadline(monkeypatch) -> None:
    deadline = Until()
    deadline.over = True
    calls, best = _planner(100_000, deadline, monkeypatch)
    assert calls == [] and best is None
    calls, best = _planner(1_000, deadline, monkeypatch)  # few rows: cheap, still fitted
    assert calls == [1_000]


# ----------------------------------------------------------------- numeric search
def _stop_after_cart(monkeypatch, deadline: Tight) -> None:
    """The numeric search's CART incumbent runs as usual, then ``deadline`` passes."""
    incumbent = entry.cart_incumbent

    def then_stop(*args, **kwargs):
        out = incumbent(*args, **kwargs)
        deadline.over = True
        return out

    monkeypatch.setattr(entry, "cart_incumbent", then_stop)


def test_numeric_incumbent_samples_when_time_is_short(monkeypatch) -> None:
    """Little time left as CART starts (stub; the deadline passes once it returns): CART is
    never fitted on every row, and the stopped search's tree, scored in numpy on every row,
    is at least the majority leaf."""
    X, y = _numeric()
    deadline = Tight(0.02)
    sizes = _recording(monkeypatch)
    _stop_after_cart(monkeypatch, deadline)
    found = solve_numeric(X, y, max_depth=3, deadline=deadline, backend="numpy")
    assert sizes and max(sizes) < len(y)
    correct = int((_heap_predict(found.feature, found.threshold, found.label, X) == y).sum())
    assert correct == pytest.approx(found.score)
    assert correct >= np.bincount(y).max()
    assert not found.optimal


def test_numeric_incumbent_keeps_full_cart_with_time(monkeypatch) -> None:
    """With time (no stub), CART on every row is fitted and the stopped search is at least
    as accurate as scikit-learn's CART on every row (numpy count)."""
    X, y = _numeric(n=45_000, seed=1)
    sizes = _recording(monkeypatch)
    cart = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    cart_correct = int((cart.predict(X) == y).sum())
    sizes.clear()
    deadline = Tight(3600.0)
    _stop_after_cart(monkeypatch, deadline)
    found = solve_numeric(X, y, max_depth=3, deadline=deadline, backend="numpy")
    assert len(y) in sizes
    correct = int((_heap_predict(found.feature, found.threshold, found.label, X) == y).sum())
    assert correct >= cart_correct


# ----------------------------------------------------------------- the MIP's warm start
def test_binary_start_samples_when_time_is_short(monkeypatch) -> None:
    rng = np.random.default_rng(4)
    X = rng.integers(0, 2, (60_000, 20)).astype(np.int8)
    y = (X[:, 0] ^ X[:, 1] ^ (rng.random(60_000) < 0.1)).astype(np.int64)
    problem = TreeProblem(X, y, 2, 3, 0.0)
    sizes = _recording(monkeypatch)
    tree = cart_start.cart_heap_tree(problem, 0, Tight(0.01))
    assert sizes and max(sizes) < len(y)
    majority = np.bincount(y).max() / len(y)
    assert tree is not None and tree.objective(problem) >= majority - 1e-12
    sizes.clear()
    assert cart_start.cart_heap_tree(problem, 0, Deadline(3600)) is not None
    assert sizes[-1] == len(y)
    expired = Until()
    expired.over = True
    sizes.clear()
    assert cart_start.cart_heap_tree(problem, 0, expired) is None and sizes == []
