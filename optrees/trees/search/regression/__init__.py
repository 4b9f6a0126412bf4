"""Exact regression trees over every threshold of numeric columns (issue #43), for any
objective with additive row statistics (:mod:`optrees.trees.problem.objectives.squared_error`).

Modules: ``data`` (rows, statistics, subsets sorted by every feature), ``stump`` (depth 1
from prefix sums), ``dense`` (depth 2 of small subsets, vectorized), ``kernels`` (depth 2
for squared error, compiled), ``search`` (branch and bound over root positions, any depth;
a deadline, an honest bound), ``cart`` (CART as the first incumbent), ``segments`` (the
k-means lower bound of squared error: 1-D weighted k-means of the targets).
"""

from . import binary_kernels, kernels
from .data import RegressionData, Tree
from .search import RegressionFound, search_tree

__all__ = ["RegressionData", "binary_kernels", "RegressionFound", "Tree", "kernels", "search_tree"]
