"""CGH: column-generation math-heuristic for classification trees (cgh-column-generation.txt).

Pipeline: threshold sampling (§5, :mod:`.cgh_sampling`) -> restricted master LP over decision
paths (§4.1, eq. 1-6, :class:`Master`) grown by pricing (§4.2, :mod:`.cgh_pricing`) -> integer
master over the generated columns when the LP is fractional (§6) -> :class:`BinaryTree`.

The master (maximize):
    (1) max  sum_p CP(p) x_p
    (2) sum_{p in DP_l} x_p = 1                              for every leaf l
    (3) sum_{p: r in R^l(p)} x_p = 1                         for every row (group) r
    (4) sum_{p in DP_l(j): s(j) = a} x_p - rho_{j,a} = 0     for l, j on the path of l, a in S_j
    (5)-(6) x, rho binary (LP: x >= 0, rho >= 0)
The paths of the CART tree on 100 % of the data are the first columns, so the master is
feasible from the start and the tree returned is never worse than CART on the training data.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .._logging import logger
from ..models.binary_tree import LEAF, BinaryTree
from ..solvers.base import SolverOptions
from ..solvers.highs import HighsModel
from .cgh_paths import Duals, PathSpace
from .cgh_pricing import (
    RandomPathPricer,
    enumerate_pricing,
    enumeration_size,
    milp_pricing,
)
from .cgh_sampling import PASS, SplitSets, threshold_sampling

__all__ = ["CGHResult", "CGHTimeout", "Master", "build_tree", "solve_cgh",
           "threshold_sampling"]

INT_TOL = 1e-6

# Largest depth: the master has a row per leaf and per (leaf, level, candidate split), and
# setting it up loops over the 2^depth - 1 nodes in Python.  kr-vs-kp with a 5 s limit: depth
# 12 finishes in 5.0 s; depth 14 needed 10.7 s to set up the first master LP, depth 20 ran
# minutes, depth 50 ended in a MemoryError.
MAX_CGH_DEPTH = 12
CGH_DEPTH_WHY = ("CGH's master has 2^depth leaves, each with a row per level and candidate "
                 "split, and is set up node by node")


class CGHTimeout(Exception):
    """The time limit ran out before the first master LP was solved; ``sets`` holds the
    sampled splits and ``cart`` (heap node -> split id) the CART tree CGH starts from."""

    def __init__(self, sets: SplitSets, cart: dict[int, int]) -> None:
        super().__init__("time limit before the first master LP")
        self.sets = sets
        self.cart = cart


def _check_time(deadline: float | None, sets: SplitSets) -> None:
    """Raise :class:`CGHTimeout` (the caller returns the CART start) past ``deadline``."""
    if deadline is not None and time.perf_counter() > deadline:
        raise CGHTimeout(sets, dict(sets.cart))


class Master:
    """Restricted master LP (eq. 1-6) with HiGHS; columns are decision paths."""

    def __init__(self, space: PathSpace, seed: int = 0, verbose: bool = False,
                 deadline: float | None = None) -> None:
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
                _check_time(deadline, sp.sets)
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
        self.last = None

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

    def solve(self, time_limit: float | None = None):
        self.last = self.model.solve(time_limit=time_limit)
        return self.last

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


@dataclass
class CGHResult:
    """Outcome of :func:`solve_cgh`. ``choice``: heap node -> global split id (PASS = none)."""

    choice: dict[int, int]
    objective: float
    lp_objective: float
    lp_integral: bool
    status: str  # "converged" | "heuristic" | "time_limit"
    lp_converged: bool
    sets: SplitSets
    stats: dict = field(default_factory=dict)


def _round_lp(space: PathSpace, master: Master, values: np.ndarray) -> dict[int, int]:
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


def _choice_from_paths(space: PathSpace, master: Master, x: np.ndarray) -> dict[int, int]:
    """Tree (node -> position) from an integral master solution."""
    choice: dict[int, int] = {}
    for c in np.flatnonzero(x > 0.5):
        leaf, pos = master.col_leaf[c], master.col_pos[c]
        for h, j in enumerate(space.anc[leaf]):
            choice.setdefault(int(j), int(pos[h]))
    return choice


def solve_cgh(
    X: np.ndarray,
    y: np.ndarray,
    n_classes: int,
    depth: int,
    *,
    alpha: float = 90.0,
    tau: int = 300,
    q_root: int | None = None,
    q_node: int | None = None,
    max_rounds: int | None = None,
    all_splits: bool = False,
    pool_size: int = 500,
    n_leaves_sampled: int = 200,
    n_columns: int = 100,
    local_search: int = 20,
    heuristic_retries: int = 5,
    exact_pricing: str = "auto",
    max_enumeration: int = 20_000_000,
    max_milp_groups: int = 2_000,
    large_rows: int = 5_000,
    max_iterations: int = 10_000,
    time_limit: float | None = None,
    sampling_fraction: float = 0.3,
    mip_fraction: float = 0.2,
    seed: int = 0,
    verbose: bool = False,
) -> CGHResult:
    """Run CGH on numeric X (n x F) and class indices y; see the module docstring.

    ``exact_pricing``: "enumerate", "milp", "none" or "auto" (enumeration when it costs at most
    ``max_enumeration`` path-group evaluations, else the MILP when there are at most
    ``max_milp_groups`` row groups and at most ``large_rows`` training rows, else none: the
    paper's switch for its large data sets, §7.3: over 10,000 rows, so over 5,000 training
    rows in its 50 % training splits).
    Without exact pricing the column generation stops when the heuristic finds nothing
    ``heuristic_retries`` times in a row (status "heuristic").  ``local_search``: how many of
    the best random paths per iteration are improved by coordinate ascent (0 = the paper's
    purely random heuristic).  Sampling stops at ``sampling_fraction`` of the time limit and
    column generation at ``1 - mip_fraction`` of it, so that the master MIP over the generated
    paths (§6) always gets time (before, a column generation that ran to the limit left none:
    the LP rounding was returned).
    """
    t0 = time.perf_counter()
    deadline = None if time_limit is None else t0 + time_limit
    sampling_deadline = None if time_limit is None else t0 + sampling_fraction * time_limit
    cg_deadline = None if time_limit is None else t0 + (1.0 - mip_fraction) * time_limit
    rng = np.random.default_rng(seed)

    def remaining(until: float | None = deadline) -> float | None:
        return None if until is None else max(0.0, until - time.perf_counter())

    def log(msg: str) -> None:
        logger.info(f"CGH      {time.perf_counter() - t0:7.1f}s  {msg}")

    sets = threshold_sampling(X, y, depth, alpha=alpha, tau=tau, q_root=q_root, q_node=q_node,
                              max_rounds=max_rounds, deadline=sampling_deadline, seed=seed,
                              all_splits=all_splits)
    # Until the first master LP is solved, the CART start is the only tree: past the
    # deadline return it (CGHTimeout) rather than finish setting up (depth 12: seconds).
    _check_time(deadline, sets)
    space = PathSpace(sets, y, n_classes)
    _check_time(deadline, sets)
    stats: dict = dict(sets.stats)
    stats["n_groups"] = space.n_groups
    log(f"sampling: {sets.stats['sampling_rounds']} rounds, {sets.stats['n_splits']} splits, "
        f"{space.n_groups} row groups")
    cart_choice = {j: space.position(j, sid) for j, sid in sets.cart.items()}
    t_eval = time.perf_counter()
    cart_objective = space.tree_objective(cart_choice)
    # what scoring one tree costs (depth 12: about 0.3 s); kept back from the master MIP
    t_eval = time.perf_counter() - t_eval
    stats["cart_objective"] = cart_objective

    if exact_pricing == "auto":
        if enumeration_size(space) <= max_enumeration:
            exact = "enumerate"
        elif space.n_groups <= max_milp_groups and len(y) <= large_rows:
            exact = "milp"
        else:
            exact = "none"
    elif exact_pricing in ("enumerate", "milp", "none"):
        exact = exact_pricing
    else:
        raise ValueError(f"exact_pricing must be auto/enumerate/milp/none, got {exact_pricing!r}")
    stats["exact_pricing"] = exact

    _check_time(deadline, sets)
    master = Master(space, seed=seed, verbose=int(verbose) >= 2, deadline=deadline)
    master.add_paths(np.arange(space.n_leaves), space.tree_paths(cart_choice))
    pricer = RandomPathPricer(space, rng, pool_size, n_leaves_sampled, n_columns, local_search)
    _check_time(deadline, sets)
    res = master.solve(remaining(cg_deadline))
    status, lp_converged = "heuristic", False
    iterations = fails = exact_calls = 0
    timed_out = res.status != "optimal"
    stop = "master" if timed_out else "max_iterations"
    while not timed_out and iterations < max_iterations:
        iterations += 1
        if cg_deadline is not None and time.perf_counter() >= cg_deadline:
            timed_out, stop = True, "deadline"
            break
        duals = master.duals()
        leaf, pos, rc = pricer.price(duals, master.keys)
        if len(leaf) == 0:
            fails += 1
            if fails < heuristic_retries:
                continue
            if exact == "none":
                stop = "heuristic"
                break
            exact_calls += 1
            if exact == "enumerate":
                found = enumerate_pricing(space, duals, n_columns, cg_deadline)
            else:
                order = rng.permutation(space.n_leaves)
                found = milp_pricing(space, duals, n_columns, cg_deadline, leaves=order,
                                     seed=seed, stop_early=True)
            if found is None:
                timed_out, stop = True, "exact_pricing"
                break
            leaf, pos, rc, best = found
            log(f"exact pricing ({exact}): best reduced cost {best:.4g}, {len(leaf)} columns")
            if len(leaf) == 0:
                stop = "converged"
                lp_converged = True
                status = "converged"
                break
            pricer.clear()
        fails = 0
        pricer.set_priority(leaf)
        master.add_paths(leaf, pos)
        res = master.solve(remaining(cg_deadline))
        if res.status != "optimal":
            timed_out, stop = True, f"master {res.status}"
            break
        if iterations % 20 == 0:
            log(f"iteration {iterations}  LP {res.objective:.6g}  paths {master.n_paths}")
    if timed_out:
        status = "time_limit"
    stats.update(stop=stop, iterations=iterations, exact_calls=exact_calls, n_paths=master.n_paths,
                 cg_seconds=time.perf_counter() - t0)

    # -------- §6: integer solution
    lp_values = master.last.values if master.last is not None else None
    lp_objective = float(master.last.objective) if lp_values is not None else cart_objective
    candidates = [cart_choice]
    lp_integral = False
    if lp_values is not None and master.last.status == "optimal":
        x = master.path_values(lp_values)
        lp_integral = bool(np.all(np.minimum(x, 1 - x) <= INT_TOL))
        if lp_integral:
            candidates.append(_choice_from_paths(space, master, x))
        else:
            rounded = _round_lp(space, master, lp_values)
            master.add_paths(np.arange(space.n_leaves), space.tree_paths(rounded))
            candidates.append(rounded)
    log(f"LP {lp_objective:.3f} (integral: {lp_integral}), CART {cart_objective:g}")
    scores = {0: cart_objective}  # candidate index -> objective: each tree is scored once

    def score(i: int) -> float:
        if i not in scores:
            scores[i] = space.tree_objective(candidates[i])
        return scores[i]

    best = candidates[max(range(len(candidates)), key=score)]
    mip_status = None
    if not lp_integral and lp_values is not None:
        # after the MIP one more tree is scored and the fitted tree built: keep time for it
        left = None if deadline is None else remaining() - 2.0 * t_eval
        if left is None or left > 0:
            model = master.model
            model.set_integer(master.col_index)
            model.set_start(master.tree_start(best))
            mres = model.solve(time_limit=left)
            mip_status = mres.status
            if mres.values is not None:
                candidates.append(_choice_from_paths(space, master,
                                                     master.path_values(mres.values)))
            if mres.status != "optimal":
                status = "time_limit"
            stats["mip_bound"] = mres.bound
            log(f"master MIP: {mres.status}, objective {mres.objective}, bound {mres.bound}")
        else:
            status = "time_limit"
    stats["mip_status"] = mip_status
    i_best = max(range(len(candidates)), key=score)
    best, objective = candidates[i_best], score(i_best)
    stats["seconds"] = time.perf_counter() - t0
    choice_ids = {j: int(space.node_ids[j][p]) for j, p in best.items()}
    return CGHResult(choice_ids, objective, lp_objective, lp_integral, status, lp_converged,
                     sets, stats)


def build_tree(
    choice: dict[int, int],
    sets: SplitSets,
    X: np.ndarray,
    y: np.ndarray,
    classes,
    feature_names=None,
    negated_names=None,
) -> BinaryTree:
    """BinaryTree of a heap split assignment: pass splits are dropped (their subtree on the
    left takes their place), sibling leaves with the same class are merged, and an empty leaf
    predicts the majority class of its nearest non-empty ancestor."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=np.int64)
    K = len(classes)
    n_leaf0 = 2**sets.depth
    feature, threshold, left, right, value = [], [], [], [], []

    def new(v: int) -> int:
        feature.append(LEAF)
        threshold.append(0.0)
        left.append(LEAF)
        right.append(LEAF)
        value.append(v)
        return len(feature) - 1

    def majority(rows: np.ndarray, fallback: int) -> int:
        if not rows.any():
            return fallback
        return int(np.argmax(np.bincount(y[rows], minlength=K)))

    def build(h: int, rows: np.ndarray, fallback: int) -> int:
        label = majority(rows, fallback)
        sid = choice.get(h, PASS) if h < n_leaf0 else None
        if sid is None:
            return new(label)
        if sid == PASS:
            return build(2 * h, rows, label)
        f, t = sets.table.feature[sid], sets.table.threshold[sid]
        go = X[:, f] <= t
        idx = new(label)
        lft = build(2 * h, rows & go, label)
        rgt = build(2 * h + 1, rows & ~go, label)
        if feature[lft] == LEAF and feature[rgt] == LEAF and value[lft] == value[rgt]:
            value[idx] = value[lft]
            del feature[idx + 1:], threshold[idx + 1:], left[idx + 1:], right[idx + 1:]
            del value[idx + 1:]
            return idx
        feature[idx], threshold[idx], left[idx], right[idx] = f, t, lft, rgt
        return idx

    build(1, np.ones(len(y), dtype=bool), majority(np.ones(len(y), dtype=bool), 0))
    tree = BinaryTree(feature, threshold, left, right, value, classes,
                      feature_names=feature_names, negated_names=negated_names)
    tree.set_counts(X, y)
    return tree
