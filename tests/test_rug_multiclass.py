"""Multi-class RUG: when column generation may say it converged (issue #42 item 7).

With majority rule labels (``rule_labels='auto'`` for more than two classes) a leaf enters
the pool with the heaviest class of its training rows, and only if that column prices out.
A leaf can price out with its dual-weighted class while its heaviest class does not; a round
of such leaves adds nothing and the run stops.  That stop is not convergence: the LP is not
optimal over the columns offered.  The oracle below computes the reduced costs (5) of every
offered (rule, class) pair from the paper's definition with plain numpy.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from optrees.encoding.columns import RawColumns
from optrees.models.rule_set import Literal
from optrees.rug.generation import RuleGeneration

K = 3
PEN = 1.0


def _instance() -> tuple[RawColumns, np.ndarray, list[tuple[Literal, ...]]]:
    """60 rows on a line: rows 0-39 of class 0; rows 40-59 alternate class 0 (even x, 10
    rows) and class 1 (odd x, 9 rows), the last one is class 2.  The pricer offers the two
    parts x <= 39.5 and x > 39.5 as rules.

    By hand: both parts enter as class 0 (the heaviest); the LP puts weight 1 on the upper
    one (cost 1 + 10 minority rows at loss 1.5 each, against 10 + 10 without it), its class-0
    rows sit on the margin with duals adding up to 1 + 10 / 2 = 6, its minority rows have
    dual 1, so the upper part as class 1 has reduced cost 1 - (9 - (6 + 1) / 2) = -4.5."""
    x = np.arange(60.0)
    y = np.zeros(60, dtype=np.int64)
    y[41:59:2] = 1
    y[59] = 2
    raw = RawColumns(pd.DataFrame({"x": x}))
    rules = [(Literal("x", "<=", 39.5),), (Literal("x", ">", 39.5),)]
    return raw, y, rules


def _reduced_costs(raw: RawColumns, y: np.ndarray, rules: list[tuple[Literal, ...]],
                   beta: np.ndarray) -> np.ndarray:
    """[RUG] (5) per (rule, class): lam * c_j - sum_i beta_i ahat_ik over the rows rule j
    covers, ahat_ik = 1 if y_i = k else -1 / (K - 1) (eq. (1)-(3)); c_j = rule length."""
    rc = np.empty((len(rules), K))
    for j, lits in enumerate(rules):
        covered = np.ones(len(y), dtype=bool)
        for lit in lits:
            x = raw.numeric[lit.feature]
            covered &= x <= lit.value if lit.op == "<=" else x > lit.value
        for k in range(K):
            ahat = np.where(y[covered] == k, 1.0, -1.0 / (K - 1))
            rc[j, k] = PEN * len(lits) - float(beta[covered] @ ahat)
    return rc


def _run(majority: bool):
    raw, y, rules = _instance()
    gen = RuleGeneration(raw, y, K, pen_par=PEN, max_rmp_calls=20, pricer=lambda _: rules,
                         majority_labels=majority)
    res = gen.run()
    pool = {(r.literals, r.label) for r in res.rules}
    rc = _reduced_costs(raw, y, rules, np.clip(res.beta, 0.0, None))
    open_pairs = [(j, k) for j in range(len(rules)) for k in range(K)
                  if (rules[j], k) not in pool and rc[j, k] < -1e-7]
    return res, open_pairs


def test_majority_labels_stop_is_not_called_convergence():
    """Majority labels: the upper half enters as class 0; its class-1 and class-2 rows stay
    unmet, and the upper half with class 1 prices out (oracle), but its label would be class
    0 again, so nothing enters: the run must say 'stalled', not 'converged'."""
    res, open_pairs = _run(majority=True)
    assert open_pairs, "the instance must leave a (rule, class) pair that prices out"
    assert res.status == "stalled"


def test_dual_labels_converge_when_nothing_prices_out():
    """The paper's labels on the same instance: the run goes on until no offered pair prices
    out (oracle), and then says 'converged'."""
    res, open_pairs = _run(majority=False)
    assert res.status == "converged"
    assert open_pairs == []


def test_estimator_reports_the_stall_and_retries_it(monkeypatch):
    """Through RUGClassifier (tree pricing, depth 3, seed 0) on the same rows, 'auto'
    (majority labels for three classes): without retries the fit stops after 4 LPs at LP
    value 10 with leaves still pricing out with their dual-weighted class, and ``status_``
    says 'stalled'; with them it prices on and converges lower (the paper's dual labels run
    12 LPs and converge at LP value 11.86).  The pricing tree is scikit-learn's: the compiled
    one breaks this instance's near-ties between splits (equal up to rounding) the other way,
    takes other leaves and converges without a stall, so the path depends on the backend."""
    import optrees.rug.generation as generation
    from optrees import RUGClassifier, compiled
    from optrees.rug.generation import STALL_RETRIES

    raw, y, _ = _instance()
    X = pd.DataFrame({"x": raw.numeric["x"]})

    def fit() -> RUGClassifier:
        return RUGClassifier(max_depth=3, pen_par=PEN, max_rmp_calls=20, threshold=0.0,
                             random_state=0).fit(X, y)

    monkeypatch.setattr(compiled, "backend_for", lambda *args, **kwargs: "numpy")
    monkeypatch.setattr(generation, "STALL_RETRIES", 0)
    stalled = fit()
    assert stalled.status_ == "stalled" and stalled.n_rmp_calls_ == 4
    monkeypatch.setattr(generation, "STALL_RETRIES", STALL_RETRIES)
    retried = fit()
    assert retried.status_ == "converged" and retried.n_rmp_calls_ > 4
    assert retried.objective_ < stalled.objective_ - 1e-6


def test_a_stall_prices_again_at_other_optimal_duals():
    """A stalled round prices again (``STALL_RETRIES`` times here, as nothing can enter) at
    per-sample duals that are each optimal for the same LP (3): feasible for its dual
    (0 <= beta <= 1, sum_i ahat_ij beta_i <= lam c_j for every pool rule, from eq. (1)-(3))
    and of sum equal to the LP's value; they differ (another fill of the cells' duals)."""
    from optrees.rug.generation import STALL_RETRIES

    raw, y, rules = _instance()
    seen: list[np.ndarray] = []

    def pricer(beta: np.ndarray) -> list:
        seen.append(np.array(beta, dtype=float))
        return rules

    gen = RuleGeneration(raw, y, K, pen_par=PEN, max_rmp_calls=20, pricer=pricer,
                         majority_labels=True)
    res = gen.run()
    assert res.status == "stalled" and res.n_rmp_calls == 1
    assert len(seen) == 2 + STALL_RETRIES  # the initial rules, the LP's duals, the retries
    pool = [(r.literals, r.label, r.cost) for r in res.rules]
    for beta in seen[1:]:
        assert ((beta >= -1e-12) & (beta <= 1 + 1e-9)).all()
        for lits, label, cost in pool:
            covered = np.ones(len(y), dtype=bool)
            for lit in lits:
                x = raw.numeric[lit.feature]
                covered &= x <= lit.value if lit.op == "<=" else x > lit.value
            ahat = np.where(y[covered] == label, 1.0, -1.0 / (K - 1))
            assert float(beta[covered] @ ahat) <= PEN * cost + 1e-7
        assert beta.sum() == pytest.approx(res.objective, abs=1e-6)
    assert len({tuple(b) for b in seen[1:]}) > 1
