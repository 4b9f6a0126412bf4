"""The master problem of OMT ([OMT] eq. 1-2, §5) over the columns of the pool, in HiGHS::

    min  sum_j xi_j z_j + sum_i c_i s_i
    s.t. sum_j a_ij z_j + s_i = 1          (lambda_i)   every training unit i          (1)
         sum_j z_j <= l                     (mu)                                       (2)
         lo_m <= sum_j rho_mj z_j <= up_m   (tau_m)     linear rule constraints (§5)
         z in [0, 1] (LP) or binary (MIP), s >= 0

Each rule row has an artificial column with a large cost so the LP is always feasible.

Merged master (large data, >= ``merge_min_units`` units): on numeric data units barely merge,
and a master with one row per unit grows as units x columns (measured at 100k rows: ~100 bytes
per nonzero in HiGHS, 35 s LP re-solves at 10M nonzeros, 2.9 GB in the MIP).  Units covered by
exactly the same master columns have identical rows (1), so the master has one row per cover
pattern, with the summed slack cost; a row's dual is split over its units in proportion to
their slack costs, a valid dual of the unmerged restricted master (same LP value; tested).
Patterns multiply with the columns (20k rows: 2,700 patterns for 100 columns, all 20,000 for
600), so this mode keeps at most ``max_master_columns`` columns in the master (see
:meth:`MasterBuilder.drop_columns`) and rebuilds it after each pricing round.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..solvers.base import SolveResult, SolverOptions
from ..solvers.deadline import Deadline
from ..solvers.highs import HighsModel
from .constraints import RuleConstraint
from .metric import Metric
from .pool import ColumnPool


@dataclass
class MasterInfo:
    """Where things are in a master's HiGHS model.

    ``z[a]`` / ``j[a]``: HiGHS column and pool column of master column a; ``slack`` / ``art``:
    HiGHS columns of the slacks and of the artificials of the rule rows; ``cost``: the
    objective vector; ``rows``: number of coverage rows (1); merged mode: ``cls`` (row of each
    unit) and ``rep`` (one unit per row); ``n_row``: samples per coverage row."""

    rows: int
    n_row: np.ndarray
    cls: np.ndarray | None = None
    rep: np.ndarray | None = None
    slack: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    art: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    cost: np.ndarray = field(default_factory=lambda: np.zeros(0))
    z: list[int] = field(default_factory=list)
    j: list[int] = field(default_factory=list)


class MasterBuilder:
    """Builds, extends and (merged mode) trims the master over the columns of a pool."""

    def __init__(self, pool: ColumnPool, leaves: int, constraints: list[RuleConstraint],
                 seed: int, max_master_columns: int) -> None:
        self.pool = pool
        self.leaves = leaves
        self.constraints = constraints
        self.seed = seed
        self.max_master_columns = int(max_master_columns)

    def build(self, metric: Metric, penalty: float, deadline: Deadline | None = None
              ) -> tuple[HighsModel, MasterInfo]:
        """Master LP over all pool columns, or (merged mode) over the active ones with one
        row per cover pattern; ``penalty``: slack cost per sample.  ``deadline``: TimeUp
        once it passes while the columns are added (the caller keeps its last master)."""
        pool = self.pool
        P = len(pool.n_count)
        js = pool.active if pool.merged else list(range(len(pool)))
        info = MasterInfo(rows=P, n_row=pool.n_count)
        if pool.merged:
            info.cls, info.rep = self._patterns(js)
            info.rows = len(info.rep)
            info.n_row = np.bincount(info.cls, weights=pool.n_count, minlength=info.rows)
        R = info.rows
        m = HighsModel(SolverOptions(seed=self.seed, verbose=False))
        # measured: dual simplex re-solves these dense set-partitioning LPs far faster than
        # primal (kr-vs-kp d=4: 0.4 s vs 16 s)
        m.resolve_strategy = 1
        m.add_rows(np.ones(R), np.ones(R))                       # (1)
        m.add_rows([-math.inf], [float(self.leaves)])              # (2)
        if self.constraints:
            m.add_rows([c.lower for c in self.constraints], [c.upper for c in self.constraints])
        slack_cost = penalty * info.n_row
        info.slack = m.add_sparse_columns(slack_cost, np.arange(R, dtype=np.int32),
                                          np.arange(R, dtype=np.int32), np.ones(R))
        art, art_cost = [], []
        big = penalty * pool.n_count.sum() + 1.0
        for r, c in enumerate(self.constraints):
            row = R + 1 + r
            for bound, sign in ((c.upper, -1.0), (-c.lower, 1.0)):
                if bound < math.inf:
                    art.append(m.add_columns([big], [0.0], [math.inf], [[row]], [[sign]])[0])
                    art_cost.append(big)
        info.art = np.asarray(art, dtype=np.int64)
        info.cost = np.concatenate([slack_cost, art_cost])
        self.add_columns(m, info, metric, js, deadline=deadline)
        return m, info

    def _patterns(self, js: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """Units with the same cover pattern over columns ``js`` have identical rows (1): the
        pattern class of every unit and one unit per class."""
        P = len(self.pool.n_count)
        bits = np.zeros((P, max(1, (len(js) + 7) // 8)), dtype=np.uint8)
        for a, j in enumerate(js):
            bits[:, a // 8] |= self.pool.mask_of(j).astype(np.uint8) << np.uint8(a % 8)
        keys = np.ascontiguousarray(bits).view(np.dtype((np.void, bits.shape[1]))).ravel()
        _, rep, cls = np.unique(keys, return_index=True, return_inverse=True)
        return cls.ravel().astype(np.int64), rep

    def add_columns(self, m: HighsModel, info: MasterInfo, metric: Metric, js: list[int],
                    chunk_nnz: int = 2_000_000, deadline: Deadline | None = None
                    ) -> np.ndarray:
        """Add pool columns ``js`` to the master (in chunks of about ``chunk_nnz`` nonzeros,
        to bound the temporary arrays); returns their HiGHS columns.  ``deadline``: checked
        before every column (TimeUp; the master is then incomplete)."""
        added: list[np.ndarray] = []
        chunk: list[tuple[int, np.ndarray]] = []
        nnz = 0
        for j in js:
            if deadline is not None:
                deadline.check()
            rows = self._column_rows(j, info)
            chunk.append((j, rows))
            nnz += len(rows)
            if nnz >= chunk_nnz:
                added.append(self._add_chunk(m, info, metric, chunk, deadline))
                chunk, nnz = [], 0
        if chunk:
            added.append(self._add_chunk(m, info, metric, chunk, deadline))
        return np.concatenate(added) if added else np.zeros(0, dtype=np.int64)

    def _column_rows(self, j: int, info: MasterInfo) -> np.ndarray:
        """Coverage rows of pool column j: its units, or (merged) the classes it covers."""
        if info.cls is None:
            return self.pool.cover_of(j)
        return np.flatnonzero(self.pool.mask_of(j)[info.rep]).astype(np.int32)

    def _add_chunk(self, m: HighsModel, info: MasterInfo, metric: Metric,
                   chunk: list[tuple[int, np.ndarray]], deadline: Deadline | None = None
                   ) -> np.ndarray:
        """One sparse ``addCols`` call: column j = its coverage rows, row (2), rule rows."""
        R = info.rows
        extra_r = np.arange(R + 1, R + 1 + len(self.constraints), dtype=np.int32)
        cost, idx, vals, starts = [], [], [], [0]
        for j, rows in chunk:
            if deadline is not None:
                deadline.check()
            steps = self.pool.steps[j]
            cost.append(self.pool.cost(metric, j))
            extra_v = [c.rho(steps) for c in self.constraints]
            idx.append(np.concatenate([rows, [R], extra_r]).astype(np.int32))
            vals.append(np.concatenate([np.ones(len(rows)), [1.0], extra_v]))
            starts.append(starts[-1] + len(idx[-1]))
            info.j.append(j)
        cols = m.add_sparse_columns(np.asarray(cost), np.asarray(starts[:-1], np.int32),
                                    np.concatenate(idx), np.concatenate(vals))
        info.z += list(cols)
        info.cost = np.concatenate([info.cost, cost])
        return cols

    def unit_duals(self, duals: np.ndarray, info: MasterInfo | None) -> np.ndarray:
        """lambda per unit.  Merged rows: a row's dual split over its units in proportion
        to their slack costs -- a valid dual of the unmerged restricted master."""
        n_count = self.pool.n_count
        if info is None or info.cls is None:
            return duals[:len(n_count)]
        cls = info.cls
        return duals[cls] * n_count / info.n_row[cls]

    def drop_columns(self, info: MasterInfo, res: SolveResult, n_new: int) -> None:
        """Merged mode: keep at most ``max_master_columns`` master columns by dropping
        (never protected or LP-positive ones) those of largest reduced cost; a dropped
        column may return when it prices out again.  A heuristic memory / speed bound for
        large data (the paper lowers K there to stay within RAM)."""
        pool = self.pool
        excess = len(pool.active) + n_new - self.max_master_columns
        if excess <= 0:
            return
        z = np.asarray(info.z, dtype=np.int64)
        rc, vals = res.stats["reduced_costs"][z], res.values[z]
        ok = np.array([j not in pool.protected for j in info.j]) & (vals <= 1e-9)
        order = [a for a in np.argsort(-rc, kind="stable") if ok[a]][:excess]
        gone = {info.j[a] for a in order}
        for j in gone:
            pool.covers[j] = None
        pool.active = [j for j in pool.active if j not in gone]

    def extend(self, m: HighsModel, info: MasterInfo, metric: Metric, js: list[int],
               penalty: float, deadline: Deadline | None = None
               ) -> tuple[HighsModel, MasterInfo, np.ndarray]:
        """Add pool columns to the master: incrementally (warm re-solve), or in merged mode
        by rebuilding it (rows change); returns the master and the new HiGHS columns.  A
        rebuild raises TimeUp once ``deadline`` passes (0.46-0.96 s on default-credit, begun
        just before a 2 s limit); ``m`` and ``info`` are then unchanged and still match."""
        pool = self.pool
        if not pool.merged:
            return m, info, self.add_columns(m, info, metric, js)
        for j in js:
            if j not in pool.active:
                pool.active.append(j)
                if pool.covers[j] is None:
                    pool.covers[j] = pool.stored_cover(pool.pricer.cover(pool.steps[j]))
        m, info = self.build(metric, penalty, deadline)
        pos = {j: a for a, j in enumerate(info.j)}
        return m, info, np.asarray([info.z[pos[j]] for j in js], dtype=np.int64)
