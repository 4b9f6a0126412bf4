"""A binary tree on integer features with tests ``x[f] <= t`` and what an adversary pays to
move a row into each of its leaves (the robust trees of Justin et al.; ``optrees.robust``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class IntegerTree:
    """A heap-ordered tree (children of node ``n``: ``2n+1`` left, ``2n+2`` right).

    ``feature[n]``: the tested column (-1 at a leaf or an unused node), ``threshold[n]``: a
    row goes left when ``x[feature] <= threshold``; ``label[n]``: the class index predicted
    at a leaf (-1 elsewhere); ``classes``: the class labels; ``low`` / ``high``: each
    feature's smallest and largest training value, the range a perturbed value stays in.
    """

    feature: np.ndarray
    threshold: np.ndarray
    label: np.ndarray
    classes: np.ndarray
    low: np.ndarray
    high: np.ndarray
    feature_names: list[str]

    def leaves(self) -> list[int]:
        """The leaf nodes, left to right."""
        out: list[int] = []
        stack = [0]
        while stack:
            n = stack.pop()
            if self.feature[n] < 0:
                out.append(n)
            else:
                stack += [2 * n + 2, 2 * n + 1]
        return out

    @property
    def n_branches(self) -> int:
        """Number of branch (test) nodes."""
        return int((self.feature >= 0).sum())

    def apply(self, X: np.ndarray) -> np.ndarray:
        """The leaf node of each row of the integer matrix ``X``."""
        node = np.zeros(X.shape[0], dtype=np.int64)
        for _ in range(len(self.feature)):
            f = self.feature[node]
            inner = f >= 0
            if not inner.any():
                break
            rows = np.nonzero(inner)[0]
            right = X[rows, f[inner]] > self.threshold[node[inner]]
            node[rows] = 2 * node[rows] + 1 + right
        return node

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The class label of each row."""
        return self.classes[self.label[self.apply(X)]]

    def boxes(self) -> tuple[list[int], np.ndarray, np.ndarray]:
        """Leaves and their boxes ``lo[l, f] <= x[f] <= hi[l, f]``: the tests on the path
        met with the feature's training range (an empty box has some ``lo > hi``)."""
        leaves = self.leaves()
        lo = np.tile(self.low, (len(leaves), 1)).astype(np.float64)
        hi = np.tile(self.high, (len(leaves), 1)).astype(np.float64)
        for j, leaf in enumerate(leaves):
            n = leaf
            while n > 0:
                parent = (n - 1) // 2
                f, t = self.feature[parent], self.threshold[parent]
                if n == 2 * parent + 1:
                    hi[j, f] = min(hi[j, f], t)
                else:
                    lo[j, f] = max(lo[j, f], t + 1)
                n = parent
        return leaves, lo, hi

    def export_text(self) -> str:
        """The tree as indented text, one line per test and leaf."""
        lines: list[str] = []

        def walk(n: int, indent: str) -> None:
            if self.feature[n] < 0:
                value = self.classes[self.label[n]]
                value = value.item() if isinstance(value, np.generic) else value
                lines.append(f"{indent}predict {value!r}")
                return
            name, t = self.feature_names[self.feature[n]], int(self.threshold[n])
            lines.append(f"{indent}if {name} <= {t}:")
            walk(2 * n + 1, indent + "    ")
            lines.append(f"{indent}else:  # {name} >= {t + 1}")
            walk(2 * n + 2, indent + "    ")

        walk(0, "")
        return "\n".join(lines)
