"""D2S: optimal classification subtree of depth at most 2 with a per-leaf penalty.

Implements the subroutine of ``shared/papers/[BendOCT]`` Appendix B.1 (the
MurTree depth-2 algorithm extended to a leaf penalty and to multi-class data), returning
what §5.2 asks of ``D2S(Ī, λ)``: the correctly / incorrectly classified samples
(``correct`` / ``~correct``), the branch nodes with their features and the leaves with their
classes.

Frequency counters (B.1, eqs. 27-30) come from one Gram matrix ``X_kᵀ X_k`` per class ``k``
(``X_k`` = rows of class ``k``): ``FQ(k, a, b) = (X_kᵀ X_k)[a, b]`` and ``FQ(k, a)`` is its
diagonal.  Everything else is vectorized over feature pairs; only classes and the (at most
five) topologies are looped over.  Time ``O(|Ī|·F² + K·F²)``, memory ``O(F²)`` besides one
Gram matrix at a time.

Conventions are those of :mod:`optrees.trees.problem.tree_problem`: branching on ``f``
sends ``x_f = 0`` left and ``x_f = 1`` right; heap numbering root 1, children 2 (left) / 3 (right),
grandchildren 4..7.

Penalty: ``leaf_penalty`` is in *sample counts* (the paper's λ̄ = λ·|I|), so
``score = n_correct - leaf_penalty * n_leaves``.  With sample weights every count is a sum
of weights (``FQ(k, a, b) = (X_kᵀ W_k X_k)[a, b]``) and the penalty is in weight units.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...solvers.deadline import Deadline, check_deadline
from ..problem.tree_problem import HeapTree

__all__ = ["SubtreeResult", "d2s", "split_scores"]

# counts are exact in float32 below 2**24; the leaf-leaf counter has intermediates up to 2n
_FLOAT32_MAX_ROWS = 2**23


@dataclass
class SubtreeResult:
    """Optimal depth-≤2 subtree returned by :func:`d2s` (accelerated-bendoct §5.2).

    ``tree`` always has the depth-2 heap layout (``split`` length 3, ``label`` length 7);
    nodes below a leaf have split ``-1`` and copy their parent's label.  ``correct`` is the
    paper's Î⁺ as a mask over the selected rows (``~correct`` is Î⁻).
    """

    tree: HeapTree
    score: float
    n_correct: int
    n_leaves: int
    correct: np.ndarray
    correct_weight: float = 0.0  # weight of the correct rows (= n_correct, unit weights)

    @property
    def branches(self) -> list[tuple[int, int]]:
        """B_sub of §5.2: ``(node, feature)`` for the 0-3 branch nodes (heap numbering)."""
        out, stack = [], [1]
        while stack:
            n = stack.pop()
            if n <= len(self.tree.split) and self.tree.split[n - 1] >= 0:
                out.append((n, int(self.tree.split[n - 1])))
                stack += [2 * n, 2 * n + 1]
        return sorted(out)

    @property
    def leaves(self) -> list[tuple[int, int]]:
        """L_sub of §5.2: ``(node, class)`` for the 1-4 leaves (heap numbering)."""
        out, stack = [], [1]
        while stack:
            n = stack.pop()
            if n <= len(self.tree.split) and self.tree.split[n - 1] >= 0:
                stack += [2 * n, 2 * n + 1]
            else:
                out.append((n, int(self.tree.label[n - 1])))
        return sorted(out)


def _select(X: np.ndarray, y: np.ndarray, n_classes: int, rows: np.ndarray | None,
            weights: np.ndarray | None = None
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Checked ``(X, y, weights)`` of the selected rows (weights None: all ones)."""
    X = np.asarray(X)
    y = np.asarray(y)
    if weights is not None:
        weights = np.asarray(weights, dtype=np.float64)
        if weights.shape != y.shape:
            raise ValueError("weights must have one entry per sample")
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {X.shape}")
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have shape ({X.shape[0]},), got {y.shape}")
    if rows is not None:
        rows = np.asarray(rows)
        if rows.dtype == bool:
            if rows.shape != (X.shape[0],):
                raise ValueError("boolean rows mask must have one entry per sample")
        elif rows.size and not np.issubdtype(rows.dtype, np.integer):
            raise ValueError("rows must be an integer index array or a boolean mask")
        X, y = X[rows], y[rows]
        weights = None if weights is None else weights[rows]
    y = y.astype(np.int64, copy=False)
    if y.size and (y.min() < 0 or y.max() >= n_classes):
        raise ValueError(f"labels must lie in 0..{n_classes - 1}")
    if X.dtype != np.uint8:
        if X.size and not np.isin(X, (0, 1)).all():
            raise ValueError("X must be binary (0/1)")
        X = X.astype(np.uint8)
    elif X.size and X.max() > 1:
        raise ValueError("X must be binary (0/1)")
    return X, y, weights


_GRAM_ROWS = 8192
"""Rows per block of a class's pair counts when a deadline is given (see :func:`_gram`)."""


def _gram(X: np.ndarray, idx: np.ndarray, w: np.ndarray | None, dtype,
          deadline: Deadline | None) -> np.ndarray:
    """``X[idx]' diag(w) X[idx]`` in ``dtype``; with ``deadline``, in blocks of
    :data:`_GRAM_ROWS` rows, asking it before each (:class:`TimeUp` once passed).  One
    product over 75,000 rows x 100 features took 1.4 s on a loaded machine: polishing a
    start after a stopped search ran 2.8 s past the limit (BendOCT, 150,000 rows)."""
    step = idx.size if deadline is None else _GRAM_ROWS
    F = X.shape[1]
    gram = np.zeros((F, F), dtype)
    for start in range(0, idx.size, max(step, 1)):
        check_deadline(deadline)
        part = idx[start:start + step]
        Xk = X[part].astype(dtype)
        gram += Xk.T @ (Xk if w is None else Xk * w[part, None])
    return gram


def _counters(X: np.ndarray, y: np.ndarray, n_classes: int, pairs: bool,
              w: np.ndarray | None = None, deadline: Deadline | None = None):
    """Per-node classification scores CS of B.1 eqs. (31)-(33), maximized over classes.

    Returns ``CS``, ``CS(f̄a)``, ``CS(fa)`` and, when ``pairs``, the four ``F x F`` arrays
    ``CS(f̄a, f̄b)``, ``CS(f̄a, fb)``, ``CS(fa, f̄b)``, ``CS(fa, fb)`` (rows ``a``, columns ``b``).
    ``deadline``: asked between blocks of rows of the pair counts (:func:`_gram`).
    """
    n, n_feat = X.shape
    # counts are exact in float32; sums of weights need float64
    dtype = np.float32 if n < _FLOAT32_MAX_ROWS and w is None else np.float64
    root = 0.0
    left1 = np.zeros(n_feat, dtype)   # max_k FQ(k, f̄a)
    right1 = np.zeros(n_feat, dtype)  # max_k FQ(k, fa)
    quad = [np.zeros((n_feat, n_feat), dtype) for _ in range(4)] if pairs else []
    order = np.argsort(y, kind="stable")
    bounds = np.searchsorted(y[order], np.arange(n_classes + 1))
    for k in range(n_classes):
        idx = order[bounds[k]:bounds[k + 1]]
        if idx.size == 0:
            continue
        n_k = float(idx.size) if w is None else float(w[idx].sum())
        root = max(root, n_k)
        if pairs:
            gram = _gram(X, idx, w, dtype, deadline)  # FQ(k, a, b)
            d = np.diag(gram).copy()               # FQ(k, a)
            da, db = d[:, None], d[None, :]
            np.maximum(quad[3], gram, out=quad[3])                   # (a, b)
            np.maximum(quad[2], da - gram, out=quad[2])              # (a, b̄)   eq. 28
            np.maximum(quad[1], db - gram, out=quad[1])              # (ā, b)   eq. 29
            np.maximum(quad[0], (n_k - da) - (db - gram), out=quad[0])  # (ā, b̄) eq. 30
        else:
            Xk = X[idx].astype(dtype)
            d = (Xk if w is None else Xk * w[idx, None]).sum(axis=0, dtype=dtype)
        np.maximum(right1, d, out=right1)
        np.maximum(left1, n_k - d, out=left1)                        # eq. 27
    return root, left1, right1, quad


def _label_tree(X: np.ndarray, y: np.ndarray, n_classes: int, split: np.ndarray,
                w: np.ndarray | None = None) -> HeapTree:
    """Majority label (by weight) at every reached node (ties → lowest class); unreached
    nodes copy the parent's label."""
    label = np.zeros(7, dtype=np.int64)
    reach = {1: np.ones(X.shape[0], dtype=bool)}
    for node in range(1, 8):
        mask = reach.get(node)
        parent = label[node // 2 - 1] if node > 1 else 0
        if mask is None or not mask.any():
            label[node - 1] = parent
            continue
        weights = None if w is None else w[mask]
        label[node - 1] = int(np.argmax(np.bincount(y[mask], weights, minlength=n_classes)))
        if node <= 3 and split[node - 1] >= 0:
            go_right = X[:, split[node - 1]] == 1
            reach[2 * node], reach[2 * node + 1] = mask & ~go_right, mask & go_right
    return HeapTree(split, label)


def d2s(X: np.ndarray, y: np.ndarray, n_classes: int, leaf_penalty: float = 0.0,
        max_depth: int = 2, rows: np.ndarray | None = None,
        weights: np.ndarray | None = None, deadline: Deadline | None = None) -> SubtreeResult:
    """Optimal subtree of depth ≤ ``max_depth`` (≤ 2) maximizing
    ``n_correct - leaf_penalty * n_leaves`` (accelerated-bendoct Appendix B.1, eqs. 27-40);
    with ``weights`` (≥ 0, one per sample) the weight of the correct rows instead.

    ``X`` is binary (n x F), ``y`` holds classes ``0..n_classes-1``; ``rows`` (index array
    or boolean mask) selects the subset Ī, and every output refers to that subset.
    Topologies: one leaf, stump, root + one expanded child (either side), full depth 2.
    Ties prefer fewer leaves, then the lexicographically smallest (root, left child, right
    child) features, then the left-expanded 3-leaf tree.  An empty subset gives one leaf of
    class 0 with score ``-leaf_penalty``.  ``deadline``: the pair counts stop with
    :class:`TimeUp` once it has passed (none inside the solver's callbacks).
    """
    if max_depth not in (0, 1, 2):
        raise ValueError(f"max_depth must be 0, 1 or 2, got {max_depth}")
    if n_classes < 1:
        raise ValueError("n_classes must be positive")
    leaf_penalty = float(leaf_penalty)
    if not np.isfinite(leaf_penalty):
        raise ValueError("leaf_penalty must be finite")
    Xs, ys, ws = _select(X, y, n_classes, rows, weights)
    n, n_feat = Xs.shape
    # counts are integers under unit weights: round away float32 noise
    exact = int if ws is None else float

    split = np.full(3, -1, dtype=np.int64)
    # candidates (correct weight, n_leaves, split) in order of preference on equal score
    candidates: list[tuple[float, int, np.ndarray]] = []
    if n == 0:
        candidates.append((0, 1, split))
    else:
        use_pairs = max_depth == 2 and n_feat > 0
        cs, left1, right1, quad = _counters(Xs, ys, n_classes, use_pairs, ws, deadline)
        candidates.append((exact(cs), 1, split))                           # eq. 31
        if max_depth >= 1 and n_feat > 0:
            stump = left1 + right1                                         # eq. 34
            a = int(np.argmax(stump))
            candidates.append((exact(stump[a]), 2, np.array([a, -1, -1])))
        if use_pairs:
            q_ll, q_lr, q_rl, q_rr = quad
            sub_l = q_ll + q_lr                    # left child expanded on b
            sub_r = q_rl + q_rr                    # right child expanded on b
            b_l = np.argmax(sub_l, axis=1)
            b_r = np.argmax(sub_r, axis=1)
            cs_l = np.take_along_axis(sub_l, b_l[:, None], axis=1)[:, 0]   # eq. 35
            cs_r = np.take_along_axis(sub_r, b_r[:, None], axis=1)[:, 0]   # eq. 36
            three_l = right1 + cs_l                                        # eq. 37
            three_r = left1 + cs_r                                         # eq. 38
            al, ar = int(np.argmax(three_l)), int(np.argmax(three_r))
            opts = [(exact(three_l[al]), al, 0), (exact(three_r[ar]), ar, 1)]
            best3, a3, side = max(opts, key=lambda t: (t[0], -t[1], -t[2]))  # eq. 39
            s3 = np.array([a3, b_l[a3], -1]) if side == 0 else np.array([a3, -1, b_r[a3]])
            candidates.append((best3, 3, s3))
            four = cs_l + cs_r
            a4 = int(np.argmax(four))
            candidates.append((exact(four[a4]), 4, np.array([a4, b_l[a4], b_r[a4]])))

    # eq. 40 with ties to fewer leaves (tolerance guards against rounding in penalty * H)
    scores = [c - leaf_penalty * h for c, h, _ in candidates]
    total = float(n if ws is None else ws.sum())
    tol = 1e-9 * (1.0 + total + 4.0 * abs(leaf_penalty))
    best = max(scores)
    chosen = next(i for i, s in enumerate(scores) if s >= best - tol)
    expect, n_leaves, split = candidates[chosen]

    tree = _label_tree(Xs, ys, n_classes, np.asarray(split, dtype=np.int64), ws)
    correct = tree.label[tree.terminal(Xs) - 1] == ys
    n_correct = int(correct.sum())
    mass = n_correct if ws is None else float(ws[correct].sum())
    if abs(mass - expect) > tol:  # pragma: no cover - would indicate a counter bug
        raise AssertionError(f"D2S counters ({expect}) disagree with the tree ({mass})")
    return SubtreeResult(tree=tree, score=float(mass - leaf_penalty * n_leaves),
                         n_correct=n_correct, n_leaves=n_leaves, correct=correct,
                         correct_weight=float(mass))


def split_scores(X: np.ndarray, y: np.ndarray, n_classes: int, leaf_penalty: float = 0.0,
                 rows: np.ndarray | None = None, weights: np.ndarray | None = None,
                 deadline: Deadline | None = None) -> tuple[np.ndarray, np.ndarray]:
    """D2S scores (max_depth 2) of both sides of every root split, in one batch.

    Returns ``(left, right)`` of length F: ``left[f]`` is ``d2s(...).score`` for the selected
    rows with ``x_f = 0``, ``right[f]`` for ``x_f = 1``.  The counters of a side come from
    the whole subset's: per class, ``T[f, a, b] = sum x_f x_a x_b`` gives the side's Gram
    matrix (``T[f]`` right, ``G - T[f]`` left), so the 2F subproblems cost one
    ``O(|Ī|·F³)`` product instead of 2F Gram matrices.  ``weights`` as in :func:`d2s`.
    ``deadline``: asked before each class's product of each block of features (and by the
    D2S of the whole subset), :class:`TimeUp` once passed; none inside the solver's
    callbacks (issue #42: a BendersOCT build on 150,000 rows that ran it unchecked took
    120.8 s of a 100 s limit).
    """
    Xs, ys, ws = _select(X, y, n_classes, rows, weights)
    n, F = Xs.shape
    L = float(leaf_penalty)
    left, right = np.empty(F), np.empty(F)
    # A column that is constant on the subset leaves one side empty (score -L) and the other
    # with every sample; it never beats leaving it out, so the batch drops such columns.
    ones = Xs.sum(axis=0, dtype=np.int64)
    active = np.flatnonzero((ones > 0) & (ones < n))
    whole = (d2s(Xs[:, active], ys, n_classes, L, 2, weights=ws, deadline=deadline).score
             if len(active) < F else 0.0)
    left[ones == 0], right[ones == 0] = whole, -L
    left[ones == n], right[ones == n] = -L, whole
    if len(active):
        left[active], right[active] = _active_split_scores(Xs[:, active], ys, n_classes, L,
                                                           ws, deadline)
    return left, right


def _active_split_scores(Xs: np.ndarray, ys: np.ndarray, n_classes: int, L: float,
                         ws: np.ndarray | None = None, deadline: Deadline | None = None
                         ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`split_scores` for a subset on which no column is constant; ``deadline`` is
    asked before every class's Gram matrix and every class's product of a feature block."""
    n, F = Xs.shape
    dtype = np.float32 if n < _FLOAT32_MAX_ROWS and ws is None else np.float64
    left, right = np.empty(F), np.empty(F)
    order = np.argsort(ys, kind="stable")
    bounds = np.searchsorted(ys[order], np.arange(n_classes + 1))
    members = [order[bounds[k]:bounds[k + 1]] for k in range(n_classes)]
    classes = [Xs[idx].astype(dtype) for idx in members]
    # X_k weighted by row (X_k itself under unit weights): counters are X_kᵀ W_k X_k
    weighted = classes if ws is None else [Xk * ws[idx, None]
                                           for Xk, idx in zip(classes, members, strict=True)]
    grams = []
    for Xk, wXk in zip(classes, weighted, strict=True):
        check_deadline(deadline)
        grams.append((Xk.T @ wXk, wXk.sum(axis=0)))
    block = max(1, min(F, 2**22 // max(1, F * F), 2**23 // max(1, n * F)))
    for lo in range(0, F, block):
        fs = np.arange(lo, min(F, lo + block))
        best = {side: None for side in (0, 1)}
        for Xk, wXk, (G, d), idx in zip(classes, weighted, grams, members, strict=True):
            if Xk.shape[0] == 0:
                continue
            check_deadline(deadline)
            nk = float(Xk.shape[0]) if ws is None else float(ws[idx].sum())
            T = ((Xk[:, fs, None] * Xk[:, None, :]).reshape(len(Xk), -1).T @ wXk)
            T = T.reshape(len(fs), F, F)
            sides = {1: (d[fs], G[fs], T),                                  # x_f = 1
                     0: (nk - d[fs], d[None, :] - G[fs], G[None] - T)}      # x_f = 0
            for side, (m, dk, Gk) in sides.items():
                c = _side_counters(m, dk, Gk)
                if best[side] is not None:
                    c = [np.maximum(a, b) for a, b in zip(best[side], c, strict=True)]
                best[side] = c
        for side, out in ((0, left), (1, right)):
            out[fs] = -L if best[side] is None else _side_score(*best[side], L)
    return left, right


def _side_counters(m, dk, Gk):
    """One class's counters of a batch of subsets (first axis): eqs. (27)-(30) of B.1."""
    da, db = dk[:, :, None], dk[:, None, :]
    return [m, dk, m[:, None] - dk, Gk, da - Gk, db - Gk, (m[:, None, None] - da) - (db - Gk)]


def _side_score(root, right1, left1, q_rr, q_rl, q_lr, q_ll, L):
    """Best score over the D2S topologies (eqs. 31-40) for a batch of subsets."""
    cs_l = (q_ll + q_lr).max(axis=2)   # left child expanded, eq. 35
    cs_r = (q_rl + q_rr).max(axis=2)   # right child expanded, eq. 36
    three = np.maximum((right1 + cs_l).max(axis=1), (left1 + cs_r).max(axis=1))
    counts = [root, (left1 + right1).max(axis=1), three, (cs_l + cs_r).max(axis=1)]
    # counts (weight sums) in float64 before the penalty is subtracted
    return np.max([c.astype(np.float64) - h * L for h, c in enumerate(counts, 1)], axis=0)
