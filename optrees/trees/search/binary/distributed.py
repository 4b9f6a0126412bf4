"""The top node's root features of one 0/1 search on a Dask cluster (issue #47).

The driver hands out runs of consecutive root features, in the loop's order, each with the
floor of the runs finished so far; a worker process keeps one search (data, cache, memo) per
fit and solves its runs as the serial loop would (:meth:`.roots.Roots.step`).  Runs are
small Dask tasks: a worker that dies loses only the runs it held, which Dask gives to another
worker; a run cancelled because the worker took the only copy of the scattered data with it
is sent again with the data scattered again.  The answer is the serial loop's for the
reason :mod:`.roots` gives: a run's floor comes from runs before it.
"""

from __future__ import annotations

import time
import uuid
from collections import OrderedDict
from typing import Any

from ....solvers.deadline import Deadline
from .roots import Roots, Search, merge_steps

__all__ = ["RUN", "distributed_roots"]

RUN = 2
"""Root features per task: few, so the floor is fresh and a lost worker loses little."""

RESENDS = 10
"""Runs sent again after their data was lost with a worker, at most (then one error)."""

KEEP = 4
"""Searches a worker process keeps (one per fit still running; a fit that ends drops its
own, :func:`forget`)."""

_searches: OrderedDict[str, tuple[Any, Roots]] = OrderedDict()  # of this worker process


def distributed_roots(search: Search, roots: Roots, leaf: float, upper: float,
                      lower: float) -> tuple[float, Any, float, bool]:
    """:func:`.roots.parallel_roots` on the workers of ``search.client``."""
    from distributed import as_completed

    client, tol, n = search.client, search.tol, len(roots.feats)
    token = uuid.uuid4().hex
    data = (type(search), search.d, search.L, search.counter.backend, search.order,
            search.m, roots.rows, roots.depth)
    payload = [client.scatter(data, broadcast=True, hash=False)]
    results: list = [None] * n
    floor, start, cut = max(leaf, lower), 0, False
    window = 2 * max(1, sum(client.nthreads().values()))  # runs out: two per worker thread
    running = as_completed()
    first_of: dict[str, int] = {}
    resent = 0

    def submit(first: int, floor: float) -> None:
        seconds = None if search.deadline is None else search.deadline.remaining()
        future = client.submit(solve_run, token, payload[0], first, min(first + RUN, n),
                               floor, seconds, pure=False,
                               key=f"optrees-roots-{token}-{first}-{resent}")
        first_of[future.key] = first
        running.add(future)

    try:
        while start < n and running.count() < window:
            submit(start, floor)
            start += RUN
        for future in running:
            if future.status == "cancelled":
                # a dead worker took the only copy of the scattered data with it (before
                # its replication finished): scatter again, and run these features again
                resent += 1
                if resent > RESENDS:
                    raise RuntimeError(f"the cluster lost this fit's data {RESENDS} times")
                if any(part.status != "finished" for part in payload[0]):
                    client.cancel(payload[0])
                    payload[0] = client.scatter(data, broadcast=True, hash=False)
                submit(first_of[future.key], floor)
                continue
            for j, found, stats in future.result():
                results[j] = found
                floor = max(floor, found[1])
                search.stats.add(stats)
            if search._expired():
                client.cancel(list(running.futures))
                break
            if floor >= upper - tol and start < n:
                cut = True  # the rest is bounded by ``upper`` ≤ best
                client.cancel(list(running.futures))
                break
            if start < n:
                submit(start, floor)
                start += RUN
    finally:
        client.cancel(payload[0])
        client.run(forget, token)  # the workers' caches of this fit
    if not cut:  # stopped by the deadline: the features not solved get their cheap bounds
        for j in range(n):
            if results[j] is None:
                results[j] = roots.step(search, j, floor, True)
    best, node, parts = merge_steps(results, leaf, tol)
    return best, node, parts, not cut


def forget(token: str) -> None:
    """On a worker: drop the search of the fit ``token``."""
    _searches.pop(token, None)


def solve_run(token: str, payload: tuple, first: int, last: int, floor: float,
              seconds: float | None) -> list:
    """On a worker: the steps of root features ``first .. last - 1`` against ``floor``
    (raised by each tree found), with this process's search for the fit ``token``."""
    started = time.perf_counter()
    if token not in _searches:
        kind, data, L, backend, order, m, rows, depth = payload
        worker = kind(data, L, backend, None, order, m)
        worker.open_memo(depth)
        _searches[token] = (worker, Roots.prepare(worker, rows, depth))
        while len(_searches) > KEEP:
            _searches.popitem(last=False)
    worker, roots = _searches[token]
    worker.deadline = None if seconds is None else Deadline(
        max(0.0, seconds - (time.perf_counter() - started)))
    out = []
    for j in range(first, last):
        before = worker.stats
        worker.stats = type(before)()
        found = roots.step(worker, j, floor, worker._expired())
        floor = max(floor, found[1])
        out.append((j, found, worker.stats))
        worker.stats = before
    return out
