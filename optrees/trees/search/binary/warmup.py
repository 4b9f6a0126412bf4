"""Whether the compiled kernels can run now, without numba's first compilation (about 5 s on
a loaded 2-core machine), so that a short time limit is not spent compiling."""

from __future__ import annotations

from .... import compiled

_ENTRIES = {"kernels": ("depth2_kernel", "gram_bits", "gram_upper"), "node3": ("depth3_node",)}
"""The dispatchers called from Python, by module of this package."""

_ready: list[bool] = []  # a True once the kernels were found ready: they stay so


def kernels_ready() -> bool:
    """The kernels of :mod:`.kernels` and :mod:`.node3` are compiled in this process or
    cached on disk (asked of numba's cache once per process: 0.1-0.2 ms a fit otherwise)."""
    if _ready:
        return True
    if not compiled.numba_available():
        return False
    from . import kernels, node3

    if all(compiled.kernels_ready(module, _ENTRIES[module.__name__.rsplit(".", 1)[1]])
           for module in (kernels, node3)):
        _ready.append(True)
        return True
    return False


def kernels_loaded() -> bool:
    """The kernels already have machine code in this process (checked without importing
    numba): a fit then costs no compilation and at most one small cache load.  Either entry
    counts: a depth-3 search calls the depth-2 kernel inside :func:`.node3.depth3_node` only."""
    return any(compiled.kernels_loaded(f"{__package__}.{module}", [name])
               for module, name in (("kernels", "depth2_kernel"), ("node3", "depth3_node")))


def compile_kernels() -> None:
    """Compile (or load from numba's cache) every kernel once: tiny searches of depth 2 and 3
    with unit and with other sample weights, each through all of :mod:`.kernels` and
    :mod:`.node3`."""
    import numpy as np

    from .entry import solve_subtree

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (24, 5))
    y = rng.integers(0, 3, 24)
    for weights in (None, rng.uniform(0.5, 2.0, 24)):
        for depth in (2, 3):
            solve_subtree(X, y, depth, leaf_penalty=0.5, sample_weight=weights,
                          backend="numba")
