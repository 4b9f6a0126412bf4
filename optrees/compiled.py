"""The numba kernels of the exact searches (:mod:`.subtrees`, :mod:`.numeric`): whether they
can run, which backend a call gets, and whether their first compilation (seconds, and not
interruptible) is still ahead."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from importlib.util import find_spec
from types import ModuleType
from typing import TypeVar

import numpy as np

from .solvers.deadline import Deadline

Found = TypeVar("Found")

COMPILE_SECONDS = 20.0
"""Time a fit must have left to compile kernels that are neither compiled nor cached
(measured: 5-6 s on a loaded 2-core machine); with less, the numpy kernels run (about 10x
slower) until a longer fit has compiled them."""


def numba_available() -> bool:
    """Whether the compiled backend can be used (numba importable)."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def resolve_backend(backend: str) -> str:
    """``"auto"`` → ``"numba"`` if importable else ``"numpy"``; validates explicit names."""
    if backend == "auto":
        return "numba" if numba_available() else "numpy"
    if backend not in ("numba", "numpy"):
        raise ValueError(f"backend must be 'auto', 'numba' or 'numpy', got {backend!r}")
    if backend == "numba" and not numba_available():
        raise ImportError("backend='numba' needs the numba package")
    return backend


def kernels_ready(module: ModuleType, names: Sequence[str]) -> bool:
    """The numba dispatchers ``names`` of ``module`` (the entry points called from Python)
    are compiled in this process or cached on disk for the module's current source (numba's
    cache index exists and is not stale; the helpers they call are compiled and cached
    with them)."""
    for name in names:
        dispatcher = getattr(module, name)
        if dispatcher.signatures:
            continue
        try:
            fresh = dispatcher._cache._cache_file._load_index()  # numba's on-disk cache
        except AttributeError:  # pragma: no cover - another numba layout: assume a compile
            return False
        if not fresh:  # no index, or one for an older source: the call would compile
            return False
    return True


def kernels_loaded(module_name: str, names: Sequence[str]) -> bool:
    """The dispatchers ``names`` of the module ``module_name`` already have machine code in
    this process (compiled or loaded from the cache); False, without importing numba, when
    that module is not imported yet."""
    module = sys.modules.get(module_name)
    return module is not None and all(getattr(module, name).signatures for name in names)


def backend_for(deadline: Deadline, ready: Callable[[], bool],
                compile_all: Callable[[], None], small: bool = False,
                loaded: Callable[[], bool] | None = None) -> str:
    """``"numba"`` when the kernels are ``ready`` or the deadline leaves
    :data:`COMPILE_SECONDS` to ``compile_all`` of them now, else ``"numpy"``.  A ``small``
    fit (see :func:`small_subtree_fit`) runs numpy unless the kernels are ``loaded`` in this
    process already: numpy finishes it in about the time a new process needs to import numba
    and load even cached kernels (0.2-0.5 s), or far below the seconds of a compilation."""
    if small and not (loaded is not None and loaded()):
        return "numpy"
    if ready():
        return "numba"
    if numba_available() and deadline.remaining() >= COMPILE_SECONDS:
        compile_all()
        return "numba"
    return "numpy"


PROBE_SECONDS = 5.0
"""Seconds of numpy search a process may spend, over all its fits, before compiling kernels
that are neither compiled nor cached (:func:`run_search`).  A compilation took 12-25 s on the
loaded 2-core machine (about 5 s idle), while numpy proved the bench's large fits in 0.5-1.9 s
(``bench/cold_start.py``: kr-vs-kp one-hot at depth 3, 2,000 x 6 numeric at depth 2); a
process thus loses at most this much to numpy searches it drops."""

LOAD_SECONDS = 0.4
"""Seconds of numpy search a process that has not imported numba may spend, over all its
fits, before it loads even cached kernels: numba's own start-up (its import, 0.17 s, and the
first cache load, 0.29-0.35 s of registry set-up, on an idle 2-core machine; 0.75-0.85 s under
load).  Ski rental: a process whose fits numpy proves within this never pays that start-up (a
CLI call on kr-vs-kp one-hot at depth 3: 0.07 s with numpy, 0.45 s to start numba), and one
that needs the kernels loses at most this much once."""

START_SECONDS = 2.0
"""Least time a search stage must have left to start numba in a process that has not (its
import and first cache load, uninterruptible: 0.45 s idle, 3.7 s measured at load average
7.5 on the 2-core machine); with less, numpy runs to the stage's end, so a short
``time_limit`` on a first fit is kept (BendOCT, magic, depth 4, 1 s: 4.9 s before)."""

_probe_left = [PROBE_SECONDS]  # what this process has left of PROBE_SECONDS (and LOAD_SECONDS)


def numba_installed() -> bool:
    """Whether numba can be imported, asked without importing it (0.17 s)."""
    return find_spec("numba") is not None


def numba_started() -> bool:
    """Whether this process has imported numba (its start-up paid, or being paid)."""
    return "numba" in sys.modules


def _probe(run: Callable[[str, Deadline], Found], proved: Callable[[Found], bool],
           deadline: Deadline, stage: Deadline, seconds: float) -> Found | None:
    """``run("numpy", ...)`` within ``seconds`` of ``stage`` (charged to the process's probe
    budget): its search if proved or stopped by Ctrl-C, else None (dropped)."""
    if seconds <= 0.05:
        return None
    t0 = time.perf_counter()
    found = run("numpy", stage.within(seconds))
    _probe_left[0] = max(0.0, _probe_left[0] - (time.perf_counter() - t0))
    return found if proved(found) or deadline.stopped else None


def run_search(run: Callable[[str, Deadline], Found], proved: Callable[[Found], bool],
               deadline: Deadline, stage: Deadline, ready: Callable[[], bool],
               compile_all: Callable[[], None], small: bool = False,
               loaded: Callable[[], bool] | None = None, probe: bool = True
               ) -> tuple[Found, str]:
    """``run(backend, stage)`` on :func:`backend_for`'s backend (decided on the fit's
    ``deadline``), and that backend.  Where the compiled backend would cost a start-up first,
    numpy runs first, ending before ``stage`` does: a search it proves is returned (the
    backends find the same tree), one it does not is dropped.  Two start-ups, two budgets of
    the process's numpy time: numba's own (not imported yet: :data:`LOAD_SECONDS`, asked
    before numba is imported) and a compilation (not cached: :data:`PROBE_SECONDS`, leaving
    :data:`COMPILE_SECONDS` of ``deadline``).  None without ``probe`` or on a ``small`` fit.
    Numba is not started for a stage with less than :data:`START_SECONDS` left."""
    if probe and not small and not (loaded is not None and loaded()) and numba_installed():
        spent = PROBE_SECONDS - _probe_left[0]
        if not numba_started():
            found = _probe(run, proved, deadline, stage,
                           min(LOAD_SECONDS - spent, stage.remaining() - 0.5))
            if found is not None:
                return found, "numpy"
        if _no_time_for_numba(stage):  # (asking numba's cache imports numba)
            return run("numpy", stage), "numpy"
        if not ready() and numba_available():
            found = _probe(run, proved, deadline, stage,
                           min(_probe_left[0], deadline.remaining() - COMPILE_SECONDS,
                               stage.remaining() - 0.5))
            if found is not None:  # (Ctrl-C: no compilation, the numpy tree)
                return found, "numpy"
    if not small and _no_time_for_numba(stage):
        return run("numpy", stage), "numpy"
    backend = backend_for(deadline, ready, compile_all, small, loaded)
    return run(backend, stage), backend


def _no_time_for_numba(stage: Deadline) -> bool:
    """Numba not started in this process and its start-up alone would overrun ``stage``."""
    return not numba_started() and stage.remaining() < START_SECONDS


SMALL_SUBTREE_WORK = 1e7
"""Largest ``rows * features ** depth`` of a fit whose 0/1 search runs numpy when the kernels
are not loaded: numpy took up to 0.1 s there, numba 3-15x less (random 0/1 data, depth 2-4;
3,000 rows x 40 features at depth 3, 1.9e8, took 1.9 s with numpy, 0.03 s with numba)."""

SMALL_NUMERIC_WORK = 2e6
"""Largest ``rows * thresholds`` of a depth-2 fit over every threshold that runs numpy when
the kernels are not loaded: up to about 0.1 s (625 random rows x 4 columns, 1.6e6: 0.07 s
with numpy, 0.001 s with numba; 2,000 x 10, 4e7: 0.39 s).  Depth 3 always compiles (numpy
is 20-35x slower there: 300 x 8 took 4.2 s).  Measured before the numpy sweep's class-major
layout (:mod:`.trees.search.numeric.depth1`), which cut numpy's CPU time 2-5x (625 x 4:
0.03 -> 0.015 s; 2,000 x 10: 0.48-0.59 -> 0.11-0.13 s); the limit was not raised."""

SMALL_PRICING_CELLS = 2e5
"""Largest ``rows * columns`` on which RUG's pricing trees are scikit-learn's when the
compiled tree is not loaded (about 1 ms a tree there, a few dozen trees a fit)."""


def small_subtree_fit(n_rows: int, n_features: int, depth: int) -> bool:
    """A 0/1 search small enough for numpy (:data:`SMALL_SUBTREE_WORK`)."""
    return n_rows * float(n_features) ** depth <= SMALL_SUBTREE_WORK


def small_numeric_fit(X: np.ndarray, depth: int) -> bool:
    """A search over every threshold of the float matrix ``X`` small enough for numpy
    (:data:`SMALL_NUMERIC_WORK`; thresholds: distinct values per column, less one).  Columns
    are counted until the limit is passed, so a large matrix is not sorted whole here."""
    if depth <= 1 or X.size == 0:
        return True
    if depth >= 3:
        return False
    thresholds = 0
    for column in X.T:
        values = np.sort(column)
        thresholds += int(np.count_nonzero(values[1:] != values[:-1]))
        if X.shape[0] * float(thresholds) > SMALL_NUMERIC_WORK:
            return False
    return True
