"""RuleSet: the weighted vote of §3.1 ([RUG]), explanations, JSON round trip."""

import json

import numpy as np
import pandas as pd
import pytest

from optrees._validation import OptreesInputError
from optrees.models.rule_set import Literal, Rule, RuleSet, simplify_literals


def _frame():
    return pd.DataFrame({
        "age": [20.0, 35.0, 50.0, 65.0, 40.0],
        "color": pd.Categorical(["red", "blue", "red", "green", "blue"]),
        "n": [1, 2, 3, 4, 5],
    })


def _paper_rules():
    """Example 3.1: four rules, weights (0.6, 0.4, 0.5, 0.3), K = 3; sample 0 fires R1, R3, R4."""
    r1 = Rule((Literal("age", "<=", 30.0),), 0, 0.6)
    r2 = Rule((Literal("age", ">", 30.0), Literal("color", "==", "blue")), 1, 0.4)
    r3 = Rule((Literal("color", "==", "red"),), 0, 0.5)
    r4 = Rule((Literal("n", "<=", 1.5),), 2, 0.3)
    return RuleSet([r1, r2, r3, r4], ["a", "b", "c"], ["age", "color", "n"], default_class=1)


def test_paper_example_vote_vector():
    rs = _paper_rules()
    X = _frame()
    D = rs.decision_function(X)
    np.testing.assert_allclose(D[0], [0.95, -0.7, -0.25])  # Example 3.1
    assert rs.predict(X)[0] == "a"
    # hinge of Example 3.2: 1 - kappa * yhat' y
    kappa = 2 / 3
    for k, v in zip(range(3), [0.05, 1.7, 1.25], strict=True):
        yvec = np.full(3, -0.5)
        yvec[k] = 1.0
        assert 1 - kappa * D[0] @ yvec == pytest.approx(v)


def test_uncovered_gets_default_class_and_proba():
    rs = _paper_rules()
    X = _frame()
    cov = rs.coverage(X)
    uncovered = ~cov.any(axis=1)
    assert uncovered.any()  # sample 3 (age 65, green, n 4) fires nothing
    pred = rs.predict(X)
    assert (pred[uncovered] == "b").all()
    P = rs.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert (rs.classes[P.argmax(axis=1)] == pred).all()
    np.testing.assert_allclose(P[uncovered], [[0, 1, 0]] * int(uncovered.sum()))


def test_explain_matches_decision_function():
    rs = _paper_rules()
    X = _frame()
    D = rs.decision_function(X)
    K = rs.n_classes
    for i, fired in enumerate(rs.explain(X)):
        total = np.zeros(K)
        for f in fired:
            k = list(rs.classes).index(f["class"])
            vec = np.full(K, -1 / (K - 1))
            vec[k] = 1.0
            total += f["weight"] * vec
            assert f["condition"] == rs.rules[f["rule"]].condition_text()
        np.testing.assert_allclose(total, D[i], atol=1e-12)


def test_json_round_trip_and_text():
    rs = _paper_rules()
    X = _frame()
    back = RuleSet.from_json(json.dumps(json.loads(rs.to_json())))
    assert (back.predict(X) == rs.predict(X)).all()
    np.testing.assert_allclose(back.decision_function(X), rs.decision_function(X))
    text = rs.export_text()
    assert "age <= 30" in text and "color == blue" in text and "otherwise" in text
    # arrays are read by position
    assert (rs.predict(X.to_numpy(dtype=object)) == rs.predict(X)).all()


def test_text_never_prints_a_voting_rule_weight_as_zero():
    """A rule of weight 1e-6 (an interior-point master leaves such weights, and they still
    vote) prints as 1.000e-06, not 0.0000; ordinary weights keep their 4 decimals."""
    rs = _paper_rules()
    rs.rules[3] = Rule(rs.rules[3].literals, 2, 1e-6)
    text = rs.export_text()
    assert "(weight 1.000e-06, length 1)" in text and "(weight 0.6000, length 1)" in text
    assert "weight 0.0000" not in text


def test_pruning_keeps_heavy_rules():
    rs = _paper_rules()
    assert len(rs.pruned(0.0)) == 4
    assert [r.weight for r in rs.pruned(0.9).rules] == [0.6]  # 0.5 < 0.9 * 0.6
    assert sorted(r.weight for r in rs.pruned(0.8).rules) == [0.5, 0.6]  # 0.5 >= 0.48
    with pytest.raises(OptreesInputError):
        rs.pruned(1.5)


def test_simplify_literals():
    lits = [Literal("a", "<=", 5.0), Literal("a", "<=", 3.0), Literal("a", ">", 1.0),
            Literal("c", "!=", "x"), Literal("c", "==", "y"), Literal("b", "!=", "u")]
    out = simplify_literals(lits, ["a", "b", "c"])
    assert [str(lit) for lit in out] == ["a > 1", "a <= 3", "b != u", "c == y"]


def test_bad_inputs():
    rs = _paper_rules()
    with pytest.raises(OptreesInputError, match="missing columns"):
        rs.predict(_frame().drop(columns=["n"]))
    with pytest.raises(OptreesInputError):
        RuleSet([Rule((Literal("zzz", "<=", 1.0),), 0)], [0, 1], ["a"])
    with pytest.raises(OptreesInputError):
        Literal("a", "=<", 1.0)
    with pytest.raises(OptreesInputError):
        RuleSet.from_dict({"format": "nope"})


@pytest.mark.parametrize("seed", range(20))
def test_simplified_strict_and_loose_bounds_select_the_same_rows(seed):
    """``<``, ``<=``, ``>``, ``>=`` on one column, often at the same value: the simplified
    conjunction selects exactly the rows the whole conjunction does (checked with plain
    numpy comparisons on values at and between the thresholds)."""
    rng = np.random.default_rng(seed)
    compare = {"<=": np.less_equal, "<": np.less, ">": np.greater, ">=": np.greater_equal}
    lits = [Literal("a", str(rng.choice(list(compare))), float(rng.integers(0, 4)))
            for _ in range(rng.integers(2, 6))]
    x = np.arange(-1.0, 5.0, 0.5)
    expected = np.logical_and.reduce([compare[lit.op](x, lit.value) for lit in lits])
    out = simplify_literals(lits, ["a"])
    assert len(out) <= 2
    got = np.logical_and.reduce([compare[lit.op](x, lit.value) for lit in out]
                                or [np.ones_like(x, dtype=bool)])
    assert np.array_equal(got, expected)
    frame = pd.DataFrame({"a": x})
    assert np.array_equal(np.logical_and.reduce([lit.evaluate(frame["a"]) for lit in out]
                                                or [np.ones_like(x, dtype=bool)]), expected)
