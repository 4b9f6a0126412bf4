"""RUX's bound over *every* leaf of the ensemble when a deadline stopped reading its trees.

RUX's candidate rules are the leaves of the whole ensemble.  When the time limit stops the
reading (:func:`.ensemble.leaf_rules`), (3) is solved over the leaves of the trees read, and
its dual bound bounds that smaller LP, whose optimum may lie *above* the optimum over every
leaf (adult, DMC, 1 s: bound 9845.3, full optimum 9590).  A dual solution of the small LP
may violate the dual rows of the unread leaves (their reduced costs may be negative), so it
is no dual solution of the full LP until those leaves are priced.

Pricing needs only which rows each unread leaf covers (its tree's ``apply``, not its rules'
text), its class and cost.  The per-row duals ``beta`` (the small LP's, per cell spread over
the cell's rows in proportion to their weights: a dual solution of the per-row LP too) are
shrunk into every leaf's dual row -- the read leaves' too, at the whole ensemble's costs
(costs are divided by the largest leaf cost, which more leaves may raise) -- by
:func:`.certificate.feasible_duals` (per-leaf shrinking first: one common scale was 0 on
compas, where unread pure leaves cost 2e-8); ``sum(beta) - eps * sum(mu)`` is then a lower
bound on (3) over every leaf.  Costs of unread leaves not known without their rules
(``length``: the simplified conditions) are taken at their least (1) and the largest cost at
its most (the tree's depth): lower costs only lower the LP, so the bound stays valid.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from ..solvers.deadline import Deadline
from .certificate import feasible_duals
from .costs import ahat, raw_leaf_costs
from .ensemble import _DecisionTree


def every_leaf_duals(trees: list[Any], X: np.ndarray, y: np.ndarray, w: np.ndarray, K: int,
                     beta: np.ndarray, pen_par: float, rule_cost: str, cover: sp.spmatrix,
                     labels: np.ndarray, raw: np.ndarray, deadline: Deadline
                     ) -> np.ndarray | None:
    """Per-row duals ``beta`` (>= 0, within the ``v`` rows of the dual of (3)) shrunk into
    the dual row of every leaf of the ensemble (:func:`.certificate.feasible_duals`): the
    leaves read (rows ``cover``, n x m, classes ``labels``, raw costs ``raw``) and those of
    the unread ``trees`` (on rows ``X``, classes ``y`` of weights ``w``), all at costs
    divided by the largest of them; None when ``deadline`` passes before every tree is
    priced."""
    X32 = np.ascontiguousarray(X, dtype=np.float32)  # scikit-learn trees compare in float32
    n = len(y)
    cover = sp.coo_matrix(cover)
    rows, cols = [cover.row], [cover.col]
    entry_labels, costs = [np.asarray(labels)[cover.col]], [np.asarray(raw, dtype=float)]
    largest, m = float(np.max(raw)) if len(raw) else 0.0, cover.shape[1]
    for tree in trees:
        if deadline.expired():
            return None
        node = tree.apply(X32 if isinstance(tree, _DecisionTree) else X)
        _, leaf = np.unique(node, return_inverse=True)
        leaf = leaf.ravel()
        k = int(leaf.max()) + 1
        mass = np.bincount(leaf * K + y, weights=w, minlength=k * K).reshape(k, K)
        if rule_cost == "length":  # unknown without the rules' text: at least 1, at most
            costs.append(np.ones(k))  # the tree's depth
            largest = max(largest, float(tree.depth()))
        else:
            costs.append(raw_leaf_costs(rule_cost, mass, np.ones(k)))
            largest = max(largest, float(costs[-1].max()))
        rows.append(np.arange(n))
        cols.append(m + leaf)
        entry_labels.append(np.argmax(mass, axis=1)[leaf])
        m += k
    r, j = np.concatenate(rows), np.concatenate(cols)
    ahat_all = sp.csr_matrix((ahat(y[r], np.concatenate(entry_labels), K), (j, r)),
                             shape=(m, n))
    c = pen_par * np.concatenate(costs) / max(largest, 1e-300)
    return feasible_duals(ahat_all, c, beta)
