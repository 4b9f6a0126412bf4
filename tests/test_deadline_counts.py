"""Counting products over many rows ask the deadline between blocks of rows (issue #42).

The 0/1 tree search's numpy counters (a Gram matrix per class over the node's rows) and the
robust search's pair counts were one uninterruptible product each: 150,000 rows x 100
features took 3.3 s past a 3 s limit, 50,000 rows x 234 splits 2 s past a 2 s one.
Oracles: the products written out over the rows in plain numpy.  Deadlines are stubs that
pass at a chosen step, never the machine's clock.
"""

from __future__ import annotations

import numpy as np
import pytest
from deadlines import Until

from optrees.robust import streams
from optrees.solvers.deadline import Deadline, TimeUp
from optrees.trees.search.binary import counts
from optrees.trees.search.binary.entry import solve_subtree


def _data(n: int = 300, F: int = 7, K: int = 3, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, F)) < 0.4).astype(np.uint8)
    y = rng.integers(0, K, size=n)
    return X, y, rng


@pytest.mark.parametrize("weights", ["unit", "integer", "fractional"])
def test_gram_blocks_are_the_class_pair_weights(weights: str, monkeypatch) -> None:
    X, y, rng = _data()
    w = {"unit": np.ones(len(y)), "integer": rng.integers(0, 5, len(y)).astype(float),
         "fractional": rng.uniform(0, 2, len(y))}[weights]
    rows = np.sort(rng.choice(len(y), 200, replace=False))
    monkeypatch.setattr(counts, "GRAM_ROWS", 16)  # many blocks per class
    G, t = counts.gram_blocks(X, y, w, rows, 3)
    for k in range(3):
        r = rows[y[rows] == k]
        want = np.einsum("i,ia,ib->ab", w[r], X[r].astype(float), X[r].astype(float))
        assert np.allclose(G[:, :, k], want, rtol=1e-12, atol=1e-9)
        assert t[k] == pytest.approx(w[r].sum())


def test_gram_blocks_stop_at_a_passed_deadline() -> None:
    X, y, _ = _data()
    deadline = Until()
    deadline.over = True
    with pytest.raises(TimeUp):
        counts.gram_blocks(X, y, np.ones(len(y)), np.arange(len(y)), 3, deadline)


def test_search_counting_past_the_deadline_returns_a_tree(monkeypatch) -> None:
    """The deadline passes as the root's counters start (stub): no product is finished
    after it, and the search returns a tree (not proven) instead of counting on."""
    X, y, _ = _data(400, 6, 2)
    deadline = Until()
    class_weights = counts.Counter.class_weights
    finished_after = []

    def counting(self, rows, *args):
        deadline.over = True
        out = class_weights(self, rows, *args)
        finished_after.append(len(rows))
        return out

    monkeypatch.setattr(counts.Counter, "class_weights", counting)
    found = solve_subtree(X, y, 3, backend="numpy", deadline=deadline)
    assert finished_after == []
    assert not found.optimal and found.stats["timed_out"]
    majority = np.bincount(y).max()
    assert found.score >= majority and found.bound >= found.score


def test_robust_pair_counts_by_blocks(monkeypatch) -> None:
    rng = np.random.default_rng(2)
    goes_left = rng.random((250, 9)) < 0.5
    onehot = np.eye(2)[rng.integers(0, 2, 250)] * rng.integers(1, 4, 250)[:, None]
    rows = np.sort(rng.choice(250, 180, replace=False))
    monkeypatch.setattr(streams, "PAIR_ROWS", 32)
    got = streams._pair_counts(goes_left, onehot, rows, Deadline())
    G = goes_left[rows].astype(float)
    want = np.einsum("is,ip,ik->spk", G, G, onehot[rows])
    assert np.allclose(got, want)
    deadline = Until()
    deadline.over = True
    with pytest.raises(TimeUp):
        streams._pair_counts(goes_left, onehot, rows, deadline)


def test_robust_tree_stopped_while_counting_pairs_is_returned(monkeypatch) -> None:
    """The deadline passes as the pair counts start (stub): no further product, a tree and
    status "time_limit" come back."""
    from optrees import RobustTreeClassifier
    from optrees.estimators import robust as robust_estimator

    rng = np.random.default_rng(3)
    X = rng.integers(0, 5, size=(300, 3))
    y = (X[:, 0] + rng.integers(0, 3, 300) > 4).astype(int)
    deadline = Until()
    monkeypatch.setattr(robust_estimator, "fit_deadline", lambda limit: deadline)
    pair_counts = streams._pair_counts
    products = []

    def counting(goes_left, onehot, rows, *args):
        deadline.over = True
        out = pair_counts(goes_left, onehot, rows, *args)
        products.append(len(rows))
        return out

    monkeypatch.setattr(streams, "_pair_counts", counting)
    with pytest.warns(UserWarning):
        m = RobustTreeClassifier(depth=2, budget=5, time_limit=60).fit(X, y)
    assert products == [] and m.status_ == "time_limit"
    assert m.predict(X).shape == (300,)
