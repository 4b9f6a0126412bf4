"""Reading the Rashomon DAG (:mod:`.build`) without listing it: the i-th tree, the trees of
one key in order, and per feature the trees that do not use it.

A tree is given as a nested tuple: a leaf is its class index (an int), a split is
``(feature, left, right)`` with ``x_f = 0`` going left.  The order is the nodes' order: by
key (objective), and within a key the leaf, then the splits by feature, then the left
subtree's key, the left tree, the right tree."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .build import SetNode

Tree = int | tuple


def _option(row: np.ndarray) -> Tree:
    f, _, c0, c1 = (int(v) for v in row)
    return c0 if f < 0 else (f, c0, c1)


def _trivial(left: SetNode, right: SetNode, u: int, t: int) -> bool:
    """Whether the pair of keys (u, t) holds the pair of two leaves of one class, which is
    no tree of the set (unless the DAG keeps such pairs)."""
    return (not left.keeps_trivial and left.has_leaf and right.has_leaf
            and left.label == right.label and u == left.leaf and t == right.leaf)


def _at(keys: np.ndarray, counts: np.ndarray, key: int) -> int:
    i = int(np.searchsorted(keys, key))
    return int(counts[i]) if i < len(keys) and keys[i] == key else 0


def unrank(node: SetNode, index: int) -> Tree:
    """The ``index``-th tree of the node (0 <= index < node.count())."""
    cum = np.cumsum(node.counts)
    j = int(np.searchsorted(cum, index, side="right"))
    before = int(cum[j - 1]) if j else 0
    return tree_of_key(node, int(node.keys[j]), index - before)


def tree_of_key(node: SetNode, key: int, rank: int) -> Tree:
    """The ``rank``-th tree of the node among those of key ``key``."""
    if node.options is not None:
        start = int(np.searchsorted(node.options[:, 1], key, side="left"))
        return _option(node.options[start + rank])
    if node.has_leaf and node.leaf == key:
        if rank == 0:
            return node.label
        rank -= 1
    for f, left, right, keys, counts in node.splits:
        c = _at(keys, counts, key)
        if rank >= c:
            rank -= c
            continue
        for u in left.keys[left.keys <= key - right.best].tolist():
            t = key - u
            ct = right.at(t)
            if ct == 0:
                continue
            triv = int(_trivial(left, right, u, t))
            block = left.at(u) * ct - triv
            if rank >= block:
                rank -= block
                continue
            rank += triv  # the leaves' pair is the block's first
            return (f, tree_of_key(left, u, rank // ct), tree_of_key(right, t, rank % ct))
    raise IndexError("rank beyond the node's trees of this key")  # pragma: no cover


def trees_of_key(node: SetNode, key: int) -> Iterator[Tree]:
    """The node's trees of key ``key``, in order."""
    if node.options is not None:
        col = node.options[:, 1]
        start, stop = np.searchsorted(col, key, "left"), np.searchsorted(col, key, "right")
        for row in node.options[start:stop]:
            yield _option(row)
        return
    if node.has_leaf and node.leaf == key:
        yield node.label
    for f, left, right, keys, counts in node.splits:
        if _at(keys, counts, key) == 0:
            continue
        for u in left.keys[left.keys <= key - right.best].tolist():
            t = key - u
            if right.at(t) == 0:
                continue
            triv = _trivial(left, right, u, t)
            for a in trees_of_key(left, u):
                for b in trees_of_key(right, t):
                    if triv and isinstance(a, int) and isinstance(b, int):
                        continue
                    yield (f, a, b)


def trees(node: SetNode) -> Iterator[Tree]:
    """Every tree of the node, in order."""
    for key in node.keys.tolist():
        yield from trees_of_key(node, key)


def avoiding(node: SetNode, n_features: int, memo: dict | None = None) -> np.ndarray:
    """``A[f, j]``: the node's trees of key ``node.keys[j]`` that split on no ``f`` (exact
    ints), from the children's (one pass over the DAG)."""
    memo = {} if memo is None else memo
    got = memo.get(id(node))
    if got is not None:
        return got
    A = np.tile(node.counts, (n_features, 1)) if node.options is not None else \
        np.zeros((n_features, len(node.keys)), dtype=object)
    if node.options is not None:
        for f, key, _, _ in node.options.tolist():
            if f >= 0:
                A[f, np.searchsorted(node.keys, key)] -= 1
    else:
        if node.has_leaf:
            A[:, np.searchsorted(node.keys, node.leaf)] += 1
        for f, left, right, _, _ in node.splits:
            kl = left.keys[left.keys <= node.budget - right.best]
            kr = right.keys[right.keys <= node.budget - left.best]
            sums = kl[:, None] + kr[None, :]
            ok = sums <= node.budget
            a_left = avoiding(left, n_features, memo)[:, :len(kl)]
            a_right = avoiding(right, n_features, memo)[:, :len(kr)]
            pairs = a_left[:, :, None] * a_right[:, None, :]
            if _trivial(left, right, left.leaf, right.leaf) and \
                    left.leaf + right.leaf <= node.budget:  # the leaves' pair is no tree
                pairs[:, np.searchsorted(kl, left.leaf), np.searchsorted(kr, right.leaf)] -= 1
            found = np.searchsorted(node.keys, sums[ok])
            where = np.minimum(found, len(node.keys) - 1)
            held = node.keys[where] == sums[ok]  # a key with only the leaves' pair is not
            add = np.zeros_like(A)
            np.add.at(add, (slice(None), where[held]), pairs[:, ok][:, held])
            add[f] = 0  # every tree of this split uses f
            A += add
    memo[id(node)] = A
    return A
