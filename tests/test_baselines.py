"""OCT and BinOCT (optrees.trees.mip.oct, optrees.trees.mip.binoct) reach the same optimum as
FlowOCT and as exhaustive search; their trees score what they report; time limits and bad input
behave as elsewhere."""

import warnings
from functools import cache

import numpy as np
import pytest
from oracles import exhaustive_objective
from sklearn.base import clone

from optrees import FlowOCTClassifier, OptreesInputError, TimeLimitWarning, load_dataset
from optrees.encoding.binarize import Binarizer
from optrees.estimators.baselines import BinOCTClassifier, OCTClassifier
from optrees.models.binary_tree import BinaryTree
from optrees.solvers.base import SolverOptions
from optrees.solvers.scip import ScipModel
from optrees.trees.mip.binoct import BinOCT


def _instances(count: int, seed: int):
    rng = np.random.default_rng(seed)
    for t in range(count):
        n = int(rng.integers(6, 21))
        F = int(rng.integers(1, 5))
        K = int(rng.integers(2, 4))
        X = rng.integers(0, 2, (n, F))
        y = rng.integers(0, K, n)
        if t % 3 == 0:  # a learnable signal now and then, so trees split
            y = (X[:, 0] ^ X[:, -1]) % K
        y[:K] = np.arange(K)  # every class present
        yield t, X, y, 1 + t % 2


def _rescored(est, X, y, lam: float) -> float:
    """(1 - lam) * correct - lam * splits of the returned tree, from its predictions."""
    correct = int(np.sum(est.predict(X) == y))
    return (1 - lam) * correct - lam * est.tree_.n_splits


def _check_optimal(est, X, y, lam: float, best: float, depth: int) -> None:
    name = type(est).__name__
    assert est.status_ == "optimal", name
    assert est.objective_ == pytest.approx(best, abs=1e-6), name
    assert _rescored(est, X, y, lam) == pytest.approx(best, abs=1e-6), name
    assert est.bound_ == pytest.approx(best, abs=1e-5), name
    assert est.gap_ == 0.0
    assert isinstance(est.tree_, BinaryTree)
    assert est.tree_.depth <= depth


OCT_CASES = [(t, X, y, d, (0.0, 0.1, 0.3)[t % 3]) for t, X, y, d in _instances(8, seed=11)]


@pytest.mark.parametrize("case", OCT_CASES, ids=[f"inst{c[0]}" for c in OCT_CASES])
def test_oct_matches_flowoct_and_exhaustive_search(case):
    t, X, y, depth, lam = case
    best = exhaustive_objective(X, y, len(np.unique(y)), depth, lam)
    flow = FlowOCTClassifier(depth=depth, lam=lam, binarizer=None, subtree_search=False).fit(X, y)
    oct_ = OCTClassifier(depth=depth, lam=lam, binarizer=None, warm_start=t % 2 == 0).fit(X, y)
    _check_optimal(flow, X, y, lam, best, depth)
    _check_optimal(oct_, X, y, lam, best, depth)
    assert oct_.objective_ == pytest.approx(flow.objective_, abs=1e-6)


BIN_CASES = list(_instances(8, seed=23))


@pytest.mark.parametrize("case", BIN_CASES, ids=[f"inst{c[0]}" for c in BIN_CASES])
def test_binoct_matches_flowoct_at_lam0_and_exhaustive_search(case):
    t, X, y, depth = case
    best = exhaustive_objective(X, y, len(np.unique(y)), depth, 0.0)
    flow = FlowOCTClassifier(depth=depth, lam=0.0, binarizer=None, subtree_search=False).fit(X, y)
    binoct = BinOCTClassifier(depth=depth, binarizer=None, warm_start=t % 2 == 1).fit(X, y)
    _check_optimal(binoct, X, y, 0.0, best, depth)
    assert binoct.objective_ == pytest.approx(flow.objective_, abs=1e-6)


def test_binoct_with_a_constant_feature():
    """A constant column only allows dummy splits (all rows left); they must be undone."""
    rng = np.random.default_rng(3)
    X = np.column_stack([np.ones(20, int), rng.integers(0, 2, (20, 2))])
    y = X[:, 1] ^ X[:, 2]
    best = exhaustive_objective(X, y, 2, 2, 0.0)
    est = BinOCTClassifier(depth=2, binarizer=None, warm_start=False).fit(X, y)
    _check_optimal(est, X, y, 0.0, best, 2)
    assert best == 20


# ------------------------------------------------------------------ BinOCT on integer columns
def _integer_oracle(V: np.ndarray, y: np.ndarray, K: int, depth: int) -> int:
    """Best training accuracy of a depth-``depth`` tree with tests ``x_j <= midpoint``."""
    ths = [(np.unique(c)[:-1] + np.unique(c)[1:]) / 2 for c in V.T]

    @cache
    def best(rows: tuple[int, ...], d: int) -> int:
        idx = np.array(rows, dtype=int)
        value = int(np.bincount(y[idx], minlength=K).max()) if len(idx) else 0
        if d == 0 or len(idx) == 0:
            return value
        for j, th_j in enumerate(ths):
            for th in th_j:
                left = V[idx, j] <= th
                value = max(value, best(tuple(idx[left]), d - 1) + best(tuple(idx[~left]), d - 1))
        return value

    return best(tuple(range(len(y))), depth)


def _integer_instances(count: int, seed: int):
    rng = np.random.default_rng(seed)
    for t in range(count):
        n = int(rng.integers(5, 22))
        F = int(rng.integers(1, 4))
        K = int(rng.integers(2, 4))
        # columns with 1..9 distinct values: several thresholds bits, codes >= T_j (dummy splits)
        V = np.column_stack([rng.integers(0, int(rng.integers(1, 10)), n) for _ in range(F)])
        y = rng.integers(0, K, n)
        y[:K] = np.arange(K)
        yield t, V, y, K, 1 + t % 2


INT_CASES = list(_integer_instances(10, seed=5))


@pytest.mark.parametrize("case", INT_CASES, ids=[f"int{c[0]}" for c in INT_CASES])
def test_binoct_raw_thresholds_match_exhaustive_search(case):
    t, V, y, K, depth = case
    best = _integer_oracle(V, y, K, depth)
    est = BinOCTClassifier(depth=depth, raw_thresholds=True, warm_start=t % 2 == 0).fit(V, y)
    assert est.status_ == "optimal"
    assert est.objective_ == best
    assert int(np.sum(est.predict(V) == y)) == best
    assert est.bound_ == pytest.approx(best, abs=1e-5)
    thresholds = est.tree_.threshold[est.tree_.feature >= 0]
    assert np.all(np.isfinite(thresholds))  # dummy splits were removed


def test_binoct_dummy_split_is_hoisted():
    """A root code beyond the column's thresholds sends every row left; the extracted tree must
    predict exactly what the formulation's routing says."""
    rng = np.random.default_rng(8)
    V = np.column_stack([rng.integers(0, 2, 30), rng.integers(0, 7, 30)])  # T = 1 and 6: 3 bits
    y = rng.integers(0, 2, 30)
    form = BinOCT(V, y, 2, 2)
    form.build(ScipModel(SolverOptions()))
    assert form.n_bits == 3
    feature = np.array([0, 1, 1])
    code = np.array([5, 2, 4])  # root: column 0 has one threshold, code 5 is a dummy split
    x = form.solution_values(feature, code)
    leaf = form.route(feature, code)
    assert set(leaf) <= {4, 5}  # everything went left at the root
    feat, thr, label = form.structure_from_values(x)
    assert feat[0] == 1 and thr[0] == form.thresholds[1][2]
    tree = BinaryTree.from_heap({n + 1: int(f) for n, f in enumerate(feat) if f >= 0},
                                {n + 1: int(k) for n, k in enumerate(label)}, np.arange(2),
                                {n + 1: float(thr[n]) for n, f in enumerate(feat) if f >= 0})
    assert tree.depth == 1
    np.testing.assert_array_equal(tree.predict(V), label[leaf - 1])


# ------------------------------------------------------------------ a real dataset, pystreed
def test_baselines_match_pystreed_on_house_votes():
    pystreed = pytest.importorskip("pystreed")
    X, y = load_dataset("house-votes-84")
    Xb = Binarizer().fit_transform(X)[:50]
    yi = np.unique(y, return_inverse=True)[1][:50]
    ref = pystreed.STreeDClassifier(max_depth=2, optimization_task="accuracy", time_limit=60)
    ref.fit(Xb.astype(int), yi)
    assert ref.fit_result.is_optimal()
    best = int(np.sum(ref.predict(Xb.astype(int)) == yi))
    for est in (OCTClassifier(depth=2, binarizer=None, time_limit=60),
                BinOCTClassifier(depth=2, binarizer=None, time_limit=60)):
        est.fit(Xb, yi)
        assert est.status_ == "optimal"
        assert est.objective_ == pytest.approx(best)
        assert est.score(Xb, yi) * len(yi) == pytest.approx(best)


# ------------------------------------------------------------------ time limit, input, params
@pytest.mark.parametrize("method", [OCTClassifier, BinOCTClassifier])
def test_time_limit_returns_best_tree_with_gap_and_warning(method):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (400, 15))  # no MIP here proves optimality within 20 s
    y = (X[:, 0] ^ X[:, 1] ^ X[:, 2] | (rng.random(400) < 0.3)).astype(int)
    est = method(depth=2, binarizer=None, time_limit=1.0)
    with pytest.warns(TimeLimitWarning, match="best tree found"):
        est.fit(X, y)
    assert est.status_ != "optimal"
    assert est.fit_seconds_ < 1.0 + 3.0  # building stops at the deadline too
    assert est.gap_ > 0
    assert est.bound_ >= est.objective_ - 1e-6
    assert est.objective_ == pytest.approx(np.sum(est.predict(X) == y))
    assert est.tree_.depth <= 2


def test_raw_time_limit_during_build_still_returns_a_tree():
    rng = np.random.default_rng(1)
    V = rng.integers(0, 50, (400, 6))
    y = rng.integers(0, 3, 400)
    est = BinOCTClassifier(depth=3, raw_thresholds=True, time_limit=0.05)
    with pytest.warns(TimeLimitWarning):
        est.fit(V, y)
    assert est.objective_ == pytest.approx(np.sum(est.predict(V) == y))
    assert est.objective_ >= np.bincount(y).max()


@pytest.mark.parametrize(
    "make,X,y,match",
    [
        (lambda: OCTClassifier(depth=0), [[0], [1]], [0, 1], "depth must be an integer"),
        (lambda: OCTClassifier(lam=1.5), [[0], [1]], [0, 1], "lam must be a number"),
        (lambda: OCTClassifier(time_limit=-1), [[0], [1]], [0, 1], "time_limit"),
        (lambda: OCTClassifier(binarizer=None), [[0], [2]], [0, 1], "must be binary"),
        (lambda: BinOCTClassifier(binarizer=None), [[0], [1]], [1, 1], "one class"),
        (lambda: BinOCTClassifier(depth=1.5), [[0], [1]], [0, 1], "depth must be an integer"),
        (lambda: BinOCTClassifier(raw_thresholds="yes"), [[0], [1]], [0, 1], "raw_thresholds"),
        (lambda: BinOCTClassifier(raw_thresholds=True), [["a"], ["b"]], [0, 1], "numeric"),
        (lambda: BinOCTClassifier(raw_thresholds=True), [[0, 1]], [0, 1], "different numbers"),
    ],
)
def test_bad_input_gives_clear_errors(make, X, y, match):
    with pytest.raises(OptreesInputError, match=match):
        make().fit(np.asarray(X, dtype=object) if match == "numeric" else X, y)


def test_params_and_clone():
    oct_ = OCTClassifier(depth=3, lam=0.2, time_limit=5)
    assert clone(oct_).get_params()["lam"] == 0.2
    params = BinOCTClassifier(depth=3).get_params()
    assert "lam" not in params and params["depth"] == 3
    assert BinOCTClassifier().lam == 0.0


def test_raw_thresholds_predict_on_new_rows():
    X, y = load_dataset("monk1")
    X = X.astype(int)[:40]
    y = y[:40]
    with warnings.catch_warnings():
        warnings.simplefilter("error", TimeLimitWarning)
        est = BinOCTClassifier(depth=1, raw_thresholds=True, time_limit=30).fit(X, y)
    assert est.objective_ == pytest.approx(est.score(X, y) * len(y))
    assert "<=" in est.export_text()
    proba = est.predict_proba(X)
    assert proba.shape == (len(y), 2)
    with pytest.raises(ValueError, match="feature"):  # wrong columns, as for FlowOCT
        est.predict(X.iloc[:, :3])


def test_raw_thresholds_model_saves_and_loads(tmp_path):
    from optrees import load_model, save_model

    rng = np.random.default_rng(4)
    V = rng.integers(0, 6, (30, 2))
    y = (V[:, 0] > 2).astype(int)
    y[:3] = 1 - y[:3]
    est = BinOCTClassifier(depth=1, raw_thresholds=True).fit(V, y)
    save_model(est, tmp_path / "m.json")
    loaded = load_model(tmp_path / "m.json")
    np.testing.assert_array_equal(loaded.predict(V), est.predict(V))
    assert est.objective_ == 27
