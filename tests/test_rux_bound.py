"""RUX's ``bound_`` is a certified lower bound on its LP's optimum: the duals scaled until
every rule's dual row holds.  Pure leaves cost 1e-8 (Gini floor); HiGHS's default feasibility
tolerance (1e-7) let their rows exceed that by 4e-8, and the scaling then cut the bound to a
third: breast-cancer, status "optimal", gap_ 0, objective_ 3.2266, bound_ 1.0755.  The bound
must now reach the LP optimum computed by scipy's ``linprog`` over the dense LP."""

from __future__ import annotations

import pytest
from test_rux import _data, _dense_lp

from optrees import RUXClassifier


@pytest.mark.parametrize("data,seed,cost", [("cancer", 0, "gini"), ("cancer", 1, "gini"),
                                            ("iris", 0, "gini"), ("cancer", 0, "unit")])
def test_bound_reaches_the_lp_optimum(data: str, seed: int, cost: str) -> None:
    X, y = _data(data)
    m = RUXClassifier(random_state=seed, rule_cost=cost, lp_method="simplex").fit(X, y)
    want = _dense_lp(m.estimator_, X, y, 1.0, cost)  # the forest RUX grew itself
    tol = 1e-6 * max(1.0, want)
    assert m.status_ == "optimal"
    assert want - tol <= m.bound_ <= want + tol  # valid and tight
    assert m.objective_ == pytest.approx(want, abs=tol)
    # gap_ 0 says what bound_ and objective_ say
    assert m.gap_ == 0.0 and abs(m.objective_ - m.bound_) <= 2 * tol
