"""The Rashomon set on 0/1 features as a DAG of subproblems (issue #46, item 3).

A node holds every subtree of one subproblem (its rows, the depth left) whose objective is
within the node's budget: its leaf, and for each feature the pairs (left subtree, right
subtree) whose objectives add up to at most the budget.  Objectives are TreeFARMS's
(Xin et al. 2022): misclassified weight / total weight + lam per leaf, each leaf's part as
an integer key (:class:`Scale`), so a tree's key is the exact sum of its leaves' keys.
Every node keeps the histogram of its trees' keys (distinct keys, exact counts), so the set
is counted without being listed, and a child's budget is the parent's less the sibling's
best (the sibling built first) or a lower bound.

TreeFARMS's conventions (read in its ``rash_models`` and ``Task::create_children``): a
split sends at least one row to each side (``min_leaf`` rows under ``min_samples_leaf``);
a leaf predicts its heaviest class, ties to the last class; a split whose two children are
leaves predicting the same class is not a tree of the set (a "trivial extension").
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...._validation import OptreesInputError


class RashomonSetTooLarge(OptreesInputError):
    """The set needs more stored entries than ``max_nodes`` allows."""


LEAF_BITS = 5
"""Low bits of a key that count a tree's leaves when ``max_leaves`` bounds them (at most 16
leaves at depth 4, so a sum of two subtrees' counts never carries)."""


@dataclass(frozen=True)
class Scale:
    """Integer keys of objectives: a leaf misclassifying weight ``e`` has the key
    ``round(e * per_weight) + lam_key``, a tree the sum of its leaves' keys, and its
    objective is ``key / total`` (``total`` = the key of weight ``W``).  With integer weights
    ``per_weight`` is a power of two, so the error part is exact; ``slack`` keys (at least
    1e-9 of the objective, and one key per leaf of rounding) keep a tree exactly at the
    bound in the set.  With ``bits`` (``LEAF_BITS``, for ``max_leaves``) each leaf's key
    is shifted left by ``bits`` and adds 1, so a tree's key also counts its leaves in its
    low bits (:meth:`leaves`); the order is still by objective."""

    per_weight: float
    total: float
    lam_key: int
    slack: int
    worst: float
    bits: int = 0

    @classmethod
    def make(cls, w: np.ndarray, lam: float, depth: int, bits: int = 0) -> Scale:
        W = float(w.sum())
        worst = 2.0 + lam * 2**depth  # an objective no tree of the depth exceeds, with room
        k = int(np.floor(np.log2(2.0 ** (61 - bits) / (worst * W))))
        per_weight = 2.0 ** min(36, k) if np.all(w == np.round(w)) else 2.0**40 / W
        total = per_weight * W
        return cls(per_weight, total, int(round(lam * total)),
                   max(2**depth, int(1e-9 * total)), worst, bits)

    @property
    def unit(self) -> int:
        """The key of one unit of the error part (2**bits)."""
        return 1 << self.bits

    @property
    def per_leaf(self) -> int:
        """What one more leaf of no error adds to a key."""
        return self.lam_key * self.unit + (1 if self.bits else 0)

    def leaf_keys(self, errors: np.ndarray) -> np.ndarray:
        """Key of each leaf misclassifying weight ``errors``."""
        part = np.rint(np.asarray(errors) * self.per_weight).astype(np.int64)
        return part * self.unit + self.per_leaf

    def bound_key(self, bound: float) -> int:
        """The largest key of a tree of objective at most ``bound`` (plus the slack)."""
        return (int(np.floor(min(bound, self.worst) * self.total)) + self.slack) * self.unit \
            + self.unit - 1

    def objective(self, key: np.ndarray | int) -> np.ndarray | float:
        return (np.asarray(key) >> self.bits).astype(float) / self.total

    def leaves(self, key: np.ndarray) -> np.ndarray:
        """The leaves of the trees of ``key`` s (needs ``bits``)."""
        return np.asarray(key) & (self.unit - 1)


@dataclass(eq=False)
class SetNode:
    """The trees of one subproblem with key at most ``budget``, in key order.

    ``keys`` (ascending, int64) and ``counts`` (exact ints, object array) are its histogram.
    The leaf (key ``leaf``, class ``label``) comes first among the trees of its key.  At depth
    1, ``options`` lists the trees themselves, sorted by key then feature (feature -1: the
    leaf): columns feature, key, left class, right class.  Deeper, ``splits`` holds
    ``(feature, left, right, keys, counts)``: the children and the histogram of the pairs;
    the trees of a key are the leaf, then the splits in order."""

    depth: int
    budget: int
    leaf: int
    label: int
    keys: np.ndarray
    counts: np.ndarray
    options: np.ndarray | None = None
    splits: list = field(default_factory=list)
    keeps_trivial: bool = False

    @property
    def has_leaf(self) -> bool:
        return self.leaf <= self.budget

    @property
    def best(self) -> int:
        """The least key of the node's trees (budget + 1 when it has none)."""
        return int(self.keys[0]) if len(self.keys) else self.budget + 1

    def count(self, budget: int | None = None) -> int:
        """Trees of key at most ``budget`` (None: all)."""
        if budget is None:
            return int(self.counts.sum()) if len(self.counts) else 0
        stop = int(np.searchsorted(self.keys, budget, side="right"))
        return int(self.counts[:stop].sum()) if stop else 0

    def below(self, key: int) -> int:
        """Trees of key less than ``key`` (the rank of the first tree of that key)."""
        stop = int(np.searchsorted(self.keys, key, side="left"))
        return int(self.counts[:stop].sum()) if stop else 0

    def at(self, key: int) -> int:
        """Trees of exactly ``key``."""
        i = int(np.searchsorted(self.keys, key))
        return int(self.counts[i]) if i < len(self.keys) and self.keys[i] == key else 0


@dataclass
class Stumps:
    """One side of every split of a subproblem (row f: the side of the split on f): its
    leaf's key and class, and per feature g the key of the stump on g (int64 max when a
    side of it is under min_leaf) and the classes of its two leaves."""

    leaf: np.ndarray
    label: np.ndarray
    key: np.ndarray
    c0: np.ndarray
    c1: np.ndarray


def histogram(keys: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct keys (ascending) and the summed counts of each."""
    if len(keys) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object)
    order = np.argsort(keys, kind="stable")
    keys, counts = keys[order], counts[order]
    starts = _starts(keys)
    return keys[starts], np.add.reduceat(counts, starts)


def _starts(keys: np.ndarray) -> np.ndarray:
    """Where each run of equal sorted ``keys`` starts."""
    new = np.empty(len(keys), dtype=bool)
    new[0] = True
    np.not_equal(keys[1:], keys[:-1], out=new[1:])
    return np.flatnonzero(new)


def pair_histogram(left: SetNode, right: SetNode, budget: int,
                   trivial: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Histogram of the pairs (left tree, right tree) with keys adding up to at most
    ``budget``, less the pair of the two leaves when ``trivial`` is its key."""
    kl = left.keys[left.keys <= budget - right.best]
    kr = right.keys[right.keys <= budget - left.best]
    if len(kl) == 0 or len(kr) == 0:
        return histogram(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object))
    cl, cr = left.counts[:len(kl)], right.counts[:len(kr)]
    sums = kl[:, None] + kr[None, :]
    ok = sums <= budget
    keys, counts = histogram(sums[ok], (cl[:, None] * cr[None, :])[ok])
    if trivial is not None:
        i = int(np.searchsorted(keys, trivial))
        counts[i] -= 1
        if counts[i] == 0:
            keys, counts = np.delete(keys, i), np.delete(counts, i)
    return keys, counts


class Builder:
    """Builds :class:`SetNode` s of the 0/1 matrix ``X`` (n x F), classes ``y`` (0..K-1),
    weights ``w``; leaves hold at least ``min_leaf`` rows; trees have at most
    ``max_leaves`` leaves (None: any; else ``scale`` counts leaves); at most ``max_nodes`` stored
    entries (histogram entries, options and splits) in all.  With ``listing`` off the
    nodes keep only their histograms and the memo, a cache then, is emptied whenever it
    would pass ``max_nodes`` entries: the count stays exact under a hard cap."""

    def __init__(self, X: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int,
                 scale: Scale, min_leaf: int = 1, max_nodes: int = 10_000_000,
                 max_leaves: int | None = None) -> None:
        self.X = np.ascontiguousarray(X, dtype=bool)
        self.Xf = self.X.astype(np.float64)
        self.y, self.w, self.K = np.asarray(y, dtype=np.int64), np.asarray(w, float), n_classes
        self.Y = np.zeros((len(y), n_classes))  # each row's weight in its class's column
        self.Y[np.arange(len(y)), self.y] = self.w
        self.scale, self.min_leaf, self.max_nodes = scale, max(1, int(min_leaf)), max_nodes
        self.max_leaves = 16 if max_leaves is None else int(max_leaves)
        if self.max_leaves < 16 and scale.bits == 0:
            raise ValueError("max_leaves needs a Scale with leaf bits")  # pragma: no cover
        self.entries, self.evictions = 0, 0
        self.listing = True  # False: count only (nodes keep their histograms, no children)
        # False: a split of two leaves of one class is a tree too (the fair set relabels
        # leaves, so the structure's leaves may take two classes)
        self.drop_trivial = True
        self.memo: dict[tuple[bytes, int], SetNode] = {}
        # rows with the same features: no tree separates them (equivalent points); each
        # group's minority weight is put on its first row, so a subproblem's sum of
        # ``minority`` is the least weight any tree of it misclassifies
        rows = np.ascontiguousarray(np.packbits(self.X, axis=1))  # one void value per row:
        rows = rows.view(np.dtype((np.void, rows.shape[1]))).ravel()  # faster than axis=0
        _, first, same = np.unique(rows, return_index=True, return_inverse=True)
        cells = np.zeros((len(first), n_classes))
        np.add.at(cells, (same.ravel(), self.y), self.w)
        self.minority = np.zeros(len(y))
        self.minority[first] = cells.sum(axis=1) - cells.max(axis=1)

    # ------------------------------------------------------------------ leaves
    def _leaves(self, cw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Keys and classes of leaves with class weights ``cw`` (..., K): the heaviest
        class, ties to the last (TreeFARMS's rule)."""
        best, total = cw[..., 0].copy(), cw[..., 0].copy()
        label = np.zeros(best.shape, dtype=np.int64)
        for k in range(1, self.K):  # a loop over the few classes: faster than a reduce
            column = cw[..., k]     # over a last axis of K
            later = column >= best  # ties go to the later class
            label[later] = k
            np.maximum(best, column, out=best)
            total += column
        errors = total - best
        return self.scale.leaf_keys(np.maximum(errors, 0.0)), label

    def lower_bounds(self, mask: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
        """For every feature, lower bounds on the keys of the trees of depth ``depth`` of
        the two sides of a split of ``mask`` on it (left: x_f = 0): exact at depth 1 (from
        pair counts), else min(leaf, two leaves misclassifying only equivalent points)."""
        Xs, Ys = self.Xf[mask], self.Y[mask]
        ones, total = Xs.T @ Ys, Ys.sum(axis=0)
        sides = [self._leaves(total - ones)[0], self._leaves(ones)[0]]
        room = 2 * self.scale.unit  # float sums in another order may round a key up by one
        if depth == 0:
            return sides[0], sides[1]
        if depth >= 2:
            e1 = Xs.T @ self.minority[mask]
            for side, e in enumerate((self.minority[mask].sum() - e1, e1)):
                sides[side] = np.minimum(sides[side],
                                         self.scale.leaf_keys(e) + self.scale.per_leaf)
            return sides[0] - room, sides[1] - room
        for side, table in enumerate(self.stump_tables(mask, Xs, Ys)):
            sides[side] = np.minimum(table.leaf, table.key.min(axis=1))
        return sides[0] - room, sides[1] - room

    def stump_tables(self, mask: np.ndarray, Xs: np.ndarray | None = None,
                     Ys: np.ndarray | None = None) -> tuple[Stumps, Stumps]:
        """The leaf and every stump of both sides of every split of ``mask`` (left: x_f =
        0), from pair counts: one pass for what would be 2F subsets."""
        Xs = self.Xf[mask] if Xs is None else Xs
        Ys = self.Y[mask] if Ys is None else Ys
        ones, total = Xs.T @ Ys, Ys.sum(axis=0)
        both = np.stack([(Xs * Ys[:, [k]]).T @ Xs for k in range(self.K)], axis=-1)
        rows = Xs.T @ Xs  # rows[f, g]: rows with x_f = x_g = 1
        n1 = np.diag(rows)
        # a stump on g of the left side (x_f = 0): x_g = 1 -> ones[g] - both[f, g], x_g = 0
        # the rest; of the right side (x_f = 1): x_g = 1 -> both[f, g], x_g = 0 -> the rest
        cells = [(total - ones, total - ones[:, None, :] - ones[None, :, :] + both,
                  ones[None, :, :] - both, len(Ys) - n1[:, None] - n1[None, :] + rows,
                  n1[None, :] - rows),
                 (ones, ones[:, None, :] - both, both, n1[:, None] - rows, rows)]
        tables = []
        for whole, w0, w1, r0, r1 in cells:
            leaf, label = self._leaves(whole)
            k0, c0 = self._leaves(np.maximum(w0, 0.0))
            k1, c1 = self._leaves(np.maximum(w1, 0.0))
            key = np.where(np.minimum(r0, r1) >= self.min_leaf, k0 + k1, np.iinfo(np.int64).max)
            tables.append(Stumps(leaf, label, key, c0, c1))
        return tables[0], tables[1]

    # ------------------------------------------------------------------ nodes
    def node(self, mask: np.ndarray, depth: int, budget: int) -> SetNode:
        """The trees of the rows ``mask`` of depth at most ``depth`` and key at most
        ``budget`` (memoised: a node built for a larger budget serves a smaller one)."""
        key = (np.packbits(mask).tobytes(), depth)
        known = self.memo.get(key)
        if known is not None and known.budget >= budget:
            return known
        if self.scale.per_leaf > 0:  # a tree of depth d has d + 1 leaves or more, each
            # leaf's key at least per_leaf: deeper trees than the budget pays for are none
            depth = max(0, min(depth, budget // self.scale.per_leaf - 1))
        node = self._depth1(mask, depth, budget) if depth <= 1 else \
            self._deeper(mask, depth, budget)
        if not self.listing:  # the histogram alone: the memo is a cache of counts
            node.options, node.splits = None, []
            if self.entries + len(node.keys) > self.max_nodes:
                self.memo.clear()  # dropping cached counts costs time, never exactness
                self.entries, self.evictions = 0, self.evictions + 1
        self.memo[key] = node
        self._store(len(node.keys) + (0 if node.options is None else len(node.options))
                    + sum(1 + len(s[3]) for s in node.splits))
        return node

    def _store(self, entries: int) -> None:
        self.entries += entries
        if self.listing and self.entries > self.max_nodes:
            raise RashomonSetTooLarge(
                f"listing the Rashomon set needs more than max_nodes={self.max_nodes} stored "
                f"entries; lower epsilon, raise lam or raise max_nodes")

    def _depth1(self, mask: np.ndarray, depth: int, budget: int) -> SetNode:
        """A subproblem of depth <= 1: its leaf and every stump, listed."""
        Y = self.Y[mask]
        leaf, label = self._leaves(Y.sum(axis=0))
        if depth == 0 or not mask.any():
            return self._listed(int(leaf), int(label), np.zeros(0, dtype=np.int64),
                                np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64),
                                np.zeros(0, dtype=np.int64), depth, budget)
        Xs = self.Xf[mask]
        ones = Xs.T @ Y                        # F x K class weights where x_f = 1
        n1 = Xs.sum(axis=0)
        k1, c1 = self._leaves(ones)
        k0, c0 = self._leaves(Y.sum(axis=0) - ones)
        key = np.where(np.minimum(n1, len(Y) - n1) >= self.min_leaf, k0 + k1,
                       np.iinfo(np.int64).max)
        return self._listed(int(leaf), int(label), np.arange(len(key)), key, c0, c1, 1, budget)

    def _listed(self, leaf: int, label: int, features: np.ndarray, key: np.ndarray,
                c0: np.ndarray, c1: np.ndarray, depth: int, budget: int) -> SetNode:
        """The node of a leaf and stumps (on ``features``, keys ``key``, classes ``c0`` on
        x_f = 0 and ``c1``): those within ``budget`` but the trivial ones (two leaves of
        one class), sorted by key then feature, the leaf first."""
        ok = np.flatnonzero((key <= budget) & ((c0 != c1) | (not self.drop_trivial))
                            & (self.max_leaves >= 2))
        first = int(leaf <= budget)
        options = np.empty((first + len(ok), 4), dtype=np.int64)
        if first:
            options[0] = (-1, leaf, label, label)
        for column, values in enumerate((features, key, c0, c1)):
            options[first:, column] = values[ok]
        # features ascend and the leaf is first: a stable sort by key keeps feature order
        options = options[np.argsort(options[:, 1], kind="stable")]
        if len(options) == 0:
            keys, counts = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object)
        else:
            starts = _starts(options[:, 1])
            keys = options[starts, 1]
            counts = np.diff(np.append(starts, len(options))).astype(object)
        return SetNode(depth, budget, leaf, label, keys, counts, options=options,
                       keeps_trivial=not self.drop_trivial)

    def _stumps_node(self, table: Stumps, f: int, budget: int) -> SetNode:
        """The depth-1 node of one side of the split on ``f`` from its stump table."""
        node = self._listed(int(table.leaf[f]), int(table.label[f]), np.arange(len(table.leaf)),
                            table.key[f], table.c0[f], table.c1[f], 1, budget)
        if self.listing:  # (counting, the node lives only while its parent is built)
            self._store(len(node.keys) + len(node.options))
        return node

    def _deeper(self, mask: np.ndarray, depth: int, budget: int) -> SetNode:
        """A subproblem of depth >= 2: its leaf and, per feature, the pairs of children."""
        leaf, label = self._leaves(self.Y[mask].sum(axis=0))
        leaf, label = int(leaf), int(label)
        pieces_k = [np.array([leaf], dtype=np.int64)] if leaf <= budget else []
        pieces_c = [np.array([1], dtype=object)] if leaf <= budget else []
        n = int(mask.sum())
        splits = []
        tables = self.stump_tables(mask) if depth == 2 else None
        if tables is not None:  # the children are stumps: exact bounds from their tables
            lb_left, lb_right = (np.minimum(t.leaf, t.key.min(axis=1)) for t in tables)
        else:
            lb_left, lb_right = self.lower_bounds(mask, depth - 1)
        n1 = self.X[mask].sum(axis=0)
        for f in np.flatnonzero((np.minimum(n1, n - n1) >= self.min_leaf)
                                & (lb_left + lb_right <= budget)).tolist():
            if tables is not None:
                right = self._stumps_node(tables[1], f, budget - int(lb_left[f]))
            else:
                right = self.node(mask & self.X[:, f], depth - 1, budget - int(lb_left[f]))
            if right.best + lb_left[f] > budget:
                continue
            if tables is not None:
                left = self._stumps_node(tables[0], f, budget - right.best)
            else:
                left = self.node(mask & ~self.X[:, f], depth - 1, budget - right.best)
            if left.best + right.best > budget:
                continue
            trivial = left.leaf + right.leaf if (
                self.drop_trivial and left.has_leaf and right.has_leaf and left.label == right.label
                and left.leaf + right.leaf <= budget) else None
            keys, counts = pair_histogram(left, right, budget, trivial)
            if self.max_leaves < 16:  # the pairs of more leaves are no trees of the set
                fit = self.scale.leaves(keys) <= self.max_leaves
                keys, counts = keys[fit], counts[fit]
            if len(keys):
                if self.listing:
                    splits.append((f, left, right, keys, counts))
                pieces_k.append(keys)
                pieces_c.append(counts)
        if pieces_k:
            keys, counts = histogram(np.concatenate(pieces_k), np.concatenate(pieces_c))
        else:
            keys, counts = histogram(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object))
        return SetNode(depth, budget, leaf, label, keys, counts, splits=splits,
                       keeps_trivial=not self.drop_trivial)
