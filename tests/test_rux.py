"""RUXClassifier: an ensemble's leaves as rules, weighted by RUG's master LP solved once.

Oracles from the definitions: a leaf's rows are those the ensemble's own ``apply`` sends
there; the LP is [RUG] (3) built densely here and solved by scipy's linprog; a prediction is
the weighted vote of the covering rules ([RUG] §3.1), the coverage again from ``apply``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import linprog
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.ensemble import (
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
    RandomForestClassifier,
)
from sklearn.linear_model import LogisticRegression

from optrees import OptreesInputError, RUXClassifier


def _data(name: str) -> tuple[pd.DataFrame, np.ndarray]:
    if name == "iris":
        X, y = load_iris(return_X_y=True, as_frame=True)
        return X, y.to_numpy()
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    rows = np.random.default_rng(0).choice(len(X), 150, replace=False)
    return X.iloc[rows, :6].reset_index(drop=True), y.to_numpy()[rows]


def _ensemble(kind: str, X: pd.DataFrame, y: np.ndarray):
    if kind == "rf":
        return RandomForestClassifier(8, max_depth=3, random_state=0).fit(X, y)
    if kind == "et":
        return ExtraTreesClassifier(6, max_depth=3, random_state=0).fit(X, y)
    return GradientBoostingClassifier(n_estimators=5, max_depth=2, random_state=0).fit(X, y)


def _trees(est) -> list:
    return list(np.asarray(est.estimators_, dtype=object).ravel())


def _leaves(est, X: pd.DataFrame) -> list[tuple[int, int, np.ndarray]]:
    """(tree, leaf node, rows reaching it) for every leaf some row of X reaches."""
    out = []
    for t, tree in enumerate(_trees(est)):
        leaf = tree.apply(X.to_numpy(dtype=np.float32))
        out += [(t, int(node), leaf == node) for node in np.unique(leaf)]
    return out


def _coverage(rules, est, X: pd.DataFrame) -> np.ndarray:
    """(n, m): rule j covers row i, from the ensemble's apply at the rule's (tree, node)."""
    trees = _trees(est)
    X32 = X.to_numpy(dtype=np.float32)
    return np.column_stack([trees[r.meta["tree"]].apply(X32) == r.meta["node"]
                            for r in rules]) if rules else np.zeros((len(X), 0), bool)


@pytest.mark.parametrize("data,kind", [("iris", "rf"), ("cancer", "et"), ("iris", "gb"),
                                       ("cancer", "gb")])
def test_rules_are_the_ensembles_leaves(data: str, kind: str) -> None:
    X, y = _data(data)
    est = _ensemble(kind, X, y)
    m = RUXClassifier(est, lp_method="simplex").fit(X, y)
    leaves = _leaves(est, X)
    by_origin = {(t, node): mask for t, node, mask in leaves}
    cover = m.all_rules_.coverage(X)  # evaluated from the rules' literals
    assert m.stats_["n_leaves"] == len(leaves)
    for j, rule in enumerate(m.all_rules_.rules):
        assert np.array_equal(cover[:, j], by_origin[rule.meta["tree"], rule.meta["node"]])
        assert all(lit.feature in X.columns for lit in rule.literals)
    # every leaf is a rule, or has the training rows (and class) of one
    kept = {np.packbits(cover[:, j]).tobytes() for j in range(cover.shape[1])}
    assert all(np.packbits(mask).tobytes() in kept for _, _, mask in leaves)


def _dense_lp(est, X: pd.DataFrame, y: np.ndarray, pen_par: float, cost: str,
              groups: np.ndarray | None = None, eps: float = 0.0,
              weight: np.ndarray | None = None) -> float:
    """[RUG] (3) over every leaf: min pen_par sum_j c_j w_j + sum_i v_i s.t.
    sum_j ahat_ij w_j + v_i >= 1, w, v >= 0; ahat_ij = a_ij (1 if leaf j's class is y_i, else
    -1/(K-1)); a leaf's class: its training majority; c_j: Gini impurity of its rows
    (+1e-8) or 1, over the largest.  With ``groups``: ODM (15)-(16), mean v per group within
    eps of each other.  ``weight``: v_i costs weight_i; classes and Gini weigh rows so."""
    K = len(np.unique(y))
    leaves = _leaves(est, X)
    A = np.column_stack([mask for _, _, mask in leaves]).astype(float)  # n x m
    n, m = A.shape
    weight = np.ones(n) if weight is None else weight
    counts = np.array([np.bincount(y[mask], weights=weight[mask], minlength=K)
                       for _, _, mask in leaves])
    label = counts.argmax(axis=1)
    if cost == "gini":
        p = counts / counts.sum(axis=1, keepdims=True)
        c = 1 - (p ** 2).sum(axis=1) + 1e-8
    else:
        c = np.ones(m)
    c = c / c.max()
    ahat = A * np.where(y[:, None] == label[None, :], 1.0, -1.0 / (K - 1))
    obj = np.concatenate([pen_par * c, weight])
    A_ub = -np.hstack([ahat, np.eye(n)])
    b_ub = -np.ones(n)
    if groups is not None:
        rows = []
        for g in np.unique(groups):
            for h in np.unique(groups):
                if g != h:
                    r = np.zeros(m + n)
                    in_g, in_h = groups == g, groups == h
                    r[m:] = in_g / in_g.sum() - in_h / in_h.sum()
                    rows.append(r)
        A_ub = np.vstack([A_ub, rows])
        b_ub = np.concatenate([b_ub, np.full(len(rows), eps)])
    res = linprog(obj, A_ub=A_ub, b_ub=b_ub, bounds=(0, None), method="highs")
    assert res.status == 0
    return float(res.fun)


@pytest.mark.parametrize("data,kind,cost,pen,method", [
    ("iris", "rf", "gini", 1.0, "simplex"), ("iris", "gb", "unit", 0.5, "simplex"),
    ("cancer", "rf", "unit", 2.0, "simplex"), ("cancer", "et", "gini", 1.0, "simplex"),
    ("iris", "rf", "gini", 1.0, "interior")])
def test_lp_optimum_equals_dense_lp(data: str, kind: str, cost: str, pen: float,
                                    method: str) -> None:
    X, y = _data(data)
    est = _ensemble(kind, X, y)
    m = RUXClassifier(est, pen_par=pen, rule_cost=cost, lp_method=method).fit(X, y)
    want = _dense_lp(est, X, y, pen, cost)
    tol = 1e-6 if method == "simplex" else 1e-3  # interior point: certified to 1e-3
    assert m.objective_ == pytest.approx(want, rel=tol, abs=tol)
    assert m.status_ == "optimal"
    assert m.bound_ <= want + 1e-6 * max(1.0, want)


def test_weighted_lp_equals_dense_lp() -> None:
    X, y = _data("iris")
    weight = np.random.default_rng(3).integers(1, 4, len(y)).astype(float)
    est = _ensemble("rf", X, y)
    m = RUXClassifier(est, lp_method="simplex").fit(X, y, sample_weight=weight)
    want = _dense_lp(est, X, y, 1.0, "gini", weight=weight)
    assert m.objective_ == pytest.approx(want, rel=1e-6, abs=1e-6)


def test_lp_with_odm_fairness_equals_dense_lp() -> None:
    X, y = _data("cancer")
    groups = (X.iloc[:, 0].to_numpy() > np.median(X.iloc[:, 0])).astype(int)
    est = _ensemble("rf", X, y)
    m = RUXClassifier(est, fairness="odm", epsilon=0.01).fit(X, y, groups=groups)
    want = _dense_lp(est, X, y, 1.0, "gini", groups, 0.01)
    assert m.objective_ == pytest.approx(want, rel=1e-6, abs=1e-6)
    assert m.fairness_ is not None


@pytest.mark.parametrize("data,kind", [("iris", "rf"), ("cancer", "gb"), ("iris", "gb")])
def test_predictions_are_the_weighted_vote(data: str, kind: str) -> None:
    X, y = _data(data)
    half = len(X) // 2
    order = np.random.default_rng(1).permutation(len(X))
    tr, te = order[:half], order[half:]
    Xtr, Xte = X.iloc[tr].reset_index(drop=True), X.iloc[te].reset_index(drop=True)
    est = _ensemble(kind, Xtr, y[tr])
    m = RUXClassifier(est, threshold=0.01).fit(Xtr, y[tr])
    rules = m.rules_.rules
    assert 0 < len(rules) <= len(m.all_rules_.rules)
    wmax = max(r.weight for r in m.all_rules_.rules)
    assert all(r.weight >= 0.01 * wmax - 1e-12 for r in rules)
    K = len(m.classes_)
    votes = _coverage(rules, est, Xte).astype(float) @ (
        np.eye(K)[[r.label for r in rules]] * np.array([r.weight for r in rules])[:, None])
    pred = votes.argmax(axis=1)  # ties: the first class, as documented
    pred[votes.sum(axis=1) == 0] = np.bincount(y[tr]).argmax()  # no rule: majority class
    assert np.array_equal(m.predict(Xte), m.classes_[pred])


def test_bad_input_is_one_clear_error() -> None:
    X, y = _data("cancer")
    est = _ensemble("rf", X, y)
    with pytest.raises(OptreesInputError, match="LogisticRegression"):
        RUXClassifier(LogisticRegression(max_iter=500).fit(X, y)).fit(X, y)
    with pytest.raises(OptreesInputError, match="one of random_forest"):
        RUXClassifier("forest").fit(X, y)
    categorical = X.assign(group=2 * y + np.arange(len(X)) % 2)  # a category that predicts y
    hist = HistGradientBoostingClassifier(max_iter=5, categorical_features=["group"],
                                          random_state=0).fit(categorical, y)
    assert any(p.nodes["is_categorical"][~p.nodes["is_leaf"].astype(bool)].any()
               for ps in hist._predictors for p in ps)
    with pytest.raises(OptreesInputError, match="categorical splits"):
        RUXClassifier(hist).fit(categorical, y)
    with pytest.raises(OptreesInputError, match="missing"):
        RUXClassifier(est).fit(X.rename(columns={X.columns[0]: "other"}), y)
    with pytest.raises(OptreesInputError, match="another order"):
        RUXClassifier(est).fit(X[X.columns[::-1]], y)
    with pytest.raises(OptreesInputError, match="5 columns"):
        RUXClassifier(est).fit(X.to_numpy()[:, :5], y)
    with pytest.raises(OptreesInputError, match="one of random_forest"):
        RUXClassifier(None).fit(X, y)


def test_sensitive_column() -> None:
    X, y = _data("cancer")
    X = X.assign(group=(X.iloc[:, 0] > X.iloc[:, 0].median()).astype(int))
    est = _ensemble("rf", X, y)
    m = RUXClassifier(est, fairness="odm", sensitive="group", epsilon=0.01).fit(X, y)
    want = _dense_lp(est, X, y, 1.0, "gini", X["group"].to_numpy(), 0.01)
    assert m.objective_ == pytest.approx(want, rel=1e-6, abs=1e-6)
    with pytest.warns(UserWarning, match="no effect without fairness"):
        RUXClassifier(est, sensitive="group").fit(X, y)
    with pytest.raises(OptreesInputError, match="not a column"):
        RUXClassifier(est, fairness="odm", sensitive="nope").fit(X, y)


def test_array_input_takes_the_ensembles_column_names() -> None:
    X, y = _data("iris")
    est = _ensemble("rf", X, y)
    m = RUXClassifier(est).fit(X.to_numpy(), y)
    used = {lit.feature for r in m.all_rules_.rules for lit in r.literals}
    assert used <= set(X.columns)
    named = RUXClassifier(est).fit(X, y)
    assert np.array_equal(m.predict(X.to_numpy()), named.predict(X))
    assert "rule" in m.export_text()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.predict(X.to_numpy())


@pytest.mark.parametrize("name", ["iris", "cancer"])
def test_histogram_boosting_leaves_add_up_to_its_raw_predictions(name: str) -> None:
    """A HistGradientBoosting model (no apply of its own): the rows of each leaf read, summed
    with the tree's leaf value, give back the model's own raw prediction (baseline + the
    leaves each row reaches, by scikit-learn's predictor), and each leaf's rule, evaluated
    here from its literals, covers exactly those rows."""
    from optrees.rug.ensemble import ensemble_trees, leaf_rules

    X, y = _data(name)
    est = HistGradientBoostingClassifier(max_iter=6, max_depth=3, random_state=0).fit(X, y)
    leaves = leaf_rules(ensemble_trees(est), X.to_numpy(dtype=float), list(X.columns))
    K = est.n_trees_per_iteration_
    raw = np.array(np.broadcast_to(est._baseline_prediction, (len(X), K)), dtype=float)
    values = [p.nodes["value"] for ps in est._predictors for p in ps]
    for j, (t, node) in enumerate(leaves.origin):
        raw[leaves.masks[:, j], t % K] += values[t][node]
        literals = leaves.literals[j]
        assert np.array_equal(_covers(literals, X), leaves.masks[:, j])
    assert raw == pytest.approx(est._raw_predict(X), abs=1e-9)
    m = RUXClassifier(est).fit(X, y)
    assert m.score(X, y) > 0.85 and len(m.rules_) > 0


_COMPARE = {"<=": np.less_equal, ">": np.greater, "<": np.less, ">=": np.greater_equal}


def _covers(literals, X: pd.DataFrame) -> np.ndarray:
    """The rows where every test holds, evaluated here from the literals."""
    rows = np.ones(len(X), dtype=bool)
    for lit in literals:
        rows &= _COMPARE[lit.op](X[lit.feature].to_numpy(dtype=float), lit.value)
    return rows


def _booster(package: str, X: pd.DataFrame, y: np.ndarray, **kwargs):
    """A small fitted LightGBM or XGBoost classifier, and its own leaf of each row per tree
    (``pred_leaf``) as (tree, node id) the way :mod:`optrees.rug.boosters` numbers nodes."""
    if package == "lightgbm":
        lgb = pytest.importorskip("lightgbm")
        est = lgb.LGBMClassifier(n_estimators=5, max_depth=3, min_child_samples=5,
                                 verbose=-1, random_state=0, **kwargs).fit(X, y)
        leaf = est.booster_.predict(X, pred_leaf=True)
        internal = [t["num_leaves"] - 1 for t in est.booster_.dump_model()["tree_info"]]
        return est, leaf + np.array(internal)[None, :]
    xgb = pytest.importorskip("xgboost")
    est = xgb.XGBClassifier(n_estimators=5, max_depth=3, random_state=0, **kwargs).fit(X, y)
    return est, est.get_booster().predict(xgb.DMatrix(X, **kwargs), pred_leaf=True).astype(int)


@pytest.mark.parametrize("package", ["lightgbm", "xgboost"])
@pytest.mark.parametrize("name", ["iris", "cancer"])
def test_boosters_leaves_are_their_own(package: str, name: str) -> None:
    """LightGBM and XGBoost (optional): each leaf read covers exactly the rows the library's
    own ``pred_leaf`` sends there, and its rule, evaluated here from its literals, covers the
    same rows (XGBoost compares in float32: iris' 1.7 is not below a split at 1.7)."""
    from optrees.rug.ensemble import ensemble_trees, leaf_rules

    X, y = _data(name)
    est, own_leaf = _booster(package, X, y)
    leaves = leaf_rules(ensemble_trees(est), X.to_numpy(dtype=float), list(X.columns))
    reached = {(t, int(node)) for t in range(own_leaf.shape[1]) for node in own_leaf[:, t]}
    assert set(leaves.origin) == reached
    for j, (t, node) in enumerate(leaves.origin):
        assert np.array_equal(leaves.masks[:, j], own_leaf[:, t] == node)
        assert np.array_equal(_covers(leaves.literals[j], X), leaves.masks[:, j])
    m = RUXClassifier(est).fit(X, y)
    assert m.score(X, y) > 0.85 and len(m.rules_) > 0
    if package == "xgboost":
        assert any(lit.op in ("<", ">=") for r in m.rules_.rules for lit in r.literals)


@pytest.mark.parametrize("package", ["lightgbm", "xgboost"])
def test_boosters_bad_input_is_one_clear_error(package: str) -> None:
    X, y = _data("iris")
    Xc = X.assign(group=pd.Categorical(y))  # a split on it is certain
    extra = {} if package == "lightgbm" else {"enable_categorical": True}
    est, _ = _booster(package, Xc, y, **extra)
    with pytest.raises(OptreesInputError, match="categorical splits"):
        RUXClassifier(est).fit(Xc, y)


def test_float32_below_is_the_float64_edge_of_a_float32_test() -> None:
    """``x < t`` in float64 exactly when ``float32(x) < float32(split)``: checked at ``t``
    and at the float64 just below it, for splits of every scale (from the definition)."""
    from optrees.rug.boosters import float32_below

    rng = np.random.default_rng(0)
    for split in np.concatenate([rng.normal(size=500) * 10.0 ** rng.integers(-6, 6, 500),
                                 [0.5, 1.7, 3.0, -2.25]]):
        t, s32 = float32_below(split), np.float32(split)
        assert np.float32(t) == s32                             # t itself is not below
        assert np.float32(np.nextafter(t, -np.inf)) < s32       # the float64 under it is


def _matrix(X: pd.DataFrame) -> np.ndarray:
    """Numeric columns as they are, each categorical one-hot over its sorted categories."""
    cols = []
    for c in X.columns:
        if pd.api.types.is_numeric_dtype(X[c]):
            cols.append(X[c].to_numpy(dtype=float))
        else:
            cols += [(X[c] == v).to_numpy(dtype=float) for v in sorted(X[c].unique())]
    return np.column_stack(cols)


def _raw_covers(literals, X: pd.DataFrame) -> np.ndarray:
    """The rows where every test on the raw columns holds (== / != on the raw values)."""
    rows = np.ones(len(X), dtype=bool)
    for lit in literals:
        if lit.op in _COMPARE:
            rows &= _COMPARE[lit.op](X[lit.feature].to_numpy(dtype=float), lit.value)
        else:
            same = (X[lit.feature] == lit.value).to_numpy()
            rows &= same if lit.op == "==" else ~same
    return rows


def test_an_unfitted_ensemble_is_fitted_here_as_by_hand() -> None:
    """An unfitted ensemble (what clone hands RUX) is fitted on X: the same rules as RUX on
    the same model fitted by hand; cross_val_score runs."""
    from sklearn.model_selection import cross_val_score

    X, y = _data("cancer")
    forest = RandomForestClassifier(8, max_depth=3, random_state=0)
    own = RUXClassifier(forest, lp_method="simplex").fit(X, y)
    by_hand = RUXClassifier(RandomForestClassifier(8, max_depth=3, random_state=0)
                            .fit(X, y), lp_method="simplex").fit(X, y)
    assert own.rules_.export_text() == by_hand.rules_.export_text()
    assert not hasattr(forest, "estimators_")  # the user's model is left unfitted
    assert cross_val_score(RUXClassifier(forest), X, y, cv=3).mean() > 0.8


@pytest.mark.parametrize("name", ["random_forest", "gradient_boosting", "lightgbm",
                                  "xgboost"])
def test_named_ensemble_on_categorical_columns(name: str) -> None:
    """A named ensemble fitted on numeric and categorical columns: each rule, read back on
    the raw columns (``colour == red``), covers exactly the rows its ensemble's own leaf
    gets (the leaf found by the fitted model on the one-hot matrix built here)."""
    if name in ("lightgbm", "xgboost"):
        pytest.importorskip(name)
    rng = np.random.default_rng(0)
    n = 240
    X = pd.DataFrame({"size": rng.normal(size=n).round(2),
                      "colour": rng.choice(["red", "green", "blue"], n),
                      "shape": rng.choice(["round", "square"], n)})
    y = np.where((X.colour == "red") ^ (X["size"] > 0.3), "yes", "no")
    m = RUXClassifier(name, n_estimators=6, max_depth=3, random_state=0).fit(X, y)
    assert m.score(X, y) > 0.9
    M = _matrix(X)
    trees = m.estimator_
    for rule in m.all_rules_.rules:
        t, node = rule.meta["tree"], rule.meta["node"]
        if name == "lightgbm":
            booster = trees.booster_
            internal = booster.dump_model()["tree_info"][t]["num_leaves"] - 1
            leaf = booster.predict(M, pred_leaf=True)[:, t] + internal
        elif name == "xgboost":
            import xgboost

            leaf = trees.get_booster().predict(xgboost.DMatrix(M), pred_leaf=True)[:, t]
        else:
            leaf = _trees(trees)[t].apply(M.astype(np.float32))
        assert np.array_equal(_raw_covers(rule.literals, X), leaf == node)
        assert {lit.feature for lit in rule.literals} <= set(X.columns)
