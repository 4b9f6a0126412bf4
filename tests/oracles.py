"""Independent witnesses for tests: exhaustive search of the optimal tree on tiny instances."""

from __future__ import annotations

from functools import cache
from itertools import product

import numpy as np
from scipy.optimize import linprog


def budget_splits(budget: int, d: int) -> range:
    """Leaves given to the left side when a node of depth ``d`` splits ``budget`` leaves: a
    side of depth d - 1 has at most 2^(d-1) leaves and more budget never hurts, so splits
    that give a side more than that add nothing."""
    half = 2 ** (d - 1)
    return range(max(1, budget - half), min(budget - 1, half) + 1)


def exhaustive_objective(X: np.ndarray, y: np.ndarray, n_classes: int, depth: int,
                         lam: float, penalty: str = "splits",
                         sample_weight: np.ndarray | None = None, min_leaf: int = 1,
                         max_leaves: int | None = None) -> float:
    """Max over all trees of depth <= depth of (1 - lam) * correct - lam * splits (eq. 1 of
    [FlowOCT]) or, with ``penalty="leaves"``, accuracy - lam * leaves (eq. 3a of
    [BendOCT]); with ``sample_weight``, "correct" is the weight of the correct rows and
    accuracy that weight over the total.

    Side constraints: a split needs ``min_leaf`` rows (not weight) on each side (1: any
    split), the tree at most ``max_leaves`` leaves.

    Enumerates every feature at every node and every split of the leaf budget recursively (a
    subtree only sees its own samples, so the best tree is the best root choice plus the best
    subtrees).
    """
    X = np.asarray(X, dtype=bool)
    y = np.asarray(y)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)

    @cache
    def best(rows: tuple[int, ...], d: int, budget: int) -> float:
        idx = np.array(rows, dtype=int)
        counts = (np.bincount(y[idx], weights=w[idx], minlength=n_classes) if len(idx)
                  else np.zeros(1))
        if penalty == "splits":
            value, split_cost = (1 - lam) * counts.max(), lam
        else:
            value, split_cost = counts.max() / w.sum() - lam, 0.0
        if d == 0 or budget < 2:
            return value
        for f in range(X.shape[1]):
            right = X[idx, f]
            if min_leaf > 1 and min(right.sum(), (~right).sum()) < min_leaf:
                continue
            for k in budget_splits(budget, d):
                value = max(value, -split_cost + best(tuple(idx[~right]), d - 1, k)
                            + best(tuple(idx[right]), d - 1, budget - k))
        return value

    return best(tuple(range(len(y))), depth,
                min(2**depth, max_leaves if max_leaves is not None else 2**depth))


def best_tree_over_tests(tests: list[np.ndarray], leaf_value, depth: int,
                         min_leaf: int = 1, max_leaves: int | None = None) -> float:
    """Max over all trees of depth <= ``depth`` and at most ``max_leaves`` leaves (None: any)
    whose internal nodes are any of ``tests`` (boolean masks over the rows: True goes left)
    of the sum of ``leaf_value(member)`` over their leaves (member: boolean mask of the rows
    in the leaf).  Memoized on the row set; a test that leaves one side empty is skipped (it
    is the leaf itself), and so is one that leaves a side fewer than ``min_leaf`` rows."""
    memo: dict = {}

    def best(member: np.ndarray, d: int, budget: int) -> float:
        budget = min(budget, 2**d)
        key = (member.tobytes(), d, budget)
        if key not in memo:
            score = leaf_value(member)
            for left in tests if d and budget >= 2 else []:
                lm, rm = member & left, member & ~left
                if min(lm.sum(), rm.sum()) >= max(1, min_leaf):
                    for k in budget_splits(budget, d):
                        score = max(score, best(lm, d - 1, k) + best(rm, d - 1, budget - k))
            memo[key] = score
        return memo[key]

    return best(np.ones(len(tests[0]) if tests else 0, dtype=bool), depth,
                2**depth if max_leaves is None else max_leaves)


def exhaustive_fair_score(X: np.ndarray, y: np.ndarray, depth: int, coef: np.ndarray,
                          epsilon: float, positive: int = 1, leaf_penalty: float = 0.0,
                          sample_weight: np.ndarray | None = None, min_leaf: int = 1,
                          cells: list[list[int]] | None = None,
                          max_leaves: int | None = None) -> float:
    """Max of ``weighted correct - leaf_penalty * leaves`` over all trees of depth <= depth
    (any number of classes) whose gap coordinates ``x = coef.T @ [prediction == positive]``
    meet the bound: ``|x| <= epsilon`` for one coefficient vector (n,), else, for a matrix
    (n x D), ``max(0, max x_c) - min(0, min x_c) <= epsilon`` in every cell c of ``cells``
    (default: each column its own cell), with at most ``max_leaves`` leaves (None: any).

    Enumerates, for every row set reached, the (coordinates, score) of all its subtrees: the
    leaves with either label and every feature's pairs of child subtrees; of subtrees with the
    same coordinates only the best score can matter (coordinates add up over the leaves).
    """
    X = np.asarray(X, dtype=bool)
    y = np.asarray(y)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    coef = np.asarray(coef, dtype=float)
    coef = coef[:, None] if coef.ndim == 1 else coef
    cells = [[j] for j in range(coef.shape[1])] if cells is None else cells
    zero = (0.0,) * coef.shape[1]

    def key(v) -> tuple[float, ...]:
        return tuple(round(float(x), 12) for x in v)

    budget = 2**depth if max_leaves is None else max_leaves
    # without a leaf budget no tree of depth <= depth can exceed it: leaf counts are not
    # kept apart (one count for all), which merges subtrees of equal coordinates
    counted = budget < 2**depth

    @cache
    def points(rows: tuple[int, ...], d: int) -> dict[tuple, float]:
        """(coordinates, leaves) -> best score of the subtrees of ``rows``."""
        idx = np.array(rows, dtype=int)
        pos = float(w[idx][y[idx] == positive].sum())
        other = max((float(w[idx][y[idx] == k].sum()) for k in np.unique(y)
                     if k != positive), default=0.0)
        out = {(zero, 1): other - leaf_penalty}
        share = (key(coef[idx].sum(axis=0)), 1)
        out[share] = max(out.get(share, -np.inf), pos - leaf_penalty)
        for f in range(X.shape[1]) if d else []:
            right = X[idx, f]
            if min(right.sum(), (~right).sum()) < max(1, min_leaf):
                continue
            left_pts = points(tuple(idx[~right]), d - 1)
            right_pts = points(tuple(idx[right]), d - 1)
            for (dl, ll), sl in left_pts.items():
                for (dr, lr), sr in right_pts.items():
                    if ll + lr <= budget:
                        k = (key(np.add(dl, dr)), ll + lr if counted else 1)
                        out[k] = max(out.get(k, -np.inf), sl + sr)
        return out

    def fair(x: tuple) -> bool:
        return all(max(0.0, max(x[j] for j in c)) - min(0.0, min(x[j] for j in c))
                   <= epsilon + 1e-9 for c in cells)

    return max(s for (x, _), s in points(tuple(range(len(y))), depth).items() if fair(x))


def fair_cells(kind: str, y: np.ndarray, legit: np.ndarray | None = None,
               positive: int = 1) -> list[np.ndarray] | None:
    """The row sets whose groups must predict ``positive`` at rates within epsilon."""
    truth = y == positive
    return {"statistical_parity": [np.ones(len(y), bool)],
            "conditional_parity": [legit == v for v in np.unique(legit)]
            if legit is not None else None,
            "predictive_equality": [~truth], "equal_opportunity": [truth],
            "equalized_odds": [~truth, truth]}[kind]


def fair_coordinates(kind: str, y: np.ndarray, g: np.ndarray, w: np.ndarray,
                     positive: int = 1) -> tuple[np.ndarray, list[list[int]]]:
    """Gap coordinates from the definitions, for ``exhaustive_fair_score``: in each cell of
    rows (:func:`fair_cells`), each group's rate of prediction ``positive`` minus the first
    group's is ``coef.T @ [prediction == positive]`` with ``coef_i = w_i / (weight of i's
    group in the cell)``, negative for the first group; the gap is within epsilon when, per
    cell, ``max(0, max x) - min(0, min x) <= epsilon`` (groups absent from a cell skipped)."""
    columns, cells = [], []
    for cell in fair_cells(kind, y, positive=positive):
        groups = [a for a in np.unique(g) if (cell & (g == a)).any()]
        first = cell & (g == groups[0])
        if len(groups) > 1:
            cells.append([])
        for a in groups[1:]:
            rows = cell & (g == a)
            column = np.zeros(len(y))
            column[rows] = w[rows] / w[rows].sum()
            column[first] = -w[first] / w[first].sum()
            cells[-1].append(len(columns))
            columns.append(column)
    return np.column_stack(columns), cells


def every_threshold_tests(X) -> np.ndarray:
    """0/1 columns of every threshold of every column of the DataFrame ``X``: ``x >= v`` for
    each value ``v`` but the smallest (the same row split as the midpoint below it)."""
    return np.column_stack([(X[c].to_numpy() >= v) for c in X.columns
                            for v in np.unique(X[c])[1:]])


def three_group_classes(seed: int, n: int = 240):
    """``X`` (columns x1, x2, grp), ``y`` (three classes): three groups whose labels are
    noisy to different degrees, so fairness caps on them bind (FairRUG tests)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b", "c"], n, p=[0.3, 0.3, 0.4])
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    noise = np.select([g == "a", g == "b"], [1.2, 0.6], 0.2)
    y = np.digitize(x1 + 0.5 * x2 + rng.normal(scale=noise, size=n), [-0.5, 0.5])
    return pd.DataFrame({"x1": x1, "x2": x2, "grp": g}), y, g


def harrell(event, time, risk) -> float:
    """Harrell's C-index from its pair definition, one pair at a time: the concordant share
    of the comparable pairs (i has an event and t_i < t_j, or t_i == t_j with j censored);
    ties in risk count one half."""
    good = pairs = 0.0
    for i in range(len(time)):
        for j in range(len(time)):
            if event[i] and (time[i] < time[j] or (time[i] == time[j] and not event[j])):
                pairs += 1
                good += 1.0 if risk[i] > risk[j] else 0.5 if risk[i] == risk[j] else 0.0
    return good / pairs


def teacher_scores(teacher, t, y, mu, yhat, K) -> np.ndarray:
    """A policy teacher's n x K scores Gamma, one entry at a time from the papers' formulas:
    ipw 1[t=k] y / mu; dm yhat[k]; dr yhat[k] + 1[t=k] (y - yhat[k]) / mu."""
    G = np.zeros((len(t), K))
    for i in range(len(t)):
        for k in range(K):
            own = 1.0 if t[i] == k else 0.0
            if teacher == "ipw":
                G[i, k] = own * y[i] / mu[i]
            elif teacher == "dm":
                G[i, k] = yhat[i, k]
            else:
                G[i, k] = yhat[i, k] + own * (y[i] - yhat[i, k]) / mu[i]
    return G


def best_by_leaves(X, y, w, rows, depth, min_leaf):
    """{leaves: largest weighted correct} over every tree of depth <= ``depth`` on ``rows``,
    each leaf predicting its weighted majority; a split keeps ``min_leaf`` rows each side."""
    classes = np.unique(y)
    out = {1: max(w[rows][y[rows] == k].sum() for k in classes)}
    if depth == 0:
        return out
    for f in range(X.shape[1]):
        left, right = rows[X[rows, f] == 0], rows[X[rows, f] == 1]
        if len(left) < min_leaf or len(right) < min_leaf:
            continue
        a = best_by_leaves(X, y, w, left, depth - 1, min_leaf)
        b = best_by_leaves(X, y, w, right, depth - 1, min_leaf)
        for (ka, va), (kb, vb) in product(a.items(), b.items()):
            out[ka + kb] = max(out.get(ka + kb, -np.inf), va + vb)
    return out


def front_by_enumeration(X, y, w, depth, min_leaf):
    best = best_by_leaves(X, y, w, np.arange(len(y)), depth, min_leaf)
    return [max(v for k, v in best.items() if k <= budget) for budget in range(1, 2**depth + 1)]


def sse_by_leaves(X, y, w, rows, depth, min_leaf):
    """{leaves: least weighted SSE} over every regression tree of depth <= ``depth`` on
    ``rows``, each leaf predicting its rows' weighted mean, a split at every midpoint between
    two consecutive distinct values of a column, ``min_leaf`` rows each side."""
    yr, wr = y[rows], w[rows]
    mean = np.sum(wr * yr) / np.sum(wr)
    out = {1: float(np.sum(wr * (yr - mean) ** 2))}
    if depth == 0:
        return out
    for f in range(X.shape[1]):
        values = np.unique(X[rows, f])
        for t in (values[:-1] + values[1:]) / 2:
            go = X[rows, f] <= t
            left, right = rows[go], rows[~go]
            if len(left) < min_leaf or len(right) < min_leaf:
                continue
            a = sse_by_leaves(X, y, w, left, depth - 1, min_leaf)
            b = sse_by_leaves(X, y, w, right, depth - 1, min_leaf)
            for (ka, va), (kb, vb) in product(a.items(), b.items()):
                out[ka + kb] = min(out.get(ka + kb, np.inf), va + vb)
    return out


def regression_front_by_enumeration(X, y, w, depth, min_leaf):
    """Per leaf budget 1..2^depth, the least normalised loss ``SSE / (W var(y))`` of a tree
    with at most that many leaves (``W var(y)``: the SSE of one leaf; the total weight for a
    constant target)."""
    X, y, w = np.asarray(X, dtype=float), np.asarray(y, dtype=float), np.asarray(w, float)
    best = sse_by_leaves(X, y, w, np.arange(len(y)), depth, min_leaf)
    scale = best[1] or float(np.sum(w))
    return [min(v for k, v in best.items() if k <= budget) / scale
            for budget in range(1, 2 ** depth + 1)]


# ---------------------------------------------------------------------------- rule LPs
def forest_leaves(est, X) -> dict[tuple[int, int], np.ndarray]:
    """(tree, leaf) -> the rows reaching it, from each tree's own ``apply``."""
    out = {}
    for t, tree in enumerate(est.estimators_):
        leaf = tree.apply(np.asarray(X, dtype=np.float32))
        out.update({(t, int(node)): leaf == node for node in np.unique(leaf)})
    return out


def lp_optimum(cover: np.ndarray, labels: np.ndarray, c: np.ndarray, y: np.ndarray,
               w: np.ndarray, K: int, families: list[list[np.ndarray]], eps: float) -> float:
    """min c'u + w'v  s.t.  v_i + sum_j ahat_ij u_j >= 1,  mean_g v - mean_h v <= eps for
    every ordered pair of groups of a family (means weighted by w), u, v >= 0."""
    n, m = cover.shape
    ahat = cover * np.where(y[:, None] == labels[None, :], 1.0, -1.0 / (K - 1))
    A_ub, b_ub = [-np.hstack([ahat, np.eye(n)])], [-np.ones(n)]
    for fam in families:
        for g in fam:
            for h in fam:
                if g is h:
                    continue
                row = np.zeros(n)
                row[g] += w[g] / w[g].sum()
                row[h] -= w[h] / w[h].sum()
                A_ub.append(np.concatenate([np.zeros(m), row])[None, :])
                b_ub.append(np.array([eps]))
    res = linprog(np.concatenate([c, w]), A_ub=np.vstack(A_ub), b_ub=np.concatenate(b_ub),
                  bounds=(0, None), method="highs")
    assert res.status == 0
    return float(res.fun)


def forest_cover(est, X: np.ndarray, y: np.ndarray, rule_cost: str = "gini"
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every leaf of every tree of the forest ``est`` (RUX's candidate rules): the rows
    each covers (n x leaves), its majority label and its cost over the largest (Gini + 1e-8,
    or ``"length"``: the tests on its path)."""
    K = int(y.max()) + 1
    leaf = est.apply(X)
    cover = np.hstack([leaf[:, [t]] == np.unique(leaf[:, t])[None, :]
                       for t in range(leaf.shape[1])])
    mass = np.stack([cover[y == k].sum(axis=0) for k in range(K)], axis=1).astype(float)
    labels = mass.argmax(axis=1)
    if rule_cost == "gini":
        p = mass / mass.sum(axis=1, keepdims=True)
        c = 1.0 - (p ** 2).sum(axis=1) + 1e-8
    else:  # length: conditions on the path (a depth-2 forest: no test is simplified away)
        depth = np.concatenate([_depths(t.tree_)[np.unique(leaf[:, i])]
                                for i, t in enumerate(est.estimators_)])
        c = np.maximum(depth, 1).astype(float)
    return cover, labels, c / c.max()


def forest_lp(est, X: np.ndarray, y: np.ndarray, groups: np.ndarray | None,
              kind: str | None, eps: float, rule_cost: str = "gini") -> float:
    """(3) over every leaf of every tree of ``est``, with FairRUG's rows of ``kind``
    ("odm", "dmc"; None: none) over two ``groups`` (0, 1)."""
    K = int(y.max()) + 1
    cover, labels, c = forest_cover(est, X, y, rule_cost)
    families = [] if kind is None else (
        [[np.flatnonzero(groups == g) for g in (0, 1)]] if kind == "odm" else
        [[np.flatnonzero((groups == g) & (y == k)) for g in (0, 1)] for k in range(K)])
    return lp_optimum(cover, labels, c, y, np.ones(len(y)), K, families, eps)


def _depths(tree) -> np.ndarray:
    depth = np.zeros(tree.node_count, dtype=np.int64)
    for node in range(tree.node_count):
        for child in (tree.children_left[node], tree.children_right[node]):
            if child >= 0:
                depth[child] = depth[node] + 1
    return depth


def sse(y: np.ndarray, w: np.ndarray) -> float:
    """Weighted sum of squared deviations from the weighted mean (0 for no rows or no
    weight)."""
    if len(y) == 0 or np.sum(w) <= 0:
        return 0.0
    mean = np.sum(w * y) / np.sum(w)
    return float(np.sum(w * (y - mean) ** 2))


def leaf_sizes(tree, X: np.ndarray, rows: np.ndarray | None = None) -> list[int]:
    """Rows per leaf of a nested regression tree ``(feature, threshold, left, right)``,
    ``None`` a leaf (as the searches return it)."""
    rows = np.arange(len(X)) if rows is None else rows
    if tree is None:
        return [len(rows)]
    f, t, left, right = tree
    go = X[rows, f] <= t
    return leaf_sizes(left, X, rows[go]) + leaf_sizes(right, X, rows[~go])


def enumerate_best(X: np.ndarray, y: np.ndarray, w: np.ndarray, depth: int, leaf_cost: float,
                   min_leaf: int = 1, leaves: int | None = None) -> float:
    """Least ``SSE + leaf_cost * leaves`` over every regression tree of depth <= ``depth``
    over every midpoint threshold, at least ``min_leaf`` rows per leaf and at most
    ``leaves`` leaves (None: any; a split gives each child some of them)."""
    leaves = 2**depth if leaves is None else min(leaves, 2**depth)
    best = sse(y, w) + leaf_cost
    if depth == 0 or leaves < 2:
        return best
    for f in range(X.shape[1]):
        values = np.unique(X[:, f])
        for t in (values[:-1] + values[1:]) / 2:
            left = X[:, f] <= t
            if left.sum() < min_leaf or (~left).sum() < min_leaf:
                continue
            for k in budget_splits(leaves, depth):
                cost = (enumerate_best(X[left], y[left], w[left], depth - 1, leaf_cost,
                                       min_leaf, k)
                        + enumerate_best(X[~left], y[~left], w[~left], depth - 1, leaf_cost,
                                         min_leaf, leaves - k))
                best = min(best, cost)
    return best



# ------------------------------------------------------------- stacked regression trees
def binary_regression_best(X: np.ndarray, y: np.ndarray, w: np.ndarray, min_leaf: int,
                           leaf_cost: float):
    """``best(rows, d)``: ``(cost, tree)`` of the least ``SSE + leaf_cost * leaves`` over
    every tree of depth <= d on those rows (0/1 columns, at least ``min_leaf`` rows a leaf;
    a tree: None for a leaf, else ``(column, left, right)``, left where the column is 0).
    Depth 1 takes every column at once from the sides' sums ``(w, w y, w y^2)``."""
    S = np.stack([w, w * y, w * y * y], axis=1)

    def split_sse(s: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return s[..., 2] - s[..., 1] ** 2 / s[..., 0]

    @cache
    def best(rows: tuple, d: int):
        r = np.array(rows, dtype=int)
        cost, tree = sse(y[r], w[r]) + leaf_cost, None
        if d == 1:
            ones = (X[r] == 1)
            right = ones.T.astype(float) @ S[r]
            n1 = ones.sum(axis=0)
            split = split_sse(right) + split_sse(S[r].sum(axis=0) - right) + 2 * leaf_cost
            split = np.where((n1 >= max(min_leaf, 1)) & (len(r) - n1 >= max(min_leaf, 1)),
                             split, np.inf)
            f = int(np.argmin(split)) if len(split) else 0
            if len(split) and split[f] < cost - 1e-12:
                cost, tree = float(split[f]), (f, None, None)
            return cost, tree
        for f in range(X.shape[1]) if d else []:
            right = X[r, f] == 1
            if min(right.sum(), (~right).sum()) < min_leaf:
                continue
            a, b = best(tuple(r[~right]), d - 1), best(tuple(r[right]), d - 1)
            if a[0] + b[0] < cost - 1e-12:
                cost, tree = a[0] + b[0], (f, a[1], b[1])
        return cost, tree

    return best


def binary_sides(X: np.ndarray, rows: tuple, f: int) -> tuple[tuple, tuple]:
    """``rows`` split by 0/1 column ``f``: those where it is 0, those where it is 1."""
    r = np.array(rows, dtype=int)
    return tuple(r[X[r, f] == 0]), tuple(r[X[r, f] == 1])


def stacked_tree(X: np.ndarray, best, rows: tuple, depth: int):
    """The stacked tree ``(cost, tree)``: the best tree of depth <= 3 (of depth 2 when 4
    levels are left), each of its leaves at level L replaced by the stacked tree of depth -
    L on its rows; up to depth 3 the best tree itself (``best``:
    :func:`binary_regression_best`)."""
    if depth <= 3:
        return best(rows, depth)
    cost, tree = best(rows, 2 if depth == 4 else 3)
    if tree is None:
        return cost, None

    def graft(node, rows, level):
        if node is None:
            return stacked_tree(X, best, rows, depth - level)
        f, left, right = node
        (lc, lt), (rc, rt) = (graft(child, side, level + 1) for child, side in
                              zip((left, right), binary_sides(X, rows, f), strict=True))
        return lc + rc, (f, lt, rt)

    return graft(tree, rows, 0)


def polished_stacked_cost(X: np.ndarray, y: np.ndarray, w: np.ndarray, leaf_cost: float,
                          best, rows: tuple, depth: int, min_leaf: int = 1) -> float:
    """The deep fit's cost from its definition: the stacked tree, each subtree 3 levels above
    the bottom replaced by the best depth-3 tree on its rows where cheaper (when the last
    stacked piece is shallower than 3: depths 5, 7 and 8); then each largest subtree of at
    most 3 levels (its rows at least ``2 min_leaf``, above the last level) by the best tree
    as deep as 3 and the depth left allow, where cheaper."""
    cost, tree = stacked_tree(X, best, rows, depth)

    def cost_of(node, rows):
        if node is None:
            r = np.array(rows, dtype=int)
            return sse(y[r], w[r]) + leaf_cost
        return sum(cost_of(child, side) for child, side in
                   zip(node[1:], binary_sides(X, rows, node[0]), strict=True))

    def polish(node, rows, levels):
        if levels == 0:
            own, found = (cost_of(node, rows), node), best(rows, 3)
            return found if found[0] < own[0] - 1e-12 else own
        if node is None:
            return cost_of(None, rows), None
        f, left, right = node
        (lc, lt), (rc, rt) = (polish(child, side, levels - 1) for child, side in
                              zip((left, right), binary_sides(X, rows, f), strict=True))
        return lc + rc, (f, lt, rt)

    if depth != 6:
        cost, tree = polish(tree, rows, depth - 3)

    def height(node):
        return 0 if node is None else 1 + max(height(node[1]), height(node[2]))

    def bottoms(node, rows, level):
        if height(node) <= 3:
            if len(rows) < 2 * max(min_leaf, 1) or level >= depth:
                return cost_of(node, rows)
            return min(cost_of(node, rows), best(rows, min(3, depth - level))[0])
        f, left, right = node
        return sum(bottoms(child, side, level + 1) for child, side in
                   zip((left, right), binary_sides(X, rows, f), strict=True))

    return bottoms(tree, rows, 0)
