"""Complete tree structures of one depth, produced lazily in decreasing order of their
nominal accuracy (each leaf predicting its majority class), which bounds the worst case.

A depth-1 structure over a set of rows is a split; a depth-d one is a split and two
depth-(d-1) structures on its sides, whose values add: the ordered stream of a depth-d node
is a merge over its splits of the k-best sums of its children's streams (a heap each)."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..solvers.deadline import Deadline

Item = tuple[float, Any]  # (nominal correct rows, structure)


class Stream:
    """A lazily extended list of items in decreasing value; ``item(i)`` or None past the end."""

    def __init__(self, source: Iterator[Item]) -> None:
        self._source = source
        self._items: list[Item] = []

    def item(self, i: int) -> Item | None:
        while len(self._items) <= i:
            nxt = next(self._source, None)
            if nxt is None:
                return None
            self._items.append(nxt)
        return self._items[i]


def _sums(a: Stream, b: Stream, split: int) -> Iterator[Item]:
    """Pairs of items of ``a`` and ``b`` by decreasing sum, as ``(split, left, right)``."""
    first_a, first_b = a.item(0), b.item(0)
    if first_a is None or first_b is None:
        return
    heap = [(-(first_a[0] + first_b[0]), 0, 0)]
    seen = {(0, 0)}
    while heap:
        _, i, j = heapq.heappop(heap)
        ai, bj = a.item(i), b.item(j)
        yield ai[0] + bj[0], (split, ai[1], bj[1])  # type: ignore[index]
        for ni, nj in ((i + 1, j), (i, j + 1)):
            if (ni, nj) in seen:
                continue
            na, nb = a.item(ni), b.item(nj)
            if na is not None and nb is not None:
                seen.add((ni, nj))
                heapq.heappush(heap, (-(na[0] + nb[0]), ni, nj))


def _merge(streams: list[Stream]) -> Iterator[Item]:
    """The items of all ``streams`` by decreasing value."""
    heap = []
    for k, s in enumerate(streams):
        head = s.item(0)
        if head is not None:
            heap.append((-head[0], k, 0))
    heapq.heapify(heap)
    while heap:
        value, k, i = heapq.heappop(heap)
        yield -value, streams[k].item(i)[1]  # type: ignore[index]
        nxt = streams[k].item(i + 1)
        if nxt is not None:
            heapq.heappush(heap, (-nxt[0], k, i + 1))


def reorder(stream: Stream, exact: Callable[[Any], float]) -> Stream:
    """The items of ``stream`` by decreasing ``exact`` value, given that each item's value
    bounds its exact value from above: an item is given out once no later item's bound
    exceeds it."""

    def items() -> Iterator[Item]:
        heap: list[tuple[float, int, Any]] = []
        i = 0
        while True:
            nxt = stream.item(i)
            bound = nxt[0] if nxt is not None else -np.inf
            while heap and -heap[0][0] >= bound:
                value, _, structure = heapq.heappop(heap)
                yield -value, structure
            if nxt is None:
                return
            heapq.heappush(heap, (-min(exact(nxt[1]), nxt[0]), i, nxt[1]))
            i += 1

    return Stream(items())


def _side_counts(goes_left: np.ndarray, onehot: np.ndarray, rows: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Class weights ``(P, K)`` of ``rows`` on the left and right of every split."""
    left = goes_left[rows].T.astype(np.float64) @ onehot[rows]
    return left, onehot[rows].sum(axis=0)[None, :] - left


def structures(goes_left: np.ndarray, onehot: np.ndarray, rows: np.ndarray, depth: int,
               deadline: Deadline | None = None) -> Stream:
    """Complete structures of ``depth`` >= 1 over ``rows`` by decreasing nominal accuracy:
    ``goes_left`` ``(n, P)`` says which rows each split sends left, ``onehot`` ``(n, K)`` the
    classes (weighted). A structure is ``(split, left, right)`` with ``None`` children at
    depth 1. Building the roots raises ``TimeUp`` once ``deadline`` passes."""
    if depth == 1:
        return _splits(*_side_counts(goes_left, onehot, rows))
    return Stream(_merge([r.stream for r in roots(goes_left, onehot, rows, depth,
                                                  deadline=deadline)]))


def _splits(left: np.ndarray, right: np.ndarray) -> Stream:
    """The depth-1 structures with the class weights ``left`` / ``right`` ``(P, K)`` of
    their sides, by decreasing nominal accuracy."""
    value = left.max(axis=1) + right.max(axis=1)
    order = np.argsort(-value, kind="stable")
    return Stream((float(value[s]), (int(s), None, None)) for s in order)


PAIR_ROWS = 4096
"""Rows per product of :func:`_pair_counts`, the deadline asked between them: the whole
product on 50,000 rows and 234 splits took 3.4 s in one call, past a 2 s limit."""


def _pair_counts(goes_left: np.ndarray, onehot: np.ndarray, rows: np.ndarray,
                 deadline: Deadline | None = None) -> np.ndarray:
    """``(P, P, K)``: class weights of the rows going left at both split ``s`` and split
    ``p`` (one product for every depth-1 side of every root split), summed over blocks of
    :data:`PAIR_ROWS` rows; raises ``TimeUp`` once ``deadline`` passes between blocks."""
    P, K = goes_left.shape[1], onehot.shape[1]
    out = np.zeros((P, P, K))
    for start in range(0, len(rows), PAIR_ROWS):
        if deadline is not None:
            deadline.check()
        block = rows[start:start + PAIR_ROWS]
        G = goes_left[block].astype(np.float64)
        W = onehot[block]
        for k in range(K):  # a product per class over its rows only (einsum over
            has = W[:, k] != 0  # all three took 30 ms a call on car, this 3)
            Gk = G[has]
            out[:, :, k] += (Gk * W[has, k][:, None]).T @ Gk
    return out


class Root:
    """The structures with one root split: the nominal streams of its two sides and the
    stream of their pairs (ordered by ``sides`` when given, else by nominal accuracy)."""

    def __init__(self, split: int, left: Stream, right: Stream,
                 sides: Callable[[int, bool], Callable[[Any], float]] | None,
                 pairs: Callable[[int], Callable[[Any], float]] | None = None) -> None:
        self.split, self.left, self.right = split, left, right
        if sides is not None:
            left, right = reorder(left, sides(split, True)), reorder(right, sides(split, False))
        self.stream = Stream(_sums(left, right, split))
        if pairs is not None:
            self.stream = reorder(self.stream, pairs(split))

    def nominal(self) -> float:
        """The best nominal accuracy of a structure with this root (0 for an empty side)."""
        heads = (self.left.item(0), self.right.item(0))
        return sum(h[0] for h in heads if h is not None)


def roots(goes_left: np.ndarray, onehot: np.ndarray, rows: np.ndarray, depth: int,
          sides: Callable[[int, bool], Callable[[Any], float]] | None = None,
          pairs: Callable[[int], Callable[[Any], float]] | None = None,
          deadline: Deadline | None = None) -> list[Root]:
    """One :class:`Root` per split for structures of ``depth`` >= 2 over ``rows``.
    ``sides(s, left)``: a function giving a bound on what one side's structure contributes
    (at most its nominal value), whose sum over the two sides bounds the whole structure;
    ``pairs(s)``: a tighter bound on a whole structure of root ``s`` (at most that sum),
    which then orders the root's structures. Raises ``TimeUp`` once ``deadline`` passes
    (P roots over P splits each: seconds when the features' ranges are wide)."""
    out = []
    if depth == 2:  # the depth-1 sides of all root splits from one pair count
        both = _pair_counts(goes_left, onehot, rows, deadline)  # left at s and at p
        left_at = np.einsum("ssk->sk", both)  # left at s
        total = onehot[rows].sum(axis=0)
        for s in range(goes_left.shape[1]):
            if deadline is not None:
                deadline.check()
            right_of_s = left_at - both[s]  # right at s, left at p
            out.append(Root(s, _splits(both[s], left_at[s][None, :] - both[s]),
                            _splits(right_of_s, (total - left_at[s])[None, :] - right_of_s),
                            sides, pairs))
        return out
    for s in range(goes_left.shape[1]):
        if deadline is not None:
            deadline.check()
        mask = goes_left[rows, s]
        out.append(Root(s, structures(goes_left, onehot, rows[mask], depth - 1, deadline),
                        structures(goes_left, onehot, rows[~mask], depth - 1, deadline),
                        sides, pairs))
    return out
