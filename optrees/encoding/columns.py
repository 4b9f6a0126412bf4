"""RUG's view of a raw table: columns for fast literal evaluation and for scikit-learn trees.

[RUG] §3.4 prices rules with decision trees on the raw features (no binarization), so
numeric columns stay as they are and categorical ones are one-hot encoded for the trees; a
tree split ``[col = v] <= 0.5`` then reads back as the literal ``col != v``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .common import COMPARE, is_numeric

if TYPE_CHECKING:
    from ..models.rule_set import Literal


class RawColumns:
    """The raw table, ready for fast literal evaluation and for scikit-learn trees.

    ``numeric``: the numeric columns as floats; ``codes`` / ``categories``: the other
    columns as category codes (categories sorted when they can be); ``matrix``: numeric
    columns as they are and categorical ones one-hot, with ``encoded[j] = (column, kind,
    value)`` describing column j of it.
    """

    def __init__(self, df: pd.DataFrame) -> None:
        self.names = [str(c) for c in df.columns]
        self.n = len(df)
        self.numeric: dict[str, np.ndarray] = {}
        self.codes: dict[str, np.ndarray] = {}
        self.categories: dict[str, list] = {}
        blocks: list[np.ndarray] = []
        self.encoded: list[tuple[str, str, object]] = []  # per encoded column: (col, kind, value)
        for name, col in zip(self.names, df.columns, strict=True):
            s = df[col]
            if is_numeric(s):
                x = s.to_numpy(dtype=float)
                self.numeric[name] = x
                blocks.append(x[:, None])
                self.encoded.append((name, "num", None))
            else:
                cats = self._add_categorical(name, s)
                onehot = np.zeros((self.n, len(cats)))
                onehot[np.arange(self.n), self.codes[name]] = 1.0
                blocks.append(onehot)
                self.encoded += [(name, "cat", c) for c in cats]
        self.matrix = np.hstack(blocks) if blocks else np.zeros((self.n, 0))
        self._sorted: dict[str, np.ndarray] = {}

    def sorted_numeric(self, name: str) -> np.ndarray:
        """The numeric column ``name``'s values, sorted (kept for the next call)."""
        if name not in self._sorted:
            self._sorted[name] = np.sort(self.numeric[name])
        return self._sorted[name]

    def _add_categorical(self, name: str, s: pd.Series) -> list:
        """Codes and categories of a non-numeric column (sorted when comparable)."""
        obj = s.astype(object).to_numpy()
        cats = list(pd.unique(obj))
        try:
            cats = sorted(cats)
        except TypeError:
            pass
        index = {c: k for k, c in enumerate(cats)}
        self.codes[name] = np.array([index[v] for v in obj], dtype=np.int64)
        self.categories[name] = cats
        return cats

    def evaluate(self, lit: Literal) -> np.ndarray:
        """Boolean mask of the samples satisfying one literal."""
        if lit.numeric:
            return COMPARE[lit.op](self.numeric[lit.feature], lit.value)
        cats = self.categories[lit.feature]
        try:
            code = cats.index(lit.value)
        except ValueError:
            eq = np.zeros(self.n, dtype=bool)
        else:
            eq = self.codes[lit.feature] == code
        return eq if lit.op == "==" else ~eq

    def mask(self, literals: Sequence[Literal]) -> np.ndarray:
        """Boolean mask of the samples satisfying every literal."""
        mask = np.ones(self.n, dtype=bool)
        for lit in literals:
            mask &= self.evaluate(lit)
        return mask

    def cover(self, literals: Sequence[Literal]) -> np.ndarray:
        """Indices of the samples satisfying every literal."""
        return np.flatnonzero(self.mask(literals))

    def encode_rows(self, raw: RawColumns, rows: np.ndarray) -> np.ndarray:
        """Rows of another table ``raw`` in this table's encoding (unseen categories -> 0):
        the matrix the pricing trees would see for them (used to score CART baselines)."""
        cols = []
        for name, kind, value in self.encoded:
            if kind == "num":
                cols.append(raw.numeric[name][rows])
            else:
                cats = raw.categories[name]
                code = cats.index(value) if value in cats else -1
                cols.append((raw.codes[name][rows] == code).astype(float))
        return np.column_stack(cols)
