"""OptimalPolicyTree against oracles written from the definitions (FlowOPT / pystreed
teachers; a policy tree maximises sum_i w_i Gamma[i, treatment of i's leaf] / W - lam *
leaves), an enumeration of every tree, and pystreed's policy generator as a witness."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from oracles import teacher_scores

from optrees import OptimalPolicyTree, OptreesInputError


# ---------------------------------------------------------------- oracles from the definitions
def splits_of(X):
    """Every test ``x_f <= c`` with both sides possibly non-empty: midpoints of distinct
    values of each column."""
    out = []
    for f in range(X.shape[1]):
        v = np.unique(X[:, f])
        out += [(f, (a + b) / 2) for a, b in zip(v[:-1], v[1:], strict=True)]
    return out


def best_tree_value(X, G, w, depth, lam, min_leaf, max_leaves=None):
    """max over every tree of depth <= ``depth`` (every split of both sides >= min_leaf
    rows, at most ``max_leaves`` leaves) of sum_leaves max_k sum_i w_i G[i, k] / W - lam *
    leaves, by enumerating trees recursively (the objective adds over leaves)."""
    W = w.sum()
    tests = splits_of(X)

    def best(rows, d, budget):
        leaf = (w[rows] @ G[rows]).max() / W - lam
        top = leaf
        if d == 0 or budget < 2:
            return top
        for f, c in tests:
            left, right = rows[X[rows, f] <= c], rows[X[rows, f] > c]
            if len(left) < max(1, min_leaf) or len(right) < max(1, min_leaf):
                continue
            # a side's most leaves is 2^(d-1): a larger share of the budget adds nothing
            for b in range(max(1, budget - 2 ** (d - 1)), min(budget - 1, 2 ** (d - 1)) + 1):
                top = max(top, best(left, d - 1, b) + best(right, d - 1, budget - b))
        return top

    return best(np.arange(len(G)), depth, min(max_leaves or 2**depth, 2**depth))


def policy_value(G, w, treatments):
    return float(G[np.arange(len(G)), treatments] @ w / w.sum())


def make_data(seed, n, K, numeric=False):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, (n, 3)), columns=["a", "b", "c"])
    if numeric:  # a numeric column with ties
        X["z"] = rng.choice([0.0, 0.5, 1.5, 3.0, 7.0], n)
    t = rng.integers(0, K, n)
    t[:K] = np.arange(K)
    y = rng.normal(size=n) + 1.5 * (t == (X["a"] + X["b"]).to_numpy() % K)
    mu = rng.uniform(0.2, 1.0, n)
    yhat = rng.normal(size=(n, K))
    w = rng.integers(1, 4, n).astype(float)
    return X, t, y, mu, yhat, w


# ---------------------------------------------------------------- the teachers' scores
@pytest.mark.parametrize("teacher", ["ipw", "dm", "dr"])
def test_scores_are_the_teachers(teacher):
    X, t, y, mu, yhat, _ = make_data(0, 30, 3)
    m = OptimalPolicyTree(depth=1, teacher=teacher).fit(X, t, y, propensity=mu,
                                                        outcome_predictions=yhat)
    np.testing.assert_allclose(m.scores_, teacher_scores(teacher, t, y, mu, yhat, 3))


def test_propensity_matrix_reads_each_rows_own_treatment():
    X, t, y, mu, yhat, _ = make_data(1, 20, 3)
    P = np.full((20, 3), 0.5)
    P[np.arange(20), t] = mu
    m = OptimalPolicyTree(depth=1, teacher="ipw").fit(X, t, y, propensity=P)
    np.testing.assert_allclose(m.scores_, teacher_scores("ipw", t, y, mu, None, 3))


# ---------------------------------------------------------------- the optimum
CASES = [  # (seed, n, K, depth, lam, min_leaf, weighted, numeric, max_leaves)
    (2, 24, 2, 1, 0.0, 1, False, False, None),
    (3, 30, 3, 2, 0.0, 1, True, False, None),
    (4, 30, 3, 2, 0.05, 4, True, False, None),
    (5, 28, 2, 2, 0.0, 5, False, True, None),
    (6, 30, 3, 2, 0.02, 3, True, True, None),
    (7, 30, 3, 2, 0.0, 1, True, False, 3),
    (8, 26, 3, 1, 0.0, 6, True, True, None),
]


@pytest.mark.parametrize("teacher", ["ipw", "dm", "dr"])
@pytest.mark.parametrize("case", CASES)
def test_optimal_tree_equals_enumeration(teacher, case):
    seed, n, K, depth, lam, min_leaf, weighted, numeric, max_leaves = case
    X, t, y, mu, yhat, w = make_data(seed, n, K, numeric)
    w = w if weighted else np.ones(n)
    m = OptimalPolicyTree(depth=depth, lam=lam, teacher=teacher, min_samples_leaf=min_leaf,
                          max_leaves=max_leaves, time_limit=60).fit(
        X, t, y, propensity=mu, outcome_predictions=yhat,
        sample_weight=w if weighted else None)
    G = teacher_scores(teacher, t, y, mu, yhat, K)
    want = best_tree_value(X.to_numpy(float), G, w, depth, lam, min_leaf, max_leaves)
    assert m.status_ == "optimal"
    got = policy_value(G, w, m.predict(X)) - lam * m.tree_.n_leaves
    assert got == pytest.approx(want, abs=1e-9)
    assert m.objective_ == pytest.approx(want, abs=1e-9)
    assert m.bound_ == pytest.approx(want, abs=1e-9)
    # the leaf-size constraint holds on the real rows
    leaves = m.apply(X)
    assert np.bincount(leaves)[np.unique(leaves)].min() >= min_leaf
    if max_leaves is not None:
        assert m.tree_.n_leaves <= max_leaves
    # predict_value: the leaf's weighted mean score of its treatment
    v = m.predict_value(X)
    rec = m.predict(X)
    for leaf in np.unique(leaves):
        rows = leaves == leaf
        assert v[rows] == pytest.approx(G[rows, rec[rows][0]] @ w[rows] / w[rows].sum())


def test_zero_weight_rows_are_left_out():
    X, t, y, mu, yhat, w = make_data(9, 30, 3)
    w[::4] = 0.0
    m = OptimalPolicyTree(depth=2, teacher="dr", min_samples_leaf=3).fit(
        X, t, y, mu, yhat, sample_weight=w)
    keep = w > 0
    G = teacher_scores("dr", t, y, mu, yhat, 3)[keep]
    want = best_tree_value(X.to_numpy(float)[keep], G, w[keep], 2, 0.0, 3)
    assert m.objective_ == pytest.approx(want, abs=1e-9)


# ---------------------------------------------------------------- pystreed as a witness
@pytest.mark.parametrize("teacher", ["ipw", "dm", "dr"])
@pytest.mark.parametrize("depth,K", [(2, 2), (2, 3), (3, 3)])
def test_pystreed_finds_the_same_value(teacher, depth, K):
    pystreed = pytest.importorskip("pystreed")
    rng = np.random.default_rng(10 + depth + K)
    n = 300
    X = rng.integers(0, 2, (n, 6))
    t = rng.integers(0, K, n)
    y = rng.normal(size=n) + 2.0 * (t == (X[:, 0] + X[:, 1] * X[:, 2]) % K)
    mu = rng.uniform(0.2, 0.9, n)
    yhat = y[:, None] * 0.3 + rng.normal(size=(n, K))
    Y = np.column_stack([t, y, mu, yhat])
    peer = pystreed.STreeDPrescriptivePolicyGenerator(max_depth=depth, teacher_method=
                                                      teacher.upper(), time_limit=60)
    peer.fit(X, Y)
    ours = OptimalPolicyTree(depth=depth, teacher=teacher, binarizer=None).fit(
        X, t, y, mu, yhat)
    G = teacher_scores(teacher, t, y, mu, yhat, K)
    w = np.ones(n)
    theirs = policy_value(G, w, np.asarray(peer.predict(X), dtype=int))
    assert ours.status_ == "optimal"
    assert policy_value(G, w, ours.predict(X)) == pytest.approx(theirs, rel=1e-9, abs=1e-9)
    assert ours.objective_ == pytest.approx(theirs, rel=1e-9, abs=1e-9)


# ---------------------------------------------------------------- cross-fitting
def test_cross_fitted_estimates_come_from_other_folds():
    from sklearn.dummy import DummyClassifier, DummyRegressor

    X, t, y, _, _, _ = make_data(11, 60, 3)
    m = OptimalPolicyTree(depth=1, teacher="dr", cv=3, random_state=0,
                          propensity_model=DummyClassifier(strategy="prior"),
                          outcome_model=DummyRegressor()).fit(X, t, y)
    mu, yhat = m.propensity_, m.outcome_predictions_
    assert mu.shape == (60,) and yhat.shape == (60, 3)
    # rows sharing a prediction of treatment 0 form a fold; each estimate is the mean / share
    # over the rows outside it (so never over the row itself)
    folds = [yhat[:, 0] == v for v in np.unique(yhat[:, 0])]
    assert len(folds) == 3
    for fold in folds:
        out = ~fold
        for k in range(3):
            assert yhat[fold, k] == pytest.approx(y[out & (t == k)].mean())
        for i in np.flatnonzero(fold):
            assert mu[i] == pytest.approx(max(0.01, np.mean(t[out] == t[i])))
    np.testing.assert_allclose(m.scores_, teacher_scores("dr", t, y, mu, yhat, 3))


def test_teacher_reads_only_what_it_needs():
    X, t, y, mu, yhat, _ = make_data(12, 40, 2)
    m = OptimalPolicyTree(depth=1, teacher="ipw", cv=2).fit(X, t, y)
    assert m.outcome_predictions_ is None and m.propensity_.shape == (40,)
    m = OptimalPolicyTree(depth=1, teacher="dm", cv=2).fit(X, t, y, propensity=mu)
    assert m.propensity_ is None and m.outcome_predictions_.shape == (40, 2)


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("change,words", [
    (lambda a: {**a, "treatment": np.r_[a["treatment"][:-1], 3]}, "codes 0..2"),
    (lambda a: {**a, "treatment": np.r_[a["treatment"][:-1], -1]}, "integer codes"),
    (lambda a: {**a, "treatment": np.r_[a["treatment"][:-1], 0.5]}, "integer codes"),
    (lambda a: {**a, "propensity": np.r_[a["propensity"][:-1], 0.0]}, "(0, 1]"),
    (lambda a: {**a, "propensity": np.r_[a["propensity"][:-1], 1.5]}, "(0, 1]"),
    (lambda a: {**a, "propensity": a["propensity"][:-1]}, "one number per row"),
    (lambda a: {**a, "outcome": a["outcome"][:-1]}, "one number per row"),
    (lambda a: {**a, "outcome": np.r_[a["outcome"][:-1], np.nan]}, "missing"),
    (lambda a: {**a, "outcome_predictions": a["outcome_predictions"][:-1]}, "n x K"),
    (lambda a: {**a, "outcome_predictions": a["outcome_predictions"][:, 0]}, "n x K"),
])
def test_bad_input_gives_one_clear_error(change, words):
    X, t, y, mu, yhat, _ = make_data(13, 20, 3)
    args = change({"treatment": t, "outcome": y, "propensity": mu,
                   "outcome_predictions": yhat})
    with pytest.raises(OptreesInputError, match=words.replace("(", r"\(").replace(
            ")", r"\)").replace("]", r"\]").replace(".", r"\.")):
        OptimalPolicyTree(depth=1, teacher="dr").fit(X, **args)


def test_bad_teacher_and_too_few_rows_for_folds():
    X, t, y, mu, yhat, _ = make_data(14, 20, 3)
    with pytest.raises(OptreesInputError, match="teacher"):
        OptimalPolicyTree(teacher="best").fit(X, t, y, mu, yhat)
    t2 = t.copy()
    t2[:] = 0
    t2[:3] = [1, 1, 2]
    with pytest.raises(OptreesInputError, match="fewer than the 5 folds"):
        OptimalPolicyTree(teacher="dr").fit(X, t2, y)


@pytest.mark.parametrize("seed,K,min_leaf", [(3, 3, 1), (4, 3, 4), (5, 2, 3)])
def test_mip_alone_finds_the_same_optimum(monkeypatch, seed, K, min_leaf):
    """Without the searches (as after a search stopped by the time limit) the BendOCT MIP on
    the pseudo-rows proves the same optimum."""
    from optrees.estimators import policy
    from optrees.trees.solve.fit import TreeMethod

    monkeypatch.setattr(policy, "TreeMethod",
                        lambda form, search, penalty, name: TreeMethod(form, False, penalty,
                                                                       name))
    X, t, y, mu, yhat, w = make_data(seed, 30, K)
    m = OptimalPolicyTree(depth=2, lam=0.01, teacher="dr", min_samples_leaf=min_leaf).fit(
        X, t, y, mu, yhat, sample_weight=w)
    G = teacher_scores("dr", t, y, mu, yhat, K)
    want = best_tree_value(X.to_numpy(float), G, w, 2, 0.01, min_leaf)
    assert m.status_ == "optimal" and "search_seconds" not in m.stats_
    assert m.objective_ == pytest.approx(want, abs=1e-9)
    assert policy_value(G, w, m.predict(X)) - 0.01 * m.tree_.n_leaves == \
        pytest.approx(want, abs=1e-9)


def test_cross_fitting_leaves_out_zero_weight_rows():
    from sklearn.dummy import DummyRegressor

    X, t, y, mu, _, _ = make_data(15, 40, 2)
    w = np.ones(40)
    w[5] = 0.0
    y[5] = 1e6  # seen by no model
    m = OptimalPolicyTree(depth=1, teacher="dm", cv=2, outcome_model=DummyRegressor()).fit(
        X, t, y, mu, sample_weight=w)
    assert np.isnan(m.outcome_predictions_[5]).all()
    assert np.nanmax(m.outcome_predictions_) < 100
    assert np.isnan(m.scores_[5]).all() and np.isfinite(np.delete(m.scores_, 5, 0)).all()


def test_view_bound_maps_back_to_regret():
    """For any policy, the view's weighted accuracy maps back (ClassificationView.bound) to
    its regret per unit of weight + lam * leaves, regret from the definition."""
    from optrees.trees.problem.objectives.policy import PolicyScores

    rng = np.random.default_rng(16)
    n, K, lam, leaves = 40, 3, 0.03, 4
    G = rng.normal(size=(n, K))
    w = rng.uniform(0.5, 2.0, n)
    view = PolicyScores(G).view(None, w)
    W, Wv = w.sum(), view.weights.sum()
    for _ in range(5):
        pred = rng.integers(0, K, n)
        correct = view.weights[view.labels == pred[view.rows]].sum()
        view_objective = correct / Wv - view.lam(lam, "leaves", W) * leaves
        regret = sum(w[i] * (G[i].max() - G[i, pred[i]]) for i in range(n))
        assert view.bound(view_objective, lam, "leaves", W) == pytest.approx(
            regret / W + lam * leaves)


def test_stopped_fit_reports_an_upper_bound(monkeypatch):
    """A fit stopped early (status time_limit) reports the value objective and an upper
    bound above it: the regret's lower bound mapped back.  The solve works in outcomes
    divided by a power of two, so its bound is moved by a tenth of its regret (the same
    share in any units)."""
    import optrees.estimators.policy as policy
    from optrees.estimators._base import TimeLimitWarning

    real = policy.TreeFit

    class Stopped(real):
        def solve(self, *args, **kwargs):
            result, encoding = super().solve(*args, **kwargs)
            result.status = "time_limit"
            result.bound = result.objective - 0.1 * abs(result.objective)
            return result, encoding

    monkeypatch.setattr(policy, "TreeFit", Stopped)
    X, t, y, mu, yhat, w = make_data(17, 30, 3)
    with pytest.warns(TimeLimitWarning):
        m = OptimalPolicyTree(depth=2, teacher="dr").fit(X, t, y, mu, yhat, sample_weight=w)
    G = teacher_scores("dr", t, y, mu, yhat, 3)
    assert m.objective_ == pytest.approx(policy_value(G, w, m.predict(X)))
    # the regret: the best treatment's score of each row, less the policy's, per weight
    regret = float(w @ (G.max(axis=1) - G[np.arange(len(t)), m.predict(X)]) / w.sum())
    assert regret > 0.05
    assert m.bound_ == pytest.approx(m.objective_ + 0.1 * regret)
    assert m.gap_ == pytest.approx(0.1 * regret / abs(m.objective_))


def test_indifferent_scores_give_one_leaf():
    """Every treatment scores the same for every row: one leaf, value = mean score."""
    X, t, y, _, _, w = make_data(18, 30, 2)
    yhat = np.repeat(np.random.default_rng(18).normal(size=(30, 1)), 2, axis=1)
    m = OptimalPolicyTree(depth=2, teacher="dm", lam=0.01).fit(
        X, t, y, outcome_predictions=yhat, sample_weight=w)
    assert m.status_ == "optimal" and m.tree_.n_leaves == 1
    assert m.objective_ == pytest.approx(yhat[:, 0] @ w / w.sum() - 0.01)


def test_text_shows_treatments_and_estimated_outcomes_not_accuracy():
    """Each printed leaf: its treatment (the policy's for the rows on that path, read on the
    raw frame), its weight and the mean teacher score of that treatment there (from the
    definition); no class probabilities are offered."""
    X, t, y, mu, yhat, w = make_data(4, 60, 3)
    m = OptimalPolicyTree(depth=2, teacher="dr").fit(X, t, y, propensity=mu,
                                                     outcome_predictions=yhat, sample_weight=w)
    G = teacher_scores("dr", t, y, mu, yhat, 3)
    text = m.export_text()
    assert "correct" not in text and not hasattr(m, "predict_proba")
    path, seen = [], 0
    for line in text.splitlines():
        depth = line.index("|---") // 4 if "|---" in line else 0
        item = line.split("|--- ", 1)[-1]
        path = path[:depth]
        if not item.startswith("treatment:"):
            path.append(item)
            continue
        rows = np.ones(len(X), bool)
        for test in path:
            col = test[4:] if test.startswith("not ") else test
            rows &= (X[col] == 0).to_numpy() if test.startswith("not ") else \
                (X[col] == 1).to_numpy()
        k = int(item.split()[1])
        assert (m.predict(X[rows]) == k).all()
        assert int(item.split("n=")[1].split(",")[0]) == rows.sum()  # rows, then weight
        weight = float(item.split("weight ")[1].split(",")[0])
        assert weight == pytest.approx(w[rows].sum())
        outcome = float(item.split("estimated outcome ")[1].rstrip(")"))
        assert outcome == pytest.approx(G[rows, k] @ w[rows] / w[rows].sum(), rel=1e-5)
        seen += 1
    assert seen == m.tree_.n_leaves >= 2


def test_picture_shows_treatments_and_estimated_outcomes(tmp_path):
    """The picture's leaf boxes: the leaf's treatment and its estimated outcome (the mean
    teacher score of that treatment there, from the definition); no class purity; the
    loaded model draws the same texts."""
    import matplotlib

    matplotlib.use("Agg")
    from optrees import load_model, save_model

    X, t, y, mu, yhat, w = make_data(4, 60, 3)
    m = OptimalPolicyTree(depth=2, teacher="dr").fit(X, t, y, propensity=mu,
                                                     outcome_predictions=yhat, sample_weight=w)
    G = teacher_scores("dr", t, y, mu, yhat, 3)
    leaves, rec = m.apply(X), m.predict(X)
    want = set()
    for leaf in np.unique(leaves):
        rows = leaves == leaf
        value = G[rows, rec[rows][0]] @ w[rows] / w[rows].sum()
        want.add(f"treatment = {rec[rows][0]}")
        want.add(f"est. outcome {value:.4g}")
    texts = {s for txt in m.plot().axes[0].texts for s in txt.get_text().replace(", ", "\n")
             .splitlines()}
    assert want <= texts and not any("class" in s for s in texts)
    save_model(m, tmp_path / "p.json")
    loaded = {s for txt in load_model(tmp_path / "p.json").plot().axes[0].texts
              for s in txt.get_text().replace(", ", "\n").splitlines()}
    assert loaded == texts


@pytest.mark.parametrize("min_leaf,said", [(1, None), (3, "min_samples_leaf=3")])
def test_side_constraints_are_said_in_the_users_rows(min_leaf, said):
    """Over every threshold (a numeric column) the search runs on K - 1 pseudo-rows per row;
    ``stats_`` names the leaf size the user set, not the pseudo-rows' (was 2 and 6)."""
    X, t, y, mu, yhat, w = make_data(3, 40, 3, numeric=True)
    m = OptimalPolicyTree(depth=2, teacher="dm", min_samples_leaf=min_leaf).fit(
        X, t, y, outcome_predictions=yhat)
    assert m.thresholds_ == "all"
    assert m.stats_.get("side_constraints") == said


def test_treatments_without_rows_are_named_in_a_warning():
    """A 20 x 5 outcome_predictions matrix for two observed treatments was taken silently and
    the tree recommended treatments 2 and 4 (legitimate for 'dm' when a model predicts
    them, but a wrong matrix looks the same): it warns, naming them."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 5, (20, 2)).astype(float)
    t, y, mu = rng.integers(0, 2, 20), rng.normal(size=20), rng.normal(size=(20, 5))
    with pytest.warns(UserWarning, match=r"treatments \[2, 3, 4\] of the K = 5 columns"):
        OptimalPolicyTree(depth=1, teacher="dm", time_limit=30).fit(
            X, t, y, outcome_predictions=mu)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every treatment observed: no warning
        OptimalPolicyTree(depth=1, teacher="dm", time_limit=30).fit(
            X, t, y, outcome_predictions=mu[:, :2])
