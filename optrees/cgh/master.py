"""CGH's restricted master ([CGH] §4.1, eq. 1-6) with HiGHS, and the ways
an integer tree is read from its solutions (§6).

The master (maximize):
    (1) max  sum_p CP(p) x_p
    (2) sum_{p in DP_l} x_p = 1                              for every leaf l
    (3) sum_{p: r in R^l(p)} x_p = 1                         for every row (group) r
    (4) sum_{p in DP_l(j): s(j) = a} x_p - rho_{j,a} = 0     for l, j on the path of l, a in S_j
    (5)-(6) x, rho binary (LP: x >= 0, rho >= 0)
"""

from __future__ import annotations

import numpy as np

from ..solvers.base import SolveResult, SolverOptions
from ..solvers.deadline import Deadline
from ..solvers.highs import HighsModel
from .paths import Duals, PathSpace
from .sampling import PASS

INT_TOL = 1e-6
PRESOLVE_SECONDS_PER_NONZERO = 2e-5
"""What the master MIP's presolve may take (measured: up to 0.65 s for 65,536 nonzeros
without probing and aggregator, 1e-5 s each; twice that for a loaded machine)."""


class Master:
    """Restricted master LP (eq. 1-6) with HiGHS; columns are decision paths."""

    def __init__(self, space: PathSpace, deadline: Deadline, seed: int = 0,
                 verbose: bool = False) -> None:
        """Rows (2)-(4) and the rho columns; :class:`TimeUp` when ``deadline`` passes while
        they are set up (depth 12: seconds)."""
        self.space = space
        sp = space
        self.model = HighsModel(SolverOptions(seed=seed, verbose=2 if verbose else 0),
                                maximize=True)
        nL, G = sp.n_leaves, sp.n_groups
        self.row_group0 = nL
        self.row_agree0 = nL + G
        n_rows = nL + G + sp.n_agree
        self.model.add_rows([1.0] * (nL + G) + [0.0] * sp.n_agree,
                            [1.0] * (nL + G) + [0.0] * sp.n_agree)
        assert self.model.n_rows == n_rows
        # rho_{j,a}: -1 in the agreement row (l, j, a) of every leaf l below j   (4), (6)
        self.rho_cols: dict[int, np.ndarray] = {}
        for j in sorted(sp.node_ids):
            if j % 64 == 0:  # depth 12: 4,095 nodes, each a scan of the 4,096 leaves
                deadline.check()
            h = int(np.floor(np.log2(j)))
            below = np.flatnonzero(sp.anc[:, h] == j)
            size = len(sp.node_ids[j])
            rows = [self.row_agree0 + sp.agree_base[below, h] + a for a in range(size)]
            vals = [-np.ones(len(below))] * size
            self.rho_cols[j] = self.model.add_columns([0.0] * size, [0.0] * size,
                                                      [np.inf] * size, rows, vals)
        self.col_leaf: list[int] = []
        self.col_pos: list[np.ndarray] = []
        self.col_index: list[int] = []
        self.keys: dict[tuple, int] = {}
        self.last: SolveResult | None = None
        self.last_optimal: SolveResult | None = None

    @property
    def n_paths(self) -> int:
        return len(self.col_leaf)

    def add_paths(self, leaf: np.ndarray, pos: np.ndarray) -> int:
        """Add decision paths (skipping known ones); returns how many were new."""
        sp = self.space
        leaf = np.asarray(leaf, dtype=np.int64)
        pos = np.asarray(pos, dtype=np.int64).reshape(len(leaf), sp.depth)
        keep = []
        for b in range(len(leaf)):
            key = (int(leaf[b]), *map(int, pos[b]))
            if key not in self.keys:
                self.keys[key] = -1
                keep.append(b)
        if not keep:
            return 0
        leaf, pos = leaf[keep], pos[keep]
        reached = sp.reached(leaf, pos)
        cp = (reached.astype(np.float64) @ sp.cnt).max(axis=1)
        rows, vals = [], []
        for b in range(len(leaf)):
            r = np.concatenate([
                [leaf[b]],  # (2)
                self.row_group0 + np.flatnonzero(reached[b]),  # (3)
                self.row_agree0 + sp.agree_base[leaf[b]] + pos[b],  # (4)
            ])
            rows.append(r)
            vals.append(np.ones(len(r)))
        cols = self.model.add_columns(cp, [0.0] * len(leaf), [np.inf] * len(leaf), rows, vals)
        for b, c in enumerate(cols):
            self.keys[(int(leaf[b]), *map(int, pos[b]))] = int(c)
            self.col_leaf.append(int(leaf[b]))
            self.col_pos.append(pos[b])
            self.col_index.append(int(c))
        return len(leaf)

    def solve(self, deadline: Deadline) -> SolveResult:
        """Solve the LP (or, after :meth:`make_integer`, the MIP) within ``deadline``."""
        self.last = self.model.solve(deadline)
        if self.last.status == "optimal":
            self.last_optimal = self.last
        return self.last

    def lp_solution(self) -> tuple[np.ndarray, float, bool] | None:
        """Values and objective of the last LP solved to optimality (None: none was), with
        zeros for the paths added since, which keeps them a solution of the grown master (so
        a last LP cut short by the deadline does not cost the paths' MIP), and whether no
        path was added since (the values are then an optimum of the current master)."""
        res = self.last_optimal
        if res is None or res.values is None:
            return None
        values = np.zeros(self.model.n_cols)
        values[:len(res.values)] = res.values
        return values, float(res.objective), len(res.values) == self.model.n_cols

    def make_integer(self, start: dict[int, int], seconds: float = np.inf) -> None:
        """Turn the path columns integer (§6), with the tree ``start`` as a MIP start, for a
        MIP of ``seconds``: without probing or aggregator, and without presolve when
        ``seconds`` cannot pay for it.  HiGHS's presolve does not look at the time limit
        (1,500 rows, 6 classes, depth 3: a master MIP given 0.2 s presolved for 1.3 s, for
        0.4-0.65 s without those two rules)."""
        self.model.skip_probing()
        self.model.skip_aggregator()
        if seconds < PRESOLVE_SECONDS_PER_NONZERO * self.model.n_nonzeros:
            self.model.skip_presolve()
        self.model.set_integer(self.col_index)
        self.model.set_start(self.tree_start(start))

    def duals(self) -> Duals:
        y = self.last.stats["duals"]
        return Duals(alpha=y[: self.row_group0], beta=y[self.row_group0: self.row_agree0],
                     gamma=y[self.row_agree0:])

    def path_values(self, values: np.ndarray) -> np.ndarray:
        return values[np.asarray(self.col_index, dtype=np.int64)]

    def tree_start(self, choice: dict[int, int]) -> np.ndarray:
        """Full column vector of a tree whose paths are all columns of the master."""
        sp = self.space
        v = np.zeros(self.model.n_cols)
        paths = sp.tree_paths(choice)
        for i in range(sp.n_leaves):
            v[self.keys[(i, *map(int, paths[i]))]] = 1.0
        for j, cols in self.rho_cols.items():
            v[cols[choice[j]]] = 1.0
        return v


def round_lp(space: PathSpace, master: Master, values: np.ndarray) -> dict[int, int]:
    """Top-down rounding of rho: at each node the largest rho not used by an ancestor."""
    choice: dict[int, int] = {}
    for j in sorted(space.node_ids):
        rho = values[master.rho_cols[j]].copy()
        anc, a = j // 2, []
        while anc >= 1:
            a.append(int(space.node_ids[anc][choice[anc]]))
            anc //= 2
        ids = space.node_ids[j]
        rho[np.isin(ids, [s for s in a if s != PASS])] = -np.inf
        choice[j] = int(np.argmax(rho))
    return choice


def choice_from_paths(space: PathSpace, master: Master, x: np.ndarray) -> dict[int, int]:
    """Tree (node -> position) from an integral master solution."""
    choice: dict[int, int] = {}
    for c in np.flatnonzero(x > 0.5):
        leaf, pos = master.col_leaf[c], master.col_pos[c]
        for h, j in enumerate(space.anc[leaf]):
            choice.setdefault(int(j), int(pos[h]))
    return choice

