"""How many threads an exact search may use (``n_jobs`` of the estimators that run it).

A context setting, as joblib's ``parallel_config``: the estimator's ``fit`` runs inside
:func:`search_threads` and the search reads :func:`threads` where it forks, so the layers
between them (encoding, MIP fallback, warm starts) do not carry it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["available_cores", "resolve_n_jobs", "search_threads", "threads"]

_threads: ContextVar[int] = ContextVar("optrees_search_threads", default=1)


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


@contextmanager
def search_threads(n_jobs: int | None) -> Iterator[int]:
    """Within the block the exact searches use :func:`resolve_n_jobs` (``n_jobs``) threads."""
    token = _threads.set(resolve_n_jobs(n_jobs))
    try:
        yield _threads.get()
    finally:
        _threads.reset(token)
