"""BendOCT / BendersOCT with the exact subtree search first (optrees.trees.solve.binary): its proof,
its hand-over to the MIP when it proves nothing, and when its kernels get compiled."""

import numpy as np
import pytest
from oracles import exhaustive_objective

import optrees.compiled as compiled
import optrees.trees.solve.binary as solve
from optrees import BendersOCTClassifier, BendOCTClassifier, load_dataset
from optrees.trees.search.binary import solve_subtree


def _instance(seed: int):
    rng = np.random.default_rng(seed)
    n, F, K = int(rng.integers(12, 40)), int(rng.integers(2, 6)), int(rng.integers(2, 4))
    X = rng.integers(0, 2, (n, F))
    y = (X[:, 0] ^ X[:, -1]) % K if seed % 2 else rng.integers(0, K, n)
    y[:K] = np.arange(K)
    return X, y, K


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("penalty", ["splits", "leaves"])
def test_search_proof_is_the_exhaustive_optimum(seed, penalty):
    X, y, K = _instance(seed)
    depth, lam = 1 + seed % 3, (0.0, 0.01, 0.05)[seed % 3]
    best = exhaustive_objective(X, y, K, depth, lam, penalty=penalty)
    est = BendersOCTClassifier(depth=depth, lam=lam, penalty=penalty, binarizer=None).fit(X, y)
    assert est.status_ == "optimal" and est.stats_["search_optimal"]
    assert est.n_bb_nodes_ == 0  # no MIP was built
    assert est.objective_ == pytest.approx(best, abs=1e-9)
    assert est.bound_ == pytest.approx(best, abs=1e-9)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("depth", [4, 5])
def test_search_proof_at_depth_4_and_5_is_the_exhaustive_optimum(seed, depth):
    X, y, K = _instance(100 + seed)
    penalty = ("splits", "leaves")[seed % 2]
    lam = (0.0, 0.01, 0.05)[seed % 3]
    best = exhaustive_objective(X, y, K, depth, lam, penalty=penalty)
    est = BendersOCTClassifier(depth=depth, lam=lam, penalty=penalty, binarizer=None).fit(X, y)
    assert est.status_ == "optimal" and est.stats_["search_optimal"]
    assert est.objective_ == pytest.approx(best, abs=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_unproved_search_hands_its_tree_and_bound_to_the_mip(seed, monkeypatch):
    """A search stopped before its proof (here: an expired deadline) gives the MIP its tree as
    the start and its bound as a cap; the MIP still proves the exhaustive optimum."""
    from optrees.solvers.deadline import Deadline

    calls = []

    def stopped_search(*args, **kwargs):
        kwargs["deadline"] = Deadline(0.0)
        found = solve_subtree(*args, **kwargs)
        calls.append(found)
        return found

    monkeypatch.setattr(solve, "solve_subtree", stopped_search)
    X, y, K = _instance(seed)
    depth, lam = 2, (0.0, 0.02)[seed % 2]
    best = exhaustive_objective(X, y, K, depth, lam, penalty="leaves")
    est = BendOCTClassifier(depth=depth, lam=lam, binarizer=None).fit(X, y)
    assert len(calls) == 1 and not calls[0].optimal
    assert est.stats_["search_optimal"] is False
    assert est.status_ == "optimal"
    assert est.objective_ == pytest.approx(best, abs=1e-9)
    assert est.bound_ >= est.objective_ - 1e-9


@pytest.mark.parametrize("limit,compiles", [(3.0, False), (60.0, True)])
def test_kernels_compile_only_when_the_time_limit_leaves_room(limit, compiles, monkeypatch):
    """Uncompiled numba kernels cost seconds on their first call: a short fit runs the numpy
    kernels instead, a fit with time to spare compiles them first (once the process's numpy
    probes are spent: ``test_cold_start.py`` tests those)."""
    done = []
    monkeypatch.setattr(compiled, "_probe_left", [0.0])
    monkeypatch.setattr(solve, "kernels_ready", lambda: False)
    monkeypatch.setattr(solve, "compile_kernels", lambda: done.append(True))
    monkeypatch.setattr(compiled, "numba_available", lambda: True)
    monkeypatch.setattr(solve, "small_subtree_fit", lambda *shape: False)  # monk1 is small
    X, y = load_dataset("monk1")
    est = BendOCTClassifier(depth=2, time_limit=limit).fit(X, y)
    assert bool(done) == compiles
    assert est.stats_["search_backend"] == ("numba" if compiles else "numpy")
    assert est.status_ == "optimal"
