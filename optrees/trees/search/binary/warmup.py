"""Whether the compiled kernels can run now, without numba's first compilation (about 5 s on
a loaded 2-core machine), so that a short time limit is not spent compiling."""

from __future__ import annotations

from .... import compiled

_ENTRIES = {"kernels": ("depth2_kernel", "gram_bits", "gram_upper"), "node3": ("depth3_node",)}
"""The dispatchers called from Python, by module of this package."""

_ready: list[bool] = []  # a True once the kernels were found ready: they stay so


def kernels_ready() -> bool:
    """The kernels of :mod:`.kernels` are compiled in this process or cached on disk (asked
    of numba's cache once per process: 0.1-0.2 ms a fit otherwise); the depth-3 node is
    :func:`node3_ready`'s."""
    if _ready:
        return True
    if not compiled.numba_available():
        return False
    from . import kernels

    if compiled.kernels_ready(kernels, _ENTRIES["kernels"]):
        _ready.append(True)
        return True
    return False


def node3_ready() -> bool:
    """The compiled depth-3 node (:mod:`.node3`) is compiled in this process or cached on
    disk (asked once per process).  Its first compilation is long (tens of seconds on a
    loaded 2-core machine: it links the counters and the depth-2 kernel again), so a search
    without it runs its depth-3 nodes in Python until :func:`compile_node3` ran: from
    ``python -m optrees.compile_all``, or in a fit with :data:`NODE3_COMPILE_SECONDS` left."""
    if not compiled.numba_available():
        return False
    from . import node3

    return node3.ready()


NODE3_COMPILE_SECONDS = 120.0
"""Time a fit of depth >= 3 must have left to compile the depth-3 node when it is neither
compiled nor cached (measured on a cold cache beside 3-4 other jobs on 2 cores: the 0/1
kernels 6.6-9.8 s, the node 45-80 s more)."""


def compile_node3() -> None:
    """Compile (or load from numba's cache) the depth-3 node: a tiny depth-3 search with
    unit and with other sample weights."""
    import numpy as np

    from . import node3
    from .entry import solve_subtree
    from .memo import Memo

    node3.set_ready()
    Memo(16).make_room(64)  # its growth (a search of depth >= 4)
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (24, 5))
    y = rng.integers(0, 3, 24)
    for weights in (None, rng.uniform(0.5, 2.0, 24)):
        solve_subtree(X, y, 3, leaf_penalty=0.5, sample_weight=weights, backend="numba")


def kernels_loaded() -> bool:
    """The kernels already have machine code in this process (checked without importing
    numba): a fit then costs no compilation and at most one small cache load.  Either entry
    counts: a depth-3 search calls the depth-2 kernel inside :func:`.node3.depth3_node` only."""
    return any(compiled.kernels_loaded(f"{__package__}.{module}", [name])
               for module, name in (("kernels", "depth2_kernel"), ("node3", "depth3_node")))


def compile_kernels() -> None:
    """Compile (or load from numba's cache) every kernel of :mod:`.kernels` once: tiny
    searches of depth 2 and 3 with unit and with other sample weights (the depth-3 node is
    :func:`compile_node3`'s)."""
    import numpy as np

    from .entry import solve_subtree

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (24, 5))
    y = rng.integers(0, 3, 24)
    for weights in (None, rng.uniform(0.5, 2.0, 24)):
        for depth in (2, 3):
            solve_subtree(X, y, depth, leaf_penalty=0.5, sample_weight=weights,
                          backend="numba")
