"""The numba kernels of the exact searches (:mod:`.subtrees`, :mod:`.numeric`): whether they
can run, which backend a call gets, and whether their first compilation (seconds, and not
interruptible) is still ahead."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from types import ModuleType

from ..solvers.deadline import Deadline

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
    are compiled in this process or cached on disk (numba's cache index exists; the helpers
    they call are compiled and cached with them)."""
    for name in names:
        dispatcher = getattr(module, name)
        if dispatcher.signatures:
            continue
        try:
            index = dispatcher._cache._cache_file._index_path  # numba's on-disk cache
        except AttributeError:  # pragma: no cover - another numba layout: assume a compile
            return False
        if not os.path.exists(index):
            return False
    return True


def backend_for(deadline: Deadline, ready: Callable[[], bool],
                compile_all: Callable[[], None]) -> str:
    """``"numba"`` when the kernels are ``ready`` or the deadline leaves
    :data:`COMPILE_SECONDS` to ``compile_all`` of them now, else ``"numpy"``."""
    if ready():
        return "numba"
    if numba_available() and deadline.remaining() >= COMPILE_SECONDS:
        compile_all()
        return "numba"
    return "numpy"
