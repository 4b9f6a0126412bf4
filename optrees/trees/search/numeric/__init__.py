"""Exact subtrees over every threshold of numeric columns (issue #18).

:func:`solve_numeric` returns the optimal tree of a given depth for raw float features, integer
classes, sample weights, a per-leaf penalty and a minimum leaf size, on all rows or on the
rows reaching one node of a bigger tree; :class:`NumericData` presorts the columns once for
many such calls.  Both the
depth-2 search and the general-depth branch-and-bound (CART as first incumbent, a deadline,
an honest optimality flag and upper bound) follow ConTree (Brita, van der Linden & Demirović,
arXiv 2501.07903).

Modules: ``data`` (presorting), ``depth1`` (stumps), ``evaluate`` (one root split of a
depth-2 tree), ``search`` (depth-2 root search), ``kernels`` (both compiled),
``depth2`` (depth 2 against a floor), ``deep`` (depth ≥ 3), ``cart`` (CART incumbent),
``coarse`` (the incumbent over a few thresholds per column, for searches that run long),
``tree``/``result`` (trees), ``solver``, ``warmup`` (numba's first compilation).
BendOCT / BendersOCT use it through ``optrees.trees.solve.numeric``.
"""

from .data import NumericData
from .entry import solve_numeric
from .evaluate import numba_available
from .result import NumericSubtree

__all__ = ["NumericData", "NumericSubtree", "numba_available", "solve_numeric"]
