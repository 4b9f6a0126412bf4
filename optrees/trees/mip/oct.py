"""OCT, the baseline tree MIP of Bertsimas & Dunn that FlowOCT is compared with ([FlowOCT]
§2.2 and §4).

It uses heap numbering (root 1, children 2n / 2n+1, leaves 2^D .. 2^(D+1)-1) and maximizes the
same objective as FlowOCT's (1.1), so the optima can be compared directly:
``(1 - lam) * correct - lam * splits``.

OCT -- Bertsimas & Dunn (2017), specialized to binary data ([FlowOCT] §2.2)
-------------------------------------------------------------------------------------
Variables (paper names in brackets): ``a[n, f]`` (BD's a_jt, FlowOCT's b_nf) branch on feature f
at internal node n; ``d[n]`` node n branches; ``zeta[i, t]`` sample i is assigned to leaf t;
``l[t]`` leaf t is used; ``c[t, k]`` leaf t predicts class k (FlowOCT's w); ``L[t]``
misclassified samples in leaf t.  With ``N_t = sum_i zeta_it`` and ``N_kt = sum_{i: y_i = k}
zeta_it``::

    max  (1 - lam) * sum_t (N_t - L_t) - lam * sum_n d_n                      (OCT.0)
    L_t >= N_t - N_kt - |I| (1 - c_tk)           for all t, k                 (OCT.1)
    L_t <= N_t - N_kt + |I| c_tk                 for all t, k                 (OCT.2)
    L_t >= 0                                                                  (OCT.3)
    sum_k c_tk = l_t                             for all t                    (OCT.4)
    zeta_it <= l_t                               for all i, t                 (OCT.5)
    sum_t zeta_it = 1                            for all i                    (OCT.6)
    zeta_it <= 1 - a_nf     for n in AL(t), f with x_if = 1  (eq. 3 of the paper) (OCT.7)
    zeta_it <= d_n          for n in AL(t)                                    (OCT.8)
    zeta_it <= 1 - a_nf     for n in AR(t), f with x_if = 0                   (OCT.9)
    sum_f a_nf = d_n                             for all n                    (OCT.10)
    d_n <= d_a(n)                                for n != 1                   (OCT.11)
    a, d, zeta, l, c binary; L continuous

By (OCT.6) sum_t N_t = |I|, so (OCT.0) is BD's ``min sum_t L_t + alpha sum_n d_n`` rescaled to
FlowOCT's units; writing it with N_t keeps the objective free of a constant.  On 0/1 data BD's
threshold b_n is no longer needed: the test at n is "x_f = 0 goes left" as in FlowOCT, and BD's
separation constraints ``a_n'x_i + eps <= b_n + (1 + eps_max)(1 - z_it)`` (left ancestors) and
``a_n'x_i >= b_n - (1 - z_it)`` (right ancestors), with ``0 <= b_n <= d_n``, become (OCT.7)-(OCT.9)
(the paper's eq. 3, one row per feature, and its mirror image).  (OCT.8) is what is left of BD's
left-branch constraint when n does not branch (d_n = 0 forces b_n = 0, so nothing goes left): as
in BD, a non-branching node sends every sample right.  BD's minimum leaf size N_min is 0 here
(FlowOCT has none), so ``sum_i zeta_it >= N_min l_t`` is dropped.
"""

from __future__ import annotations

import numpy as np

from ...solvers.deadline import Deadline, check_deadline
from ...solvers.scip import ScipModel
from ..problem.tree_problem import HeapTree, TreeProblem, leaf_ancestors, majority_labels
from .formulation import ModelSize, TreeFormulation, add_var_rows


class OCT(TreeFormulation):
    """Bertsimas & Dunn's OCT on binary features, (OCT.0)-(OCT.11) above, on a ScipModel."""

    def __init__(self, problem: TreeProblem) -> None:
        if problem.penalty != "splits":
            raise ValueError("OCT implements the split penalty of [FlowOCT] eq. (1)")
        super().__init__(problem, symmetry_breaking=False)
        self.n_leaves = 2**problem.depth

    def model_size(self) -> ModelSize:
        """Size estimate of (OCT.0)-(OCT.11): per sample and leaf one row (OCT.7) / (OCT.9)
        per ancestor and feature on the wrong side, (d + 1) / 2 x features on average."""
        p = self.p
        n, inner, leaves, d = p.n_samples, p.n_internal, self.n_leaves, p.depth
        F, K = p.n_features, p.n_classes
        rows = n * leaves * (1 + d * (F + 1) / 2) + 2 * leaves * K + leaves + 2 * inner + n
        return ModelSize(inner * (F + 1) + leaves * (K + 2) + n * leaves, rows,
                         2 * rows + n * leaves * (1 + 2 * K))

    def build(self, m: ScipModel, deadline: Deadline | None = None) -> None:
        p, lam = self.p, self.p.lam
        nI, F, K, nL = p.n_samples, p.n_features, p.n_classes, self.n_leaves
        m.limit_root_separation()  # big-M model: few root cut rounds pay (solvers.scip)
        first_leaf = 2**p.depth
        self.m = m
        self.b = m.add_vars((p.n_internal, F), "B", name="a")  # BD's a_jt
        self.d = m.add_vars(p.n_internal, "B", obj=-lam, name="d")
        self.c = m.add_vars((nL, K), "B", name="c")  # leaf t is row t - 2^D
        self.l = m.add_vars(nL, "B", name="l")
        # with sample weights zeta and L count weights: L_t is the weight misclassified at t
        w, W = p.weights, p.total_weight
        self.zeta = add_var_rows(m, (nI, nL), "B", deadline, obj=(1.0 - lam) * w[:, None],
                                 name="zeta")
        self.L = m.add_vars(nL, "C", lb=0.0, ub=None, obj=-(1.0 - lam), name="L")  # (OCT.3)
        y = p.y
        for t in range(nL):
            for k in range(K):
                check_deadline(deadline)  # each row has about |I| terms
                others = self.zeta[y != k, t]
                ids = np.r_[self.L[t], others, self.c[t, k]]
                coefs = np.r_[1.0, -w[y != k], -W]
                m.add_row(ids, coefs, lhs=-W)  # (OCT.1)
                m.add_row(ids, coefs, rhs=0.0)  # (OCT.2)
            m.add_row(np.r_[self.c[t], self.l[t]], np.r_[np.ones(K), -1.0], 0.0, 0.0)  # (OCT.4)
        for n in p.internal_nodes:
            m.add_row(np.r_[self.b[n - 1], self.d[n - 1]], np.r_[np.ones(F), -1.0],
                      0.0, 0.0)  # (OCT.10)
            if n > 1:
                m.add_row([self.d[n - 1], self.d[n // 2 - 1]], [1.0, -1.0], rhs=0.0)  # (OCT.11)
        anc = [leaf_ancestors(first_leaf + t) for t in range(nL)]
        X = p.X
        for i in range(nI):
            check_deadline(deadline)  # a sample adds 2^depth x depth x features / 2 rows
            z = self.zeta[i]
            m.add_row(z, np.ones(nL), 1.0, 1.0)  # (OCT.6)
            ones, zeros = np.flatnonzero(X[i] == 1), np.flatnonzero(X[i] == 0)
            for t in range(nL):
                m.add_row([z[t], self.l[t]], [1.0, -1.0], rhs=0.0)  # (OCT.5)
                for n, left in anc[t]:
                    if left:
                        for f in ones:  # (OCT.7)
                            m.add_row([z[t], self.b[n - 1, f]], [1.0, 1.0], rhs=1.0)
                        m.add_row([z[t], self.d[n - 1]], [1.0, -1.0], rhs=0.0)  # (OCT.8)
                    else:
                        for f in zeros:  # (OCT.9)
                            m.add_row([z[t], self.b[n - 1, f]], [1.0, 1.0], rhs=1.0)

    # ------------------------------------------------------------------ solutions
    def _route(self, split: np.ndarray) -> np.ndarray:
        """Leaf (heap number) of every sample; a non-branching node sends samples right."""
        p = self.p
        node = np.ones(p.n_samples, dtype=np.int64)
        rows = np.arange(p.n_samples)
        for _ in range(p.depth):
            f = split[node - 1]
            go_right = np.where(f >= 0, p.X[rows, np.maximum(f, 0)] == 1, True)
            node = 2 * node + go_right
        return node

    def start_values(self, tree: HeapTree) -> np.ndarray:
        """Full solution vector for ``tree``; leaf labels become the leaves' majority classes
        (never worse than the tree's own labels)."""
        p = self.p
        tree = tree.canonical()  # below a non-branching node nothing branches: (OCT.11)
        split = tree.split
        x = np.zeros(self.m.n_vars)
        for n in p.internal_nodes:
            if split[n - 1] >= 0:
                x[self.b[n - 1, split[n - 1]]] = 1
                x[self.d[n - 1]] = 1
        leaf = self._route(split)
        first = 2**p.depth
        label = majority_labels(leaf, p.y, p.n_nodes, p.n_classes, np.zeros(p.n_nodes, int),
                                p.weights)
        for t in range(self.n_leaves):
            x[self.l[t]] = 1
            x[self.c[t, label[first + t - 1]]] = 1
            here = leaf == first + t
            x[self.L[t]] = p.weights[here & (p.y != label[first + t - 1])].sum()
        x[self.zeta[np.arange(p.n_samples), leaf - first]] = 1
        return x

    def tree_from_values(self, x: np.ndarray) -> HeapTree:
        """The tree of a solution: a non-branching node predicts the class of the rightmost
        leaf below it (where BD's model sends its samples)."""
        p = self.p
        a, d, c = x[self.b], x[self.d], x[self.c]
        split = np.where(d > 0.5, a.argmax(axis=1), -1)
        label = np.zeros(p.n_nodes, dtype=np.int64)
        first = 2**p.depth
        label[first - 1:] = c.argmax(axis=1)
        for n in range(p.n_internal, 0, -1):
            label[n - 1] = label[2 * n]  # rightmost leaf below n
        return HeapTree(split, label)

    @property
    def stats(self) -> dict:
        return {}
