"""RuleSet: a weighted set of classification rules on raw features (RUG, [RUG]).

A rule is a conjunction of literals on the raw columns of a table:

* numeric thresholds ``x <= t`` and ``x > t``;
* categorical tests ``x == v`` and ``x != v``.

Each rule predicts one class and carries a nonnegative weight (its LP weight ``w_j``) and a cost
(``c_j``).  Following §3.1 of the paper, a sample's prediction vector is the weighted sum of the
vector encodings (1) of the rules that cover it::

    y_hat_i = sum_j a_ij * w_j * R_j,    R_j = (-1/(K-1), ..., 1, ..., -1/(K-1))  (1 at the class)

and the predicted class is its largest component.  Ties are broken towards the class listed
first in ``classes`` (the paper breaks them at random; a deterministic rule keeps predictions
reproducible).  A sample that no rule covers gets ``default_class`` (the estimators set it to
the majority class of the training data, the usual choice for rule lists; see Lawless et al.).

``predict_proba`` returns the *normalized votes*: for class k the total weight of the covering
rules that predict k, divided by the total weight of all covering rules.  These are not
calibrated probabilities; their argmax equals the argmax of ``decision_function`` because
``y_hat_k = (K * V_k - V) / (K - 1)`` is increasing in the class vote ``V_k``.  An uncovered
sample gets probability one for the default class.

(Over 400 lines: rule, literal and rule-set types with prediction, explanation, text and
serialization of one model kind.)
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._numbers import threshold_text
from .._validation import OptreesInputError, check_frame
from ..encoding.common import COMPARE, plain
from . import _schema as schema

_NUMERIC_OPS = tuple(COMPARE)
_CATEGORICAL_OPS = ("==", "!=")
FORMAT = "optrees-rule-set-1"


def _fmt_weight(weight: float, decimals: int) -> str:
    """``weight`` to ``decimals`` places, or in scientific notation when that would print a
    positive weight as 0 (an interior-point master leaves weights near 1e-6 that still vote)."""
    if 0 < abs(weight) < 0.5 * 10.0 ** -decimals:
        return f"{weight:.{max(decimals - 1, 1)}e}"
    return f"{weight:.{decimals}f}"


def _fmt_value(v: Any) -> str:
    if isinstance(v, bool | np.bool_):
        return str(bool(v))
    if isinstance(v, numbers.Real):
        f = float(v)
        return threshold_text(f)
    return str(v)


@dataclass(frozen=True)
class Literal:
    """One condition ``feature op value`` on a raw column (op in ``<=``, ``>``, ``<``, ``>=``,
    ``==``, ``!=``)."""

    feature: str
    op: str
    value: Any

    def __post_init__(self) -> None:
        if self.op not in _NUMERIC_OPS + _CATEGORICAL_OPS:
            raise OptreesInputError(f"unknown literal operator {self.op!r}")

    @property
    def numeric(self) -> bool:
        return self.op in _NUMERIC_OPS

    def evaluate(self, column: Any) -> np.ndarray:
        """Boolean mask of the samples (values of this literal's column) that satisfy it."""
        if self.numeric:
            try:
                x = np.asarray(column, dtype=float)
            except (TypeError, ValueError) as exc:
                raise OptreesInputError(
                    f"column {self.feature!r} must be numeric for the condition '{self}'"
                ) from exc
            return COMPARE[self.op](x, self.value)
        x = pd.Series(column).astype(object).to_numpy()
        eq = x == self.value
        if not isinstance(eq, np.ndarray) or eq.shape != x.shape:  # exotic objects
            eq = np.fromiter((v == self.value for v in x), dtype=bool, count=len(x))
        eq = eq.astype(bool)
        return eq if self.op == "==" else ~eq

    def __str__(self) -> str:
        return f"{self.feature} {self.op} {_fmt_value(self.value)}"

    def to_list(self) -> list[Any]:
        return [self.feature, self.op, plain(self.value)]


@dataclass
class Rule:
    """IF all ``literals`` hold THEN class ``label`` (index into the classes), with a weight."""

    literals: tuple[Literal, ...]
    label: int
    weight: float = 1.0
    cost: float = 1.0
    meta: dict = field(default_factory=dict)

    @property
    def length(self) -> int:
        return len(self.literals)

    def covers(self, df: pd.DataFrame) -> np.ndarray:
        mask = np.ones(len(df), dtype=bool)
        for lit in self.literals:
            mask &= lit.evaluate(df[lit.feature])
        return mask

    def condition_text(self) -> str:
        return " AND ".join(str(lit) for lit in self.literals) if self.literals else "TRUE"


class Explanation(list):
    """What :meth:`RuleSet.explain` returns: per sample, the list of the rules that fire (as
    dicts); ``print`` shows it as text, each sample with its predicted class."""

    def __init__(self, predicted: Sequence[Any] = (), default: Any = None) -> None:
        super().__init__()
        self.predicted = list(predicted)
        self.default = default

    def __str__(self) -> str:
        lines = []
        for i, fired in enumerate(self):
            predicted = self.predicted[i] if i < len(self.predicted) else "?"
            lines.append(f"sample {i}: class = {_fmt_value(predicted)}")
            if not fired:
                lines.append(f"  no rule fires (the default class {_fmt_value(self.default)})")
            for f in sorted(fired, key=lambda f: -f["weight"]):
                lines.append(f"  rule {f['rule']}: IF {f['condition']} THEN class = "
                             f"{_fmt_value(f['class'])}  (weight {f['weight']:.4f})")
        return "\n".join(lines)


class RuleSet:
    """Weighted rules voting with the vector encoding (1) of [RUG].

    ``classes``: class labels (rule labels and ``default_class`` index into them);
    ``feature_names``: the raw columns in fit order (arrays at predict time are read by
    position, DataFrames by name).
    """

    def __init__(self, rules: Sequence[Rule], classes: Sequence[Any],
                 feature_names: Sequence[str], default_class: int = 0) -> None:
        self.rules = list(rules)
        self.classes = np.asarray(list(classes))
        if len(self.classes) < 2:
            raise OptreesInputError("a RuleSet needs at least two classes")
        self.feature_names = [str(c) for c in feature_names]
        self.default_class = int(default_class)
        K = len(self.classes)
        if not 0 <= self.default_class < K:
            raise OptreesInputError(f"default_class {default_class} out of range for {K} classes")
        known = set(self.feature_names)
        for r in self.rules:
            if not 0 <= r.label < K:
                raise OptreesInputError(f"rule label {r.label} out of range for {K} classes")
            if r.weight < 0:
                raise OptreesInputError("rule weights must be nonnegative")
            for lit in r.literals:
                if lit.feature not in known:
                    raise OptreesInputError(f"rule uses unknown feature {lit.feature!r}")

    # ------------------------------------------------------------------ basics
    @property
    def n_classes(self) -> int:
        """Number of classes K."""
        return len(self.classes)

    def __len__(self) -> int:
        return len(self.rules)

    def __repr__(self) -> str:
        return f"RuleSet({len(self.rules)} rules, {self.n_classes} classes)"

    @property
    def weights(self) -> np.ndarray:
        """Weight of every rule, in rule order."""
        return np.array([r.weight for r in self.rules], dtype=float)

    @property
    def labels(self) -> np.ndarray:
        """Class index predicted by every rule, in rule order."""
        return np.array([r.label for r in self.rules], dtype=np.int64)

    def _frame(self, X: Any) -> pd.DataFrame:
        if isinstance(X, pd.DataFrame):
            missing = [c for c in self.feature_names if c not in X.columns]
            if missing:
                if X.shape[1] == len(self.feature_names) and all(
                        isinstance(c, numbers.Integral) for c in X.columns):
                    X = X.set_axis(self.feature_names, axis=1)
                else:
                    raise OptreesInputError(f"X is missing columns the rules need: {missing[:5]}")
            df = check_frame(X[self.feature_names])
        else:
            df = check_frame(X)
            if df.shape[1] != len(self.feature_names):
                raise OptreesInputError(
                    f"X has {df.shape[1]} columns but the rules were fitted on "
                    f"{len(self.feature_names)}"
                )
            df = df.set_axis(self.feature_names, axis=1)
        return df

    def coverage(self, X: Any) -> np.ndarray:
        """Boolean matrix (n_samples, n_rules): entry (i, j) says rule j covers sample i."""
        df = self._frame(X)
        cache: dict[Literal, np.ndarray] = {}
        out = np.ones((len(df), len(self.rules)), dtype=bool)
        for j, r in enumerate(self.rules):
            for lit in r.literals:
                if lit not in cache:
                    cache[lit] = lit.evaluate(df[lit.feature])
                out[:, j] &= cache[lit]
        return out

    # ------------------------------------------------------------------ prediction
    def votes(self, X: Any) -> np.ndarray:
        """(n, K): total weight of the covering rules predicting each class."""
        A = self.coverage(X).astype(float)
        onehot = np.zeros((len(self.rules), self.n_classes))
        if self.rules:
            onehot[np.arange(len(self.rules)), self.labels] = self.weights
        return A @ onehot

    def decision_function(self, X: Any) -> np.ndarray:
        """(n, K) prediction vectors y_hat_i = sum_j a_ij w_j R_j (vector encoding (1))."""
        V = self.votes(X)
        K = self.n_classes
        return (K * V - V.sum(axis=1, keepdims=True)) / (K - 1)

    def covered(self, X: Any) -> np.ndarray:
        """Mask of samples covered by at least one rule of positive weight."""
        A = self.coverage(X)
        return (A & (self.weights > 0)[None, :]).any(axis=1) if self.rules else np.zeros(
            len(A), dtype=bool)

    def predict_index(self, X: Any) -> np.ndarray:
        """Predicted class indices; uncovered samples get ``default_class``."""
        V = self.votes(X)
        pred = np.argmax(self.decision_function_from_votes(V), axis=1)
        pred[V.sum(axis=1) <= 0] = self.default_class
        return pred

    def decision_function_from_votes(self, V: np.ndarray) -> np.ndarray:
        """Prediction vectors of :meth:`decision_function` from class votes ``V`` (n, K)."""
        K = self.n_classes
        return (K * V - V.sum(axis=1, keepdims=True)) / (K - 1)

    def predict(self, X: Any) -> np.ndarray:
        """Predicted label of each sample; uncovered samples get the default class."""
        return self.classes[self.predict_index(X)]

    def predict_proba(self, X: Any) -> np.ndarray:
        """Normalized class votes (see the module docstring); one-hot default if uncovered."""
        V = self.votes(X)
        total = V.sum(axis=1, keepdims=True)
        P = np.zeros_like(V)
        ok = total[:, 0] > 0
        P[ok] = V[ok] / total[ok]
        P[~ok, self.default_class] = 1.0
        return P

    def explain(self, X: Any) -> Explanation:
        """Per sample, the rules that fire: number, text, class, weight, length.

        ``"rule": j`` is ``self.rules[j]``, printed as "rule j" by :meth:`export_text`.  The
        sum over a sample's fired rules of ``weight * R(class)`` equals its row of
        :meth:`decision_function`; an empty list means the default class was used.  The
        result is a list (of lists of dicts) that prints as text, a sample per paragraph.
        """
        A = self.coverage(X)
        out = Explanation(predicted=[plain(c) for c in self.classes[self.predict_index(X)]],
                          default=plain(self.classes[self.default_class]))
        for i in range(A.shape[0]):
            fired = []
            for j in np.flatnonzero(A[i]):
                r = self.rules[j]
                if r.weight <= 0:
                    continue
                fired.append({"rule": int(j), "condition": r.condition_text(),
                              "class": plain(self.classes[r.label]), "weight": float(r.weight),
                              "length": r.length})
            out.append(fired)
        return out

    # ------------------------------------------------------------------ text / JSON
    def export_text(self, decimals: int = 4) -> str:
        """The rules, heaviest first; "rule j" is ``self.rules[j]``, the number that
        :meth:`explain` reports (a fitted RUG model keeps its rules heaviest first, so
        they read rule 0, rule 1, ...)."""
        lines = []
        order = sorted(range(len(self.rules)), key=lambda j: -self.rules[j].weight)
        for j in order:
            r = self.rules[j]
            lines.append(f"rule {j}: IF {r.condition_text()} THEN class = "
                         f"{_fmt_value(self.classes[r.label])}  "
                         f"(weight {_fmt_weight(r.weight, decimals)}, length {r.length})")
        lines.append(f"otherwise (no rule fires): class = "
                     f"{_fmt_value(self.classes[self.default_class])}")
        return "\n".join(lines)

    def plot(self, max_rules: int | None = 20, **kwargs: Any) -> Any:
        """matplotlib Figure of the rule weights (see :func:`optrees.export.plot_rules`)."""
        from ..export import plot_rules

        return plot_rules(self, max_rules=max_rules, **kwargs)

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-ready description of the rule set (read back by :meth:`from_dict`)."""
        return {
            "format": FORMAT,
            "classes": [plain(c) for c in self.classes],
            "feature_names": list(self.feature_names),
            "default_class": self.default_class,
            "rules": [
                {"literals": [lit.to_list() for lit in r.literals], "label": int(r.label),
                 "weight": float(r.weight), "cost": float(r.cost)}
                for r in self.rules
            ],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleSet:
        """The rule set described by :meth:`to_dict`, checked first: a damaged or
        hand-edited description raises one OptreesInputError naming the problem."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise OptreesInputError("not an optrees rule set (missing or unknown 'format')")
        classes = schema.labels(schema.sequence(data, "classes"), "'classes'")
        names = schema.strings(schema.sequence(data, "feature_names"), "'feature_names'",
                               unique=True)
        default = schema.integer(data.get("default_class"), "'default_class'", 0, len(classes))
        rules = [_checked_rule(r, f"'rules'[{j}]", len(classes))
                 for j, r in enumerate(schema.sequence(data, "rules"))]
        return cls(rules, classes, names, default)

    def to_json(self) -> str:
        """JSON text of :meth:`to_dict`."""
        return json.dumps(self.to_dict(), indent=1)

    @classmethod
    def from_json(cls, text: str) -> RuleSet:
        """The rule set in JSON text written by :meth:`to_json`."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise OptreesInputError(f"invalid JSON for a rule set: {exc}") from exc
        return cls.from_dict(data)

    def save(self, path: str | Path) -> None:
        """Write :meth:`to_json` (atomically: a complete file or none)."""
        from .._files import write_atomic

        write_atomic(path, self.to_json())

    # ------------------------------------------------------------------ editing
    def by_weight(self) -> RuleSet:
        """The same rules, heaviest first (ties keep their order), so that rule numbers
        (:meth:`explain`, :meth:`export_text`) follow importance."""
        order = sorted(range(len(self.rules)), key=lambda j: -self.rules[j].weight)
        return RuleSet([self.rules[j] for j in order], self.classes, self.feature_names,
                       self.default_class)

    def pruned(self, threshold: float) -> RuleSet:
        """Keep rules with weight > 0 and weight >= threshold * (largest weight)."""
        if not (isinstance(threshold, numbers.Real) and 0 <= threshold <= 1
                and not isinstance(threshold, bool)):
            raise OptreesInputError(f"threshold must be a number in [0, 1], got {threshold!r}")
        w = self.weights
        if not len(w):
            return RuleSet([], self.classes, self.feature_names, self.default_class)
        wmax = float(w.max())
        keep = [r for r in self.rules
                if r.weight > 1e-9 and r.weight >= threshold * wmax - 1e-12 * max(1.0, wmax)]
        return RuleSet(keep, self.classes, self.feature_names, self.default_class)


def _checked_rule(data: Any, what: str, n_classes: int) -> Rule:
    """One rule of a description: literals [feature, op, value] (a number for ``<=`` and
    ``>``), a class index, a finite weight >= 0 and a finite cost."""
    data = schema.mapping(data, what)
    literals = []
    for i, lit in enumerate(schema.sequence(data, "literals")):
        feature, op, value = schema.as_list(lit, f"{what} literal {i}", 3)
        if not isinstance(feature, str) or op not in _NUMERIC_OPS + _CATEGORICAL_OPS:
            schema.fail(f"{what} literal {i} = {lit!r} needs a feature name and one of the "
                        f"operators {_NUMERIC_OPS + _CATEGORICAL_OPS}")
        if not (schema.is_number(value) if op in _NUMERIC_OPS else schema.is_scalar(value)):
            kind = "a finite number" if op in _NUMERIC_OPS else "a string, number or boolean"
            schema.fail(f"{what} literal {i} = {lit!r}: the value must be {kind}")
        literals.append(Literal(feature, op, value))
    label = schema.integer(data.get("label"), f"{what} 'label'", 0, n_classes)
    weight = schema.real(data.get("weight"), f"{what} 'weight'")
    cost = schema.real(data.get("cost", 1.0), f"{what} 'cost'")
    if weight < 0:
        schema.fail(f"{what} has a negative weight {weight}")
    return Rule(tuple(literals), label, weight, cost)


def simplify_literals(literals: Sequence[Literal], feature_order: Sequence[str]) -> tuple:
    """Drop redundant literals of a conjunction (tightest bounds; ``== v`` subsumes ``!=``).

    Returns the literals sorted by column (in ``feature_order``), then operator.
    """
    pos = {f: i for i, f in enumerate(feature_order)}
    # a bound is (value, strict): at the same value a strict one is the tighter
    upper: dict[str, tuple[float, bool]] = {}
    lower: dict[str, tuple[float, bool]] = {}
    eq: dict[str, Any] = {}
    neq: dict[str, list[Any]] = {}
    for lit in literals:
        f = lit.feature
        if lit.op in ("<=", "<"):
            upper[f] = min(upper.get(f, (math.inf, False)), (lit.value, lit.op == "<"),
                           key=lambda b: (b[0], not b[1]))
        elif lit.op in (">", ">="):
            lower[f] = max(lower.get(f, (-math.inf, False)), (lit.value, lit.op == ">"))
        elif lit.op == "==":
            eq[f] = lit.value
        else:
            neq.setdefault(f, [])
            if lit.value not in neq[f]:
                neq[f].append(lit.value)
    out: list[Literal] = []
    for f in sorted(set(upper) | set(lower) | set(eq) | set(neq), key=lambda c: pos.get(c, 0)):
        if f in lower:
            out.append(Literal(f, ">" if lower[f][1] else ">=", float(lower[f][0])))
        if f in upper:
            out.append(Literal(f, "<" if upper[f][1] else "<=", float(upper[f][0])))
        if f in eq:
            out.append(Literal(f, "==", eq[f]))
        elif f in neq:
            for v in sorted(neq[f], key=lambda v: (str(type(v)), str(v))):
                out.append(Literal(f, "!=", v))
    return tuple(out)
