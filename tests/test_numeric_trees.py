"""BendOCT / BendersOCT over every threshold of numeric columns (issue #18): the estimators'
optimum against a brute force, ConTree and CART; save / load; the time limit."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
import pytest
from oracles import best_tree_over_tests
from sklearn.tree import DecisionTreeClassifier

import optrees
from optrees import BendersOCTClassifier, BendOCTClassifier, FlowOCTClassifier
from optrees.encoding.binarize import Binarizer
from optrees.estimators import TimeLimitWarning, UnseenCategoryWarning


def _frame(seed: int, categorical: bool) -> tuple[pd.DataFrame, np.ndarray]:
    """Tiny table with repeated numeric values (ties) and optionally a categorical column."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 19))
    df = pd.DataFrame({f"x{j}": rng.integers(0, 4, n) * 0.5 for j in range(2)})
    df.loc[0, "x0"] = 1.5                      # never all 0/1: the numeric path applies
    if categorical:
        df["c"] = rng.choice(["a", "b", "c"], n)
    return df, rng.integers(0, 3, n)


def _cuts(df: pd.DataFrame) -> list[np.ndarray]:
    """Every test a tree may make: each numeric midpoint, each ``column == value``."""
    cuts = []
    for c in df.columns:
        values = np.unique(df[c].to_numpy())
        if not pd.api.types.is_numeric_dtype(df[c]):
            cuts += [df[c].to_numpy() == v for v in values]
        else:
            cuts += [df[c].to_numpy() <= (a + b) / 2 for a, b in zip(values[:-1], values[1:],
                                                                    strict=True)]
    return cuts


def _brute_force(df: pd.DataFrame, y: np.ndarray, depth: int, a: float, b: float) -> float:
    """max over trees of depth ≤ ``depth`` of a · correct − b · leaves (memoized)."""
    def leaf(member: np.ndarray) -> float:
        return a * float(np.bincount(y[member], minlength=3).max()) - b

    cuts = _cuts(df)
    if not cuts:
        return leaf(np.ones(len(y), dtype=bool))
    return best_tree_over_tests(cuts, leaf, depth)


def _objective(est, df: pd.DataFrame, y: np.ndarray) -> float:
    """The estimator's objective re-scored from ``predict`` and the tree's leaf count."""
    correct = float((est.predict(df) == y).sum())
    leaves = est.tree_.n_leaves
    if isinstance(est, BendOCTClassifier):
        return correct / len(y) - est.lam * leaves
    return (1 - est.lam) * correct - est.lam * (leaves - 1)


def _optimum(est, df: pd.DataFrame, y: np.ndarray) -> float:
    """The brute-force optimum in the estimator's units."""
    if isinstance(est, BendOCTClassifier):
        return _brute_force(df, y, est.depth, 1.0 / len(y), est.lam)
    return _brute_force(df, y, est.depth, 1.0 - est.lam, est.lam) + est.lam


ESTIMATORS = [
    pytest.param(lambda d: BendOCTClassifier(depth=d, lam=0.0), id="bendoct-lam0"),
    pytest.param(lambda d: BendOCTClassifier(depth=d, lam=0.04), id="bendoct-leaves"),
    pytest.param(lambda d: BendersOCTClassifier(depth=d, lam=0.3), id="bendersoct-splits"),
    pytest.param(lambda d: FlowOCTClassifier(depth=d, lam=0.1), id="flowoct"),
]


@pytest.mark.parametrize("make", ESTIMATORS)
@pytest.mark.parametrize("depth", [1, 2, 3])
@pytest.mark.parametrize("seed,categorical", [(0, False), (1, True), (2, True), (3, False)])
def test_optimum_equals_brute_force(make, depth, seed, categorical):
    df, y = _frame(seed, categorical)
    est = make(depth).fit(df, y)
    assert est.status_ == "optimal" and est.thresholds_ == "all"
    assert est.objective_ == pytest.approx(_optimum(est, df, y), abs=1e-9)
    assert est.objective_ == pytest.approx(_objective(est, df, y), abs=1e-9)
    assert est.bound_ == pytest.approx(est.objective_)
    assert est.tree_.depth <= depth


def _breast_cancer(rows: slice = slice(None)) -> tuple[pd.DataFrame, np.ndarray]:
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    return X.iloc[rows].reset_index(drop=True), y.to_numpy()[rows]


@pytest.mark.parametrize("depth,rows", [(2, slice(None)), (3, slice(None, None, 4))])
def test_contree_witness(depth, rows):
    """At lam = 0 the training accuracy is ConTree's (an independent exact solver)."""
    pycontree = pytest.importorskip("pycontree")
    df, y = _breast_cancer(rows)
    expect = pycontree.ConTree(max_depth=depth, time_limit=60).fit(df.to_numpy(), y)
    expect_acc = float((expect.predict(df.to_numpy()) == y).mean())
    est = BendOCTClassifier(depth=depth, lam=0.0).fit(df, y)
    assert est.status_ == "optimal" and est.thresholds_ == "all"
    assert est.score(df, y) == pytest.approx(expect_acc)
    assert est.objective_ == pytest.approx(expect_acc)


@pytest.mark.parametrize("depth", [2, 3])
@pytest.mark.parametrize("seed", [0, 1])
def test_never_worse_than_cart(depth, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] * X[:, 1] + rng.normal(scale=0.5, size=120) > 0).astype(int)
    df = pd.DataFrame(X, columns=list("abcd"))
    cart = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y).score(X, y)
    est = BendersOCTClassifier(depth=depth).fit(df, y)
    assert est.thresholds_ == "all"
    assert est.score(df, y) >= cart - 1e-12


def test_save_load_round_trip(tmp_path):
    df, y = _frame(5, categorical=True)
    df["x1"] += 0.25                            # non-integer thresholds
    est = BendOCTClassifier(depth=2, lam=0.0).fit(df, y)
    path = tmp_path / "model.json"
    optrees.save_model(est, path)
    loaded = optrees.load_model(path)
    rng = np.random.default_rng(9)
    new = pd.DataFrame({"x0": rng.uniform(-1, 3, 50), "x1": rng.uniform(-1, 3, 50),
                        "c": rng.choice(["a", "b", "c"], 50)})
    for X in (df, new):
        assert np.array_equal(loaded.predict(X), est.predict(X))
        assert np.allclose(loaded.predict_proba(X), est.predict_proba(X))


def test_unseen_category_warns():
    df, y = _frame(1, categorical=True)
    est = BendOCTClassifier(depth=2, lam=0.0).fit(df, y)
    with pytest.warns(UnseenCategoryWarning):
        est.predict(df.assign(c="zzz"))


@pytest.mark.parametrize("make", [
    pytest.param(lambda: BendOCTClassifier(depth=2, binarizer=Binarizer()), id="binarizer"),
    pytest.param(lambda: BendOCTClassifier(depth=2, subtree_search=False), id="no-search"),
    pytest.param(lambda: FlowOCTClassifier(depth=2, subtree_search=False), id="flowoct"),
])
def test_binarized_path_kept(make):
    df, y = _continuous_frame()
    est = make().fit(df, y)
    assert est.thresholds_ == "binarized" and est.binarizer_ is not None
    assert est.encoder_ is None


def _continuous_frame(n: int = 40) -> tuple[pd.DataFrame, np.ndarray]:
    """More distinct values per column than 5 quantile cuts separate."""
    rng = np.random.default_rng(9)
    df = pd.DataFrame(rng.normal(size=(n, 2)), columns=["x0", "x1"]).assign(
        c=rng.choice(["a", "b", "c"], n))
    return df, (df.x0 + rng.normal(size=n) > 0).to_numpy().astype(int)


def test_binarized_optimum_over_every_value_is_over_every_threshold():
    """A binarizer whose cuts separate every two values of each numeric column (here: 5
    quantiles of columns with at most 4 values) loses no threshold: ``thresholds_`` says
    "all", and the optimum is that of every threshold."""
    df, y = _frame(4, categorical=True)
    binarized = BendOCTClassifier(depth=2, lam=0.0, binarizer=Binarizer()).fit(df, y)
    every = BendOCTClassifier(depth=2, lam=0.0).fit(df, y)
    assert binarized.thresholds_ == every.thresholds_ == "all"
    assert binarized.binarizer_ is not None and every.encoder_ is not None
    assert binarized.objective_ == pytest.approx(every.objective_)


def test_binary_table_is_every_threshold():
    """A table of 0/1 columns has one threshold per column: its optimum is over all."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.integers(0, 2, (30, 3)), columns=list("abc"))
    est = BendOCTClassifier(depth=2).fit(df, rng.integers(0, 2, 30))
    assert est.thresholds_ == "all" and est.binarizer_ is None and est.encoder_ is None


def _stopped_fit(X: np.ndarray, y: np.ndarray, depth: int, limit: float) -> None:
    """BendOCT over every threshold, stopped by ``limit``: back in time (0.5 s grace), status
    "time_limit" with a valid bound above the tree, training accuracy at least CART's."""
    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TimeLimitWarning)
        est = BendOCTClassifier(depth=depth, lam=0.0, time_limit=limit).fit(df, y)
    assert time.perf_counter() - t0 <= limit + 0.5
    assert est.status_ == "time_limit" and est.thresholds_ == "all"
    assert est.bound_ > est.objective_
    cart = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y).score(X, y)
    assert est.score(df, y) >= cart - 1e-12


def test_time_limit_honoured():
    """A short limit on a large numeric set: back in time, a valid bound, at least CART."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(4000, 10))
    y = (np.sin(3 * X[:, 0]) + X[:, 1] * X[:, 2] + rng.normal(scale=0.8, size=4000) > 0)
    _stopped_fit(X, y.astype(int), depth=3, limit=2.0)


def test_depth2_time_limit_honoured():
    """Depth 2 stops at the limit too (noise labels: the bounds prune little; about 9 s)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(20000, 20))
    _stopped_fit(X, rng.integers(0, 2, 20000), depth=2, limit=1.5)


def test_status_line_says_which_thresholds():
    """The CLI's status line says over which thresholds an optimum holds."""
    from optrees.cli_report import mip_summary

    df, y = _continuous_frame()
    every = BendOCTClassifier(depth=2).fit(df, y)
    binarized = BendOCTClassifier(depth=2, binarizer=Binarizer()).fit(df, y)
    one_hot = " (categorical columns: one test x = v per category)"  # column c
    assert mip_summary(every)[0].endswith("optimal over every threshold" + one_hot)
    assert mip_summary(binarized)[0].endswith("optimal over the binarizer's thresholds" +
                                              one_hot)
    numbers = BendOCTClassifier(depth=2).fit(df[["x0", "x1"]], y)
    assert mip_summary(numbers)[0].endswith("optimal over every threshold")


@pytest.mark.parametrize("extra,line", [([], "optimal over every threshold"),
                                        (["--bins", "5"], "optimal over the binarizer's"),
                                        (["--method", "flow"], "optimal over every threshold"),
                                        (["--method", "flow", "--plain", "--depth", "1"],
                                         "optimal over the binarizer's")])
def test_cli_default_is_every_threshold(extra, line, tmp_path, capsys):
    """``optrees fit`` leaves ``binarizer="auto"`` unless --numeric / --bins is given; FlowOCT
    too, unless ``--plain`` asks for the published MIP alone."""
    from optrees.cli import main

    df, y = _breast_cancer(slice(None, None, 3))
    df.assign(label=y).to_csv(tmp_path / "bc.csv", index=False)
    code = main(["fit", "--method", "bendoct", "--csv", str(tmp_path / "bc.csv"), "--target",
                 "label", "--depth", "2", "--lam", "0", "--time-limit", "20", *extra])
    assert code == 0
    assert f"status          : {line}" in capsys.readouterr().out


def test_numpy_kernels_when_no_time_to_compile(monkeypatch):
    """Kernels neither compiled nor cached: numpy with less than COMPILE_SECONDS left."""
    from optrees import compiled
    from optrees.solvers.deadline import Deadline
    from optrees.trees.solve import numeric as numeric_solve

    done = []
    monkeypatch.setattr(compiled, "numba_available", lambda: True)

    def backend(deadline: Deadline) -> str:
        return compiled.backend_for(deadline, lambda: False, lambda: done.append(True))

    assert backend(Deadline(compiled.COMPILE_SECONDS / 2)) == "numpy"
    assert not done
    assert backend(Deadline(None)) == "numba" and done
    assert numeric_solve.kernels_ready.__module__ == "optrees.trees.search.numeric.warmup"
