"""Whether the compiled kernels can run now, without numba's first compilation (about 5 s on
a loaded 2-core machine), so that a short time limit is not spent compiling."""

from __future__ import annotations

from .... import compiled


def kernels_ready() -> bool:
    """The kernels of :mod:`.kernels` are compiled in this process or cached on disk."""
    if not compiled.numba_available():
        return False
    from . import kernels

    return compiled.kernels_ready(kernels, kernels.__all__)


def kernels_loaded() -> bool:
    """The kernels already have machine code in this process (checked without importing
    numba): a fit then costs no compilation or cache load at all."""
    return compiled.kernels_loaded(f"{__package__}.kernels", ["depth2_kernel"])


def compile_kernels() -> None:
    """Compile (or load from numba's cache) every kernel once: a tiny search with unit and
    with other sample weights, each through all of :mod:`.kernels`."""
    import numpy as np

    from .entry import solve_subtree

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (24, 5))
    y = rng.integers(0, 3, 24)
    for weights in (None, rng.uniform(0.5, 2.0, 24)):
        solve_subtree(X, y, 3, leaf_penalty=0.5, sample_weight=weights, backend="numba")
