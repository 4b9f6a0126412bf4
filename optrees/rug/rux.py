"""The one solve function of RUX: RUG's master LP (3) solved once over an ensemble's leaves.

No column generation: every leaf of the ensemble (:mod:`optrees.rug.ensemble`) is a column
of (3) from the start, with the class of its training majority and a cost ``c_j``
(:data:`.costs.RULE_COSTS`), and one LP (with FairRUG's rows when asked) gives the weights.
Rows are aggregated into cells of identical samples (same label, group and leaves), which
:class:`~optrees.rug.master.RUGMaster` solves exactly; two leaves of the same class covering
the same training rows are one column (the cheaper: the LP's optimum is unchanged).
"""

from __future__ import annotations

import math
import time

import numpy as np
import scipy.sparse as sp

from ..models.result import FitResult
from ..models.rule_set import Rule, RuleSet
from ..solvers.base import SolveResult
from ..solvers.deadline import Deadline
from .costs import raw_leaf_costs
from .ensemble import LeafRules
from .fairness import Fairness
from .master import RUGMaster
from .rux_fair import FairRows
from .rux_start import Start, margins, training_error, vote_start
from .rux_unread import every_leaf_duals

FEASIBILITY_TOL = 1e-9
"""HiGHS's feasibility tolerance for RUX's LP: at its default (1e-7) the dual rows of pure
leaves (cost about 2e-8 after scaling) were exceeded by 4e-8, and the certified bound, the
duals scaled until every row holds, fell to a third of the optimum (breast-cancer: 1.08
against 3.23)."""


def solve_rux(leaves: LeafRules, y: np.ndarray, classes: np.ndarray, names: list[str],
              deadline: Deadline, *, pen_par: float = 1.0, rule_cost: str = "gini",
              fairness: Fairness | None = None, interior: bool = False, seed: int = 0,
              sample_weight: np.ndarray | None = None) -> FitResult:
    """Weights for the ``leaves`` (training rows ``y``, indices into ``classes``) from one
    solve of (3) by ``deadline``.

    The model is every distinct leaf as a :class:`RuleSet` with its LP weight (uncovered
    rows: the majority class); ``objective`` / ``bound`` are the LP value and HiGHS's
    certified lower bound; ``status`` the LP's status.  When the deadline passes before the
    LP is solved (while it is built, or HiGHS stops), the model is
    :func:`.rux_start.vote_start`'s (every leaf weighted alike and scaled, or the majority
    class; never above the majority class in (3) or in training error; with ``fairness``
    its slacks keep FairRUG's rows, :mod:`.rux_fair`), ``status``
    "time_limit" and ``bound`` its certified bound.  ``stats``: ``n_leaves`` (read),
    ``n_rules`` (distinct columns), ``n_cells`` (LP rows), ``lp_status`` ("not_started"
    when the LP was not), ``v`` (slack per row), ``start``: "lp", "vote" or "majority" (what
    the weights are).
    """
    t0 = time.perf_counter()
    y = np.asarray(y, dtype=np.int64)
    K, n = len(classes), len(y)
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    # everything below works on cells of alike rows (label, group, every leaf): (3) on the
    # cells, weighted by their rows' weights, is (3) on the rows (skin: 245,057 rows, a few
    # thousand cells; the n x leaves cover of the rows took most of a GB)
    cell, first = _cells(leaves.packed(), y, None if fairness is None else fairness.groups)
    W = np.bincount(cell, weights=w)
    yc = y[first]
    A = leaves.cover(first)  # cells x leaves
    mass = np.asarray(A.T @ (np.eye(K)[yc] * W[:, None]))  # m x K class weights
    labels = np.argmax(mass, axis=1)
    lengths = np.array([len(lits) for lits in leaves.literals], dtype=np.int64)
    raw = raw_leaf_costs(rule_cost, mass, lengths)
    read_max = float(raw.max()) if len(raw) else 1.0
    costs = raw / read_max  # divided by the largest: pen_par weighs the costliest rule
    default = int(np.argmax(np.bincount(y, weights=w, minlength=K)))
    keep = _distinct(A, labels, costs)
    kept = (A[:, keep], labels[keep])  # the LP's columns: their cover and classes
    # what a stopped fit returns; with fairness rows a scale whose slacks keep them
    fair = None if fairness is None else FairRows(
        [[np.unique(cell[idx]) for idx in fam] for _, fam in fairness.sets(y, K)], W,
        float(fairness.epsilon))
    start = vote_start(*kept, costs[keep], yc, W, K, pen_par, default, fair=fair)
    res = None
    if not deadline.expired():
        res = _solve_lp(kept, costs[keep], yc, W, K, pen_par, fairness,
                        _fair_sets(fairness, cell, y, w, K), interior, seed, deadline)
    n_cells = len(first)
    if fair is not None and res is not None and res.values is not None and \
            res.status != "optimal":
        res = _own_slacks(res, *kept, pen_par * costs[keep], yc, W, K, n_cells, fair)
    if res is not None and res.values is not None and (
            res.status == "optimal" or _better(res, start, *kept, yc, W, K, default, n_cells)):
        weights, v = res.values[n_cells:], res.values[:n_cells][cell]
        objective, how = float(res.objective), "lp"
        bound = -math.inf if res.bound is None or math.isnan(res.bound) else float(res.bound)
        status = res.status
        duals = res.stats.get("certificate")
    else:  # no LP solved in time: the vote of every leaf (or the majority class)
        weights, v, objective, how = start.weights, start.v[cell], start.objective, start.how
        bound, duals = start.bound, (start.duals, np.zeros(0))
        if res is not None and res.bound is not None and not math.isnan(res.bound) and \
                res.bound > bound:
            bound, duals = float(res.bound), res.stats.get("certificate")
        status = "time_limit" if deadline.expired() or res is None else res.status
    scope = None  # the bound is over every leaf of the ensemble
    if leaves.unread:  # the bound so far is over the leaves read: price the others
        eps = 0.0 if fairness is None else float(fairness.epsilon)
        bound, scope = _over_every_leaf(leaves, _per_row(duals, cell, w, W), eps, bound, y,
                                        w, K, pen_par, rule_cost, (leaves.cover(), labels, raw),
                                        deadline)
    rules = [Rule(leaves.literals[j], int(labels[j]), float(wj), float(costs[j]),
                  meta={"tree": leaves.origin[j][0], "node": leaves.origin[j][1]})
             for j, wj in zip(keep, weights, strict=True)]
    if deadline.stopped:
        status = "interrupted"
    stats = {"n_leaves": leaves.n_leaves, "n_rules": len(keep), "n_cells": n_cells,
             "lp_status": "not_started" if res is None else res.status, "v": v,
             "start": how, "bound_scope": scope}
    return FitResult(RuleSet(rules, classes, names, default), status, objective, bound,
                     time.perf_counter() - t0, stats)


def _per_row(duals: tuple[np.ndarray, np.ndarray] | None, cell: np.ndarray, w: np.ndarray,
             W: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """A dual solution of (3) on the cells (``beta`` per cell, ``mu``) spread over the
    rows in proportion to their weights (``W``: each cell's weight): a dual solution of (3)
    on the rows, of the same value; None stays None."""
    if duals is None:
        return None
    beta, mu = duals
    return beta[cell] * w / np.maximum(W[cell], 1e-300), mu


def _fair_sets(fairness: Fairness | None, cell: np.ndarray, y: np.ndarray, w: np.ndarray,
               K: int) -> list | None:
    """FairRUG's groups as the master LP takes them: per family, per group, its cells and
    its weight."""
    if fairness is None:
        return None
    return [[(np.unique(cell[idx]), float(w[idx].sum())) for idx in fam]
            for _, fam in fairness.sets(y, K)]


def _over_every_leaf(leaves: LeafRules, duals: tuple[np.ndarray, np.ndarray] | None,
                     eps: float, bound: float, y: np.ndarray, w: np.ndarray, K: int,
                     pen_par: float, rule_cost: str, read: tuple, deadline: Deadline
                     ) -> tuple[float, str | None]:
    """A bound over every leaf of the ensemble from the dual solution ``duals`` (per-row
    ``beta``, ``mu``; its value ``bound`` over the leaves read), its ``beta`` shrunk into the
    dual rows of the unread trees' leaves too (:mod:`.rux_unread`; ``read``: the read leaves'
    cover, classes and raw costs), and None; or, when ``deadline`` passes before they are
    priced, ``bound`` and what it is over."""
    beta = None if duals is None else every_leaf_duals(
        leaves.unread, leaves.X, y, w, K, duals[0], pen_par, rule_cost, *read, deadline)
    if beta is None:
        return bound, f"the leaves of the {leaves.n_read} of {leaves.n_trees} trees read in time"
    return max(0.0, float(beta.sum()) - eps * float(duals[1].sum())), None


def _own_slacks(res: SolveResult, A: sp.csc_matrix, labels: np.ndarray, c: np.ndarray,
                y: np.ndarray, w: np.ndarray, K: int, n_cells: int, fair: FairRows
                ) -> SolveResult:
    """A stopped LP's point with fairness rows, made honest: its weights with their own
    slacks ``max(0, 1 - margin)`` (cells ``A``) and (3)'s value there, or no point when
    those slacks break a fairness row.  A stopped simplex's point need not be feasible (a
    dual simplex's is not): its ``v`` may be under a cover row or break a fairness row, and
    its objective then is no value of (3)."""
    weights = np.maximum(res.values[n_cells:], 0.0)
    v = np.maximum(0.0, 1.0 - margins(A, labels, weights, y, K)[0])
    if not fair.holds(v):
        return SolveResult(res.status, None, res.bound, res.seconds, res.nodes, None,
                           res.stats)
    return SolveResult(res.status, float(c @ weights + w @ v), res.bound, res.seconds,
                       res.nodes, np.concatenate([v, weights]), res.stats)


def _better(res: SolveResult, start: Start, A: sp.csc_matrix, labels: np.ndarray,
            y: np.ndarray, w: np.ndarray, K: int, default: int, n_cells: int) -> bool:
    """Whether a stopped LP's point beats ``start`` in (3) without erring more on the
    training rows than the majority class."""
    if float(res.objective) > start.objective:
        return False
    V = margins(A, labels, res.values[n_cells:], y, K)[1]
    return training_error(V, y, w, default) <= float(w[y != default].sum())


def _solve_lp(kept: tuple[sp.csc_matrix, np.ndarray], costs: np.ndarray, yc: np.ndarray,
              W: np.ndarray, K: int, pen_par: float, fairness: Fairness | None,
              fair_sets: list | None, interior: bool, seed: int, deadline: Deadline
              ) -> SolveResult | None:
    """(3) over the kept leaves (their cover of the cells and classes, ``kept``; costs
    ``costs``) on the cells (classes ``yc``, weights ``W``), solved by ``deadline``; None
    when the deadline passes while the LP is built."""
    master = RUGMaster(yc, K, pen_par, fairness, seed=seed, counts=W,
                       fair_sets=fair_sets, interior=interior)
    master.feasibility_tol = FEASIBILITY_TOL
    # HiGHS's presolve does not look at the clock (credit, 3.5 million nonzeros: a solve
    # given 1.6 s ran 4.1 s, presolving); without it the LP stops at the deadline
    master.presolve = not deadline.limited
    covered, labels = kept
    for j in range(covered.shape[1]):
        cells = covered.indices[covered.indptr[j]:covered.indptr[j + 1]]
        master.add(cells, int(labels[j]), float(costs[j]))
        if j % 4096 == 4095 and deadline.expired():
            return None
    if deadline.expired():
        return None
    return master.solve(deadline)


def _distinct(A: sp.csc_matrix, labels: np.ndarray, costs: np.ndarray) -> np.ndarray:
    """Indices of one leaf per (training coverage, class), the cheapest (first on ties), for
    leaves covering rows as the columns of ``A``.  Leaves are grouped by class, row count
    and a random weighing of their rows, and each group's rows compared exactly."""
    A = sp.csc_matrix(A)
    A.sort_indices()
    m = A.shape[1]
    if m == 0:
        return np.zeros(0, dtype=np.int64)
    weighing = A.T @ np.random.default_rng(0).random(A.shape[0])  # equal rows: equal sums
    size = np.diff(A.indptr)
    order = np.lexsort((np.arange(m), costs, weighing, size, labels))
    key = np.column_stack([labels, size, weighing])[order]
    new = np.r_[True, (key[1:] != key[:-1]).any(axis=1)]
    head = order[np.maximum.accumulate(np.where(new, np.arange(m), 0))]  # group's first
    same = [bool(np.array_equal(A.indices[A.indptr[j]:A.indptr[j + 1]],
                                A.indices[A.indptr[h]:A.indptr[h + 1]]))
            for j, h in zip(order[~new], head[~new], strict=True)]
    if not all(same):  # two coverages weighed alike (never seen): compare them all exactly
        best: dict[tuple[bytes, int], int] = {}
        for j in order:
            best.setdefault((A.indices[A.indptr[j]:A.indptr[j + 1]].tobytes(),
                             int(labels[j])), int(j))
        return np.array(sorted(best.values()), dtype=np.int64)
    return np.sort(order[new]).astype(np.int64)


def _cells(packed: np.ndarray, y: np.ndarray, groups: np.ndarray | None
           ) -> tuple[np.ndarray, np.ndarray]:
    """Cell of each row (rows alike in label, group and every leaf; ``packed``: the rows'
    leaves as bits, :meth:`~.ensemble.LeafRules.packed`) and a row of each cell."""
    cols = [packed, y.astype(np.int64)[:, None].view(np.uint8)]
    if groups is not None:
        cols.append(np.asarray(groups, dtype=np.int64)[:, None].view(np.uint8))
    first, cell = _row_ids(np.hstack(cols))
    return cell, first


def _row_ids(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(first row of each distinct row of the byte matrix ``key``, id of each row's), ids in
    the rows' lexicographic order, as ``np.unique(key, axis=0)`` numbers them: each row is
    one opaque byte string, sorted 50 times faster (skin, 245,057 x 80 bytes: 0.2 s, 9.6 s)."""
    key = np.ascontiguousarray(key, dtype=np.uint8)
    rows = key.view(np.dtype((np.void, key.shape[1]))).ravel()
    _, first, ids = np.unique(rows, return_index=True, return_inverse=True)
    return first, ids.ravel()
