"""Decision paths of CGH ([CGH] §3, Definition 2) and their evaluation.

Heap numbering: internal nodes 1 .. 2^k - 1, leaves 2^k .. 2^(k+1) - 1; leaf index
``i = l - 2^k``.  A decision path for leaf i is a vector ``pos`` of length k: ``pos[h]`` is the
position of the chosen split in ``S_j`` of the level-h ancestor ``j``.  Its target is the
majority class of the rows it reaches (for a fixed path that choice maximizes both CP(p) and
the reduced cost (7), whose other terms do not depend on the target).

Rows whose split outcomes agree on every candidate split are merged into *groups*; constraint
(3) for the rows of a group is one and the same row, so the master keeps one row per group.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..solvers.deadline import Deadline, TimeUp, check_deadline
from .sampling import PASS, SplitSets, SplitTable


@dataclass
class Duals:
    """Row duals of the master: alpha_l (2), beta per group (3), gamma per agreement row (4)."""

    alpha: np.ndarray
    beta: np.ndarray
    gamma: np.ndarray


BLOCK_CELLS = 1 << 24
"""Split-row cells of one block of :func:`row_groups` (about 10 ms of work)."""


def row_groups(table: SplitTable, used: np.ndarray,
               deadline: Deadline | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each row's group (rows that go the same way at every split ``used``, numbered in
    the order of their packed outcomes) and the (U, G) outcomes of each group's first row;
    :class:`TimeUp` when ``deadline`` passes between blocks of splits, or before the one
    sort when the time left is less than the blocks took."""
    t0 = time.perf_counter()
    n = table.X.shape[0]
    step = 8 * max(1, BLOCK_CELLS // (8 * max(1, n)))  # whole bytes: packing as one piece
    parts = []
    for s in range(0, len(used), step):
        check_deadline(deadline)
        parts.append(np.packbits(table.masks(used[s:s + step]), axis=0))
    packed = np.ascontiguousarray(np.concatenate(parts, axis=0).T)  # (n, ceil(U / 8))
    if deadline is not None and deadline.remaining() < time.perf_counter() - t0:
        raise TimeUp  # the sort costs about as much as the blocks: no time to finish it
    _, rep, inv = np.unique(packed, axis=0, return_index=True, return_inverse=True)
    lg = np.empty((len(used), len(rep)), dtype=bool)
    for s in range(0, len(used), step):
        check_deadline(deadline)
        lg[s:s + step] = table.masks(used[s:s + step], rows=rep)
    return inv.ravel(), lg


class PathSpace:
    """Candidate splits per node, row groups and the evaluation of decision paths."""

    def __init__(self, sets: SplitSets, y: np.ndarray, n_classes: int,
                 sample_weight: np.ndarray | None = None,
                 deadline: Deadline | None = None) -> None:
        """``cnt[g, k]``: weight of the class-k rows of group g (row counts without
        ``sample_weight``): every path value CP(p) and reduced cost (7) is a weight.
        :class:`TimeUp` when ``deadline`` passes while the row groups are formed (every
        split of 20,000 rows: 45,000 splits x 20,000 rows, seconds)."""
        k = sets.depth
        self.sets = sets
        self.depth = k
        self.n_leaves = 2**k
        self.n_classes = n_classes
        self.node_ids = {j: np.asarray(s, dtype=np.int64) for j, s in sets.node_splits.items()}
        used = np.unique(np.concatenate(list(self.node_ids.values())))
        self.used = used
        gmap = np.full(len(sets.table), -1, dtype=np.int64)
        gmap[used] = np.arange(len(used))
        self.group_of_row, self.Lg = row_groups(sets.table, used, deadline)  # Lg: (U, G)
        self.n_groups = self.Lg.shape[1]
        y = np.asarray(y, dtype=np.int64)
        self.cnt = np.zeros((self.n_groups, n_classes), dtype=np.float64)
        np.add.at(self.cnt, (self.group_of_row, y),
                  1.0 if sample_weight is None else np.asarray(sample_weight, dtype=float))
        # per node: rows of Lg for its candidate splits
        self.node_rows = {j: gmap[s] for j, s in self.node_ids.items()}
        leaves = self.n_leaves + np.arange(self.n_leaves)
        h = np.arange(k)
        self.anc = leaves[:, None] >> (k - h)[None, :]  # (nL, k) heap ancestors
        self.dir = (leaves[:, None] >> (k - h - 1)[None, :]) & 1  # 0 = left, 1 = right
        self.sizes = np.array([[len(self.node_ids[j]) for j in row] for row in self.anc])
        # layout of the agreement rows (4): one block of |S_j| rows per (leaf, level)
        self.agree_base = np.zeros((self.n_leaves, k), dtype=np.int64)
        flat = self.sizes.ravel()
        self.agree_base.ravel()[:] = np.concatenate([[0], np.cumsum(flat)[:-1]])
        self.n_agree = int(flat.sum())

    # ------------------------------------------------------------------ paths
    def split_ids(self, leaf: np.ndarray, pos: np.ndarray) -> np.ndarray:
        """Global split ids (B, k) of paths."""
        out = np.empty(pos.shape, dtype=np.int64)
        for h in range(self.depth):
            for j in np.unique(self.anc[leaf, h]):
                sel = self.anc[leaf, h] == j
                out[sel, h] = self.node_ids[int(j)][pos[sel, h]]
        return out

    def distinct(self, leaf: np.ndarray, pos: np.ndarray) -> np.ndarray:
        """Definition 2 (ii): no real split twice on a path (the pass split may repeat)."""
        ids = self.split_ids(leaf, pos)
        ok = np.ones(len(leaf), dtype=bool)
        for a in range(self.depth):
            for b in range(a + 1, self.depth):
                ok &= (ids[:, a] != ids[:, b]) | (ids[:, a] == PASS)
        return ok

    def reached(self, leaf: np.ndarray, pos: np.ndarray) -> np.ndarray:
        """(B, G) boolean: groups directed to the leaf by each path."""
        B = len(leaf)
        out = np.ones((B, self.n_groups), dtype=bool)
        for h in range(self.depth):
            rows = np.empty(B, dtype=np.int64)
            for j in np.unique(self.anc[leaf, h]):
                sel = self.anc[leaf, h] == j
                rows[sel] = self.node_rows[int(j)][pos[sel, h]]
            m = self.Lg[rows]
            right = self.dir[leaf, h] == 1
            if right.any():
                m[right] = ~m[right]
            out &= m
        return out

    def evaluate(self, leaf: np.ndarray, pos: np.ndarray, duals: Duals | None = None,
                 chunk: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """CP(p), target and reduced cost (7) of paths (reduced cost = CP if no duals)."""
        leaf = np.asarray(leaf, dtype=np.int64)
        pos = np.asarray(pos, dtype=np.int64).reshape(len(leaf), self.depth)
        B = len(leaf)
        cp = np.zeros(B)
        target = np.zeros(B, dtype=np.int64)
        rc = np.zeros(B)
        chunk = chunk or max(1, int(4_000_000 // max(1, self.n_groups)))
        for s in range(0, B, chunk):
            sl = slice(s, min(B, s + chunk))
            r = self.reached(leaf[sl], pos[sl]).astype(np.float64)
            per_class = r @ self.cnt
            target[sl] = np.argmax(per_class, axis=1)
            cp[sl] = per_class.max(axis=1)
            rc[sl] = cp[sl]
            if duals is not None:
                rc[sl] -= r @ duals.beta
        if duals is not None:
            rc -= duals.alpha[leaf]
            for h in range(self.depth):
                rc -= duals.gamma[self.agree_base[leaf, h] + pos[:, h]]
        return cp, target, rc

    # ------------------------------------------------------------------ trees
    def tree_paths(self, choice: dict[int, int]) -> np.ndarray:
        """Positions (nL, k) of the paths of a tree given as heap node -> position in S_j."""
        return np.array([[choice[int(j)] for j in row] for row in self.anc], dtype=np.int64)

    def tree_objective(self, choice: dict[int, int]) -> float:
        """Weight of the training rows the tree classifies correctly (majority label per
        leaf)."""
        cp, _, _ = self.evaluate(np.arange(self.n_leaves), self.tree_paths(choice))
        return float(cp.sum())

    def position(self, j: int, split_id: int) -> int:
        hit = np.flatnonzero(self.node_ids[j] == split_id)
        if len(hit) == 0:
            raise KeyError(f"split {split_id} is not a candidate at node {j}")
        return int(hit[0])
