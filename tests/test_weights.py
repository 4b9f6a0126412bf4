"""Sample weights in the tree MIPs: every formulation and acceleration certifies the weighted
optimum of an exhaustive search, and integer weights give the optimum of duplicated rows."""

import numpy as np
import pytest
from oracles import exhaustive_objective

from optrees import (
    BendersOCTClassifier,
    BendOCTClassifier,
    BinOCTClassifier,
    FlowOCTClassifier,
    OCTClassifier,
)
from optrees._params import validate_params
from optrees.bench.tasks import PLAIN_BENDERS
from optrees.solvers.deadline import Deadline
from optrees.trees.problem.tree_problem import TreeProblem
from optrees.trees.solve.binary import solve_tree

VARIANTS = {
    "flow": (FlowOCTClassifier, {"subtree_search": False}),
    "flow-strengthen": (FlowOCTClassifier, {"strengthen": True, "subtree_search": False}),
    "benders-plain": (BendersOCTClassifier, PLAIN_BENDERS),
    "benders-accel": (BendersOCTClassifier, {"subtree_search": False,
                                             "path_bound_cuts": "both"}),
    "bendoct-mip": (BendOCTClassifier, {"subtree_search": False}),
    "bendoct-eqp": (BendOCTClassifier, {"subtree_search": False, "eqp": "recursive_da-group"}),
    "bendoct-search": (BendOCTClassifier, {}),
    "oct": (OCTClassifier, {}),
    "binoct": (BinOCTClassifier, {}),
    # no start, no polishing: a cut that is too tight must show in the optimum found
    "path-bound-only": (BendersOCTClassifier, {"subtree_search": False, "polishing": False,
                                               "warm_start": False, "path_bound_cuts": "both",
                                               "split_bound_cuts": False}),
    "split-bound-only": (BendOCTClassifier, {"subtree_search": False, "polishing": False,
                                             "warm_start": False, "path_bound_cuts": False}),
}


def _solve(name: str, X, y, w, depth: int, lam: float):
    cls, params = VARIANTS[name]
    est = cls(depth=depth, lam=lam, binarizer=None, **params) if cls is not BinOCTClassifier \
        else cls(depth=depth, binarizer=None, **params)
    p = validate_params(est)
    K = int(y.max()) + 1
    problem = TreeProblem(X, y, K, depth, lam, est._penalty(p), sample_weight=w)
    form = est._formulation(problem, p)
    names = ([f"x{j}" for j in range(X.shape[1])], [f"not x{j}" for j in range(X.shape[1])])
    return solve_tree(problem, form, Deadline(60), np.arange(K), names,
                      warm_start=p.warm_start, search=est._search(p)), problem


def _cases(count: int, seed: int = 7):
    rng = np.random.default_rng(seed)
    for t in range(count):
        n, F, K = int(rng.integers(5, 14)), int(rng.integers(1, 5)), int(rng.integers(2, 4))
        X = rng.integers(0, 2, (n, F))
        y = rng.integers(0, K, n)
        y[:K] = np.arange(K)
        w = rng.choice([0.0, 0.5, 1.0, 2.5], n)
        w[0] = 1.0
        yield t, X, y, w, 2 + t % 2 if t % 3 == 0 else 1 + t % 2, (0.0, 0.05, 0.2)[t % 3]


CASES = list(_cases(18))


@pytest.mark.parametrize("name", list(VARIANTS)[:9])
@pytest.mark.parametrize("case", CASES, ids=[f"inst{c[0]}" for c in CASES])
def test_weighted_optimum_matches_exhaustive_search(case, name):
    t, X, y, w, depth, lam = case
    if name == "binoct":  # no penalty; a full tree of the depth (lam 0: same optimum)
        lam = 0.0
    fit, problem = _solve(name, X, y, w, depth, lam)
    best = exhaustive_objective(X, y, int(y.max()) + 1, depth, lam, problem.penalty, w)
    assert fit.status == "optimal"
    assert fit.objective == pytest.approx(best, abs=1e-7)
    assert fit.bound == pytest.approx(best, abs=1e-6)


@pytest.mark.parametrize("name", ["flow", "benders-accel", "bendoct-mip", "bendoct-search"])
def test_integer_weights_equal_duplicated_rows(name):
    rng = np.random.default_rng(3)
    for _ in range(4):
        X = rng.integers(0, 2, (12, 4))
        y = (X[:, 0] ^ X[:, 1] | (rng.random(12) < 0.2)).astype(int)
        w = rng.integers(0, 4, 12)
        w[:2] = 1
        y[:2] = (0, 1)
        weighted, _ = _solve(name, X, y, w.astype(float), 2, 0.01)
        repeated, _ = _solve(name, np.repeat(X, w, 0), np.repeat(y, w), None, 2, 0.01)
        assert weighted.objective == pytest.approx(repeated.objective, abs=1e-9)


@pytest.mark.parametrize("name", ["path-bound-only", "split-bound-only"])
@pytest.mark.parametrize("seed", range(6))
def test_depth3_cuts_are_weighted(name, seed):
    """Depth 3: the path-bound and split-bound rows bound weighted sums (small weights make a
    unit-coefficient row cut off the optimum)."""
    rng = np.random.default_rng(100 + seed)
    X = rng.integers(0, 2, (24, 4))
    y = ((X[:, 0] & X[:, 1]) ^ X[:, 2] ^ (rng.random(24) < 0.25)).astype(int)
    w = rng.choice([0.1, 0.3, 0.6], 24)  # < 1: a count exceeds its weight
    fit, problem = _solve(name, X, y, w, 3, 0.01)
    best = exhaustive_objective(X, y, 2, 3, 0.01, problem.penalty, w)
    assert fit.status == "optimal"
    assert fit.objective == pytest.approx(best, abs=1e-7)
