"""Deadlines that pass after a fixed amount of work, whatever the machine's speed: a test of a
stopped search then stops at the same point on every run."""

from __future__ import annotations

from optrees.solvers.deadline import Deadline, TimeUp


class CountedDeadline(Deadline):
    """Passes after ``checks`` calls of :meth:`check` (which then raises ``TimeUp``)."""

    def __init__(self, checks: int) -> None:
        super().__init__()
        self.left = checks

    def check(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise TimeUp


class StopAfter(Deadline):
    """Expires after ``checks`` calls of :meth:`expired`."""

    __slots__ = ("left",)

    def __init__(self, checks: int) -> None:
        super().__init__()
        self.left = checks

    def expired(self) -> bool:
        self.left -= 1
        return self.left < 0


class Until(Deadline):
    """A limited deadline that passes once ``over`` is set (by a stubbed step)."""

    __slots__ = ("over",)

    def __init__(self) -> None:
        super().__init__(3600.0)
        self.over = False

    def remaining(self) -> float:
        return 0.0 if self.over else 3600.0

    def expired(self) -> bool:
        return self.over


class Tight(Deadline):
    """A limited deadline with ``left`` seconds left until ``over`` is set (by a stubbed
    step), then none: a step that plans by the time left sees too little for a long job."""

    __slots__ = ("left", "over")

    def __init__(self, left: float) -> None:
        super().__init__(3600.0)
        self.left = left
        self.over = False

    def remaining(self) -> float:
        return 0.0 if self.over else self.left

    def expired(self) -> bool:
        return self.over


class UntilEverywhere(Until):
    """An :class:`Until` whose stages (``share``, ``within``, ``reserve``) are itself: a
    stubbed step that sets ``over`` ends the stage it runs in too (``run_scip`` builds the
    model within a share of the fit's deadline, which a plain :class:`Until` would not
    reach)."""

    __slots__ = ()

    def _child(self, at: float) -> Deadline:
        return self


def until_after(monkeypatch, owner: object, name: str) -> Until:
    """An :class:`Until` that passes once ``owner.name`` (wrapped by ``monkeypatch``) has
    returned for the first time."""
    deadline, real = Until(), getattr(owner, name)

    def step(*args, **kwargs):
        out = real(*args, **kwargs)
        deadline.over = True
        return out

    monkeypatch.setattr(owner, name, step)
    return deadline
