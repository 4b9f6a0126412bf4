"""RUX's time limit covers the ensemble it fits itself: a 1 s limit on magic (19,020 rows, the
default forest of 100 trees) took 7.2 s, 5.4 s of it growing the forest.  Now a forest grows by
chunks of trees and gradient boosting by stages while the deadline allows, and the rule set
is the LP's over the trees grown (status "time_limit").  Deadlines here pass after a fixed
number of looks at the clock, so the stops are the same on every machine."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier

from optrees import RUXClassifier
from optrees.estimators import rux as rux_estimator
from optrees.estimators._base import TimeLimitWarning
from optrees.rug.ensemble_fit import fit_ensemble
from optrees.solvers.deadline import Deadline


class LooksLeft(Deadline):
    """A limited deadline with time left for ``looks`` calls of :meth:`remaining` /
    :meth:`expired`, none after."""

    __slots__ = ("left",)

    def __init__(self, looks: int) -> None:
        super().__init__(3600.0)
        self.left = looks

    def _look(self) -> bool:
        self.left -= 1
        return self.left >= 0

    def remaining(self) -> float:
        return 3600.0 if self._look() else 0.0

    def expired(self) -> bool:
        return not self._look()


@pytest.fixture(scope="module")
def cancer() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_breast_cancer(return_X_y=True)
    return X, y


def _same_tree(a, b) -> bool:
    return (np.array_equal(a.tree_.feature, b.tree_.feature)
            and np.array_equal(a.tree_.threshold, b.tree_.threshold))


def test_forest_stops_between_chunks_with_the_untimed_fits_first_trees(cancer) -> None:
    X, y = cancer
    whole = RandomForestClassifier(30, max_depth=3, random_state=0).fit(X, y)
    # one tree, then chunks of 3: time is left after the first tree, not after the chunk
    part = fit_ensemble(RandomForestClassifier(30, max_depth=3, random_state=0), X, y, None,
                        LooksLeft(1))
    assert len(part.estimators_) == 4 and not part.warm_start
    assert all(_same_tree(a, b) for a, b in zip(part.estimators_, whole.estimators_[:4],
                                                strict=False))
    # its vote: the mean of those four trees' class shares (scikit-learn's soft vote)
    mean = np.mean([t.predict_proba(X) for t in whole.estimators_[:4]], axis=0)
    assert np.allclose(part.predict_proba(X), mean)
    # with time to spare the chunked forest is the one-shot forest
    full = fit_ensemble(RandomForestClassifier(30, max_depth=3, random_state=0), X, y, None,
                        LooksLeft(100))
    assert len(full.estimators_) == 30
    assert all(_same_tree(a, b) for a, b in zip(full.estimators_, whole.estimators_,
                                                strict=True))


def test_boosting_stops_at_the_deadline_with_the_untimed_fits_first_stages(cancer) -> None:
    X, y = cancer
    whole = GradientBoostingClassifier(n_estimators=30, max_depth=2, random_state=0).fit(X, y)
    part = fit_ensemble(GradientBoostingClassifier(n_estimators=30, max_depth=2,
                                                   random_state=0), X, y, None, LooksLeft(4))
    assert part.n_estimators_ == 5  # stages 0-4: the fifth look found the time gone
    # the raw score after five stages: the prior's log-odds plus lr * each stage's tree
    p = y.mean()
    score = math.log(p / (1 - p)) + 0.1 * sum(
        whole.estimators_[i, 0].predict(X) for i in range(5))
    assert np.allclose(part.decision_function(X), score)


def test_rux_returns_the_lp_over_the_trees_grown_in_time(cancer, monkeypatch) -> None:
    X, y = cancer
    monkeypatch.setattr(rux_estimator, "fit_ensemble",
                        lambda e, m, yy, w, d: fit_ensemble(e, m, yy, w, LooksLeft(1)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = RUXClassifier(n_estimators=20, random_state=0, time_limit=60).fit(X, y)
    # one tree, then a chunk of 2: 3 trees when the time looked gone after the chunk
    assert m.status_ == "time_limit" and m.stats_["ensemble_trees"] == 3
    assert any(issubclass(w.category, TimeLimitWarning) and "3 of 20 trees" in str(w.message)
               for w in caught)
    assert len(m.estimator_.estimators_) == 3
    assert {r.meta["tree"] for r in m.all_rules_.rules} <= {0, 1, 2}
    # every rule is a leaf of those four trees: its rows are that leaf's training rows
    leaves = np.stack([t.apply(X) for t in m.estimator_.estimators_])
    for r in m.all_rules_.rules:
        tree = m.estimator_.estimators_[r.meta["tree"]]
        covered = np.ones(len(y), dtype=bool)
        for lit in r.literals:
            col = X[:, int(lit.feature[1:])] if lit.feature.startswith("x") else None
            assert col is not None
            covered &= col <= lit.value if lit.op == "<=" else col > lit.value
        assert set(leaves[r.meta["tree"]][covered]) == {r.meta["node"]}
        assert tree.tree_.children_left[r.meta["node"]] == -1  # a leaf of that tree


def test_rux_without_a_stop_keeps_every_tree(cancer) -> None:
    X, y = cancer
    m = RUXClassifier(n_estimators=20, random_state=0, time_limit=600).fit(X, y)
    whole = RandomForestClassifier(20, max_depth=3, random_state=0).fit(X, y)
    assert m.status_ == "optimal" and "ensemble_trees" not in m.stats_
    assert all(_same_tree(a, b) for a, b in zip(m.estimator_.estimators_, whole.estimators_,
                                                strict=True))


def test_lightgbm_and_xgboost_stop_at_the_deadline(cancer) -> None:
    lightgbm = pytest.importorskip("lightgbm")
    xgboost = pytest.importorskip("xgboost")
    X, y = cancer
    make = lambda: lightgbm.LGBMClassifier(n_estimators=30, max_depth=2, verbose=-1,  # noqa: E731
                                           random_state=0)
    whole, part = make().fit(X, y), fit_ensemble(make(), X, y, None, LooksLeft(4))
    assert part.booster_.current_iteration() == 5  # the fifth look found the time gone
    first = whole.booster_.dump_model(num_iteration=5)["tree_info"]
    assert [t["tree_structure"] for t in part.booster_.dump_model()["tree_info"]] == \
        [t["tree_structure"] for t in first]
    make = lambda: xgboost.XGBClassifier(n_estimators=30, max_depth=2,  # noqa: E731
                                         random_state=0)
    whole, part = make().fit(X, y), fit_ensemble(make(), X, y, None, LooksLeft(4))
    assert part.get_booster().get_dump() == whole.get_booster().get_dump()[:5]
    assert part.get_params()["callbacks"] is None  # the model's own callbacks back


def test_an_unfitted_ensemble_of_fewer_trees_is_no_stop(cancer) -> None:
    """RUX's n_estimators (100) is not the clone's (20): 20 trees is the whole fit."""
    X, y = cancer
    m = RUXClassifier(RandomForestClassifier(20, max_depth=3, random_state=0),
                      time_limit=600).fit(X, y)
    assert m.status_ == "optimal" and len(m.estimator_.estimators_) == 20
    assert "ensemble_trees" not in m.stats_


def test_a_fitted_ensemble_is_read_while_the_deadline_lasts(cancer, monkeypatch) -> None:
    """A fitted forest of 300 trees of depth 5 on magic: a 1 s limit took 10 s reading its
    leaves and building the LP over all of them.  Now the trees are read while a share of
    the limit lasts and the LP is over those."""
    from optrees.rug import ensemble

    X, y = cancer
    forest = RandomForestClassifier(20, max_depth=3, random_state=0).fit(X, y)
    monkeypatch.setattr(rux_estimator, "leaf_rules",
                        lambda t, M, n, d: ensemble.leaf_rules(t, M, n, LooksLeft(3)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = RUXClassifier(forest, time_limit=60).fit(X, y)
    assert m.status_ == "time_limit" and m.stats_["ensemble_trees"] == 4
    assert any(issubclass(w.category, TimeLimitWarning) and "4 of 20 trees" in str(w.message)
               for w in caught)
    assert {r.meta["tree"] for r in m.all_rules_.rules} <= {0, 1, 2, 3}
    # and those are every leaf the training rows reach in the first four trees
    reached = {(t, int(leaf)) for t in range(4) for leaf in
               np.unique(forest.estimators_[t].apply(X))}
    assert {(r.meta["tree"], r.meta["node"]) for r in m.all_rules_.rules} <= reached
