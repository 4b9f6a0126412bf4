"""Tree-structure part shared by the flow-based MIPs: variables b, w and constraints (1.2)-(1.3)."""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..._validation import OptreesInputError
from ...solvers.deadline import Deadline, check_deadline
from ...solvers.scip import ScipModel
from ..problem.tree_problem import HeapTree, TreeProblem

# Largest depth of the tree MIPs: every one has (2^depth - 1) x features branching variables
# and, except Benders, 2^(depth + 1) nodes x samples flow / assignment variables.  At 12 a
# model on a tiny data set (monk1, 124 rows) still builds; the memory estimate
# (:func:`check_model_size`) decides for larger data.
MAX_TREE_DEPTH = 12
TREE_DEPTH_WHY = ("the MIP has (2^depth - 1) x features branching variables and "
                  "2^(depth + 1) nodes x samples flow variables")

# Variables per block while building: adding 400,000 variables at once took 4-5 s on a loaded
# machine (about 11 us each), unchecked against the deadline.
_BLOCK_VARS = 20_000


def add_var_rows(m: ScipModel, shape: tuple[int, int], vtype: str, deadline: Deadline | None,
                 **kwargs) -> np.ndarray:
    """``m.add_vars(shape, vtype, **kwargs)`` in blocks of rows, checking the deadline between
    blocks (same ids as one block: ids are consecutive), so a large block cannot run past it.
    An array ``obj`` has one row (or a row of one) per row of the block."""
    n, width = shape
    step = max(1, _BLOCK_VARS // max(1, width))
    obj = np.asarray(kwargs.pop("obj", 0.0), dtype=float)
    per_row = obj.ndim == 2
    parts = []
    for start in range(0, n, step):
        check_deadline(deadline)
        stop = min(n, start + step)
        parts.append(m.add_vars((stop - start, width), vtype,
                                obj=obj[start:stop] if per_row else obj, **kwargs))
    return np.vstack(parts) if parts else m.add_vars((0, width), vtype, obj=obj, **kwargs)


@dataclass
class ModelSize:
    """Estimated size of a MIP before it is built (upper estimates)."""

    n_vars: float
    n_rows: float
    n_nonzeros: float

    def __add__(self, other: ModelSize) -> ModelSize:
        return ModelSize(self.n_vars + other.n_vars, self.n_rows + other.n_rows,
                         self.n_nonzeros + other.n_nonzeros)

    @property
    def bytes(self) -> float:
        """Peak memory: the built model plus SCIP's transformed copy made at solve time.

        Resident memory of built models on kr-vs-kp (FlowOCT depth 4, OCT depth 3, BinOCT
        depth 4) fits 1,500 bytes per variable + 600 per row + 30 per nonzero."""
        return 2.0 * (1500.0 * self.n_vars + 600.0 * self.n_rows + 30.0 * self.n_nonzeros)


def memory_budget() -> float:
    """Bytes a model may take: 3/4 of the physical memory (16 GB if it cannot be read)."""
    try:
        return 0.75 * os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return 16e9


def check_model_size(size: ModelSize, what: str, budget: float | None = None) -> None:
    """Refuse (:class:`OptreesInputError`) a model that would not fit in memory, before any
    of it is allocated (the alternative is a MemoryError, or swapping, after minutes)."""
    budget = memory_budget() if budget is None else budget
    if size.bytes > budget:
        raise OptreesInputError(
            f"{what} is too large: about {size.n_vars:.3g} variables, {size.n_rows:.3g} rows "
            f"and {size.n_nonzeros:.3g} nonzeros, about {size.bytes / 1e9:.3g} GB with the "
            f"solver's copy, more than the {budget / 1e9:.3g} GB available (3/4 of this "
            "machine's memory); the model grows like 2^depth x samples: use a smaller depth "
            "or fewer samples / features")


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

    The leaf model (``leaf_structure``) is the structure of [BendOCT] (3b)-(3g);
    it is the default for the leaf penalty and also serves the split penalty, whose objective
    it expresses exactly as (1 - lam) * correct - lam * leaves + lam (splits = leaves - 1).
    """

    def __init__(self, problem: TreeProblem, symmetry_breaking: bool = True,
                 leaf_structure: bool | None = None) -> None:
        self.p = problem
        self.symmetry_breaking = symmetry_breaking
        self.leaf_model = (problem.penalty == "leaves" if leaf_structure is None
                           else bool(leaf_structure))

    def structure_size(self) -> ModelSize:
        """Size estimate of :meth:`add_tree_structure` (either model, with symmetry rows)."""
        p = self.p
        inner, nodes = p.n_internal, p.n_nodes
        F, K = p.n_features, p.n_classes
        return ModelSize(inner * F + nodes * (K + 1), nodes * (2 * K + 4),
                         5 * inner * F + nodes * (5 * K + p.depth + 2))

    def add_tree_structure(self, m: ScipModel, binary_labels: bool = True,
                           deadline: Deadline | None = None) -> None:
        """Split-penalty model: variables (1.10)-(1.11), constraints (1.2)-(1.3) of
        [FlowOCT].  Leaf-penalty model: (3b)-(3g) of [BendOCT], with
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
            self.b = add_var_rows(m, (p.n_internal, F), "B", deadline, name="b")
            self._add_leaf_structure(m, binary_labels, deadline)
            return
        self.b = add_var_rows(m, (p.n_internal, F), "B", deadline, obj=-p.split_cost, name="b")
        self.w = add_var_rows(m, (p.n_nodes, K), "B", deadline, name="w")
        for n in p.internal_nodes:  # (1.2): branch on one feature or predict one class
            if n % 256 == 0:
                check_deadline(deadline)
            m.add_row(np.r_[self.b[n - 1], self.w[n - 1]], np.ones(F + K), 1.0, 1.0)
        for n in p.leaf_nodes:  # (1.3): every leaf predicts one class
            m.add_row(self.w[n - 1], np.ones(K), 1.0, 1.0)
        if self.symmetry_breaking:
            for n in p.internal_nodes:
                if n % 64 == 0:
                    check_deadline(deadline)
                for c in (2 * n, 2 * n + 1):
                    if c <= p.n_internal:  # sum_f b_cf <= sum_f b_nf
                        m.add_row(np.r_[self.b[c - 1], self.b[n - 1]],
                                  np.r_[np.ones(F), -np.ones(F)], rhs=0.0)
                    for k in range(K):  # w_ck >= w_nk
                        m.add_row([self.w[c - 1, k], self.w[n - 1, k]], [1.0, -1.0], lhs=0.0)

    def _add_leaf_structure(self, m: ScipModel, binary_labels: bool,
                            deadline: Deadline | None = None) -> None:
        p = self.p
        F, K = p.n_features, p.n_classes
        # (3f); either penalty costs lam per leaf, the split penalty gives one leaf back
        self.p_leaf = m.add_vars(p.n_nodes, "B", obj=-p.lam, name="p")
        if p.penalty == "splits":
            m.add_objective_offset(p.lam)
        self.w = add_var_rows(m, (p.n_nodes, K), "B" if binary_labels else "C", deadline,
                              name="w")  # (3g)
        for n in range(1, p.n_nodes + 1):
            if n % 256 == 0:
                check_deadline(deadline)
            anc = [a - 1 for a in ancestors(n)]
            path_p = np.r_[self.p_leaf[n - 1], self.p_leaf[anc]]
            if n <= p.n_internal:  # (3b): branch, be a leaf, or lie below a leaf
                m.add_row(np.r_[self.b[n - 1], path_p], np.ones(F + len(path_p)), 1.0, 1.0)
            else:  # (3d): exactly one leaf on the path to every terminal node
                m.add_row(path_p, np.ones(len(path_p)), 1.0, 1.0)
            # (3c): a leaf predicts one class
            m.add_row(np.r_[self.w[n - 1], self.p_leaf[n - 1]], np.r_[np.ones(K), -1.0], 0.0, 0.0)

    def path_branches(self, tree: HeapTree, n: int) -> np.ndarray:
        """The branching variables ``b[a, f_a]`` of ``tree`` on the path to node ``n``
        (parent first): all 1 exactly when the tree branches that way above ``n``."""
        anc = np.array(ancestors(n), dtype=np.int64)
        return self.b[anc - 1, tree.split[anc - 1]] if anc.size else np.zeros(0, np.int64)

    def improve_start(self, tree: HeapTree, deadline: Deadline | None = None) -> HeapTree:
        """Hook to improve a start tree before it is given to the solver (raising
        :class:`TimeUp` once ``deadline`` has passed)."""
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
