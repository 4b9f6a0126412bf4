"""Exact subtrees over every threshold of numeric columns (issue #18).

:func:`solve_numeric` returns the optimal tree of depth ≤ 2 for raw float features, integer
classes, sample weights and a per-leaf penalty, on all rows or on the rows reaching one node of
a bigger tree; :class:`NumericData` presorts the columns once for many such calls.  The
depth-2 search follows ConTree (Brita, van der Linden & Demirović, arXiv 2501.07903).
"""

from .data import NumericData
from .evaluate import numba_available
from .result import NumericSubtree
from .solver import solve_numeric

__all__ = ["NumericData", "NumericSubtree", "numba_available", "solve_numeric"]
