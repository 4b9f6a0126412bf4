"""OptimalSurvivalTree (issue #45): the leaf loss and the optimum against an enumeration
written from the definitions (Nelson–Aalen, the Poisson likelihood of LeBlanc & Crowley
minimised numerically over theta), pystreed as a witness on 0/1 data, Harrell's C-index
against its pair definition, and bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from deadlines import CountedDeadline
from oracles import harrell
from scipy.optimize import minimize_scalar

from optrees import OptimalSurvivalTree, OptreesInputError
from optrees.estimators.survival import concordance_index
from optrees.solvers.deadline import Deadline
from optrees.trees.solve.survival import solve_survival_tree

# ------------------------------------------------------------------ oracles, from definitions


def nelson_aalen_at(time, event, w):
    """Lambda0(t_i) for every row: sum over distinct event times s <= t_i of (weight of
    events at s) / (weight of rows with time >= s); 1 / (W + 1) before the first event
    (STreeD's convention)."""
    out = []
    for ti in time:
        total, seen = 0.0, False
        for s in sorted(set(time[event == 1])):
            if s <= ti:
                seen = True
                total += w[(time == s) & (event == 1)].sum() / w[time >= s].sum()
        out.append(total if seen else 1.0 / (w.sum() + 1.0))
    return np.array(out)


def leaf_deviance(h, d, w):
    """min over theta > 0 of sum w (theta h - d - d log(theta h)), numerically (infimum 0
    when no event: theta -> 0)."""
    if not (w * d).sum() > 0:
        return 0.0

    def deviance(log_theta):
        mu = np.exp(log_theta) * h
        return float(w @ (mu - d - d * np.log(mu)))

    return minimize_scalar(deviance, bounds=(-30, 30), method="bounded",
                           options={"xatol": 1e-12}).fun


def _shares(leaves, depth):
    """The left side's shares of a leaf budget worth trying: a side of depth - 1 has at most
    2^(depth-1) leaves, so a larger share adds nothing (and fewer leaves never help)."""
    half = 2 ** (depth - 1)
    return range(max(1, leaves - half), min(leaves - 1, half) + 1)


def best_tree(X, h, d, w, rows, depth, lam, min_leaf, leaves=None):
    """Least loss + lam * leaves over every tree of depth <= depth with at most ``leaves``
    leaves (None: any) on rows (every feature, every threshold between distinct values),
    each leaf >= min_leaf rows."""
    leaves = min(2 ** depth, leaves if leaves is not None else 2 ** depth)
    best = leaf_deviance(h[rows], d[rows], w[rows]) + lam
    if depth == 0 or leaves < 2:
        return best
    for f in range(X.shape[1]):
        values = np.unique(X[rows, f])
        for lo, hi in itertools.pairwise(values):
            go = X[rows, f] <= (lo + hi) / 2
            left, right = rows[go], rows[~go]
            if min(len(left), len(right)) < min_leaf:
                continue
            for k in _shares(leaves, depth):
                best = min(best, best_tree(X, h, d, w, left, depth - 1, lam, min_leaf, k)
                           + best_tree(X, h, d, w, right, depth - 1, lam, min_leaf,
                                       leaves - k))
    return best


def structured(event, time):
    return np.array(list(zip(event.astype(bool), time, strict=True)),
                    dtype=[("event", "?"), ("time", "f8")])


def tiny(seed, n=10):
    """Tied feature values, tied times, censoring."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, 2)).astype(float)
    time = rng.integers(1, 6, size=n).astype(float)
    event = (rng.random(n) < 0.6).astype(float)
    event[0] = 1.0
    return X, time, event


# ------------------------------------------------------------------ the optimum


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("depth", "lam", "min_leaf", "weighted"),
                         [(1, 0.0, 1, False), (2, 0.0, 1, False), (2, 0.02, 1, True),
                          (2, 0.0, 2, True)])
def test_optimum_equals_enumeration(seed, depth, lam, min_leaf, weighted):
    X, time, event = tiny(seed)
    rng = np.random.default_rng(100 + seed)
    w = rng.choice([0.5, 1.0, 2.0, 3.0], size=len(time)) if weighted else np.ones(len(time))
    h = nelson_aalen_at(time, event, w)
    rows = np.arange(len(time))
    one_leaf = leaf_deviance(h, event, w)
    expected = best_tree(X, h / one_leaf, event, w / one_leaf, rows, depth, lam, min_leaf)
    model = OptimalSurvivalTree(depth=depth, lam=lam, min_samples_leaf=min_leaf).fit(
        X, structured(event, time), sample_weight=w if weighted else None)
    assert model.status_ == "optimal"
    assert model.objective_ == pytest.approx(expected, abs=1e-7)
    assert model.bound_ == pytest.approx(model.objective_)
    assert model.stats_["single_leaf_loss"] == pytest.approx(one_leaf, rel=1e-9)
    # each leaf's theta is the maximum-likelihood ratio of its rows: D / L
    leaf = model.apply(X)
    for k in np.unique(leaf):
        D, L = (w * event)[leaf == k].sum(), (w * h)[leaf == k].sum()
        theta = model.predict(X[leaf == k])
        assert theta == pytest.approx(D / L if D > 0 else 0.5 / L, rel=1e-9)
    # every node's theta, internal ones too (a saved model holds them), by that definition
    for node, rows in node_rows(model.tree_, X, 0, np.arange(len(time))):
        D, L = (w * event)[rows].sum(), (w * h)[rows].sum()
        assert model.tree_.value[node] == pytest.approx(D / L if D > 0 else 0.5 / L, rel=1e-9)


def node_rows(tree, X, node, rows):
    """(node, its training rows) for ``node`` and every node below it, by walking the
    fitted tree's tests."""
    yield node, rows
    if tree.left[node] >= 0:
        go_left = X[rows, tree.feature[node]] <= tree.threshold[node]
        yield from node_rows(tree, X, tree.left[node], rows[go_left])
        yield from node_rows(tree, X, tree.right[node], rows[~go_left])


@pytest.mark.parametrize("seed", range(3))
def test_leaf_budget_equals_enumeration(seed):
    X, time, event = tiny(20 + seed, n=11)
    w = np.ones(11)
    h = nelson_aalen_at(time, event, w)
    one_leaf = leaf_deviance(h, event, w)
    expected = best_tree(X, h / one_leaf, event, w / one_leaf, np.arange(11), 2, 0.0, 1, 3)
    model = OptimalSurvivalTree(depth=2, max_leaves=3).fit(X, structured(event, time))
    assert model.status_ == "optimal" and model.tree_.n_leaves <= 3
    assert model.objective_ == pytest.approx(expected, abs=1e-7)


@pytest.mark.parametrize("checks", [0, 2, 10, None])
def test_depth3_stopped_or_not_keeps_a_valid_bound_and_a_real_tree(checks):
    X, time, event = tiny(11, n=13)
    w = np.ones(13)
    h = nelson_aalen_at(time, event, w)
    one_leaf = leaf_deviance(h, event, w)
    best = best_tree(X, h / one_leaf, event, w / one_leaf, np.arange(13), 3, 0.01, 1)
    deadline = Deadline() if checks is None else CountedDeadline(checks)
    result, _ = solve_survival_tree(X, np.column_stack([event, time]), None, 3, 0.01, 1,
                                    deadline)
    assert result.bound <= best + 1e-9 <= result.objective + 2e-9
    if checks is None:
        assert result.status == "optimal"
        assert result.objective == pytest.approx(best, abs=1e-7)
    elif result.status != "optimal":
        assert result.status == "time_limit" and result.bound < result.objective
    # the objective is the returned tree's own loss, leaf by leaf
    leaf = result.model.apply(X)
    own = sum(leaf_deviance(h[leaf == k], event[leaf == k], w[leaf == k])
              for k in np.unique(leaf)) / one_leaf + 0.01 * result.model.n_leaves
    assert result.objective == pytest.approx(own, abs=1e-7)


def test_baseline_is_nelson_aalen_with_ties():
    X, time, event = tiny(7, n=14)
    w = np.arange(1.0, 15.0) / 3
    model = OptimalSurvivalTree(depth=1).fit(X, structured(event, time), sample_weight=w)
    assert model.baseline_(time) == pytest.approx(nelson_aalen_at(time, event, w), rel=1e-12)


def test_integer_weights_are_duplicated_rows():
    X, time, event = tiny(3, n=9)
    w = np.array([1, 2, 1, 3, 1, 1, 2, 1, 2])
    a = OptimalSurvivalTree(depth=2).fit(X, structured(event, time), sample_weight=w)
    rep = np.repeat(np.arange(9), w)
    b = OptimalSurvivalTree(depth=2).fit(X[rep], structured(event[rep], time[rep]))
    assert a.objective_ == pytest.approx(b.objective_, abs=1e-9)
    assert a.predict(X) == pytest.approx(b.predict(X), rel=1e-9)


def test_curves_and_two_column_target():
    X, time, event = tiny(5, n=12)
    model = OptimalSurvivalTree(depth=2).fit(X, np.column_stack([event, time]))
    theta = model.predict(X)
    h = nelson_aalen_at(time, event, np.ones(12))
    at = np.array([0.0, *time])
    chf = model.predict_cumulative_hazard_function(X, at)
    first = time[event == 1].min()
    base = np.concatenate([[0.0], np.where(time >= first, h, 0.0)])
    assert chf == pytest.approx(theta[:, None] * base[None, :], rel=1e-12)
    assert model.predict_survival_function(X, at) == pytest.approx(np.exp(-chf))
    assert model.predict_survival_function(X).shape == (12, len(np.unique(time)))


def test_leaf_kaplan_meier_curves():
    X, time, event = tiny(9, n=14)
    w = np.linspace(0.5, 2.0, 14)
    model = OptimalSurvivalTree(depth=2).fit(X, structured(event, time), sample_weight=w)
    leaf = model.apply(X)
    assert sorted(model.leaf_kaplan_meier_) == sorted(np.unique(leaf).tolist())
    for k, curve in model.leaf_kaplan_meier_.items():
        t, d, v = time[leaf == k], event[leaf == k], w[leaf == k]
        expected = []
        for at in model.unique_times_:
            s = 1.0
            for u in sorted(set(t[d == 1])):
                if u <= at:
                    s *= 1 - v[(t == u) & (d == 1)].sum() / v[t >= u].sum()
            expected.append(s)
        assert curve == pytest.approx(expected, abs=1e-12)


# ------------------------------------------------------------------ the compiled paths


def _survival_data(seed, kind, n=12):
    """Rows of :func:`tiny` with 0/1 columns (``kind`` "binary") or its numeric ones, and
    weights."""
    X, time, event = tiny(seed, n)
    rng = np.random.default_rng(300 + seed)
    if kind == "binary":
        X = (rng.random((n, 4)) < 0.5).astype(float)
    w = rng.choice([0.5, 1.0, 2.0], size=n)
    return X, time, event, w


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("kind", ["binary", "numeric"])
@pytest.mark.parametrize(("lam", "min_leaf"), [(0.0, 1), (0.01, 2)])
def test_compiled_searches_equal_numpy_and_enumeration(seed, depth, kind, lam, min_leaf):
    """The survival leaf cost in the compiled kernels (every threshold; 0/1 columns): the
    optimum of the numpy search and of the enumeration."""
    pytest.importorskip("numba")
    from optrees.trees.problem.objectives.survival import SurvivalLoss
    from optrees.trees.search.regression import RegressionData, kernels, search_tree
    from optrees.trees.search.regression.binary import BinaryRegression, search_binary

    X, time, event, w = _survival_data(seed, kind)
    h = nelson_aalen_at(time, event, w)
    one_leaf = leaf_deviance(h, event, w)
    expected = best_tree(X, h / one_leaf, event, w / one_leaf, np.arange(len(time)), depth,
                         lam, min_leaf)
    loss = SurvivalLoss.fit(np.column_stack([event, time]), w)
    stats = loss.row_stats(np.column_stack([event, time]), w) / one_leaf
    costs = {}
    for name, kernel in (("numpy", None), ("compiled", kernels.for_objective(loss))):
        data = RegressionData(X, stats, loss.leaf_cost, lam, min_leaf, kernel)
        found = search_tree(data, depth, dense_limit=0)  # depth 2 compiled, not dense
        assert found.optimal
        costs[name] = found.cost
    if kind == "binary":
        found = search_binary(BinaryRegression(X, stats, lam, min_leaf, 0, loss), depth)
        assert found.optimal
        costs["binary"] = found.cost
    for name, cost in costs.items():
        assert cost == pytest.approx(expected, abs=1e-7), name


@pytest.mark.parametrize("seed", range(4))
def test_binary_search_depth4_equals_numpy(seed):
    """Depth 4 on 0/1 columns (the compiled depth-3 kernel under a Python root): the numpy
    search's optimum (the enumeration is too slow there; numpy meets it at depths 1-3)."""
    pytest.importorskip("numba")
    from optrees.trees.problem.objectives.survival import SurvivalLoss
    from optrees.trees.search.regression import RegressionData, search_tree
    from optrees.trees.search.regression.binary import BinaryRegression, search_binary

    X, time, event, w = _survival_data(seed, "binary", n=24)
    y = np.column_stack([event, time])
    loss = SurvivalLoss.fit(y, w)
    stats = loss.row_stats(y, w)
    numpy = search_tree(RegressionData(X, stats, loss.leaf_cost, 0.01, 1), 4)
    compiled = search_binary(BinaryRegression(X, stats, 0.01, 1, 0, loss), 4)
    assert numpy.optimal and compiled.optimal
    assert compiled.cost == pytest.approx(numpy.cost, abs=1e-9)


@pytest.mark.parametrize("kind", ["binary", "numeric"])
def test_fit_takes_the_compiled_search_once_loaded(kind):
    """With the kernels loaded, a fit on 0/1 columns takes the 0/1 search, one on numeric
    columns the compiled search over every threshold; both the enumeration's optimum."""
    pytest.importorskip("numba")
    from optrees.trees.problem.objectives.survival import SurvivalLoss
    from optrees.trees.search.regression import binary_kernels, kernels

    X, time, event, w = _survival_data(7, kind, n=13)
    y = np.column_stack([event, time])
    loss = SurvivalLoss.fit(y, w)
    binary_kernels.compile_kernels(binary_kernels.for_objective(loss))
    kernels.compile_kernel(kernels.for_objective(loss))
    h = nelson_aalen_at(time, event, w)
    one_leaf = leaf_deviance(h, event, w)
    expected = best_tree(X, h / one_leaf, event, w / one_leaf, np.arange(13), 3, 0.01, 1)
    model = OptimalSurvivalTree(depth=3, lam=0.01).fit(X, structured(event, time),
                                                       sample_weight=w)
    assert model.stats_["search"] == ("binary" if kind == "binary" else "intervals")
    assert model.stats_["search_backend"] == "numba"
    assert model.status_ == "optimal"
    assert model.objective_ == pytest.approx(expected, abs=1e-7)


# ------------------------------------------------------------------ pystreed, a witness


def _pystreed():
    pystreed = pytest.importorskip("pystreed")
    pytest.importorskip("sksurv")
    solver = pystreed.STreeDSurvivalAnalysis
    original = solver._compute_baseline_cumulative_hazard_function
    if not getattr(original, "_fixed", False):  # numpy 2: it indexes a list by numpy.bool
        def fixed(self, events, times):
            return original(self, [int(e) for e in events], times)
        fixed._fixed = True
        solver._compute_baseline_cumulative_hazard_function = fixed
    return solver


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_pystreed_witness_on_binary_data(seed, depth):
    solver = _pystreed()
    from pystreed.base import BaseSTreeDSolver

    rng = np.random.default_rng(seed)
    n = 100
    X = (rng.random((n, 5)) < 0.5).astype(int)
    time = np.round(rng.exponential(1 / (1 + 2 * X[:, 0] + X[:, 1] * X[:, 2])), 1) + 0.1
    event = rng.random(n) < 0.7
    y = structured(event, time)
    peer = solver(max_depth=depth).fit(X, y)
    ours = OptimalSurvivalTree(depth=depth).fit(X, y)
    assert ours.status_ == "optimal"
    assert ours.stats_["loss"] == pytest.approx(peer.fit_result.score() * n, rel=1e-9)
    peer_theta = np.unique(BaseSTreeDSolver.predict(peer, X))
    if len(peer_theta) == ours.tree_.n_leaves:  # the same leaves, unless trees tie
        assert np.sort(np.unique(ours.predict(X))) == pytest.approx(peer_theta, rel=1e-9)


# ------------------------------------------------------------------ C-index


@pytest.mark.parametrize("seed", range(5))
def test_concordance_index_matches_definition(seed):
    rng = np.random.default_rng(seed)
    n = 40
    time = rng.integers(1, 8, size=n).astype(float)
    event = rng.random(n) < 0.6
    risk = rng.integers(0, 5, size=n).astype(float)  # ties in risk
    assert concordance_index(event, time, risk, block=7) == pytest.approx(
        harrell(event, time, risk), abs=1e-12)


def test_concordance_index_matches_scikit_survival():
    metrics = pytest.importorskip("sksurv.metrics")
    rng = np.random.default_rng(0)
    time = rng.integers(1, 20, size=200).astype(float)
    event = rng.random(200) < 0.5
    risk = rng.random(200)
    assert concordance_index(event, time, risk) == pytest.approx(
        metrics.concordance_index_censored(event, time, risk)[0], abs=1e-12)


def test_score_is_c_index_of_predict():
    X, time, event = tiny(2, n=12)
    y = structured(event, time)
    model = OptimalSurvivalTree(depth=2).fit(X, y)
    assert model.score(X, y) == pytest.approx(harrell(event, time, model.predict(X)))


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(("y", "message"), [
    (np.column_stack([np.ones(6), -np.arange(6.0)]), "finite and >= 0"),
    (np.column_stack([np.zeros(6), np.arange(1.0, 7.0)]), "no event"),
    (np.ones((6, 3)), "2-column"),
    (np.ones(6), "2-column"),
    (np.column_stack([np.full(6, 2.0), np.arange(1.0, 7.0)]), "bool or 0/1"),
    (np.column_stack([np.ones(5), np.arange(1.0, 6.0)]), "with 6 rows"),
])
def test_bad_target_gives_one_clear_error(y, message):
    X = np.arange(12.0).reshape(6, 2)
    with pytest.raises(OptreesInputError, match=message):
        OptimalSurvivalTree(depth=1).fit(X, y)


def _km(t, d, v, at):
    """The weighted product-limit estimate at ``at``, written from its definition."""
    s = 1.0
    for u in sorted(set(t[d == 1])):
        if u <= at:
            s *= 1 - v[(t == u) & (d == 1)].sum() / v[t >= u].sum()
    return s


def test_picture_draws_each_leaf_kaplan_meier_curve_in_its_box(tmp_path):
    from optrees import load_model, save_model

    X, time, event = tiny(9, n=14)
    model = OptimalSurvivalTree(depth=2).fit(X, structured(event, time))
    leaf = model.apply(X)
    fig = model.plot(tmp_path / "tree.png")
    assert (tmp_path / "tree.png").stat().st_size > 0
    insets = [a for a in fig.axes[0].child_axes if (a.get_gid() or "").startswith("curve-")]
    assert len(insets) == len(np.unique(leaf))
    drawn = sorted(tuple(np.round(a.lines[0].get_ydata(), 12)) for a in insets)
    expected = sorted(tuple(np.round([_km(time[leaf == k], event[leaf == k],
                                          np.ones(int((leaf == k).sum())), at)
                                      for at in np.unique(time)], 12))
                      for k in np.unique(leaf))
    assert drawn == expected
    texts = " ".join(t.get_text() for t in fig.axes[0].texts)
    assert "hazard ratio" in texts and "mean" not in texts
    assert "hazard ratio" in model.export_text() and "value" not in model.export_text()
    save_model(model, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    again = loaded.plot()
    assert sorted(tuple(np.round(a.lines[0].get_ydata(), 12))
                  for a in again.axes[0].child_axes) == drawn
    assert loaded.export_text() == model.export_text()
