"""Warm start of the master LP over refined cells from the last round's optimal basis."""

from __future__ import annotations

import numpy as np

from ..solvers.highs import BASIS_BASIC, BASIS_LOWER, BASIS_UPPER
from .master import RUGMaster

LastLP = tuple[np.ndarray, tuple[np.ndarray, np.ndarray], int, np.ndarray]
"""(cell of each sample, (column, row) statuses, number of rules, beta / counts per cell) of
the last master LP solved."""


def representatives(cell: np.ndarray, n_cells: int) -> np.ndarray:
    """The first sample of each cell."""
    first = np.full(n_cells, -1, dtype=np.int64)
    first[cell[::-1]] = np.arange(len(cell))[::-1]
    return first


def start_basis(prev: LastLP | None, master: RUGMaster,
                cell: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Warm start for ``master`` (over cells ``cell``) from the last round's basis ``prev``.

    Every new cell lies inside one old cell ("parent"); its first part inherits the parent's
    statuses, and further parts are placed so that the count of basic variables stays right.
    Old rules keep their status.

    * Dual form (no fairness; columns beta, rows rules): further parts of a basic beta go
      to the bound nearer its value, new rule rows get a basic slack.  With reduced costs
      unchanged (a part has the parent's entries in the old rows), the basis stays dual
      feasible and dual simplex re-solves it.
    * Primal form (fairness; columns v then w, rows cover then fairness): a further part
      has a basic v if the parent had a basic v at a tight row, else a basic row slack;
      new rules start at 0.
    """
    if prev is None:
        return None
    prev_cell, (col, row), m_prev, frac = prev
    m_new = len(master.cols)
    parent = prev_cell[representatives(cell, master.n)]
    further = np.ones(master.n, dtype=bool)
    further[np.unique(parent, return_index=True)[1]] = False
    if not master.fair_rows:
        b_col = col[parent]
        split = further & (b_col == BASIS_BASIC)
        b_col[split] = np.where(frac[parent[split]] > 0.5, BASIS_UPPER, BASIS_LOWER)
        return b_col, np.concatenate([row, np.full(m_new - m_prev, BASIS_BASIC, dtype=np.int8)])
    n_prev = len(row) - len(master.fair_rows)
    v_col, v_row = col[:n_prev][parent], row[:n_prev][parent]
    tight_v = (v_col == BASIS_BASIC) & (v_row != BASIS_BASIC)
    v_col[further & ~tight_v] = BASIS_LOWER
    v_row[further & ~tight_v] = BASIS_BASIC
    w_col = np.concatenate([col[n_prev:n_prev + m_prev],
                            np.full(m_new - m_prev, BASIS_LOWER, dtype=np.int8)])
    return np.concatenate([v_col, w_col]), np.concatenate([v_row, row[n_prev:]])
