"""The one object that carries a fit's time limit and its Ctrl-C stop flag down to every stage.

An estimator makes one :class:`Deadline` when ``fit`` starts; every stage below it (warm start,
model build, master LPs, pricing, branch-and-cut) receives it, or a :meth:`Deadline.share` of
it, unchanged.  A child deadline never ends after its parent and shares the parent's stop flag,
so one Ctrl-C (or :meth:`Deadline.stop`) ends every stage at its next check.
"""

from __future__ import annotations

import math
import threading
import time


class TimeUp(Exception):
    """Raised by :meth:`Deadline.check` when the deadline passed or a stop was requested."""


class Deadline:
    """An end time on ``time.perf_counter``'s clock (``math.inf``: no limit) and a stop flag.

    ``Deadline(10)`` ends 10 s from now; ``Deadline()`` or ``Deadline(None)`` never ends but can
    still be stopped.
    """

    __slots__ = ("_flag", "at", "start")

    def __init__(self, seconds: float | None = None, *, at: float | None = None,
                 flag: threading.Event | None = None) -> None:
        self.start = time.perf_counter()
        if at is None:
            at = math.inf if seconds is None else self.start + float(seconds)
        self.at = float(at)
        self._flag = threading.Event() if flag is None else flag

    # ------------------------------------------------------------------ reading the clock
    @property
    def limited(self) -> bool:
        """Whether there is an end time (a stop request can end any deadline)."""
        return self.at != math.inf

    def remaining(self) -> float:
        """Seconds left: ``inf`` without a limit, 0 once passed or stopped."""
        if self._flag.is_set():
            return 0.0
        return max(0.0, self.at - time.perf_counter())

    def seconds(self) -> float | None:
        """:meth:`remaining`, but None without a limit (what solver libraries take)."""
        return self.remaining() if self.limited or self.stopped else None

    def elapsed(self) -> float:
        """Seconds since this deadline was made."""
        return time.perf_counter() - self.start

    def expired(self) -> bool:
        """The end time passed or a stop was requested."""
        return self._flag.is_set() or time.perf_counter() >= self.at

    def check(self) -> None:
        """Raise :class:`TimeUp` when :meth:`expired` (for loops that build something)."""
        if self.expired():
            raise TimeUp

    # ------------------------------------------------------------------ stopping
    @property
    def stopped(self) -> bool:
        """A stop was requested (Ctrl-C), as opposed to the clock running out."""
        return self._flag.is_set()

    def stop(self) -> None:
        """End this deadline and every deadline made from it now (thread-safe)."""
        self._flag.set()

    # ------------------------------------------------------------------ stages
    def _child(self, at: float) -> Deadline:
        return Deadline(at=min(at, self.at), flag=self._flag)

    def share(self, fraction: float) -> Deadline:
        """A stage that may use ``fraction`` of the time left (the whole if unlimited)."""
        if not self.limited:
            return self._child(math.inf)
        return self._child(time.perf_counter() + fraction * self.remaining())

    def within(self, seconds: float | None) -> Deadline:
        """A stage of at most ``seconds`` (None: no further limit), ending by this deadline."""
        if seconds is None:
            return self._child(math.inf)
        return self._child(time.perf_counter() + seconds)

    def reserve(self, seconds: float) -> Deadline:
        """A stage that leaves ``seconds`` of this deadline for what follows it."""
        return self._child(self.at - seconds)

    def __repr__(self) -> str:
        left = "no limit" if not self.limited else f"{self.remaining():.3f}s left"
        return f"Deadline({left}{', stopped' if self.stopped else ''})"


def check_deadline(deadline: Deadline | None) -> None:
    """Raise :class:`TimeUp` once ``deadline`` passed or was stopped (None: never)."""
    if deadline is not None:
        deadline.check()
