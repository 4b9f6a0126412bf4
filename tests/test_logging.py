"""Progress output: silent by default, compact lines with verbose=1, through `logging`."""

import logging
import subprocess
import sys
import warnings

import pytest

from optrees import BendersOCTClassifier, CGHClassifier, RUGClassifier, load_dataset


@pytest.fixture(scope="module")
def monk2():
    return load_dataset("monk2")


def _fits(verbose):
    return [
        BendersOCTClassifier(depth=2, time_limit=3, verbose=verbose, random_state=0),
        RUGClassifier(max_depth=2, max_rmp_calls=3, verbose=verbose, random_state=0),
        CGHClassifier(depth=2, tau=10, time_limit=5, verbose=verbose, random_state=0),
    ]


def test_silent_by_default(monk2, capfd):
    X, y = monk2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for est in _fits(0):
            est.fit(X, y)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def test_verbose_prints_progress_lines():
    # a fresh interpreter: no logging configured, as in a user's script (pytest installs its
    # own handlers, which optrees then uses instead of stderr)
    code = (
        "import warnings; warnings.simplefilter('ignore')\n"
        "from optrees import (BendersOCTClassifier, BendOCTClassifier, CGHClassifier,\n"
        "                     RUGClassifier, load_dataset)\n"
        "X, y = load_dataset('monk2')\n"
        # the plain MIP: with the search or path-bound cuts it ends before any B&B line
        "BendersOCTClassifier(depth=2, time_limit=3, verbose=1, random_state=0,\n"
        "                     path_bound_cuts=False, polishing=False,\n"
        "                     subtree_search=False).fit(X, y)\n"
        "BendOCTClassifier(depth=2, time_limit=3, verbose=1, random_state=0).fit(X, y)\n"
        "RUGClassifier(max_depth=2, max_rmp_calls=3, verbose=1, random_state=0).fit(X, y)\n"
        "CGHClassifier(depth=2, tau=10, time_limit=5, verbose=1, random_state=0).fit(X, y)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert proc.stdout == ""  # no solver log at level 1
    assert lines and all(line.startswith("[optrees] ") for line in lines)
    assert any(" B&B" in line and "gap" in line and "bound" in line for line in lines)
    assert any(" RUG" in line and "round 1" in line for line in lines)
    assert any(" CGH" in line for line in lines)
    assert any("search" in line and "proved True" in line for line in lines)
    assert sum(" done" in line for line in lines) == 4


def test_application_logging_receives_records(monk2, caplog, capfd):
    X, y = monk2
    with caplog.at_level(logging.INFO, logger="optrees"):
        RUGClassifier(max_depth=2, max_rmp_calls=2, random_state=0).fit(X, y)
    assert any("RUG" in r.getMessage() for r in caplog.records)
    assert capfd.readouterr().err == ""  # the application's handlers, not ours


def test_bad_verbose_is_named(monk2):
    from optrees import OptreesInputError

    X, y = monk2
    with pytest.raises(OptreesInputError, match="verbose"):
        RUGClassifier(verbose="loud").fit(X, y)
