"""LightGBM and XGBoost classifiers read as node arrays for RUX (optional packages: nothing
here imports them; their models are read through their own dump methods).

- LightGBM (``LGBMClassifier``): ``booster_.dump_model()``; a row goes left when
  ``x <= threshold``.  Internal node ``split_index`` keeps its number, leaf ``leaf_index``
  becomes ``n_internal + leaf_index`` (so ``pred_leaf`` maps to a node by that offset).
- XGBoost (``XGBClassifier``): ``get_booster().get_dump(dump_format="json")``; a row goes
  to ``yes`` when ``float32(x) < split_condition`` (strict, in float32), written as the
  float64 test ``x < t`` (:func:`float32_below`); node ids as XGBoost numbers them.

Categorical splits, and LightGBM's zero-as-missing tests that send 0 against its
threshold, cannot be written as one threshold test: refused with one clear error.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from .._validation import OptreesInputError


def booster_arrays(estimator: Any) -> tuple[list[dict[str, np.ndarray]], bool] | None:
    """The trees of a fitted LightGBM or XGBoost classifier as node arrays (``left``,
    ``right``, ``leaf``, ``feature``, ``threshold``) and whether its tests are strict
    (``x < t``); None when ``estimator`` is neither."""
    package = type(estimator).__module__.split(".")[0]
    if package == "lightgbm":
        return [_lightgbm_tree(t["tree_structure"]) for t in _dump(estimator, package)], False
    if package == "xgboost":
        dumps = _dump(estimator, package)  # first: it says when the model is not fitted
        names = _xgboost_names(estimator)
        return [_xgboost_tree(json.loads(t), names) for t in dumps], True
    return None


def _dump(estimator: Any, package: str) -> list[Any]:
    name = type(estimator).__name__
    try:
        if package == "lightgbm":
            return list(estimator.booster_.dump_model()["tree_info"])
        return list(estimator.get_booster().get_dump(dump_format="json"))
    except Exception as exc:  # their not-fitted errors differ by version  # noqa: BLE001
        raise OptreesInputError(f"the {name} is not fitted or cannot be read ({exc}): call "
                                "its fit first") from None


def _lightgbm_tree(root: dict[str, Any]) -> dict[str, np.ndarray]:
    """A LightGBM tree (its nested ``tree_structure``) as node arrays."""
    internal: list[dict[str, Any]] = []
    leaves: list[dict[str, Any]] = []

    def collect(node: dict[str, Any]) -> None:
        if "split_index" in node:
            internal.append(node)
            collect(node["left_child"])
            collect(node["right_child"])
        else:
            leaves.append(node)

    collect(root)
    k = len(internal)

    def index(node: dict[str, Any]) -> int:
        return node["split_index"] if "split_index" in node else k + node.get("leaf_index", 0)

    arrays = _empty(k + len(leaves))
    arrays["leaf"][k:] = True
    for node in internal:
        i, t = node["split_index"], float(node["threshold"])
        if node["decision_type"] != "<=":
            _categorical("LGBMClassifier")
        if node.get("missing_type") == "Zero" and (0.0 <= t) != bool(node["default_left"]):
            raise OptreesInputError(
                "this LGBMClassifier treats 0 as missing (zero_as_missing) and sends it "
                "against its threshold, which a rule 'x <= t' cannot express: fit it with "
                "zero_as_missing=False")
        arrays["feature"][i], arrays["threshold"][i] = int(node["split_feature"]), t
        arrays["left"][i] = index(node["left_child"])
        arrays["right"][i] = index(node["right_child"])
    return arrays


def _xgboost_names(estimator: Any) -> dict[str, int] | None:
    names = getattr(estimator.get_booster(), "feature_names", None)
    return None if names is None else {str(n): j for j, n in enumerate(names)}


def _xgboost_tree(root: dict[str, Any], names: dict[str, int] | None
                  ) -> dict[str, np.ndarray]:
    """An XGBoost tree (its JSON dump) as node arrays, indexed by XGBoost's node ids."""
    nodes: list[dict[str, Any]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        nodes.append(node)
        stack += node.get("children", [])
    arrays = _empty(max(n["nodeid"] for n in nodes) + 1)
    for node in nodes:
        i = node["nodeid"]
        if "leaf" in node:
            arrays["leaf"][i] = True
            continue
        if not isinstance(node.get("split_condition"), int | float):  # a category list
            _categorical("XGBClassifier")
        split = str(node["split"])
        arrays["feature"][i] = names[split] if names is not None else int(split.lstrip("f"))
        arrays["threshold"][i] = float32_below(float(node["split_condition"]))
        arrays["left"][i], arrays["right"][i] = node["yes"], node["no"]
    return arrays


def float32_below(split: float) -> float:
    """The float64 ``t`` with ``float32(x) < float32(split)`` exactly when ``x < t``: XGBoost
    compares its rows in float32, so ``x = 1.7`` is not below a split printed 1.70000005.
    ``t`` is the midpoint between the split's float32 and the float32 below it, or the next
    float64 above that midpoint when the midpoint itself rounds down."""
    s32 = np.float32(split)
    below = np.nextafter(s32, np.float32(-np.inf))
    mid = (float(below) + float(s32)) / 2.0  # exact: float32s are float64s with room to spare
    return mid if np.float32(mid) == s32 else float(np.nextafter(mid, np.inf))


def _empty(n: int) -> dict[str, np.ndarray]:
    return {"left": np.full(n, -1, np.int64), "right": np.full(n, -1, np.int64),
            "leaf": np.zeros(n, bool), "feature": np.zeros(n, np.int64),
            "threshold": np.zeros(n)}


def _categorical(name: str) -> None:
    raise OptreesInputError(
        f"this {name} has categorical splits (a set of categories per test), which rules of "
        "x <= t cannot express: fit it on numeric (e.g. one-hot) columns")
