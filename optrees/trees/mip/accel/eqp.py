"""Equivalent-point inequalities ([BendOCT] §5.3, eq. 13-22).

An EQP set J is a set of samples that agree on every feature outside a small split set F*
but do not all share a class: unless the tree branches on a feature of F* where J passes, J
ends in one leaf and at most its majority class can be right.  A variable beta_G (H part)
detects "J may be split"; the G part bounds sum_{i in J} theta_i while beta_G = 0.

H variants: "basic" (16) looks for F* anywhere in the tree; "chain" (18) / "chain_da" (19)
look for a node that J reaches together and that branches on F*; "recursive" (20) /
"recursive_da" (21) pass the same information up J's path from the children.  The "_da"
forms are the disaggregated ones (continuous beta); (18) and (20) need binary beta.  G
variants: "basic" (17) bounds by the majority class, "group" (22) selects one class group.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from ....solvers.deadline import Deadline
from ....solvers.scip import ScipModel
from ...problem.tree_problem import TreeProblem


@dataclass
class EqpSet:
    samples: np.ndarray  # indices into the training data
    split_set: tuple[int, ...]  # F*: the features on which the samples may differ


def eqp_sets(problem: TreeProblem, max_split: int = 2,
             stop_at: Deadline | None = None) -> list[EqpSet]:
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
        if stop_at is not None and stop_at.expired():
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


H_VARIANTS = ("basic", "chain", "chain_da", "recursive", "recursive_da")
"""H(J, F*): basic (16), chain (18), disaggregated chain (19), recursive (20),
disaggregated recursive (21)."""
G_VARIANTS = ("basic", "group")
"""G(J): basic (17), group selection (22)."""
VARIANTS = tuple(f"{h}-{g}" for h in H_VARIANTS for g in G_VARIANTS)
"""Names ``"H-G"`` accepted by the estimators' ``eqp`` parameter."""


class EqpInequalities:
    """Adds (14)-(15) for every EQP set, H in :data:`H_VARIANTS`, G in :data:`G_VARIANTS`.

    Nodes follow the heap numbering of :class:`TreeProblem`; a sample goes left at node n
    when the tested feature is 0.  Only internal nodes carry beta variables: a terminal node
    cannot branch, so an EQP set that reaches one together stops there together.
    """

    def __init__(self, form, h: str = "recursive_da", g: str = "group",
                 max_split: int = 2) -> None:
        if h not in H_VARIANTS or g not in G_VARIANTS:
            raise ValueError(f"unknown EQP variant H={h!r}, G={g!r}: H must be one of "
                             f"{H_VARIANTS}, G one of {G_VARIANTS}")
        self.f, self.h, self.g, self.max_split = form, h, g, max_split
        self.n_sets = 0  # added to the model
        self.n_found = 0
        self.sets: list[EqpSet] = []  # the sets added, in order
        self.beta_g: list[int] = []  # id of beta_G for each added set
        self._aux: list[dict] = []  # ids of the other variables of each added set

    def add(self, m: ScipModel, stop_at: Deadline | None = None) -> None:
        """Add the sets, smallest split sets and largest J first, until ``stop_at``
        expires: the inequalities are optional, so a partial set is valid."""
        sets = eqp_sets(self.f.p, self.max_split, stop_at)
        sets.sort(key=lambda J: (len(J.split_set), -len(J.samples)))
        self.n_found = len(sets)
        for J in sets:
            if stop_at is not None and stop_at.expired():
                break
            beta_g, aux = self._add_h(m, J)
            aux["G"] = self._add_g(m, J, beta_g)
            self.sets.append(J)
            self.beta_g.append(beta_g)
            self._aux.append(aux)
            self.n_sets += 1

    # ------------------------------------------------------------------ H(J, F*)
    def _add_h(self, m: ScipModel, J: EqpSet) -> tuple[int, dict]:
        """Variables and rows of H(J, F*); returns the id of beta_G and the other ids."""
        aux: dict = {"beta": None, "sides": None}
        if not J.split_set:  # nothing can split J: the bound always holds
            return int(m.add_vars(1, "C", ub=0.0, name="betaG")[0]), aux
        beta_g = int(m.add_vars(1, "C", name="betaG")[0])  # in [0, 1] for every variant
        star = list(J.split_set)
        if self.h == "basic":  # (16): beta_G <= sum_{n, f in F*} b_nf
            self._le(m, beta_g, [self.f.b[:, star].ravel()])
        elif self.h in ("chain", "chain_da"):
            aux["beta"] = self._add_chain(m, J, beta_g, disaggregated=self.h == "chain_da")
        else:
            aux["beta"], aux["sides"] = self._add_recursive(
                m, J, beta_g, disaggregated=self.h == "recursive_da")
        return beta_g, aux

    @staticmethod
    def _le(m: ScipModel, var: int, terms: list[np.ndarray], scale: float = 1.0) -> None:
        """Row ``scale * var <= sum of the variables in terms``."""
        ids = np.concatenate([np.atleast_1d(t) for t in terms]).astype(np.int64)
        m.add_row(np.r_[var, ids], np.r_[scale, -np.ones(len(ids))], rhs=0.0)

    def _side_masks(self, J: EqpSet) -> tuple[np.ndarray, np.ndarray]:
        """Features that send all of J left / right: f outside F* with x_f = 0 / x_f = 1
        for J's common values."""
        x = self.f.p.X[J.samples[0]]
        rest = np.ones(len(x), dtype=bool)
        rest[list(J.split_set)] = False
        return rest & (x == 0), rest & (x == 1)

    def _side_branches(self, J: EqpSet) -> tuple[np.ndarray, np.ndarray]:
        """b ids that send all of J left / right at each internal node (n_internal x k)."""
        to_left, to_right = self._side_masks(J)
        return self.f.b[:, to_left], self.f.b[:, to_right]

    @staticmethod
    def _path_terms(n: int, left: np.ndarray, right: np.ndarray) -> list[np.ndarray]:
        """For each ancestor a of node n, the b ids that keep all of J on the path to n:
        ``left[a]`` for a in A^L(n) (the path goes left), ``right[a]`` for a in A^R(n)."""
        terms = []
        while n > 1:
            a = n // 2
            terms.append(left[a - 1] if n % 2 == 0 else right[a - 1])
            n = a
        return terms

    def _add_chain(self, m: ScipModel, J: EqpSet, beta_g: int,
                   disaggregated: bool) -> np.ndarray:
        """(18), or (19) when disaggregated: beta_n = J reaches node n together and n
        branches on F*; beta_G <= sum_n beta_n.  Returns the ids of beta_n."""
        p, b = self.f.p, self.f.b
        left, right = self._side_branches(J)
        vtype = "C" if disaggregated else "B"  # (19): beta_n in [0, 1]; (18): {0, 1}
        beta = m.add_vars(p.n_internal, vtype, name="beta")
        star = list(J.split_set)
        for n in p.internal_nodes:
            terms = [b[n - 1, star]] + self._path_terms(n, left, right)
            if disaggregated:  # (19): one row per term
                for t in terms:
                    self._le(m, beta[n - 1], [t])
            else:  # (18) times |A(n)| + 1: each term is at most 1
                self._le(m, beta[n - 1], terms, scale=float(len(terms)))
        self._le(m, beta_g, [beta])  # beta_G <= sum_n beta_n
        return beta

    def _add_recursive(self, m: ScipModel, J: EqpSet, beta_g: int,
                       disaggregated: bool) -> tuple[np.ndarray, np.ndarray]:
        """(20), or (21) when disaggregated: beta_n = J is split at n or below along J's
        own path; beta_{n,l} / beta_{n,r} = J goes left / right together and is split there.
        Returns the ids of beta_n and of (beta_{n,l}, beta_{n,r}) per node (-1: none)."""
        p, b = self.f.p, self.f.b
        left, right = self._side_branches(J)
        star = list(J.split_set)
        beta = m.add_vars(p.n_internal, "C", name="beta")  # beta_n in [0, 1]
        vtype = "C" if disaggregated else "B"  # (21): beta_{n,l/r} in [0, 1]; (20): {0, 1}
        sides = np.full((p.n_internal, 2), -1, dtype=np.int64)
        for n in p.internal_nodes:
            terms = [b[n - 1, star]]
            if 2 * n <= p.n_internal:  # a terminal child has no beta: the path stops there
                side_vars = sides[n - 1] = m.add_vars(2, vtype, name="beta_lr")
                for var, feats, child in zip(side_vars, (left[n - 1], right[n - 1]),
                                             (2 * n, 2 * n + 1), strict=True):
                    if disaggregated:  # (21): two rows
                        self._le(m, var, [feats])
                        self._le(m, var, [beta[child - 1]])
                    else:  # (20) times 2
                        self._le(m, var, [feats, beta[child - 1]], scale=2.0)
                terms.append(side_vars)
            self._le(m, beta[n - 1], terms)  # beta_n <= sum_{F*} b_nf + beta_{n,l} + beta_{n,r}
        self._le(m, beta_g, [beta[0]])  # beta_G <= beta_1
        return beta, sides

    # ------------------------------------------------------------------ G(J)
    def _add_g(self, m: ScipModel, J: EqpSet, beta_g: int) -> np.ndarray | None:
        """Rows of G(J): bound the number of correctly classified samples of J; returns the
        ids of the group variables G_k (None for G^Basic)."""
        theta = self.f.g[J.samples]
        labels = self.f.p.y[J.samples]
        present, counts = np.unique(labels, return_counts=True)
        if self.g == "basic":  # (17)
            most = counts.max()
            ids = np.r_[theta, beta_g]
            coefs = np.r_[np.ones(len(theta)), -float(len(theta) - most)]
            m.add_row(ids, coefs, rhs=float(most))
            return None
        G = m.add_vars(len(present), "C", name="G")  # (22) group selection
        m.add_row(np.r_[G, beta_g], np.r_[np.ones(len(G)), -(len(present) - 1.0)], rhs=1.0)
        for k, cls in enumerate(present):
            in_group = theta[labels == cls]
            m.add_row(np.r_[in_group, G[k]], np.r_[np.ones(len(in_group)), -counts[k]], 0, 0)
        return G

    # ------------------------------------------------------------------ start values
    def complete(self, x: np.ndarray) -> None:
        """Set the EQP variables of a solution vector whose b and theta come from a tree:
        every beta takes the largest value H allows at those b (1 exactly when the tree can
        split J), G_k the share of J_k classified correctly.  Without this a start that leaves
        them at 0 violates (17) / (22) as soon as the tree splits an EQP set."""
        b = np.rint(x[self.f.b])
        for J, beta_g, aux in zip(self.sets, self.beta_g, self._aux, strict=True):
            if J.split_set:
                x[beta_g] = self._beta_values(J, b, aux, x)
            if aux["G"] is not None:
                labels = self.f.p.y[J.samples]
                theta = x[self.f.g[J.samples]]
                x[aux["G"]] = [theta[labels == k].mean() for k in np.unique(labels)]

    def _beta_values(self, J: EqpSet, b: np.ndarray, aux: dict, x: np.ndarray) -> float:
        """Write beta_n (and beta_{n,l/r}) for integral b into x; return beta_G."""
        star = b[:, list(J.split_set)].sum(axis=1)
        if self.h == "basic":
            return min(1.0, star.sum())
        left, right = (b[:, mask].sum(axis=1) for mask in self._side_masks(J))
        beta = np.zeros(len(star))
        if self.h in ("chain", "chain_da"):
            for n in range(1, len(star) + 1):
                path = self._path_terms(n, left[:, None], right[:, None])
                beta[n - 1] = min([star[n - 1]] + [float(t[0]) for t in path])
            x[aux["beta"]] = beta
            return min(1.0, beta.sum())
        for n in range(len(star), 0, -1):  # recursive: children first
            value = star[n - 1]
            if aux["sides"][n - 1, 0] >= 0:
                lr = (min(left[n - 1], beta[2 * n - 1]), min(right[n - 1], beta[2 * n]))
                x[aux["sides"][n - 1]] = lr
                value += sum(lr)
            beta[n - 1] = min(1.0, value)
        x[aux["beta"]] = beta
        return beta[0]
