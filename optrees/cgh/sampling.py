"""CGH threshold sampling ([CGH] §5, Algorithm 1) and the split table.

A split ``a = (f, v_f <= mu)`` sends a row left when ``x[f] <= mu``.  Thresholds are kept in a
canonical form: the midpoint between two consecutive distinct training values of ``f``, so two
CART thresholds that cut the training data the same way become the same split.  CART grows on
each column's value ranks (:mod:`optrees.encoding.ranks`: scikit-learn reads float32 and
never splits values closer than 1e-7, so on the values the splits changed with a column's
units); :meth:`SplitTable.from_cart` maps its rank threshold to the canonical split of the
same partition of the training rows, so the paths of a CART tree reproduce its accuracy.

Split id 0 is the *pass* split ``(f, v_f <= max v_f)``: every row goes left.  It lets a full
depth-k path stand for a CART leaf above depth k (and lets the master choose shallower trees);
it is the only split allowed several times on one decision path (Definition 2 (ii)).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from .._numbers import clean_midpoints
from ..encoding.ranks import Ranked
from ..solvers.deadline import Deadline

PASS = 0


class SplitTable:
    """Global list of splits (feature, canonical threshold) with their row masks."""

    def __init__(self, X: np.ndarray) -> None:
        self.X = np.asarray(X, dtype=float)
        ranked = Ranked(self.X)
        self.uniq = ranked.values  # each column's sorted distinct values
        self.ranks = ranked.ranks  # what CART grows on
        self.feature: list[int] = [-1]
        self.threshold: list[float] = [np.inf]
        self._ids: dict[tuple[int, int], int] = {}

    def __len__(self) -> int:
        return len(self.feature)

    def add(self, f: int, k: int) -> int | None:
        """Split of feature ``f`` between its ``k``-th and ``k+1``-th distinct values."""
        u = self.uniq[f]
        if k <= 0 or k >= len(u):
            return None  # all rows on one side: not a real split
        sid = self._ids.get((int(f), int(k)))
        if sid is None:  # 0.1358, not 0.13579999999999998
            sid = self._new(int(f), int(k), float(clean_midpoints(u[k - 1], u[k])))
        return sid

    def _new(self, f: int, k: int, threshold: float) -> int:
        """Record the split of feature ``f`` at gap ``k`` (not known yet); its id."""
        sid = self._ids[(f, k)] = len(self.feature)
        self.feature.append(f)
        self.threshold.append(threshold)
        return sid

    def from_cart(self, f: int, thr: float) -> int | None:
        """Canonical split with the same training partition as sklearn's ``rank(x[f]) <=
        thr`` (a tree grown on :attr:`ranks`)."""
        return self.add(f, int(np.floor(thr)) + 1)

    def add_all(self) -> np.ndarray:
        """Every split of the full-information problem (§3); returns their ids (the ids
        :meth:`add` gives split by split, with each column's midpoints cleaned at once)."""
        out = []
        for f, u in enumerate(self.uniq):
            mids = clean_midpoints(u[:-1], u[1:])
            out.extend(self._add_block(f, mids))
        return np.array(out, dtype=np.int64)

    def _add_block(self, f: int, mids: np.ndarray) -> list[int]:
        """Ids of the splits of feature ``f`` at every gap k = 1.. (``mids``: their
        thresholds), adding those not known yet."""
        ids = []
        for k, mid in enumerate(mids.tolist(), start=1):
            sid = self._ids.get((f, k))
            ids.append(self._new(f, k, mid) if sid is None else sid)
        return ids

    def masks(self, ids: np.ndarray | None = None,
              rows: np.ndarray | None = None) -> np.ndarray:
        """Boolean matrix (splits x rows, all rows by default): True where the row goes
        left."""
        ids = np.arange(len(self)) if ids is None else np.asarray(ids)
        X = self.X if rows is None else self.X[rows]
        out = np.ones((len(ids), X.shape[0]), dtype=bool)
        for i, s in enumerate(ids):
            if s != PASS:
                out[i] = X[:, self.feature[s]] <= self.threshold[s]
        return out


def cart_heap_splits(tree: DecisionTreeClassifier) -> dict[int, tuple[int, float]]:
    """Splits of a fitted sklearn tree by heap position (root 1, children 2n, 2n+1)."""
    t = tree.tree_
    out: dict[int, tuple[int, float]] = {}
    stack = [(0, 1)]
    while stack:
        node, heap = stack.pop()
        left = t.children_left[node]
        if left == -1:
            continue
        out[heap] = (int(t.feature[node]), float(t.threshold[node]))
        stack.append((int(left), 2 * heap))
        stack.append((int(t.children_right[node]), 2 * heap + 1))
    return out


@dataclass
class SplitSets:
    """Restricted split sets S_j per internal heap node, and the 100 % CART tree."""

    table: SplitTable
    depth: int
    node_splits: dict[int, np.ndarray]  # heap node j -> split ids (PASS first)
    cart: dict[int, int]  # heap node j -> split id of the 100 % CART tree (PASS below its leaves)
    stats: dict = field(default_factory=dict)


def default_q(depth: int) -> tuple[int, int]:
    """q_root = floor(150 / |N_int|), q_j = floor(100 / |N_int|) (§7.2), at least 1."""
    n_int = 2**depth - 1
    return max(1, 150 // n_int), max(1, 100 // n_int)


def threshold_sampling(
    X: np.ndarray,
    y: np.ndarray,
    depth: int,
    alpha: float = 90.0,
    tau: int = 300,
    q_root: int | None = None,
    q_node: int | None = None,
    max_rounds: int | None = None,
    deadline: Deadline | None = None,
    seed: int = 0,
    all_splits: bool = False,
    sample_weight: np.ndarray | None = None,
) -> SplitSets:
    """Algorithm 1: CART on random alpha % subsets until the root split has been seen before
    in tau consecutive rounds; keep the q_j most frequent splits per node, plus the splits of
    CART on 100 % of the data.  At most ``max_rounds`` rounds (default 3 tau: on continuous
    data the root threshold may keep moving) and none after ``deadline``.
    ``all_splits=True`` gives the full-information problem instead (every split at every
    node; no sampling).  ``sample_weight`` weights the rows of every CART.
    """
    t0 = time.perf_counter()
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    n = X.shape[0]
    table = SplitTable(X)
    n_int = 2**depth - 1
    dq_root, dq_node = default_q(depth)
    q_root = dq_root if q_root is None else int(q_root)
    q_node = dq_node if q_node is None else int(q_node)
    max_rounds = 3 * tau if max_rounds is None else int(max_rounds)
    rng = np.random.default_rng(seed)
    ranks = table.ranks

    def fit_cart(idx: np.ndarray | None, rs: int) -> dict[int, tuple[int, float]]:
        clf = DecisionTreeClassifier(max_depth=depth, random_state=rs)
        w = sample_weight
        if idx is None:
            clf.fit(ranks, y, sample_weight=w)
        else:
            clf.fit(ranks[idx], y[idx], sample_weight=None if w is None else w[idx])
        return cart_heap_splits(clf)

    # line 13: CART on 100 % of the data (fitted first so that it is there even at a timeout)
    cart: dict[int, int] = {}
    for j, (f, thr) in fit_cart(None, seed).items():
        sid = table.from_cart(f, thr)
        if sid is not None:
            cart[j] = sid
    for j in range(1, n_int + 1):  # below a CART leaf: pass splits
        cart.setdefault(j, PASS)

    freq: dict[int, Counter] = {j: Counter() for j in range(1, n_int + 1)}
    first_seen: dict[int, int] = {}
    rounds = stable = 0
    root_seen: set[int | None] = set()
    m = max(2, int(round(alpha / 100.0 * n)))
    splittable = any(len(u) > 1 for u in table.uniq)
    if not all_splits and splittable:
        while stable < tau and rounds < max_rounds:
            if deadline is not None and deadline.expired():
                break
            idx = None if m >= n else np.sort(rng.choice(n, m, replace=False))
            splits = fit_cart(idx, int(rng.integers(2**31 - 1)))
            rounds += 1
            for j, (f, thr) in splits.items():  # lines 5-6: frequencies and split sets
                sid = table.from_cart(f, thr)
                if sid is None:
                    continue
                freq[j][sid] += 1
                first_seen.setdefault(sid, len(first_seen))
            root = table.from_cart(*splits[1]) if 1 in splits else None
            # lines 7-11, the membership test done before the update, as described in §5
            stable = stable + 1 if root in root_seen else 0
            root_seen.add(root)

    node_splits: dict[int, np.ndarray] = {}
    every = table.add_all() if all_splits else None
    for j in range(1, n_int + 1):
        if every is not None:
            chosen = list(every)
        else:
            q = q_root if j == 1 else q_node
            ranked = sorted(freq[j], key=lambda s: (-freq[j][s], first_seen[s]))
            chosen = ranked[:q]
        if cart[j] != PASS and cart[j] not in chosen:
            chosen.append(cart[j])
        node_splits[j] = np.array([PASS, *chosen], dtype=np.int64)
    stats = {
        "sampling_rounds": rounds,
        "sampling_stable": bool(stable >= tau) or all_splits,
        "sampling_seconds": time.perf_counter() - t0,
        "n_splits": len(table) - 1,
        "splits_per_node": {j: len(s) - 1 for j, s in node_splits.items()},
    }
    return SplitSets(table, depth, node_splits, cart, stats)
