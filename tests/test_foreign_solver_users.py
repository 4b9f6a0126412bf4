"""optrees configures every solver model itself: another HiGHS or SCIP user in the same process
(a notebook comparing libraries) must neither break a fit nor make optrees print anything.

Each case runs in a fresh interpreter, because HiGHS keeps process-wide state (its banner,
printed once to stdout, and its thread scheduler) that pytest's process already set up.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from estimator_matrix import SPECS

# A foreign HiGHS user with unusual global settings: two threads (starts HiGHS's global thread
# scheduler with two workers; optrees asks for one), its log on, and a solved MIP; then a
# foreign SCIP model with its log on.
_FOREIGN = """
import highspy
h = highspy.Highs()
h.setOptionValue("threads", 2)
h.setOptionValue("mip_rel_gap", 0.5)
h.setOptionValue("time_limit", 1.0)
x = h.addIntegral(0, 10)
y = h.addVariable(0, 10)
h.addConstr(x + y <= 7.5)
h.maximize(x + 2 * y)
assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
import pyscipopt
s = pyscipopt.Model()
s.setParam("limits/time", 1.0)
v = s.addVar(vtype="I", ub=3)
s.setObjective(v, "maximize")
s.optimize()
import sys
print("FOREIGN-DONE", flush=True)
sys.stdout.flush()
"""


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, cwd=str(Path(__file__).parent))


@pytest.fixture(scope="module")
def after_foreign() -> dict[str, str]:
    """Fit every estimator (quick settings, monk1) in one fresh process after the foreign
    solves; returns what each fit printed as its result line, and the process output."""
    code = _FOREIGN + textwrap.dedent("""
        import warnings
        warnings.simplefilter("ignore")
        from estimator_matrix import SPECS
        from optrees import load_dataset
        X, y = load_dataset("monk1")
        for spec in SPECS:
            try:
                est = spec.make(**{**spec.fast, "time_limit": 2}).fit(X, y)
                print("RESULT", spec.id, est.status_, est.score(X, y) > 0.5, flush=True)
            except Exception as exc:
                print("RESULT", spec.id, "error", repr(exc).replace(" ", "_"), flush=True)
    """)
    proc = _run(code)
    assert proc.returncode == 0, proc.stderr[-3000:]
    ours = proc.stdout.split("FOREIGN-DONE", 1)[1]  # what was printed after the foreign part
    results = {}
    for line in ours.strip().splitlines():
        assert line.startswith("RESULT "), f"unexpected output {line!r}"  # no banner or log
        results[line.split()[1]] = line
    return results


@pytest.mark.parametrize("spec", SPECS, ids=[s.id for s in SPECS])
def test_fit_after_a_foreign_highs_and_scip_user(after_foreign, spec):
    """After a foreign HiGHS/SCIP solve, the estimator fits normally (with highspy 1.16 every
    later HiGHS run asking another thread count answered "Not Set") and prints nothing."""
    line = after_foreign[spec.id].split()
    assert line[2] != "error", line
    assert line[3] == "True", line


def test_nothing_on_stdout_or_stderr_at_verbose_0():
    """A fresh process fitting every estimator at verbose=0 writes nothing to stdout or
    stderr (highspy >= 1.16 prints a banner at its first model unless optrees silences it)."""
    code = textwrap.dedent("""
        import warnings
        warnings.simplefilter("ignore")
        from estimator_matrix import SPECS
        from optrees import OMTRegressor, load_dataset
        X, y = load_dataset("monk1")
        for spec in SPECS:
            spec.make(**{**spec.fast, "time_limit": 2}).fit(X, y)
        OMTRegressor(depth=2, time_limit=2).fit(X, y.astype(float))
    """)
    proc = _run(code)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout == ""
    assert proc.stderr == ""
