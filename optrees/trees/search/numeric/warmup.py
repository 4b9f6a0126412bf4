"""Whether the numeric kernels can run now without numba's first compilation (seconds), so a
short time limit is not spent compiling; and a warm-up that compiles (or loads) them once."""

from __future__ import annotations

from .... import compiled

KERNELS = {"kernels": ("child_objectives", "member_stumps", "root_search")}
"""The compiled entry points called from Python, per module."""

DEPTH2_KERNELS = ("member_stumps", "root_search")
"""The entry points a depth-2 search calls from Python (``child_objectives`` runs inside
``root_search`` there, so its own dispatcher gets no machine code)."""


def kernels_ready(deep: bool = True) -> bool:
    """The numeric kernels are compiled in this process or cached on disk; with ``deep``
    (a search of depth 3 or more) also the subtree kernels, which its coarse incumbent
    (:mod:`.coarse`) runs once a tenth of its time has passed (compiling them then would
    cost seconds that no deadline can interrupt)."""
    if not compiled.numba_available():
        return False
    from importlib import import_module

    from ..binary import warmup as subtrees

    if deep and not subtrees.kernels_ready():
        return False
    return all(compiled.kernels_ready(import_module(f".{name}", __package__), entries)
               for name, entries in KERNELS.items())


def kernels_loaded() -> bool:
    """The kernels of a depth-2 search already have machine code in this process (checked
    without importing numba; only fits of depth 2 or less are small,
    :func:`..compiled.small_numeric_fit`)."""
    return compiled.kernels_loaded(f"{__package__}.kernels", DEPTH2_KERNELS)


def compile_kernels(deep: bool = True) -> None:
    """Compile (or load from numba's cache) every numeric kernel: tiny depth-2 and depth-3
    searches with unit and with other sample weights, both with a leaf penalty; with
    ``deep`` also the subtree kernels (:func:`kernels_ready`), which these tiny searches,
    proved before any coarse incumbent is due, do not reach."""
    import numpy as np

    from .entry import solve_numeric

    rng = np.random.default_rng(0)
    X = rng.random((40, 3))
    y = rng.integers(0, 3, 40)
    for weights in (None, rng.uniform(0.5, 2.0, 40)):
        for depth in (2, 3):
            solve_numeric(X, y, n_classes=3, sample_weight=weights, leaf_penalty=0.5,
                          max_depth=depth, backend="numba")
    if deep:
        from ..binary.warmup import compile_kernels as compile_subtree_kernels

        compile_subtree_kernels()
