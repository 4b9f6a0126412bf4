"""The first fit of a new process (issue #42, item 6), checked by structure, not wall clock:
a new process loads the numba kernels that real fits need from the disk cache without
compiling any; a stale cache is not taken for a ready one; small fits run numpy and never
import numba."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from optrees import compiled
from optrees.solvers.deadline import Deadline

ROOT = Path(__file__).resolve().parent.parent
numba = pytest.importorskip("numba")


def run(script: str, cache_dir: Path | None) -> dict:
    """``script`` in a new interpreter on this worktree with the numba cache in ``cache_dir``
    (None: the session's cache, which conftest's warm-up filled with the 0/1 and numeric
    search kernels before any test); its last stdout line, as JSON."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = str(cache_dir)
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


COUNT_COMPILES = """
    import json, sys
    def counts():
        '''(signatures compiled, signatures loaded from the cache) over optrees' dispatchers'''
        miss = hit = 0
        for name, module in list(sys.modules.items()):
            if name.startswith("optrees"):
                for value in list(vars(module).values()):
                    stats = getattr(value, "stats", None)
                    if type(value).__name__.endswith("Dispatcher") and stats is not None:
                        miss += sum(stats.cache_misses.values())
                        hit += sum(stats.cache_hits.values())
        return miss, hit
"""

REAL_FITS = """
    import warnings
    import numpy as np
    from optrees import BendOCTClassifier, RUGClassifier, load_dataset
    from optrees import compiled
    # large-fit behaviour on small data: the kernels run, as they do on large data
    compiled.SMALL_SUBTREE_WORK = compiled.SMALL_NUMERIC_WORK = compiled.SMALL_PRICING_CELLS = -1
    compiled._probe_left[0] -= compiled.LOAD_SECONDS  # past the probe before numba's start-up
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(1)
    X, y = load_dataset("monk1")
    w = rng.uniform(0.5, 2.0, len(y))
    backends = [BendOCTClassifier(depth=3, time_limit=60).fit(X, y).stats_["search_backend"],
                BendOCTClassifier(depth=2, time_limit=60).fit(X, y, sample_weight=w)
                .stats_["search_backend"]]
    Xn = rng.random((60, 3))
    for k in (2, 3):
        yn = rng.integers(0, k, 60)
        for depth in (2, 3):
            backends.append(BendOCTClassifier(depth=depth, time_limit=60).fit(Xn, yn)
                            .stats_["search_backend"])
    # other argument types and side constraints: the same signatures (an int lam, integer
    # weights, float32 data, a leaf budget and leaf sizes)
    for est, data in ((BendOCTClassifier(depth=3, lam=0, min_samples_leaf=3, max_leaves=5,
                                         time_limit=60), (Xn.astype(np.float32), yn)),
                      (BendOCTClassifier(depth=2, min_samples_leaf=4, max_leaves=3,
                                         time_limit=60), (X, y))):
        est.fit(*data, sample_weight=rng.integers(1, 3, len(data[1])))
        backends.append(est.stats_["search_backend"])
    Xh, yh = load_dataset("house-votes-84")
    RUGClassifier(max_depth=3, time_limit=60, random_state=0).fit(Xh, yh)
    from optrees.rug import greedy_tree
    backends.append("numba" if greedy_tree._grow.signatures else "sklearn")
"""


def test_a_new_process_loads_every_kernel_a_fit_needs_from_the_cache(tmp_path):
    """The warm-ups compile what real fits call (0/1 search with unit and other weights,
    numeric search of 2 and 3 classes at depths 2 and 3, RUG's tree): a later process finds
    them ready and fits without compiling a single signature.  RUG's tree and the numeric
    search of depth 2 are ready as soon as their own kernels are cached; a deeper numeric
    search also needs the 0/1 kernels (its coarse incumbent runs them)."""
    first = run(COUNT_COMPILES + """
    from optrees.trees.search.numeric import warmup as numeric
    from optrees.rug import pricing
    numeric.compile_kernels(deep=False)
    pricing._compile()
    print(json.dumps({"counts": counts()}))
    """, tmp_path)
    assert first["counts"][0] > 0  # a cold cache compiles
    ready = run(COUNT_COMPILES + """
    from optrees.trees.search.numeric import warmup as numeric
    from optrees.trees.search.binary import warmup as subtrees
    from optrees.rug import pricing
    ready = {"numeric": numeric.kernels_ready(deep=False), "rug": pricing._ready(),
             "subtrees": subtrees.kernels_ready(), "deep": numeric.kernels_ready()}
    subtrees.compile_kernels()
    print(json.dumps(ready))
    """, tmp_path)
    assert ready == {"numeric": True, "rug": True, "subtrees": False, "deep": False}
    second = run(COUNT_COMPILES + """
    from optrees.trees.search.numeric import warmup as numeric
    from optrees.trees.search.binary import warmup as subtrees
    from optrees.rug import pricing
    ready = [subtrees.kernels_ready(), numeric.kernels_ready(), pricing._ready()]
    """ + REAL_FITS + """
    print(json.dumps({"ready": ready, "backends": backends, "counts": counts()}))
    """, tmp_path)
    assert second["ready"] == [True, True, True]
    assert set(second["backends"]) == {"numba"}
    compiled_signatures, loaded = second["counts"]
    assert compiled_signatures == 0 and loaded > 0


def test_small_fits_run_numpy_without_importing_numba(tmp_path):
    """A small 0/1 fit, a small depth-2 fit over every threshold, a small fair fit, a small
    RUG fit and a small depth-2 regression tree in a new process: numpy kernels
    (scikit-learn's trees for RUG), numba never imported, so neither compiled nor loaded."""
    out = run("""
    import json, sys, warnings
    import numpy as np
    import pandas as pd
    from optrees import BendOCTClassifier, RUGClassifier, load_dataset
    warnings.simplefilter("ignore")
    X, y = load_dataset("monk1")
    backends = [BendOCTClassifier(depth=3, time_limit=60).fit(X, y).stats_["search_backend"]]
    Xb, yb = load_dataset("balance-scale")
    backends.append(BendOCTClassifier(depth=2, time_limit=60)
                    .fit(Xb.to_numpy(dtype=float), yb).stats_["search_backend"])
    X01 = pd.get_dummies(X.astype(str)).astype(int)
    fair = BendOCTClassifier(depth=2, fairness="statistical_parity", epsilon=0.05,
                             sensitive=X01.columns[0], drop_sensitive=True, time_limit=60)
    fair.fit(X01, y)
    Xh, yh = load_dataset("house-votes-84")
    RUGClassifier(max_depth=3, time_limit=60, random_state=0).fit(Xh, yh)
    from sklearn.datasets import load_diabetes
    from optrees import OptimalTreeRegressor
    Xd, yd = load_diabetes(return_X_y=True, as_frame=True)
    OptimalTreeRegressor(depth=2, time_limit=60).fit(Xd, yd)
    print(json.dumps({"backends": backends, "numba": "numba" in sys.modules}))
    """, tmp_path)
    assert out == {"backends": ["numpy", "numpy"], "numba": False}


def test_small_fits_after_a_large_one_run_the_loaded_kernels():
    """Once a large fit has loaded the kernels, a small fit in the same process runs them too
    (nothing left to pay): the 0/1 and the depth-2 numeric search, in a process that loads
    them from the session's cache (its large fit runs no warm-up).  (A process that compiles
    them instead marks them loaded the same way: the dispatcher's signatures.)"""
    script = """
    import json, warnings
    import numpy as np
    from optrees import BendOCTClassifier
    from optrees import compiled
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    X, Xb, y = rng.random((100, 3)), rng.integers(0, 2, (100, 4)), rng.integers(0, 2, 100)
    def backend(X, depth):
        return BendOCTClassifier(depth=depth, time_limit=60).fit(X, y).stats_["search_backend"]
    small = [backend(X, 2), backend(Xb, 2)]
    limits = compiled.SMALL_SUBTREE_WORK, compiled.SMALL_NUMERIC_WORK
    compiled.SMALL_SUBTREE_WORK = compiled.SMALL_NUMERIC_WORK = -1  # as if large
    compiled._probe_left[0] = 0.0  # and past the numpy probes, which would prove these
    large = [backend(X, 2), backend(Xb, 2)]
    compiled.SMALL_SUBTREE_WORK, compiled.SMALL_NUMERIC_WORK = limits
    print(json.dumps({"small": small, "large": large, "after": [backend(X, 2), backend(Xb, 2)]}))
    """
    out = run(script, None)
    assert out == {"small": ["numpy", "numpy"], "large": ["numba", "numba"],
                   "after": ["numba", "numba"]}


def test_a_stale_cache_is_not_ready(tmp_path, monkeypatch):
    """A kernel cached for an older version of its source compiles on its next call: not
    ready (an index file alone once counted as ready, and a short fit then compiled)."""
    source = tmp_path / "stale_kernel.py"
    body = "from numba import njit\n\n@njit(cache=True)\ndef twice(x):\n    return {}\n"
    source.write_text(body.format("2 * x"))
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    module = importlib.import_module("stale_kernel")
    module.twice(1)
    fresh = importlib.reload(module)  # a new process's view: nothing compiled yet
    assert compiled.kernels_ready(fresh, ["twice"])
    source.write_text(body.format("x + x  # edited"))
    edited = importlib.reload(module)
    assert not compiled.kernels_ready(edited, ["twice"])
    sys.modules.pop("stale_kernel", None)


def test_small_fit_skips_the_kernels_unless_loaded(monkeypatch):
    """``small`` gives numpy without asking whether the kernels are cached or compiling them,
    unless they are loaded in this process; a fit that is not small keeps the old rule."""
    monkeypatch.setattr(compiled, "numba_available", lambda: True)
    asked, done = [], []

    def ready() -> bool:
        asked.append(True)
        return False

    def backend(small: bool, loaded: bool, seconds: float | None = None) -> str:
        return compiled.backend_for(Deadline(seconds), ready, lambda: done.append(True),
                                    small, lambda: loaded)

    assert backend(small=True, loaded=False) == "numpy" and not asked and not done
    assert backend(small=True, loaded=True) == "numba" and asked and done
    done.clear()
    assert backend(small=False, loaded=False, seconds=1.0) == "numpy" and not done
    assert backend(small=False, loaded=False) == "numba" and done


def test_small_fit_sizes():
    """The size rules: rows x features ** depth for 0/1 data; rows x distinct thresholds at
    depth 2 over every threshold, depth 1 always small and depth 3 never."""
    import numpy as np

    assert compiled.small_subtree_fit(124, 17, 3)           # monk1 one-hot
    assert not compiled.small_subtree_fit(3196, 73, 3)      # kr-vs-kp one-hot
    few = np.tile(np.arange(5.0)[:, None], (40, 4))         # 4 thresholds per column
    assert compiled.small_numeric_fit(few, 2)
    many = np.random.default_rng(0).random((2000, 6))       # 11,994 thresholds
    assert not compiled.small_numeric_fit(many, 2)
    assert compiled.small_numeric_fit(many, 1)
    assert not compiled.small_numeric_fit(few, 3)


def test_run_search_tries_numpy_before_a_compilation(monkeypatch):
    """Where the kernels would be compiled, numpy runs first within the process's probe
    budget, ending before the stage and leaving COMPILE_SECONDS: a proved search is returned
    without compiling; an unproved one is dropped, and the kernels are compiled and run.
    No probe on small fits, ready kernels, without ``probe``, or with too little time; a
    Ctrl-C during the probe returns the numpy search without compiling."""
    monkeypatch.setattr(compiled, "numba_available", lambda: True)
    monkeypatch.setattr(compiled, "numba_installed", lambda: True)
    monkeypatch.setattr(compiled, "numba_started", lambda: True)  # no start-up probe
    monkeypatch.setattr(compiled, "_probe_left", [5.0])
    calls, done = [], []

    def search(proves: bool, ready: bool = False, small: bool = False, probe: bool = True,
               seconds: float | None = None, stop: bool = False):
        calls.clear()
        done.clear()
        deadline = Deadline(seconds)

        def run(backend: str, stage: Deadline) -> tuple[str, bool]:
            calls.append((backend, stage.remaining()))
            if stop:
                deadline.stop()
            return backend, proves or backend == "numba"

        return compiled.run_search(run, lambda found: found[1], deadline, deadline,
                                   lambda: ready, lambda: done.append(True), small,
                                   lambda: False, probe)

    assert search(proves=True) == (("numpy", True), "numpy") and not done
    assert len(calls) == 1 and calls[0][1] <= 5.0
    assert search(proves=False) == (("numba", True), "numba") and done
    assert [b for b, _ in calls] == ["numpy", "numba"]
    for kwargs in ({"ready": True}, {"probe": False}):  # straight to the kernels
        assert search(proves=True, **kwargs)[1] == "numba"
        assert [b for b, _ in calls] == ["numba"]
    assert search(proves=True, small=True)[1] == "numpy" and len(calls) == 1 and not done
    short = compiled.COMPILE_SECONDS + 0.02  # no time to probe and then compile
    assert search(proves=True, seconds=short)[1] == "numba" and len(calls) == 1
    assert search(proves=False, stop=True) == (("numpy", False), "numpy") and not done
    monkeypatch.setattr(compiled, "_probe_left", [0.0])  # the budget spent: compile
    assert search(proves=True)[1] == "numba" and [b for b, _ in calls] == ["numba"]


def test_a_process_without_numba_tries_numpy_before_starting_it(monkeypatch):
    """Before numba is imported, numpy runs first within what is left of LOAD_SECONDS of the
    process's numpy time, without asking whether the kernels are cached (that imports numba):
    a proved search is returned; an unproved one is dropped and the cached kernels run (no
    compilation probe when they are ready, one after it when they are not).  Ski rental: the
    probes' time is charged, and past LOAD_SECONDS the next fit starts numba at once.  No such
    probe once numba is imported, without numba, or on small fits."""
    monkeypatch.setattr(compiled, "numba_available", lambda: True)
    monkeypatch.setattr(compiled, "numba_installed", lambda: True)
    monkeypatch.setattr(compiled, "_probe_left", [compiled.PROBE_SECONDS])
    started = [False]
    monkeypatch.setattr(compiled, "numba_started", lambda: started[0])
    clock = [0.0]  # the probes' clock: a search of ``cost`` seconds moves it on
    monkeypatch.setattr(compiled, "time", SimpleNamespace(perf_counter=lambda: clock[0]))
    calls, asked = [], []

    def search(proves: bool, ready: bool = True, small: bool = False, cost: float = 0.0):
        calls.clear()
        asked.clear()

        def run(backend: str, stage: Deadline) -> tuple[str, bool]:
            calls.append((backend, stage.remaining()))
            clock[0] += cost
            return backend, proves or backend == "numba"

        def is_ready() -> bool:
            asked.append(True)
            return ready

        deadline = Deadline(60.0)
        return compiled.run_search(run, lambda found: found[1], deadline, deadline, is_ready,
                                   lambda: None, small, lambda: False)

    assert search(proves=True) == (("numpy", True), "numpy") and not asked
    assert len(calls) == 1 and calls[0][1] <= compiled.LOAD_SECONDS
    assert search(proves=False) == (("numba", True), "numba") and asked
    assert [b for b, _ in calls] == ["numpy", "numba"]
    assert search(proves=False, ready=False)[1] == "numba"  # then the compilation probe
    assert [b for b, _ in calls] == ["numpy", "numpy", "numba"]
    assert calls[1][1] > compiled.LOAD_SECONDS  # (the rest of PROBE_SECONDS)
    assert search(proves=True, small=True)[1] == "numpy" and len(calls) == 1 and not asked
    monkeypatch.setattr(compiled, "_probe_left", [compiled.PROBE_SECONDS])
    search(proves=True, cost=0.3)
    assert compiled.LOAD_SECONDS - 0.3 - 1e-9 <= calls[0][1] <= compiled.LOAD_SECONDS
    search(proves=True, cost=0.3)  # 0.1 s left of the budget: probed within it
    assert len(calls) == 1 and calls[0][1] <= compiled.LOAD_SECONDS - 0.3 + 1e-9
    assert search(proves=True)[1] == "numba" and [b for b, _ in calls] == ["numba"]
    monkeypatch.setattr(compiled, "_probe_left", [compiled.PROBE_SECONDS])
    started[0] = True
    assert search(proves=True)[1] == "numba" and [b for b, _ in calls] == ["numba"]
    started[0] = False
    monkeypatch.setattr(compiled, "numba_installed", lambda: False)
    monkeypatch.setattr(compiled, "numba_available", lambda: False)
    assert search(proves=False, ready=False) == (("numpy", False), "numpy")
    assert [b for b, _ in calls] == ["numpy"]  # (no probe: numpy is the backend)


def _best_depth2_correct(X: np.ndarray, y: np.ndarray) -> int:
    """Most training rows any tree of depth <= 2 on the 0/1 columns of X classifies
    correctly: every root, and for each side a leaf or a split on any column (plain numpy)."""
    def leaf(rows: np.ndarray) -> int:
        return int(np.bincount(y[rows], minlength=2).max()) if rows.any() else 0

    def side(rows: np.ndarray) -> int:
        best = leaf(rows)
        for g in range(X.shape[1]):
            best = max(best, leaf(rows & (X[:, g] == 1)) + leaf(rows & (X[:, g] == 0)))
        return best

    everything = np.ones(len(y), bool)
    return max([leaf(everything)] + [side(X[:, f] == 1) + side(X[:, f] == 0)
                                     for f in range(X.shape[1])])


def test_a_cold_process_proves_a_large_fit_with_numpy_without_compiling(tmp_path):
    """On an empty cache a fit that is not small runs numpy first: it proves the optimum
    (checked against every depth-2 tree), returns it with the numpy backend and compiles no
    kernel; with the probe budget spent the same fit runs numba (from the session's cache:
    that a cold cache compiles is the first test's) and finds the same tree."""
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, (80, 6))
    y = (X[:, 0] ^ X[:, 3] ^ (rng.random(80) < 0.1)).astype(int)
    np.save(tmp_path / "X.npy", X)
    np.save(tmp_path / "y.npy", y)
    script = COUNT_COMPILES + f"""
    import numpy as np
    from optrees import BendOCTClassifier, compiled
    compiled.SMALL_SUBTREE_WORK = -1  # as if large
    compiled._probe_left[0] = BUDGET
    X, y = np.load({str(tmp_path / "X.npy")!r}), np.load({str(tmp_path / "y.npy")!r})
    est = BendOCTClassifier(depth=2, lam=0.0, time_limit=60).fit(X, y)
    print(json.dumps({{"backend": est.stats_["search_backend"], "status": est.status_,
                      "correct": int((est.predict(X) == y).sum()), "counts": counts()}}))
    """
    probed = run(script.replace("BUDGET", "5.0"), tmp_path / "cache")
    assert probed["backend"] == "numpy" and probed["status"] == "optimal"
    assert probed["counts"] == [0, 0]  # nothing compiled or loaded
    assert probed["correct"] == _best_depth2_correct(X, y)
    compiled_run = run(script.replace("BUDGET", "0.0"), None)
    assert compiled_run["backend"] == "numba" and sum(compiled_run["counts"]) > 0
    assert compiled_run["correct"] == probed["correct"]


def test_a_warm_process_proves_a_large_fit_with_numpy_without_starting_numba(tmp_path):
    """With every kernel cached (the session's cache), a fit that is not small but that
    numpy proves within LOAD_SECONDS returns numpy's optimum (checked against every depth-2
    tree) and never imports numba; with that budget spent the same fit loads the cached
    kernels (compiling none) and finds the same tree."""
    rng = np.random.default_rng(4)
    X = rng.integers(0, 2, (80, 6))
    y = (X[:, 1] ^ X[:, 4] ^ (rng.random(80) < 0.1)).astype(int)
    np.save(tmp_path / "X.npy", X)
    np.save(tmp_path / "y.npy", y)
    script = COUNT_COMPILES + f"""
    import numpy as np
    from optrees import BendOCTClassifier, compiled
    compiled.SMALL_SUBTREE_WORK = -1  # as if large
    compiled._probe_left[0] -= SPENT
    X, y = np.load({str(tmp_path / "X.npy")!r}), np.load({str(tmp_path / "y.npy")!r})
    est = BendOCTClassifier(depth=2, lam=0.0, time_limit=60).fit(X, y)
    print(json.dumps({{"backend": est.stats_["search_backend"], "numba": "numba" in sys.modules,
                      "correct": int((est.predict(X) == y).sum()), "counts": counts()}}))
    """
    probed = run(script.replace("SPENT", "0.0"), None)
    assert probed["backend"] == "numpy" and not probed["numba"]
    assert probed["correct"] == _best_depth2_correct(X, y)
    loaded = run(script.replace("SPENT", "compiled.LOAD_SECONDS"), None)
    assert loaded["backend"] == "numba" and loaded["numba"]
    assert loaded["counts"][0] == 0 and loaded["counts"][1] > 0
    assert loaded["correct"] == probed["correct"]
