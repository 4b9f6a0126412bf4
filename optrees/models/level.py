"""One feature of a multiway tree: how a raw column maps to codes, and which code sets are
its branches (OMT's feature levels, [OMT] §3)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._numbers import threshold_text
from .._validation import OptreesInputError
from ..encoding.bins import category_positions
from ..encoding.common import plain


def _fmt(v: float) -> str:
    return threshold_text(v)


@dataclass
class Level:
    """One feature of the graph: how raw values map to codes and which code sets are nodes."""

    name: str
    kind: str  # "categorical" | "numeric" (ordinal levels are numeric with categories)
    categories: list = field(default_factory=list)  # code (categorical) or position (ordinal)
    cuts: np.ndarray = field(default_factory=lambda: np.zeros(0))  # numeric: bin = #cuts <= x
    nodes: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=bool))

    @property
    def n_codes(self) -> int:
        """Number of elementary codes (categories, or bins of a numeric level)."""
        return len(self.categories) if self.kind == "categorical" else len(self.cuts) + 1

    @property
    def ordinal(self) -> bool:
        """A numeric level over the positions of ordered categories."""
        return self.kind == "numeric" and bool(self.categories)

    def positions(self, s: pd.Series) -> np.ndarray:
        """Category -> index in ``categories`` (-1 if unknown)."""
        return category_positions(s, self.categories)

    def encode(self, s: pd.Series) -> np.ndarray:
        """Raw column -> int32 codes; a category unknown at fit time gets code -1."""
        if self.ordinal:
            pos = self.positions(s)
            codes = np.searchsorted(self.cuts, pos, side="right").astype(np.int32)
            codes[pos < 0] = -1
            return codes
        if self.kind == "numeric":
            try:
                x = np.asarray(s.astype(float).to_numpy(), dtype=float)
            except (TypeError, ValueError) as exc:
                raise OptreesInputError(f"column {self.name!r} is not numeric") from exc
            return np.searchsorted(self.cuts, x, side="right").astype(np.int32)
        return self.positions(s).astype(np.int32)

    def codes_text(self, codes: list[int] | np.ndarray) -> str:
        """Readable condition for a set of codes ("color = red", "2.5 <= age < 40")."""
        codes = sorted(int(c) for c in codes)
        if self.kind == "categorical":
            vals = [str(self.categories[c]) for c in codes]
            return (f"{self.name} = {vals[0]}" if len(vals) == 1
                    else f"{self.name} in {{{', '.join(vals)}}}")
        runs: list[tuple[int, int]] = []
        for c in codes:
            if runs and runs[-1][1] == c - 1:
                runs[-1] = (runs[-1][0], c)
            else:
                runs.append((c, c))
        if self.ordinal:
            return " or ".join(self._ordinal_text(a, b) for a, b in runs)
        parts = []
        for a, b in runs:
            lo = None if a == 0 else self.cuts[a - 1]
            hi = None if b == len(self.cuts) else self.cuts[b]
            if lo is None and hi is None:
                parts.append(f"{self.name} any")
            elif lo is None:
                parts.append(f"{self.name} < {_fmt(hi)}")
            elif hi is None:
                parts.append(f"{self.name} >= {_fmt(lo)}")
            else:
                parts.append(f"{_fmt(lo)} <= {self.name} < {_fmt(hi)}")
        return " or ".join(parts)

    def _ordinal_text(self, a: int, b: int) -> str:
        """Codes a..b of an ordinal level as a category range ("size <= M")."""
        last = len(self.categories) - 1
        # code of position p = #cuts <= p
        lo = 0 if a == 0 else int(np.ceil(self.cuts[a - 1]))
        hi = last if b == len(self.cuts) else int(np.ceil(self.cuts[b])) - 1
        v_lo, v_hi = self.categories[lo], self.categories[hi]
        if lo == hi:
            return f"{self.name} = {v_lo}"
        if lo == 0 and hi == last:
            return f"{self.name} any"
        if lo == 0:
            return f"{self.name} <= {v_hi}"
        if hi == last:
            return f"{self.name} >= {v_lo}"
        return f"{v_lo} <= {self.name} <= {v_hi}"

    def node_text(self, v: int) -> str:
        """Readable condition of node ``v`` of the level."""
        return self.codes_text(np.flatnonzero(self.nodes[v]))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description (name, kind, categories, cuts; not the nodes)."""
        return {"name": self.name, "kind": self.kind,
                "categories": [plain(c) for c in self.categories],
                "cuts": [float(c) for c in self.cuts]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Level:
        """The level of :meth:`to_dict`'s output."""
        return cls(d["name"], d["kind"], list(d.get("categories", [])),
                   np.asarray(d.get("cuts", []), dtype=float))
