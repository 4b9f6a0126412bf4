"""The exact search for the optimal robust tree: complete structures by decreasing bound
(:mod:`.streams`; nominal accuracy first, then the sides' robust values, see the package
docstring), each structure's leaf labellings by decreasing nominal accuracy, each labelling's
worst case by the adversary's knapsack (:mod:`.adversary`); it stops when the next bound
cannot beat the best worst case (certified) or at the deadline."""

from __future__ import annotations

import itertools
import math
import time
from typing import Any

import numpy as np

from ..models.result import FitResult
from ..models.robust_tree import IntegerTree
from ..solvers.deadline import Deadline
from .adversary import box_distances, flipped_weight, misclassification_costs
from .streams import structures

MAX_LABELLINGS = 1 << 16  # classes ** leaves; more is refused by the estimator
CHUNK = 256  # labellings whose worst case is computed at once
SIDE_CHUNK = 32  # the same for a side's structure, whose best labelling comes early
SIDE_SHARES = (0.0, 1.0)  # shares of the budget the root bound gives the left side
FIRST_SHARE = 0.01  # of the time: structures by nominal bound alone, a first incumbent
WARM_SHARE = 0.2  # of the time: structures by nominal bound first, for an incumbent


def split_table(low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every test ``x[f] <= t``, ``t`` in ``low_f .. high_f - 1``: features and thresholds."""
    feats = [f for f in range(len(low)) for _ in range(int(low[f]), int(high[f]))]
    thresholds = [t for f in range(len(low)) for t in range(int(low[f]), int(high[f]))]
    return np.array(feats, dtype=np.int64), np.array(thresholds, dtype=np.int64)


def _flatten(structure: Any, depth: int) -> np.ndarray:
    """The split index of each internal node of a complete tree, in heap order."""
    out = np.empty(2 ** depth - 1, dtype=np.int64)
    stack = [(0, structure)]
    while stack:
        node, (s, left, right) = stack.pop()
        out[node] = s
        if left is not None:
            stack += [(2 * node + 1, left), (2 * node + 2, right)]
    return out


def _branch_counts(labellings: np.ndarray, depth: int) -> np.ndarray:
    """Branch nodes left in each labelled complete tree once every subtree whose leaves
    share one label is a leaf."""
    count = np.zeros(len(labellings), dtype=np.int64)
    width = 2
    while width <= labellings.shape[1]:
        blocks = labellings.reshape(len(labellings), -1, width)
        count += (blocks != blocks[:, :, :1]).any(axis=2).sum(axis=1)
        width *= 2
    return count


class RobustSearch:
    """One search: the data as integer matrix ``X``, class indices ``y`` (of ``n_classes``),
    ``costs`` ``(n, F)``, ``budget`` and ``lam`` (penalty per branch node, accuracy units);
    ``low`` / ``high``: the range perturbed values stay in (default: the rows' range);
    ``weights``: positive row weights (None: 1 each; the copies' model of
    :mod:`.adversary`). Scores are in units of weight."""

    def __init__(self, X: np.ndarray, y: np.ndarray, n_classes: int, costs: np.ndarray,
                 budget: float, depth: int, lam: float, low: np.ndarray | None = None,
                 high: np.ndarray | None = None, weights: np.ndarray | None = None) -> None:
        self.X, self.y, self.K, self.costs = X, y, n_classes, costs
        self.budget, self.depth, self.weights = budget, depth, weights
        self.n = float(len(y)) if weights is None else float(weights.sum())  # total weight
        self.penalty = lam * self.n  # in weight per branch node
        self.low = X.min(axis=0) if low is None else low
        self.high = X.max(axis=0) if high is None else high
        self.feat, self.thr = split_table(self.low, self.high)
        self.goes_left = X[:, self.feat] <= self.thr[None, :]
        self.onehot = np.eye(n_classes)[y]
        if weights is not None:
            self.onehot *= weights[:, None]
        L = 2 ** depth
        self.labellings = np.array(list(itertools.product(range(n_classes), repeat=L)),
                                   dtype=np.int64)
        self.branches = _branch_counts(self.labellings, depth)
        self.best = (-math.inf, None)  # (score in rows, (splits, labelling))
        self.stats = {"structures": 0, "labellings": 0, "side_solves": 0,
                      "side_structures": 0}
        self.deadline: Deadline | None = None
        self._caps: list[float] | None = None

    def constant(self) -> None:
        """The one-leaf trees: no leaf of another label, so nothing can be flipped."""
        counts = np.bincount(self.y, weights=self.weights, minlength=self.K)
        k = int(np.argmax(counts))
        self.best = (float(counts[k]), (np.full(2 ** self.depth - 1, -1), np.full(
            2 ** self.depth, k)))

    def boxes(self, splits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The leaves' boxes of a complete tree, left to right (training range met)."""
        return self.boxes_of(self.feat[splits], self.thr[splits])

    def boxes_of(self, feat: np.ndarray, thr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The leaves' boxes of the complete tree testing ``x[feat[n]] <= thr[n]`` at node
        ``n`` (heap order), met with this search's range."""
        L = 2 ** self.depth
        lo = np.tile(self.low, (L, 1)).astype(np.float64)
        hi = np.tile(self.high, (L, 1)).astype(np.float64)
        for j in range(L):
            node = L - 1 + j
            while node > 0:
                parent = (node - 1) // 2
                f, t = feat[parent], thr[parent]
                if node == 2 * parent + 1:
                    hi[j, f] = min(hi[j, f], t)
                else:
                    lo[j, f] = max(lo[j, f], t + 1)
                node = parent
        return lo, hi

    def best_value(self, feat: np.ndarray, thr: np.ndarray) -> float:
        """Worst-case correct rows of the best labelling of one structure (no penalty):
        labellings by decreasing nominal accuracy, until that bound meets the best."""
        lo, hi = self.boxes_of(feat, thr)
        nominal = self._nominal(lo, hi)
        order = np.argsort(-nominal, kind="stable")
        dist = box_distances(self.X.astype(np.float64), self.costs, lo, hi)
        best = 0.0
        for start in range(0, len(order), SIDE_CHUNK):
            chunk = order[start:start + SIDE_CHUNK]
            chunk = chunk[nominal[chunk] > best + 1e-9]
            if chunk.size == 0:
                break
            c = misclassification_costs(dist, self.labellings[chunk], self.y)
            best = max(best, float(self.n - self.flipped(c).min()))
        return best

    def _nominal(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Correct rows of each labelling of the leaves' boxes ``lo``, ``hi`` (no shift)."""
        inside = ((self.X[:, None, :] >= lo[None]) & (self.X[:, None, :] <= hi[None])).all(2)
        counts = inside.T.astype(np.float64) @ self.onehot  # (L, K)
        return counts[np.arange(counts.shape[0]), self.labellings].sum(axis=1)

    def flipped(self, c: np.ndarray) -> np.ndarray:
        """Most weight the adversary misclassifies, for each labelling's costs ``c``."""
        return flipped_weight(c, self.weights, self.budget)

    def evaluate(self, splits: np.ndarray) -> None:
        """Every labelling of one structure whose nominal bound beats the best so far."""
        self.stats["structures"] += 1
        lo, hi = self.boxes(splits)
        nominal = self._nominal(lo, hi)
        upper = nominal - self.penalty * self.branches
        keep = np.nonzero(upper > self.best[0] + 1e-9)[0]
        if keep.size == 0:
            return
        keep = keep[np.argsort(-upper[keep], kind="stable")]
        dist = box_distances(self.X.astype(np.float64), self.costs, lo, hi)
        for start in range(0, keep.size, CHUNK):
            chunk = keep[start:start + CHUNK]
            chunk = chunk[upper[chunk] > self.best[0] + 1e-9]
            if chunk.size == 0:
                return
            self.stats["labellings"] += int(chunk.size)
            c = misclassification_costs(dist, self.labellings[chunk], self.y)
            score = self.n - self.flipped(c) - self.penalty * self.branches[chunk]
            b = int(np.argmax(score))
            if score[b] > self.best[0] + 1e-9:
                self.best = (float(score[b]), (splits.copy(), self.labellings[chunk[b]]))

    def run(self, deadline: Deadline) -> tuple[str, float]:
        """Search until proved or ``deadline``; returns (status, bound in rows). With a
        budget and depth >= 2, structures come by nominal bound for a share of the time
        (a quick incumbent), then by the sides' robust bound (see :meth:`side_values`)."""
        self.constant()
        if self.feat.size == 0:
            return "optimal", self.best[0]
        self.deadline = deadline
        rows = np.arange(len(self.y))
        caps = self.root_caps if self.depth >= 2 else None
        if self.depth >= 2 and self.budget > 0:
            # an incumbent before the root caps' side searches (structures by nominal bound)
            status, first = self._walk(structures(self.goes_left, self.onehot, rows,
                                                  self.depth), deadline.share(FIRST_SHARE))
            if status == "optimal" or deadline.expired():
                return status, first
            status, bound = self._walk(structures(self.goes_left, self.onehot, rows,
                                                  self.depth, caps), deadline.share(WARM_SHARE))
            bound = min(first, bound)  # each bounds every tree
            if status == "optimal" or deadline.expired():
                return status, bound
            self.deadline = deadline
            status, second = self._walk(structures(self.goes_left, self.onehot, rows,
                                                   self.depth, caps, self.side_values),
                                        deadline)
            return status, min(bound, second)  # both bound every tree
        return self._walk(structures(self.goes_left, self.onehot, rows, self.depth, caps),
                          deadline)

    def _walk(self, stream: Any, deadline: Deadline) -> tuple[str, float]:
        """Evaluate the structures of ``stream`` until its bound meets the best found."""
        self.deadline = deadline
        i = 0
        while True:
            item = stream.item(i)
            if item is None or item[0] <= self.best[0] + 1e-9:
                return "optimal", self.best[0]
            if deadline.expired():
                return ("interrupted" if deadline.stopped else "time_limit"), item[0]
            self.evaluate(_flatten(item[1], self.depth))
            i += 1

    def side(self, s: int, left: bool, budget: float) -> RobustSearch | None:
        """The search on one side of root split ``s`` with the side as the range (the
        adversary keeps every row within it); None when no row is there."""
        f, t = self.feat[s], self.thr[s]
        low, high = self.low.copy(), self.high.copy()
        if left:
            high[f] = min(high[f], t)
        else:
            low[f] = max(low[f], t + 1)
        rows = self.goes_left[:, s] if left else ~self.goes_left[:, s]
        if not rows.any():
            return None
        return RobustSearch(self.X[rows], self.y[rows], self.K, self.costs[rows], budget,
                            self.depth - 1, 0.0, low, high,
                            None if self.weights is None else self.weights[rows])

    def side_best(self, s: int, left: bool, budget: float) -> float:
        """An upper bound on the worst-case correct rows of the best depth-(d-1) tree on one
        side of root split ``s`` when the adversary keeps every row within that side (the
        side's search; its bound if stopped)."""
        side = self.side(s, left, budget)
        if side is None:
            return 0.0
        self.stats["side_solves"] += 1
        assert self.deadline is not None
        return side.run(self.deadline.share(0.02))[1]

    def side_values(self, s: int, left: bool) -> Any:
        """What a side structure of root split ``s`` can contribute: its best labelling's
        worst case when half the budget is spent within the side (the other half within the
        other side, so the two sides' values add up to a bound on the whole tree)."""
        side = self.side(s, left, self.budget / 2)
        if side is None:
            return lambda structure: 0.0

        def value(structure: Any) -> float:
            if self.deadline is not None and self.deadline.expired():
                return math.inf  # no time: the nominal bound stands
            self.stats["side_structures"] += 1
            flat = _flatten(structure, self.depth - 1)
            return side.best_value(self.feat[flat], self.thr[flat])

        return value

    def root_caps(self, halves: list) -> list[float]:
        """A bound on every tree with root split ``s``, for each ``s``: the adversary that
        spends budget ``e`` within the left side and the rest within the right flips at
        least the best sides' flips, so worst-case correct ``<= C_L(e) + C_R(budget - e)``
        with ``C`` the best side's worst-case correct; ``e / budget`` in ``SIDE_SHARES``, where
        ``C(0)`` is the side's best nominal accuracy (its stream's head)."""
        if self._caps is not None:  # computed in the warm phase
            return self._caps
        caps, skipped = [], False
        for s in range(len(self.feat)):
            heads = [halves[2 * s].item(0), halves[2 * s + 1].item(0)]
            nominal = [h[0] if h is not None else 0.0 for h in heads]
            cap = nominal[0] + nominal[1]
            if self.budget > 0 and not self.deadline.expired():
                for e in SIDE_SHARES:
                    left = nominal[0] if e == 0 else self.side_best(s, True, e * self.budget)
                    right = (nominal[1] if e == 1
                             else self.side_best(s, False, (1 - e) * self.budget))
                    cap = min(cap, left + right)
            else:
                skipped = skipped or self.budget > 0
            caps.append(cap)
        if not skipped:
            self._caps = caps
        return caps

    def tree(self, feature_names: list[str], classes: np.ndarray) -> IntegerTree:
        """The best tree found, with every single-label subtree made a leaf."""
        splits, labelling = self.best[1]
        size = 2 ** (self.depth + 1) - 1
        feature = np.full(size, -1, dtype=np.int64)
        threshold = np.zeros(size, dtype=np.int64)
        label = np.full(size, -1, dtype=np.int64)
        L = 2 ** self.depth

        def leaves_under(node: int) -> np.ndarray:
            level = int(math.floor(math.log2(node + 1)))
            width = 2 ** (self.depth - level)
            first = (node + 1) * width - 1 - (L - 1)
            return labelling[first:first + width]

        stack = [0]
        while stack:
            node = stack.pop()
            below = leaves_under(node)
            if (below == below[0]).all():
                label[node] = below[0]
                continue
            feature[node] = self.feat[splits[node]]
            threshold[node] = self.thr[splits[node]]
            stack += [2 * node + 1, 2 * node + 2]
        return IntegerTree(feature, threshold, label, classes, self.low.copy(),
                           self.high.copy(), list(feature_names))


def solve_robust_tree(X: np.ndarray, y: np.ndarray, classes: np.ndarray, costs: np.ndarray,
                      budget: float, depth: int, lam: float, deadline: Deadline,
                      feature_names: list[str], weights: np.ndarray | None = None
                      ) -> FitResult:
    """The tree of depth <= ``depth`` with the best worst-case accuracy (correct weight over
    the total weight) minus ``lam`` per branch node (checked inputs: integer ``X``, class
    indices ``y``, costs ``>= 0``, ``weights`` None or > 0). ``objective`` and ``bound`` are
    in accuracy units; ``stats["worst_case_correct"]`` is a weight (rows without weights)."""
    start = time.perf_counter()
    search = RobustSearch(X, y, len(classes), costs, budget, depth, lam, weights=weights)
    status, bound = search.run(deadline)
    model = search.tree(feature_names, classes)
    n = search.n
    correct = search.best[0] + search.penalty * model.n_branches
    stats: dict[str, Any] = dict(search.stats, splits=int(search.feat.size),
                                 worst_case_correct=(int(round(correct)) if weights is None
                                                     else correct),
                                 total_weight=n, branches=model.n_branches)
    return FitResult(model, status, search.best[0] / n, max(bound, search.best[0]) / n,
                     time.perf_counter() - start, stats)
