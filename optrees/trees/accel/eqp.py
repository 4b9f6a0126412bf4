"""Equivalent-point inequalities (accelerated-bendoct.txt §5.3, eq. 13-22).

An EQP set J is a set of samples that agree on every feature outside a small split set F*
but do not all share a class: unless the tree branches on a feature of F* where J passes, J
ends in one leaf and at most its majority class can be right.  A variable beta_G (H part)
detects "J may be split"; the G part bounds sum_{i in J} theta_i while beta_G = 0.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from ...solvers.scip import ScipModel
from ..problem import TreeProblem


@dataclass
class EqpSet:
    samples: np.ndarray  # indices into the training data
    split_set: tuple[int, ...]  # F*: the features on which the samples may differ


def eqp_sets(problem: TreeProblem, max_split: int = 2,
             stop_at: float | None = None) -> list[EqpSet]:
    """EQP sets with |F*| <= max_split (§5.3.5), aggregated per split set.

    Pairs of distinct feature vectors at Hamming distance <= max_split whose samples carry
    at least two classes are joined (connected components) when they share the split set;
    vectors that alone carry two classes form sets with F* = {}.
    """
    X, y, K = problem.X, problem.y, problem.n_classes
    rows, inverse = np.unique(X, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    classes = np.zeros((len(rows), K), dtype=bool)
    classes[inverse, y] = True
    members = [np.flatnonzero(inverse == u) for u in range(len(rows))]
    out = [EqpSet(members[u], ()) for u in np.flatnonzero(classes.sum(axis=1) >= 2)]
    if max_split == 0 or len(rows) < 2:
        return out
    R = rows.astype(np.float32)
    pairs_a, pairs_b = [], []
    for start in range(0, len(R), 2048):  # blocks keep the distance matrix small
        if stop_at is not None and time.perf_counter() > stop_at:
            break
        block = R[start:start + 2048]
        dist = block @ (1 - R).T + (1 - block) @ R.T
        i, j = np.nonzero((dist >= 0.5) & (dist <= max_split + 0.5))
        keep = j > i + start
        pairs_a.append(i[keep] + start)
        pairs_b.append(j[keep])
    a, b = np.concatenate(pairs_a), np.concatenate(pairs_b)
    mixed = (classes[a] | classes[b]).sum(axis=1) >= 2
    a, b = a[mixed], b[mixed]
    groups: dict[tuple[int, ...], list[tuple[int, int]]] = {}
    diff = rows[a] != rows[b]
    for k in range(len(a)):
        groups.setdefault(tuple(np.flatnonzero(diff[k]).tolist()), []).append((a[k], b[k]))
    for split_set, pairs in groups.items():
        nodes, local = np.unique(np.array(pairs), return_inverse=True)
        local = local.reshape(-1, 2)
        graph = coo_matrix((np.ones(len(local)), (local[:, 0], local[:, 1])),
                           shape=(len(nodes), len(nodes)))
        _, label = connected_components(graph, directed=False)
        for c in range(label.max() + 1):
            comp = nodes[label == c]
            if classes[comp].any(axis=0).sum() >= 2:
                out.append(EqpSet(np.concatenate([members[u] for u in comp]), split_set))
    return out


class EqpInequalities:
    """Adds (14)-(15) for every EQP set: H in {"basic" (16), "recursive" (21, disaggregated)},
    G in {"basic" (17), "group" (22, group selection)}."""

    def __init__(self, form, h: str = "recursive", g: str = "group", max_split: int = 2):
        if h not in ("basic", "recursive") or g not in ("basic", "group"):
            raise ValueError(f"unknown EQP variant H={h!r}, G={g!r}")
        self.f, self.h, self.g, self.max_split = form, h, g, max_split
        self.n_sets = 0  # added to the model
        self.n_found = 0

    def add(self, m: ScipModel, stop_at: float | None = None) -> None:
        """Add the sets, smallest split sets and largest J first, until ``stop_at``
        (perf_counter seconds): the inequalities are optional, so a partial set is valid."""
        sets = eqp_sets(self.f.p, self.max_split, stop_at)
        sets.sort(key=lambda J: (len(J.split_set), -len(J.samples)))
        self.n_found = len(sets)
        for J in sets:
            if stop_at is not None and time.perf_counter() > stop_at:
                break
            beta_g = self._add_h(m, J)
            self._add_g(m, J, beta_g)
            self.n_sets += 1

    def _add_h(self, m: ScipModel, J: EqpSet) -> int:
        """Variables and rows of H(J, F*); returns the id of beta_G."""
        p, b = self.f.p, self.f.b
        if not J.split_set:  # nothing can split J: the bound always holds
            return int(m.add_vars(1, "C", ub=0.0, name="betaG")[0])
        beta_g = int(m.add_vars(1, "C", name="betaG")[0])
        star = list(J.split_set)
        if self.h == "basic":  # (16): beta_G <= sum_{n, f in F*} b_nf
            ids = np.r_[beta_g, b[:, star].ravel()]
            m.add_row(ids, np.r_[1.0, -np.ones(len(ids) - 1)], rhs=0.0)
            return beta_g
        # (21): beta_n = J is split at n or below along J's own path
        x = p.X[J.samples[0]]
        rest = np.ones(p.n_features, dtype=bool)
        rest[star] = False
        beta = m.add_vars(p.n_internal, "C", name="beta")
        for n in p.internal_nodes:
            terms = [b[n - 1, star]]
            if 2 * n <= p.n_internal:  # children are internal: J may go on down
                bl, br = m.add_vars(2, "C", name="beta_lr")
                for side_var, side, child in ((bl, 0, 2 * n), (br, 1, 2 * n + 1)):
                    feats = b[n - 1, rest & (x == side)]  # J goes to this child together
                    m.add_row(np.r_[side_var, feats], np.r_[1.0, -np.ones(len(feats))], rhs=0)
                    m.add_row([side_var, beta[child - 1]], [1.0, -1.0], rhs=0.0)
                terms.append(np.array([bl, br]))
            ids = np.r_[beta[n - 1], np.concatenate(terms)]
            m.add_row(ids, np.r_[1.0, -np.ones(len(ids) - 1)], rhs=0.0)
        m.add_row([beta_g, beta[0]], [1.0, -1.0], rhs=0.0)  # beta_G <= beta_1
        return beta_g

    def _add_g(self, m: ScipModel, J: EqpSet, beta_g: int) -> None:
        """Rows of G(J): bound the number of correctly classified samples of J."""
        theta = self.f.g[J.samples]
        labels = self.f.p.y[J.samples]
        present, counts = np.unique(labels, return_counts=True)
        if self.g == "basic":  # (17)
            most = counts.max()
            ids = np.r_[theta, beta_g]
            coefs = np.r_[np.ones(len(theta)), -float(len(theta) - most)]
            m.add_row(ids, coefs, rhs=float(most))
            return
        G = m.add_vars(len(present), "C", name="G")  # (22) group selection
        m.add_row(np.r_[G, beta_g], np.r_[np.ones(len(G)), -(len(present) - 1.0)], rhs=1.0)
        for k, cls in enumerate(present):
            in_group = theta[labels == cls]
            m.add_row(np.r_[in_group, G[k]], np.r_[np.ones(len(in_group)), -counts[k]], 0, 0)
