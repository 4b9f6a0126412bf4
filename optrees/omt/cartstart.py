"""CART's trees as OMT rule sets: starts that make OMT never worse than CART over its bins.

A scikit-learn CART tree of ``depth`` is fitted on the bin codes of the numeric (and
ordinal) levels, each row weighted as the loss weights it; thresholds on codes fall on bin
boundaries, so every leaf is a conjunction of runs of bins, one run per level: a rule of the
feature graph when its bins are cumulative (every run a node).  Its truncations at depths
1, ..., ``depth`` are the start partitions; with ``n_bins="auto"`` the bins hold the thresholds
of the CART tree on the raw values (:func:`~optrees.omt.graph.data_thresholds`), so these are
CART's own trees.  A partition that breaks a rule limit (leaves, support, feature rules) is
left out: the master's MIP start needs feasible rule sets.  (CART grown under the support
rule is the greedy start of :mod:`.warmstart`: best-first splits by CART's criteria, no leaf
below ``min_support``, over bins that hold that tree's thresholds too.)
"""

from __future__ import annotations

import numpy as np
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from .graph import Graph
from .pricing import Pricer, Steps


def cart_partitions(graph: Graph, y: np.ndarray, weights: np.ndarray, depth: int,
                    leaves: int, pricer: Pricer, n_count: np.ndarray, regression: bool
                    ) -> list[list[Steps]]:
    """The leaves of CART's depth-1..``depth`` trees on the numeric levels' codes as rules of
    ``graph`` (``weights``: the rows' loss weights; ``pricer``: the rule limits over the units
    of ``n_count`` samples); the truncations that are not feasible rule sets are left out."""
    numeric = [g for g, lv in enumerate(graph.levels) if lv.kind == "numeric"]
    if not numeric or len(y) < 2 or not (weights > 0).any():
        return []
    codes = graph.codes[:, numeric].astype(np.float32)
    model = DecisionTreeRegressor if regression else DecisionTreeClassifier
    tree = model(max_depth=depth, random_state=0).fit(codes, y, sample_weight=weights).tree_
    node_index = [{nd.tobytes(): v for v, nd in enumerate(lv.nodes)} for lv in graph.levels]
    parts: list[list[Steps]] = []
    for k in range(1, depth + 1):
        boxes = _leaf_boxes(tree, 0, k, {})
        rules = [_rule(box, numeric, graph, node_index) for box in boxes]
        if (len(rules) < 2 or len(rules) > leaves or any(r is None for r in rules)
                or not all(_feasible(pricer, n_count, r) for r in rules)):
            continue
        if rules not in parts:
            parts.append(rules)  # (a tree shallower than k repeats the last partition)
    return parts


def _leaf_boxes(tree, node: int, depth_left: int, box: dict[int, tuple[float, float]]
                ) -> list[dict[int, tuple[float, float]]]:
    """Per leaf of ``tree`` truncated after ``depth_left`` more splits: the interval
    (low, high] of the codes of each column its path tests (``x <= t`` goes left)."""
    left, right = tree.children_left[node], tree.children_right[node]
    if left < 0 or depth_left == 0:
        return [box]
    j, t = int(tree.feature[node]), float(tree.threshold[node])
    lo, hi = box.get(j, (-np.inf, np.inf))
    return (_leaf_boxes(tree, left, depth_left - 1, {**box, j: (lo, min(hi, t))})
            + _leaf_boxes(tree, right, depth_left - 1, {**box, j: (max(lo, t), hi)}))


def _rule(box: dict[int, tuple[float, float]], numeric: list[int], graph: Graph,
          node_index: list[dict[bytes, int]]) -> Steps | None:
    """The rule of one leaf box: per tested level the node of its run of codes (None when the
    graph has no such node, e.g. single bins)."""
    steps = []
    for j, (lo, hi) in sorted(box.items()):
        g = numeric[j]
        codes = np.arange(graph.levels[g].n_codes)
        run = (codes > lo) & (codes <= hi)
        if run.all():
            continue
        v = node_index[g].get(run.tobytes())
        if v is None:
            return None
        steps.append((g, v))
    return tuple(steps)


def _feasible(pricer: Pricer, n_count: np.ndarray, steps: Steps) -> bool:
    """Whether a rule meets the pricer's limits: length, support, feature rules, budget."""
    if len(steps) > pricer.depth or pricer.path_cost(steps) > pricer.rule_budget + 1e-12:
        return False
    if float(n_count[pricer.cover(steps)].sum()) < pricer.min_count - 1e-9:
        return False
    used = np.zeros((1, pricer.k), dtype=bool)
    for g, _ in steps:  # levels in path order: each must be allowed after the earlier ones
        if not pricer.allowed(used)[0, g]:
            return False
        used[0, g] = True
    return True
