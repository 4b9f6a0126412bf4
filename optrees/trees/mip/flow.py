"""FlowOCT: the strong max-flow MIP of [FlowOCT], eq. (1), with optional cuts (4).

Each sample sends one unit of flow from the source through the tree to the sink; it reaches the
sink only where it is correctly classified.  Flows ``z`` are continuous (§2.1: for fixed b, w the
flow problem is a max-flow, so its integrality can be relaxed).
"""

from __future__ import annotations

import numpy as np

from ...solvers.base import Row
from ...solvers.deadline import Deadline, check_deadline
from ...solvers.scip import ScipModel
from ..problem.tree_problem import HeapTree, TreeProblem
from .fairness_rows import add_fairness_rows
from .formulation import ModelSize, TreeFormulation, add_var_rows
from .side_constraints import AllLazy, add_side_constraints, side_stats


class FlowOCT(TreeFormulation):
    """Builds eq. (1) on a :class:`ScipModel`; maps solutions to and from :class:`HeapTree`."""

    def __init__(self, problem: TreeProblem, strengthen: bool = False,
                 symmetry_breaking: bool = True) -> None:
        if problem.penalty != "splits":
            raise ValueError("FlowOCT implements the split penalty of eq. (1) only")
        super().__init__(problem, symmetry_breaking)
        self.strengthen = strengthen
        self.n_cuts = 0

    def model_size(self) -> ModelSize:
        """Size estimate of eq. (1) (checked against the memory before building)."""
        p = self.p
        n, inner, leaves, nodes = p.n_samples, p.n_internal, 2**p.depth, p.n_nodes
        flows = ModelSize(2 * n * nodes, n * (3 * inner + leaves + nodes),
                          n * (inner * (p.n_features + 6) + 2 * leaves + 2 * nodes))
        return self.structure_size() + flows

    def build(self, m: ScipModel, deadline: Deadline | None = None) -> None:
        p, lam = self.p, self.p.lam
        nI, nN = p.n_samples, p.n_nodes
        m.limit_root_separation()  # big-M model: few root cut rounds pay (solvers.scip)
        self.add_tree_structure(m, deadline=deadline)  # b, w and (1.2), (1.3)
        # z_in[i, n-1] = flow on arc a(n) -> n (a(1) = s); z_t[i, n-1] = flow on n -> t
        # (1.6): z_s1 <= 1 is the bound
        self.z_in = add_var_rows(m, (nI, nN), "C", deadline, name="z_in")
        # objective (1.1): (1 - lam) * w_i per unit of flow of sample i to the sink
        obj = (1.0 - lam) if p.unit_weights else (1.0 - lam) * p.weights[:, None]
        self.z_t = add_var_rows(m, (nI, nN), "C", deadline, obj=obj, name="z_t")
        X = p.X
        for i in range(nI):
            check_deadline(deadline)  # a sample adds 3 x 2^depth rows (depth 7: about 10 ms)
            zi, zt = self.z_in[i], self.z_t[i]
            left_feats = self.b[:, X[i] == 0]
            right_feats = self.b[:, X[i] == 1]
            n_left, n_right = left_feats.shape[1], right_feats.shape[1]
            for n in p.internal_nodes:
                # (1.4) flow conservation at internal nodes
                m.add_row([zi[n - 1], zi[2 * n - 1], zi[2 * n], zt[n - 1]], [1, -1, -1, -1], 0, 0)
                # (1.7) left arc needs a branching feature with x_f = 0; (1.8) right: x_f = 1
                m.add_row(np.r_[zi[2 * n - 1], left_feats[n - 1]], np.r_[1.0, -np.ones(n_left)],
                          rhs=0.0)
                m.add_row(np.r_[zi[2 * n], right_feats[n - 1]], np.r_[1.0, -np.ones(n_right)],
                          rhs=0.0)
            for n in p.leaf_nodes:  # (1.5)
                m.add_row([zi[n - 1], zt[n - 1]], [1, -1], 0, 0)
            for n in range(1, nN + 1):  # (1.9)
                m.add_row([zt[n - 1], self.w[n - 1, p.y[i]]], [1, -1], rhs=0.0)
        # side constraints and fairness (issue #19), the lazy parts as one handler
        self.leaf_cuts = add_side_constraints(self, m)
        self.fair_cuts = add_fairness_rows(self, m)
        lazy = [c for c in (self.leaf_cuts, self.fair_cuts) if c is not None]
        if lazy:
            m.set_lazy(AllLazy(*lazy))
        if self.strengthen:
            m.add_separator(self.separate_strengthening, "flowoct_cuts4")

    # ------------------------------------------------------------------ cuts (4)
    def separate_strengthening(self, x: np.ndarray, tol: float = 1e-4) -> list[Row]:
        """Most violated cut (4) per (node with leaf children, feature, side).

        For a node n whose children are leaves and feature f, a set H of differently-labelled
        samples that feature f sends right satisfies sum_{i in H} z_{n,l(n)}^i <= 1 - b_{nf}.
        We also use the mirror image (samples sent left, flow on the right arc).
        For each class the best member of H is the sample with the largest flow.
        """
        p = self.p
        b = x[self.b]
        rows: list[Row] = []
        for n in range(2 ** (p.depth - 1), 2**p.depth):
            for side, child in ((1, 2 * n), (0, 2 * n + 1)):
                flow = x[self.z_in[:, child - 1]]
                total = np.zeros(p.n_features)
                members, values = [], []
                for k in range(p.n_classes):
                    idx = np.flatnonzero(p.y == k)
                    if idx.size == 0:
                        continue
                    masked = (p.X[idx] == side) * flow[idx, None]  # (n_k, F)
                    arg = masked.argmax(axis=0)
                    value = masked[arg, np.arange(p.n_features)]
                    total += value
                    members.append(idx[arg])
                    values.append(value)
                viol = np.flatnonzero(total > 1 - b[n - 1] + tol)
                for f in viol:
                    # only samples with x_f = side belong to H: where a class has none, argmax
                    # picked an arbitrary row (value 0), which must not enter the cut
                    H = [mem[f] for mem, val in zip(members, values, strict=True)
                         if val[f] > 1e-9]
                    ids = np.r_[self.z_in[H, child - 1], self.b[n - 1, f]]
                    rows.append(Row(ids, np.ones(len(ids)), rhs=1.0))
        self.n_cuts += len(rows)
        return rows

    @property
    def stats(self) -> dict:
        return {"cuts4": self.n_cuts, **side_stats(self)}

    def correct_terms(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Row i's correctness as a linear expression: its flow into the sink."""
        return self.z_t[i], np.ones(self.p.n_nodes)

    def correct_values(self, x: np.ndarray) -> np.ndarray:
        return x[self.z_t].sum(axis=1)

    # ------------------------------------------------------------------ solutions
    def start_values(self, tree: HeapTree) -> np.ndarray:
        """Full solution vector (b, w, z) for a given tree."""
        p = self.p
        x = self.structure_values(tree)
        stop = tree.terminal(p.X)
        correct = np.flatnonzero(tree.label[stop - 1] == p.y)
        for i in correct:
            n = int(stop[i])
            x[self.z_t[i, n - 1]] = 1
            while n >= 1:
                x[self.z_in[i, n - 1]] = 1
                n //= 2
        if self.fair_cuts is not None:  # q of the fairness rows (more than two classes)
            self.fair_cuts.complete(x, tree)
        return x
