"""Problem-wide state of the deep search and the row subsets it recurses on."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ....solvers.deadline import Deadline
from .data import NumericData, SubsetView
from .depth1 import class_weights

__all__ = ["Context", "Interrupted", "LateIncumbent", "Subset"]


class Interrupted(Exception):
    """The deadline expired inside a search (raised at the next evaluation of a split)."""


@dataclass
class Subset:
    """The rows reaching one node: global ``mask``, presorted ``view``, their labels ``ys``,
    weights ``ws``, one-hot class weights ``cw`` (``(m, K)``) and total weight."""

    mask: np.ndarray
    view: SubsetView
    ys: np.ndarray
    ws: np.ndarray
    cw: np.ndarray
    total: float

    @property
    def majority(self) -> int:
        """Class of largest weight (the label of a leaf here)."""
        return int(self.cw.sum(axis=0).argmax()) if self.cw.size else 0

    @property
    def leaf_correct(self) -> float:
        """Weight a single leaf classifies correctly."""
        return float(self.cw.sum(axis=0).max()) if self.cw.size else 0.0


class LateIncumbent:
    """A tree of the whole problem computed once, at the first deadline check after time
    ``at`` (``make()`` → ``(score, tree)`` or None), for the root search to adopt: searches
    that prove quickly never pay for it (:mod:`.coarse`)."""

    def __init__(self, at: float, make: Callable[[], tuple | None]) -> None:
        self.at, self.make = at, make
        self.fired = False
        self.result: tuple | None = None

    def poll(self) -> None:
        """Compute the tree if its time has come and it was not computed yet."""
        if not self.fired and time.perf_counter() >= self.at:
            self.fired = True
            self.result = self.make()


@dataclass
class Context:
    """Everything fixed during one :func:`.solver.solve_numeric` call."""

    data: NumericData
    y: np.ndarray
    w: np.ndarray
    n_classes: int
    pen: float
    eps: float
    backend: str
    deadline: Deadline | None = None
    evaluations: int = 0
    min_leaf: int = 1             # rows every leaf keeps (1: no constraint)
    late: LateIncumbent | None = None

    def subset(self, mask: np.ndarray) -> Subset:
        """The :class:`Subset` of the rows where the global boolean ``mask`` is true."""
        view = self.data.view(None if mask.all() else mask)   # all rows: no filtering copy
        ys, ws = self.y[view.rows], self.w[view.rows]
        return Subset(mask, view, ys, ws, class_weights(ys, ws, self.n_classes),
                      float(ws.sum()))

    def check(self) -> None:
        """Raise :class:`Interrupted` once the deadline has expired (after computing the
        late incumbent when its time has come)."""
        if self.late is not None:
            self.late.poll()
        if self.deadline is not None and self.deadline.expired():
            raise Interrupted
