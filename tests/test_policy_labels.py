"""OptimalPolicyTree with treatments given as text labels: coded in sorted order, the tree
recommends and prints the labels, matrices and budgets are read by label, and a saved
model predicts the labels (oracles: the teachers' value and the budget's share written
from their definitions in numpy)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from oracles import teacher_scores
from test_policy_trees import best_tree_value, make_data

from optrees import OptimalPolicyTree, OptreesInputError, load_model, save_model

NAMES = np.array(["placebo", "drug", "surgery"], dtype=object)  # sorted: drug, placebo, ...


def _labelled(seed=3, n=40):
    X, t, y, mu, yhat, w = make_data(seed, n, 3, numeric=True)
    return X, NAMES[t], t, y, mu, yhat, w


def test_labels_give_the_enumerated_optimum_and_recommend_labels():
    X, labels, t, y, mu, _, w = _labelled()
    m = OptimalPolicyTree(depth=2, teacher="ipw").fit(X, labels, y, propensity=mu,
                                                      sample_weight=w)
    order = sorted(NAMES)
    assert list(m.treatments_) == order
    codes = np.array([order.index(v) for v in labels])
    G = teacher_scores("ipw", codes, y, mu, None, 3)
    want = best_tree_value(X.to_numpy(float), G, w, 2, 0.0, 1)
    assert m.objective_ == pytest.approx(want)
    rec = m.predict(X)
    assert set(rec) <= set(NAMES)
    got = G[np.arange(len(G)), [order.index(v) for v in rec]] @ w / w.sum()
    assert got == pytest.approx(want)  # the labels it recommends earn the optimum
    text = m.export_text()
    assert "treatment: " in text and not any(f"treatment: {k} " in text for k in "012")


def test_matrices_are_read_by_their_label_columns():
    X, labels, t, y, mu, yhat, w = _labelled(4)
    order = sorted(NAMES)
    frame = pd.DataFrame(yhat, columns=NAMES)  # columns in the data's order, not sorted
    m = OptimalPolicyTree(depth=1, teacher="dm").fit(X, labels, y, outcome_predictions=frame)
    by_code = yhat[:, [list(NAMES).index(v) for v in order]]
    codes = np.array([order.index(v) for v in labels])
    np.testing.assert_allclose(m.scores_, teacher_scores("dm", codes, y, None, by_code, 3))
    with pytest.raises(OptreesInputError, match="3 labels"):
        OptimalPolicyTree(depth=1, teacher="dm").fit(X, labels, y,
                                                     outcome_predictions=yhat[:, :2])


def test_a_budget_by_label_holds_and_is_saved_by_code(tmp_path):
    X, labels, t, y, mu, _, w = _labelled(5, 60)
    m = OptimalPolicyTree(depth=2, teacher="ipw", treatment_budget={"surgery": 0.2}).fit(
        X, labels, y, propensity=mu, sample_weight=w)
    rec = m.predict(X)
    assert w[rec == "surgery"].sum() / w.sum() <= 0.2 + 1e-12
    assert "treatment surgery given to at most 0.2" in m.stats_["side_constraints"]
    save_model(m, tmp_path / "p.json")
    loaded = load_model(tmp_path / "p.json")
    assert (loaded.predict(X) == rec).all()
    assert loaded.treatment_budget == {sorted(NAMES).index("surgery"): 0.2}


@pytest.mark.parametrize("change,words", [
    (lambda a: {**a, "treatment_budget": {"laser": 0.1}}, "the treatments are"),
    (lambda a: {**a, "labels": np.r_[a["labels"][:-1], None]}, "missing values"),
    (lambda a: {**a, "labels": np.full(len(a["labels"]), "surgery", dtype=object)},
     "a single label .'surgery'.: a policy tree chooses among at least two"),
])
def test_bad_labels_give_one_clear_error(change, words):
    X, labels, t, y, mu, _, w = _labelled(6)
    a = change({"labels": labels, "treatment_budget": None})
    with pytest.raises(OptreesInputError, match=words):
        OptimalPolicyTree(depth=1, teacher="ipw", treatment_budget=a["treatment_budget"]
                          ).fit(X, a["labels"], y, propensity=mu)
