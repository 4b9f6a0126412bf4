"""Whether the compiled kernels can run now, without numba's first compilation (about 5 s on
a loaded 2-core machine), so that a short time limit is not spent compiling."""

from __future__ import annotations

import os

from .counts import numba_available


def kernels_ready() -> bool:
    """numba's kernels of :mod:`.kernels` are compiled in this process or cached on disk
    (numba's cache index exists next to the module; the helpers they call are compiled and
    cached with them)."""
    if not numba_available():
        return False
    from . import kernels

    for name in kernels.__all__:  # the entry points called from Python
        obj = getattr(kernels, name)
        if obj.signatures:
            continue
        try:
            index = obj._cache._cache_file._index_path  # numba's on-disk cache
        except AttributeError:  # pragma: no cover - another numba layout: assume a compile
            return False
        if not os.path.exists(index):
            return False
    return True


def compile_kernels() -> None:
    """Compile (or load from numba's cache) every kernel once: a tiny search with unit and
    with other sample weights, each through all of :mod:`.kernels`."""
    import numpy as np

    from .solve import solve_subtree

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (24, 5))
    y = rng.integers(0, 3, 24)
    for weights in (None, rng.uniform(0.5, 2.0, 24)):
        solve_subtree(X, y, 3, leaf_penalty=0.5, sample_weight=weights, backend="numba")
