"""RUX's bound over *every* leaf of the ensemble when a deadline stopped reading its trees.

RUX's candidate rules are the leaves of the whole ensemble.  When the time limit stops the
reading (:func:`.ensemble.leaf_rules`), (3) is solved over the leaves of the trees read, and
its dual bound bounds that smaller LP, whose optimum may lie *above* the optimum over every
leaf (adult, DMC, 1 s: bound 9845.3, full optimum 9590).  A dual solution of the small LP
may violate the dual rows of the unread leaves (their reduced costs may be negative), so it
is no dual solution of the full LP until those leaves are priced.

Pricing needs only which rows each unread leaf covers (its tree's ``apply``, not its rules'
text), its class and cost.  With per-row duals ``beta`` (the small LP's, per cell spread over
the cell's rows in proportion to their weights: a dual solution of the per-row LP too) and
``mu``, one scale ``f <= 1`` of ``beta`` meets every unread leaf's row and the read leaves'
rows at the full ensemble's costs (costs are divided by the largest leaf cost, which more
leaves may raise); ``f * sum(beta) - eps * sum(mu)`` is then a lower bound on (3) over every
leaf.  Costs of unread leaves not known without their rules (``length``: the simplified
conditions) are taken at their least (1) and the largest cost at its most (the tree's depth):
lower costs only lower the LP, so the bound stays valid.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..solvers.deadline import Deadline
from .costs import ahat, raw_leaf_costs
from .ensemble import _DecisionTree


def unread_scale(trees: list[Any], X: np.ndarray, y: np.ndarray, w: np.ndarray, K: int,
                 beta: np.ndarray, pen_par: float, rule_cost: str, read_max: float,
                 deadline: Deadline) -> float | None:
    """The scale ``f`` in [0, 1] that makes per-row duals ``beta`` (>= 0, within every dual
    row of the leaves read at costs divided by ``read_max``, their largest raw cost) meet
    the dual rows of every leaf of ``trees`` (the unread ones, on rows ``X``, labels ``y``
    of weights ``w``) and of the read leaves at the whole ensemble's costs; None when
    ``deadline`` passes before every tree is priced."""
    X32 = np.ascontiguousarray(X, dtype=np.float32)  # scikit-learn trees compare in float32
    largest, least = read_max, np.inf  # largest raw cost; least of c_j / load_j (raw)
    for tree in trees:
        if deadline.expired():
            return None
        node = tree.apply(X32 if isinstance(tree, _DecisionTree) else X)
        _, leaf = np.unique(node, return_inverse=True)
        leaf = leaf.ravel()
        m = int(leaf.max()) + 1
        mass = np.bincount(leaf * K + y, weights=w, minlength=m * K).reshape(m, K)
        labels = np.argmax(mass, axis=1)
        load = np.bincount(leaf, weights=beta * ahat(y, labels[leaf], K), minlength=m)
        if rule_cost == "length":  # unknown without the rules' text: at least 1, at most
            raw = np.ones(m)  # the depth
            largest = max(largest, float(tree.depth()))
        else:
            raw = raw_leaf_costs(rule_cost, mass, np.ones(m))
            largest = max(largest, float(raw.max()))
        up = load > 0
        if up.any():
            least = min(least, float(np.min(raw[up] / load[up])))
    # rows at the full costs: read leaves c_j read_max / largest, unread pen_par raw / largest
    return float(min(1.0, read_max / largest, pen_par * least / largest))
