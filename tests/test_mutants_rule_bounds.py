"""The pieces RUX's certified bound is made of, each against its definition in plain numpy
(mutation survivors of ``bench/mutation.py rule-bounds`` killed here):

- ``fair_duals``: ``mu`` scaled down (never shifted) until every ``v`` row
  ``beta_i - (F mu)_i <= counts_i`` can hold with ``beta >= 0``, then ``beta`` clipped into
  it;
- ``feasible_duals``: passes that shrink the rows of the rules over their dual row
  ``sum_i ahat_ij beta_i <= c_j`` (a row by the least ratio ``c_j / load_j`` of the rules
  covering it with ``ahat_ij > 0``), then one common scale ``min_j c_j / load_j``;
- ``every_leaf_duals``: every leaf's cost divided by the largest over every leaf (read
  and unread trees);
- ``fair_scales``: the scales of the vote, best first, by their value
  ``t * cost + sum_i w_i max(0, 1 - t s_i)``.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from optrees.rug.certificate import fair_duals, feasible_duals
from optrees.rug.rux_fair import FairRows, fair_scales
from optrees.rug.rux_unread import every_leaf_duals
from optrees.solvers.deadline import Deadline

GINI_FLOOR = 1e-8  # optrees.rug.costs.GINI_FLOOR: a pure leaf's Gini cost


@pytest.mark.parametrize("seed", range(8))
def test_fair_duals_scale_mu_down_and_clip_beta_into_the_v_rows(seed):
    rng = np.random.default_rng(seed)
    n, r = 30, 4
    F = sp.csr_matrix(rng.choice([-1.0, 0.0, 0.5], size=(n, r)))
    counts = rng.uniform(0.0, 1.0, n)
    beta = rng.normal(0.5, 0.5, n)
    mu = rng.normal(1.0, 1.0, r)  # some negative: a stopped solve's duals
    got_beta, got_mu = fair_duals(beta, mu, F, counts)
    plus = np.maximum(mu, 0.0)
    push = F @ plus
    low = counts + push < 0
    t = min(1.0, float(np.min(counts[low] / -push[low]))) if low.any() else 1.0
    assert low.any() or seed > 3  # most seeds need the scale
    np.testing.assert_allclose(got_mu, t * plus, rtol=1e-9, atol=0)
    assert (got_mu >= 0).all() and (counts + F @ got_mu >= -1e-12).all()
    np.testing.assert_allclose(got_beta, np.clip(np.maximum(beta, 0), 0,
                                                 np.maximum(counts + F @ got_mu, 0)))


def _passes(ahat: np.ndarray, c: np.ndarray, beta: np.ndarray, passes: int) -> np.ndarray:
    """feasible_duals written from its definition on a dense matrix (rules x rows)."""
    beta = np.maximum(beta, 0.0)
    for repair in range(passes + 1):
        load = ahat @ beta
        over = load > c
        if not over.any():
            return beta
        if repair == passes:
            return float(np.min(c[over] / load[over])) * beta
        factor = np.where(over, c / np.where(over, load, 1.0), 1.0)
        least = np.array([min([factor[j] for j in range(len(c)) if ahat[j, i] > 0],
                              default=1.0) for i in range(len(beta))])
        beta = beta * least
    raise AssertionError


@pytest.mark.parametrize("passes", [0, 1, 3])
@pytest.mark.parametrize("seed", range(4))
def test_feasible_duals_are_the_passes_then_one_scale(seed, passes):
    rng = np.random.default_rng(seed)
    m, n = 12, 25
    ahat = np.where(rng.random((m, n)) < 0.3, rng.choice([1.0, -0.5], size=(m, n)), 0.0)
    stored = sp.csr_matrix(ahat)
    zeros = (rng.random((m, n)) < 0.2) & (ahat == 0)  # explicit zeros: they cover nothing
    stored = sp.csr_matrix((np.r_[stored.tocoo().data, np.zeros(zeros.sum())],
                            (np.r_[stored.tocoo().row, np.nonzero(zeros)[0]],
                             np.r_[stored.tocoo().col, np.nonzero(zeros)[1]])), shape=(m, n))
    c = rng.uniform(0.05, 0.6, m)
    beta = rng.uniform(0.0, 1.0, n)
    got = feasible_duals(stored, c, beta, passes)
    want = _passes(ahat, c, beta, passes)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert (got >= 0).all() and (got <= beta + 1e-15).all()
    assert (ahat @ got <= c * (1 + 1e-12)).all()


class _Stump:
    """An unread tree with a fixed leaf per row and a given depth."""

    def __init__(self, leaf: np.ndarray, depth: int = 2) -> None:
        self.leaf, self._depth = leaf, depth

    def apply(self, X):
        return self.leaf

    def depth(self):
        return self._depth


def _gini(mass: np.ndarray) -> np.ndarray:
    p = mass / mass.sum(axis=1, keepdims=True)
    return 1.0 - (p ** 2).sum(axis=1) + GINI_FLOOR


@pytest.mark.parametrize("rule_cost", ["unit", "gini"])
def test_unread_costs_are_divided_by_the_largest_over_every_leaf(rule_cost):
    """Two unread trees, the second with the costliest leaf.  Duals already feasible and
    tight for the costs of the definition come back unchanged (a larger divisor, e.g. the
    depth for unit costs or the first unread tree's largest cost, would shrink them)."""
    rng = np.random.default_rng(0)
    n, K = 12, 2
    X = np.arange(float(n))[:, None]
    y = np.array([0, 1] * 6)
    w = np.ones(n)
    read_cover = np.column_stack([y == 0, y == 1])  # pure leaves: the cheapest Gini
    read_labels = np.array([0, 1])
    mass_read = np.array([[6.0, 0.0], [0.0, 6.0]])
    raw_read = np.ones(2) if rule_cost == "unit" else _gini(mass_read)
    t1 = _Stump(np.where(np.isin(np.arange(n), [0, 1, 2, 4, 6]), 0, 1))  # Gini 0.32, 0.41
    t2 = _Stump(np.where(np.arange(n) < 4, 0, 1), depth=3)  # Gini 0.5: the costliest
    leaves = [read_cover[:, 0], read_cover[:, 1]]
    labels, raws = list(read_labels), list(raw_read)
    for tree in (t1, t2):
        for k in np.unique(tree.leaf):
            rows = tree.leaf == k
            mass = np.bincount(y[rows], minlength=K)[None, :].astype(float)
            leaves.append(rows)
            labels.append(int(np.argmax(mass)))
            raws.append(1.0 if rule_cost == "unit" else float(_gini(mass)[0]))
    c = np.array(raws) / max(raws)
    A = np.where(y[None, :] == np.array(labels)[:, None], 1.0, -1.0) * np.array(leaves, float)
    beta = rng.uniform(0.2, 1.0, n)
    load = A @ beta
    beta = beta * np.min(c[load > 0] / load[load > 0])  # feasible, one row tight
    assert np.isclose((A @ beta / c).max(), 1.0)
    got = every_leaf_duals([t1, t2], X, y, w, K, beta, 1.0, rule_cost,
                           sp.csc_matrix(read_cover), read_labels, raw_read, Deadline())
    np.testing.assert_allclose(got, beta, rtol=1e-12)
    # 10 % over at the tight leaf: shrunk into every leaf's row (a smaller divisor, e.g.
    # the first unread tree's largest cost, would leave them over)
    got = every_leaf_duals([t1, t2], X, y, w, K, 1.1 * beta, 1.0, rule_cost,
                           sp.csc_matrix(read_cover), read_labels, raw_read, Deadline())
    assert (A @ got <= c * (1 + 1e-12)).all() and (got >= 0).all()


def _value(t: float, s: np.ndarray, w: np.ndarray, cost: float) -> float:
    return t * cost + float(w @ np.maximum(0.0, 1.0 - t * s))


@pytest.mark.parametrize("seed", range(10))
def test_fair_scales_come_best_first_by_their_value(seed):
    """Without fairness rows: the scales are ordered by their value from the definition,
    the first is the least over a fine grid, and rows whose margin is never positive never
    reach a slack of 0 (they count on every segment)."""
    rng = np.random.default_rng(seed)
    n = 40
    s = np.round(rng.normal(0.3, 1.0, n), 2)
    s[: n // 3] = -np.abs(s[: n // 3]) - 0.1  # a third never reach 0
    w = rng.uniform(0.5, 2.0, n)
    cost = float(rng.uniform(0.05, 2.0))
    ts = fair_scales(s, w, cost, FairRows([], w, 0.0))
    if not len(ts):
        return
    values = [_value(t, s, w, cost) for t in ts]
    assert all(a <= b + 1e-9 for a, b in zip(values, values[1:], strict=False))
    top = 1.05 / s[s > 0].min()
    grid = np.r_[np.linspace(0.0, top, 20001), 1.0 / s[s > 0]]
    assert values[0] <= min(_value(t, s, w, cost) for t in grid) + 1e-9


def test_fair_rows_of_one_group_or_of_no_weight_ask_nothing():
    """A family with one group of positive weight has no row (gap 0); a group of weight 0
    is left out; a group of one row of weight 1 is kept (the sets' columns are w_i / W_g)."""
    w = np.array([1.0, 2.0, 0.0, 0.0, 1.0, 3.0])
    rows = FairRows([[np.array([0, 1]), np.array([2, 3])],  # the second weighs 0
                     [np.array([4]), np.array([5])]], w, 0.1)
    v = np.array([0.9, 0.0, 1.0, 1.0, 0.5, 0.2])
    np.testing.assert_allclose(rows.gaps(v), [0.0, 0.3])
    assert rows.holds(np.array([0.9, 0.0, 1.0, 1.0, 0.5, 0.45]))
    P, pg, ph = rows.sets()
    want = np.zeros((6, 3))
    want[[0, 1], 0] = [1 / 3, 2 / 3]
    want[4, 1], want[5, 2] = 1.0, 1.0
    np.testing.assert_allclose(P.toarray(), want)
    assert sorted(zip(pg.tolist(), ph.tolist(), strict=True)) == [(1, 2), (2, 1)]


def test_groups_alike_keep_every_scale_of_the_vote():
    """Two groups holding the same margins: every slack vector meets the rows (gap 0, at
    eps 0 too), so the fair scales are the scales without rows (a row ``alpha + beta t``
    with ``beta = 0`` and ``alpha <= eps`` bounds nothing)."""
    rng = np.random.default_rng(2)
    s = np.round(rng.normal(0.4, 0.8, 20), 2)
    s2, w2 = np.r_[s, s], np.ones(40)
    free = fair_scales(s2, w2, 0.7, FairRows([], w2, 0.0))
    fair = fair_scales(s2, w2, 0.7, FairRows([[np.arange(20), np.arange(20, 40)]], w2, 0.0))
    assert len(free) > 0
    np.testing.assert_allclose(fair, free)
