"""The one list of methods: ``--method`` names of the command line, the benchmark harness's
methods and the shared test matrix all read it.

Adding a method = one :class:`Method` line here (plus its estimator, its package and its line
in ``tests/estimator_matrix.py``, which a test checks).  Importing this module imports only
the standard library; :meth:`Method.load` imports the estimator class.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Method:
    """One method: its name, its estimator class (``module:Class``) and the fixed keyword
    arguments the benchmarks give it (a variant of another method's estimator, or the
    published method where the estimator's defaults add more).

    ``paper``: the short citation key of docs/references.md; ``backend``: the solver doing
    the heavy lifting ("scip", "highs", or "search": no solver); ``cli``: offered as
    ``optrees fit --method``; ``task``: "classification", "regression", "survival" or
    "policy" (what the target is: ``optrees fit --task``); ``compare``: among the methods
    ``optrees compare`` fits when none are named; ``runs_to_limit``: a MIP or a column
    generation that, beyond toy data, spends the time limit it is given (``compare`` fits
    these after the others, so the time the others leave goes to them).
    """

    name: str
    target: str
    paper: str
    summary: str
    backend: str = "scip"
    params: dict[str, Any] = field(default_factory=dict)
    cli: bool = True
    task: str = "classification"
    compare: bool = True
    runs_to_limit: bool = False

    def load(self) -> type:
        """The estimator class (imports its module)."""
        module, _, name = self.target.partition(":")
        return getattr(importlib.import_module(module), name)

    @property
    def class_name(self) -> str:
        """The estimator class's name, without importing it."""
        return self.target.partition(":")[2]


PLAIN_BENDERS: dict[str, Any] = {"polishing": False, "path_bound_cuts": False,
                                 "strengthened_cuts": False, "eqp": None,
                                 "split_bound_cuts": False, "subtree_search": False}
"""BendersOCT with every technique of [BendOCT] off: the published [FlowOCT] eq. (8)."""

_EST = "optrees.estimators"

METHODS: dict[str, Method] = {m.name: m for m in [
    # the benchmarks' "flow" is the published MIP; `optrees fit --method flow` takes the
    # estimator's defaults (the exact searches first: every threshold of numeric columns)
    Method("flow", f"{_EST}:FlowOCTClassifier", "[FlowOCT]",
           "FlowOCT: strong max-flow MIP of an optimal binary tree",
           params={"subtree_search": False}, runs_to_limit=True),
    Method("benders", f"{_EST}:BendersOCTClassifier", "[FlowOCT]",
           "BendersOCT: Benders decomposition of FlowOCT (with [BendOCT]'s accelerations)",
           runs_to_limit=True),
    Method("benders-plain", f"{_EST}:BendersOCTClassifier", "[FlowOCT]",
           "BendersOCT exactly as published (no accelerations)", params=PLAIN_BENDERS,
           cli=False, runs_to_limit=True),
    Method("bendoct", f"{_EST}:BendOCTClassifier", "[BendOCT]",
           "accelerated BendOCT: accuracy - lam * leaves"),
    Method("oct", f"{_EST}:OCTClassifier", "[FlowOCT]",
           "OCT (Bertsimas & Dunn), baseline MIP on binary data", runs_to_limit=True),
    Method("binoct", f"{_EST}:BinOCTClassifier", "[FlowOCT]",
           "BinOCT (Verwer & Zhang), baseline MIP with binary-encoded thresholds",
           runs_to_limit=True),
    Method("omt", f"{_EST}:OMTClassifier", "[OMT]",
           "OMT: multiway-split tree by column generation", backend="highs",
           runs_to_limit=True),
    Method("cgh", f"{_EST}:CGHClassifier", "[CGH]",
           "CGH: column-generation heuristic tree on raw thresholds", backend="highs",
           runs_to_limit=True),
    Method("rug", f"{_EST}:RUGClassifier", "[RUG]",
           "RUG / FairRUG: weighted rule set by rule generation", backend="highs"),
    Method("rux", f"{_EST}:RUXClassifier", "[RUG]",
           "RUX: the leaves of a tree ensemble as rules, weighted by RUG's LP (3)",
           backend="highs"),
    # no paper of its own: the interval search over sorted columns with regression costs
    # (issue #43; docs/architecture.md, "Regression")
    Method("regtree", f"{_EST}:OptimalTreeRegressor", "",
           "optimal regression tree (leaf means, squared error) over every threshold",
           backend="search", task="regression"),
    Method("omt-reg", f"{_EST}:OMTRegressor", "[OMT]",
           "OMT regression: multiway-split tree (mean or median per rule) by column "
           "generation", backend="highs", task="regression", runs_to_limit=True),
    # issue #46: Justin et al.'s robust trees (no key of docs/references.md yet; the
    # definition and its source are in optrees/robust/__init__.py), an exact search; not in
    # compare's default list: it answers a worst case under the user's own budget, and reads
    # integer columns only (at budget 0 it is BendOCT's optimum)
    Method("robust", f"{_EST}.robust:RobustTreeClassifier", "",
           "robust tree: best worst-case accuracy when an adversary shifts integer features "
           "within a budget", backend="search", compare=False),
    # issue #45: fit(X, y) with y of (event, time), and fit(X, treatment, outcome, ...); not
    # yet offered by `optrees fit` (cli=False keeps them out of --method and compare)
    Method("survtree", f"{_EST}.survival:OptimalSurvivalTree", "",
           "optimal survival tree (STreeD's leaf loss, hazard ratio per leaf) over every "
           "threshold", backend="search", cli=False, task="survival"),
    Method("policytree", f"{_EST}.policy:OptimalPolicyTree", "",
           "optimal policy tree (which treatment for whom: IPW, DM or DR teacher)",
           cli=False, task="policy"),
]}
"""Method name -> :class:`Method`."""

CV_ESTIMATORS: dict[str, str] = {
    "BendOCTClassifier": f"{_EST}:BendOCTClassifierCV",
    "OptimalTreeRegressor": f"{_EST}:OptimalTreeRegressorCV",
}
"""Estimator class name -> its ``*CV`` estimator (depth and penalty chosen by
cross-validation, :mod:`optrees.estimators.cv`); the other methods are tuned by
scikit-learn's ``GridSearchCV`` (docs/guide/model_selection.md)."""


def cli_methods() -> dict[str, Method]:
    """The methods ``optrees fit --method`` offers."""
    return {name: m for name, m in METHODS.items() if m.cli}


def task_methods(task: str) -> dict[str, Method]:
    """The command line's methods of one ``task`` (e.g. "classification", "regression")."""
    return {name: m for name, m in cli_methods().items() if m.task == task}


def compare_methods(task: str) -> dict[str, Method]:
    """The methods ``optrees compare`` fits for ``task`` when none are named."""
    return {name: m for name, m in task_methods(task).items() if m.compare}


def estimator_classes() -> list[type]:
    """Every distinct estimator class of the registry, in registry order (imports them)."""
    seen: dict[str, type] = {}
    for m in METHODS.values():
        seen.setdefault(m.target, m.load())
    return list(seen.values())


def cv_estimator(class_name: str) -> type | None:
    """The ``*CV`` estimator of the estimator class ``class_name`` (None: use GridSearchCV)."""
    target = CV_ESTIMATORS.get(class_name)
    if target is None:
        return None
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)
