"""The adversary's best response to a fixed tree: each row's cheapest misclassification and
the knapsack that spends one budget on rows to flip (see the package docstring for the
definition and its source).

Weights: a row of weight ``w`` counts as ``floor(w)`` copies of weight 1 and, when ``w`` is
not an integer, one copy of weight ``w - floor(w)``; the adversary shifts each copy on its own
at the row's costs (so an integer weight is that many duplicated rows, and unit weights are
the paper's model). Flipping the most weight is a knapsack over the copies (value: a copy's
weight, cost: its row's cheapest misclassification). Among copies of equal weight the
cheaper ones go first (exchange argument), so the copies of weight 1 are taken cheapest
first and only the fractional copies, grouped by weight, need a Pareto front of (cost,
weight) pairs (Nemhauser-Ullmann): :func:`flipped_weight`."""

from __future__ import annotations

import math

import numpy as np

from ..models.robust_tree import IntegerTree

TOL = 1e-9  # costs are sums of user floats: a sum equal to the budget fits


def box_distances(X: np.ndarray, costs: np.ndarray, lo: np.ndarray, hi: np.ndarray
                  ) -> np.ndarray:
    """``(n, L)``: what moving row ``i`` into box ``l`` costs, ``sum_f costs[i, f] *
    dist(X[i, f], [lo[l, f], hi[l, f]])``; inf for an empty box."""
    below = np.maximum(lo[None, :, :] - X[:, None, :], 0.0)
    above = np.maximum(X[:, None, :] - hi[None, :, :], 0.0)
    steps = below + above
    # a cost of inf with no step needed is no cost (inf * 0 would be nan)
    paid = np.multiply(np.broadcast_to(costs[:, None, :], steps.shape), steps,
                       out=np.zeros_like(steps), where=steps > 0)
    out = paid.sum(axis=2)
    out[:, (lo > hi).any(axis=1)] = math.inf
    return out


def _wrong_leaf_costs(dist: np.ndarray, labels: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``dist`` with inf at the leaves labelled as the row (``(n, L)`` or ``(B, n, L)``)."""
    wrong = labels[..., None, :] != y[:, None]  # (B, n, L)
    return np.where(wrong, dist, math.inf)


def misclassification_costs(dist: np.ndarray, labels: np.ndarray, y: np.ndarray
                            ) -> np.ndarray:
    """Cheapest move of each row into a leaf of another label: ``dist`` ``(n, L)``,
    ``labels`` the leaves' class indices, ``(L,)`` or a batch ``(B, L)``; ``y`` class indices.
    Returns ``(n,)`` or ``(B, n)``."""
    return _wrong_leaf_costs(dist, labels, y).min(axis=-1)


def cheapest_wrong_leaves(dist: np.ndarray, labels: np.ndarray, y: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`misclassification_costs` and the leaf that attains it (the first of equal
    cost; leaf 0 for a row that reaches no leaf of another label, at cost inf): the MIP's
    scenario moves each row there."""
    masked = _wrong_leaf_costs(dist, labels, y)
    leaf = masked.argmin(axis=-1)
    return np.take_along_axis(masked, leaf[..., None], axis=-1)[..., 0], leaf


def flips(c: np.ndarray, budget: float) -> np.ndarray:
    """Most rows the adversary can misclassify: ``max{k : sum of the k smallest c <= budget}``
    along the last axis."""
    s = np.sort(c, axis=-1)
    return (np.cumsum(s, axis=-1) <= budget + TOL).sum(axis=-1)


def _whole_plan(c: np.ndarray, copies: np.ndarray, budget: np.ndarray | float
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """How the copies of weight 1 are flipped within ``budget``: row ``i`` has
    ``copies[i]`` copies costing ``c[..., i]`` each; cheapest rows first (stable), then as
    many copies of the next row as the rest of the budget pays for (every later copy costs
    at least as much). Over ``c`` as ``(R, n)``: the rows' order, their copies in that
    order, how many rows are flipped whole (``k``, ``(R,)``) and the copies taken of row
    ``order[k]`` (plain indexing, not ``take_along_axis``: this is the search's hot loop)."""
    n = c.shape[-1]
    c = c.reshape(-1, n)
    at = np.arange(len(c))
    order = np.argsort(c, axis=-1, kind="stable")
    cs = c[at[:, None], order]
    ms = copies[order]
    with np.errstate(invalid="ignore"):  # inf * 0 copies: nothing to pay
        paid = np.cumsum(np.where(ms > 0, cs * ms, 0.0), axis=-1)
    b = np.asarray(budget, dtype=np.float64).reshape(-1)  # one, or one per row of c
    k = (paid <= b[:, None] + TOL).sum(axis=-1)  # rows flipped whole
    rest = b - np.where(k > 0, paid[at, k - 1], 0.0)
    nxt = np.minimum(k, n - 1)
    cost_next = cs[at, nxt]
    with np.errstate(divide="ignore", invalid="ignore"):
        part = np.floor((rest + TOL) / cost_next)
    part = np.where((k < n) & (cost_next > 0), part, 0.0)
    return order, ms, k, np.minimum(part, ms[at, nxt])


def _whole_copies(c: np.ndarray, copies: np.ndarray, budget: np.ndarray | float
                  ) -> np.ndarray:
    """Most copies of weight 1 flipped within ``budget`` (:func:`_whole_plan`), one per
    row of ``c`` (``(n,)`` or ``(..., n)``; ``budget`` a number or one per row)."""
    _, ms, k, part = _whole_plan(c, copies, budget)
    done = np.where(k > 0, np.cumsum(ms, axis=-1)[np.arange(len(k)), k - 1], 0.0)
    return (done + part).reshape(c.shape[:-1])


def _whole_picks(c: np.ndarray, copies: np.ndarray, budget: float) -> np.ndarray:
    """The copies of weight 1 of each row that :func:`_whole_copies` flips, ``(n,)``."""
    order, ms, k, part = _whole_plan(c, copies, budget)
    k = int(k[0])
    sorted_picks = np.where(np.arange(len(c)) < k, ms[0], 0.0)
    if k < len(c):
        sorted_picks[k] = part[0]
    out = np.zeros(len(c))
    out[order[0]] = sorted_picks
    return out


def _fraction_front(c: np.ndarray, frac: np.ndarray, budget: float, rows: bool = False
                    ) -> tuple[np.ndarray, np.ndarray, list]:
    """The Pareto front (cost, weight) of flipping fractional copies (``frac > 0``) of one
    labelling's rows ``c`` within ``budget``; each weight group cheapest first (stable).
    ``rows``: also the trace :func:`_front_rows` reads a point's rows from (else empty)."""
    cost, weight = np.zeros(1), np.zeros(1)
    trace = []  # per group: its rows cheapest first, each point's parent and prefix taken
    fits = (frac > 0) & (c <= budget + TOL)
    for v in np.unique(frac[fits]):
        group = np.flatnonzero(fits & (frac == v))
        group = group[np.argsort(c[group], kind="stable")]
        chain = np.concatenate([[0.0], np.cumsum(c[group])])
        # every front point with each prefix of the group: point-major, prefix-minor
        cost = (cost[:, None] + chain[None, :]).ravel()
        weight = (weight[:, None] + v * np.arange(len(chain))[None, :]).ravel()
        fit = np.flatnonzero(cost <= budget + TOL)
        cost, weight = cost[fit], weight[fit]
        order = np.lexsort((-weight, cost))
        cost, weight = cost[order], weight[order]
        best_before = np.concatenate([[-np.inf], np.maximum.accumulate(weight)[:-1]])
        keep = weight > best_before  # more weight than every cheaper pair
        cost, weight = cost[keep], weight[keep]
        if rows:
            at = fit[order][keep]
            trace.append((group, at // len(chain), at % len(chain)))
    return cost, weight, trace


def _front_rows(trace: list, p: int, n: int) -> np.ndarray:
    """``(n,)`` bool: the rows whose fractional copy point ``p`` of the front flips."""
    flipped = np.zeros(n, dtype=bool)
    for group, parent, taken in reversed(trace):
        flipped[group[:taken[p]]] = True
        p = parent[p]
    return flipped


def _fraction_totals(row: np.ndarray, copies: np.ndarray, frac: np.ndarray, budget: float,
                     rows: bool = False
                     ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, list]]:
    """Most weight flipped of one labelling ``row`` at each point of the fractional copies'
    front (:func:`_fraction_front`, returned too), the rest of the budget spent on whole
    copies: the best response is the best point."""
    front = _fraction_front(row, frac, budget, rows)
    cost, weight, _ = front
    whole = _whole_copies(np.broadcast_to(row, (len(cost), len(row))), copies, budget - cost)
    return weight + whole, front


def flipped_weight(c: np.ndarray, weights: np.ndarray | None, budget: float
                   ) -> np.ndarray:
    """Most weight the adversary misclassifies within ``budget``, along the last axis of the
    cheapest misclassifications ``c`` (``(n,)`` or ``(B, n)``); ``weights`` None: every row
    weighs 1 (:func:`flips`). See the module docstring for the copies' model."""
    if weights is None:
        return flips(c, budget).astype(np.float64)
    copies = np.floor(weights)
    frac = weights - copies
    if not frac.any():
        return _whole_copies(c, copies, budget)
    flat = c.reshape(-1, c.shape[-1])
    out = np.empty(len(flat))
    for b, row in enumerate(flat):
        out[b] = _fraction_totals(row, copies, frac, budget)[0].max()
    return out.reshape(c.shape[:-1])


def flipped_rows(c: np.ndarray, weights: np.ndarray | None, budget: float) -> np.ndarray:
    """The adversary's best response itself, not only its value (:func:`flipped_weight`,
    the same computation): the weight flipped of each row, ``(n,)``, for one labelling's
    cheapest misclassifications ``c`` (a row's copies all move to its cheapest wrong leaf).
    The constraint generation of :mod:`.mip` needs it to write the scenario's cut."""
    if weights is None:  # flips' rows: the cheapest first (stable)
        out = np.zeros(len(c))
        out[np.argsort(c, kind="stable")[:int(flips(c, budget))]] = 1.0
        return out
    copies = np.floor(weights)
    frac = weights - copies
    if not frac.any():
        return _whole_picks(c, copies, budget)
    total, (cost, _, trace) = _fraction_totals(c, copies, frac, budget, rows=True)
    # the first best point (least spent on fractional copies): sums of fractions round
    p = int(np.argmax(total >= total.max() - TOL))
    return (_whole_picks(c, copies, float(budget - cost[p]))
            + np.where(_front_rows(trace, p, len(c)), frac, 0.0))


def worst_case_correct(tree: IntegerTree, X: np.ndarray, y: np.ndarray, costs: np.ndarray,
                       budget: float, weights: np.ndarray | None = None) -> float:
    """Weight of the rows of ``(X, y)`` (``y`` class indices) that ``tree`` classifies
    correctly after the worst perturbation within ``budget`` (rows when ``weights`` is
    None)."""
    leaves, lo, hi = tree.boxes()
    dist = box_distances(X.astype(np.float64), costs, lo, hi)
    c = misclassification_costs(dist, tree.label[leaves], y)
    total = float(len(y)) if weights is None else float(weights.sum())
    return total - float(flipped_weight(c, weights, budget))


def costs_from_probabilities(q: np.ndarray, n: int, lam: float) -> tuple[np.ndarray, float]:
    """The paper's calibration (ODTlearn's RobustOCT notebook): ``q[..., f]`` the probability
    that a feature is not shifted, ``lam`` in (0, 1]; costs ``-log(1 - q)`` (inf where
    ``q == 1``) and budget ``-n log(lam)``."""
    q = np.asarray(q, dtype=np.float64)
    with np.errstate(divide="ignore"):
        costs = np.where(q >= 1.0, math.inf, -np.log1p(-np.minimum(q, 1.0)))
    return costs, float(-n * math.log(lam))
