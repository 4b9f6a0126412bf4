"""Exact pricing for RUG ([RUG] §3.3, PSP (8)) and the master's lower bound.

Rules are conjunctions of at most ``L`` literals from a fixed pool: for a numeric column
``x <= t`` and ``x > t`` at (by default ten) quantile thresholds t, for a categorical column
``x == v`` and ``x != v`` (the binarization with negations of §3.3 / Dash et al.).  For class k
and duals beta, covering sample i gains ``s_ik = beta_i * ahat_ik`` (1 if y_i = k, else
-1/(K-1), see :mod:`optrees.rug.costs`), and the pricing problem is

    max  sum_i s_ik a_i - lam * c(u)     over u in {0,1}^P (literals), 1 <= sum_p u_p <= L,

with ``a_i = prod_{p: x_ip = 0} (1 - u_p)`` (i is covered iff it satisfies every chosen
literal) and ``c(u)`` = the number of literals or 1.  The minimal reduced cost (5) is the
negative of the best value over the classes.  Two exact solvers:

* ``enumerate``: every conjunction of <= L literals, scored by matrix products (the scores of
  all pairs extending a fixed prefix are one ``M' diag(s * cover) M``); for small L and pools;
* ``milp``: (8) linearised on the distinct literal patterns r of the samples (samples with
  the same pattern are covered alike, so their gains add up to S_r):
  ``a_r <= 1 - u_p`` for p false on r when S_r > 0, and ``a_r >= 1 - sum_{p false on r} u_p``
  when S_r < 0; one HiGHS MILP per class covering every length 1..L at once (the paper solves
  one per length ell; taking the best over ell gives the same column).

Lower bound ([RUG] Prop. 2 is stated without its proof; we use Farley's bound, which
follows from LP duality and is valid for the master (3)): every master solution has
``lam * sum_j c_j w_j <= Z*`` and ``Z* >= Zbar + sum_j rc_j w_j >= Zbar + rmin * sum_j c_j w_j``
with ``rmin = min(0, min_j rc_j / c_j) >= min(0, min_j rc_j)`` (as c_j >= 1), hence
``Z* >= Zbar / (1 - rmin / lam)`` for lam > 0.  It bounds the master over the generated rules
together with every rule of the literal pool; it equals Zbar once pricing finds no column.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._numbers import short_threshold
from ..encoding.bins import bin_weights, weighted_quantile
from ..encoding.columns import RawColumns
from ..models.rule_set import Literal
from ..solvers.base import SolverOptions
from ..solvers.deadline import Deadline
from ..solvers.highs import HighsModel
from .budget import solve_by
from .costs import gains, reduced_cost, rule_cost


@dataclass
class LiteralPool:
    """Candidate literals and their truth matrix ``M`` (n x P, bool)."""

    literals: list[Literal]
    M: np.ndarray


def literal_pool(raw: RawColumns, n_thresholds: int = 10,
                 sample_weight: np.ndarray | None = None) -> LiteralPool:
    """Quantile thresholds (both directions) for numeric columns, ==/!= for categorical ones;
    with ``sample_weight`` weighted quantiles (integer weights: those of duplicated rows)."""
    lits: list[Literal] = []
    cols: list[np.ndarray] = []
    for name in raw.names:
        if name in raw.numeric:
            x = raw.numeric[name]
            levels = np.arange(1, n_thresholds) / n_thresholds
            if sample_weight is None:
                qs = np.unique(np.quantile(x, levels))
            else:
                order = np.argsort(x, kind="stable")
                qs = np.unique(weighted_quantile(x[order], bin_weights(sample_weight)[order],
                                                  levels))
            for t in qs[qs < x.max()]:
                t = short_threshold(t, raw.sorted_numeric(name))  # same rows, short text
                le = x <= t
                lits += [Literal(name, "<=", t), Literal(name, ">", t)]
                cols += [le, ~le]
        else:
            codes = raw.codes[name]
            cats = raw.categories[name]
            for k, v in enumerate(cats):
                eq = codes == k
                if len(cats) == 2 and k == 1:  # x != a is x == b: do not list it twice
                    break
                lits += [Literal(name, "==", v), Literal(name, "!=", v)]
                cols += [eq, ~eq]
    M = np.column_stack(cols) if cols else np.zeros((raw.n, 0), dtype=bool)
    return LiteralPool(lits, M)


class ExactPricer:
    """Callable pricer for :class:`~optrees.rug.generation.RuleGeneration`: the best rule of
    each class (exactly).

    After each call ``last_min_rc`` holds the minimal reduced cost over the pool (0 if every
    rule prices out non-negative); ``None`` if a time limit stopped a MILP early.
    """

    exact = True

    def __init__(self, raw: RawColumns, y: np.ndarray, n_classes: int, pen_par: float,
                 rule_length_cost: bool, max_length: int, method: str = "auto",
                 n_thresholds: int = 10, n_columns: int = 5, seed: int = 0,
                 deadline: Deadline | None = None,
                 sample_weight: np.ndarray | None = None) -> None:
        self.pool = literal_pool(raw, n_thresholds, sample_weight)
        self.y = np.asarray(y, dtype=np.int64)
        self.K = int(n_classes)
        self.lam = float(pen_par)
        self.length_cost = bool(rule_length_cost)
        self.L = int(max_length)
        P = len(self.pool.literals)
        if method == "auto":
            method = "enumerate" if P ** min(self.L, 3) <= 2_000_000 and self.L <= 3 else "milp"
        if method not in ("enumerate", "milp"):
            raise ValueError(f"exact pricing method must be 'enumerate' or 'milp', got {method!r}")
        if method == "enumerate" and self.L > 3:
            raise ValueError("enumeration pricing supports rules of at most 3 literals")
        self.method = method
        self.n_columns = n_columns
        self.seed = seed
        self.deadline = Deadline() if deadline is None else deadline
        self.last_min_rc: float | None = None
        self.n_calls = 0

    def cost(self, length: int) -> float:
        """c(u) of a conjunction of ``length`` literals."""
        return rule_cost(length, self.length_cost)

    def __call__(self, beta: np.ndarray) -> list[tuple[Literal, ...]]:
        """The best rules for duals ``beta`` (those of negative reduced cost, best first)."""
        self.n_calls += 1
        S = gains(self.y, np.asarray(beta, dtype=float), self.K)  # s_ik
        found: list[tuple[float, tuple[int, ...]]] = []
        complete = True
        for k in range(self.K):
            if self.method == "enumerate":
                found += self._enumerate(S[:, k])
            else:
                best = self._milp(S[:, k])
                if best is None:
                    complete = False
                else:
                    found.append(best)
        rcs = [rc for rc, _ in found]
        self.last_min_rc = (min(0.0, min(rcs)) if rcs else 0.0) if complete else None
        lits = self.pool.literals
        return [tuple(lits[p] for p in combo) for rc, combo in sorted(found) if rc < -1e-9]

    # ------------------------------------------------------------------ enumeration
    def _enumerate(self, s: np.ndarray) -> list[tuple[float, tuple[int, ...]]]:
        """The ``n_columns`` best conjunctions (by reduced cost) for gains s."""
        M = self.pool.M.astype(float)
        P = M.shape[1]
        best: list[tuple[float, tuple[int, ...]]] = []

        def keep(rc: np.ndarray, prefix: tuple[int, ...], first: int) -> None:
            # rc[q] for q >= first extends prefix by literal q
            if len(rc) <= first:
                return
            cand = rc[first:]
            take = np.argsort(cand, kind="stable")[: self.n_columns]
            best.extend((float(cand[q]), prefix + (first + int(q),)) for q in take)

        cost = [self.cost(n) for n in range(4)]
        keep(reduced_cost(self.lam, cost[1], s @ M), (), 0)  # length 1: gain = s @ M
        if self.L >= 2:
            G2 = M.T @ (s[:, None] * M)  # G2[p, q]: gain of (p AND q)
            for p in range(P - 1):
                keep(reduced_cost(self.lam, cost[2], G2[p]), (p,), p + 1)
            if self.L >= 3:
                for p in range(P - 2):
                    G3 = M.T @ ((s * M[:, p])[:, None] * M)  # gains of (p AND q AND r)
                    for q in range(p + 1, P - 1):
                        keep(reduced_cost(self.lam, cost[3], G3[q]), (p, q), q + 1)
        best.sort()
        return best[: self.n_columns]

    # ------------------------------------------------------------------ MILP (8)
    def _milp(self, s: np.ndarray) -> tuple[float, tuple[int, ...]] | None:
        M = self.pool.M
        P = M.shape[1]
        nz = np.abs(s) > 1e-12
        if not nz.any():
            return (self.lam * self.cost(1), (0,)) if P else None
        patterns, inv = np.unique(M[nz], axis=0, return_inverse=True)
        S = np.bincount(inv.ravel(), weights=s[nz], minlength=len(patterns))
        keep = np.abs(S) > 1e-12
        patterns, S = patterns[keep], S[keep]
        R = len(S)
        m = HighsModel(SolverOptions(seed=self.seed), maximize=True)
        # rows first (columns fill them): per pattern the coverage rows, then the length row
        pos = np.flatnonzero(S > 0)
        neg = np.flatnonzero(S < 0)
        false_pos = [np.flatnonzero(~patterns[r]) for r in pos]
        n_pos_rows = int(sum(len(f) for f in false_pos))
        rows_pos = m.add_rows([-math.inf] * n_pos_rows, [1.0] * n_pos_rows)  # a_r + u_p <= 1
        rows_neg = m.add_rows([1.0] * len(neg), [math.inf] * len(neg))  # a_r + sum u_p >= 1
        row_len = m.add_rows([1.0], [float(self.L)])[0]
        # column entries
        u_rows: list[list[int]] = [[] for _ in range(P)]
        u_vals: list[list[float]] = [[] for _ in range(P)]
        a_rows: list[list[int]] = [[] for _ in range(R)]
        k = 0
        for r, fp in zip(pos, false_pos, strict=True):
            for p in fp:
                u_rows[p].append(int(rows_pos[k]))
                u_vals[p].append(1.0)
                a_rows[r].append(int(rows_pos[k]))
                k += 1
        for j, r in enumerate(neg):
            a_rows[r].append(int(rows_neg[j]))
            for p in np.flatnonzero(~patterns[r]):
                u_rows[p].append(int(rows_neg[j]))
                u_vals[p].append(1.0)
        for p in range(P):
            u_rows[p].append(int(row_len))
            u_vals[p].append(1.0)
        u_cost = -self.lam if self.length_cost else 0.0
        u = m.add_columns([u_cost] * P, [0.0] * P, [1.0] * P, u_rows, u_vals)
        a = m.add_columns(list(S), [0.0] * R, [1.0] * R, a_rows,
                          [[1.0] * len(rows) for rows in a_rows])
        m.set_integer(np.r_[u, a])
        res = solve_by(m, self.deadline)
        if res.status != "optimal" or res.values is None:
            return None
        chosen = tuple(int(p) for p in np.flatnonzero(res.values[u] > 0.5))
        constant = 0.0 if self.length_cost else self.lam
        return (-(float(res.objective) - constant), chosen)


def farley_bound(restricted: float, min_rc: float | None, pen_par: float) -> float | None:
    """Lower bound on the master (3) over all rules from the exact min reduced cost and a
    lower bound ``restricted`` on the restricted master given by the same duals (its value
    when they are optimal): the duals scaled by 1 / (1 - min_rc / lam) are feasible."""
    if min_rc is None or not math.isfinite(restricted):
        return None
    if min_rc >= 0:
        return restricted
    if pen_par <= 0:
        return None  # weights are unbounded without a rule cost
    return restricted / (1.0 - min_rc / pen_par)
