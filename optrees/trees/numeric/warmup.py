"""Whether the numeric kernels can run now without numba's first compilation (seconds), so a
short time limit is not spent compiling; and a warm-up that compiles (or loads) them once."""

from __future__ import annotations

from .. import compiled

KERNELS = {"kernels": ("child_objectives", "member_stumps", "root_search")}
"""The compiled entry points called from Python, per module."""


def kernels_ready() -> bool:
    """The numeric kernels are compiled in this process or cached on disk."""
    if not compiled.numba_available():
        return False
    from importlib import import_module

    from ..subtrees.warmup import kernels_ready as subtree_kernels_ready

    # the deep search also runs the subtree kernels (its coarse incumbent, .coarse)
    return subtree_kernels_ready() and all(
        compiled.kernels_ready(import_module(f".{name}", __package__), entries)
        for name, entries in KERNELS.items())


def compile_kernels() -> None:
    """Compile (or load from numba's cache) every numeric kernel: tiny depth-2 and depth-3
    searches with unit and with other sample weights, both with a leaf penalty."""
    import numpy as np

    from .solver import solve_numeric

    rng = np.random.default_rng(0)
    X = rng.random((40, 3))
    y = rng.integers(0, 3, 40)
    for weights in (None, rng.uniform(0.5, 2.0, 40)):
        for depth in (2, 3):
            solve_numeric(X, y, n_classes=3, sample_weight=weights, leaf_penalty=0.5,
                          max_depth=depth, backend="numba")
