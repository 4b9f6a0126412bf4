"""FairRUG ([RUG] §3.5): the fairness rows added to the master LP (3).

DMC (11)-(12) per class and pair of groups, ODM (15)-(16) per pair of groups, EOP
('equal_opportunity') = DMC on the positive class only; each row caps a difference of group
means of the slacks ``v``.
They involve only ``v``, so reduced costs keep the form (5) with the new duals, and the LP
stays feasible (``w = 0, v = 1`` satisfies every cap ``epsilon >= 0``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from .._validation import OptreesInputError


@dataclass
class Fairness:
    """Fairness constraints on the master LP: kind in {'dmc', 'odm', 'equal_opportunity'}
    (:data:`optrees.fairness.RUG_NOTIONS`; the paper's EOP), cap epsilon."""

    kind: str
    groups: np.ndarray  # group index per sample (0..G-1)
    epsilon: float
    positive: int = 1  # class index used by 'equal_opportunity'
    group_names: list = field(default_factory=list)

    def sets(self, y: np.ndarray, K: int) -> list[tuple[str, list[np.ndarray]]]:
        """(label, [index set per group]) for each family of constraints (11)-(12) or (15)-(16)."""
        G = int(self.groups.max()) + 1
        names = self.group_names or list(range(G))
        if self.kind == "odm":
            return [("all", [np.flatnonzero(self.groups == g) for g in range(G)])]
        classes = range(K) if self.kind == "dmc" else [self.positive]
        out = []
        for k in classes:
            idx = [np.flatnonzero((self.groups == g) & (y == k)) for g in range(G)]
            empty = [names[g] for g in range(G) if len(idx[g]) == 0]
            if empty:
                raise OptreesInputError(
                    f"fairness='{self.kind}': {len(empty)} group(s) {empty[:5]}"
                    f"{' ...' if len(empty) > 5 else ''} have no training samples of "
                    f"class index {k}, so the error rate per class and group is undefined; "
                    f"merge groups, drop them, or use fairness='odm'"
                )
            out.append((f"class {k}", idx))
        return out


FairSets = list[list[tuple[np.ndarray, int]]]
"""Per family of rows, per group: (rows of the master in the group, samples in the group)."""


def fairness_rows(fair_sets: FairSets | None, counts: np.ndarray
                  ) -> tuple[list[tuple[np.ndarray, np.ndarray]], sp.csr_matrix]:
    """The rows ``mean_g v - mean_h v <= eps`` ((11)/(15); (12)/(16) is the (h, g) row) as
    pairs (rows of group g, rows of group h) and the matrix ``F`` (master rows x fairness
    rows) of the coefficients of ``v``: a master row standing for ``counts[i]`` samples
    enters with ``counts[i] / |I_g|``."""
    pairs: list[tuple[np.ndarray, np.ndarray]] = []
    f_samples, f_rows, f_vals = [], [], []
    for fam in fair_sets or []:
        for g, (ig, ng) in enumerate(fam):
            for h, (ih, nh) in enumerate(fam):
                if g == h or ng == 0 or nh == 0:
                    continue
                r = len(pairs)
                pairs.append((ig, ih))
                f_samples += [ig, ih]
                f_rows += [np.full(len(ig), r), np.full(len(ih), r)]
                f_vals += [counts[ig] / ng, -counts[ih] / nh]
    F = sp.csr_matrix((_cat(f_vals, float), (_cat(f_samples, np.int64), _cat(f_rows, np.int64))),
                      shape=(len(counts), len(pairs)))
    return pairs, F


def _cat(parts: list[np.ndarray], dtype: type) -> np.ndarray:
    """np.concatenate that accepts an empty list."""
    return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)
