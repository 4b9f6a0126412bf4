"""A first fit with a short time limit does not start numba: its import and first cache load
cannot be interrupted (3.7 s at load average 7.5 on the 2-core machine), so BendOCT on magic
at depth 4 with ``time_limit=1`` took 4.9 s in a new process.  A stage with less than
``START_SECONDS`` left runs numpy to its end; the backend choice is tested with numba's state
faked (no clock: the stages are plain deadlines far from their ends or close to them)."""

from __future__ import annotations

import pytest

from optrees import compiled
from optrees.solvers.deadline import Deadline


@pytest.fixture
def fresh_process(monkeypatch):
    """numba installed, cached kernels ready, not imported yet; the numpy probes spent."""
    monkeypatch.setattr(compiled, "numba_installed", lambda: True)
    monkeypatch.setattr(compiled, "numba_available", lambda: True)
    monkeypatch.setattr(compiled, "numba_started", lambda: False)
    monkeypatch.setattr(compiled, "_probe_left", [0.0])


def _search(seconds: float, small: bool = False) -> tuple[str, list[str]]:
    calls: list[str] = []

    def run(backend: str, stage: Deadline) -> bool:
        calls.append(backend)
        return True

    deadline = Deadline(seconds)
    _, backend = compiled.run_search(run, bool, deadline, deadline, lambda: True,
                                     lambda: None, small, lambda: False)
    return backend, calls


@pytest.mark.usefixtures("fresh_process")
def test_short_stage_runs_numpy_instead_of_starting_numba() -> None:
    for seconds in (0.3, 1.0, compiled.START_SECONDS - 0.05):
        assert _search(seconds) == ("numpy", ["numpy"])
    assert _search(60.0) == ("numba", ["numba"])  # time for the start-up: the kernels


@pytest.mark.usefixtures("fresh_process")
def test_started_numba_or_small_fits_are_unchanged(monkeypatch) -> None:
    assert _search(1.0, small=True) == ("numpy", ["numpy"])  # small: numpy anyway
    monkeypatch.setattr(compiled, "numba_started", lambda: True)
    assert _search(0.3) == ("numba", ["numba"])  # already paid: the kernels at once


def test_a_short_stage_does_not_ask_numba_s_cache(monkeypatch) -> None:
    """Asking whether the kernels are cached imports numba (0.4 s and more in a new process):
    a fair fit with ``time_limit=0.01`` took 0.66-0.82 s so.  With numba not started and
    a short stage, neither ``ready`` nor ``numba_available`` is asked after the numpy probe."""
    monkeypatch.setattr(compiled, "numba_installed", lambda: True)
    monkeypatch.setattr(compiled, "numba_started", lambda: False)

    def asked() -> bool:
        raise AssertionError("numba's cache asked for a stage numba cannot start in")

    monkeypatch.setattr(compiled, "numba_available", asked)
    calls: list[str] = []
    for seconds in (0.01, 0.3, compiled.START_SECONDS - 0.05):
        deadline = Deadline(seconds)
        _, backend = compiled.run_search(lambda b, s: calls.append(b) or False, bool,
                                         deadline, deadline, asked, lambda: None)
        assert backend == "numpy" and calls[-1] == "numpy"
