"""OMT pricing ([OMT] §4): the K paths of most negative reduced cost.

A path visits the levels of the feature graph in order and picks one node or SKIP at each, so
a rule is a sequence ``((level, node), ...)`` with increasing levels and at most ``depth``
entries.  Its reduced cost (eq. 4, extended in §5)::

    rc_j = xi_j - sum_{i in S_j} lambda_i - mu - sum_m tau_m rho_mj

is path dependent (S_j shrinks along the path), so the DP runs over *partial paths*: level t
of the DP holds the partial paths that use t features; each is extended by every later level
and node at once.  Per-class sums over the covered units are bincounts of
``state * n_codes + code`` over all (state, unit) pairs of a batch, mapped to the level's nodes
by a 0/1 matrix product -- no per-sample Python loop.  When the units x (level, code, term)
weight matrix is small (``max_dense`` entries) all levels are summed at once instead, by one
sparse (state x unit) @ dense product per batch (measured kr-vs-kp, d = 4: pricing 34.5 s ->
4.1 s, same paths).

On large data (``group_min_units``) states that share a parent, or the same levels, are
summed from one histogram over the parent's units (or all units) by the joint codes: the
same sums with fewer units read (measured 100k rows, 18 numeric features, K = 100: 17.7 s ->
2.1 s per pricing call, same paths).

Every partial path is itself a rule (the remaining levels SKIP), so candidates are collected at
every DP level.  A valid lower bound on the reduced cost of every extension (``lb``, from the
negative parts of the per-unit terms and of the per-level dual terms) prunes partial paths:
with ``exact=True`` a partial path is dropped only when its bound cannot beat the current K-th
best, so the K best paths are exact (Horne's K-shortest-path idea with a bound instead of
additive arc costs).  With ``exact=False`` each DP level also keeps only the ``beam`` most
promising partial paths (smallest bound): the paper's heuristic KSP.

Attribute-level rules (§5) are checked when a partial path is extended: ``forbidden`` feature
sets may not all appear in one rule, ``requires[g]`` levels must already be on the path before
level g, and a rule's feature-acquisition cost may not exceed ``rule_budget``.

(Over 400 lines: the pricing DP over partial paths with its rule checks is one algorithm.)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import sparse

Steps = tuple[tuple[int, int], ...]


@dataclass
class PricedPath:
    """A path found by pricing: its ``((level, node), ...)`` steps and reduced cost."""

    steps: Steps
    rc: float
    count: float


class Pricer:
    """K-shortest-path pricing over a feature graph (static parts; duals come per call)."""

    # bound on the unit indices an exact round materialises for its next frontier (the beam
    # bounds the heuristic one): 20,000 numeric rows at depth 3 once took 17 GB and 2 minutes
    max_frontier_units = 1 << 25

    def __init__(self, codes: np.ndarray, nodes: list[np.ndarray], depth: int,
                 min_count: float, count_col: int, *,
                 feature_costs: np.ndarray | None = None, rule_budget: float | None = None,
                 forbidden: list[np.ndarray] | None = None,
                 requires: list[np.ndarray] | None = None,
                 batch_pairs: int = 4_000_000, prune_same: bool = True,
                 group_min_units: int = 20_000) -> None:
        self.codes_t = np.ascontiguousarray(np.asarray(codes, dtype=np.int32).T)  # (k, P)
        self.nodes = [np.asarray(nd, dtype=float) for nd in nodes]
        self.node_bool = [np.asarray(nd, dtype=bool) for nd in nodes]
        self.k = len(nodes)
        self.n_units = codes.shape[0]
        self.depth = depth
        self.min_count = float(min_count)
        self.count_col = count_col
        self.costs = (np.zeros(self.k) if feature_costs is None
                      else np.asarray(feature_costs, dtype=float))
        self.rule_budget = np.inf if rule_budget is None else float(rule_budget)
        self.forbidden = [np.asarray(f, dtype=bool) for f in (forbidden or [])]
        self.requires = requires or [np.zeros(0, dtype=np.int64)] * self.k
        self.batch_pairs = int(batch_pairs)
        self.prune_same = prune_same
        self.group_min_units = int(group_min_units)
        self.max_codes = max((nd.shape[1] for nd in self.nodes), default=1)
        self.max_cells = 1 << 22  # bound on joint-code histograms (many-valued levels)
        self.max_dense = 1 << 23  # bound on the unit x (code, term) matrix of _matmul_blocks
        # bound on (state, unit) pairs x weight columns of one product of _matmul_blocks: a
        # stop is seen between products, so one must be short (2**28: about 0.15 s; 4M pairs
        # x 1,295 columns took 2.6 s, past a 10 s limit by 2.1 s)
        self.max_product = 1 << 28
        # bound on (state, unit) pairs x weight columns gathered by one batch of
        # _single_blocks before its first level (a stop is seen between levels): 4M pairs x
        # 5 columns took 0.3-1.0 s; breast cancer x 25, depth 2: the fit ended up to 1.8 s
        # past its 1 s limit
        self.max_gather = 1 << 22
        self.complete = True  # whether the last run ended without a stop or a size bound
        self._code_cols = sum(nd.shape[1] for nd in self.nodes)

    # ------------------------------------------------------------------ attribute rules
    def allowed(self, used: np.ndarray) -> np.ndarray:
        """(n_states, k) bool: may level g be added to a partial path using ``used`` levels."""
        ok = np.ones(used.shape, dtype=bool)
        for g in range(self.k):
            req = self.requires[g]
            if len(req):
                ok[:, g] &= used[:, req].all(axis=1)
        for fset in self.forbidden:
            for g in np.flatnonzero(fset):
                others = fset.copy()
                others[g] = False
                ok[:, g] &= ~used[:, others].all(axis=1)
        return ok

    def path_cost(self, steps: Steps) -> float:
        """Feature-acquisition cost of a rule (sum of its levels' costs)."""
        return float(sum(self.costs[g] for g, _ in steps))

    def cover(self, steps: Steps) -> np.ndarray:
        """Bool mask of the units a path covers."""
        m = np.ones(self.n_units, dtype=bool)
        for g, v in steps:
            m &= self.node_bool[g][v, self.codes_t[g]]
        return m

    # ------------------------------------------------------------------ the DP
    def run(self, W: np.ndarray, evaluate: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
            const: float, level_extra: np.ndarray, k_best: int, exact: bool, beam: int,
            tol: float = 1e-9, stop: Callable[[], bool] | None = None) -> list[PricedPath]:
        """K most negative paths (rc < -tol).  ``W`` (P x q): additive per-unit terms;
        ``evaluate(agg) -> (rc_part, lb_part)`` over summed terms; ``const`` = -mu plus
        constant dual terms; ``level_extra[g]`` = dual terms of using level g.
        ``stop()`` (checked before each aggregation product, after each block -- one level
        of the graph for a batch or chunk of states -- and between the steps of a DP level):
        when it returns True the DP ends at once, ``complete`` turns False and no path is
        returned (every caller drops a stopped round's paths: LP values and reduced costs
        must match the master).  When an exact frontier would hold more than
        ``max_frontier_units`` unit indices, the DP ends early, ``complete`` turns False and
        the paths found so far are returned (then not the K best: the caller must not treat
        an empty answer as proof that none prices out)."""
        self.complete = True

        def halted() -> bool:
            return stop is not None and stop()

        level_extra = np.asarray(level_extra, dtype=float)
        neg = np.minimum(level_extra, 0.0)
        future = np.concatenate([np.cumsum(neg[::-1])[::-1][1:], [0.0]])  # sum over h > g
        pool_rc: list[float] = []
        pool_steps: list[Steps] = []
        tot = W.sum(axis=0)
        rc0, _ = evaluate(tot[None, :])
        root_count = float(tot[self.count_col])
        if root_count >= self.min_count and rc0[0] + const < -tol:
            pool_rc.append(float(rc0[0] + const))
            pool_steps.append(())
        weights = _Weights(W, self._code_weights(W))
        # frontier: state s = parent set psets[par[s]] restricted to node pv[s] of level pg[s]
        fr = _Frontier([np.arange(self.n_units, dtype=np.int32)], np.zeros(1, np.int64),
                       np.array([-1]), np.array([-1]), [()], np.zeros((1, self.k), bool),
                       np.array([0.0]), np.array([0.0]), np.array([root_count]), root_count)
        for t in range(self.depth):
            if not fr.steps:
                break
            allow = self.allowed(fr.used) & (np.arange(self.k)[None, :] > fr.pg[:, None])
            allow &= fr.cost[:, None] + self.costs[None, :] <= self.rule_budget + 1e-12
            cand: list[tuple[np.ndarray, ...]] = []
            for states, g, node_agg in self._blocks(weights, fr, allow, stop):
                if halted():
                    break
                c = self._candidates(states, g, node_agg, evaluate, fr, allow, const,
                                     level_extra[g], future[g])
                if c is not None:
                    cand.append(c)
            # a stop between the steps of a level (each up to ~0.5 s on 30,000 units)
            if halted():  # (the blocks also end at a stop, unseen in the loop)
                return self._stopped()
            if not cand:
                break
            cs, cg, cv, clb, crc, cn = (np.concatenate(a) for a in zip(*cand, strict=True))
            if halted():
                return self._stopped()
            pool_rc, pool_steps = self._update_pool(pool_rc, pool_steps, fr.steps, cs, cg, cv,
                                                    crc, k_best, tol)
            if t + 1 >= self.depth:
                break
            thr = -tol if len(pool_rc) < k_best else max(pool_rc)
            keep = np.flatnonzero(clb < thr)
            if not exact and len(keep) > beam:
                keep = keep[np.argsort(clb[keep], kind="stable")[:beam]]
            parents, par = np.unique(cs[keep], return_inverse=True)
            if halted():
                return self._stopped()
            if self._frontier_units(fr, parents) > self.max_frontier_units:
                self.complete = False
                break
            fr = self._next_frontier(fr, parents, par, cs[keep], cg[keep], cv[keep], cn[keep],
                                     level_extra)
        order = np.argsort(pool_rc, kind="stable")
        return [PricedPath(pool_steps[i], float(pool_rc[i]), 0.0) for i in order]

    def _stopped(self) -> list[PricedPath]:
        """A stopped round: not complete, and no path (its callers drop them)."""
        self.complete = False
        return []

    def _candidates(self, states: np.ndarray, g: int, node_agg: np.ndarray,
                    evaluate: Callable, fr: _Frontier, allow: np.ndarray, const: float,
                    extra_g: float, future_g: float) -> tuple[np.ndarray, ...] | None:
        """Extensions of ``states`` by the nodes of level g that meet the support rule:
        (state, level, node, lower bound, reduced cost, count)."""
        rc, lb = evaluate(node_agg)
        cnt = node_agg[..., self.count_col]
        add = (const + fr.extra[states] + extra_g)[:, None]
        rc = rc + add
        lb = lb + add + future_g
        ok = allow[states, g][:, None] & (cnt >= self.min_count - 1e-9)
        if self.prune_same and extra_g >= 0:
            ok &= cnt < fr.count[states, None] - 1e-9
        si, vi = np.nonzero(ok)
        if len(si) == 0:
            return None
        return (states[si], np.full(len(si), g), vi, np.minimum(lb[si, vi], rc[si, vi]),
                rc[si, vi], cnt[si, vi])

    @staticmethod
    def _update_pool(pool_rc: list[float], pool_steps: list[Steps], steps: list[Steps],
                     cs: np.ndarray, cg: np.ndarray, cv: np.ndarray, crc: np.ndarray,
                     k_best: int, tol: float) -> tuple[list[float], list[Steps]]:
        """Add the candidates with rc < -tol to the pool and keep its K best."""
        neg_idx = np.flatnonzero(crc < -tol)
        if len(neg_idx):
            if len(neg_idx) > k_best:
                neg_idx = neg_idx[np.argpartition(crc[neg_idx], k_best - 1)[:k_best]]
            pool_rc = pool_rc + crc[neg_idx].tolist()
            pool_steps = pool_steps + [steps[cs[i]] + ((int(cg[i]), int(cv[i])),)
                                       for i in neg_idx]
            if len(pool_rc) > k_best:
                keep = np.argsort(pool_rc, kind="stable")[:k_best]
                pool_rc = [pool_rc[i] for i in keep]
                pool_steps = [pool_steps[i] for i in keep]
        return pool_rc, pool_steps

    def _state_set(self, fr: _Frontier, s: int) -> np.ndarray:
        """Units of frontier state s (its parent's units on its last node)."""
        S = fr.psets[fr.par[s]]
        g = fr.pg[s]
        return S if g < 0 else S[self.node_bool[g][fr.pv[s], self.codes_t[g][S]]]

    def _frontier_units(self, fr: _Frontier, parents: np.ndarray) -> float:
        """About how many unit indices a next frontier with these parent states (distinct)
        materialises (their unit sets, from their counts)."""
        return float(fr.count[parents].sum()) * self.n_units / max(fr.root_count, 1e-300)

    def _next_frontier(self, fr: _Frontier, parents: np.ndarray, par: np.ndarray,
                       cs: np.ndarray, cg: np.ndarray, cv: np.ndarray, cn: np.ndarray,
                       level_extra: np.ndarray) -> _Frontier:
        """Kept extensions (of states ``cs``; ``parents`` the distinct ones, ``par`` the
        index of each extension's state among them) become the new states; their parents'
        unit sets are materialised."""
        psets = [self._state_set(fr, int(s)) for s in parents]
        used = fr.used[cs].copy()
        used[np.arange(len(cs)), cg] = True
        steps = [fr.steps[s] + ((int(g), int(v)),) for s, g, v in zip(cs, cg, cv, strict=True)]
        return _Frontier(psets, par.ravel().astype(np.int64), cg, cv, steps, used,
                         fr.cost[cs] + self.costs[cg], fr.extra[cs] + level_extra[cg], cn,
                         fr.root_count)

    # ------------------------------------------------------------------ aggregation
    def _code_weights(self, W: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """Units x (level, code, term) matrix: entry (u, (g, c, j)) = W[u, j] if unit u has
        code c on level g, else 0; with the column offset of each level.  None when it would
        exceed ``max_dense`` entries."""
        P, q = W.shape
        if P * self._code_cols * q > self.max_dense:
            return None
        R = np.zeros((P, self._code_cols * q))
        off = np.concatenate([[0], np.cumsum([nd.shape[1] * q for nd in self.nodes])])
        rows = np.arange(P)[:, None]
        for g in range(self.k):
            R[rows, off[g] + self.codes_t[g][:, None] * q + np.arange(q)[None, :]] = W
        return R, off

    def _blocks(self, weights: _Weights, fr: _Frontier, allow: np.ndarray,
                stop: Callable[[], bool] | None = None):
        """Yield (states, level g, node sums (n_states, n_nodes(g), q)) for every frontier
        state and allowed later level.

        States are aggregated one by one (bincounts over their own units), or in groups from
        one histogram over a base unit set: a group of states with the same parent uses the
        parent's units and the last level's codes; a group of states on the same levels uses
        all units and the joint codes of those levels.  The cheapest choice (fewest units
        read) is taken.  Exact, but the floating-point summation order differs, so groups
        are used only for ``n_units >= group_min_units``."""
        single, groups = self._grouping(fr)
        if weights.dense is not None:
            yield from self._matmul_blocks(weights.dense, weights.q, fr, allow, single, stop)
        else:
            yield from self._single_blocks(weights.WT, fr, allow, single, stop)
        for base, levels, members in groups:
            yield from self._group_blocks(weights.WT, fr, allow, base, levels, members)

    def _grouping(self, fr: _Frontier) -> tuple[np.ndarray, list[tuple]]:
        """Frontier states aggregated one by one, and groups (base set, levels, members)."""
        ns = len(fr.steps)
        if self.n_units < self.group_min_units or ns < 2:
            return np.arange(ns), []
        size = fr.count * (self.n_units / max(fr.root_count, 1e-300))  # ~ units per state
        single: list[np.ndarray] = []
        groups: list[tuple] = []
        by_levels: dict[tuple[int, ...], list[int]] = {}
        for s, st in enumerate(fr.steps):
            by_levels.setdefault(tuple(g for g, _ in st), []).append(s)
        for levels, members_list in by_levels.items():
            members = np.asarray(members_list)
            plan_single, plan_groups, cost = self._parent_plan(fr, members, size)
            cells = math.prod(self.nodes[h].shape[1] for h in levels)
            small = cells * max(len(members), self.max_codes) <= self.max_cells
            if levels and len(members) > 1 and self.n_units <= cost and small:
                groups.append((None, list(levels), members))
            else:
                single += plan_single
                groups += plan_groups
        idx = np.sort(np.concatenate(single)) if single else np.zeros(0, np.int64)
        return idx, groups

    def _parent_plan(self, fr: _Frontier, members: np.ndarray, size: np.ndarray
                     ) -> tuple[list[np.ndarray], list[tuple], float]:
        """Per parent of ``members``: one parent histogram or the states one by one,
        whichever reads fewer units; returns (singles, groups, units read per level)."""
        single, groups, cost = [], [], 0.0
        for p in np.unique(fr.par[members]):
            pm = members[fr.par[members] == p]
            base = len(fr.psets[p])
            if len(pm) > 1 and base < size[pm].sum():
                groups.append((int(p), [int(fr.pg[pm[0]])], pm))
                cost += base
            else:
                single.append(pm)
                cost += size[pm].sum()
        return single, groups, cost

    def _matmul_blocks(self, dense: tuple[np.ndarray, np.ndarray], q: int, fr: _Frontier,
                       allow: np.ndarray, idx: np.ndarray,
                       stop: Callable[[], bool] | None = None):
        """Per-state aggregation for every level at once: (states x units incidence) @
        (units x (level, code, term) weights, :meth:`_code_weights`), one sparse-dense
        product per batch."""
        if not len(idx):
            return
        R, off = dense
        P = R.shape[0]
        sets = [self._state_set(fr, int(s)) for s in idx]
        limit = max(1, min(self.batch_pairs, self.max_product // max(R.shape[1], 1)))
        for b0, b1 in self._batches([len(st) for st in sets], limit):
            if stop is not None and stop():  # no product after the deadline
                return
            states = idx[b0:b1]
            ns = b1 - b0
            ptr = np.concatenate([[0], np.cumsum([len(sets[i]) for i in range(b0, b1)])])
            B = sparse.csr_matrix((np.ones(ptr[-1]), np.concatenate(sets[b0:b1]), ptr),
                                  shape=(ns, P))
            A = np.asarray(B @ R)
            for g in range(self.k):
                if not allow[states, g].any():
                    continue
                nd = self.nodes[g]
                agg = A[:, off[g]:off[g + 1]].reshape(ns, nd.shape[1], q)
                yield states, g, np.einsum("vc,scq->svq", nd, agg)

    def _single_blocks(self, WT: np.ndarray, fr: _Frontier, allow: np.ndarray,
                       idx: np.ndarray, stop: Callable[[], bool] | None = None):
        """Per-state aggregation: bincounts over the (state, unit) pairs of a batch."""
        if not len(idx):
            return
        sets = [self._state_set(fr, int(s)) for s in idx]
        limit = max(1, min(self.batch_pairs, self.max_gather // max(WT.shape[0], 1)))
        for b0, b1 in self._batches([len(s) for s in sets], limit):
            if stop is not None and stop():  # no batch after the deadline
                return
            states = idx[b0:b1]
            ns = b1 - b0
            lens = np.array([len(sets[i]) for i in range(b0, b1)])
            st = np.repeat(np.arange(ns), lens)
            smp = np.concatenate(sets[b0:b1])
            Wb = WT[:, smp]
            for g in range(self.k):
                if not allow[states, g].any():
                    continue
                nd = self.nodes[g]
                nc = nd.shape[1]
                key = st * nc + self.codes_t[g][smp]  # int64 (st is int64)
                agg = np.stack([np.bincount(key, weights=w, minlength=ns * nc)
                                for w in Wb]).reshape(-1, ns, nc)
                yield states, g, np.einsum("vc,qsc->svq", nd, agg)  # (ns, nv, q)

    def _group_blocks(self, WT: np.ndarray, fr: _Frontier, allow: np.ndarray,
                      base: int | None, levels: list[int], members: np.ndarray):
        """Histogram aggregation of ``members`` over the units of parent ``base`` (all units
        if None) by the joint code of ``levels``; each member sums the cells of its nodes."""
        S = None if base is None else fr.psets[base]
        key0 = np.zeros(self.n_units if S is None else len(S), dtype=np.int64)
        sel = np.ones((len(members), 1))
        for h in levels:
            nc_h = self.nodes[h].shape[1]
            code = self.codes_t[h] if S is None else self.codes_t[h][S]
            key0 = key0 * nc_h + code
            if base is None:
                v = [dict(fr.steps[s])[h] for s in members]
            else:
                v = fr.pv[members]
            sel = (sel[:, :, None] * self.nodes[h][v][:, None, :]).reshape(len(members), -1)
        cells = sel.shape[1]
        Ws = WT if S is None else WT[:, S]
        for g in range(self.k):
            if not allow[members, g].any():
                continue
            nd = self.nodes[g]
            nc = nd.shape[1]
            key = key0 * nc + (self.codes_t[g] if S is None else self.codes_t[g][S])
            H = np.stack([np.bincount(key, weights=w, minlength=cells * nc)
                          for w in Ws]).reshape(-1, cells, nc)
            # members in chunks of bounded work, so that a stop is seen between them
            # (1,000 members x 1,024 cells at once: 1.4 s between two looks at the clock)
            work = H.shape[0] * nc * max(cells, nd.shape[0])
            step = max(1, (self.max_product >> 2) // work)
            for m0 in range(0, len(members), step):
                agg = np.einsum("ml,qlc->qmc", sel[m0:m0 + step], H)
                yield members[m0:m0 + step], g, np.einsum("vc,qsc->svq", nd, agg)

    def _batches(self, lens: list[int], limit: int | None = None):
        """(start, end) of consecutive states whose units sum to at most ``limit`` pairs
        (default ``batch_pairs``; a single larger state is a batch of its own)."""
        limit = self.batch_pairs if limit is None else limit
        b0, acc = 0, 0
        for i, n in enumerate(lens):
            if acc and acc + n > limit:
                yield b0, i
                b0, acc = i, 0
            acc += n
        if b0 < len(lens):
            yield b0, len(lens)


class _Weights:
    """The per-unit terms W of one pricing call, in the layouts the aggregations read."""

    def __init__(self, W: np.ndarray, dense: tuple[np.ndarray, np.ndarray] | None) -> None:
        self.q = W.shape[1]
        self.WT = np.ascontiguousarray(W.T)  # (q, P): contiguous weight rows for bincount
        self.dense = dense  # Pricer._code_weights(W), or None when too large


@dataclass
class _Frontier:
    """DP states of one level: unit sets of the parents, and per state its parent, last
    (level, node), path, used levels, acquisition cost, dual level terms and support (the
    root's support scales supports to unit counts for the grouping decision)."""

    psets: list[np.ndarray]
    par: np.ndarray
    pg: np.ndarray
    pv: np.ndarray
    steps: list[Steps]
    used: np.ndarray
    cost: np.ndarray
    extra: np.ndarray
    count: np.ndarray
    root_count: float
