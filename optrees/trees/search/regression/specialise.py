"""The compiled regression kernels for any objective with three additive row statistics:
copies of a kernel module's functions (:mod:`.kernels`, :mod:`.binary_kernels`) whose leaf
cost ``_leaf(a, b, c)`` is the objective's ``leaf_cost_kernel`` instead of squared error.

The kernel modules are written once, calling the global ``_leaf`` (squared error, compiled
and cached as the module's own functions).  For another objective each function is copied
with a globals dict in which ``_leaf`` and the other kernels are that objective's, and
jitted with numba's disk cache under a name of its own: ``<function>__<objective>_<hash>``,
the hash of the leaf cost's code and of this module, so a changed leaf cost is compiled anew
rather than loaded stale (numba keys its cache by the function's name, code and file, not
by its globals).
"""

from __future__ import annotations

import hashlib
import marshal
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FunctionType, ModuleType, SimpleNamespace
from typing import Protocol

import numpy as np


class AdditiveObjective(Protocol):
    """What the regression searches ask of an objective with three additive row
    statistics (e.g. :class:`~optrees.trees.problem.objectives.squared_error.SquaredError`,
    :class:`~optrees.trees.problem.objectives.survival.SurvivalLoss`)."""

    name: str

    def leaf_cost(self, S: np.ndarray) -> np.ndarray: ...

    @staticmethod
    def leaf_cost_kernel(a: float, b: float, c: float) -> float: ...


_BUILT: dict[tuple[str, str], SimpleNamespace] = {}
"""Kernel sets made in this process, by (module, objective tag)."""


_SOURCE = Path(__file__).read_bytes()
"""This module's source, hashed into every tag: a change to how the copies are made
compiles them anew too."""


def leaf_tag(name: str, leaf: Callable) -> str:
    """``<name>_<8 hex digits>``: the objective's name and a hash of its leaf cost's code
    (and of this module)."""
    code = leaf.__code__
    digest = hashlib.sha256(marshal.dumps((code.co_code, code.co_consts, code.co_names)))
    digest.update(_SOURCE)
    return f"{name}_{digest.hexdigest()[:8]}"


def specialise(module: ModuleType, names: Sequence[str], name: str, leaf: Callable
               ) -> SimpleNamespace:
    """The functions ``names`` of the kernel ``module`` (after its ``jit()``), compiled with
    the leaf cost ``leaf`` (a plain Python function of three floats; ``name``: the
    objective's) and cached on disk; one set per objective and process.  The set has the
    functions as attributes, and ``_leaf``."""
    from numba import njit

    tag = leaf_tag(name, leaf)
    key = (module.__name__, tag)
    if key in _BUILT:
        return _BUILT[key]
    module.jit()
    scope = dict(vars(module))
    scope["_leaf"] = njit(leaf)  # compiled into its callers (and their cache entries)
    kernels = SimpleNamespace(_leaf=scope["_leaf"])
    for fname in names:
        original = getattr(module, fname)
        source = getattr(original, "py_func", original)
        copy = FunctionType(source.__code__, scope, source.__name__, source.__defaults__,
                            source.__closure__)
        copy.__qualname__ = f"{source.__name__}__{tag}"
        copy.__module__ = source.__module__
        copy.__doc__ = source.__doc__
        # numba resolves the globals of a function when it compiles it (at its first
        # call), by then every copy is in the scope
        scope[fname] = njit(cache=True)(copy)
        setattr(kernels, fname, scope[fname])
    _BUILT[key] = kernels
    return kernels
