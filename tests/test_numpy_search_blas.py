"""The numpy 0/1 search counts on one BLAS thread (issue #42, item 6).

Its counters are many small products ``X' X`` over a node's rows; threaded BLAS made them
30x slower beside another busy process on 2 cores (kr-vs-kp one-hot: 10.5 ms against
0.34 ms a product), so a first fit's numpy probe of BendOCT depth 3 on kr-vs-kp took
0.3-1.4 s instead of 0.06-0.11 s and lost its race against numba's start-up.  Checked by
structure: the BLAS thread count seen inside the counters, under an outer limit of two."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from optrees.trees.search.binary import counts, solve_subtree


def _blas_threads() -> int:
    """The most threads any loaded BLAS runs now."""
    return max((i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"),
               default=1)


def test_numpy_counters_run_on_one_blas_thread_and_the_limit_is_restored(monkeypatch):
    seen: list[int] = []
    gram_blocks = counts.gram_blocks

    def spy(*args, **kwargs):
        seen.append(_blas_threads())
        return gram_blocks(*args, **kwargs)

    monkeypatch.setattr(counts, "gram_blocks", spy)
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, (300, 12))
    y = (X[:, 0] ^ X[:, 3] ^ (rng.random(300) < 0.1)).astype(np.int64)
    with threadpool_limits(limits=2, user_api="blas"):
        if _blas_threads() < 2:
            pytest.skip("this BLAS runs one thread only")
        found = solve_subtree(X, y, 3, backend="numpy")
        after = _blas_threads()
    assert seen and set(seen) == {1}
    assert after == 2  # the caller's setting is back
    # the same optimum as the default backend's (the compiled counters where numba is here)
    assert found.optimal
    monkeypatch.setattr(counts, "gram_blocks", gram_blocks)
    assert solve_subtree(X, y, 3, backend="auto").score == pytest.approx(found.score, abs=1e-9)
