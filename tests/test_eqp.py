"""Equivalent-point inequalities ([BendOCT] §5.3, eq. 13-22): every H x G
variant keeps the exact optimum, and with a tree's structure fixed each beta_G can reach 1
exactly when the tree splits its EQP set (exact for chain / recursive, (16) for basic)."""

import itertools

import numpy as np
import pytest
from oracles import exhaustive_objective

from optrees import BendersOCTClassifier, OptreesInputError
from optrees.solvers.scip import ScipModel
from optrees.trees.mip.accel.eqp import G_VARIANTS, H_VARIANTS, VARIANTS, EqpInequalities
from optrees.trees.mip.benders import BendersOCT
from optrees.trees.mip.formulation import TreeFormulation
from optrees.trees.problem.tree_problem import HeapTree, TreeProblem


def _instance(seed: int):
    """Tiny random data with many near-duplicate rows (few features), 2-3 classes; depth 3
    (every fourth seed) gets at most 16 rows and 4 features to keep the solves short."""
    rng = np.random.default_rng(seed)
    depth = 3 if seed % 4 == 3 else 2
    n_max, f_max = (30, 5) if depth == 2 else (16, 4)
    n, F = int(rng.integers(10, n_max + 1)), int(rng.integers(2, f_max + 1))
    K = int(rng.integers(2, 4))
    X = rng.integers(0, 2, (n, F))
    y = rng.integers(0, K, n)
    if seed % 3 == 0:  # some structure, so that optimal trees branch
        y = (X[:, 0] ^ X[:, -1]) % K
        y[rng.random(n) < 0.2] = K - 1
    y[:K] = np.arange(K)
    return X, y, depth, (0.0, 0.01, 0.04)[seed % 3]


def _fit(X, y, depth, lam, eqp, penalty):
    return BendersOCTClassifier(depth=depth, lam=lam, penalty=penalty, eqp=eqp, binarizer=None,
                                path_bound_cuts=False, polishing=False,
                                subtree_search=False).fit(X, y)


# each seed runs every other variant: the two halves of the seeds each have depths 2 and 3
# and every lam (seed % 3), so every variant still meets all of them
HALF = {0: 0, 1: 0, 2: 0, 11: 0, 3: 1, 5: 1, 7: 1, 8: 1}


@pytest.mark.parametrize("seed", sorted(HALF))
def test_every_variant_keeps_the_leaf_penalty_optimum(seed):
    X, y, depth, lam = _instance(seed)
    best = exhaustive_objective(X, y, len(np.unique(y)), depth, lam, penalty="leaves")
    for eqp in VARIANTS[HALF[seed]::2]:
        est = _fit(X, y, depth, lam, eqp, "leaves")
        assert est.status_ == "optimal", eqp
        assert est.objective_ == pytest.approx(best, abs=1e-9), eqp
        assert est.stats_["eqp_sets"] == est.stats_["eqp_sets_found"]


@pytest.mark.parametrize("seed", [100, 102, 103])
def test_every_variant_keeps_the_split_penalty_optimum(seed):
    X, y, depth, lam = _instance(seed)
    lam *= 10  # 0.1 or 0.4 per split, or 0
    best = exhaustive_objective(X, y, len(np.unique(y)), depth, lam, penalty="splits")
    for eqp in VARIANTS:
        est = _fit(X, y, depth, lam, eqp, "splits")
        assert est.status_ == "optimal", eqp
        assert est.objective_ == pytest.approx(best, abs=1e-9), eqp


def _random_tree(rng, F: int, K: int, depth: int) -> HeapTree:
    """A random (possibly sparse) tree: each internal node branches on a feature or stops."""
    n_internal = 2**depth - 1
    split = np.where(rng.random(n_internal) < 0.75, rng.integers(0, F, n_internal), -1)
    return HeapTree(split, rng.integers(0, K, 2 * n_internal + 1)).canonical()


def _max_beta_g(problem: TreeProblem, h: str, g: str, tree: HeapTree):
    """Build the leaf structure, theta and the EQP rows; fix b, p, w, theta to ``tree`` and
    maximize the sum of the beta_G.  Returns (status, beta_G values, eqp, tree's x)."""
    m = ScipModel()
    form = TreeFormulation(problem, leaf_structure=True)
    form.add_tree_structure(m)
    form.g = m.add_vars(problem.n_samples, "C", name="theta")
    eqp = EqpInequalities(form, h, g, max_split=2)
    eqp.add(m)
    x = form.structure_values(tree)
    x[form.g] = tree.label[tree.terminal(problem.X) - 1] == problem.y
    for ids in (form.b, form.p_leaf, form.w, form.g):
        for i in np.ravel(ids):
            m.add_row([i], [1.0], float(x[i]), float(x[i]))
    total = m.add_vars(1, "C", ub=None, obj=1.0, name="total")
    m.add_row(np.r_[total, eqp.beta_g], np.r_[1.0, -np.ones(len(eqp.beta_g))], rhs=0.0)
    result = m.solve(time_limit=60)
    values = None if result.values is None else result.values[eqp.beta_g]
    return result.status, values, eqp, x


def _check_tree(problem: TreeProblem, h: str, g: str, tree: HeapTree) -> list[float]:
    """Assert that ``tree`` is feasible and each max beta_G is what H should allow; return
    the expected values."""
    status, beta_g, eqp, x = _max_beta_g(problem, h, g, tree)
    assert status == "optimal", (h, g)
    b = x[eqp.f.b]
    eqp.complete(x)  # start values: the same maxima
    assert x[eqp.beta_g] == pytest.approx(beta_g, abs=1e-6)
    stop = tree.terminal(problem.X)
    out = []
    for J, value in zip(eqp.sets, beta_g, strict=True):
        if h == "basic":  # (16): beta_G = 1 iff some node branches on F*
            expected = float(b[:, list(J.split_set)].sum() > 0.5)
        else:  # paths modelled: beta_G = 1 iff J's samples end in two or more nodes
            expected = float(len(np.unique(stop[J.samples])) > 1)
        assert value == pytest.approx(expected, abs=1e-6), (h, g, J, tree)
        out.append(expected)
    return out


@pytest.mark.parametrize("h", H_VARIANTS)
@pytest.mark.parametrize("g", G_VARIANTS)
def test_fixed_tree_is_feasible_and_beta_g_detects_splits(h, g):
    """Validity: every tree (its b, p, w, theta) extends to a feasible point, with beta_G = 1
    whenever the tree splits J.  Strength: chain and recursive force beta_G = 0 exactly when
    J ends in one node; basic exactly when no node branches on F*.  A wrong coefficient in
    (16)-(22) breaks one of the two directions."""
    rng = np.random.default_rng(7)
    expected = []
    for seed in range(6):
        X, y, _, lam = _instance(seed)
        problem = TreeProblem(X, y, int(y.max()) + 1, 3, lam, "leaves")
        for _ in range(3):
            tree = _random_tree(rng, X.shape[1], problem.n_classes, 3)
            expected += _check_tree(problem, h, g, tree)
    assert 0.0 in expected and 1.0 in expected


def test_the_optimal_tree_satisfies_every_variant():
    """An optimal depth-2 tree (enumerated, checked against the oracle) is feasible in every
    H x G variant, with beta_G as H prescribes."""
    X, y, _, lam = _instance(3)
    problem = TreeProblem(X, y, int(y.max()) + 1, 2, lam, "leaves")
    F = X.shape[1]
    trees = [HeapTree(np.array(s), np.zeros(7, dtype=int)).pruned(problem)
             for s in itertools.product(range(-1, F), repeat=3)]
    best = max(trees, key=lambda t: t.objective(problem))
    assert best.objective(problem) == pytest.approx(
        exhaustive_objective(X, y, problem.n_classes, 2, lam, penalty="leaves"))
    for eqp in VARIANTS:
        _check_tree(problem, *eqp.split("-"), best.canonical())


def _feasible(m: ScipModel, values: np.ndarray) -> bool:
    """SCIP's own check of every row, bound, integrality and constraint handler."""
    return bool(m.m.checkSol(m._to_solution(values), printreason=False, completely=True,
                             checkbounds=True, checkintegrality=True, checklprows=True))


@pytest.mark.parametrize("eqp", VARIANTS)
def test_completed_start_is_accepted(eqp):
    """A tree's start values with the EQP variables filled in by complete() are feasible:
    SCIP's own check of every row, bound, integrality and the Benders constraint handler
    accepts them; with every beta_G set to 0 it rejects some tree that splits a set."""
    X, y, _, lam = _instance(5)
    problem = TreeProblem(X, y, int(y.max()) + 1, 3, lam, "leaves")
    rng = np.random.default_rng(11)
    rejected = 0
    for _ in range(3):
        tree = _random_tree(rng, X.shape[1], problem.n_classes, 3)
        form = BendersOCT(problem, eqp=eqp)
        m = ScipModel()
        form.build(m)
        x = form.start_values(tree)
        form.eqp_rows.complete(x)

        assert _feasible(m, x), eqp
        x[form.eqp_rows.beta_g] = 0.0
        rejected += not _feasible(m, x)
        m.free()
    assert rejected > 0, eqp


def test_unknown_variant_names_the_choices():
    X, y, _, _ = _instance(1)
    with pytest.raises(OptreesInputError, match="recursive_da-group") as info:
        _fit(X, y, 2, 0.0, "recursive-grouped", "leaves")
    assert "chain_da-basic" in str(info.value) and "recursive-grouped" in str(info.value)
    with pytest.raises(ValueError, match="chain_da"):
        EqpInequalities(None, "chains", "group")
