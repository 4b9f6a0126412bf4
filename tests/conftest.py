"""Test set-up: non-bundled datasets come from OPTREES_DATA, else ../shared/datasets.

Without either (a plain clone of the repository), a test that loads a non-bundled dataset is
skipped with a reason instead of failing: ``load_dataset`` then raises FileNotFoundError saying
that no data directory is set, and the hook below turns exactly that error into a skip.
"""

import os

import pytest
from data_dir import DATA_DIR, NO_DATA_REASON

if DATA_DIR is not None:
    os.environ["OPTREES_DATA"] = str(DATA_DIR)


@pytest.fixture(scope="session", autouse=True)
def compiled_search_kernels():
    """Compile (or load) the numba kernels of the subtree search and of the numeric search
    once, before any test: the first compilation takes seconds and cannot be interrupted, so
    a test that happened to trigger it would see a slow fit or a late Ctrl-C.

    On a fresh checkout (empty cache) the two xdist workers share the work: the first
    compiles these, the second compiles every other kernel (``compile_all``: the depth-3
    node, the λ-path, regression, survival, RUG) meanwhile and then loads these from the
    cache; before, both compiled the same kernels at once and the rest later, lazily."""
    from optrees.trees.search.binary import numba_available
    from optrees.trees.search.binary.warmup import compile_kernels
    from optrees.trees.search.numeric import warmup as numeric_warmup

    if not numba_available():
        return
    if os.environ.get("PYTEST_XDIST_WORKER") == "gw1":
        from optrees.compile_all import compile_the_rest

        compile_the_rest()
    compile_kernels()
    numeric_warmup.compile_kernels()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    try:
        return (yield)
    except FileNotFoundError as exc:
        if DATA_DIR is None and "no data directory is set" in str(exc):
            pytest.skip(NO_DATA_REASON)
        raise
