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

:data:`OBJECTIVES` is the registration: a new objective is a module here and a line there
(:mod:`.feature_costs` is the other kind: a cost the search carries on each path).
"""

from __future__ import annotations

from importlib import import_module

from .costs import MisclassificationCosts
from .view import ClassificationView

OBJECTIVES = {"misclassification_costs": "costs:MisclassificationCosts",
              "feature_costs": "feature_costs:FeatureCosts",
              "squared_error": "squared_error:SquaredError",
              "survival": "survival:SurvivalLoss",
              "policy": "policy:PolicyScores"}
"""The registration: estimator parameter -> the objective's module and class here (weighted
accuracy, the engines' native objective, needs none).  Loaded on use, so this package stays
importable from :mod:`optrees.trees.problem.tree_problem`."""


def objective_class(name: str) -> type:
    """The class registered for the objective parameter ``name``."""
    module, cls = OBJECTIVES[name].split(":")
    return getattr(import_module(f"{__name__}.{module}"), cls)


__all__ = ["OBJECTIVES", "ClassificationView", "MisclassificationCosts", "objective_class"]
