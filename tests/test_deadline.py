"""The one Deadline of a fit: its stages, its stop flag, and Ctrl-C (``stop_on_ctrl_c``)."""

from __future__ import annotations

import math
import os
import signal
import threading
import time

import pytest

from optrees.estimators._base import fit_deadline, stop_on_ctrl_c
from optrees.solvers.deadline import Deadline, TimeUp


def test_stages_never_end_after_their_parent():
    d = Deadline(10.0)
    assert 9.0 < d.remaining() <= 10.0 and d.limited
    assert 4.0 < d.share(0.5).remaining() <= 5.0
    assert d.within(100.0).at == d.at  # a cap beyond the parent's end changes nothing
    assert 6.0 < d.reserve(3.0).remaining() <= 7.0
    assert d.reserve(20.0).expired() and not d.expired()


def test_no_limit_is_infinite_but_can_stop():
    d = Deadline()
    assert d.remaining() == math.inf and d.seconds() is None and not d.expired()
    assert d.share(0.1).at == math.inf and d.within(1.0).limited
    d.stop()
    assert d.expired() and d.remaining() == 0.0 and d.seconds() == 0.0


def test_a_stop_anywhere_ends_every_stage():
    parent = Deadline(60.0)
    child, grandchild = parent.share(0.5), parent.share(0.5).within(5.0)
    grandchild.stop()
    assert parent.stopped and child.stopped and child.expired()
    with pytest.raises(TimeUp):
        parent.check()


def test_fit_deadline_keeps_a_reserve_for_what_follows_the_solve():
    d = fit_deadline(10.0)  # 0.1 s + 1 % of the limit, at most 5 %
    assert 9.7 < d.remaining() <= 9.8
    assert 0.94 < fit_deadline(1.0).remaining() <= 0.95  # 5 % of 1 s
    assert not fit_deadline(None).limited


@pytest.fixture
def python_sigint():
    """Python's own SIGINT handler during the test (a shell's background job ignores it)."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def _sigint():
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.05)  # the handler runs at the next bytecode boundary


def test_first_ctrl_c_stops_the_deadline_second_raises(python_sigint):
    deadline = Deadline(60.0)
    with stop_on_ctrl_c(deadline):
        _sigint()
        assert deadline.stopped and deadline.share(0.5).expired()
        with pytest.raises(KeyboardInterrupt):  # the second Ctrl-C is the escape hatch
            _sigint()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_stop_on_ctrl_c_is_a_no_op_off_the_main_thread(python_sigint):
    seen = []

    def work():
        with stop_on_ctrl_c(Deadline()) as deadline:
            seen.append(signal.getsignal(signal.SIGINT) is signal.default_int_handler)
            seen.append(deadline.stopped)

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert seen == [True, False]
