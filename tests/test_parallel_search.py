"""The 0/1 search on several threads (``n_jobs``, issue #47): the same tree as one thread,
the optimum of an enumeration written from the definition, valid bounds when stopped."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from optrees import BendOCTClassifier
from optrees.trees.search import threads as threads_module
from optrees.trees.search.binary import roots as roots_module
from optrees.trees.search.binary import search as search_module
from optrees.trees.search.binary.entry import solve_subtree
from optrees.trees.search.threads import resolve_n_jobs, search_threads


def best_score(X, y, w, K, depth, L, min_leaf=1):
    """max over trees of depth <= ``depth`` of sum of weights of correctly classified rows -
    L * leaves, by enumeration: a tree is a leaf (its best class) or a test on a feature with
    both sides non-empty (at least ``min_leaf`` rows) and a tree on each."""
    leaf = max(w[y == k].sum() for k in range(K)) - L
    if depth == 0:
        return leaf
    best = leaf
    for f in range(X.shape[1]):
        right = X[:, f] == 1
        if min(right.sum(), (~right).sum()) < min_leaf:
            continue
        best = max(best, sum(best_score(X[s], y[s], w[s], K, depth - 1, L, min_leaf)
                             for s in (~right, right)))
    return best


def tree_score(tree, X, y, w, L):
    """Weight of the rows the heap tree classifies correctly - L * its leaves."""
    node = np.ones(len(y), dtype=np.int64)
    for _ in range(tree.depth):
        f = tree.split[node - 1]
        go = f >= 0
        node[go] = 2 * node[go] + X[np.flatnonzero(go), f[go]]
    leaves = len(np.unique(node))
    return float(w[tree.label[node - 1] == y].sum()) - L * leaves


def instance(seed: int, n=40, F=7, K=2, twins=True, noise=0.2):
    """Random 0/1 data, a ``noise`` share of labels redrawn at random (more: the best root
    feature comes later in the loop); with ``twins`` some columns repeat (equal trees)."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, F)) < rng.uniform(0.2, 0.8, F)).astype(np.int8)
    if twins:
        X = np.hstack([X, X[:, [1, 3]]])  # columns 7, 8 equal 1, 3
    y = ((X[:, 0] & X[:, 1]) | (X[:, 2] ^ X[:, 4])).astype(np.int64) % K
    flip = rng.random(n) < noise
    y[flip] = rng.integers(0, K, flip.sum())
    return X, y


@pytest.fixture
def every_node_branches(monkeypatch):
    """Depth-3 tops run the Python root loop (not one compiled call), so they fork too;
    the threads start after the first root feature, however light the search; threads are
    not capped by this machine's cores."""
    monkeypatch.setattr(search_module, "NODE3_WORK", 0)
    monkeypatch.setattr(roots_module, "PROBE_NODES", 1)
    monkeypatch.setattr(roots_module, "FORK_NODE_SECONDS", 0.0)
    monkeypatch.setattr(threads_module, "available_cores", lambda: 8)


def solved(X, y, depth, L, n_jobs, **kw):
    with search_threads(n_jobs):
        return solve_subtree(X, y, depth, L, **kw)


@pytest.mark.parametrize("seed", range(12))
def test_threads_give_the_serial_tree_and_the_enumerated_optimum(seed, every_node_branches):
    depth = 3 + seed % 2
    X, y = instance(seed, n=36 if depth == 4 else 50, F=5 if depth == 4 else 7,
                    noise=(0.2, 0.6, 1.0)[seed % 3])
    L = [0.0, 0.5, 1.0, 2.0][seed % 4]
    w = np.ones(len(y))
    serial = solved(X, y, depth, L, 1)
    optimum = best_score(X, y, w, 2, depth, L)
    for n_jobs in (2, 3):
        par = solved(X, y, depth, L, n_jobs)
        assert par.optimal
        assert par.score == pytest.approx(optimum)
        assert tree_score(par.tree, X, y, w, L) == pytest.approx(optimum)
        np.testing.assert_array_equal(par.tree.split, serial.tree.split)
        np.testing.assert_array_equal(par.tree.label, serial.tree.label)
        # the threads' work is counted (at most the pruning of one thread is lost)
        assert par.stats["nodes"] >= serial.stats["nodes"] / 2 > 1


def test_twin_columns_give_the_first_in_the_loops_order(every_node_branches):
    """Every column twice: each tree has an equal twin; the serial loop keeps the first
    feature of each tie, and so must the threads however they interleave."""
    X, y = instance(3, n=60, F=6, twins=False, noise=1.0)
    X = np.hstack([X, X])
    serial = solved(X, y, 4, 0.5, 1)
    for _ in range(8):
        par = solved(X, y, 4, 0.5, 2)
        np.testing.assert_array_equal(par.tree.split, serial.tree.split)
        np.testing.assert_array_equal(par.tree.label, serial.tree.label)


@pytest.mark.parametrize("seed", range(4))
def test_weights_min_leaf_and_three_classes(seed, every_node_branches):
    X, y = instance(seed + 20, n=45, F=6, K=3, noise=0.7)
    w = np.random.default_rng(seed).uniform(0.5, 2.0, len(y))
    for min_leaf in (1, 4):
        optimum = best_score(X, y, w, 3, 3, 0.7, min_leaf)
        serial = solved(X, y, 3, 0.7, 1, sample_weight=w, min_leaf=min_leaf)
        par = solved(X, y, 3, 0.7, 2, sample_weight=w, min_leaf=min_leaf)
        assert par.score == pytest.approx(optimum)
        np.testing.assert_array_equal(par.tree.split, serial.tree.split)


class CountdownDeadline:
    """Expires after ``calls`` questions (a time limit that ends mid-search)."""

    def __init__(self, calls: int) -> None:
        self.left = calls
        self.lock = threading.Lock()

    def expired(self) -> bool:
        with self.lock:
            self.left -= 1
            return self.left < 0

    def share(self, fraction):
        return self

    def remaining(self):
        return 1.0


@pytest.mark.parametrize("calls", [1, 3, 10, 30])
def test_a_stopped_search_keeps_a_valid_bound(calls, every_node_branches):
    X, y = instance(7, n=50, F=7, noise=0.8)
    w = np.ones(len(y))
    optimum = best_score(X, y, w, 2, 4, 0.5)
    found = solved(X, y, 4, 0.5, 2, deadline=CountdownDeadline(calls))
    assert found.bound >= optimum - 1e-9
    assert found.score <= optimum + 1e-9
    assert tree_score(found.tree, X, y, w, 0.5) == pytest.approx(found.score)


def test_an_error_on_a_thread_reaches_the_caller(monkeypatch, every_node_branches):
    step = roots_module.Roots.step

    def failing(self, search, j, floor, stop):
        if j == 2:
            raise RuntimeError("planted in step 2")
        return step(self, search, j, floor, stop)

    monkeypatch.setattr(roots_module.Roots, "step", failing)
    X, y = instance(1)
    with pytest.raises(RuntimeError, match="planted in step 2"):
        solved(X, y, 4, 0.5, 2)


def test_threads_of_n_jobs(monkeypatch):
    monkeypatch.setattr(threads_module, "available_cores", lambda: 4)
    assert [resolve_n_jobs(v) for v in (None, 1, 2, 9, -1, -2, -9)] == [1, 1, 2, 4, 4, 3, 1]
    assert threads_module.threads() == 1
    with search_threads(-1) as count:
        assert count == threads_module.threads() == 4
    assert threads_module.threads() == 1


def test_estimator_n_jobs_gives_the_same_tree(monkeypatch):
    monkeypatch.setattr(threads_module, "available_cores", lambda: 2)
    X, y = instance(5, n=120, F=10)
    fits = [BendOCTClassifier(depth=4, lam=0.005, binarizer=None, n_jobs=n).fit(X, y)
            for n in (None, 2, -1)]
    for fit in fits[1:]:
        assert fit.status_ == "optimal"
        assert fit.objective_ == fits[0].objective_
        np.testing.assert_array_equal(fit.predict(X), fits[0].predict(X))
        assert fit.export_text() == fits[0].export_text()


@pytest.mark.parametrize("bad", [0, 1.5, "2", True])
def test_bad_n_jobs_is_named(bad):
    X, y = instance(0)
    with pytest.raises(ValueError, match="n_jobs"):
        BendOCTClassifier(n_jobs=bad).fit(X, y)


def started_threads(monkeypatch) -> list:
    """The threads the search starts (recorded)."""
    started = []
    original = threading.Thread.start

    def start(self):
        started.append(self)
        original(self)

    monkeypatch.setattr(threading.Thread, "start", start)
    return started


def test_a_light_search_stays_on_one_thread(monkeypatch):
    """Nodes faster than FORK_NODE_SECONDS (Python-bound): no thread starts; slower ones
    (the threshold lowered to 0) start n_jobs - 1 threads beside the caller's. The light
    case's threshold is 1 s a node, so that a loaded machine (CI: nodes of tens of us took
    over 2e-4 s) cannot make its nodes heavy."""
    monkeypatch.setattr(threads_module, "available_cores", lambda: 8)
    monkeypatch.setattr(roots_module, "FORK_NODE_SECONDS", 1.0)
    X, y = instance(2, n=80, F=10, noise=1.0)  # depth 5: 200+ nodes of tens of us
    started = started_threads(monkeypatch)
    light = solved(X, y, 5, 0.5, 3)
    assert light.stats["nodes"] > roots_module.PROBE_NODES  # (the probe did not end it)
    assert started == []
    monkeypatch.setattr(roots_module, "PROBE_NODES", 1)
    monkeypatch.setattr(roots_module, "FORK_NODE_SECONDS", 0.0)
    heavy = solved(X, y, 5, 0.5, 3)
    assert len(started) == 2
    assert heavy.score == light.score
    np.testing.assert_array_equal(heavy.tree.split, light.tree.split)


def test_the_command_line_takes_n_jobs(tmp_path, capsys, monkeypatch):
    from optrees import load_dataset
    from optrees.cli import main

    monkeypatch.setattr(threads_module, "available_cores", lambda: 2)
    X, y = load_dataset("tic-tac-toe")
    csv = tmp_path / "ttt.csv"
    X.assign(label=y).to_csv(csv, index=False)
    outs = []
    for jobs in ("1", "2"):
        assert main(["fit", "--csv", str(csv), "--target", "label", "--method", "bendoct",
                     "--depth", "4", "--n-jobs", jobs, "--time-limit", "60"]) == 0
        outs.append(capsys.readouterr().out.split("time ")[0])  # all but the timings
    assert outs[0] == outs[1]
    assert main(["fit", "--csv", str(csv), "--target", "label", "--n-jobs", "0"]) == 2
    assert "n_jobs must be" in capsys.readouterr().err


def test_the_numpy_backend_forks_too(every_node_branches):
    """Without numba (no memo of depth-2 sides) the threads give the same tree."""
    X, y = instance(11, n=40, F=6, noise=0.8)
    optimum = best_score(X, y, np.ones(len(y)), 2, 4, 0.5)
    serial = solved(X, y, 4, 0.5, 1, backend="numpy")
    par = solved(X, y, 4, 0.5, 2, backend="numpy")
    assert par.stats["backend"] == "numpy"
    assert par.score == pytest.approx(optimum)
    np.testing.assert_array_equal(par.tree.split, serial.tree.split)
