"""BinOCT on the raw numeric columns ([FlowOCT] §4's baseline in Verwer & Zhang's own setting):
every midpoint between consecutive distinct values is a candidate threshold."""

from __future__ import annotations

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from ..._logging import solved
from ...models.binary_tree import BinaryTree
from ...models.result import FitResult
from ...solvers.deadline import Deadline
from ...solvers.scip import ScipModel
from ..mip.binoct import BinOCT
from ..mip.formulation import check_model_size
from .binary import mip_result, run_scip


def solve_binoct_raw(values: np.ndarray, y: np.ndarray, classes: np.ndarray,
                     names: list[str], depth: int, deadline: Deadline, seed: int = 0,
                     verbose: int = 0, warm_start: bool = True,
                     sample_weight: np.ndarray | None = None) -> FitResult:
    """Best BinOCT tree on the numeric matrix ``values`` (columns ``names``) found within
    ``deadline``; its objective is the number (weight) of correctly classified rows.  The warm start
    is CART of the same depth (its thresholds are BinOCT candidates); the solver's tree
    replaces it unless the start is strictly better."""
    K = len(classes)
    form = BinOCT(values, y, K, depth, sample_weight)
    w = form.w
    check_model_size(form.model_size(), f"BinOCTClassifier(raw_thresholds=True) at depth "
                     f"{depth} on {values.shape[0]} samples x {values.shape[1]} columns")
    start = None

    def add_start(model: ScipModel) -> None:
        nonlocal start
        start = form.solution_values(*_cart_splits(form, values, y, w, depth, seed))
        model.add_start(start)

    result = run_scip(form, deadline, seed, verbose, add_start if warm_start else None)
    solved("MIP", result)
    candidates = [_tree(form, x, classes) for x in (start, None if result is None
                                                     else result.values) if x is not None]
    if not candidates:  # time limit before any tree was found
        majority = int(np.argmax(np.bincount(y, weights=w, minlength=K)))
        candidates.append(BinaryTree.leaf(majority, classes))
    best, best_correct = candidates[0], _correct(candidates[0], values, y, w)
    for tree in candidates[1:]:  # the solver's tree unless the start is strictly better
        if _correct(tree, values, y, w) >= best_correct:
            best, best_correct = tree, _correct(tree, values, y, w)
    best.feature_names = list(names)
    best.negated_names = [f"not {c}" for c in names]
    best.set_counts(values, y, sample_weight)
    return mip_result(best, best_correct, result, getattr(form, "stats", {}))


def _correct(tree: BinaryTree, values: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    return float(w[tree.predict_index(values) == y].sum())


def _tree(form: BinOCT, x: np.ndarray, classes: np.ndarray) -> BinaryTree:
    feature, threshold, label = form.structure_from_values(x)
    split = {n + 1: int(f) for n, f in enumerate(feature) if f >= 0}
    thr = {n + 1: float(threshold[n]) for n, f in enumerate(feature) if f >= 0}
    lab = {n + 1: int(k) for n, k in enumerate(label)}
    return BinaryTree.from_heap(split, lab, classes, thr)


def _cart_splits(form: BinOCT, values: np.ndarray, y: np.ndarray, w: np.ndarray, depth: int,
                 seed: int) -> tuple[np.ndarray, np.ndarray]:
    """CART (same depth) on the raw columns as BinOCT splits (feature, threshold code) per node;
    sklearn's thresholds are midpoints between training values, i.e. BinOCT candidates."""
    cart = DecisionTreeClassifier(max_depth=depth, random_state=seed).fit(values, y,
                                                                          sample_weight=w)
    t = cart.tree_
    feature = np.zeros(form.n_internal, dtype=np.int64)
    code = np.zeros(form.n_internal, dtype=np.int64)
    stack = [(0, 1)]
    while stack:
        idx, h = stack.pop()
        if t.children_left[idx] != -1 and h <= form.n_internal:
            j = int(t.feature[idx])
            th = form.thresholds[j]
            feature[h - 1] = j
            code[h - 1] = int(np.argmin(np.abs(th - t.threshold[idx])))
            stack += [(int(t.children_left[idx]), 2 * h), (int(t.children_right[idx]), 2 * h + 1)]
    return feature, code
