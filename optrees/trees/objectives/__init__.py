"""Tree objectives as values: what a leaf costs, given the rows that reach it.

Every exact engine of :mod:`optrees.trees` (the 0/1 subtree search, the numeric search over
every threshold, the MIPs, the CART start and polishing) is built on one fast objective:
weighted accuracy, a leaf scoring ``max_k`` of its rows' class weights.  An objective whose
leaf cost is a minimum over predictions of a cost *linear in the leaf's class weights* is
that same problem on other rows: :class:`~.costs.MisclassificationCosts` turns each row into
pseudo-rows with gains as weights (:class:`~.view.ClassificationView`), so every engine solves
it, certified, without a line of its own, and the accuracy kernels stay as fast as they were.
Objectives whose leaf cost is not of that form (squared error, survival) need kernels over
other sufficient statistics; see ``docs/architecture.md``.

:data:`OBJECTIVES` is the registration: a new objective is a module here and a line there.
"""

from __future__ import annotations

from .costs import MisclassificationCosts
from .view import ClassificationView

OBJECTIVES = {"accuracy": None, "misclassification_costs": MisclassificationCosts}
"""Objective name -> its class (None: weighted accuracy, the engines' native objective)."""

__all__ = ["OBJECTIVES", "ClassificationView", "MisclassificationCosts"]
