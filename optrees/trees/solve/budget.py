"""The policy tree under a treatment budget (issue #45): the budget front search
(:mod:`optrees.trees.search.binary.budget`) on the 0/1 columns, its result in the policy's
units (value per unit of weight minus ``lam`` per leaf, higher is better)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..._validation import OptreesInputError
from ...compiled import backend_for, small_subtree_fit
from ...encoding.binary import Encoding, binarize
from ...models.result import FitResult
from ...solvers.deadline import Deadline
from ..problem.objectives.policy import PolicyScores
from ..search.binary.budget import solve_budget_subtree
from ..search.binary.fair import MAX_FAIR_DEPTH
from ..search.binary.warmup import compile_kernels, kernels_loaded, kernels_ready
from .fit import FAIR_BINS, fair_cuts, min_leaf_rows


def solve_budgeted(df: pd.DataFrame, scores: PolicyScores, t: np.ndarray,
                   w: np.ndarray | None, budget: dict[int, float], p: Any,
                   deadline: Deadline, guard: Any, names: Any = None
                   ) -> tuple[FitResult, Encoding]:
    """The policy tree of the most value per unit of weight minus ``lam`` per leaf whose
    leaves give each treatment ``k`` of ``budget`` to at most ``budget[k]`` of the weight,
    over the 0/1 columns of ``p.binarizer`` (``objective_`` and ``bound_`` in the
    estimator's units; ``names``: the treatments' labels, for the status text)."""
    if p.depth > MAX_FAIR_DEPTH:
        raise OptreesInputError(f"a treatment budget takes depth <= {MAX_FAIR_DEPTH} (the "
                                f"front search's), got depth={p.depth}")
    K = scores.gamma.shape[1]
    # as under fairness: every threshold of the columns with the fewest values, while the
    # 0/1 columns stay within what the front search takes; FAIR_BINS quantile cuts elsewhere
    auto = isinstance(p.binarizer, str) and p.binarizer == "auto"
    X, encoding = binarize(df, p.binarizer, w, FAIR_BINS if auto else None,
                           fair_cuts(df, p.depth, None) if auto else None)
    ones = np.ones(len(t)) if w is None else np.asarray(w, dtype=np.float64)
    W = float(ones.sum())
    floor = scores.gamma.min(axis=1)
    gains = ones[:, None] * (scores.gamma - floor[:, None])  # value - sum_i w_i floor_i
    base = float(ones @ floor)
    backend = backend_for(deadline, kernels_ready, compile_kernels,
                          small_subtree_fit(*X.shape, p.depth), kernels_loaded)
    with guard(deadline):
        found = solve_budget_subtree(X, gains, p.depth, budget, ones, p.lam * W,
                                     min_leaf_rows(p.min_samples_leaf, len(t)),
                                     p.max_leaves, deadline, backend)
    if not np.isfinite(found.score):
        raise OptreesInputError(
            f"no policy tree of depth <= {p.depth} meets treatment_budget {budget} on these "
            "rows" + (" (proven: every treatment is budgeted and no split of the rows "
                      "keeps every share)" if found.optimal else
                      " found before the time limit"))
    tree = found.tree.to_binary_tree(np.arange(K))
    tree.feature_names, tree.negated_names = list(encoding.names), list(encoding.negated)
    tree.set_counts(X, t, w)
    predicted = tree.predict_index(X)
    objective = scores.value(predicted, w) / W - p.lam * tree.n_leaves
    status = "optimal" if found.optimal else "time_limit"
    bound = objective if found.optimal else max(objective, (found.bound + base) / W)
    stats = {"search_seconds": found.stats["seconds"], "search_nodes": found.stats["nodes"],
             "search_optimal": found.optimal, "search_backend": "fronts",
             "search_multipliers": found.stats["multipliers"], "bb_nodes": 0,
             "objective": "policy value per unit of weight - lam * leaves (higher is "
                          "better)",
             "side_constraints": "; ".join(
                 f"treatment {k if names is None else names[k]} given to at most {s:g} of "
                 "the weight" for k, s in sorted(budget.items()))}
    if encoding.lossy(df):
        stats["every_threshold"] = "off: treatment budget, over the binarizer's cuts"
    return FitResult(tree, status, objective, bound, found.stats["seconds"], stats), encoding
