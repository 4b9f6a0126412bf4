"""Merging the equal branches of a multiway tree built from rules, so that it prints the
model's structure rather than every combination of the rules' tests.

:meth:`MultiwayTree.from_rules` splits on the features of the rules in turn and copies a
rule that does not test a feature into every branch of that feature's split; where no
training row lies, branches then repeat the same prediction (an OMT regressor of depth 3 on
30 rows printed 502 leaves, 476 of them empty, for 8 rules).  :func:`merged` joins sibling
branches whose subtrees predict alike everywhere (adjacent intervals of a numeric level, any
values of a categorical one) and drops a split whose branches all merge: every row reaches
the same prediction as before, and counts add up.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Nodes:
    """A multiway tree's node lists, as :meth:`MultiwayTree.from_rules` builds them."""

    feature: list[int]
    children: list[list[tuple[list[int], int]]]
    value: list[float]
    counts: list[list[float]]
    rule: list[int]
    canon: dict[tuple, int] = field(default_factory=dict)  # subtree key -> its class id
    key: dict[int, int] = field(default_factory=dict)  # node -> its subtree's class id

    def add_counts(self, into: int, other: int, classifier: bool) -> None:
        """Add the counts of subtree ``other`` to the equal subtree ``into``, node by node."""
        a, b = self.counts[into], self.counts[other]
        if classifier:
            self.counts[into] = [x + y for x, y in zip(a, b, strict=True)]
        elif a[0] + b[0] > 0:  # regression: [weight, mean]
            self.counts[into] = [a[0] + b[0], (a[0] * a[1] + b[0] * b[1]) / (a[0] + b[0])]
        for (_, x), (_, y) in zip(self.children[into], self.children[other], strict=True):
            self.add_counts(x, y, classifier)

    def class_of(self, n: int) -> int:
        """The class id of node ``n``'s subtree: equal ids predict alike on every row."""
        if self.feature[n] < 0:
            k: tuple = ("leaf", self.rule[n], self.value[n])
        else:
            k = (self.feature[n], tuple((tuple(c), self.key[ch]) for c, ch in self.children[n]))
        self.key[n] = self.canon.setdefault(k, len(self.canon))
        return self.key[n]


def _merge(nodes: Nodes, n: int, numeric: list[bool], classifier: bool) -> int:
    """Node ``n`` with its children merged (bottom-up): the node that replaces it
    (``numeric[f]``: level f is numeric, whose branches merge only when adjacent)."""
    if nodes.feature[n] < 0:
        nodes.class_of(n)
        return n
    adjacent = numeric[nodes.feature[n]]
    groups: list[tuple[list[int], int]] = []
    for codes, child in nodes.children[n]:
        ch = _merge(nodes, child, numeric, classifier)
        same = [g for g in (groups[-1:] if adjacent else groups)
                if nodes.key[g[1]] == nodes.key[ch]]
        if same:
            same[0][0].extend(codes)
            nodes.add_counts(same[0][1], ch, classifier)
        else:
            groups.append((list(codes), ch))
    if len(groups) == 1:  # every branch predicts alike: the split tests nothing
        return groups[0][1]
    nodes.children[n] = [(sorted(c), ch) for c, ch in groups]
    nodes.class_of(n)
    return n


def _renumbered(nodes: Nodes, root: int) -> Nodes:
    """The nodes reachable from ``root``, numbered parents first (root 0)."""
    order, new = [], {}
    stack = [root]
    while stack:
        n = stack.pop()
        new[n] = len(order)
        order.append(n)
        stack.extend(ch for _, ch in reversed(nodes.children[n]))
    return Nodes([nodes.feature[n] for n in order],
                 [[(c, new[ch]) for c, ch in nodes.children[n]] for n in order],
                 [nodes.value[n] for n in order], [nodes.counts[n] for n in order],
                 [nodes.rule[n] for n in order])


def merged(nodes: Nodes, numeric: list[bool], classifier: bool) -> Nodes:
    """``nodes`` (root 0) with the equal branches of every split merged (``numeric[f]``:
    level f is numeric, whose branches merge only when adjacent, so that each branch stays
    one interval)."""
    return _renumbered(nodes, _merge(nodes, 0, numeric, classifier))
