"""Tree-structure part shared by the flow-based MIPs: variables b, w and constraints (1.2)-(1.3)."""

from __future__ import annotations

import time

import numpy as np

from ..solvers.scip import ScipModel
from .problem import HeapTree, TreeProblem


class BuildTimeout(Exception):
    """The time limit ran out while the model was being built."""


def check_deadline(deadline: float | None) -> None:
    """Raise :class:`BuildTimeout` once ``time.perf_counter()`` passes ``deadline``."""
    if deadline is not None and time.perf_counter() > deadline:
        raise BuildTimeout


class TreeFormulation:
    """Branching ``b[n-1, f]`` at internal nodes and labels ``w[n-1, k]`` at every node."""

    def __init__(self, problem: TreeProblem) -> None:
        self.p = problem

    def add_tree_structure(self, m: ScipModel) -> None:
        """Variables (1.10)-(1.11) with the split penalty -lam, and constraints (1.2)-(1.3)."""
        p = self.p
        F, K = p.n_features, p.n_classes
        self.m = m
        self.b = m.add_vars((p.n_internal, F), "B", obj=-p.lam, name="b")
        self.w = m.add_vars((p.n_nodes, K), "B", name="w")
        for n in p.internal_nodes:  # (1.2): branch on one feature or predict one class
            m.add_row(np.r_[self.b[n - 1], self.w[n - 1]], np.ones(F + K), 1.0, 1.0)
        for n in p.leaf_nodes:  # (1.3): every leaf predicts one class
            m.add_row(self.w[n - 1], np.ones(K), 1.0, 1.0)

    def tree_from_values(self, x: np.ndarray) -> HeapTree:
        b, w = x[self.b], x[self.w]
        split = np.where(b.max(axis=1) > 0.5, b.argmax(axis=1), -1)
        return HeapTree(split, w.argmax(axis=1))

    def structure_values(self, tree: HeapTree) -> np.ndarray:
        """Solution vector with b, w set for ``tree`` and every other variable 0."""
        p = self.p
        x = np.zeros(self.m.n_vars)
        for n in p.internal_nodes:
            if tree.split[n - 1] >= 0:
                x[self.b[n - 1, tree.split[n - 1]]] = 1
            else:
                x[self.w[n - 1, tree.label[n - 1]]] = 1
        for n in p.leaf_nodes:
            x[self.w[n - 1, tree.label[n - 1]]] = 1
        return x
