"""Path-level constraints of OMT ([OMT] §5): the user's constraint parameters as graph arrays.

Rule costs are additive over levels (rho_mj = const_m + sum of a_mg over the levels g a rule
uses, e.g. feature acquisition costs), so a linear constraint over the selected rules is one
master row (:class:`RuleConstraint`).  A per-rule budget and the attribute rules (features
that may not appear together, features that must precede another) are checked by the
pricing while it extends a path.  Features are named by column; a dropped (constant)
column is never used, so a constraint on it is void.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import OptreesInputError
from .graph import Graph
from .pricing import Steps


@dataclass
class RuleConstraint:
    """lower <= sum_j rho_j z_j <= upper with rho_j = const + sum_{levels g in rule j} coef[g]."""

    coef: np.ndarray
    const: float = 0.0
    lower: float = -math.inf
    upper: float = math.inf
    name: str = "constraint"

    def rho(self, steps: Steps) -> float:
        """rho_j of the rule with these steps."""
        return float(self.const + sum(self.coef[g] for g, _ in steps))


@dataclass(frozen=True)
class UserConstraints:
    """The constraint parameters of an OMT estimator, as given (features named by column).

    ``feature_costs`` {feature: cost} with ``rule_budget`` (per rule) and ``total_budget``
    (sum over the selected rules); ``constraints``: dicts {"coef": {feature: a}, "const": b,
    "lower": lo, "upper": up}; ``forbidden``: feature sets no rule may use together;
    ``requires``: {feature: features that must precede it on the rule}."""

    feature_costs: dict | None = None
    rule_budget: float | None = None
    total_budget: float | None = None
    constraints: list | None = None
    forbidden: list | None = None
    requires: dict | None = None


@dataclass
class RuleLimits:
    """The constraints as arrays over the graph's levels (what the solver consumes)."""

    feature_costs: np.ndarray | None = None
    rule_budget: float | None = None
    constraints: list[RuleConstraint] = field(default_factory=list)
    forbidden: list[np.ndarray] = field(default_factory=list)
    requires: list[np.ndarray] | None = None


def _num(name: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or not np.isfinite(v):
        raise OptreesInputError(f"{name} must be a finite number, got {v!r}")
    return float(v)


def _level_index(graph: Graph, name: Any, what: str) -> int:
    """Level of feature ``name``; -1 for a dropped (constant) column."""
    names = [lv.name for lv in graph.levels]
    key = str(name)
    if key not in names:
        if key in graph.dropped:
            return -1
        raise OptreesInputError(f"{what} names unknown feature {name!r}")
    return names.index(key)


def _feature_costs(graph: Graph, costs: dict | None) -> np.ndarray | None:
    if costs is None:
        return None
    if not isinstance(costs, dict):
        raise OptreesInputError("feature_costs must be a dict {feature: cost}")
    out = np.zeros(len(graph.levels))
    for f, c in costs.items():
        c = _num(f"feature_costs[{f!r}]", c)
        if c < 0:
            raise OptreesInputError(f"feature_costs[{f!r}] must be >= 0, got {c}")
        g = _level_index(graph, f, "feature_costs")
        if g >= 0:
            out[g] = c
    return out


def _budget(name: str, value: Any, costs: np.ndarray | None, what: str) -> float | None:
    if value is None:
        return None
    budget = _num(name, value)
    if budget < 0:
        raise OptreesInputError(f"{name}={budget} is infeasible: {what}")
    if costs is None:
        raise OptreesInputError(f"{name} needs feature_costs")
    return budget


def _linear(graph: Graph, i: int, c: Any) -> RuleConstraint:
    if not isinstance(c, dict):
        raise OptreesInputError(
            "constraints must be dicts {'coef': {feature: a}, 'const': b, "
            "'lower': lo, 'upper': up}")
    coef = np.zeros(len(graph.levels))
    for f, a in (c.get("coef") or {}).items():
        g = _level_index(graph, f, f"constraints[{i}]")
        if g >= 0:
            coef[g] = _num(f"constraints[{i}] coefficient", a)
    lo = float(c.get("lower", -math.inf))
    up = float(c.get("upper", math.inf))
    if lo > up:
        raise OptreesInputError(f"constraints[{i}] is infeasible: lower {lo} > upper {up}")
    return RuleConstraint(coef, _num("const", c.get("const", 0.0)), lo, up,
                          str(c.get("name", f"constraint {i}")))


def _forbidden(graph: Graph, sets: list | None) -> list[np.ndarray]:
    out = []
    for fs in sets or []:
        idx = [_level_index(graph, f, "forbidden") for f in fs]
        if len(idx) < 2:
            raise OptreesInputError(f"a forbidden combination needs >= 2 features: {fs!r}")
        if min(idx) < 0:
            continue  # a dropped (constant) feature is never used
        m = np.zeros(len(graph.levels), dtype=bool)
        m[idx] = True
        out.append(m)
    return out


def _requires(graph: Graph, requires: dict | None) -> list[np.ndarray]:
    out = [np.zeros(0, dtype=np.int64) for _ in graph.levels]
    for f, pre in (requires or {}).items():
        g = _level_index(graph, f, "requires")
        pre = [pre] if isinstance(pre, str) else list(pre)
        idx = [_level_index(graph, p, "requires") for p in pre]
        if g < 0:
            continue
        if min(idx, default=0) < 0:
            raise OptreesInputError(
                f"requires: {f!r} needs a constant feature, so it can never be used")
        late = [p for p, h in zip(pre, idx, strict=True) if h > g]
        if late:
            raise OptreesInputError(
                f"requires: {late} must come before {f!r} in the feature order "
                "(set feature_order)")
        out[g] = np.asarray(idx, dtype=np.int64)
    return out


def rule_limits(graph: Graph, user: UserConstraints) -> RuleLimits:
    """The user's constraints as arrays over the levels of ``graph``; OptreesInputError for
    an unknown feature, a malformed constraint or one that no set of rules can meet."""
    costs = _feature_costs(graph, user.feature_costs)
    rule_budget = _budget("rule_budget", user.rule_budget, costs, "a rule costs at least 0")
    rows: list[RuleConstraint] = []
    total = _budget("total_budget", user.total_budget, costs,
                    "the total cost of rules is at least 0")
    if total is not None:
        rows.append(RuleConstraint(costs.copy(), 0.0, -math.inf, total, "total_budget"))
    rows += [_linear(graph, i, c) for i, c in enumerate(user.constraints or [])]
    return RuleLimits(costs, rule_budget, rows, _forbidden(graph, user.forbidden),
                      _requires(graph, user.requires))
