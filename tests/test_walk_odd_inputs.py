"""The public API walked with odd inputs: a target with a large offset, weights or outcomes
in tiny units, missing event times, labels that are not there.  Each test states what the
answer must be from the definition (plain numpy on the fitted model's own leaves), not from
the package's objective objects, and failed on the code before its fix."""

import warnings

import numpy as np
import pandas as pd
import pytest

import optrees
from optrees import BendOCTClassifier, Binarizer, FlowOCTClassifier, OMTRegressor
from optrees.trees.solve.path import pareto_front


def _table(n, seed):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"a": rng.normal(size=n), "b": rng.uniform(size=n),
                         "c": rng.integers(0, 4, n).astype(float)})


def _classes(seed=1, n=120):
    X = _table(n, seed)
    rng = np.random.default_rng(seed + 100)
    y = ((X.a > 0.2) ^ (X.b > 0.5)).astype(int).to_numpy().copy()
    flip = rng.uniform(size=n) < 0.15
    y[flip] = 1 - y[flip]
    return X, y, rng.integers(1, 5, n).astype(float)


def _leaf_means(leaves, y, w=None):
    """Each row's prediction from the definition: the weighted mean of y over its leaf."""
    w = np.ones(len(y)) if w is None else w
    out = np.empty(len(y))
    for leaf in np.unique(leaves):
        at = leaves == leaf
        out[at] = w[at] @ y[at] / w[at].sum()
    return out


def _same_partition(a, b):
    """Two leaf labellings put the rows in the same groups."""
    pairs = set(zip(a.tolist(), b.tolist(), strict=True))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


# ------------------------------------------------------------------ 1. OMT: y + constant
def test_omt_regressor_does_not_change_when_a_constant_is_added_to_y():
    """OMT's CART bins and CART start partitions grew on y itself: y + 1e9 gave another
    tree (objective 127.0 against 89.5: scikit-learn's variances of 1e9-sized targets lose
    their digits).  Now the same leaves, and predictions that move by the constant."""
    X = _table(200, 0)
    rng = np.random.default_rng(7)
    y = np.sin(3 * X.a.to_numpy()) + 2 * (X.b.to_numpy() > 0.6) + 0.1 * rng.normal(size=200)
    fits = {}
    for offset in (0.0, 1e9):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fits[offset] = OMTRegressor(depth=2, random_state=0, leaf_penalty=0.01,
                                        time_limit=60).fit(X, y + offset)
    a, b = fits[0.0], fits[1e9]
    assert _same_partition(a.apply(X), b.apply(X))
    np.testing.assert_allclose(b.predict(X) - 1e9, _leaf_means(a.apply(X), y), atol=1e-6)
    np.testing.assert_allclose(a.predict(X), _leaf_means(a.apply(X), y), atol=1e-9)
    sse = float(((y - _leaf_means(a.apply(X), y)) ** 2).sum())
    assert b.objective_ == pytest.approx(a.objective_, rel=1e-6)
    assert a.objective_ >= sse - 1e-9  # the loss (plus the rules' penalty)


# ------------------------------------------------------------------ 2. tiny weights
def _weighted_accuracy(pred, y, w):
    return float(w @ (pred == y) / w.sum())


@pytest.mark.parametrize("scale", [1e-12, 1e-200])
def test_bendoct_tree_does_not_change_when_every_weight_is_scaled(scale):
    """All weights x 1e-12: the exact search's tolerances (1e-9 x (1 + total weight)) took
    every tree for as good as the single leaf, which it returned as "optimal" (accuracy
    0.53 against 0.877).  Now the same tree and accuracy for weights w and c w."""
    X, y, w = _classes()
    a = BendOCTClassifier(depth=2, time_limit=60).fit(X, y, sample_weight=w)
    b = BendOCTClassifier(depth=2, time_limit=60).fit(X, y, sample_weight=w * scale)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert _same_partition(a.apply(X), b.apply(X))
    # BendOCT's objective: weighted accuracy - lam x leaves
    best = _weighted_accuracy(a.predict(X), y, w) - a.lam * a.tree_.n_leaves
    assert a.objective_ == pytest.approx(best, rel=1e-12)
    assert b.objective_ == pytest.approx(best, rel=1e-12)
    assert b.status_ == "optimal" and b.tree_.n_leaves == a.tree_.n_leaves > 1
    # the tree's counts are the given weights, not the rescaled ones
    leaves = b.apply(X)
    for leaf in np.unique(leaves):
        at = leaves == leaf
        expected = np.bincount(y[at], weights=w[at] * scale, minlength=2)
        np.testing.assert_allclose(b.tree_.counts[leaf], expected, rtol=1e-12)


def test_flowoct_objective_in_weight_units_under_tiny_weights():
    """FlowOCT without a penalty maximises the weight of correct rows: under weights
    x 1e-12 it returned the single leaf as optimal (1.62e-10 against 2.75e-10)."""
    X, y, w = _classes()
    a = FlowOCTClassifier(depth=2, time_limit=60).fit(X, y, sample_weight=w)
    b = FlowOCTClassifier(depth=2, time_limit=60).fit(X, y, sample_weight=w * 1e-12)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    correct = float(w @ (b.predict(X) == y)) * 1e-12
    assert b.objective_ == pytest.approx(correct, rel=1e-9)
    assert b.bound_ == pytest.approx(correct, rel=1e-9)


def test_binarizer_quantile_cuts_do_not_change_when_every_weight_is_scaled():
    """Quantiles sit at position (W - 1) q of the total weight W: with W < 1 every cut
    fell on the smallest value and the numeric columns had no cuts (3 columns against 11)."""
    X, _, w = _classes()
    a = Binarizer().fit(X, sample_weight=w)
    b = Binarizer().fit(X, sample_weight=w * 1e-12)
    assert [lit.name for lit in b.literals_] == [lit.name for lit in a.literals_]
    assert sum(lit.column in ("a", "b") for lit in b.literals_) >= 4


def test_lambda_path_does_not_change_when_every_weight_is_scaled():
    """pareto_front under weights x 1e-12 had one leaf at every budget (accuracy 0.54);
    its accuracies are those of its trees, from the definition, and the same for c w."""
    X, y, w = _classes()
    a = pareto_front(X, y, 2, sample_weight=w, binarizer="auto")
    b = pareto_front(X, y, 2, sample_weight=w * 1e-12, binarizer="auto")
    assert [p.leaves for p in b] == [p.leaves for p in a]
    for p, q in zip(a, b, strict=True):
        assert q.accuracy == pytest.approx(p.accuracy, rel=1e-12)
    assert b[-1].leaves > 1


def test_cv_lambda_path_does_not_change_when_every_weight_is_scaled():
    """BendOCTClassifierCV under weights x 1e-12 scored every lam 0.525 and refitted the
    single leaf (0.842 and four leaves with the weights w).  Its held-out score is the
    weighted accuracy of the refitted tree's folds; here: the same for w and c w."""
    from optrees import BendOCTClassifierCV

    X, y, w = _classes()
    a = BendOCTClassifierCV(depths=[2], time_limit=60, random_state=0).fit(
        X, y, sample_weight=w)
    b = BendOCTClassifierCV(depths=[2], time_limit=60, random_state=0).fit(
        X, y, sample_weight=w * 1e-12)
    assert b.best_params_ == a.best_params_
    assert b.best_score_ == pytest.approx(a.best_score_, rel=1e-12)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert b.best_estimator_.tree_.n_leaves == a.best_estimator_.tree_.n_leaves > 1


# ------------------------------------------------------------------ 3. predict_proba
BINARY_TREES = ["BendOCTClassifier", "FlowOCTClassifier", "CGHClassifier", "OCTClassifier",
                "BinOCTClassifier"]


@pytest.mark.parametrize("name", BINARY_TREES + ["OMTClassifier", "RUGClassifier"])
def test_predict_proba_sums_to_one_under_small_weights(name, tmp_path):
    """A binary tree's leaf frequencies were counts / max(total, 1): with weights x 1e-3 a
    leaf's total is 0.048, so rows summed to 0.048-0.1.  From the definition: each row's
    probabilities are the class weights of the training rows at its leaf over their sum."""
    X, y, w = _classes()
    w = w * 1e-3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = getattr(optrees, name)(time_limit=4, random_state=0).fit(
            X, y, sample_weight=w)
    P = model.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)
    if name in BINARY_TREES:
        leaves = model.apply(X)
        for leaf in np.unique(leaves):
            at = leaves == leaf
            share = np.bincount(y[at], weights=w[at], minlength=2) / w[at].sum()
            np.testing.assert_allclose(P[at], np.tile(share, (at.sum(), 1)), rtol=1e-9)
        optrees.save_model(model, tmp_path / "m.json")
        np.testing.assert_allclose(optrees.load_model(tmp_path / "m.json").predict_proba(X),
                                   P, rtol=1e-12)


# ------------------------------------------------------------------ 4, 5. policy outcomes
def _policy_data(n=300, seed=3):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.uniform(size=n)})
    t = rng.integers(0, 3, n)
    gain = np.stack([np.zeros(n), (X.a > 0) * 1.0 - 0.3, (X.b > 0.5) * 0.8 - 0.2], axis=1)
    y = X.a.to_numpy() + gain[np.arange(n), t] + 0.3 * rng.normal(size=n)
    return X, t, y, np.full(n, 1 / 3)


def _ipw_value(policy, t, y, mu):
    """The IPW teacher's policy value from its definition: mean of y 1{t = policy} / mu."""
    return float(np.mean(y * (t == policy) / mu))


@pytest.mark.parametrize("extra", [{"min_samples_leaf": 20}, {"treatment_budget": {1: 0.3}}],
                         ids=["min_samples_leaf", "treatment_budget"])
def test_policy_tree_does_not_change_with_the_outcomes_units(extra):
    """Outcomes x 1e-9 are pseudo-row weights of 1e-9: the searches' tolerances took the
    single leaf as optimal under a treatment budget (value 0.278 against 0.681 per unit)
    and a worse tree under min_samples_leaf (0.68835 against 0.69063).  Now the same tree,
    and objective_ = value - lam x leaves from the definition, in the outcome's units."""
    from optrees import OptimalPolicyTree

    X, t, y, mu = _policy_data()
    fits = [OptimalPolicyTree(depth=2, teacher="ipw", lam=0.001 * c, time_limit=60,
                              **extra).fit(X, t, y * c, propensity=mu) for c in (1.0, 1e-9)]
    a, b = fits
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    for fit, c in zip(fits, (1.0, 1e-9), strict=True):
        value = _ipw_value(fit.predict(X), t, y * c, mu)
        assert fit.policy_value_ == pytest.approx(value, rel=1e-9)
        assert fit.objective_ == pytest.approx(value - 0.001 * c * fit.tree_.n_leaves,
                                               rel=1e-9)
        assert fit.status_ == "optimal" and fit.gap_ == 0.0
    assert a.tree_.n_leaves > 1


def test_policy_outcome_models_do_not_change_with_the_outcomes_units():
    """scikit-learn's gradient boosting treats a node of variance below 2.2e-16 as pure, so
    on outcomes x 1e-9 the 'dm' teacher's estimated outcomes were one constant per
    treatment and the tree another.  Now they are the outcomes' own estimates x c (c a
    power of two: the same numbers exactly; x 1e-9 rounds differently, and boosting's
    near-tied splits may go the other way at a few rows)."""
    from optrees import OptimalPolicyTree

    X, t, y, _ = _policy_data()
    c = 2.0**-30
    a, b = (OptimalPolicyTree(depth=2, teacher="dm", cv=3, random_state=0,
                              time_limit=60).fit(X, t, y * s) for s in (1.0, c))
    np.testing.assert_allclose(b.outcome_predictions_, a.outcome_predictions_ * c,
                               rtol=1e-12, atol=0)
    assert np.ptp(b.outcome_predictions_[:, 0]) > 1e-2 * c
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_gap_tolerance_is_in_the_objectives_units():
    """The gap is |bound - objective| / |objective|; its absolute tolerance (1e-6) read a
    policy's stopped fit on outcomes x 1e-9 as closed (gap 0.0 where x 1 gave 1.38)."""
    from optrees.models.result import FitResult

    stopped = FitResult(None, "time_limit", 1.2e-9, 3.0e-9, unit=2.0**-30)
    assert stopped.gap == pytest.approx(1.5)
    assert FitResult(None, "time_limit", 1.2e-9, 3.0e-9).gap == 0.0  # units of about 1
    assert FitResult(None, "time_limit", 1.0, 1.0 + 1e-9 * 2**-30,
                     unit=2.0**-30).gap == pytest.approx(1e-9 * 2**-30)


def test_stopped_policy_tree_reports_its_gap_under_tiny_outcomes():
    from optrees import OptimalPolicyTree

    X, t, y, mu = _policy_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = OptimalPolicyTree(depth=5, teacher="ipw", time_limit=1).fit(
            X, t, y * 1e-9, propensity=mu)
    if fit.status_ == "optimal":
        pytest.skip("the depth-5 search finished within 1 s")
    expected = abs(fit.bound_ - fit.objective_) / abs(fit.objective_)
    assert expected > 1e-3
    assert fit.gap_ == pytest.approx(expected, rel=1e-9)


# ------------------------------------------------------------------ 6. survival: missing
def _survival_data(n=60):
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.uniform(size=n)})
    time = np.round(100 * rng.exponential(size=n) * np.exp(X.a.to_numpy())) + 1
    return X, rng.uniform(size=n) < 0.7, time


def _with_missing(kind):
    X, event, time = _survival_data()
    if kind == "Int64 pd.NA":
        y = pd.DataFrame({"event": event, "time": pd.array(time.astype(int), dtype="Int64")})
    elif kind == "Float64 pd.NA":
        y = pd.DataFrame({"event": event, "time": pd.array(time, dtype="Float64")})
    else:
        y = pd.DataFrame({"event": event, "time": time})
    y.loc[3, "time"] = pd.NA if "pd.NA" in kind else np.nan
    return X, y


@pytest.mark.parametrize("kind", ["Int64 pd.NA", "Float64 pd.NA", "NaN"])
def test_survival_missing_event_time_is_one_error_naming_the_column(kind):
    """pd.NA in the time column raised "y must hold numbers (event 0/1, time): float()
    argument must be ... not 'NAType'", NaN "the times (second field of y) must be finite":
    neither named the column nor said a value was missing."""
    from optrees import OptimalSurvivalTree

    X, y = _with_missing(kind)
    y = y.rename(columns={"time": "days"})
    with pytest.raises(ValueError, match=r"time \(column 'days'\) has 1 missing value.*\[3\]"):
        OptimalSurvivalTree(depth=1).fit(X, y)


def test_survival_missing_evaluation_time_is_an_error():
    """A NaN (or None, pd.NA) among the evaluation times gave the curve's last value there,
    as if the time were infinite; a single number raised an IndexError."""
    from optrees import OptimalSurvivalTree

    X, event, time = _survival_data()
    model = OptimalSurvivalTree(depth=1).fit(X, pd.DataFrame({"e": event, "t": time}))
    for times in ([5.0, np.nan, 50.0], [5.0, None], pd.array([5.0, pd.NA], dtype="Float64")):
        with pytest.raises(ValueError, match=r"times has 1 missing value.*\[1\]"):
            model.predict_survival_function(X, times)
    with pytest.raises(ValueError, match="1-d sequence"):
        model.predict_cumulative_hazard_function(X, 5.0)
    # the definition: exp(-theta Lambda0(t)), Lambda0 0 before the first training event
    at = np.array([0.0, 5.0, 50.0, 1e9])
    base = np.where(at < model.baseline_.times[0], 0.0, model.baseline_(at))
    np.testing.assert_allclose(model.predict_survival_function(X, at),
                               np.exp(-model.predict(X)[:, None] * base[None, :]))


# ------------------------------------------------------------------ 7. ColumnWarning counts
def test_column_warning_counts_are_the_rows_holding_a_marker():
    """Numbers stored as text were listed with "(k rows)", k the rows holding a marker
    such as '?': a column of numbers only (decimal commas) printed "(0 rows)", though all
    its rows are numbers stored as text.  Each printed count is now the column's rows
    equal to a marker, and a column without one has no count."""
    from optrees import ColumnWarning

    rng = np.random.default_rng(0)
    n = 40
    X = pd.DataFrame({"b": rng.uniform(size=n).round(2).astype(str),
                      "c": [f"{v:.1f}".replace(".", ",") for v in rng.normal(size=n)]})
    X.loc[[1, 5, 7, 9], "b"] = "?"
    X["c"] = X["c"].where(np.arange(n) % 3 != 0, X["c"].iloc[1])  # not an identifier
    y = rng.integers(0, 2, n)
    with pytest.warns(ColumnWarning) as caught:
        BendOCTClassifier(depth=1, time_limit=10).fit(X, y)
    text = " ".join(str(w.message) for w in caught if w.category is ColumnWarning)
    counts = {c: int((X[c] == "?").sum()) for c in X.columns}
    assert counts == {"b": 4, "c": 0}
    assert "'b' (4 rows with a marker)" in text
    assert "'c'" in text and "'c' (" not in text


# ------------------------------------------------------------------ 8. policy labels
def _labelled(n=60):
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=n)})
    labels = np.array(["ctl", "drugA", "drugB"])[np.arange(n) % 3]
    return X, labels, rng.normal(size=n), rng


@pytest.mark.parametrize("what", ["outcome_predictions", "propensity"])
def test_policy_frame_columns_that_are_not_the_labels_are_named(what):
    """A frame of columns 'ctl', 'drugA', 'drugX' for the treatments 'ctl', 'drugA',
    'drugB' was read by position, 'drugX' as 'drugB', without a word."""
    from optrees import OptimalPolicyTree

    X, labels, y, rng = _labelled()
    table = pd.DataFrame(rng.uniform(0.2, 0.5, (len(y), 3)), columns=["ctl", "drugA", "drugX"])
    kwargs = {what: table}
    message = r"\['drugX'\] of " + what + r".*no column for \['drugB'\]"
    with pytest.raises(ValueError, match=message):
        OptimalPolicyTree(teacher="dm" if what == "outcome_predictions" else "ipw").fit(
            X, labels, y, **kwargs)
    # named by the labels, in any order: read by name
    fine = table.rename(columns={"drugX": "drugB"})[["drugB", "ctl", "drugA"]]
    model = OptimalPolicyTree(teacher="dm", depth=1).fit(X, labels, y, outcome_predictions=fine)
    np.testing.assert_array_equal(model.scores_, fine[["ctl", "drugA", "drugB"]].to_numpy())


def test_policy_errors_name_the_offending_treatments():
    """Codes that are not integers >= 0 were refused without saying which; a labelled
    treatment no row of positive weight received was named by its code (2 of 0..2)."""
    from optrees import OptimalPolicyTree

    X, labels, y, _ = _labelled()
    codes = np.arange(len(y)) % 3
    for bad, shown in ((np.where(codes == 2, -1, codes), r"\[-1"),
                       (codes + 0.5, r"\[0.5, 1.5, 2.5\]")):
        with pytest.raises(ValueError, match=r"integer codes 0..K-1 or text labels \(found "
                           + shown):
            OptimalPolicyTree().fit(X, bad, y)
    w = np.where(labels == "drugB", 0.0, 1.0)
    with pytest.raises(ValueError, match=r"treatment 'drugB' of \['ctl', 'drugA', 'drugB'\]"):
        OptimalPolicyTree(teacher="ipw").fit(X, labels, y, propensity=np.full(len(y), 1 / 3),
                                             sample_weight=w)


def test_leaf_values_of_large_targets_print_apart():
    """Leaves of y + 1e6 all printed "1e+06" (six significant digits): each leaf's printed
    value now reads back to within half a unit of its last digit, in text and picture
    lines, and leaves that differ print differently; small targets keep six digits."""
    from optrees import OMTRegressor, OptimalTreeRegressor

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=200), "b": rng.normal(size=200)})
    y = 1e6 + 50.0 * (X["a"] > 0) + 20.0 * (X["b"] > 0.5) + rng.normal(size=200)
    for model in (OptimalTreeRegressor(depth=2).fit(X, y),
                  OMTRegressor(depth=2, time_limit=10, random_state=0).fit(X, y)):
        leaves = np.unique(np.round(model.predict(X), 6))
        printed = [float(s.split("value: ")[1].split()[0])
                   for s in model.export_text().splitlines() if "value: " in s]
        assert len(set(printed)) == len(leaves) > 1
        for p in printed:
            assert np.min(np.abs(leaves - p)) <= 0.5  # integer digits at least
    tree = OptimalTreeRegressor(depth=2).fit(X, y).tree_
    boxes = {tree.leaf_lines(n)[0] for n in np.flatnonzero(tree.feature < 0)}
    assert len(boxes) == 4 and all("e+" not in b for b in boxes)  # the picture's lines
    small = OptimalTreeRegressor(depth=1).fit(X, y - 1e6)
    assert "value: " in small.export_text()
    values = [s.split("value: ")[1].split()[0] for s in small.export_text().splitlines()
              if "value: " in s]
    assert all(len(v.replace(".", "").replace("-", "").lstrip("0")) <= 6 for v in values)


def test_weighted_quantiles_of_tiny_weights_are_those_of_the_weights():
    """Quantiles at position (W - 1) q sat at the smallest value when the weights total
    below 1: RUG's exact-pricing thresholds, OMT's absolute-loss candidates and its target
    centre read weights as the bins do (the lightest row one row).  Plain numpy oracle:
    weights x 1e-12 give the literals and the objective (in the weights' units) of x 1."""
    from optrees import OMTRegressor
    from optrees.encoding.columns import RawColumns
    from optrees.rug.exact import literal_pool

    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"a": rng.normal(size=120), "b": rng.integers(0, 9, 120) * 1.5})
    w = rng.integers(1, 4, 120).astype(float)
    raw = RawColumns(frame)
    pools = [literal_pool(raw, 5, w * c) for c in (1.0, 1e-12)]
    assert pools[0].literals == pools[1].literals
    assert len(pools[0].literals) > 8  # cuts inside both columns, not at their minimum
    y = 3.0 * (frame["a"] > 0) + frame["b"] + rng.normal(size=120) * 0.1
    objectives = []
    for c in (1.0, 1e-12):
        m = OMTRegressor(depth=2, loss="absolute", time_limit=30, random_state=0)
        m.fit(frame, y, sample_weight=w * c)
        pred = m.predict(frame)
        objectives.append(float(np.sum(w * np.abs(y - pred))))  # the absolute loss
    assert objectives[1] == pytest.approx(objectives[0], rel=1e-9)
