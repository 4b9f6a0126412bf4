"""One 0/1 search on a local Dask cluster (issue #47): the serial tree, also when a worker
dies mid-fit."""

from __future__ import annotations

import os
import sys
import threading

import numpy as np
import pytest

from optrees import BendOCTClassifier
from optrees.trees.search.binary import search as search_module
from optrees.trees.search.binary.entry import solve_subtree
from optrees.trees.search.threads import search_threads

distributed = pytest.importorskip("distributed")
joblib = pytest.importorskip("joblib")


def best_score(X, y, depth, L):
    """max over trees of depth <= ``depth`` of correctly classified rows - L * leaves, by
    enumeration (a leaf, or a test on a feature splitting the rows and a tree on each side)."""
    leaf = max(np.sum(y == k) for k in (0, 1)) - L
    if depth == 0:
        return leaf
    best = leaf
    for f in range(X.shape[1]):
        right = X[:, f] == 1
        if right.all() or not right.any():
            continue
        best = max(best, sum(best_score(X[s], y[s], depth - 1, L) for s in (~right, right)))
    return best


def instance(seed: int, n: int, F: int):
    rng = np.random.default_rng(seed)
    X = (rng.random((n, F)) < 0.5).astype(np.int8)
    X = np.hstack([X, X[:, :2]])  # twin columns: ties
    y = ((X[:, 0] & X[:, 1]) | X[:, 2] ^ X[:, 3]).astype(np.int64)
    flip = rng.random(n) < 0.3
    y[flip] = rng.integers(0, 2, flip.sum())
    return X, y


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        yield client


def on_cluster(client, X, y, depth, L):
    with joblib.parallel_backend("dask"), search_threads(-1), \
            distributed.get_task_stream(client) as stream:
        found = solve_subtree(X, y, depth, L)
    runs = [t for t in stream.data if "optrees-roots" in str(t.get("key"))]
    return found, runs


@pytest.mark.parametrize("seed", range(3))
def test_the_cluster_gives_the_serial_tree_and_the_enumerated_optimum(client, seed):
    X, y = instance(seed, n=40, F=5)
    L = (0.0, 0.5, 1.5)[seed]
    serial = solve_subtree(X, y, 4, L)
    found, runs = on_cluster(client, X, y, 4, L)
    assert runs  # the root features ran as the cluster's tasks
    assert found.optimal
    assert found.score == pytest.approx(best_score(X, y, 4, L))
    np.testing.assert_array_equal(found.tree.split, serial.tree.split)
    np.testing.assert_array_equal(found.tree.label, serial.tree.label)
    assert found.stats["nodes"] > 1  # the workers' work is counted


def test_a_deep_search_stacks_its_blocks_here_and_searches_on_the_cluster(client,
                                                                        monkeypatch):
    """Depth 5: the stacked start runs in this process (no cluster task while it runs), the
    deep search's root features on the cluster; the serial tree, the enumerated optimum."""
    from optrees.trees.search.binary import entry

    X, y = instance(4, n=40, F=5)
    serial = solve_subtree(X, y, 5, 0.5)
    blocks, seen = entry._blocks, []

    def watched(search, *args):
        seen.append(search.client)
        out = blocks(search, *args)
        seen.append(search.client)
        return out

    monkeypatch.setattr(entry, "_blocks", watched)
    monkeypatch.setattr(entry.Search, "solve", _no_client_in(entry.Search.solve, seen))
    found, runs = on_cluster(client, X, y, 5, 0.5)
    assert runs and seen[0] is not None and seen[-1] is seen[0]
    assert found.optimal and found.score == pytest.approx(best_score(X, y, 5, 0.5))
    np.testing.assert_array_equal(found.tree.split, serial.tree.split)


def _no_client_in(solve, seen):
    """``Search.solve`` that records the client of each call made inside ``_blocks``
    (between the two entries ``watched`` appends)."""
    def recorded(self, *args, **kwargs):
        if len(seen) == 1:  # inside the blocks
            assert self.client is None
        return solve(self, *args, **kwargs)
    return recorded


def arm_death() -> int:
    """On a worker: its next run of root features ends the process (a crash mid-fit)."""
    from optrees.trees.search.binary import distributed as remote

    def die(*args, **kwargs):
        os._exit(1)

    remote.solve_run = die
    return os.getpid()


def test_a_killed_worker_loses_only_its_runs(client):
    X, y = instance(7, n=60, F=12)
    serial = solve_subtree(X, y, 4, 0.5)
    victim = sorted(client.scheduler_info()["workers"])[0]
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    try:
        pid = client.run(arm_death, workers=[victim])[victim]
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    found, runs = on_cluster(client, X, y, 4, 0.5)
    client.wait_for_workers(2, timeout=60)  # the nanny restarts it
    pids = set(client.run(os.getpid).values())
    assert pid not in pids  # it died (its runs were sent to it)
    assert found.optimal
    np.testing.assert_array_equal(found.tree.split, serial.tree.split)
    np.testing.assert_array_equal(found.tree.label, serial.tree.label)


def test_an_estimator_under_joblibs_dask_backend(client):
    X, y = instance(3, n=80, F=8)
    serial = BendOCTClassifier(depth=4, lam=0.01, binarizer=None).fit(X, y)
    with joblib.parallel_backend("dask"), distributed.get_task_stream(client) as stream:
        remote = BendOCTClassifier(depth=4, lam=0.01, binarizer=None, n_jobs=-1).fit(X, y)
    assert any("optrees-roots" in str(t.get("key")) for t in stream.data)
    assert remote.objective_ == serial.objective_
    assert remote.export_text() == serial.export_text()


@pytest.mark.parametrize("seed", range(3))
def test_a_deadline_on_the_cluster_keeps_a_valid_bound(client, seed, monkeypatch):
    class Countdown:
        """Expires after a few questions (a time limit that ends mid-search)."""

        def __init__(self) -> None:
            self.left, self.lock = 2, threading.Lock()

        def expired(self) -> bool:
            with self.lock:
                self.left -= 1
                return self.left < 0

        def remaining(self) -> float:
            return 30.0

        def share(self, fraction):
            return self

    # depth 3 on the cluster (not one compiled call), many root features, noise: the best
    # root comes late, after the runs the deadline lets finish
    monkeypatch.setattr(search_module, "NODE3_WORK", 0)
    X, y = instance(seed, n=40, F=12)
    y = np.random.default_rng(seed).integers(0, 2, len(y))
    optimum = best_score(X, y, 3, 0.5)
    with joblib.parallel_backend("dask"), search_threads(-1):
        found = solve_subtree(X, y, 3, 0.5, deadline=Countdown())
    assert found.bound >= optimum - 1e-9 >= found.score - 2e-9


def test_a_run_whose_data_was_lost_is_sent_again(client, monkeypatch):
    """A run cancelled by the cluster (its scattered data died with a worker) is sent again
    with the data scattered again: the first run's future and the data are cancelled here,
    and the fit still gives the serial tree."""
    X, y = instance(5, n=50, F=8)
    serial = solve_subtree(X, y, 4, 0.5)
    real_submit, cancelled = distributed.Client.submit, []

    def submit(self, fn, *args, **kwargs):
        future = real_submit(self, fn, *args, **kwargs)
        if getattr(fn, "__name__", "") == "solve_run" and not cancelled:
            cancelled.append(future.key)
            self.cancel([future, *args[1]])  # the run and the scattered data it reads
        return future

    monkeypatch.setattr(distributed.Client, "submit", submit)
    found, runs = on_cluster(client, X, y, 4, 0.5)
    assert cancelled
    assert found.optimal
    np.testing.assert_array_equal(found.tree.split, serial.tree.split)
    np.testing.assert_array_equal(found.tree.label, serial.tree.label)
