"""The root features of one node of the 0/1 search: their bounds, one feature's step, and
the loop over them on several threads (``n_jobs``, issue #47).

One step splits the node on one feature and solves both sides unless the cheap bounds
(weights, MurTree §4.6's similarity bound, the cache) show it cannot beat the floor.  The
serial loop is :meth:`.search.Search._branch_roots`.  :func:`parallel_roots` runs the steps
of the top node on threads that share the search's cache and the floor (the best tree met),
each writing its own memo of depth-2 sides (:mod:`.memo` is not thread-safe) and reading the
sides of the steps finished before its step began (a read-only table, rebuilt after each
step); the compiled kernels release the GIL.

Its answer is the serial loop's.  A thread reads the floor when it takes a feature, and
features are taken in the loop's order, so feature j's floor comes from features before j
only: it is at most the serial loop's floor there (less pruning, never more).  A step's
exact result does not depend on the floor, so the steps merged in order, a tree replacing
the best only when it beats it by more than ``tol``, give the serial loop's tree.
"""

from __future__ import annotations

import copy
import math
import threading
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from .tree import Node

Search = Any
"""A :class:`.search.Search` (not imported: the search imports this module)."""

__all__ = ["Roots", "merge_steps", "parallel_roots"]


@dataclass
class Roots:
    """A node's rows and its feasible root features in the loop's order (decreasing stump
    value: good incumbents first, more pruning after), with what their bounds need."""

    rows: np.ndarray
    depth: int
    feats: list[int]
    XsT: np.ndarray      # the rows' features, one row per feature (bool)
    A: np.ndarray        # A[i, j]: weight with x_i = 1 and x_j = 0 (loop order)
    At: np.ndarray
    prior0: list[float]  # a priori bounds of each side: max(leaf, weight - 2L)
    prior1: list[float]
    ub: np.ndarray       # proven bounds of both sides of each feature (inf: not met yet)
    parent: dict         # the node's counters (for depth-2 children)

    @classmethod
    def prepare(cls, search: Search, rows: np.ndarray, depth: int) -> Roots:
        """Counters, feasible features, their order and a priori bounds of ``rows``;
        :class:`~optrees.solvers.deadline.TimeUp` when the search's deadline passes while
        the numpy counters run."""
        d, L = search.d, search.L
        search.stats.grams += 1
        Gw, tw = search.counter.class_weights(rows, search.deadline)  # weights: bounds below
        XsT = np.ascontiguousarray(d.X[rows].T).view(bool)
        G, t = search.counter.to_scores(Gw, tw)       # scores of each prediction
        diag = np.einsum("aak->ak", G)                        # scores with x_f = 1
        ones = np.einsum("aak->a", Gw)                        # weight with x_f = 1
        total = float(tw.sum())
        feats = np.flatnonzero(search._feasible_splits(XsT, len(rows), ones, total))
        if search.order:
            stump = diag.max(axis=1) + (t - diag).max(axis=1)
            feats = feats[np.argsort(-stump[feats], kind="stable")]
        # Similarity bound (MurTree §4.6, mirrored): a subtree's value on S' is at most its
        # bound on S plus the weight of S' \ S.
        P = np.triu(Gw.sum(axis=2))
        P = (P + np.triu(P, 1).T)[np.ix_(feats, feats)]
        A = np.diag(P)[:, None] - P
        w1s = ones[feats]
        leaf1 = diag[feats].max(axis=1) - L
        leaf0 = (t - diag[feats]).max(axis=1) - L
        return cls(rows, depth, feats.tolist(), XsT, A, np.ascontiguousarray(A.T),
                   np.maximum(leaf0, total - w1s - 2.0 * L).tolist(),
                   np.maximum(leaf1, w1s - 2.0 * L).tolist(),
                   np.full((2, len(feats)), np.inf), {"G": (G, t)})

    def step(self, search: Search, j: int, floor: float, stop: bool
             ) -> tuple[float, float, Node]:
        """Split on the ``j``-th feature: ``(bound, value, tree)``, a proven bound of the
        best subtree with that root, and the best such tree found (value -inf, tree None,
        when the bounds show it cannot beat ``floor``).  ``stop``: bounds only (deadline)."""
        tol, depth, rows = search.tol, self.depth, self.rows
        f = self.feats[j]
        ub = self.ub
        # cheap bounds first (weights, similarity), the cache only if they do not prune
        u0, u1 = self.prior0[j], self.prior1[j]
        if j and search.m <= 1:  # the similarity bound (invalid under min_leaf)
            u0 = min(u0, float((ub[0, :j] + self.At[j, :j]).min()))
            u1 = min(u1, float((ub[1, :j] + self.A[j, :j]).min()))
        ub[0, j], ub[1, j] = u0, u1
        if stop or u0 + u1 <= floor + tol:
            search.stats.pruned += 1
            return u0 + u1, -math.inf, None
        mask = self.XsT[f]
        sides = (rows[~mask], rows[mask])
        keys = tuple(search.cache.key(r) for r in sides)
        u0 = min(u0, search._prior(keys[0], depth - 1))
        u1 = min(u1, search._prior(keys[1], depth - 1))
        ub[0, j], ub[1, j] = u0, u1
        if u0 + u1 <= floor + tol:
            search.stats.pruned += 1
            return u0 + u1, -math.inf, None
        grams = (search._child_grams(rows, sides, self.parent) if depth == 3
                 else (None, None))
        search._step(depth, 2 * f)
        r0 = search.solve(sides[0], depth - 1, floor - u1, keys[0], grams[0], cap=u0)
        ub[0, j] = r0.upper
        if r0.upper + u1 <= floor + tol:
            return r0.upper + u1, -math.inf, None
        search._step(depth, 2 * f + 1)
        r1 = search.solve(sides[1], depth - 1, floor - r0.value, keys[1], grams[1], cap=u1)
        ub[1, j] = r1.upper
        return r0.upper + r1.upper, r0.value + r1.value, (f, r0.node, r1.node)


PROBE_NODES = 100
"""Search nodes the top loop first solves on the calling thread (or :data:`PROBE_SECONDS`)."""

PROBE_SECONDS = 0.2
"""The probe's most CPU seconds (of the calling thread)."""

FORK_NODE_SECONDS = 2e-4
"""Fewest CPU seconds per search node in the probe for the threads to start.  Below it the
nodes are mostly Python (GIL-bound) bookkeeping around short compiled calls, and two threads
were slower than one: car and spect at depth 6 (83-92 us a node) 0.73-0.79x; above it they
gained: wine QT-5 depth 5 (370 us) 1.46x, kr-vs-kp depth 6 (343 us) 1.27-1.49x, 300,000
planted rows at depth 4 (14.7 ms) 1.89x."""


def parallel_roots(search: Search, roots: Roots, leaf: float, upper: float, lower: float
                   ) -> tuple[float, Node, float, bool]:
    """The serial root loop's ``(best, tree, parts, complete)`` from :attr:`Search.threads`
    threads: each takes the next feature in the loop's order and prunes against the best
    tree any thread has found.  The first features run on the calling thread (a probe);
    the threads start only where the probe's nodes are slow enough to gain from them
    (:data:`FORK_NODE_SECONDS`), else the loop ends on this thread."""
    n, tol = len(roots.feats), search.tol
    results: list[tuple[float, float, Node] | None] = [None] * n
    shares = search._memo is not None  # the depth-2 sides each thread found, for all
    state = {"next": 0, "floor": max(leaf, lower), "cut": False, "error": None,
             "seen": search._no_memo if shares else None, "forked": False}
    lock = threading.Lock()

    def work(worker: Search, until=None) -> None:
        try:
            while True:
                with lock:
                    j, floor = state["next"], state["floor"]
                    if j >= n or state["error"] is not None or (until and until()):
                        return
                    if floor >= upper - tol:
                        state["cut"] = True  # the rest is bounded by ``upper`` ≤ best
                        return
                    state["next"] = j + 1
                    if shares:
                        worker._seen = state["seen"]
                found = roots.step(worker, j, floor, worker._expired())
                with lock:
                    results[j] = found
                    state["floor"] = max(state["floor"], found[1])
                    if state["forked"]:
                        publish(worker)
        except BaseException as error:  # noqa: BLE001 - re-raised by the caller's thread
            with lock:
                state["error"] = error

    def publish(worker: Search) -> None:
        """A new read-only table with ``worker``'s sides, for the steps that start from now
        on (the one other threads read is not written)."""
        if shares and worker._memo.used[0]:
            from .memo import merged  # (numba: the memo exists only where it is compiled)

            state["seen"] = merged(state["seen"], worker._memo)
            worker._memo = search._new_memo(64 * search.d.n_features)

    first = _worker(search)
    # the probe's work is this thread's CPU time: a loaded machine stretches the wall
    # clock, and would start threads for light nodes
    started = time.thread_time()
    work(first, lambda: first.stats.nodes >= PROBE_NODES or
         time.thread_time() - started >= PROBE_SECONDS)
    spent = time.thread_time() - started
    workers = [first]
    if state["next"] < n and spent >= FORK_NODE_SECONDS * max(1, first.stats.nodes):
        publish(first)
        state["forked"] = True
        workers += [_worker(search) for _ in range(search.threads - 1)]
        pool = [threading.Thread(target=work, args=(w,), daemon=True) for w in workers[1:]]
        for thread in pool:
            thread.start()
        work(first)
        for thread in pool:
            thread.join()
    else:
        work(first)
    for w in workers:
        search.stats.add(w.stats)
    if state["error"] is not None:
        raise state["error"]
    best, node, parts = merge_steps(results, leaf, tol)
    return best, node, parts, not state["cut"]


def _worker(search: Search) -> Search:
    """A view of ``search`` for one thread: the same data, counters, cache and deadline,
    its own statistics and memo of depth-2 sides, serial below."""
    worker = copy.copy(search)
    worker.threads, worker.client = 1, None
    worker.stats = type(search.stats)()
    if search._memo is not None:
        worker._memo = search._new_memo(64 * search.d.n_features)
        worker._path = search._path.copy()
    return worker


def merge_steps(results: list, leaf: float, tol: float) -> tuple[float, Node, float]:
    """``(best, tree, parts)`` of the steps in the loop's order, as the serial loop keeps
    them: a tree replaces the best only when it beats it by more than ``tol``."""
    best, node, parts = leaf, None, leaf
    for found in results:
        if found is None:
            continue
        parts = max(parts, found[0])
        if found[1] > best + tol:
            best, node = found[1], found[2]
    return best, node, parts
