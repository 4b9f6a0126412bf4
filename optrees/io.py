"""Save fitted tree models as JSON and load them back for prediction on raw data."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._validation import OptreesInputError, check_binary_matrix, check_frame
from .binarize import BinaryLiteral
from .models.binary_tree import BinaryTree
from .models.multiway_tree import MultiwayTree
from .models.rule_set import RuleSet

FORMAT = "optrees-model-1"


def model_to_dict(estimator: Any) -> dict[str, Any]:
    """JSON-ready description of a fitted estimator: model, binary literals, fit summary."""
    if hasattr(estimator, "rules_"):  # rule sets predict on raw columns directly
        return {"format": FORMAT, "estimator": type(estimator).__name__,
                "rules": estimator.rules_.to_dict(),
                "fit": {"objective": _plain(estimator.objective_),
                        "status": estimator.status_, "seconds": estimator.fit_seconds_}}
    literals = None
    if getattr(estimator, "binarizer_", None) is not None:
        literals = [
            {"column": lit.column, "op": lit.op, "value": _plain(lit.value), "name": lit.name,
             "negated_name": lit.negated_name}
            for lit in estimator.binarizer_.literals_
        ]
    columns = getattr(estimator, "feature_names_in_", None)
    encoder = getattr(estimator, "encoder_", None)  # CGH: raw numeric columns + one-hot
    bound = getattr(estimator, "bound_", getattr(estimator, "lp_bound_", None))
    return {
        "format": FORMAT,
        "estimator": type(estimator).__name__,
        "params": {k: _plain(v) for k, v in estimator.get_params().items()
                   if isinstance(v, int | float | str | bool | type(None))},
        "columns": None if columns is None else [str(c) for c in columns],
        "literals": literals,
        "raw_columns": None if encoder is None else [
            {"kind": kind, "column": str(c), "values": [_plain(v) for v in values]}
            for kind, c, values in encoder.specs
        ],
        "tree": estimator.tree_.to_dict(),
        "fit": {"objective": estimator.objective_, "bound": _plain(bound),
                "gap": _plain(getattr(estimator, "gap_", None)), "status": estimator.status_,
                "seconds": estimator.fit_seconds_},
    }


def _plain(v: Any) -> Any:
    if isinstance(v, tuple | list):
        return [_plain(x) for x in v]
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, float) and not np.isfinite(v):
        return None
    return v


def write_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` all or nothing: a temporary file in the same folder,
    renamed over ``path`` once complete (no partial file if anything fails)."""
    path = Path(path)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise OptreesInputError(f"cannot write {path}: {exc.strerror or exc}") from exc
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def save_model(estimator: Any, path: str | Path) -> None:
    """Write the fitted model as JSON (atomically: a complete file or none)."""
    write_atomic(path, json.dumps(model_to_dict(estimator), indent=1))


class LoadedTreeModel:
    """A tree read from JSON: predicts on raw tables with the same columns as at fit time."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        multiway = data["tree"].get("kind") == "multiway_tree"
        self.tree = (MultiwayTree.from_dict(data["tree"]) if multiway
                     else BinaryTree.from_dict(data["tree"]))
        self.columns = data.get("columns")
        self.literals = (
            None if data.get("literals") is None
            else [BinaryLiteral(**lit) for lit in data["literals"]]
        )

    def binary(self, X: Any) -> np.ndarray:
        """The feature matrix the tree was learned on (0/1 literals, or raw numeric columns
        and one-hot categories for CGH trees)."""
        df = check_frame(X)
        raw = self.data.get("raw_columns")
        if raw is not None:
            df = _select(df, list(dict.fromkeys(spec["column"] for spec in raw)))
            parts = []
            for spec in raw:
                col = df[spec["column"]]
                if spec["kind"] == "num":
                    parts.append(col.to_numpy(dtype=float)[:, None])
                else:
                    obj = col.astype(object).to_numpy()
                    parts += [(obj == v)[:, None].astype(float) for v in spec["values"]]
            return np.hstack(parts)
        if self.literals is None:
            if self.columns is not None:
                df = _select(df, self.columns)
            return check_binary_matrix(df)
        needed = list(dict.fromkeys(lit.column for lit in self.literals))
        df = _select(df, needed)
        return np.column_stack([lit.evaluate(df[lit.column]) for lit in self.literals])

    def _input(self, X: Any) -> Any:
        if isinstance(self.tree, MultiwayTree):  # OMT trees encode raw columns themselves
            df = check_frame(X)
            df.columns = [str(c) for c in df.columns]
            return _select(df, [lv.name for lv in self.tree.levels])
        return self.binary(X)

    def predict(self, X: Any) -> np.ndarray:
        return self.tree.predict(self._input(X))

    def predict_proba(self, X: Any) -> np.ndarray:
        return self.tree.predict_proba(self._input(X))


def _select(df: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise OptreesInputError(f"input is missing columns the model needs: {missing}")
    return df[columns]


def load_model(path: str | Path) -> LoadedTreeModel | RuleSet:
    """Read a model written by :func:`save_model`; clear error for unreadable files."""
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError as exc:
        raise OptreesInputError(f"model file not found: {path}") from exc
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise OptreesInputError(f"cannot read model file {path}: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise OptreesInputError(f"{path} is not an optrees model file (unknown 'format')")
    try:
        if "rules" in data:
            return RuleSet.from_dict(data["rules"])
        return LoadedTreeModel(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise OptreesInputError(f"{path} is not a valid optrees model file: {exc}") from exc
