"""Cache of subproblem results keyed on the row set and the depth (MurTree §4.5).

The key is a 128-bit BLAKE2 digest of the sorted row indices: paths that reach the same rows
(e.g. the same literals in another order) share one entry.  An entry holds a proven upper
bound and, once proven optimal, the best subtree and its value.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from .tree import Node

__all__ = ["CacheEntry", "SubtreeCache"]


@dataclass
class CacheEntry:
    """``upper``: proven bound on the optimum; ``value``/``node``: optimum when ``exact``."""

    upper: float
    value: float = -np.inf
    node: Node = None
    exact: bool = False


class SubtreeCache:
    """Results per (row set, depth); bounds only ever tighten."""

    def __init__(self) -> None:
        self._store: dict[tuple[bytes, int], CacheEntry] = {}
        self.hits = 0
        self.lookups = 0

    @staticmethod
    def key(rows: np.ndarray) -> bytes:
        """Digest of a sorted int64 row index array."""
        return hashlib.blake2b(rows.tobytes(), digest_size=16).digest()

    def get(self, key: bytes, depth: int) -> CacheEntry | None:
        self.lookups += 1
        entry = self._store.get((key, depth))
        if entry is not None:
            self.hits += 1
        return entry

    def put_exact(self, key: bytes, depth: int, value: float, node: Node) -> None:
        self._store[(key, depth)] = CacheEntry(value, value, node, True)

    def put_bound(self, key: bytes, depth: int, upper: float) -> None:
        entry = self._store.get((key, depth))
        if entry is None:
            self._store[(key, depth)] = CacheEntry(upper)
        elif not entry.exact and upper < entry.upper:
            entry.upper = upper

    def __len__(self) -> int:
        return len(self._store)
