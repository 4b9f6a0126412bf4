"""Exact optimal classification subtrees on binary features (issue #17).

MurTree-style dynamic programming and search (Demirović et al., JMLR 2022; STreeD, van der
Linden et al., NeurIPS 2023): :func:`solve_subtree` maximizes weighted correct minus a leaf
penalty over trees of depth ≤ D on any row subset, for use at any node of a bigger tree.
"""

from .counts import numba_available
from .entry import SubtreeSolution, solve_subtree

__all__ = ["SubtreeSolution", "numba_available", "solve_subtree"]
