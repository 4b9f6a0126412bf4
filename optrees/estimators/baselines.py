"""scikit-learn estimators for the baseline tree MIPs OCT and BinOCT (flowoct-benders.txt §4).

They share fit / predict / fitted attributes with :class:`FlowOCTClassifier`, so the optima of
all four methods are in the same units: ``objective_`` = (1 - lam) * correct - lam * splits.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeClassifier

from .._validation import OptreesInputError, check_depth, check_target, check_time_limit
from ..models.binary_tree import BinaryTree
from ..solvers.base import SolverOptions
from ..solvers.scip import ScipModel
from ..trees.baselines import OCT, BinOCT
from ..trees.formulation import (
    MAX_TREE_DEPTH,
    TREE_DEPTH_WHY,
    BuildTimeout,
    check_deadline,
    check_model_size,
)
from ..trees.problem import TreeProblem
from ._base import (
    build_deadline,
    check_seed,
    fit_frame,
    interruptible,
    logged_fit,
    solve_deadline,
    solver_time_left,
)
from .trees import _OptimalTreeClassifier


class OCTClassifier(_OptimalTreeClassifier):
    """Optimal classification tree by Bertsimas & Dunn's OCT MIP, specialized to binary data
    (big-M leaf error counts, one assignment variable per sample and leaf), solved by SCIP.

    Same objective as :class:`FlowOCTClassifier` ((1 - lam) * correct - lam * splits), so both
    reach the same optimum; OCT's LP relaxation is weaker (flowoct-benders.txt §2.2).
    """

    symmetry_breaking = True  # (OCT.11) d_n <= d_a(n) is part of the formulation

    def __init__(
        self,
        depth: int = 2,
        lam: float = 0.0,
        time_limit: float | None = 60.0,
        binarizer: Any = "auto",
        warm_start: bool = True,
        random_state: int | None = None,
        verbose: bool = False,
    ) -> None:
        self.depth = depth
        self.lam = lam
        self.time_limit = time_limit
        self.binarizer = binarizer
        self.warm_start = warm_start
        self.random_state = random_state
        self.verbose = verbose

    def _formulation(self, problem: TreeProblem) -> OCT:
        return OCT(problem)


@dataclass
class _RawColumns:
    """Column description read by :func:`optrees.io.save_model` (as CGH's ``encoder_``), so a
    tree on raw numeric columns can be saved and loaded."""

    specs: list[tuple[str, str, list]]


@dataclass
class _RawProblem:
    """What :meth:`_OptimalTreeClassifier._set_result` reads from a problem (raw columns)."""

    X: np.ndarray
    y: np.ndarray


@dataclass
class _RawTree:
    """A fitted tree on raw columns, with the interface of HeapTree used by ``_set_result``."""

    tree: BinaryTree

    def to_binary_tree(self, classes: np.ndarray) -> BinaryTree:
        return self.tree

    def objective(self, problem: _RawProblem) -> float:
        return float(np.sum(self.tree.predict_index(problem.X) == problem.y))


class BinOCTClassifier(_OptimalTreeClassifier):
    """Optimal classification tree by Verwer & Zhang's BinOCT MIP (binary-encoded thresholds,
    one big-M row per node, feature and threshold bit), solved by SCIP.

    BinOCT maximizes training accuracy of a full tree of the given depth (no split penalty:
    ``lam`` is fixed to 0), so ``objective_`` is the number of correctly classified training
    samples, as FlowOCT's at lam = 0.  By default it works on the binarized features (threshold
    0.5); ``raw_thresholds=True`` chooses thresholds on the numeric columns themselves (V&Z's
    setting: all midpoints between consecutive distinct values); then ``tree_`` tests
    ``column <= threshold`` and prediction needs the same numeric columns (``binarizer`` is
    not used then).
    """

    lam = 0.0  # fixed: BinOCT has no regularization
    symmetry_breaking = True

    def __init__(
        self,
        depth: int = 2,
        time_limit: float | None = 60.0,
        binarizer: Any = "auto",
        warm_start: bool = True,
        random_state: int | None = None,
        verbose: bool = False,
        raw_thresholds: bool = False,
    ) -> None:
        self.depth = depth
        self.time_limit = time_limit
        self.binarizer = binarizer
        self.warm_start = warm_start
        self.random_state = random_state
        self.verbose = verbose
        self.raw_thresholds = raw_thresholds

    def _formulation(self, problem: TreeProblem) -> BinOCT:
        return BinOCT.from_problem(problem)

    @logged_fit
    def fit(self, X: Any, y: Any) -> BinOCTClassifier:
        """Fit on binarized features, or on the raw numeric columns with ``raw_thresholds``."""
        if not isinstance(self.raw_thresholds, bool | np.bool_):
            raise OptreesInputError(
                f"raw_thresholds must be True or False, got {self.raw_thresholds!r}"
            )
        self.raw_ = bool(self.raw_thresholds)
        if not self.raw_:
            self.encoder_ = None
            return super().fit(X, y)
        return self._fit_raw(X, y)

    # ------------------------------------------------------------------ raw columns
    def _numeric(self, df: pd.DataFrame) -> np.ndarray:
        try:
            return df.to_numpy(dtype=float)
        except (TypeError, ValueError) as exc:
            raise OptreesInputError(
                "raw_thresholds=True needs numeric columns; binarize categorical data "
                "(raw_thresholds=False)"
            ) from exc

    def _features(self, X: Any) -> np.ndarray:
        if getattr(self, "raw_", False):
            return self._numeric(self._fitted_frame(X))
        return super()._features(X)

    def _fit_raw(self, X: Any, y: Any) -> BinOCTClassifier:
        t0 = time.perf_counter()
        depth = check_depth(self.depth, MAX_TREE_DEPTH, TREE_DEPTH_WHY)
        limit = check_time_limit(self.time_limit)
        seed = check_seed(self.random_state)
        deadline = solve_deadline(t0, limit)
        df = fit_frame(self, X)
        self.classes_, y_enc = check_target(y, df.shape[0])
        values = self._numeric(df)
        self.binarizer_ = None
        self.encoder_ = _RawColumns([("num", str(c), []) for c in df.columns])
        self.feature_names_ = [str(c) for c in df.columns]
        self.negated_names_ = [f"not {c}" for c in self.feature_names_]
        K = len(self.classes_)

        form = BinOCT(values, y_enc, K, depth)
        check_model_size(form.model_size(), f"BinOCTClassifier(raw_thresholds=True) at depth "
                         f"{depth} on {values.shape[0]} samples x {values.shape[1]} columns")
        with interruptible() as stop:
            model = ScipModel(SolverOptions(seed=seed, verbose=self.verbose))
            result, start = None, None
            try:
                t_build = time.perf_counter()
                form.build(model, deadline=build_deadline(deadline, t_build))
                if self.warm_start and not stop.requested:
                    check_deadline(deadline)
                    start = form.solution_values(*_cart_splits(form, values, y_enc, depth, seed))
                    model.add_start(start)
                remaining = solver_time_left(deadline, t_build)
                if (remaining is None or remaining > 0) and not stop.requested:
                    result = model.solve(remaining)
            except BuildTimeout:
                result = None
            finally:
                model.free()  # within the time limit (build_deadline keeps time for it)

        problem = _RawProblem(values, y_enc)
        candidates = []
        if start is not None:
            candidates.append(_raw_tree(form, start, self.classes_))
        if result is not None and result.values is not None:
            candidates.append(_raw_tree(form, result.values, self.classes_))
        if not candidates:  # time limit before any tree was found
            majority = int(np.argmax(np.bincount(y_enc, minlength=K)))
            candidates.append(_RawTree(BinaryTree.leaf(majority, self.classes_)))
        best = candidates[0]
        for cand in candidates[1:]:  # the solver's tree unless the start is strictly better
            if cand.objective(problem) >= best.objective(problem):
                best = cand
        self._set_result(problem, best, result, form, t0, stop.requested)
        return self


def _raw_tree(form: BinOCT, x: np.ndarray, classes: np.ndarray) -> _RawTree:
    feature, threshold, label = form.structure_from_values(x)
    split = {n + 1: int(f) for n, f in enumerate(feature) if f >= 0}
    thr = {n + 1: float(threshold[n]) for n, f in enumerate(feature) if f >= 0}
    lab = {n + 1: int(k) for n, k in enumerate(label)}
    return _RawTree(BinaryTree.from_heap(split, lab, classes, thr))


def _cart_splits(form: BinOCT, values: np.ndarray, y: np.ndarray, depth: int,
                 seed: int) -> tuple[np.ndarray, np.ndarray]:
    """CART (same depth) on the raw columns as BinOCT splits (feature, threshold code) per node;
    sklearn's thresholds are midpoints between training values, i.e. BinOCT candidates."""
    cart = DecisionTreeClassifier(max_depth=depth, random_state=seed).fit(values, y)
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
