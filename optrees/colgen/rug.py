"""RUG / FairRUG: rule generation by column generation (rug-rule-generation.txt, §3).

Master LP (3), with the vector encoding (1) and kappa = (K-1)/K::

    min  lam * sum_j c_j w_j + sum_i v_i
    s.t. sum_j ahat_ij w_j + v_i >= 1      (beta_i)             i in I
         w >= 0, v >= 0

where ``ahat_ij = kappa * a_ij * R_j(x_i)' y_i``, which is 1 when rule j covers i and predicts
its class, ``-1/(K-1)`` when it covers i and predicts another class, 0 when it does not cover i.
The reduced cost (5) of a rule is ``lam * c_j - sum_i beta_i ahat_ij``.

Pricing (§3.4, proxy PSP): a scikit-learn decision tree of depth ``max_depth`` fitted with
``sample_weight = beta`` (Lemma 1: beta_i > 0 only for samples with positive slack or on the
margin); every leaf is a rule (conjunction of the path's conditions on the raw features) and
every leaf rule with negative reduced cost enters the pool.  A leaf's class is chosen to
minimize its reduced cost, i.e. the beta-weighted majority class of the samples it covers.
Any other pricer (e.g. exhaustive enumeration in the tests) can be passed in.

Fairness (§3.5): constraints on the group means of ``v`` -- DMC (11)-(12) per class and pair
of groups, ODM (15)-(16) per pair of groups, EOP = DMC on the positive class only.  They involve
only ``v``, so reduced costs keep the form (5) with the new duals.  The LP is always feasible
(``w = 0, v = 1`` satisfies every cap ``epsilon >= 0``), so an infeasible epsilon cannot occur.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.tree import DecisionTreeClassifier

from .._logging import progress
from .._validation import OptreesInputError
from ..models.rule_set import Literal, Rule, simplify_literals
from ..solvers.base import SolveResult, SolverOptions
from ..solvers.highs import BASIS_BASIC, BASIS_LOWER, BASIS_UPPER, INF, HighsModel
from .rug_exact import farley_bound

RC_TOL = 1e-9
INTERIOR_TOL = 1e-4
"""Optimality tolerance of interior-point master solves (ruleopt's): stopping there, short of
the optimum, spreads weight over many rules (adult: 79 rules; 34 at 1e-6, 20 at 1e-8 = simplex)."""
INTERIOR_ZERO = 1e-6
"""Rule weights and per-sample duals below this are zero after an interior-point solve."""
INTERIOR_GAP = 1e-3
"""An interior-point master solve counts as optimal at this certified relative gap (measured
on adult: 4e-6 to 6e-5); beyond it simplex solves the LP."""


# --------------------------------------------------------------------------- raw data
class RawColumns:
    """The raw table, ready for fast literal evaluation and for scikit-learn trees.

    Numeric columns are used as they are; categorical (non-numeric) columns are one-hot
    encoded for the pricing tree, and a split ``[col = v] <= 0.5`` reads back as ``col != v``.
    """

    def __init__(self, df: pd.DataFrame) -> None:
        self.names = [str(c) for c in df.columns]
        self.n = len(df)
        self.numeric: dict[str, np.ndarray] = {}
        self.codes: dict[str, np.ndarray] = {}
        self.categories: dict[str, list] = {}
        blocks: list[np.ndarray] = []
        self.encoded: list[tuple[str, str, object]] = []  # per encoded column: (col, kind, value)
        for name, col in zip(self.names, df.columns, strict=True):
            s = df[col]
            if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
                x = s.to_numpy(dtype=float)
                self.numeric[name] = x
                blocks.append(x[:, None])
                self.encoded.append((name, "num", None))
            else:
                obj = s.astype(object).to_numpy()
                cats = list(pd.unique(obj))
                try:
                    cats = sorted(cats)
                except TypeError:
                    pass
                index = {c: k for k, c in enumerate(cats)}
                codes = np.array([index[v] for v in obj], dtype=np.int64)
                self.codes[name] = codes
                self.categories[name] = cats
                onehot = np.zeros((self.n, len(cats)))
                onehot[np.arange(self.n), codes] = 1.0
                blocks.append(onehot)
                for c in cats:
                    self.encoded.append((name, "cat", c))
        self.matrix = np.hstack(blocks) if blocks else np.zeros((self.n, 0))

    def evaluate(self, lit: Literal) -> np.ndarray:
        if lit.op in ("<=", ">"):
            x = self.numeric[lit.feature]
            return x <= lit.value if lit.op == "<=" else x > lit.value
        cats = self.categories[lit.feature]
        try:
            code = cats.index(lit.value)
        except ValueError:
            eq = np.zeros(self.n, dtype=bool)
        else:
            eq = self.codes[lit.feature] == code
        return eq if lit.op == "==" else ~eq

    def mask(self, literals: Sequence[Literal]) -> np.ndarray:
        """Boolean mask of the samples satisfying every literal."""
        mask = np.ones(self.n, dtype=bool)
        for lit in literals:
            mask &= self.evaluate(lit)
        return mask

    def cover(self, literals: Sequence[Literal]) -> np.ndarray:
        """Indices of the samples satisfying every literal."""
        return np.flatnonzero(self.mask(literals))

    def encode_rows(self, raw: RawColumns, rows: np.ndarray) -> np.ndarray:
        """Rows of another table ``raw`` in this table's encoding (unseen categories -> 0):
        the matrix the pricing trees would see for them (used to score CART baselines)."""
        cols = []
        for name, kind, value in self.encoded:
            if kind == "num":
                cols.append(raw.numeric[name][rows])
            else:
                cats = raw.categories[name]
                code = cats.index(value) if value in cats else -1
                cols.append((raw.codes[name][rows] == code).astype(float))
        return np.column_stack(cols)

    def split_literal(self, j: int, threshold: float, left: bool) -> Literal:
        name, kind, value = self.encoded[j]
        if kind == "num":
            return Literal(name, "<=" if left else ">", float(threshold))
        return Literal(name, "!=" if left else "==", value)


def tree_leaf_rules(tree: DecisionTreeClassifier, raw: RawColumns) -> list[tuple[Literal, ...]]:
    """The conjunction of conditions on the path to each leaf (redundant conditions dropped)."""
    t = tree.tree_
    out: list[tuple[Literal, ...]] = []
    stack: list[tuple[int, tuple[Literal, ...]]] = [(0, ())]
    while stack:
        node, path = stack.pop()
        left, right = t.children_left[node], t.children_right[node]
        if left == -1:
            out.append(simplify_literals(path, raw.names))
            continue
        f, thr = int(t.feature[node]), float(t.threshold[node])
        stack.append((right, path + (raw.split_literal(f, thr, left=False),)))
        stack.append((left, path + (raw.split_literal(f, thr, left=True),)))
    return out


# --------------------------------------------------------------------------- fairness
@dataclass
class Fairness:
    """Fairness constraints on the master LP: kind in {'dmc', 'odm', 'eop'}, cap epsilon."""

    kind: str
    groups: np.ndarray  # group index per sample (0..G-1)
    epsilon: float
    positive: int = 1  # class index used by 'eop'
    group_names: list = field(default_factory=list)

    def sets(self, y: np.ndarray, K: int) -> list[tuple[str, list[np.ndarray]]]:
        """(label, [index set per group]) for each family of constraints (11)-(12) or (15)-(16)."""
        G = int(self.groups.max()) + 1
        names = self.group_names or list(range(G))
        if self.kind == "odm":
            return [("all", [np.flatnonzero(self.groups == g) for g in range(G)])]
        classes = range(K) if self.kind == "dmc" else [self.positive]
        out = []
        for k in classes:
            idx = [np.flatnonzero((self.groups == g) & (y == k)) for g in range(G)]
            empty = [names[g] for g in range(G) if len(idx[g]) == 0]
            if empty:
                raise OptreesInputError(
                    f"fairness='{self.kind}': group(s) {empty} have no training samples of "
                    f"class index {k}, so the error rate per class and group is undefined; "
                    f"merge groups, drop them, or use fairness='odm'"
                )
            out.append((f"class {k}", idx))
        return out


# --------------------------------------------------------------------------- master LP
class RUGMaster:
    """The restricted master LP (3) (+ fairness rows) over a growing pool of rules.

    Rows may stand for *cells* of identical samples (same label, same group, covered by the
    same rules): ``counts[i]`` samples share row i, its slack costs ``counts[i]`` and enters a
    fairness row with ``counts[i] / |I_set|``.  For a fixed ``w`` the optimal slacks of such
    samples are equal, so the aggregated LP has the same optimum, and ``beta_i / counts[i]`` is
    an optimal dual of the per-sample LP.

    :meth:`solve` without fairness hands HiGHS the dual of (3) (one row per rule, one bounded
    column per row of (3))::

        max  sum_i beta_i   s.t.  sum_i ahat_ij beta_i <= lam * c_j  (w_j),  0 <= beta <= counts

    whose basis has one row per rule instead of one per cell: dual simplex solves it several
    times faster than (3) on large data (w = its row duals, v = max(0, 1 - A w)).  With
    fairness rows ``F' v <= eps`` (``F_ir``: the coefficient of v_i in row r), every bound on
    beta_i becomes a row, so (3) is solved as it stands, warm-started from a given basis.
    Either way the result is reported in terms of (3): ``values`` indexed by ``v_cols`` /
    ``cols``, ``stats['duals']`` per row of (3) (cover rows, then fairness rows; HiGHS's sign
    convention) and ``stats['reduced_costs']`` per column of (3).
    """

    def __init__(self, y: np.ndarray, n_classes: int, pen_par: float,
                 fairness: Fairness | None = None, seed: int = 0,
                 counts: np.ndarray | None = None,
                 fair_sets: list[list[tuple[np.ndarray, int]]] | None = None,
                 interior: bool = False) -> None:
        self.y = np.asarray(y, dtype=np.int64)
        self.interior = interior
        self.n = len(self.y)
        self.K = int(n_classes)
        self.pen_par = float(pen_par)
        self.seed = seed
        self.counts = np.ones(self.n) if counts is None else np.asarray(counts, dtype=float)
        self.rows = np.arange(self.n)  # cover row i of (3)
        if fair_sets is None and fairness is not None:
            fair_sets = [[(idx, len(idx)) for idx in fam]
                         for _, fam in fairness.sets(self.y, self.K)]
        self.epsilon = 0.0 if fairness is None else float(fairness.epsilon)
        # fairness rows (11)/(15): mean_g v - mean_h v <= eps; (12)/(16) is the (h, g) row
        self.fair_rows: list[tuple[int, np.ndarray, np.ndarray]] = []
        f_samples, f_rows, f_vals = [], [], []
        for fam in fair_sets or []:
            for g, (ig, ng) in enumerate(fam):
                for h, (ih, nh) in enumerate(fam):
                    if g == h or ng == 0 or nh == 0:
                        continue
                    r = len(self.fair_rows)
                    self.fair_rows.append((self.n + r, ig, ih))
                    f_samples += [ig, ih]
                    f_rows += [np.full(len(ig), r), np.full(len(ih), r)]
                    f_vals += [self.counts[ig] / ng, -self.counts[ih] / nh]
        self.F = sp.csr_matrix((_cat(f_vals, float), (_cat(f_samples, np.int64),
                                                      _cat(f_rows, np.int64))),
                               shape=(self.n, len(self.fair_rows)))
        self.v_cols = np.arange(self.n)
        self.cols: list[int] = []
        self.cover: list[np.ndarray] = []
        self.labels: list[int] = []
        self.costs: list[float] = []

    def ahat(self, cover: np.ndarray, label: int) -> np.ndarray:
        """Entries ahat_ij of a rule on the samples it covers: 1 if correct, -1/(K-1) if not."""
        return np.where(self.y[cover] == label, 1.0, -1.0 / (self.K - 1))

    def best_label(self, cover: np.ndarray, beta: np.ndarray) -> tuple[int, float]:
        """Class minimizing the reduced cost of a rule with this coverage; returns (k, sum)."""
        w = np.bincount(self.y[cover], weights=beta[cover], minlength=self.K)
        total = w.sum()
        score = w - (total - w) / (self.K - 1)  # sum_i beta_i ahat_ij for each class
        k = int(np.argmax(score))
        return k, float(score[k])

    def reduced_cost(self, cover: np.ndarray, label: int, cost: float,
                     beta: np.ndarray) -> float:
        """(5): lam * c_j - sum_i beta_i ahat_ij."""
        return self.pen_par * cost - float(beta[cover] @ self.ahat(cover, label))

    def add(self, cover: np.ndarray, label: int, cost: float) -> int:
        """Add a rule column (the samples/cells it covers, its class, its cost c_j)."""
        col = self.n + len(self.cols)
        self.cols.append(col)
        self.cover.append(np.asarray(cover, dtype=np.int64))
        self.labels.append(int(label))
        self.costs.append(float(cost))
        return col

    def matrix(self) -> sp.csr_matrix:
        """The rule columns of (3) as a sparse (rules x rows) matrix of ahat_ij."""
        m = len(self.cols)
        lengths = np.fromiter((len(c) for c in self.cover), dtype=np.int64, count=m)
        indptr = np.concatenate([[0], np.cumsum(lengths)])
        if m == 0:
            return sp.csr_matrix((0, self.n))
        idx = np.concatenate(self.cover)
        label = np.repeat(np.asarray(self.labels, dtype=np.int64), lengths)
        vals = np.where(self.y[idx] == label, 1.0, -1.0 / (self.K - 1))
        return sp.csr_matrix((vals, idx, indptr), shape=(m, self.n))

    def solve(self, time_limit: float | None = None,
              basis: tuple[np.ndarray, np.ndarray] | None = None) -> SolveResult:
        """Solve (3); see the class docstring for what is returned.

        With fairness rows (3) is solved as it stands; ``basis`` (column and row statuses of
        that LP, HiGHS codes) then warm-starts it and ``stats['basis']`` returns the final one.
        ``interior``: interior point without crossover instead of simplex (no warm start).
        """
        solve = self._solve_primal if self.fair_rows else self._solve_dual
        res = solve(time_limit, basis)
        if self.interior and res.status == "unknown":
            # interior point stopped short of INTERIOR_GAP: simplex solves it exactly
            self.interior = False
            try:
                res = solve(None if time_limit is None else max(time_limit - res.seconds, 1e-3),
                            None)
            finally:
                self.interior = True
        return res

    def _solve_dual(self, time_limit: float | None,
                    basis: tuple[np.ndarray, np.ndarray] | None) -> SolveResult:
        """(3) without fairness rows, through its dual: max sum beta, A beta <= lam c."""
        n, m = self.n, len(self.cols)
        A = self.matrix()
        c = self.pen_par * np.asarray(self.costs, dtype=float)
        model = HighsModel(SolverOptions(seed=self.seed), maximize=True)
        model.add_sparse_columns(np.ones(n), upper=self.counts)
        model.add_sparse_rows(A, np.full(m, -INF), c)
        if self.interior:
            model.use_interior_point(INTERIOR_TOL)
        else:
            model.set_basis(basis)  # dual feasible after the new rows: solve by dual simplex
        res = model.solve(time_limit=time_limit)
        if res.values is None or "duals" not in res.stats:
            return SolveResult(res.status, None, None, res.seconds)
        beta = np.clip(res.values, 0.0, self.counts)
        w = np.maximum(res.stats["duals"], 0.0)  # HiGHS: >= 0 for a <= row of a max problem
        self._zero_noise(w, beta)
        v = np.maximum(1.0 - A.T @ w, 0.0)  # the optimal slacks for this w
        load = A @ beta  # sum_i ahat_ij beta_i per rule
        stats = {"duals": beta,
                 "reduced_costs": np.concatenate([self.counts - beta, c - load])}
        _store_basis(model, stats)
        return self._certified(res, v, w, beta, np.zeros(0), load, c, stats)

    def _zero_noise(self, w: np.ndarray, beta: np.ndarray) -> None:
        """After an interior-point solve, weights and per-sample duals below INTERIOR_ZERO are
        zero (in place): its values never are, and pricing trees skip zero-weight samples."""
        if self.interior:
            w[w < INTERIOR_ZERO] = 0.0
            beta[beta < INTERIOR_ZERO * self.counts] = 0.0

    def _certified(self, res: SolveResult, v: np.ndarray, w: np.ndarray, beta: np.ndarray,
                   mu: np.ndarray, load: np.ndarray, c: np.ndarray,
                   stats: dict) -> SolveResult:
        """The result with the objective of (v, w) in (3) and a lower bound from (beta, mu).

        ``beta`` (cover rows, in [0, counts]; ``load = ahat' beta`` per rule) and ``mu >= 0``
        (fairness rows) are scaled into the dual of (3) -- ``beta_i - (F mu)_i <= counts_i``,
        ``ahat_j' beta <= lam c_j`` -- so the bound ``theta sum(beta) - eps sum(mu)`` is valid
        whatever the solver's accuracy.  An interior-point solve (approximate) counts as
        optimal when the two agree to ``INTERIOR_GAP``; a simplex solve keeps HiGHS's status.
        """
        objective = float(c @ w + self.counts @ v)
        over = load > c
        theta = float(np.min(c[over] / load[over])) if over.any() else 1.0
        bound = theta * float(beta.sum()) - self.epsilon * float(mu.sum())
        status = res.status
        if self.interior and status in ("optimal", "unknown"):
            gap = (objective - bound) / max(1.0, abs(objective))
            status = "optimal" if gap <= INTERIOR_GAP else "unknown"
            stats["interior_gap"] = gap
        return SolveResult(status, objective, bound, res.seconds, 0,
                           np.concatenate([v, w]), stats)

    def _solve_primal(self, time_limit: float | None,
                      basis: tuple[np.ndarray, np.ndarray] | None) -> SolveResult:
        """(3) with fairness rows as it stands (columns v then w, rows cover then fairness)."""
        n, m, R = self.n, len(self.cols), len(self.fair_rows)
        A = self.matrix()
        c = self.pen_par * np.asarray(self.costs, dtype=float)
        model = HighsModel(SolverOptions(seed=self.seed))
        model.add_sparse_columns(np.concatenate([self.counts, c]))
        cover_rows = sp.hstack([sp.identity(n, format="csr"), A.T], format="csr")
        model.add_sparse_rows(cover_rows, np.ones(n), np.full(n, INF))
        fair_rows = sp.hstack([self.F.T, sp.csr_matrix((R, m))], format="csr")
        model.add_sparse_rows(fair_rows, np.full(R, -INF), np.full(R, self.epsilon))
        if self.interior:
            model.use_interior_point(INTERIOR_TOL)
        else:
            model.set_basis(basis, primal_feasible=True)  # new columns only: primal simplex
        res = model.solve(time_limit=time_limit)
        _store_basis(model, res.stats)
        if res.values is None or "duals" not in res.stats:
            return res
        v, w = res.values[:n], np.maximum(res.values[n:], 0.0)
        duals = res.stats["duals"]  # >= 0 on the cover rows, <= 0 on the fairness rows
        beta, mu = np.clip(duals[:n], 0.0, None), np.clip(-duals[n:], 0.0, None)
        beta = np.minimum(beta, self.counts + self.F @ mu)
        self._zero_noise(w, beta)
        res.stats["duals"] = np.concatenate([beta, -mu])  # the duals the bound is valid for
        return self._certified(res, v, w, beta, mu, A @ beta, c, res.stats)


def _store_basis(model: HighsModel, stats: dict) -> None:
    """Keep the final basis in ``stats['basis']`` for the next round's warm start."""
    basis = model.get_basis()
    if basis is not None:
        stats["basis"] = basis


def _cat(parts: list[np.ndarray], dtype: type) -> np.ndarray:
    """np.concatenate that accepts an empty list."""
    return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)


def _representatives(cell: np.ndarray, n_cells: int) -> np.ndarray:
    """The first sample of each cell."""
    first = np.full(n_cells, -1, dtype=np.int64)
    first[cell[::-1]] = np.arange(len(cell))[::-1]
    return first


# --------------------------------------------------------------------------- column generation
Pricer = Callable[[np.ndarray], Iterable[tuple[Literal, ...]]]


@dataclass
class RUGResult:
    rules: list[Rule]  # every rule in the pool, with its LP weight (0 if unused)
    objective: float
    n_rmp_calls: int
    status: str  # "converged" | "iteration_limit" | "time_limit"
    lp_status: str
    v: np.ndarray
    beta: np.ndarray
    history: list[float]
    master: RUGMaster
    reduced_costs: np.ndarray | None = None  # HiGHS's own, for the rule columns
    lower_bound: float | None = None  # on the master over every pool rule (exact pricing only)


class RuleGeneration:
    """Column generation for the master LP (3); tree pricing by default (§3.4).

    Each round the master LP is rebuilt over *cells*: samples with the same label and group
    that every rule of the pool covers alike.  This aggregation is exact (see
    :class:`RUGMaster`) and keeps the LP small on large data sets (rules come from shallow
    trees, so the cells are few); a cold dual simplex solve of the small LP (of its dual,
    without fairness) is cheaper than warm re-solves of the per-sample LP with its dense rule
    columns.  With fairness the last round's basis, mapped onto the new cells, warm-starts it.
    Cells are refined in place as rules enter (numbered in the order of their coverage keys).
    """

    def __init__(self, raw: RawColumns, y: np.ndarray, n_classes: int, *, max_depth: int = 3,
                 pen_par: float = 1.0, max_rmp_calls: int = 10, rule_length_cost: bool = True,
                 fairness: Fairness | None = None, random_state: int = 0,
                 pricer: Pricer | None = None, deadline: float | None = None,
                 interior: bool = False) -> None:
        self.raw = raw
        self.interior = interior
        self._tree_X = np.ascontiguousarray(raw.matrix, dtype=np.float32)  # sklearn's dtype
        self.y = np.asarray(y, dtype=np.int64)
        self.K = int(n_classes)
        self.pen_par = float(pen_par)
        self.max_depth = max_depth
        self.max_rmp_calls = max_rmp_calls
        self.rule_length_cost = rule_length_cost
        self.fairness = fairness
        self.random_state = random_state
        self.pricer = pricer
        self.deadline = deadline
        # sample-level fairness sets (validated once, up front)
        self._fair_sets = None if fairness is None else [fam for _, fam in
                                                         fairness.sets(self.y, self.K)]
        base = self.y.copy()
        if fairness is not None:
            base = base * (int(fairness.groups.max()) + 1) + fairness.groups
        self._cell_key = np.unique(base, return_inverse=True)[1].astype(np.int64)
        self._n_cells = int(self._cell_key.max()) + 1 if len(base) else 0
        self._n_trees = 0
        self._keys: set = set()
        self._masks: list[np.ndarray] = []
        self._literals: list[tuple[Literal, ...]] = []
        self._labels: list[int] = []
        self._costs: list[float] = []

    # ---------------------------------------------------------------- pricing helpers
    def cost(self, literals: tuple[Literal, ...]) -> float:
        """c_j: the rule length (at least 1) or 1."""
        return float(max(1, len(literals))) if self.rule_length_cost else 1.0

    def ahat(self, cover: np.ndarray, label: int) -> np.ndarray:
        return np.where(self.y[cover] == label, 1.0, -1.0 / (self.K - 1))

    def best_label(self, cover: np.ndarray, beta: np.ndarray) -> int:
        """The class minimizing the reduced cost (5) of a rule with this coverage."""
        w = np.bincount(self.y[cover], weights=beta[cover], minlength=self.K)
        return int(np.argmax(w - (w.sum() - w) / (self.K - 1)))

    def reduced_cost(self, cover: np.ndarray, label: int, cost: float,
                     beta: np.ndarray) -> float:
        """(5): lam * c_j - sum_i beta_i ahat_ij (per-sample duals beta)."""
        return self.pen_par * cost - float(beta[cover] @ self.ahat(cover, label))

    def tree_rules(self, sample_weight: np.ndarray | None) -> list[tuple[Literal, ...]]:
        # a new seed per round, as a new random tree (sklearn breaks ties between equally
        # good splits by a seeded feature order; one seed repeats the same choice each round)
        self._n_trees += 1
        tree = DecisionTreeClassifier(max_depth=self.max_depth,
                                      random_state=self.random_state + self._n_trees)
        X, y, weight = self._tree_X, self.y, sample_weight
        if weight is not None:  # samples of zero weight change no split: leave them out
            rows = np.flatnonzero(weight > 0)
            X, y, weight = X[rows], y[rows], weight[rows]
        tree.fit(X, y, sample_weight=weight)
        return tree_leaf_rules(tree, self.raw)

    def _remaining(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.perf_counter()

    def _add_candidates(self, candidates: Iterable[tuple[Literal, ...]], beta: np.ndarray,
                        require_negative: bool) -> int:
        added = 0
        for lits in candidates:
            mask = self.raw.mask(lits)
            cover = np.flatnonzero(mask)
            if len(cover) == 0:
                continue
            # sum_i beta_i ahat_ij for each class; the best class minimizes (5)
            w = np.bincount(self.y[cover], weights=beta[cover], minlength=self.K)
            score = w - (w.sum() - w) / (self.K - 1)
            label = int(np.argmax(score))
            key = (lits, label)
            if key in self._keys:
                continue
            c = self.cost(lits)
            if require_negative and self.pen_par * c - float(score[label]) >= -RC_TOL:
                continue
            self._keys.add(key)
            self._literals.append(lits)
            self._masks.append(mask)
            self._labels.append(label)
            self._costs.append(c)
            self._refine(mask)
            added += 1
        return added

    def _refine(self, mask: np.ndarray) -> None:
        """Split every cell by a new rule's coverage (cells stay numbered in key order)."""
        key = self._cell_key * 2 + mask
        present = np.zeros(2 * self._n_cells, dtype=bool)
        present[key] = True
        ids = np.cumsum(present) - 1
        self._cell_key = ids[key]
        self._n_cells = int(ids[-1]) + 1

    # ---------------------------------------------------------------- master over cells
    def build_master(self) -> tuple[RUGMaster, np.ndarray]:
        """The master LP over the current cells; returns it and the cell of each sample."""
        cell = self._cell_key
        n_cells = self._n_cells
        first = _representatives(cell, n_cells)
        counts = np.bincount(cell, minlength=n_cells).astype(float)
        fair_sets = None
        if self._fair_sets is not None:
            fair_sets = [[(np.unique(cell[idx]), len(idx)) for idx in fam]
                         for fam in self._fair_sets]
        master = RUGMaster(self.y[first], self.K, self.pen_par, self.fairness,
                           seed=self.random_state, counts=counts, fair_sets=fair_sets,
                           interior=self.interior)
        # a rule covers a whole cell or none of it: test the representatives
        for mask, label, c in zip(self._masks, self._labels, self._costs, strict=True):
            master.add(np.flatnonzero(mask[first]), label, c)
        return master, cell

    def _start_basis(self, prev: tuple | None, master: RUGMaster,
                     cell: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """Warm start for the master LP from the last round's optimal basis.

        ``prev`` = (cell of each sample, (column, row) statuses, number of rules, beta / counts
        per cell) of the last LP.  Every new cell lies inside one old cell ("parent"); its
        first part inherits the parent's statuses, and further parts are placed so that the
        count of basic variables stays right.  Old rules keep their status.

        * Dual form (no fairness; columns beta, rows rules): further parts of a basic beta go
          to the bound nearer its value, new rule rows get a basic slack.  With reduced costs
          unchanged (a part has the parent's entries in the old rows), the basis stays dual
          feasible and dual simplex re-solves it.
        * Primal form (fairness; columns v then w, rows cover then fairness): a further part
          has a basic v if the parent had a basic v at a tight row, else a basic row slack;
          new rules start at 0.
        """
        if prev is None:
            return None
        prev_cell, (col, row), m_prev, frac = prev
        m_new = len(master.cols)
        parent = prev_cell[_representatives(cell, master.n)]
        further = np.ones(master.n, dtype=bool)
        further[np.unique(parent, return_index=True)[1]] = False
        if not master.fair_rows:
            b_col = col[parent]
            split = further & (b_col == BASIS_BASIC)
            b_col[split] = np.where(frac[parent[split]] > 0.5, BASIS_UPPER, BASIS_LOWER)
            return b_col, np.concatenate([row, np.full(m_new - m_prev, BASIS_BASIC, dtype=np.int8)])
        n_prev = len(row) - len(master.fair_rows)
        v_col, v_row = col[:n_prev][parent], row[:n_prev][parent]
        tight_v = (v_col == BASIS_BASIC) & (v_row != BASIS_BASIC)
        v_col[further & ~tight_v] = BASIS_LOWER
        v_row[further & ~tight_v] = BASIS_BASIC
        w_col = np.concatenate([col[n_prev:n_prev + m_prev],
                                np.full(m_new - m_prev, BASIS_LOWER, dtype=np.int8)])
        return np.concatenate([v_col, w_col]), np.concatenate([v_row, row[n_prev:]])

    def run(self) -> RUGResult:
        n = len(self.y)
        t0 = time.perf_counter()
        ones = np.ones(n)
        initial = (self.pricer(ones) if self.pricer is not None else self.tree_rules(None))
        self._add_candidates(initial, ones, require_negative=False)
        calls = 0
        best = None  # (objective, w, v, beta, lp status, reduced costs, master)
        history: list[float] = []
        status = "iteration_limit"
        lower_bound = None
        prev = None  # the last LP's cells and basis (a warm start)
        while True:
            remaining = self._remaining()
            if remaining is not None and remaining <= 0 and best is not None:
                status = "time_limit"
                break
            master, cell = self.build_master()
            res = master.solve(time_limit=None if remaining is None else max(remaining, 1e-3),
                               basis=self._start_basis(prev, master, cell))
            calls += 1
            prev = None
            if "basis" in res.stats and "duals" in res.stats:
                frac = res.stats["duals"][: master.n] / master.counts
                prev = (cell, res.stats["basis"], len(master.cols), frac)
            if res.status != "optimal" or "duals" not in res.stats:
                if best is None and res.status == "time_limit":
                    # no LP solution in time: the initial tree's rules, each with weight 1
                    best = (math.nan, np.ones(len(self._masks)), np.full(n, math.nan),
                            np.zeros(n), res.status, None, master)
                if best is None:
                    raise RuntimeError(f"master LP failed with status {res.status!r}")
                status = "time_limit" if res.status == "time_limit" else res.status
                break
            vals = res.values
            cols = np.asarray(master.cols, dtype=int)
            w = vals[cols]
            v = vals[master.v_cols][cell]
            beta = (res.stats["duals"][: master.n] / master.counts)[cell]
            rc = res.stats["reduced_costs"][cols]
            best = (float(res.objective), w, v, beta, res.status, rc, master)
            lp_bound = float(res.bound)  # certified: valid for approximate (interior) duals
            history.append(float(res.objective))
            progress("RUG", time.perf_counter() - t0, round=calls,
                     LP=f"{res.objective:.6g}", rules=len(self._masks))
            if calls >= self.max_rmp_calls:
                status = "iteration_limit"
                break
            remaining = self._remaining()
            if remaining is not None and remaining <= 0:
                status = "time_limit"
                break
            beta_pos = np.clip(beta, 0.0, None)
            if beta_pos.sum() <= 1e-12:  # every rc = lam * c_j >= 0: the LP optimum is reached
                status = "converged"
                break
            cands = (self.pricer(beta_pos) if self.pricer is not None
                     else self.tree_rules(beta_pos))
            if getattr(self.pricer, "exact", False):
                lb = farley_bound(lp_bound, self.pricer.last_min_rc, self.pen_par)
                if lb is not None and (lower_bound is None or lb > lower_bound):
                    lower_bound = lb
            if self._add_candidates(cands, beta_pos, require_negative=True) == 0:
                status = "converged"
                break
        objective, w, v, beta, lp_status, rc, master = best
        rules = []
        for j, lits in enumerate(self._literals):
            weight = float(w[j]) if j < len(w) else 0.0
            rules.append(Rule(lits, self._labels[j], max(weight, 0.0), self._costs[j]))
        return RUGResult(rules, objective, calls, status, lp_status, v, beta, history,
                         master, rc, lower_bound)
