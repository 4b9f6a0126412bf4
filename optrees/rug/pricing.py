"""Tree pricing ([RUG] §3.4, the proxy pricing subproblem): rules from dual-weighted trees.

A scikit-learn decision tree of depth ``max_depth`` is fitted with ``sample_weight = beta``
(Lemma 1: beta_i > 0 only for samples with positive slack or on the margin); every leaf is a
rule, the conjunction of the conditions on its path on the raw features.  Which leaf rules
enter the pool, and with which class, the generation loop decides by their reduced cost (5).
"""

from __future__ import annotations

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from ..encoding.columns import RawColumns
from ..models.rule_set import Literal, simplify_literals


def split_literal(raw: RawColumns, j: int, threshold: float, left: bool) -> Literal:
    """The literal of one side of a tree split on column j of ``raw.matrix``: ``x <= t`` /
    ``x > t`` for a numeric column, ``col != v`` / ``col == v`` for a one-hot column."""
    name, kind, value = raw.encoded[j]
    if kind == "num":
        return Literal(name, "<=" if left else ">", float(threshold))
    return Literal(name, "!=" if left else "==", value)


def tree_leaf_rules(tree: DecisionTreeClassifier, raw: RawColumns) -> list[tuple[Literal, ...]]:
    """The conjunction of conditions on the path to each leaf (redundant conditions dropped)."""
    t = tree.tree_
    out: list[tuple[Literal, ...]] = []
    stack: list[tuple[int, tuple[Literal, ...]]] = [(0, ())]
    while stack:
        node, path = stack.pop()
        left, right = t.children_left[node], t.children_right[node]
        if left == -1:
            out.append(simplify_literals(path, raw.names))
            continue
        f, thr = int(t.feature[node]), float(t.threshold[node])
        stack.append((right, path + (split_literal(raw, f, thr, left=False),)))
        stack.append((left, path + (split_literal(raw, f, thr, left=True),)))
    return out


class TreePricer:
    """Callable pricer: the leaf rules of a tree fitted with the given sample weights (None:
    unweighted, for the initial rules)."""

    def __init__(self, raw: RawColumns, y: np.ndarray, max_depth: int, random_state: int) -> None:
        self.raw = raw
        self.X = np.ascontiguousarray(raw.matrix, dtype=np.float32)  # sklearn's dtype
        # a finite float32 C-contiguous X needs no validation by each tree (a third of a
        # tree's fit time on small data); with NaN sklearn must see it to route missing values
        self.check_input = not bool(np.isfinite(self.X).all())
        self.y = y
        self.max_depth = max_depth
        self.random_state = random_state
        self.n_trees = 0

    def __call__(self, sample_weight: np.ndarray | None) -> list[tuple[Literal, ...]]:
        # a new seed per round, as a new random tree (sklearn breaks ties between equally
        # good splits by a seeded feature order; one seed repeats the same choice each round)
        self.n_trees += 1
        tree = DecisionTreeClassifier(max_depth=self.max_depth,
                                      random_state=self.random_state + self.n_trees)
        X, y, weight = self.X, self.y, sample_weight
        if weight is not None:  # samples of zero weight change no split: leave them out
            rows = np.flatnonzero(weight > 0)
            X, y, weight = X[rows], y[rows], weight[rows]
        tree.fit(X, y, sample_weight=weight, check_input=self.check_input)
        return tree_leaf_rules(tree, self.raw)
