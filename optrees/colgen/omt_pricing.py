"""OMT pricing (omt-multiway.txt §4): the K paths of most negative reduced cost.

A path visits the levels of the feature graph in order and picks one node or SKIP at each, so
a rule is a sequence ``((level, node), ...)`` with increasing levels and at most ``depth``
entries.  Its reduced cost (eq. 4, extended in §5)::

    rc_j = xi_j - sum_{i in S_j} lambda_i - mu - sum_m tau_m rho_mj

is path dependent (S_j shrinks along the path), so the DP runs over *partial paths*: level t
of the DP holds the partial paths that use t features; each is extended by every later level
and node at once.  Per-class sums over the covered units are bincounts of
``state * n_codes + code`` over all (state, unit) pairs of a batch, mapped to the level's nodes
by a 0/1 matrix product -- no per-sample Python loop.

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
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

Steps = tuple[tuple[int, int], ...]


@dataclass
class PricedPath:
    steps: Steps
    rc: float
    count: float


class Pricer:
    """K-shortest-path pricing over a feature graph (static parts; duals come per call)."""

    def __init__(self, codes: np.ndarray, nodes: list[np.ndarray], depth: int,
                 min_count: float, count_col: int, *,
                 feature_costs: np.ndarray | None = None, rule_budget: float | None = None,
                 forbidden: list[np.ndarray] | None = None,
                 requires: list[np.ndarray] | None = None,
                 batch_pairs: int = 4_000_000, prune_same: bool = True) -> None:
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
        ``stop()`` (checked before every level of the graph is scanned): when it returns
        True the DP ends early and the paths found so far are returned (then not the K
        best: the caller must not treat an empty answer as proof that none prices out)."""
        stopped = False
        level_extra = np.asarray(level_extra, dtype=float)
        neg = np.minimum(level_extra, 0.0)
        future = np.concatenate([np.cumsum(neg[::-1])[::-1][1:], [0.0]])  # sum over h > g
        # pool of candidates: rc, steps
        pool_rc: list[float] = []
        pool_steps: list[Steps] = []
        tot = W.sum(axis=0)
        rc0, _ = evaluate(tot[None, :])
        root_count = float(tot[self.count_col])
        if root_count >= self.min_count and rc0[0] + const < -tol:
            pool_rc.append(float(rc0[0] + const))
            pool_steps.append(())
        # frontier
        sets = [np.arange(self.n_units, dtype=np.int32)]
        steps: list[Steps] = [()]
        used = np.zeros((1, self.k), dtype=bool)
        last = np.array([-1])
        cost = np.array([0.0])
        extra = np.array([0.0])
        count = np.array([root_count])
        for t in range(self.depth):
            if not sets:
                break
            allow = self.allowed(used) & (np.arange(self.k)[None, :] > last[:, None])
            allow &= cost[:, None] + self.costs[None, :] <= self.rule_budget + 1e-12
            ch_s, ch_g, ch_v, ch_lb, ch_rc, ch_n = [], [], [], [], [], []
            for b0, b1 in self._batches([len(s) for s in sets]):
                if stopped:
                    break
                ns = b1 - b0
                lens = np.array([len(sets[s]) for s in range(b0, b1)])
                st = np.repeat(np.arange(ns), lens)
                smp = np.concatenate(sets[b0:b1])
                Wb = W[smp]
                for g in range(self.k):
                    if stop is not None and stop():
                        stopped = True
                        break
                    okg = allow[b0:b1, g]
                    if not okg.any():
                        continue
                    nd = self.nodes[g]
                    nc = nd.shape[1]
                    key = st * nc + self.codes_t[g][smp]  # int64 (st is int64)
                    agg = np.stack([np.bincount(key, weights=Wb[:, j], minlength=ns * nc)
                                    for j in range(W.shape[1])]).reshape(-1, ns, nc)
                    node_agg = np.einsum("vc,qsc->svq", nd, agg)  # (ns, nv, q)
                    rc, lb = evaluate(node_agg)
                    cnt = node_agg[..., self.count_col]
                    add = (const + extra[b0:b1] + level_extra[g])[:, None]
                    rc = rc + add
                    lb = lb + add + future[g]
                    ok = okg[:, None] & (cnt >= self.min_count - 1e-9)
                    if self.prune_same and level_extra[g] >= 0:
                        ok &= cnt < count[b0:b1, None] - 1e-9
                    si, vi = np.nonzero(ok)
                    if len(si) == 0:
                        continue
                    ch_s.append(si + b0)
                    ch_g.append(np.full(len(si), g))
                    ch_v.append(vi)
                    ch_lb.append(np.minimum(lb[si, vi], rc[si, vi]))
                    ch_rc.append(rc[si, vi])
                    ch_n.append(cnt[si, vi])
            if not ch_s:
                break
            cs, cg, cv = np.concatenate(ch_s), np.concatenate(ch_g), np.concatenate(ch_v)
            clb, crc, cn = np.concatenate(ch_lb), np.concatenate(ch_rc), np.concatenate(ch_n)
            # candidates -> pool (keep the K best)
            neg_idx = np.flatnonzero(crc < -tol)
            if len(neg_idx):
                if len(neg_idx) > k_best:
                    neg_idx = neg_idx[np.argpartition(crc[neg_idx], k_best - 1)[:k_best]]
                pool_rc += crc[neg_idx].tolist()
                pool_steps += [steps[cs[i]] + ((int(cg[i]), int(cv[i])),) for i in neg_idx]
                if len(pool_rc) > k_best:
                    keep = np.argsort(pool_rc, kind="stable")[:k_best]
                    pool_rc = [pool_rc[i] for i in keep]
                    pool_steps = [pool_steps[i] for i in keep]
            if t + 1 >= self.depth or stopped:
                break
            thr = -tol if len(pool_rc) < k_best else max(pool_rc)
            keep = np.flatnonzero(clb < thr)
            if not exact and len(keep) > beam:
                keep = keep[np.argsort(clb[keep], kind="stable")[:beam]]
            new_sets = []
            for i in keep:
                s, g, v = cs[i], cg[i], cv[i]
                S = sets[s]
                new_sets.append(S[self.node_bool[g][v, self.codes_t[g][S]]])
            steps = [steps[cs[i]] + ((int(cg[i]), int(cv[i])),) for i in keep]
            used = used[cs[keep]].copy()
            used[np.arange(len(keep)), cg[keep]] = True
            last = cg[keep]
            cost = cost[cs[keep]] + self.costs[cg[keep]]
            extra = extra[cs[keep]] + level_extra[cg[keep]]
            count = cn[keep]
            sets = new_sets
        order = np.argsort(pool_rc, kind="stable")
        out = []
        for i in order:
            out.append(PricedPath(pool_steps[i], float(pool_rc[i]), 0.0))
        return out

    def _batches(self, lens: list[int]):
        b0, acc = 0, 0
        for i, n in enumerate(lens):
            if acc and acc + n > self.batch_pairs:
                yield b0, i
                b0, acc = i, 0
            acc += n
        if b0 < len(lens):
            yield b0, len(lens)
