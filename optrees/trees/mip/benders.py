"""BendersOCT: Benders decomposition of FlowOCT, [FlowOCT] eq. (8) and Proposition 1,
and its leaf-penalty variant BendOCT ([BendOCT] §4, eq. 4, cuts 9-10).

The master keeps the tree variables ``b``, ``w`` and one ``g_i <= 1`` per sample (is sample i
classified correctly).  Cuts (8.2) ``g_i <= capacity of a minimum s-t cut`` are added lazily.
The minimum cut of one sample's flow network is computed for all samples at once by a
dynamic program over the tree levels (numpy); at integer (b, w) it is the O(depth) cut of
Proposition 1 (the arcs leaving the sample's path), and it is also exact at fractional points.
In the leaf-penalty model the same cut is (9) (the sample stops at an internal leaf) or (10)
(at a terminal node): a node below a leaf has b = w = 0, so its arcs have capacity 0.
"""

from __future__ import annotations

import numpy as np

from ...solvers.base import Row
from ...solvers.deadline import Deadline, check_deadline
from ...solvers.scip import ScipModel
from ..problem.tree_problem import HeapTree, TreeProblem
from .accel.eqp import EqpInequalities
from .accel.path_bound import PathBoundCuts
from .accel.split_bound import SplitBoundCuts
from .accel.subtrees import SubtreeCache, height, polish
from .fairness_rows import add_fairness_rows
from .formulation import ModelSize, TreeFormulation, add_var_rows
from .side_constraints import AllLazy, add_side_constraints, side_stats


class MinCut:
    """Vectorized minimum s-t cut of the per-sample networks (6)/(7) for given (b, w)."""

    def __init__(self, problem: TreeProblem) -> None:
        self.p = problem
        self.Xf = problem.X.astype(float)

    def values(self, b: np.ndarray, w: np.ndarray, rows: np.ndarray):
        """Return (S, cap_left, cap_right): S[:, n-1] = min cut below node n (n on source side).

        cap_left[i, n-1] = sum_{f: x_if = 0} b_nf, cap_right[i, n-1] = sum_{f: x_if = 1} b_nf,
        sink capacities are w[n, y_i].  The min cut value of sample i is min(1, S[i, 0]).
        """
        p = self.p
        Xr = self.Xf[rows]
        cap_right = Xr @ b.T
        cap_left = b.sum(axis=1)[None, :] - cap_right
        S = w[:, p.y[rows]].T.copy()  # sink arcs n -> t, for every node
        for n in range(p.n_internal, 0, -1):  # bottom-up, children have larger numbers
            S[:, n - 1] += np.minimum(cap_left[:, n - 1], S[:, 2 * n - 1])
            S[:, n - 1] += np.minimum(cap_right[:, n - 1], S[:, 2 * n])
        return S, cap_left, cap_right

    def source_side(self, S, cap_left, cap_right) -> np.ndarray:
        """Nodes on the source side of the minimum cut (ties cut the arc nearest the root)."""
        p = self.p
        P = np.zeros_like(S, dtype=bool)
        P[:, 0] = True
        for n in p.internal_nodes:
            P[:, 2 * n - 1] = P[:, n - 1] & (S[:, 2 * n - 1] < cap_left[:, n - 1])
            P[:, 2 * n] = P[:, n - 1] & (S[:, 2 * n] < cap_right[:, n - 1])
        return P


class BendersCuts:
    """Lazy constraints (8.2) for the SCIP backend: exact check plus deduplicated cuts."""

    def __init__(self, owner: BendersOCT, min_violation: float = 1e-6,
                 max_fractional_cuts: int = 200) -> None:
        self.o = owner
        self.cut = MinCut(owner.p)
        self.tol = 1e-6
        self.min_violation = min_violation
        self.max_fractional = max_fractional_cuts
        self.seen: set[tuple] = set()
        self.n_integer_cuts = 0
        self.n_fractional_cuts = 0
        self.n_strengthened = 0

    def _split(self, x: np.ndarray):
        o = self.o
        return x[o.b], x[o.w], x[o.g]

    def violated(self, x: np.ndarray) -> bool:
        b, w, g = self._split(x)
        rows = np.flatnonzero(g > self.tol)
        if rows.size == 0:
            return False
        S, _, _ = self.cut.values(b, w, rows)
        return bool(np.any(g[rows] > np.minimum(S[:, 0], 1.0) + self.tol))

    def separate(self, x: np.ndarray, integral: bool) -> list[Row]:
        b, w, g = self._split(x)
        rows = np.flatnonzero(g > self.tol)
        if rows.size == 0:
            return []
        S, cl, cr = self.cut.values(b, w, rows)
        slack = g[rows] - S[:, 0]
        thresh = self.tol if integral else self.min_violation
        viol = np.flatnonzero(slack > thresh)
        if viol.size == 0:
            return []
        if not integral and viol.size > self.max_fractional:
            viol = viol[np.argsort(-slack[viol])[: self.max_fractional]]
        P = self.cut.source_side(S[viol], cl[viol], cr[viol])
        keys = np.packbits(P, axis=1)
        first_terminal = 2**self.o.p.depth
        out = []
        for j, v in enumerate(viol):
            i = int(rows[v])
            sibling = None
            if integral and self.o.strengthened_cuts:
                deepest = int(np.flatnonzero(P[j])[-1]) + 1
                # §5.1: the sample ends in a terminal node whose sibling misclassifies it too
                if deepest >= first_terminal and w[(deepest ^ 1) - 1, self.o.p.y[i]] < 0.5:
                    sibling = deepest ^ 1
            key = (i, keys[j].tobytes(), sibling)
            if key in self.seen:
                continue
            self.seen.add(key)
            self.n_strengthened += sibling is not None
            out.append(self.o.cut_row(i, P[j], sibling))
        if integral:
            self.n_integer_cuts += len(out)
            # SCIP does not call separators at integral LP points; without (24) there the
            # solver cycles through subtrees one Benders round at a time.
            if self.o.path_cuts is not None:
                out += self.o.path_cuts.separate(x)
            if self.o.split_cuts is not None and self.o.p.depth > 3:
                out += self.o.split_cuts.separate(x)
        else:
            self.n_fractional_cuts += len(out)
        return out


class BendersOCT(TreeFormulation):
    """Master problem (8) on a :class:`ScipModel` with lazy min-cut constraints (8.2)."""

    def __init__(self, problem: TreeProblem, fractional_cuts: bool = False,
                 symmetry_breaking: bool = True, polishing: bool = False,
                 path_bound_cuts: bool | str = False, strengthened_cuts: bool = False,
                 eqp: str | None = None, eqp_max_split: int = 2,
                 split_bound_cuts: bool = False) -> None:
        accelerated = bool(polishing or path_bound_cuts or strengthened_cuts or eqp
                           or split_bound_cuts)
        # the techniques of [BendOCT] §5 are written for the leaf structure; it
        # expresses the split penalty of eq. (8) exactly too (TreeFormulation)
        super().__init__(problem, symmetry_breaking,
                         leaf_structure=problem.penalty == "leaves" or accelerated)
        self.strengthened_cuts = strengthened_cuts
        self.eqp = eqp  # None, or "H-G" (accel.eqp.VARIANTS)
        self.eqp_max_split = eqp_max_split
        self.eqp_rows = None
        self.fractional_cuts = fractional_cuts
        self.polishing = polishing
        # True = "basic" (24); "negative" adds (25), "structure" (26), "both" (25) and (26)
        self.path_bound_cuts = "basic" if path_bound_cuts is True else path_bound_cuts
        self.split_bound_cuts = bool(split_bound_cuts)
        self.cache = (SubtreeCache(problem) if polishing or path_bound_cuts or split_bound_cuts
                      else None)
        self.path_cuts = None
        self.split_cuts = None
        self._rounded: set[tuple] = set()  # top structures already polished

    def model_size(self) -> ModelSize:
        """Size estimate of the master (8) before any cut; the min-cut dynamic program keeps
        a few samples x 2^(depth + 1) arrays, counted as nonzeros."""
        p = self.p
        return self.structure_size() + ModelSize(p.n_samples, 0, 4 * p.n_samples * p.n_nodes)

    def build(self, m: ScipModel, deadline: Deadline | None = None) -> None:
        p = self.p
        # split model: b, w with (8.3), (8.4), (8.6), (8.7); leaf model: (3b)-(3g), w relaxed
        # except with the strengthened cuts (§5.1: fractional labels would beat binary ones)
        # and with fairness: fractional labels would meet a fairness row half-way
        binary = not self.leaf_model or self.strengthened_cuts or p.fairness is not None
        self.add_tree_structure(m, binary_labels=binary, deadline=deadline)
        # g_i (theta_i in [BendOCT]): sample i classified correctly      (8.5)
        # in blocks, asking the deadline: 150,000 at once took 1 s past a stopped search
        self.g = add_var_rows(m, (p.n_samples, 1), "C", deadline, ub=1.0, name="g",
                              obj=(p.correct_weight * p.weights)[:, None]).ravel()
        self.lazy = BendersCuts(self)
        # side constraints and fairness (issue #19): rows, and lazy parts in the one handler
        self.leaf_cuts = add_side_constraints(self, m)
        self.fair_cuts = add_fairness_rows(self, m)
        extra = [c for c in (self.leaf_cuts, self.fair_cuts) if c is not None]
        lazy = AllLazy(self.lazy, *extra) if extra else self.lazy
        m.set_lazy(lazy, fractional=self.fractional_cuts)  # (8.2) = (9)/(10)
        if self.eqp:  # [BendOCT] §5.3, with at most 1/4 of the time left
            h, g = self.eqp.split("-")
            self.eqp_rows = EqpInequalities(self, h, g, self.eqp_max_split)
            self.eqp_rows.add(m, None if deadline is None else deadline.share(0.25))
        if self.path_bound_cuts:  # [BendOCT] §5.4
            self.path_cuts = PathBoundCuts(self, self.cache, self.path_bound_cuts)
            m.add_separator(self.path_cuts.separate, "pathbound", permanent=True)
            self.add_root_bound(m)
        if self.split_bound_cuts:  # our extension of §5.4 (accel.split_bound)
            self.split_cuts = SplitBoundCuts(self, self.cache, deadline=deadline)
            root = self.split_cuts.root_row(deadline)
            if root is not None:  # the root LP bound is the optimum: presolve can be brief
                m.add_rows([root])
                m.skip_probing()
            if self.p.depth > 3:
                m.add_separator(self.split_cuts.separate, "splitbound", permanent=True)
        if self.path_bound_cuts or self.split_bound_cuts:
            # Cuts (24) and (SB) need integral paths: branch on the structure above the depth-2
            # subtrees first, top down (our choice; the paper leaves branching to the solver).
            for n in range(1, p.n_internal + 1):
                if n % 64 == 0:
                    check_deadline(deadline)
                h = height(p, n)
                if h > 2:
                    m.set_branch_priority(np.r_[self.b[n - 1], self.p_leaf[n - 1]], h)
        if self.polishing:  # [BendOCT] §5.2
            m.add_heuristic(self.polish_lp_solution, "polishing")

    def add_root_bound(self, m: ScipModel) -> None:
        """Depth <= 2: the whole tree is one D2S subtree, so its optimum bounds the objective.

        This is cut (24) for the empty path (relax = 0), which Algorithm 2 does not visit.
        """
        if self.p.depth > 2:
            return
        result, idx = self.cache.solve((), 2)
        ids = np.r_[self.g[idx], self.p_leaf]
        coefs = np.r_[self.p.weights[idx], -self.cache.leaf_penalty * np.ones(len(self.p_leaf))]
        m.add_row(ids, coefs, rhs=float(result.score))

    def improve_start(self, tree: HeapTree, deadline: Deadline | None = None) -> HeapTree:
        """Polish a start tree ([BendOCT] §6.2) when polishing is on; at depth 3
        the split bounds also give the optimal tree, which replaces a worse start.
        ``deadline``: polishing, and the D2S subtrees of that optimal tree, raise
        :class:`TimeUp` once it has passed."""
        best = (self.split_cuts.best_root_tree(deadline) if self.split_cuts is not None
                else None)
        if best is not None and best.feasible(self.p):  # optimal: nothing to polish
            return best if best.objective(self.p) > tree.objective(self.p) + 1e-12 else tree
        return polish(self.p, tree, self.cache, deadline) if self.polishing else tree

    def polish_lp_solution(self, x: np.ndarray) -> list[np.ndarray]:
        """Algorithm 1 on the tree of an LP solution.

        Integral tree variables give the tree directly.  At a fractional solution the part
        above the depth-2 subtrees is rounded (each node branches on its largest b when the
        b's sum to at least 1/2) and D2S fills in the rest: this hands the optimal subtrees of
        the path-bound cuts back to the solver (§5.4.2, item 1).
        """
        b = x[self.b]
        bp = np.r_[b.ravel(), x[self.p_leaf]]
        if np.abs(bp - np.round(bp)).max(initial=0.0) <= 1e-6:
            tree = self.tree_from_values(x)
        else:
            top = np.array([height(self.p, n) > 2 for n in range(1, self.p.n_internal + 1)])
            split = np.where(top & (b.sum(axis=1) >= 0.5), b.argmax(axis=1), -1)
            key = tuple(split[top])
            if key in self._rounded:
                return []
            self._rounded.add(key)
            tree = HeapTree(split, x[self.w].argmax(axis=1))
        if not tree.feasible(self.p):  # a rounded tree may break a side constraint
            return []
        tree = polish(self.p, tree.pruned(self.p), self.cache)
        if tree.objective(self.p) <= self.m.incumbent_value() + 1e-9:
            return []
        return [self.start_values(tree)]

    def cut_row(self, i: int, P: np.ndarray, sibling: int | None = None) -> Row:
        """Cut (8.2) for sample i: g_i <= sum of the capacities of arcs leaving source side P.

        With ``sibling`` (strengthened cut (12) of [BendOCT] §5.1) the arc into
        that terminal node and its label w_{y_i} both get coefficient 1/2.
        """
        p = self.p
        xi = p.X[i]
        terms = [(np.array([self.g[i]]), -1.0)]
        nodes = np.flatnonzero(P) + 1
        terms.append((self.w[nodes - 1, p.y[i]], 1.0))  # sink arcs n -> t of source-side nodes
        for n in nodes[nodes <= p.n_internal]:
            for child, side in ((2 * n, 0), (2 * n + 1, 1)):
                if not P[child - 1]:  # arc n -> child cut: sum_{f: x_if = side} b_nf
                    weight = 0.5 if child == sibling else 1.0
                    terms.append((self.b[n - 1, xi == side], weight))
        if sibling is not None:
            terms.append((np.array([self.w[sibling - 1, p.y[i]]]), 0.5))
        ids = np.concatenate([t[0] for t in terms])
        coefs = -np.concatenate([np.full(len(t[0]), t[1]) for t in terms])
        return Row(ids, coefs, rhs=0.0)

    # ------------------------------------------------------------------ solutions
    def start_values(self, tree: HeapTree) -> np.ndarray:
        """Full solution vector (b, w, g and the EQP variables) for a given tree."""
        p = self.p
        x = self.structure_values(tree)
        stop = tree.terminal(p.X)
        x[self.g] = tree.label[stop - 1] == p.y
        if self.eqp_rows is not None:  # beta and G of the EQP rows, else the start breaks them
            self.eqp_rows.complete(x)
        if self.fair_cuts is not None:  # q of the fairness rows (more than two classes)
            self.fair_cuts.complete(x, tree)
        return x

    @property
    def stats(self) -> dict:
        out = {"integer_cuts": self.lazy.n_integer_cuts,
               "fractional_cuts": self.lazy.n_fractional_cuts}
        if self.strengthened_cuts:
            out["strengthened_cuts"] = self.lazy.n_strengthened
        if self.path_cuts is not None:
            out["path_bound_cuts"] = self.path_cuts.n_cuts
            if self.path_cuts.objective_form:  # (25), (26) and (24) assume the D2S subtree
                out["path_bound_form"] = "objective (24') only: side constraints"
        if self.split_cuts is not None:
            out["split_bound_cuts"] = self.split_cuts.n_cuts
            out["split_bound_skipped"] = self.split_cuts.n_skipped
        if self.eqp_rows is not None:
            out["eqp_sets"] = self.eqp_rows.n_sets
            out["eqp_sets_found"] = self.eqp_rows.n_found
        if self.cache is not None:
            out["d2s_calls"], out["d2s_cache_hits"] = self.cache.calls, self.cache.hits
        return {**out, **side_stats(self)}

    def correct_terms(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Row i's correctness as a linear expression: g_i."""
        return np.array([self.g[i]]), np.ones(1)

    def correct_values(self, x: np.ndarray) -> np.ndarray:
        return x[self.g]
