"""Save fitted models as JSON and load them back for prediction on raw data.

A model file holds the model (binary or multiway tree, or rule set), what turns raw columns
into its input (binary literals, CGH's raw columns; trees and rule sets on raw columns read
them themselves), the column labels as given at fit time (integer labels stay integers), the
categories seen at fit time (predicting on others warns, as the estimators do) and a summary
of the fit.  Loading checks all of it: a damaged or hand-edited file is refused with one
:class:`OptreesInputError` naming the problem.

(Over 400 lines: writing and reading one file format; the load side checks every field the
save side writes, so the two stay side by side.)
"""

from __future__ import annotations

import json
import math
import numbers
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._files import write_atomic
from ._validation import OptreesInputError, check_binary_matrix, check_frame
from .encoding.binarize import _OPS, BinaryLiteral
from .estimators._base import warn_unseen
from .models import _schema as schema
from .models.binary_tree import BinaryTree
from .models.multiway_tree import MultiwayTree
from .models.rule_set import RuleSet

FORMAT = "optrees-model-1"
"""The file format this version writes and reads (later keys are optional additions)."""


# ----------------------------------------------------------------------------- saving
def model_to_dict(estimator: Any) -> dict[str, Any]:
    """JSON-ready description of a fitted estimator (or of a loaded model): model, input
    encoding, column labels, seen categories, fit summary.  A value a JSON file cannot hold
    (e.g. a date category) raises OptreesInputError naming it."""
    if isinstance(estimator, LoadedTreeModel | LoadedRuleSet):
        return json.loads(json.dumps(estimator.data))
    if hasattr(estimator, "rules_"):  # rule sets predict on raw columns directly
        body = {"rules": estimator.rules_.to_dict(),
                "fit": {"objective": _plain(estimator.objective_), "status": estimator.status_,
                        "seconds": estimator.fit_seconds_}}
    elif hasattr(estimator, "tree_"):
        body = _tree_body(estimator)
    else:
        raise OptreesInputError(
            f"save_model needs a fitted optrees estimator; {type(estimator).__name__} has no "
            "fitted model (call fit first)")
    data = {"format": FORMAT, "estimator": type(estimator).__name__,
            "columns": _labels(estimator), "categories": _seen_categories(estimator), **body}
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


def save_model(estimator: Any, path: str | Path) -> None:
    """Write the fitted model as JSON (atomically: a complete file or none)."""
    text = json.dumps(model_to_dict(estimator), indent=1, allow_nan=False)
    write_atomic(path, text)


# ----------------------------------------------------------------------------- columns
class _Columns:
    """Finds a loaded model's columns in new data: in a DataFrame by the fit-time label
    (else by its text, as in a CSV header), in an array by position."""

    def __init__(self, labels: list[Any] | None, categories: dict[str, list[Any]]) -> None:
        self.labels = labels
        self.label_of = {} if labels is None else {str(c): c for c in labels}
        self.categories = categories

    def frame(self, X: Any, needed: list[str]) -> pd.DataFrame:
        """The ``needed`` columns of X (checked), named by the text of their labels."""
        if isinstance(X, pd.DataFrame):
            return check_frame(X[self._find(X, needed)]).set_axis(needed, axis=1)
        df = check_frame(X)
        if self.labels is not None:  # an array: the fit-time columns, by position
            if df.shape[1] != len(self.labels):
                raise OptreesInputError(
                    f"X has {df.shape[1]} columns, but the model was fitted on "
                    f"{len(self.labels)}; pass the same columns (or a DataFrame)")
            df = df.set_axis(list(self.label_of), axis=1)
        return df[self._find(df, needed)].set_axis(needed, axis=1)

    def _find(self, df: pd.DataFrame, needed: list[str]) -> list[Any]:
        """The labels in ``df`` of the needed columns; one error listing the missing ones."""
        texts: dict[str, list[Any]] = {}
        for c in df.columns:
            texts.setdefault(str(c), []).append(c)
        found, missing = [], []
        for name in needed:
            label = self.label_of.get(name, name)
            if label in df.columns:
                found.append(label)
            elif len(texts.get(name, [])) == 1:
                found.append(texts[name][0])
            else:
                missing.append(label)
        if missing:
            raise OptreesInputError(f"input is missing columns the model needs: {missing[:10]}")
        return found

    def warn_unseen(self, model: Any, df: pd.DataFrame) -> None:
        """UnseenCategoryWarning for categories of ``df`` not seen at fit time."""
        warn_unseen(model, df, {c: v for c, v in self.categories.items() if c in df.columns})


# ----------------------------------------------------------------------------- loaded models
class LoadedTreeModel:
    """A tree read from JSON: predicts on raw tables with the same columns as at fit time."""

    def __init__(self, data: dict[str, Any], columns: _Columns) -> None:
        self.data = data
        self.columns = columns
        self.literals = _checked_literals(data.get("literals"))
        self.raw = _checked_raw_columns(data.get("raw_columns"))
        inputs = data.get("binary_columns")
        self.inputs = None if inputs is None else schema.strings(
            schema.as_list(inputs, "'binary_columns'"), "'binary_columns'")
        tree = schema.mapping(data.get("tree"), "'tree'")
        if tree.get("kind") == "multiway_tree":
            self.tree: BinaryTree | MultiwayTree = MultiwayTree.from_dict(tree)
            self.needed = [lv.name for lv in self.tree.levels]
        else:
            self.tree = BinaryTree.from_dict(tree, self._width())
            self.needed = self._binary_inputs()
        known = set(columns.label_of) if columns.labels is not None else None
        unknown = [c for c in self.needed if known is not None and c not in known]
        if unknown:
            schema.fail(f"the model reads columns {unknown[:5]} that are not among its "
                        f"columns {list(known)[:10]}")

    def _width(self) -> int | None:
        """Columns of the matrix the binary tree reads (None: unknown, old binary files)."""
        if self.literals is not None:
            return len(self.literals)
        if self.raw is not None:
            return max(1, sum(1 if s["kind"] == "num" else len(s["values"]) for s in self.raw))
        if self.inputs is not None:
            return len(self.inputs)
        return None if self.columns.labels is None else len(self.columns.labels)

    def _binary_inputs(self) -> list[str]:
        """The raw columns a binary tree's input is computed from."""
        if self.literals is not None:
            return list(dict.fromkeys(lit.column for lit in self.literals))
        if self.raw is not None:
            return list(dict.fromkeys(spec["column"] for spec in self.raw))
        if self.inputs is not None:
            return list(self.inputs)
        if self.columns.labels is not None:
            return list(self.columns.label_of)
        return list(self.tree.feature_names or [])

    def _frame(self, X: Any) -> pd.DataFrame:
        """The columns the model reads, with a warning for categories unseen at fit time."""
        df = self.columns.frame(X, self.needed)
        self.columns.warn_unseen(self, df)
        return df

    def binary(self, df: pd.DataFrame) -> np.ndarray:
        """The feature matrix the binary tree was learned on (0/1 literals, or raw numeric
        columns and one-hot categories for CGH / raw-threshold trees)."""
        if self.literals is not None:
            return np.column_stack([lit.evaluate(df[lit.column]) for lit in self.literals])
        if self.raw is not None:
            parts = [np.zeros((len(df), 0))]
            for spec in self.raw:
                col = df[spec["column"]]
                if spec["kind"] == "num":
                    parts.append(_numeric(col, spec["column"])[:, None])
                else:
                    obj = col.astype(object).to_numpy()
                    parts += [(obj == v)[:, None].astype(float) for v in spec["values"]]
            Z = np.hstack(parts)
            return Z if Z.shape[1] else np.zeros((len(df), 1))
        return check_binary_matrix(df)

    def _input(self, X: Any) -> Any:
        df = self._frame(X)
        return df if isinstance(self.tree, MultiwayTree) else self.binary(df)

    def predict(self, X: Any) -> np.ndarray:
        """Predicted classes (regression trees: values) of the rows of X."""
        return self.tree.predict(self._input(X))

    def predict_proba(self, X: Any) -> np.ndarray:
        """Training class frequencies at the leaf each row reaches."""
        return self.tree.predict_proba(self._input(X))

    def export_text(self) -> str:
        """Readable text of the tree."""
        return self.tree.export_text()


class LoadedRuleSet(RuleSet):
    """A rule set read from JSON: finds its columns by their fit-time labels and warns about
    categories not seen at fit time; otherwise a :class:`RuleSet`."""

    def __init__(self, rules: RuleSet, columns: _Columns, data: dict[str, Any]) -> None:
        super().__init__(rules.rules, rules.classes, rules.feature_names, rules.default_class)
        self.columns = columns
        self.data = data
        known = set(columns.label_of)
        unknown = [c for c in self.feature_names if columns.labels is not None and c not in known]
        if unknown:
            schema.fail(f"the rules read columns {unknown[:5]} that are not among the model's "
                        f"columns {list(known)[:10]}")

    def _frame(self, X: Any) -> pd.DataFrame:
        if self.columns.labels is None and not isinstance(X, pd.DataFrame):
            return super()._frame(X)  # an old file: arrays by position as a RuleSet reads them
        df = self.columns.frame(X, self.feature_names)
        self.columns.warn_unseen(self, df)
        return df


def _numeric(col: pd.Series, name: str) -> np.ndarray:
    """A column that was numeric at fit time, as floats (clear error if it is not now)."""
    try:
        return col.to_numpy(dtype=float)
    except (TypeError, ValueError) as exc:
        raise OptreesInputError(
            f"column {name!r} was numeric at fit time but has non-numeric values now") from exc


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
    columns = _Columns(_checked_labels(data.get("columns")),
                       _checked_categories(data.get("categories")))
    if "rules" in data:
        return LoadedRuleSet(RuleSet.from_dict(data["rules"]), columns, data)
    if "tree" not in data:
        schema.fail("it holds neither a 'tree' nor 'rules'")
    return LoadedTreeModel(data, columns)


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
