"""The Rashomon set under a group-fairness cap (issue #46, item 3): every labelled tree
whose objective is near the certified fair optimum and whose training gap meets the cap.

A fair tree's leaves need not predict their heaviest class (relabelling a leaf is how a
fair tree closes a gap), so a member is a tree *and* its leaf labels.  Its objective is
TreeFARMS's (misclassified weight / total weight + lam per leaf) under those labels, which
is never below the objective of the same tree with heaviest-class labels.  So the
structures of the unconstrained DAG (:mod:`optrees.trees.search.rashomon.build`) within the
bound, with splits of two same-class leaves kept, hold every member; each one's labellings
are then checked whole: objective within the bound, the notion's rate gap at most the cap
(to 1e-6, the fair MIP's feasibility tolerance), and no split of two leaves of one label
(the convention of the unconstrained set).  The set is listed, so its count is exact only
when the structures fit under the caps."""

from __future__ import annotations

import itertools
import time
from functools import lru_cache

import numpy as np

from ..problem.fairness import TreeFairness
from ..search.binary.fair import fair_price, meets_bound
from ..search.rashomon import walk
from ..search.rashomon.build import LEAF_BITS, Builder, RashomonSetTooLarge, Scale
from ..search.threads import on_one_blas_thread
from .rashomon import MAX_NODES, RashomonSet, ThresholdLiterals

__all__ = ["FairRashomonSet", "build_fair_set"]

MAX_STRUCTURES = 1_000_000
"""Default cap on the tree structures whose labellings are checked (measured on compas,
3,518 rows x 10 columns, depth 3: 218,757 structures in 27 s, peak memory 335 MB)."""

MAX_LABELLINGS = 1 << 16
"""Most leaf labellings of one structure (classes ** leaves)."""

FAIR_TOLERANCE = 1e-6
"""The cap holds to the fair MIP's feasibility tolerance, so the fitted tree is a member."""


@on_one_blas_thread
def build_fair_set(X01: np.ndarray, y_enc: np.ndarray, w: np.ndarray, classes: np.ndarray,
                   names: tuple[list[str], list[str]], depth: int, lam: float,
                   epsilon: float, additive: bool, min_leaf: int, optimum: float,
                   fairness: TreeFairness, max_nodes: int = MAX_NODES,
                   literals: ThresholdLiterals | None = None,
                   max_leaves: int | None = None,
                   max_structures: int = MAX_STRUCTURES) -> FairRashomonSet:
    """The fair set on a checked 0/1 matrix, given the certified fair ``optimum``
    (TreeFARMS's units; a better fair tree found here, which the fit's MIP accepted
    within its tolerance, replaces it)."""
    bits = 0 if max_leaves is None else LEAF_BITS
    scale = Scale.make(w, lam, depth, bits)
    coords, cells = fairness.coordinates(y_enc, w)
    K, cap = len(classes), fairness.epsilon + FAIR_TOLERANCE
    for _ in range(2):
        bound = optimum + epsilon if additive else (1.0 + epsilon) * optimum
        bound_key = scale.bound_key(bound)
        relax = _Relaxation(X01, y_enc, w, K, lam, depth, bits, coords, cells, cap,
                            fairness.positive, bound)
        mu = relax.best_multipliers(min_leaf, max_nodes, max_leaves)
        shapes = relax.structures(mu, min_leaf, max_nodes, max_leaves, max_structures)
        trees, keys, gaps = _members(shapes, _Leaves(X01, y_enc, w, K, coords), K, scale,
                                     bound_key, cells, cap, fairness.positive, min_leaf)
        if len(keys) == 0:
            raise RuntimeError("the fair set holds no tree: the fitted fair tree is not in it"
                               )  # pragma: no cover - a bug, not an input
        best = float(scale.objective(keys.min()))
        if best >= optimum - 1e-9:
            break
        optimum = best  # a fair tree within the MIP's tolerances, better than its optimum
    if best > optimum + 1e-8:
        raise RuntimeError(f"the fair set's best objective {best} is not the certified "
                           f"optimum {optimum}")  # pragma: no cover - a bug, not an input
    order = np.argsort(keys, kind="stable")
    return FairRashomonSet([trees[i] for i in order], keys[order], gaps[order], scale, X01,
                           y_enc, w, classes, names,
                           dict(listable=True, max_nodes=int(max_nodes),
                                max_leaves=max_leaves, depth=depth, lam=lam,
                                epsilon=epsilon, additive=additive,
                                min_samples_leaf=min_leaf, optimum=optimum, bound=bound,
                                literals=literals, fairness=fairness.kind,
                                cap=fairness.epsilon, n_structures=len(shapes)))


MULTIPLIER_STEPS = (0.03, 0.1, 0.3, 1.0)
"""Sizes of the multipliers tried along each gap coordinate, both signs (two classes)."""

FEW_STRUCTURES = 5_000
"""Structures under the plain bound that are checked without looking for multipliers (about
0.6 s of checks; on adult, 5,000 rows, each count of the search took about 0.5 s)."""

CHECK_SECONDS = 4e-5
"""About the seconds to check one structure's labellings (compas, depth 3: 73,024 in 2.8 s).
The multiplier search stops once it has spent what checking the fewest structures it has
found would cost (ski rental): each of its counts builds the whole DAG (1.6 s there), and
its 16 counts took 26 s to save 2.8 s of checks."""

GOLDEN, GOLDEN_STEPS = 0.381966, 6
"""The golden-section search that refines a coordinate's best step (6 steps: to 3 % of
the bracket)."""


class _Enough(Exception):
    """The multiplier search has cost what checking its fewest structures would."""


class _Relaxation:
    """The structures that may hold a member, by a Lagrangian relaxation of the cap.

    For multipliers ``mu`` (one per gap coordinate), a fair tree has
    ``mu . d <= price(-mu)`` (:func:`fair_price`), so a member's
    ``error + W mu . d + lam W leaves`` is at most ``bound W + W price(-mu)``.  With two
    classes ``W mu . d`` is a per-row charge ``a_i = W mu . c_i`` on the rows of leaves
    labelled positive, which is a weighted copy of the row: of the other class when
    ``a_i > 0`` (an error under the positive label), of the positive class with weight
    ``-a_i`` otherwise (an error under the other label, which adds the constant
    ``sum(-a_i)``).  The unconstrained DAG of the copied rows then lists every structure
    within the relaxed bound; ``mu = 0`` is the plain bound."""

    def __init__(self, X01, y_enc, w, K, lam, depth, bits, coords, cells, cap, positive,
                 bound) -> None:
        self.X, self.y, self.w, self.K = X01, y_enc, w, K
        self.lam, self.depth, self.bits = lam, depth, bits
        self.coords, self.cells, self.cap, self.positive = coords, cells, cap, positive
        self.bound = bound

    def data(self, mu: np.ndarray):
        """Rows, classes, weights, scale and bound key of the relaxed problem."""
        W = float(self.w.sum())
        a = W * (self.coords @ mu) if len(mu) else np.zeros(len(self.y))
        copy = np.flatnonzero(a != 0)
        X = np.concatenate([self.X, self.X[copy]])
        other = 1 - self.positive
        y = np.concatenate([self.y, np.where(a[copy] > 0, other, self.positive)])
        w = np.concatenate([self.w, np.abs(a[copy])])
        Wa = float(w.sum())
        price = fair_price(-mu, self.cells, self.cap) if len(mu) else 0.0
        bound = (self.bound * W + W * price + float(-a[a < 0].sum())) / Wa
        lam = self.lam * W / Wa
        scale = Scale.make(w, lam, self.depth, self.bits)
        return X, y, w, scale, scale.bound_key(bound)

    def builder(self, mu, min_leaf, max_nodes, max_leaves, listing: bool):
        X, y, w, scale, key = self.data(mu)
        b = Builder(X, y, w, self.K, scale, min_leaf, int(max_nodes), max_leaves)
        b.drop_trivial, b.listing = False, listing
        return b, key

    def count(self, mu, min_leaf, max_nodes, max_leaves) -> int:
        b, key = self.builder(mu, min_leaf, max_nodes, max_leaves, False)
        return b.node(np.ones(len(b.y), dtype=bool), self.depth, key).count()

    def best_multipliers(self, min_leaf, max_nodes, max_leaves) -> np.ndarray:
        """Multipliers of few structures (0 with more than two classes, where a charge is
        no copy of a row, or when the plain bound leaves at most :data:`FEW_STRUCTURES`):
        per coordinate in turn, the fewest structures over
        :data:`MULTIPLIER_STEPS` of both signs, then a golden-section search between the
        best step's neighbours (the count is about unimodal along a coordinate).  The
        search ends early, with the fewest found, once it has cost what checking them
        would (:data:`CHECK_SECONDS`); any multipliers give the same set."""
        D = self.coords.shape[1]
        mu = np.zeros(D)
        if self.K != 2 or D == 0:
            return mu
        memo: dict[bytes, int] = {}
        best: list = [np.inf, mu]  # the fewest structures counted and their multipliers
        started = time.perf_counter()

        def count(m: np.ndarray) -> int:
            key = m.tobytes()
            if key not in memo:
                memo[key] = self.count(m, min_leaf, max_nodes, max_leaves)
                if memo[key] < best[0]:
                    best[:] = [memo[key], m.copy()]
                if time.perf_counter() - started > best[0] * CHECK_SECONDS:
                    raise _Enough
            return memo[key]

        try:
            return self._search(mu, count)
        except _Enough:
            return best[1]

    def _search(self, mu: np.ndarray, count) -> np.ndarray:
        """:meth:`best_multipliers`' coordinate search from ``mu`` (changed in place)."""
        D = len(mu)
        if count(mu) <= FEW_STRUCTURES:  # checking them costs less than the search
            return mu
        for j in range(D):
            grid = sorted({mu[j], *(s * t for t in MULTIPLIER_STEPS for s in (1.0, -1.0))})

            def at(t: float, j: int = j) -> int:
                m = mu.copy()
                m[j] = t
                return count(m)

            # the small steps first: a large one can count far more (compas: 73,024
            # structures at 0, 732 million at -1, 6.8 s), and the search may stop early
            for t in sorted(grid, key=abs):
                at(t)
            counts = [at(t) for t in grid]  # counted: read from the memo
            k = int(np.argmin(counts))
            lo, hi = grid[max(k - 1, 0)], grid[min(k + 1, len(grid) - 1)]
            best_t, best_n = grid[k], counts[k]
            a, b = lo + GOLDEN * (hi - lo), hi - GOLDEN * (hi - lo)
            for _ in range(GOLDEN_STEPS):
                na, nb = at(a), at(b)
                for t, n in ((a, na), (b, nb)):
                    if n < best_n:
                        best_t, best_n = t, n
                if na <= nb:
                    hi, b = b, a
                    a = lo + GOLDEN * (hi - lo)
                else:
                    lo, a = a, b
                    b = hi - GOLDEN * (hi - lo)
            mu[j] = best_t
        return mu

    def structures(self, mu, min_leaf, max_nodes, max_leaves,
                   max_structures) -> list[walk.Tree]:
        """Every structure within the relaxed bound (two leaves of one class under a split
        included); one clear error past the caps."""
        b, key = self.builder(mu, min_leaf, max_nodes, max_leaves, True)
        rows = np.ones(len(b.y), dtype=bool)
        try:
            root, listed = b.node(rows, self.depth, key), True
        except RashomonSetTooLarge:  # counted, to name the count
            b, key = self.builder(mu, min_leaf, max_nodes, max_leaves, False)
            root, listed = b.node(rows, self.depth, key), False
        if not listed or root.count() > max_structures:
            raise RashomonSetTooLarge(
                f"the fair Rashomon set is found by checking the labellings of every tree "
                f"structure that may hold a member; there are {root.count():,} of them, "
                f"more than " + (f"max_structures={max_structures:,}" if listed else
                                 f"max_nodes={max_nodes:,} stored entries can list")
                + ": lower epsilon or raise lam")
        return list(walk.trees(root))


def _leaf_paths(tree: walk.Tree, path: frozenset, out: list[frozenset],
                siblings: list[bool]) -> None:
    """Each leaf of ``tree`` as the set of its tests ``(feature, side)``, left to right, and
    per pair of consecutive leaves whether they are the two children of one split."""
    if isinstance(tree, int):
        if out:
            siblings.append(False)
        out.append(path)
        return
    f, left, right = tree
    _leaf_paths(left, path | {(f, 0)}, out, siblings)
    _leaf_paths(right, path | {(f, 1)}, out, siblings)
    if isinstance(left, int) and isinstance(right, int):
        siblings[-1] = True


class _Leaves:
    """Every leaf met (its set of tests, whatever their order in the tree) by number, with
    its rows, class weights and positive-prediction gap coordinates, computed once."""

    def __init__(self, X01, y_enc, w, K, coords) -> None:
        self.X = np.asarray(X01, dtype=bool)
        self.Y = w[:, None] * (y_enc[:, None] == np.arange(K))  # n x K class weights
        self.coords, self.number = coords, {}
        self.rows: list[int] = []
        self.cw: list[np.ndarray] = []
        self.cs: list[np.ndarray] = []

    def id(self, path: frozenset) -> int:
        got = self.number.get(path)
        if got is None:
            rows = np.ones(len(self.X), dtype=bool)
            for f, side in path:
                rows &= self.X[:, f] if side else ~self.X[:, f]
            got = self.number[path] = len(self.rows)
            self.rows.append(int(rows.sum()))
            self.cw.append(self.Y[rows].sum(axis=0))
            self.cs.append(self.coords[rows].sum(axis=0))
        return got

    def tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return np.array(self.rows), np.array(self.cw), np.array(self.cs)


@lru_cache(maxsize=64)
def _labellings(n_classes: int, n_leaves: int) -> np.ndarray:
    """Every assignment of classes to leaves (classes ** leaves x leaves)."""
    return np.array(list(itertools.product(range(n_classes), repeat=n_leaves)),
                    dtype=np.int64).reshape(-1, n_leaves)


BATCH = 2048
"""Structures whose labellings are checked in one array (2048 x 256 keys at depth 3)."""


def _members(shapes: list[walk.Tree], leaves: _Leaves, K: int, scale: Scale,
             bound_key: int, cells: list[list[int]], cap: float, positive: int,
             min_leaf: int) -> tuple[list[walk.Tree], np.ndarray, np.ndarray]:
    """Every labelling of the structures that is a member, as labelled trees, with their
    keys and gaps (in each cell the largest rate minus the smallest, the largest over the
    cells); structures of one leaf count are checked together, a batch at a time."""
    groups: dict[int, list] = {}
    for s, tree in enumerate(shapes):
        paths: list[frozenset] = []
        siblings: list[bool] = []
        _leaf_paths(tree, frozenset(), paths, siblings)
        groups.setdefault(len(paths), []).append(
            (s, [leaves.id(p) for p in paths], siblings))
    rows, cw, cs = leaves.tables()
    trees, keys, gaps = [], [], []
    for L, group in sorted(groups.items()):
        if K ** L > MAX_LABELLINGS:
            raise RashomonSetTooLarge(f"a structure of {L} leaves has {K}^{L} labellings, "
                                      f"more than the {MAX_LABELLINGS:,} checked per "
                                      f"structure")
        labels = _labellings(K, L)
        chosen = [labels == k for k in range(K)]               # C x L, per class
        same = (labels[:, 1:] == labels[:, :-1]).astype(np.int64)  # C x (L - 1)
        for start in range(0, len(group), BATCH):
            part = group[start:start + BATCH]
            ids = np.array([g[1] for g in part]).reshape(len(part), L)
            sib = np.array([g[2] for g in part], dtype=np.int64).reshape(len(part), L - 1)
            errors = cw[ids].sum(axis=2, keepdims=True) - cw[ids]   # S x L x K
            leaf_keys = scale.leaf_keys(np.maximum(errors, 0.0))
            key = sum(leaf_keys[:, :, k] @ chosen[k].T.astype(np.int64) for k in range(K))
            ok = (key <= bound_key) & (sib @ same.T == 0)  # a split of two leaves of one
            ok &= (rows[ids].min(axis=1) >= max(1, min_leaf))[:, None]  # label is no tree
            si, ci = np.nonzero(ok)
            d = np.einsum("ml,mld->md", chosen[positive][ci].astype(float), cs[ids[si]])
            fair = meets_bound(d, cells, cap) if len(cells) else np.ones(len(d), bool)
            for a, c in zip(si[fair].tolist(), ci[fair].tolist(), strict=True):
                trees.append(_relabel(shapes[part[a][0]], iter(labels[c].tolist())))
            keys.append(key[si[fair], ci[fair]])
            gaps.append(_spread(d[fair], cells))
    if not keys:
        return trees, np.zeros(0, np.int64), np.zeros(0)
    return trees, np.concatenate(keys), np.concatenate(gaps)


def _spread(d: np.ndarray, cells: list[list[int]]) -> np.ndarray:
    """Each row's gap from its gap coordinates ``d``: in each cell the largest rate minus the
    smallest (the reference group's coordinate is 0), the largest over the cells."""
    if not cells:
        return np.zeros(len(d))
    return np.max([np.maximum(d[:, c].max(axis=1), 0) - np.minimum(d[:, c].min(axis=1), 0)
                   for c in cells], axis=0)


def _relabel(tree: walk.Tree, labels) -> walk.Tree:
    """``tree`` with its leaves' classes taken from ``labels`` in left-to-right order."""
    if isinstance(tree, int):
        return next(labels)
    f, left, right = tree
    return (f, _relabel(left, labels), _relabel(right, labels))


class FairRashomonSet(RashomonSet):
    """The trees of a fair Rashomon set, listed (labelled trees: a leaf's class need not be
    its heaviest); the interface of :class:`RashomonSet`, plus ``gaps`` (each tree's
    realised training gap of the notion ``fairness``), ``cap`` and ``n_structures`` (the
    tree structures within the bound whose labellings were checked)."""

    def __init__(self, trees: list[walk.Tree], keys: np.ndarray, gaps: np.ndarray,
                 scale: Scale, X01: np.ndarray, y_enc: np.ndarray, w: np.ndarray,
                 classes: np.ndarray, names: tuple[list[str], list[str]],
                 settings: dict) -> None:
        self._trees, self._keys, self.gaps = trees, keys, gaps
        self._scale, self.stored = scale, len(trees)
        self._data = (X01, y_enc, w)
        self.classes = np.asarray(classes)
        self.feature_names, self.negated_names = list(names[0]), list(names[1])
        for name, value in settings.items():
            setattr(self, name, value)
        self.count = len(trees)
        self._importance = None

    def __repr__(self) -> str:
        kind = "+" if self.additive else "x(1+)"
        return (f"FairRashomonSet({self.count} trees, {self.fairness} <= {self.cap:g}, "
                f"depth {self.depth}, lam {self.lam}, epsilon {self.epsilon} {kind}, "
                f"fair optimum {self.optimum:.6g})")

    def structure(self, i: int) -> walk.Tree:
        return self._trees[self._index(i)]

    def structures(self):
        return iter(self._trees)

    def objective_counts(self) -> tuple[np.ndarray, list[int]]:
        keys, counts = np.unique(self._keys, return_counts=True)
        return self._scale.objective(keys), [int(c) for c in counts]

    def feature_importance(self):
        import pandas as pd
        if self._importance is None:
            used = np.zeros(len(self.feature_names))
            for tree in self._trees:
                used[list(_features(tree))] += 1
            self._importance = used / max(self.count, 1)
        return pd.Series(self._importance, index=self.feature_names,
                         name="share of trees splitting on it")


def _features(tree: walk.Tree) -> set[int]:
    if isinstance(tree, int):
        return set()
    return {tree[0]} | _features(tree[1]) | _features(tree[2])
