"""Where an exact search may run (``n_jobs`` of the estimators that run it): threads of
this process, or the workers of a Dask cluster when joblib's Dask backend is active.

A context setting, as joblib's ``parallel_config``: the estimator's ``fit`` runs inside
:func:`search_threads` and the search reads :func:`threads` and :func:`cluster` where it
forks, so the layers between them (encoding, MIP fallback, warm starts) do not carry it.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["available_cores", "cluster", "on_one_blas_thread", "one_blas_thread", "resolve_n_jobs",
           "search_threads", "threads"]

_threads: ContextVar[int] = ContextVar("optrees_search_threads", default=1)
_cluster: ContextVar[Any] = ContextVar("optrees_search_cluster", default=None)


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity where the OS tells it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)


def resolve_n_jobs(n_jobs: int | None) -> int:
    """Threads for ``n_jobs`` as scikit-learn reads it: None 1, -1 every core, -2 all but
    one, k k (at most the cores available)."""
    if n_jobs is None:
        return 1
    cores = available_cores()
    count = n_jobs if n_jobs > 0 else cores + 1 + n_jobs
    return max(1, min(int(count), cores))


def threads() -> int:
    """Threads the search started here may use (1 outside :func:`search_threads`)."""
    return _threads.get()


def cluster() -> Any:
    """The Dask client whose workers the search started here may use (None: this process)."""
    return _cluster.get()


def dask_client() -> Any:
    """The client of joblib's active Dask backend (``joblib.parallel_backend("dask")``), or
    None."""
    from joblib.parallel import get_active_backend

    backend = get_active_backend()[0]
    return getattr(backend, "client", None) if type(backend).__name__.startswith("Dask") \
        else None


@contextmanager
def search_threads(n_jobs: int | None) -> Iterator[int]:
    """Within the block the exact searches use :func:`resolve_n_jobs` (``n_jobs``) threads,
    or with ``n_jobs`` other than None and 1 under joblib's Dask backend, its workers."""
    client = dask_client() if n_jobs not in (None, 1) else None
    token = _threads.set(1 if client is not None else resolve_n_jobs(n_jobs))
    remote = _cluster.set(client)
    try:
        yield _threads.get()
    finally:
        _cluster.reset(remote)
        _threads.reset(token)


_CONTROLLER: list[Any] = []


def one_blas_thread() -> Any:
    """A context in which BLAS runs on one thread.  The numpy searches make many small
    products (the 0/1 search's counters: ``X' X`` over a node's rows), where BLAS threads
    cost more than they give, the more so on a loaded machine: kr-vs-kp one-hot (3,196 x 73)
    took 10.5 ms a product threaded and 0.34 ms on one thread beside another busy process on
    2 cores, and the whole numpy search of BendOCT depth 3 there 0.3-1.4 s against 0.06-0.11 s.
    One controller of the loaded BLAS per process (finding the libraries costs ~8 ms, a limit
    afterwards ~20 us)."""
    if not _CONTROLLER:
        from threadpoolctl import ThreadpoolController

        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1, user_api="blas")


def on_one_blas_thread(func: Callable[..., T]) -> Callable[..., T]:
    """``func`` run inside :func:`one_blas_thread` (the Rashomon sets' builds: their stump
    tables are small products over a node's rows; compas' fair set spent 90 of 158 s in
    them threaded on a loaded 2-core machine, 11x a product's time on one thread)."""

    @functools.wraps(func)
    def run(*args: Any, **kwargs: Any) -> T:
        with one_blas_thread():
            return func(*args, **kwargs)

    return run
