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
    at least as much). Returns the rows' order, their copies in that order, how many rows
    are flipped whole (``k``, ``(..., 1)``) and the copies taken of row ``order[k]``."""
    order = np.argsort(c, axis=-1, kind="stable")
    cs = np.take_along_axis(c, order, axis=-1)
    ms = copies[order]
    with np.errstate(invalid="ignore"):  # inf * 0 copies: nothing to pay
        paid = np.cumsum(np.where(ms > 0, cs * ms, 0.0), axis=-1)
    b = np.asarray(budget, dtype=np.float64)[..., None]
    k = (paid <= b + TOL).sum(axis=-1, keepdims=True)  # rows flipped whole
    spent = np.concatenate([np.zeros_like(paid[..., :1]), paid], axis=-1)
    rest = b[..., 0] - np.take_along_axis(spent, k, axis=-1)[..., 0]
    nxt = np.minimum(k, c.shape[-1] - 1)
    cost_next = np.take_along_axis(cs, nxt, axis=-1)[..., 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        part = np.floor((rest + TOL) / cost_next)
    part = np.where((k[..., 0] < c.shape[-1]) & (cost_next > 0), part, 0.0)
    return order, ms, k, np.minimum(part, np.take_along_axis(ms, nxt, axis=-1)[..., 0])


def _whole_copies(c: np.ndarray, copies: np.ndarray, budget: np.ndarray | float
                  ) -> np.ndarray:
    """Most copies of weight 1 flipped within ``budget`` (:func:`_whole_plan`)."""
    _, ms, k, part = _whole_plan(c, copies, budget)
    whole = np.concatenate([np.zeros_like(ms[..., :1]), np.cumsum(ms, axis=-1)], axis=-1)
    return np.take_along_axis(whole, k, axis=-1)[..., 0] + part


def _whole_picks(c: np.ndarray, copies: np.ndarray, budget: float) -> np.ndarray:
    """The copies of weight 1 of each row that :func:`_whole_copies` flips, ``(n,)``."""
    order, ms, k, part = _whole_plan(c, copies, budget)
    k = int(k[0])
    sorted_picks = np.where(np.arange(len(c)) < k, ms, 0.0)
    if k < len(c):
        sorted_picks[k] = part
    out = np.zeros(len(c))
    out[order] = sorted_picks
    return out


def _fraction_front(c: np.ndarray, frac: np.ndarray, budget: float, rows: bool = False
                    ) -> tuple[np.ndarray, ...]:
    """The Pareto front (cost, weight) of flipping fractional copies (``frac > 0``) of one
    labelling's rows ``c`` within ``budget``; each weight group cheapest first (stable).
    ``rows``: also ``(P, n)`` bool, the rows whose fractional copy each point flips."""
    cost, weight = np.zeros(1), np.zeros(1)
    taken = np.zeros((1, 0), dtype=np.int64)  # rows: copies taken of each group so far
    groups = []
    fits = (frac > 0) & (c <= budget + TOL)
    for v in np.unique(frac[fits]):
        group = np.flatnonzero(fits & (frac == v))
        group = group[np.argsort(c[group], kind="stable")]
        groups.append(group)
        chain = np.concatenate([[0.0], np.cumsum(c[group])])
        # every front point with each prefix of the group: point-major, prefix-minor
        cost = (cost[:, None] + chain[None, :]).ravel()
        weight = (weight[:, None] + v * np.arange(len(chain))[None, :]).ravel()
        keep = cost <= budget + TOL
        if rows:
            taken = np.concatenate([np.repeat(taken, len(chain), axis=0),
                                    np.tile(np.arange(len(chain)), len(taken))[:, None]],
                                   axis=1)[keep]
        cost, weight = cost[keep], weight[keep]
        order = np.lexsort((-weight, cost))
        cost, weight = cost[order], weight[order]
        best_before = np.concatenate([[-np.inf], np.maximum.accumulate(weight)[:-1]])
        keep = weight > best_before  # more weight than every cheaper pair
        cost, weight = cost[keep], weight[keep]
        if rows:
            taken = taken[order][keep]
    if not rows:
        return cost, weight
    flipped = np.zeros((len(cost), len(c)), dtype=bool)
    for g, group in enumerate(groups):
        flipped[:, group] = np.arange(len(group))[None, :] < taken[:, g:g + 1]
    return cost, weight, flipped


def _fraction_totals(row: np.ndarray, copies: np.ndarray, frac: np.ndarray, budget: float,
                     rows: bool = False) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """Most weight flipped of one labelling ``row`` at each point of the fractional copies'
    front (:func:`_fraction_front`, returned too), the rest of the budget spent on whole
    copies: the best response is the best point."""
    front = _fraction_front(row, frac, budget, rows)
    cost, weight = front[0], front[1]
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
    copies = np.ones(len(c)) if weights is None else np.floor(weights)
    frac = np.zeros(len(c)) if weights is None else weights - copies
    if not frac.any():
        return _whole_picks(c, copies, budget)
    total, (cost, _, flipped) = _fraction_totals(c, copies, frac, budget, rows=True)
    # the first best point (least spent on fractional copies): sums of fractions round
    p = int(np.argmax(total >= total.max() - TOL))
    return _whole_picks(c, copies, float(budget - cost[p])) + np.where(flipped[p], frac, 0.0)


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
