"""The depth-2 sides of the compiled depth-3 nodes (:mod:`.node3`) by literal set: a hash table
in numpy arrays (open addressing, linear probing), which numba reads and fills without the
set-up of its typed dictionaries (0.6-0.8 s in each new process, a fit's whole time at depth 3).

A key is a set of literals (2f + v for x_f = v) in increasing order, as digits (literal + 1)
of base 2F + 1; under one node (the memo's root) a literal set is one row set.  A value is
the side's optimum and its tree (root, left, right).  The table only grows between compiled
calls (:meth:`Memo.make_room`), so one call never finds it full.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["MAX_SLOTS", "Memo", "memo_find", "memo_put", "merged", "set_key"]

MAX_SLOTS = 2**22
"""Most slots of one memo (28 bytes each: 117 MB); once three quarters are used, new sides
are computed and not kept."""


class Memo:
    """The arrays of one table: ``keys`` (0: empty), ``values``, ``trees`` (slots x 3) and
    ``used`` (one count)."""

    def __init__(self, slots: int) -> None:
        slots = 1 << max(4, int(slots - 1).bit_length())  # a power of two
        self.keys = np.zeros(slots, np.int64)
        self.values = np.zeros(slots)
        self.trees = np.zeros((slots, 3), np.int32)
        self.used = np.zeros(1, np.int64)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.keys, self.values, self.trees, self.used

    def make_room(self, adds: int) -> None:
        """Double the table (rehashing what it holds) until ``adds`` more keys leave it at
        most three quarters full, within :data:`MAX_SLOTS`."""
        slots = len(self.keys)
        need = int(self.used[0]) + adds
        if 4 * need <= 3 * slots or slots >= MAX_SLOTS:
            return
        while 4 * need > 3 * slots and slots < MAX_SLOTS:
            slots *= 2
        old = self.arrays()
        self.__init__(slots)
        _rehash(*old, *self.arrays())


def merged(a: Memo, b: Memo) -> Memo:
    """A new table holding what ``a`` and ``b`` hold (``a``'s value where both do; both are
    optima of the same side, so equal), within :data:`MAX_SLOTS`."""
    out = Memo(16)
    out.make_room(int(a.used[0]) + int(b.used[0]))
    for part in (a, b):
        _rehash(*part.arrays(), *out.arrays())
    return out


@njit(cache=True, nogil=True, inline="always")
def _slot(key, mask):
    """First slot of ``key`` (Fibonacci hashing)."""
    h = np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)
    return np.int64(h >> np.uint64(20)) & mask


@njit(cache=True, nogil=True)
def set_key(path, lit, base):
    """The key of the literal set ``path`` (sorted) plus ``lit``: its literals in increasing
    order as digits (literal + 1) of base ``base`` (> every literal + 1)."""
    key = 0
    placed = False
    for i in range(path.shape[0]):
        if not placed and lit < path[i]:
            key = key * base + lit + 1
            placed = True
        key = key * base + path[i] + 1
    if not placed:
        key = key * base + lit + 1
    return key


@njit(cache=True, nogil=True)
def memo_find(keys, key):
    """The slot holding ``key``, or -1."""
    mask = keys.shape[0] - 1
    s = _slot(key, mask)
    while keys[s] != 0:
        if keys[s] == key:
            return s
        s = (s + 1) & mask
    return -1


@njit(cache=True, nogil=True)
def memo_put(keys, values, trees, used, key, value, a, b, c):
    """Keep ``key`` -> (``value``, tree ``a``, ``b``, ``c``) unless the table is three
    quarters full (or holds the key)."""
    if 4 * (used[0] + 1) > 3 * keys.shape[0]:
        return
    mask = keys.shape[0] - 1
    s = _slot(key, mask)
    while keys[s] != 0:
        if keys[s] == key:
            return
        s = (s + 1) & mask
    keys[s] = key
    values[s] = value
    trees[s, 0], trees[s, 1], trees[s, 2] = a, b, c
    used[0] += 1


@njit(cache=True, nogil=True)
def _rehash(keys, values, trees, used, new_keys, new_values, new_trees, new_used):
    for s in range(keys.shape[0]):
        if keys[s] != 0:
            memo_put(new_keys, new_values, new_trees, new_used, keys[s], values[s],
                     trees[s, 0], trees[s, 1], trees[s, 2])
