"""Save fitted models as JSON and load them back for prediction on raw data.

A model file holds the model (binary or multiway tree, or rule set; a survival tree also
its baseline hazard and Kaplan–Meier curves, a policy tree each leaf's estimated outcome),
what turns raw columns into its input (binary literals, CGH's raw columns; trees and rule
sets on raw columns read them themselves), the column labels as given at fit time (integer
labels stay integers), the categories seen at fit time (predicting on others warns, as the
estimators do) and a summary of the fit.  Loading checks all of it: a damaged or
hand-edited file is refused with one :class:`OptreesInputError` naming the problem.  The
loaded models themselves are in :mod:`optrees.loaded`.
"""

from __future__ import annotations

import json
import math
import numbers
from pathlib import Path
from typing import Any

import numpy as np

from ._files import write_atomic
from ._validation import OptreesInputError
from .encoding.binarize import _OPS, BinaryLiteral
from .loaded import (
    LoadedPolicyTree,
    LoadedRuleSet,
    LoadedSurvivalTree,
    LoadedTreeModel,
    _Columns,
)
from .models import _schema as schema
from .models.rule_set import RuleSet

__all__ = ["FORMAT", "LoadedRuleSet", "LoadedTreeModel", "load_model", "model_from_dict",
           "model_to_dict", "save_model", "write_atomic"]

FORMAT = "optrees-model-1"
"""The file format this version writes and reads (later keys are optional additions)."""


# ----------------------------------------------------------------------------- saving
def model_to_dict(estimator: Any, target: str | None = None) -> dict[str, Any]:
    """JSON-ready description of a fitted estimator (or of a loaded model): model, input
    encoding, column labels, seen categories, fit summary and, when given, the name of the
    ``target`` column (``optrees predict`` reports the accuracy on a file that has it).  A
    value a JSON file cannot hold (e.g. a date category) raises OptreesInputError naming it."""
    if isinstance(estimator, LoadedTreeModel | LoadedRuleSet):
        data = json.loads(json.dumps(estimator.data))
        return data if target is None else {**data, "target": str(target)}
    if hasattr(estimator, "cv_results_"):  # a *CV estimator predicts with its refit model
        if not hasattr(estimator, "best_estimator_"):
            raise OptreesInputError(
                f"save_model: {type(estimator).__name__} was fitted with refit=False, so it "
                "has no best_estimator_ to save (fit the base estimator with best_params_)")
        estimator = estimator.best_estimator_
    if hasattr(estimator, "rules_"):  # rule sets predict on raw columns directly
        body = {"rules": estimator.rules_.to_dict(),
                "fit": {"objective": _plain(estimator.objective_), "status": estimator.status_,
                        "seconds": estimator.fit_seconds_}}
    elif hasattr(estimator, "tree_"):
        body = {**_tree_body(estimator), **_task_body(estimator)}
    else:
        raise OptreesInputError(
            f"save_model needs a fitted optrees estimator; {type(estimator).__name__} has no "
            "fitted model (call fit first)")
    data = {"format": FORMAT, "estimator": type(estimator).__name__,
            "columns": _labels(estimator), "categories": _seen_categories(estimator), **body}
    if target is not None:
        data["target"] = str(target)
    return _jsonable(data, "model")


def _tree_body(estimator: Any) -> dict[str, Any]:
    """The parts of a tree estimator's file: parameters, literals or raw columns, tree, fit."""
    literals = None
    if getattr(estimator, "binarizer_", None) is not None:
        literals = [
            {"column": lit.column, "op": lit.op, "value": _plain(lit.value), "name": lit.name,
             "negated_name": lit.negated_name}
            for lit in estimator.binarizer_.literals_
        ]
    encoder = getattr(estimator, "encoder_", None)  # CGH: raw numeric columns + one-hot
    bound = getattr(estimator, "bound_", getattr(estimator, "lp_bound_", None))
    return {
        "params": {k: _plain(v) for k, v in estimator.get_params().items()
                   if isinstance(v, int | float | str | bool | type(None))},
        "literals": literals,
        "raw_columns": None if encoder is None else [
            {"kind": kind, "column": str(c), "values": [_plain(v) for v in values]}
            for kind, c, values in encoder.specs
        ],
        # 0/1 columns a tree reads when some fit column is not one of its inputs (a dropped
        # sensitive column); None: every column
        "binary_columns": None if getattr(estimator, "_tree_columns", None) is None
        else [str(c) for c in estimator._tree_columns],
        "tree": estimator.tree_.to_dict(),
        "fit": {"objective": _plain(estimator.objective_), "bound": _plain(bound),
                "gap": _plain(getattr(estimator, "gap_", None)), "status": estimator.status_,
                "seconds": estimator.fit_seconds_},
    }


def _task_body(estimator: Any) -> dict[str, Any]:
    """What a survival or policy tree predicts besides its tree: the Nelson–Aalen baseline,
    the training times and each leaf's Kaplan–Meier curve; each leaf's estimated outcome."""
    if hasattr(estimator, "baseline_"):
        base = estimator.baseline_
        return {"survival": {
            "baseline": {"times": base.times, "values": base.values, "floor": base.floor},
            "unique_times": estimator.unique_times_,
            "leaf_kaplan_meier": {str(leaf): curve for leaf, curve
                                  in estimator.leaf_kaplan_meier_.items()}}}
    if hasattr(estimator, "leaf_values_"):
        from .estimators.policy_budget import check_budget

        names = estimator.treatments_  # text labels, or the codes 0..K-1
        budget = check_budget(estimator.get_params().get("treatment_budget"), len(names),
                              names if names.dtype == object else None)  # by code
        return {"policy": {"leaf_values": {str(leaf): value for leaf, value
                                           in estimator.leaf_values_.items()},
                           "treatment_budget": None if budget is None else
                           {str(k): float(v) for k, v in budget.items()},
                           "treatment_shares": estimator.treatment_shares_.tolist()}}
    return {}


def _labels(estimator: Any) -> list[Any] | None:
    """The fit-time column labels: strings, numbers and booleans as they are, any other
    label as its text (a loaded model also finds a column by its text)."""
    labels = getattr(estimator, "_fit_labels", None)
    if labels is None:  # fitted before column labels were kept
        labels = getattr(estimator, "_fit_columns", None)
    if labels is None:
        return None
    return [_plain(c) if schema.is_scalar(c) else str(c) for c in labels]


def _seen_categories(estimator: Any) -> dict[str, list[Any]] | None:
    """Per categorical column (by name), the values seen at fit time."""
    encoder = getattr(estimator, "encoder_", None)
    if getattr(encoder, "specs", None) is not None:  # CGH: one-hot columns
        return {str(c): list(values) for kind, c, values in encoder.specs if kind == "onehot"}
    seen = getattr(estimator, "_categories", None)
    return None if seen is None else {str(c): list(v) for c, v in seen.items()}


def _plain(v: Any) -> Any:
    """numpy scalars as Python ones, tuples as lists, NaN and infinity as None."""
    if isinstance(v, tuple | list):
        return [_plain(x) for x in v]
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, float) and not np.isfinite(v):
        return None
    return v


def _jsonable(v: Any, where: str) -> Any:
    """``v`` with plain Python values only; a value JSON cannot hold is refused by name."""
    if isinstance(v, dict):
        return {str(k): _jsonable(x, f"{where}.{k}") for k, x in v.items()}
    if isinstance(v, list | tuple | np.ndarray):
        return [_jsonable(x, f"{where}[{i}]") for i, x in enumerate(v)]
    if isinstance(v, np.generic):
        v = v.item()
    if v is None or isinstance(v, str | bool):
        return v
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, numbers.Real) and math.isfinite(float(v)):
        return float(v)
    raise OptreesInputError(
        f"cannot save the model: {where} is {v!r} ({type(v).__name__}); a model file holds "
        "strings, finite numbers and booleans only")


def save_model(estimator: Any, path: str | Path, target: str | None = None) -> None:
    """Write the fitted model as JSON (atomically: a complete file or none; a ``*CV``
    estimator: its ``best_estimator_``); ``target``: the name of the column it predicts,
    kept in the file."""
    text = json.dumps(model_to_dict(estimator, target), indent=1, allow_nan=False)
    write_atomic(path, text)


# ----------------------------------------------------------------------------- loading
def load_model(path: str | Path) -> LoadedTreeModel | LoadedRuleSet:
    """Read a model written by :func:`save_model`; one clear error for a file that cannot be
    read or does not describe a valid model."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise OptreesInputError(f"model file not found: {path}") from exc
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise OptreesInputError(f"cannot read model file {path}: {exc}") from exc
    if not isinstance(data, dict) or "format" not in data:
        raise OptreesInputError(f"{path} is not an optrees model file (no 'format')")
    try:
        return model_from_dict(data)
    except (KeyError, TypeError, ValueError, IndexError) as exc:  # OptreesInputError too
        raise OptreesInputError(f"{path} is not a valid optrees model file: {exc}") from exc


def model_from_dict(data: dict[str, Any]) -> LoadedTreeModel | LoadedRuleSet:
    """The model a :func:`model_to_dict` description holds, checked part by part."""
    data = schema.mapping(data, "a model file")
    fmt = data.get("format")
    if fmt != FORMAT:
        newer = isinstance(fmt, str) and fmt.startswith("optrees-model-")
        schema.fail(f"format {fmt!r} " + ("is not one this optrees version reads"
                                          if newer else "is not an optrees model format")
                    + f" (it reads {FORMAT!r})")
    if not isinstance(data.get("target", ""), str):
        schema.fail(f"'target' must be a column name, got {data['target']!r}")
    columns = _Columns(_checked_labels(data.get("columns")),
                       _checked_categories(data.get("categories")))
    if "rules" in data:
        return LoadedRuleSet(RuleSet.from_dict(data["rules"]), columns, data)
    if "tree" not in data:
        schema.fail("it holds neither a 'tree' nor 'rules'")
    inputs = data.get("binary_columns")
    kind = (LoadedSurvivalTree if "survival" in data else LoadedPolicyTree if "policy" in data
            else LoadedTreeModel)
    return kind(
        data, columns, _checked_literals(data.get("literals")),
        _checked_raw_columns(data.get("raw_columns")),
        None if inputs is None else schema.strings(schema.as_list(inputs, "'binary_columns'"),
                                                   "'binary_columns'"))


def _checked_labels(labels: Any) -> list[Any] | None:
    """Column labels: strings, numbers or booleans with distinct texts."""
    if labels is None:
        return None
    labels = schema.labels(schema.as_list(labels, "'columns'"), "'columns'")
    if len({str(c) for c in labels}) != len(labels):
        schema.fail("'columns' has labels with the same text")
    return labels


def _checked_categories(categories: Any) -> dict[str, list[Any]]:
    """Per column name, the categories seen at fit time."""
    if categories is None:
        return {}
    categories = schema.mapping(categories, "'categories'")
    return {name: schema.labels(schema.as_list(values, f"'categories'[{name!r}]"),
                                f"'categories'[{name!r}]")
            for name, values in categories.items()}


def _checked_literals(literals: Any) -> list[BinaryLiteral] | None:
    """Binary literals with a column, a known operator and a value of the right type."""
    if literals is None:
        return None
    out = []
    for i, lit in enumerate(schema.as_list(literals, "'literals'")):
        what = f"'literals'[{i}]"
        lit = schema.mapping(lit, what)
        fields = ("column", "op", "value", "name", "negated_name")
        if set(lit) != set(fields):
            schema.fail(f"{what} must have exactly the keys {fields}")
        schema.strings([lit["column"], lit["name"], lit["negated_name"]],
                       f"{what} (column, name, negated_name)")
        out.append(BinaryLiteral(lit["column"], lit["op"], _literal_value(lit, what),
                                 lit["name"], lit["negated_name"]))
    return out


def _literal_value(lit: dict[str, Any], what: str) -> Any:
    """The value of a literal: a category, a number, or a (low, high) pair for in_range."""
    op, value = lit["op"], lit["value"]
    if op not in _OPS:
        schema.fail(f"{what} has operator {op!r}; expected one of {_OPS}")
    if op == "==":
        if not schema.is_scalar(value):
            schema.fail(f"{what}: the category {value!r} must be a string, number or boolean")
        return value
    if op == "in_range":
        return tuple(schema.reals(schema.as_list(value, f"{what} value", 2), f"{what} value"))
    return schema.real(value, f"{what} value")


def _checked_raw_columns(specs: Any) -> list[dict[str, Any]] | None:
    """CGH's raw columns: numeric ones ("num") and one-hot encoded ones with their values."""
    if specs is None:
        return None
    out = []
    for i, spec in enumerate(schema.as_list(specs, "'raw_columns'")):
        what = f"'raw_columns'[{i}]"
        spec = schema.mapping(spec, what)
        if spec.get("kind") not in ("num", "onehot") or not isinstance(spec.get("column"), str):
            schema.fail(f"{what} needs a 'column' name and kind 'num' or 'onehot'")
        values = schema.labels(schema.as_list(spec.get("values", []), f"{what} values"),
                               f"{what} values")
        out.append({"kind": spec["kind"], "column": spec["column"], "values": values})
    return out
