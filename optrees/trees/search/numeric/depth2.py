"""The optimal depth-≤2 tree of one subset that beats a floor (the bottom of the deep search).

Wraps the depth-2 root search of :mod:`.search` (ConTree's specialized depth-two solver,
arXiv 2501.07903, §4.3) for a subset reached inside a deeper tree: the caller passes a floor
(what the subtree must exceed to matter, as ConTree passes its upper bound down), and gets
``max(floor, optimum)`` and the tree when it beats the floor.
"""

from __future__ import annotations

import numpy as np

from .context import Context, Subset
from .depth1 import ChildTree, FeatureSplits, best_child, split_threshold
from .evaluate import StumpFinder, make_evaluator
from .search import search_root
from .tree import Node

__all__ = ["leaf_node", "root_split_tree", "solve_depth2", "stump_node"]


def leaf_node(sub: Subset) -> Node:
    """The majority leaf of the subset."""
    return Node(sub.majority)


def stump_node(child: ChildTree, majority: int) -> Node:
    """A :class:`.depth1.ChildTree` (leaf or stump) as a :class:`Node`."""
    if child.feature < 0:
        return Node(child.classes[0])
    return Node(majority, child.feature, child.threshold, Node(child.classes[0]),
                Node(child.classes[1]))


def solve_depth2(ctx: Context, sub: Subset, floor: float,
                 finder: StumpFinder | None = None, whole: FeatureSplits | None = None,
                 incumbent: tuple[float, Node] | None = None,
                 ceiling: float = np.inf) -> tuple[float, Node | None]:
    """``(max(floor, v), tree)``: ``v`` the optimal depth-≤2 objective of the subset and
    ``tree`` its tree when ``v > floor`` (else None, and ``floor`` bounds ``v`` from above).

    ``finder``/``whole``: the subset's :class:`.evaluate.StumpFinder` and its best stump per
    feature, when the caller already has them;
    ``incumbent``: a depth-≤2 tree of the subset and its score (a head start); ``ceiling``: a
    known upper bound on ``v`` (the search stops once a tree reaches it).  Checks the deadline
    before every evaluated root split (:class:`.context.Interrupted`).
    """
    pen, eps = ctx.pen, ctx.eps
    if sub.total - pen <= floor + eps:           # even a perfect leaf cannot beat the floor
        return floor, None
    best_val, best_tree = floor, None
    if incumbent is not None and incumbent[0] > floor + eps:
        best_val, best_tree = incumbent
        if best_val >= ceiling - eps:
            return best_val, best_tree
    if finder is None:
        finder = StumpFinder(sub.view, sub.ys, sub.ws, sub.cw, ctx.backend, ctx.min_leaf)
    if whole is None:
        whole = finder()
    shallow = best_child(whole, pen)
    if shallow.objective > best_val + eps:
        best_val, best_tree = shallow.objective, stump_node(shallow, sub.majority)
    # a tree with a root split and a split below has ≥ 3 leaves
    if sub.view.n < max(3, 3 * ctx.min_leaf) or \
            min(ceiling, sub.total - 3.0 * pen) <= best_val + eps:
        return best_val, best_tree
    evaluate = make_evaluator(sub.view, sub.ys, sub.ws, sub.cw, pen, eps, ctx.backend,
                              np.argsort(-whole.correct, kind="stable"), finder.arrays,
                              ctx.min_leaf)
    found = search_root(sub.view, sub.ws, whole, shallow.objective, pen, best_val, evaluate,
                        eps, ceiling, check=ctx.check)
    ctx.evaluations += found.evaluations
    if found.feature < 0:
        return best_val, best_tree
    return found.objective, root_split_tree(ctx, sub, finder, found.feature, found.rank)


def root_split_tree(ctx: Context, sub: Subset, finder: StumpFinder, f: int, r: int,
                    leaf_side: int = -1) -> Node:
    """The depth-2 tree splitting the subset at ``rank[f] <= r`` with optimal depth-≤1
    children (child ``leaf_side``, 0 or 1, a leaf; -1 none)."""
    left = sub.view.rank[f] <= r
    children = []
    for side, member in enumerate((left, ~left)):
        majority = int(sub.cw[member].sum(axis=0).argmax())
        children.append(Node(majority) if side == leaf_side else
                        stump_node(best_child(finder(member), ctx.pen), majority))
    return Node(sub.majority, f, split_threshold(sub.view.X[:, f], left), children[0],
                children[1])
