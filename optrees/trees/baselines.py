"""Baseline tree MIPs that FlowOCT is compared with ([FlowOCT] §2.2 and §4).

Both use heap numbering (root 1, children 2n / 2n+1, leaves 2^D .. 2^(D+1)-1) and maximize the
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

BinOCT -- Verwer & Zhang (2019), thresholds encoded in binary
--------------------------------------------------------------
For every feature j the candidate thresholds are the midpoints ``theta_j[0] < ... <
theta_j[T_j - 1]`` between consecutive distinct training values; ``pi_rj`` = number of thresholds
below x_rj (0 .. T_j).  Each internal node n picks one feature (``f[n, j]``) and a threshold
index ``v_n`` written with K = ceil(log2(max_j T_j)) shared bits ``t[n, 0..K-1]`` (most significant
first); row r goes left iff ``x_rj <= theta_j[v_n]``, i.e. iff ``pi_rj <= v_n``.  A code
``v_n >= T_j`` means theta = +inf: every row goes left (a harmless dummy split; the tree is full
in BinOCT, every node splits).  ``lam[r, l]`` (V&Z's l_{r,l}) row r ends in leaf l,
``p[l, c]`` leaf l predicts c, ``e[l, c]`` errors of class c in leaf l::

    max  sum_{r, l} lam_rl - sum_{l, c} e_lc            (= |I| - errors)       (BIN.0)
    sum_j f_nj = 1                               for all internal n            (BIN.1)
    sum_l lam_rl = 1                             for all rows r                (BIN.2)
    sum_c p_lc = 1                               for all leaves l              (BIN.3)
    sum_{r: y_r = c} lam_rl - M_c p_lc <= e_lc   for all l, c  (M_c = #class c) (BIN.4)

Threshold bits select a path in the binary trie of codes.  At a trie node with prefix P (bits
0..k-1) covering codes [s, s + 2h - 1] with middle ``m = s + h``, if bit k is 0 the threshold is
below m, so rows with ``pi in [m, s + 2h - 1]`` must go right; if bit k is 1 it is at least m, so
rows with ``pi in [s + 1, m]`` must go left.  With ``match(P) = sum_{i<k: P_i = 0} t_ni +
sum_{i<k: P_i = 1} (1 - t_ni)`` (0 iff the first k bits equal P) and M = number of rows in the
range (V&Z's big-M per threshold bit)::

    sum_{r: pi_rj in [m, s+2h-1]} sum_{l in LL(n)} lam_rl
        <= M (1 - f_nj + match(P) + t_nk)                                      (BIN.5, left)
    sum_{r: pi_rj in [s+1, m]} sum_{l in RL(n)} lam_rl
        <= M (1 - f_nj + match(P) + 1 - t_nk)                                  (BIN.6, right)
    sum_{r: pi_rj = 0} sum_{l in RL(n)} lam_rl <= M (1 - f_nj)                 (BIN.7, min)
    sum_{r: pi_rj = 2^K} sum_{l in LL(n)} lam_rl <= M (1 - f_nj)               (BIN.8, max)

Every (row, code) pair is covered: if pi > v the first bit where pi and v differ is 1 in pi
(BIN.5) unless pi = 2^K (BIN.8); if pi <= v the first bit where pi - 1 and v differ is 1 in v
(BIN.6) unless pi = 0 (BIN.7).  So for integral f, t every row has exactly one leaf it may reach
and ``lam`` can stay continuous.  On 0/1 features T_j = 1, K = 0 (no bits, threshold 0.5): only
(BIN.7)-(BIN.8) remain, one pair of aggregated big-M rows per node and feature.
BinOCT has no split penalty (lam = 0); its optimum is the best accuracy of a depth-D tree, the
same as FlowOCT's at lam = 0 (a full tree can always imitate a smaller one).
"""

from __future__ import annotations

import math

import numpy as np

from ..solvers.deadline import Deadline
from ..solvers.scip import ScipModel
from .formulation import ModelSize, TreeFormulation, add_var_rows, check_deadline
from .problem import HeapTree, TreeProblem


def leaf_range(n: int, depth: int) -> range:
    """Leaves (heap numbers) in the subtree of node n of a depth-``depth`` tree."""
    k = depth - (n.bit_length() - 1)
    return range(n << k, (n + 1) << k)


def leaf_ancestors(t: int) -> list[tuple[int, bool]]:
    """(ancestor, path goes left at it) for every proper ancestor of heap node t."""
    out = []
    while t > 1:
        out.append((t // 2, t % 2 == 0))
        t //= 2
    return out


def _majority_labels(leaf_of: np.ndarray, y: np.ndarray, n_nodes: int, n_classes: int,
                     default: np.ndarray) -> np.ndarray:
    """Majority class of the rows reaching each node (``default`` where none does)."""
    label = default.copy()
    counts = np.zeros((n_nodes, n_classes), dtype=np.int64)
    np.add.at(counts, (leaf_of - 1, y), 1)
    used = counts.sum(axis=1) > 0
    label[used] = counts[used].argmax(axis=1)
    return label


# ===================================================================================== OCT
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
        first_leaf = 2**p.depth
        self.m = m
        self.b = m.add_vars((p.n_internal, F), "B", name="a")  # BD's a_jt
        self.d = m.add_vars(p.n_internal, "B", obj=-lam, name="d")
        self.c = m.add_vars((nL, K), "B", name="c")  # leaf t is row t - 2^D
        self.l = m.add_vars(nL, "B", name="l")
        self.zeta = add_var_rows(m, (nI, nL), "B", deadline, obj=1.0 - lam, name="zeta")
        self.L = m.add_vars(nL, "C", lb=0.0, ub=None, obj=-(1.0 - lam), name="L")  # (OCT.3)
        y = p.y
        for t in range(nL):
            for k in range(K):
                check_deadline(deadline)  # each row has about |I| terms
                others = self.zeta[y != k, t]
                ids = np.r_[self.L[t], others, self.c[t, k]]
                coefs = np.r_[1.0, -np.ones(len(others)), -float(nI)]
                m.add_row(ids, coefs, lhs=-float(nI))  # (OCT.1)
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
        label = _majority_labels(leaf, p.y, p.n_nodes, p.n_classes, np.zeros(p.n_nodes, int))
        for t in range(self.n_leaves):
            x[self.l[t]] = 1
            x[self.c[t, label[first + t - 1]]] = 1
            here = leaf == first + t
            x[self.L[t]] = np.sum(here & (p.y != label[first + t - 1]))
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


# ===================================================================================== BinOCT
def candidate_thresholds(values: np.ndarray) -> list[np.ndarray]:
    """Per column, midpoints between consecutive distinct values (0.5 for a 0/1 column)."""
    out = []
    for j in range(values.shape[1]):
        u = np.unique(values[:, j])
        out.append((u[:-1] + u[1:]) / 2.0)
    return out


class BinOCT:
    """Verwer & Zhang's BinOCT, (BIN.0)-(BIN.8) above, on a ScipModel.

    ``values`` (n x F, numeric) are the columns thresholds are chosen on; ``y`` class indices
    0..n_classes-1.  :meth:`from_problem` uses a :class:`TreeProblem`'s 0/1 features, for which
    :meth:`tree_from_values` returns a :class:`HeapTree`; :meth:`structure_from_values` gives the
    split feature and threshold of every node for any data.
    """

    def __init__(self, values: np.ndarray, y: np.ndarray, n_classes: int, depth: int) -> None:
        self.values = np.asarray(values, dtype=float)
        self.y = np.asarray(y, dtype=np.int64)
        self.n_classes = int(n_classes)
        self.depth = int(depth)
        self.problem: TreeProblem | None = None
        self.thresholds = candidate_thresholds(self.values)
        T = max((len(th) for th in self.thresholds), default=0)
        self.n_bits = math.ceil(math.log2(T)) if T > 1 else 0
        # pi[r, j] = number of thresholds of column j below x_rj
        self.pi = np.column_stack([np.searchsorted(th, self.values[:, j])
                                   for j, th in enumerate(self.thresholds)])
        self.n_internal = 2**depth - 1
        self.n_leaves = 2**depth
        self._deadline: Deadline | None = None

    @classmethod
    def from_problem(cls, problem: TreeProblem) -> BinOCT:
        if problem.lam != 0:
            raise ValueError("BinOCT has no split penalty: lam must be 0")
        form = cls(problem.X, problem.y, problem.n_classes, problem.depth)
        form.problem = problem
        return form

    def model_size(self) -> ModelSize:
        """Size estimate of (BIN.0)-(BIN.8): per node, feature and threshold bit the big-M
        rows cover every row once, each with the leaves on one side of the node."""
        nR, F = self.values.shape
        inner, leaves, K, B = self.n_internal, self.n_leaves, self.n_classes, self.n_bits
        rows = inner + nR + leaves * (K + 1) + inner * F * (2 + 2 ** (B + 1))
        nnz = 2 * nR * leaves + F * (B + 1) * nR * self.depth * leaves / 2
        return ModelSize(inner * (F + B) + nR * leaves + 2 * leaves * K, rows, nnz)

    def build(self, m: ScipModel, deadline: Deadline | None = None) -> None:
        nR, F = self.values.shape
        K, B, D = self.n_classes, self.n_bits, self.depth
        nL, first = self.n_leaves, 2**D
        self.m = m
        self._deadline = deadline
        self.f = add_var_rows(m, (self.n_internal, F), "B", deadline, name="f")
        self.t = m.add_vars((self.n_internal, B), "B", name="t")
        self.lam = add_var_rows(m, (nR, nL), "C", deadline, obj=1.0, name="l")
        self.p = m.add_vars((nL, K), "B", name="p")
        self.e = m.add_vars((nL, K), "C", lb=0.0, ub=None, obj=-1.0, name="e")
        for n in range(1, self.n_internal + 1):  # (BIN.1)
            m.add_row(self.f[n - 1], np.ones(F), 1.0, 1.0)
        for r in range(nR):  # (BIN.2)
            if r % 256 == 0:
                check_deadline(deadline)
            m.add_row(self.lam[r], np.ones(nL), 1.0, 1.0)
        for t in range(nL):
            m.add_row(self.p[t], np.ones(K), 1.0, 1.0)  # (BIN.3)
            for k in range(K):  # (BIN.4)
                check_deadline(deadline)
                rows = np.flatnonzero(self.y == k)
                m.add_row(np.r_[self.lam[rows, t], self.p[t, k], self.e[t, k]],
                          np.r_[np.ones(len(rows)), -float(len(rows)), -1.0], rhs=0.0)
        for n in range(1, self.n_internal + 1):
            left = np.array(leaf_range(2 * n, D)) - first
            right = np.array(leaf_range(2 * n + 1, D)) - first
            for j in range(F):
                check_deadline(deadline)
                self._add_feature_rows(m, n, j, left, right)

    def _flow_row(self, m: ScipModel, rows: np.ndarray, leaves: np.ndarray, n: int, j: int,
                  bits: list[tuple[int, float]], const: float) -> None:
        """sum_{r in rows, l in leaves} lam_rl <= M (1 - f_nj + const + sum coef * t_ni)."""
        if len(rows) == 0:
            return
        check_deadline(self._deadline)  # a row has up to |rows| x 2^(depth - 1) terms
        M = float(len(rows))
        flow = self.lam[np.ix_(rows, leaves)].ravel()
        ids = np.r_[flow, self.f[n - 1, j], [self.t[n - 1, i] for i, _ in bits]]
        coefs = np.r_[np.ones(len(flow)), M, [-M * c for _, c in bits]]
        m.add_row(ids.astype(np.int64), coefs, rhs=M * (1.0 + const))

    def _add_feature_rows(self, m: ScipModel, n: int, j: int, left: np.ndarray,
                          right: np.ndarray) -> None:
        pi, B = self.pi[:, j], self.n_bits
        self._flow_row(m, np.flatnonzero(pi == 0), right, n, j, [], 0.0)  # (BIN.7)
        self._flow_row(m, np.flatnonzero(pi == 2**B), left, n, j, [], 0.0)  # (BIN.8)
        for k in range(B):
            half = 2 ** (B - k - 1)
            for P in range(2**k):
                s = P * 2 * half
                mid = s + half
                # match(P) = sum_{P_i = 0} t_i + sum_{P_i = 1} (1 - t_i)
                prefix = [(i, 1.0 if ((P >> (k - 1 - i)) & 1) == 0 else -1.0) for i in range(k)]
                n_ones = sum(1 for _, c in prefix if c < 0)
                in_upper = np.flatnonzero((pi >= mid) & (pi <= s + 2 * half - 1))
                self._flow_row(m, in_upper, left, n, j, prefix + [(k, 1.0)], n_ones)  # (BIN.5)
                in_lower = np.flatnonzero((pi >= s + 1) & (pi <= mid))
                self._flow_row(m, in_lower, right, n, j, prefix + [(k, -1.0)],
                               n_ones + 1.0)  # (BIN.6)

    # ------------------------------------------------------------------ solutions
    def route(self, feature: np.ndarray, code: np.ndarray) -> np.ndarray:
        """Leaf (heap number) of every row for split features and threshold codes per node."""
        nR = len(self.y)
        node = np.ones(nR, dtype=np.int64)
        rows = np.arange(nR)
        for _ in range(self.depth):
            j = feature[node - 1]
            node = 2 * node + (self.pi[rows, j] > code[node - 1])
        return node

    def solution_values(self, feature: np.ndarray, code: np.ndarray) -> np.ndarray:
        """Full solution vector for splits (feature, code) with majority labels at the leaves."""
        x = np.zeros(self.m.n_vars)
        n_nodes = 2 ** (self.depth + 1) - 1
        for n in range(self.n_internal):
            x[self.f[n, feature[n]]] = 1
            for i in range(self.n_bits):
                x[self.t[n, i]] = (code[n] >> (self.n_bits - 1 - i)) & 1
        leaf = self.route(feature, code)
        first = 2**self.depth
        label = _majority_labels(leaf, self.y, n_nodes, self.n_classes,
                                 np.zeros(n_nodes, dtype=np.int64))
        x[self.lam[np.arange(len(self.y)), leaf - first]] = 1
        for t in range(self.n_leaves):
            x[self.p[t, label[first + t - 1]]] = 1
            for k in range(self.n_classes):
                if k != label[first + t - 1]:
                    x[self.e[t, k]] = np.sum((leaf == first + t) & (self.y == k))
        return x

    def improve_start(self, tree: HeapTree) -> HeapTree:
        return tree

    def start_values(self, tree: HeapTree) -> np.ndarray:
        """A full tree imitating ``tree`` (0/1 data): its splits at threshold 0.5, any split at
        nodes that do not branch; leaves get majority labels, so the accuracy is no worse."""
        feature = np.where(tree.split >= 0, tree.split, 0)
        return self.solution_values(feature, np.zeros(self.n_internal, dtype=np.int64))

    def structure_from_values(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(feature, threshold, label) per heap node of a solution; -1 / nan where no split.

        A dummy split (code >= T_j: everything goes left) is removed by moving the left subtree
        up, so the returned tree only has real tests.
        """
        D, first = self.depth, 2**self.depth
        n_nodes = 2 ** (D + 1) - 1
        feature = np.full(n_nodes, -1, dtype=np.int64)
        threshold = np.full(n_nodes, np.nan)
        label = np.zeros(n_nodes, dtype=np.int64)
        fv = x[self.f]
        tv = x[self.t] > 0.5
        weights = 2 ** np.arange(self.n_bits - 1, -1, -1)
        for n in range(1, self.n_internal + 1):
            j = int(fv[n - 1].argmax())
            code = int(tv[n - 1] @ weights) if self.n_bits else 0
            feature[n - 1] = j
            th = self.thresholds[j]
            threshold[n - 1] = th[code] if code < len(th) else np.inf
        label[first - 1:] = x[self.p].argmax(axis=1)
        for n in range(1, self.n_internal + 1):
            while feature[n - 1] >= 0 and not np.isfinite(threshold[n - 1]):
                _hoist(feature, threshold, label, n)
        return feature, threshold, label

    def tree_from_values(self, x: np.ndarray) -> HeapTree:
        """The solution as a :class:`HeapTree` (0/1 data only: every threshold is 0.5)."""
        feature, threshold, label = self.structure_from_values(x)
        real = feature[: self.n_internal] >= 0
        if not np.all(threshold[: self.n_internal][real] == 0.5):
            raise ValueError("tree_from_values needs 0/1 features; use structure_from_values")
        return HeapTree(feature[: self.n_internal].copy(), label)

    @property
    def stats(self) -> dict:
        return {"threshold_bits": self.n_bits}


def _hoist(feature: np.ndarray, threshold: np.ndarray, label: np.ndarray, n: int) -> None:
    """Replace the subtree of heap node n by the subtree of its left child 2n."""
    n_nodes = len(feature)
    src_level, dst_level = [2 * n], [n]
    while src_level[0] <= n_nodes:
        for s, d in zip(src_level, dst_level, strict=True):
            feature[d - 1], threshold[d - 1], label[d - 1] = (
                feature[s - 1], threshold[s - 1], label[s - 1])
        src_level = [c for s in src_level for c in (2 * s, 2 * s + 1)]
        dst_level = [c for d in dst_level for c in (2 * d, 2 * d + 1)]
    for d in dst_level:  # the deepest level of n's subtree is now below a leaf
        if d <= n_nodes:
            feature[d - 1], threshold[d - 1] = -1, np.nan
