"""BinOCT, the baseline tree MIP of Verwer & Zhang that FlowOCT is compared with ([FlowOCT]
§4), with thresholds encoded in binary.

It uses heap numbering (root 1, children 2n / 2n+1, leaves 2^D .. 2^(D+1)-1).

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

from ..._numbers import clean_midpoints
from ...solvers.deadline import Deadline, check_deadline
from ...solvers.scip import ScipModel
from ..problem.tree_problem import HeapTree, TreeProblem, leaf_range, majority_labels
from .formulation import ModelSize, add_var_rows


def candidate_thresholds(values: np.ndarray) -> list[np.ndarray]:
    """Per column, midpoints between consecutive distinct values (0.5 for a 0/1 column)."""
    out = []
    for j in range(values.shape[1]):
        u = np.unique(values[:, j])
        out.append(clean_midpoints(u[:-1], u[1:]))
    return out


class BinOCT:
    """Verwer & Zhang's BinOCT, (BIN.0)-(BIN.8) above, on a ScipModel.

    ``values`` (n x F, numeric) are the columns thresholds are chosen on; ``y`` class indices
    0..n_classes-1.  :meth:`from_problem` uses a :class:`TreeProblem`'s 0/1 features, for which
    :meth:`tree_from_values` returns a :class:`HeapTree`; :meth:`structure_from_values` gives the
    split feature and threshold of every node for any data.
    """

    def __init__(self, values: np.ndarray, y: np.ndarray, n_classes: int, depth: int,
                 weights: np.ndarray | None = None) -> None:
        self.values = np.asarray(values, dtype=float)
        self.y = np.asarray(y, dtype=np.int64)
        # row weights (1 each by default): the objective counts the weight of correct rows
        self.w = np.ones(len(self.y)) if weights is None else np.asarray(weights, dtype=float)
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
        form = cls(problem.X, problem.y, problem.n_classes, problem.depth, problem.row_weights)
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
        m.limit_root_separation()  # big-M model: few root cut rounds pay (solvers.scip)
        nL, first = self.n_leaves, 2**D
        self.m = m
        self._deadline = deadline
        self.f = add_var_rows(m, (self.n_internal, F), "B", deadline, name="f")
        self.t = m.add_vars((self.n_internal, B), "B", name="t")
        self.lam = add_var_rows(m, (nR, nL), "C", deadline, obj=self.w[:, None], name="l")
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
                          np.r_[self.w[rows], -float(self.w[rows].sum()), -1.0], rhs=0.0)
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
        label = majority_labels(leaf, self.y, n_nodes, self.n_classes,
                                 np.zeros(n_nodes, dtype=np.int64), self.w)
        x[self.lam[np.arange(len(self.y)), leaf - first]] = 1
        for t in range(self.n_leaves):
            x[self.p[t, label[first + t - 1]]] = 1
            for k in range(self.n_classes):
                if k != label[first + t - 1]:
                    x[self.e[t, k]] = self.w[(leaf == first + t) & (self.y == k)].sum()
        return x

    def improve_start(self, tree: HeapTree, deadline: Deadline | None = None) -> HeapTree:
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
