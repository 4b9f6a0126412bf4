"""CGH pricing ([CGH] §4.2): find decision paths with positive reduced
cost (7).

* :class:`RandomPathPricer` - the randomized heuristic of §4.2.3 (pool C, n_l sampled leaves,
  n_c columns added, priority to leaves that produced positive columns);
* :func:`enumerate_pricing` - exact, by enumerating every path of every leaf (Prop. 3); only
  for small split sets;
* :func:`milp_pricing` - exact, the MILP DPP(l, t) (9)-(16) per leaf and target, with HiGHS.
"""

from __future__ import annotations

import numpy as np

from ..solvers.base import SolverOptions
from ..solvers.deadline import Deadline
from ..solvers.highs import HighsModel
from .paths import Duals, PathSpace
from .sampling import PASS

EPS = 1e-6


def _top(leaf: np.ndarray, pos: np.ndarray, rc: np.ndarray, limit: int):
    keep = rc > EPS
    leaf, pos, rc = leaf[keep], pos[keep], rc[keep]
    order = np.argsort(-rc, kind="stable")[:limit]
    return leaf[order], pos[order], rc[order]


class RandomPathPricer:
    """Randomized decision-path construction with a fixed-size pool of columns (§4.2.3)."""

    def __init__(self, space: PathSpace, rng: np.random.Generator, pool_size: int = 500,
                 n_leaves: int = 200, n_columns: int = 100, local_search: int = 0) -> None:
        self.space = space
        self.local_search = int(local_search)
        self.rng = rng
        self.pool_size = int(pool_size)
        self.n_leaves = int(n_leaves)
        self.n_columns = int(n_columns)
        self.priority: np.ndarray | None = None  # N'_lf; None = all leaves
        self.clear()

    def clear(self) -> None:
        self.pool_leaf = np.zeros(0, dtype=np.int64)
        self.pool_pos = np.zeros((0, self.space.depth), dtype=np.int64)

    def set_priority(self, leaves) -> None:
        leaves = np.unique(np.asarray(leaves, dtype=np.int64))
        self.priority = leaves if len(leaves) else None

    def sample(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """n random distinct-split paths for leaves drawn uniformly (with repetition) from N'."""
        sp = self.space
        choices = np.arange(sp.n_leaves) if self.priority is None else self.priority
        leaf = self.rng.choice(choices, size=n)
        pos = np.floor(self.rng.random((n, sp.depth)) * sp.sizes[leaf]).astype(np.int64)
        for _ in range(20):
            bad = ~sp.distinct(leaf, pos)
            if not bad.any():
                break
            pos[bad] = np.floor(self.rng.random((int(bad.sum()), sp.depth))
                                * sp.sizes[leaf[bad]]).astype(np.int64)
        ok = sp.distinct(leaf, pos)
        return leaf[ok], pos[ok]

    def price(self, duals: Duals, known: set) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Columns to add: the n_c best positive ones among pool + new random paths."""
        new_leaf, new_pos = self.sample(self.n_leaves)
        leaf = np.concatenate([self.pool_leaf, new_leaf])
        pos = np.concatenate([self.pool_pos, new_pos])
        keys = [(int(a), *map(int, p)) for a, p in zip(leaf, pos, strict=True)]
        seen: set = set()
        fresh = []
        for idx, key in enumerate(keys):
            if key not in known and key not in seen:
                seen.add(key)
                fresh.append(idx)
        fresh = np.asarray(fresh, dtype=np.int64)
        leaf, pos = leaf[fresh], pos[fresh]
        _, _, rc = self.space.evaluate(leaf, pos, duals)
        if self.local_search > 0 and len(leaf):
            top = np.argsort(-rc, kind="stable")[: self.local_search]
            b_leaf, b_pos, b_rc = improve_paths(self.space, duals, leaf[top], pos[top])
            extra = [b for b in range(len(b_leaf))
                     if (int(b_leaf[b]), *map(int, b_pos[b])) not in known
                     and (int(b_leaf[b]), *map(int, b_pos[b])) not in seen]
            for b in extra:
                seen.add((int(b_leaf[b]), *map(int, b_pos[b])))
            leaf = np.concatenate([leaf, b_leaf[extra]])
            pos = np.concatenate([pos, b_pos[extra]])
            rc = np.concatenate([rc, b_rc[extra]])
        order = np.argsort(-rc, kind="stable")
        n_pos = int((rc > EPS).sum())
        add = order[: min(self.n_columns, n_pos)]
        rest = order[len(add): len(add) + self.pool_size]  # drop the lowest reduced costs
        self.pool_leaf, self.pool_pos = leaf[rest], pos[rest]
        return leaf[add], pos[add], rc[add]


def improve_paths(space: PathSpace, duals: Duals, leaf: np.ndarray, pos: np.ndarray,
                  sweeps: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Coordinate ascent on the reduced cost (7): at each level in turn, the best split of S_j
    with the other levels fixed (an addition to the random construction of §4.2.3)."""
    k = space.depth
    pos = np.array(pos, dtype=np.int64, copy=True)
    for b in range(len(leaf)):
        i = int(leaf[b])
        nodes = [int(j) for j in space.anc[i]]
        masks = []
        for h, j in enumerate(nodes):
            m = space.Lg[space.node_rows[j][pos[b, h]]]
            masks.append(~m if space.dir[i, h] else m)
        for _ in range(sweeps):
            changed = False
            for h, j in enumerate(nodes):
                rest = np.ones(space.n_groups, dtype=bool)
                for hh in range(k):
                    if hh != h:
                        rest &= masks[hh]
                cand = space.Lg[space.node_rows[j]]
                if space.dir[i, h]:
                    cand = ~cand
                R = (cand & rest).astype(np.float64)
                # (7) up to the terms that do not depend on the split at level h
                rc = (R @ space.cnt).max(axis=1) - R @ duals.beta
                rc -= duals.gamma[space.agree_base[i, h] + np.arange(len(cand))]
                others = {int(space.node_ids[nodes[hh]][pos[b, hh]]) for hh in range(k)
                          if hh != h} - {PASS}
                rc[np.isin(space.node_ids[j], list(others))] = -np.inf
                a = int(np.argmax(rc))
                if rc[a] > rc[pos[b, h]] + 1e-9:
                    pos[b, h] = a
                    masks[h] = cand[a]
                    changed = True
            if not changed:
                break
    _, _, rc = space.evaluate(leaf, pos, duals)
    return leaf, pos, rc


def enumeration_size(space: PathSpace) -> int:
    """Number of (path, group) evaluations a full enumeration costs."""
    return int(np.prod(space.sizes, axis=1).sum()) * space.n_groups


def enumerate_pricing(space: PathSpace, duals: Duals, limit: int = 100,
                      deadline: Deadline | None = None):
    """Exact pricing by enumerating all decision paths of every leaf (Prop. 3)."""
    out_leaf, out_pos, out_rc = [], [], []
    best = -np.inf
    for i in range(space.n_leaves):
        if deadline is not None and deadline.expired():
            return None
        grids = np.indices(tuple(space.sizes[i])).reshape(space.depth, -1).T
        leaf = np.full(len(grids), i, dtype=np.int64)
        ok = space.distinct(leaf, grids)
        leaf, grids = leaf[ok], grids[ok]
        _, _, rc = space.evaluate(leaf, grids, duals)
        best = max(best, float(rc.max()))
        a, b, c = _top(leaf, grids, rc, limit)
        out_leaf.append(a)
        out_pos.append(b)
        out_rc.append(c)
    leaf, pos, rc = np.concatenate(out_leaf), np.concatenate(out_pos), np.concatenate(out_rc)
    res = _top(leaf, pos, rc, limit)
    return res + (best,)


def dpp_model(space: PathSpace, duals: Duals, i: int, t: int, seed: int = 0):
    """Build DPP(l, t), eq. (9)-(16), for leaf index i and target t.

    Returns (model, u_cols per level). Rows of a group are written only where they can bind:
    (11)/(12) for groups with a positive objective coefficient (they push y up), (13) for groups
    with a negative one (they push y down); a group with coefficient 0 needs neither.
    """
    k = space.depth
    coef = space.cnt[:, t] - duals.beta
    P = np.flatnonzero(coef > 0)
    N = np.flatnonzero(coef < 0)
    nodes = [int(j) for j in space.anc[i]]
    dirs = space.dir[i]
    model = HighsModel(SolverOptions(seed=seed), maximize=True)
    # rows: (10) per level, (11)/(12) per level x P, (13) per N, (14) per repeated real split
    r10 = model.add_rows([1.0] * k, [1.0] * k)
    r_up = model.add_rows([-np.inf] * (k * len(P)), [0.0] * (k * len(P)))
    r_low = model.add_rows([-np.inf] * len(N), [float(k - 1)] * len(N))
    levels_of: dict[int, list[int]] = {}
    for h, j in enumerate(nodes):
        for a in space.node_ids[j]:
            if a != PASS:
                levels_of.setdefault(int(a), []).append(h)
    repeated = [a for a, hs in levels_of.items() if len(hs) > 1]
    r14 = model.add_rows([-np.inf] * len(repeated), [1.0] * len(repeated))
    r14_of = {a: int(r) for a, r in zip(repeated, r14, strict=True)}
    # u columns
    u_cols = []
    for h, j in enumerate(nodes):
        ids = space.node_ids[j]
        match = space.Lg[space.node_rows[j]]  # (|S_j|, G): row goes left
        if dirs[h] == 1:
            match = ~match
        g = duals.gamma[space.agree_base[i, h] + np.arange(len(ids))]
        rows, vals = [], []
        for a in range(len(ids)):
            mP = np.flatnonzero(match[a, P])
            mN = np.flatnonzero(match[a, N])
            rr = [np.array([r10[h]]), r_up[h * len(P) + mP], r_low[mN]]
            vv = [np.ones(1), -np.ones(len(mP)), np.ones(len(mN))]
            if int(ids[a]) in r14_of:
                rr.append(np.array([r14_of[int(ids[a])]]))
                vv.append(np.ones(1))
            rows.append(np.concatenate(rr))
            vals.append(np.concatenate(vv))
        cols = model.add_columns(-g, [0.0] * len(ids), [1.0] * len(ids), rows, vals)
        model.set_integer(cols)
        u_cols.append(cols)
    # y columns (continuous, (15) relaxed to 0 <= y <= 1 as in §4.2.2)
    rows = [r_up[h * len(P) + np.arange(len(P))] for h in range(k)]
    yp_rows = [np.array([rows[h][q] for h in range(k)]) for q in range(len(P))]
    model.add_columns(coef[P], [0.0] * len(P), [1.0] * len(P), yp_rows,
                      [np.ones(k)] * len(P))
    model.add_columns(coef[N], [0.0] * len(N), [1.0] * len(N),
                      [np.array([r]) for r in r_low], [-np.ones(1)] * len(N))
    return model, u_cols


def milp_pricing(space: PathSpace, duals: Duals, limit: int = 100,
                 deadline: Deadline | None = None, leaves=None, seed: int = 0,
                 stop_early: bool = False):
    """Exact pricing by the MILP DPP(l, t) for every leaf l and target t (§4.2.2).

    Returns (leaf, pos, rc, best) with the positive columns found, or None at the deadline
    (or when a DPP could not be solved to optimality).  ``stop_early``: return after the
    first leaf that yields a positive column (the last call, which finds none, still solves
    every DPP and so proves the LP optimal); ``best`` is then the best value seen so far.
    """
    out_leaf, out_pos = [], []
    best = -np.inf
    order = range(space.n_leaves) if leaves is None else leaves
    for i in order:
        for t in range(space.n_classes):
            if deadline is not None and deadline.expired():
                return None
            model, u_cols = dpp_model(space, duals, int(i), t, seed)
            res = model.solve(deadline)
            if res.status != "optimal" or res.values is None:
                return None
            pos = [int(np.argmax(res.values[c])) for c in u_cols]
            out_leaf.append(int(i))
            out_pos.append(pos)
            best = max(best, float(res.objective) - float(duals.alpha[i]))
        if stop_early and best > EPS:
            break
    leaf = np.asarray(out_leaf, dtype=np.int64)
    pos = np.asarray(out_pos, dtype=np.int64).reshape(len(leaf), space.depth)
    _, _, rc = space.evaluate(leaf, pos, duals)  # re-checked with (7); target = majority
    return _top(leaf, pos, rc, limit) + (best,)
