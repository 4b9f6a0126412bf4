"""FlowOCT and BendersOCT certify the true optimum of objective (1) ([FlowOCT])."""

import warnings

import numpy as np
import pytest
from oracles import exhaustive_objective

from optrees import BendersOCTClassifier, FlowOCTClassifier, load_dataset
from optrees.bench.tasks import PLAIN_BENDERS
from optrees.encoding.binarize import Binarizer


def _instances(count: int, seed: int = 2024):
    rng = np.random.default_rng(seed)
    for t in range(count):
        n = int(rng.integers(6, 41))
        F = int(rng.integers(1, 7))
        K = int(rng.integers(2, 4))
        y = rng.integers(0, K, n)
        y[: K] = np.arange(K)  # every class present
        X = rng.integers(0, 2, (n, F))
        if t % 3 == 0:  # a learnable signal now and then, so trees actually split
            y = (X[:, 0] ^ X[:, -1]) % K
            y[: K] = np.arange(K)
        depth = 1 + t % 2
        lam = (0.0, 0.1, 0.3)[t % 3 if t % 2 else (t // 2) % 3]
        yield t, X, y, depth, lam


def _rescored(est, X, y) -> float:
    """Objective (1) recomputed from predictions and the split count of the returned tree."""
    correct = int(np.sum(est.predict(X) == y))
    return (1 - est.lam) * correct - est.lam * est.tree_.n_splits


CASES = list(_instances(54))


@pytest.mark.parametrize("case", CASES, ids=[f"inst{c[0]}" for c in CASES])
def test_flow_and_benders_match_exhaustive_search(case):
    t, X, y, depth, lam = case
    K = len(np.unique(y))
    best = exhaustive_objective(X, y, K, depth, lam)
    variants = [
        FlowOCTClassifier(depth=depth, lam=lam, binarizer=None, warm_start=t % 2 == 0,
                          strengthen=t % 4 == 1, symmetry_breaking=t % 3 != 2,
                          subtree_search=False),
        BendersOCTClassifier(depth=depth, lam=lam, binarizer=None, warm_start=t % 2 == 1,
                             fractional_cuts=t % 4 == 2, symmetry_breaking=t % 5 != 3,
                             **PLAIN_BENDERS),
        # the MIP's defaults: eq. (8) in the leaf structure with path-bound cuts and polishing
        BendersOCTClassifier(depth=depth, lam=lam, binarizer=None, warm_start=t % 2 == 0,
                             path_bound_cuts=("both", True, "negative")[t % 3],
                             subtree_search=False),
        # the defaults: the exact subtree search proves it (no MIP)
        BendersOCTClassifier(depth=depth, lam=lam, binarizer=None),
    ]
    for est in variants:
        est.fit(X, y)
        assert est.status_ == "optimal"
        assert est.objective_ == pytest.approx(best, abs=1e-6), type(est).__name__
        assert _rescored(est, X, y) == pytest.approx(best, abs=1e-6)
        assert est.bound_ == pytest.approx(best, abs=1e-5)
        assert est.gap_ == 0.0
        assert est.tree_.depth <= depth


def _streed_accuracy(Xb: np.ndarray, y: np.ndarray, depth: int) -> int:
    pystreed = pytest.importorskip("pystreed")
    model = pystreed.STreeDClassifier(max_depth=depth, optimization_task="accuracy",
                                      time_limit=120)
    model.fit(Xb.astype(int), y)
    assert model.fit_result.is_optimal()
    return int(np.sum(model.predict(Xb.astype(int)) == y))


@pytest.mark.parametrize("seed, lam", [(501, 0.02), (502, 0.0)])
def test_plain_benders_depth3_matches_exhaustive_search(seed, lam):
    """The published Benders MIP at depth 3 (the cases above stop at depth 2): 28 noisy
    rows, 4 features (it proves 80 rows of monk3 against pystreed too, in 16-26 s)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (28, 4))
    y = ((X[:, 0] & X[:, 1]) ^ X[:, 2] ^ (rng.random(28) < 0.15)).astype(int)
    est = BendersOCTClassifier(depth=3, lam=lam, binarizer=None, **PLAIN_BENDERS).fit(X, y)
    assert est.status_ == "optimal"
    best = exhaustive_objective(X, y, 2, 3, lam)
    assert est.objective_ == pytest.approx(best, abs=1e-6)
    assert _rescored(est, X, y) == pytest.approx(best, abs=1e-6)


# rows: the first rows only (None: all)
@pytest.mark.parametrize(
    "name,rows,depth,method,kwargs",
    [("monk1", None, 2, FlowOCTClassifier, {"subtree_search": False}),
     ("monk3", None, 2, FlowOCTClassifier, {"subtree_search": False}),
     ("house-votes-84", None, 2, BendersOCTClassifier, PLAIN_BENDERS),
     ("monk2", 80, 2, BendersOCTClassifier, PLAIN_BENDERS),  # all 169 rows: 17 s, 80: 6.5
     ("monk2", None, 3, BendersOCTClassifier, {}),
     ("balance-scale", None, 3, BendersOCTClassifier, {})],
)
def test_optimum_matches_pystreed(name, rows, depth, method, kwargs):
    X, y = load_dataset(name)
    Xb = Binarizer().fit_transform(X)[:rows]
    y_idx = np.unique(y, return_inverse=True)[1][:rows]
    est = method(depth=depth, lam=0.0, binarizer=None, time_limit=120, **kwargs).fit(Xb, y_idx)
    assert est.status_ == "optimal"
    assert est.objective_ == pytest.approx(_streed_accuracy(Xb, y_idx, depth))


@pytest.mark.slow
@pytest.mark.parametrize("kwargs", [PLAIN_BENDERS, {}], ids=["plain", "default"])
def test_balance_scale_depth2_matches_pystreed(kwargs):
    X, y = load_dataset("balance-scale")
    Xb = Binarizer().fit_transform(X)
    y_idx = np.unique(y, return_inverse=True)[1]
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(y))[: len(y) // 2]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = BendersOCTClassifier(depth=2, time_limit=120, binarizer=None,
                                   **kwargs).fit(Xb[idx], y_idx[idx])
    assert est.objective_ == pytest.approx(_streed_accuracy(Xb[idx], y_idx[idx], 2))


LEAF_CASES = list(_instances(30, seed=77))


@pytest.mark.parametrize("case", LEAF_CASES, ids=[f"inst{c[0]}" for c in LEAF_CASES])
def test_leaf_penalty_benders_matches_exhaustive_search(case):
    """BendOCT ([BendOCT] eq. 4): accuracy - lam * leaves."""
    t, X, y, depth, lam = case
    lam = lam / 5  # per-leaf penalties in accuracy units: 0, 0.02, 0.06
    K = len(np.unique(y))
    best = exhaustive_objective(X, y, K, depth, lam, penalty="leaves")
    est = BendersOCTClassifier(depth=depth, lam=lam, penalty="leaves", binarizer=None,
                               warm_start=t % 2 == 0, fractional_cuts=t % 3 == 1,
                               **PLAIN_BENDERS).fit(X, y)
    assert est.status_ == "optimal"
    assert est.objective_ == pytest.approx(best, abs=1e-9)
    rescored = np.mean(est.predict(X) == y) - lam * est.tree_.n_leaves
    assert rescored == pytest.approx(best, abs=1e-9)


@pytest.mark.parametrize("name,depth,lam", [("monk1", 2, 0.01), ("house-votes-84", 2, 0.01),
                                            ("monk3", 2, 0.005)])
def test_leaf_penalty_matches_pystreed_cost_complexity(name, depth, lam):
    pystreed = pytest.importorskip("pystreed")
    X, y = load_dataset(name)
    Xb = Binarizer().fit_transform(X).astype(int)
    y_idx = np.unique(y, return_inverse=True)[1]
    ref = pystreed.STreeDClassifier(max_depth=depth, optimization_task="cost-complex-accuracy",
                                    cost_complexity=lam, time_limit=120).fit(Xb, y_idx)
    assert ref.fit_result.is_optimal()
    ref_obj = np.mean(ref.predict(Xb) == y_idx) - lam * ref.get_n_leaves()
    est = BendersOCTClassifier(depth=depth, lam=lam, penalty="leaves", binarizer=None,
                               time_limit=120, **PLAIN_BENDERS).fit(Xb, y_idx)
    assert est.status_ == "optimal"
    assert est.objective_ == pytest.approx(ref_obj, abs=1e-9)


def test_flowoct_cuts4_only_take_rows_sent_to_the_other_side():
    """Cut (4) sums the flow of rows with x_f = 1 into the left child.  Class 1 has no row
    with x_3 = 1 here; the separator once put an arbitrary class-1 row (x_3 = 0) into H,
    cut off the optimum and claimed 7.5 optimal instead of 8.4."""
    X = np.array([[1, 1, 1, 1], [0, 1, 1, 0], [0, 0, 0, 1], [1, 0, 1, 0], [1, 0, 0, 0],
                  [0, 1, 0, 1], [0, 1, 1, 1], [1, 0, 1, 1], [0, 0, 0, 0], [0, 1, 0, 0],
                  [0, 0, 0, 1]])
    y = np.array([0, 1, 2, 0, 2, 0, 0, 0, 1, 0, 0])
    est = FlowOCTClassifier(depth=2, lam=0.05, binarizer=None, strengthen=True,
                            subtree_search=False).fit(X, y)
    assert est.status_ == "optimal"
    assert est.objective_ == pytest.approx(exhaustive_objective(X, y, 3, 2, 0.05))

