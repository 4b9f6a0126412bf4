"""The restricted master LP of RUG ([RUG] eq. (3)), its duals and a certified lower bound.

    min  lam * sum_j c_j w_j + sum_i v_i
    s.t. sum_j ahat_ij w_j + v_i >= 1      (beta_i)             i in I
         w >= 0, v >= 0

(``ahat_ij``: :mod:`optrees.rug.costs`), plus the fairness rows of §3.5
(:mod:`optrees.rug.fairness`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..solvers.base import SolveResult, SolverOptions
from ..solvers.deadline import Deadline
from ..solvers.highs import INF, HighsModel
from .budget import solve_by
from .certificate import REPAIR_PASSES, fair_duals, feasible_duals
from .costs import ahat, reduced_cost
from .fairness import Fairness, FairSets, fairness_rows

INTERIOR_TOL = 1e-4
"""Optimality tolerance of interior-point master solves (ruleopt's): stopping there, short of
the optimum, spreads weight over many rules (adult: 79 rules; 34 at 1e-6, 20 at 1e-8 = simplex)."""
INTERIOR_ZERO = 1e-6
"""Rule weights and per-sample duals below this are zero after an interior-point solve."""
INTERIOR_GAP = 1e-3
"""An interior-point master solve counts as optimal at this certified relative gap (measured
on adult: 4e-6 to 6e-5); beyond it simplex solves the LP."""


class RUGMaster:
    """The restricted master LP (3) (+ fairness rows) over a growing pool of rules.

    Rows may stand for *cells* of identical samples (same label, same group, covered by the
    same rules): ``counts[i]`` samples share row i, its slack costs ``counts[i]`` and enters a
    fairness row with ``counts[i] / |I_set|``.  For a fixed ``w`` the optimal slacks of such
    samples are equal, so the aggregated LP has the same optimum, and ``beta_i / counts[i]`` is
    an optimal dual of the per-sample LP (so is any split of ``beta_i`` over the cell's
    samples within their bounds: :func:`.generation.fill_duals` hands out a vertex's).

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
                 counts: np.ndarray | None = None, fair_sets: FairSets | None = None,
                 interior: bool = False) -> None:
        self.y = np.asarray(y, dtype=np.int64)
        self.interior = interior
        self.feasibility_tol: float | None = None  # HiGHS's primal feasibility (None: its own)
        self.presolve = True  # HiGHS's presolve (it does not stop at the time limit)
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
        pairs, self.F = fairness_rows(fair_sets, self.counts)
        # fairness row r of (3) is row n + r, over the rows of groups g and h
        self.fair_rows = [(self.n + r, ig, ih) for r, (ig, ih) in enumerate(pairs)]
        self.v_cols = np.arange(self.n)
        self.cols: list[int] = []
        self.cover: list[np.ndarray] = []
        self.labels: list[int] = []
        self.costs: list[float] = []

    def reduced_cost(self, cover: np.ndarray, label: int, cost: float,
                     beta: np.ndarray) -> float:
        """(5) of a rule covering rows ``cover`` for duals ``beta`` of these rows."""
        score = float(beta[cover] @ ahat(self.y[cover], label, self.K))
        return reduced_cost(self.pen_par, cost, score)

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
        vals = ahat(self.y[idx], label, self.K)
        return sp.csr_matrix((vals, idx, indptr), shape=(m, self.n))

    def solve(self, deadline: Deadline | None = None,
              basis: tuple[np.ndarray, np.ndarray] | None = None) -> SolveResult:
        """Solve (3) by ``deadline`` (None: no limit); see the class docstring for what is
        returned.

        With fairness rows (3) is solved as it stands; ``basis`` (column and row statuses of
        that LP, HiGHS codes) then warm-starts it and ``stats['basis']`` returns the final one.
        ``interior``: interior point without crossover instead of simplex (no warm start).
        """
        deadline = Deadline() if deadline is None else deadline
        solve = self._solve_primal if self.fair_rows else self._solve_dual
        res = solve(deadline, basis)
        if self.interior and res.status == "unknown":
            # interior point stopped short of INTERIOR_GAP: simplex solves it exactly
            self.interior = False
            try:
                res = solve(deadline, None)
            finally:
                self.interior = True
        return res

    def _solve_dual(self, deadline: Deadline,
                    basis: tuple[np.ndarray, np.ndarray] | None) -> SolveResult:
        """(3) without fairness rows, through its dual: max sum beta, A beta <= lam c."""
        n, m = self.n, len(self.cols)
        A = self.matrix()
        costs = np.asarray(self.costs, dtype=float)
        c = self.pen_par * costs
        model = HighsModel(SolverOptions(seed=self.seed), maximize=True)
        model.add_sparse_columns(np.ones(n), upper=self.counts)
        model.add_sparse_rows(A, np.full(m, -INF), c)
        if self.interior:
            model.use_interior_point(INTERIOR_TOL)
        else:
            model.set_basis(basis)  # dual feasible after the new rows: solve by dual simplex
            self._tolerance(model)
        res = solve_by(model, deadline)
        if res.values is None or "duals" not in res.stats:
            return SolveResult(res.status, None, None, res.seconds)
        beta = np.clip(res.values, 0.0, self.counts)
        w = np.maximum(res.stats["duals"], 0.0)  # HiGHS: >= 0 for a <= row of a max problem
        self._zero_noise(w, beta)
        v = np.maximum(1.0 - A.T @ w, 0.0)  # the optimal slacks for this w
        load = A @ beta  # sum_i ahat_ij beta_i per rule
        stats = {"duals": beta,
                 "reduced_costs": np.concatenate([self.counts - beta,
                                                  reduced_cost(self.pen_par, costs, load)])}
        _store_basis(model, stats)
        return self._certified(res, v, w, beta, np.zeros(0), A, c, stats)

    def _tolerance(self, model: HighsModel) -> None:
        """HiGHS's primal and dual feasibility tolerances of a simplex solve, when one is
        set, and no presolve when it is off.  (3) solved as it stands has the rules' dual
        rows as its reduced costs: its dual tolerance is what the primal one is to the dual
        LP of :meth:`_solve_dual`."""
        if self.feasibility_tol is not None:
            model.set_primal_feasibility(self.feasibility_tol)
            model.set_dual_feasibility(self.feasibility_tol)
        if not self.presolve:
            model.skip_presolve()

    def _zero_noise(self, w: np.ndarray, beta: np.ndarray) -> None:
        """After an interior-point solve, weights and per-sample duals below INTERIOR_ZERO are
        zero (in place): its values never are, and pricing trees skip zero-weight samples."""
        if self.interior:
            w[w < INTERIOR_ZERO] = 0.0
            beta[beta < INTERIOR_ZERO * self.counts] = 0.0

    def _certified(self, res: SolveResult, v: np.ndarray, w: np.ndarray, beta: np.ndarray,
                   mu: np.ndarray, A: sp.csr_matrix, c: np.ndarray,
                   stats: dict) -> SolveResult:
        """The result with the objective of (v, w) in (3) and a lower bound from (beta, mu).

        ``beta`` (cover rows) and ``mu`` (fairness rows) are made a solution of the dual of
        (3) (:mod:`.certificate`: within the ``v`` rows and signs, then shrunk into every
        rule's row of ``A``, the rules' ``ahat``), so the bound ``sum(beta) - eps sum(mu)``
        is valid whatever the solver's accuracy; that solution is ``stats['certificate']``.
        An interior-point solve (approximate) counts as optimal when the two agree to
        ``INTERIOR_GAP``; a simplex solve keeps HiGHS's status.
        """
        objective = float(c @ w + self.counts @ v)
        beta, mu = fair_duals(beta, mu, self.F, self.counts)
        best = None
        for passes in (0, REPAIR_PASSES):  # one scale, or shrinking first: the better
            ok = feasible_duals(A, c, beta, passes)
            bound = float(ok.sum()) - self.epsilon * float(mu.sum())
            if best is None or bound > best[0]:
                best = (bound, ok)
        bound, beta = best
        stats["certificate"] = (beta, mu)
        status = res.status
        if self.interior and status in ("optimal", "unknown"):
            gap = (objective - bound) / max(1.0, abs(objective))
            status = "optimal" if gap <= INTERIOR_GAP else "unknown"
            stats["interior_gap"] = gap
        return SolveResult(status, objective, bound, res.seconds, 0,
                           np.concatenate([v, w]), stats)

    def _solve_primal(self, deadline: Deadline,
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
            self._tolerance(model)
        res = solve_by(model, deadline)
        _store_basis(model, res.stats)
        if res.values is None or "duals" not in res.stats:
            return res
        v, w = res.values[:n], np.maximum(res.values[n:], 0.0)
        duals = res.stats["duals"]  # >= 0 on the cover rows, <= 0 on the fairness rows
        # within the v rows and signs (a stopped solve's beta_i - (F mu)_i may be over
        # counts_i even with beta_i = 0: mu is scaled down then, never beta made negative)
        beta, mu = fair_duals(duals[:n], -duals[n:], self.F, self.counts)
        self._zero_noise(w, beta)
        res.stats["duals"] = np.concatenate([beta, -mu])  # the duals the bound starts from
        return self._certified(res, v, w, beta, mu, A, c, res.stats)


def _store_basis(model: HighsModel, stats: dict) -> None:
    """Keep the final basis in ``stats['basis']`` for the next round's warm start."""
    basis = model.get_basis()
    if basis is not None:
        stats["basis"] = basis
