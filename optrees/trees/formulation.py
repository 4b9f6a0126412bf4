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


def ancestors(n: int) -> list[int]:
    """Proper ancestors of heap node n (parent first)."""
    out = []
    while n > 1:
        n //= 2
        out.append(n)
    return out


class TreeFormulation:
    """Tree-structure variables: branching ``b[n-1, f]`` at internal nodes, labels
    ``w[n-1, k]`` at every node and, for the leaf model, leaf indicators ``p[n-1]``.

    The leaf model (``leaf_structure``) is the structure of accelerated-bendoct.txt (3b)-(3g);
    it is the default for the leaf penalty and also serves the split penalty, whose objective
    it expresses exactly as (1 - lam) * correct - lam * leaves + lam (splits = leaves - 1).
    """

    def __init__(self, problem: TreeProblem, symmetry_breaking: bool = True,
                 leaf_structure: bool | None = None) -> None:
        self.p = problem
        self.symmetry_breaking = symmetry_breaking
        self.leaf_model = (problem.penalty == "leaves" if leaf_structure is None
                           else bool(leaf_structure))

    def add_tree_structure(self, m: ScipModel, binary_labels: bool = True) -> None:
        """Split-penalty model: variables (1.10)-(1.11), constraints (1.2)-(1.3) of
        flowoct-benders.txt.  Leaf-penalty model: (3b)-(3g) of accelerated-bendoct.txt, with
        labels ``w`` continuous unless ``binary_labels`` (§4: integral b, p make them binary).

        With ``symmetry_breaking`` (split model only; (3b) already does it for the leaf model)
        two families of rows remove the many equivalent solutions that differ only below a
        node that does not branch (such nodes are unreachable): a child of a non-branching
        node does not branch and repeats its label.  Every tree keeps an equivalent
        representative (:meth:`HeapTree.canonical`), so the optimum is unchanged; measured on
        balance-scale (312 rows) depth 2, lam = 0, plain Benders on a loaded machine: 7.3 s
        without, 5.0 s with.
        """
        p = self.p
        F, K = p.n_features, p.n_classes
        self.m = m
        if self.leaf_model:
            self.b = m.add_vars((p.n_internal, F), "B", name="b")
            self._add_leaf_structure(m, binary_labels)
            return
        self.b = m.add_vars((p.n_internal, F), "B", obj=-p.split_cost, name="b")
        self.w = m.add_vars((p.n_nodes, K), "B", name="w")
        for n in p.internal_nodes:  # (1.2): branch on one feature or predict one class
            m.add_row(np.r_[self.b[n - 1], self.w[n - 1]], np.ones(F + K), 1.0, 1.0)
        for n in p.leaf_nodes:  # (1.3): every leaf predicts one class
            m.add_row(self.w[n - 1], np.ones(K), 1.0, 1.0)
        if self.symmetry_breaking:
            for n in p.internal_nodes:
                for c in (2 * n, 2 * n + 1):
                    if c <= p.n_internal:  # sum_f b_cf <= sum_f b_nf
                        m.add_row(np.r_[self.b[c - 1], self.b[n - 1]],
                                  np.r_[np.ones(F), -np.ones(F)], rhs=0.0)
                    for k in range(K):  # w_ck >= w_nk
                        m.add_row([self.w[c - 1, k], self.w[n - 1, k]], [1.0, -1.0], lhs=0.0)

    def _add_leaf_structure(self, m: ScipModel, binary_labels: bool) -> None:
        p = self.p
        F, K = p.n_features, p.n_classes
        # (3f); either penalty costs lam per leaf, the split penalty gives one leaf back
        self.p_leaf = m.add_vars(p.n_nodes, "B", obj=-p.lam, name="p")
        if p.penalty == "splits":
            m.add_objective_offset(p.lam)
        self.w = m.add_vars((p.n_nodes, K), "B" if binary_labels else "C", name="w")  # (3g)
        for n in range(1, p.n_nodes + 1):
            anc = [a - 1 for a in ancestors(n)]
            path_p = np.r_[self.p_leaf[n - 1], self.p_leaf[anc]]
            if n <= p.n_internal:  # (3b): branch, be a leaf, or lie below a leaf
                m.add_row(np.r_[self.b[n - 1], path_p], np.ones(F + len(path_p)), 1.0, 1.0)
            else:  # (3d): exactly one leaf on the path to every terminal node
                m.add_row(path_p, np.ones(len(path_p)), 1.0, 1.0)
            # (3c): a leaf predicts one class
            m.add_row(np.r_[self.w[n - 1], self.p_leaf[n - 1]], np.r_[np.ones(K), -1.0], 0.0, 0.0)

    def improve_start(self, tree: HeapTree) -> HeapTree:
        """Hook to improve a start tree before it is given to the solver."""
        return tree

    def tree_from_values(self, x: np.ndarray) -> HeapTree:
        b, w = x[self.b], x[self.w]
        split = np.where(b.max(axis=1) > 0.5, b.argmax(axis=1), -1)
        return HeapTree(split, w.argmax(axis=1))

    def structure_values(self, tree: HeapTree) -> np.ndarray:
        """Solution vector with the structure variables set for ``tree``, all others 0."""
        p = self.p
        tree = tree.canonical()
        x = np.zeros(self.m.n_vars)
        reachable = {1}
        for n in range(1, p.n_nodes + 1):
            branches = n <= p.n_internal and tree.split[n - 1] >= 0
            if branches:
                x[self.b[n - 1, tree.split[n - 1]]] = 1
                if n in reachable:
                    reachable |= {2 * n, 2 * n + 1}
            elif not self.leaf_model:
                x[self.w[n - 1, tree.label[n - 1]]] = 1
            elif n in reachable:  # the leaf-penalty model sets nothing below a leaf
                x[self.p_leaf[n - 1]] = 1
                x[self.w[n - 1, tree.label[n - 1]]] = 1
        return x
