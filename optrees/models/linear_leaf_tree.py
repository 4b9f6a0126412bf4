"""LinearLeafTree: a regression tree whose leaves predict with their own linear model.

The nodes are :class:`~optrees.models.regression_tree.RegressionTree`'s (``value``: the
training mean, used for colours and inner boxes); each leaf adds an ``intercept`` and
``coef`` over the ``regressors`` columns (raw units: a row's prediction is
``intercept + coef @ x[regressors]``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import OptreesInputError
from . import _schema as schema
from .regression_tree import RegressionTree

SHOWN_TERMS = 3
"""Terms of a leaf's model shown in its text and box (the largest on standardised
columns); the rest are counted."""


class LinearLeafTree(RegressionTree):
    """:class:`~optrees.models.regression_tree.RegressionTree` with a linear model per leaf
    (:meth:`set_models`)."""

    regressors: list[int]
    center: np.ndarray
    scale: np.ndarray
    intercept: np.ndarray
    coef: np.ndarray

    def set_models(self, regressors: Sequence[int], center: np.ndarray, scale: np.ndarray,
                   intercept: np.ndarray, coef: np.ndarray) -> None:
        """Per node ``intercept`` (n_nodes) and ``coef`` (n_nodes x p) over the columns
        ``regressors``, whose training mean and standard deviation are ``center`` and
        ``scale`` (to rank the terms shown)."""
        self.regressors = [int(r) for r in regressors]
        self.center = np.asarray(center, dtype=np.float64)
        self.scale = np.asarray(scale, dtype=np.float64)
        self.intercept = np.asarray(intercept, dtype=np.float64)
        self.coef = np.asarray(coef, dtype=np.float64).reshape(self.n_nodes,
                                                              len(self.regressors))

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Each row's prediction by the linear model of the leaf it reaches."""
        X = np.asarray(X, dtype=np.float64)
        leaf = self.apply(X)
        return self.intercept[leaf] + np.einsum("ij,ij->i", self.coef[leaf],
                                                X[:, self.regressors])

    def terms(self, n: int) -> tuple[list[str], int]:
        """The ``SHOWN_TERMS`` largest terms of leaf ``n``'s model (by their effect on
        standardised columns) as ``+ 2.5*age`` and how many are left out."""
        names = self.feature_names
        effect = np.abs(self.coef[n] * self.scale)
        order = [int(j) for j in np.argsort(-effect, kind="stable") if effect[j] > 0]
        shown = []
        for j in order[:SHOWN_TERMS]:
            r = self.regressors[j]
            name = names[r] if names is not None else f"x[{r}]"
            c = float(self.coef[n, j])
            shown.append(f"{'-' if c < 0 else '+'} {abs(c):.4g}*{name}")
        return shown, len(order) - len(shown)

    def leaf_text(self, n: int, value_name: str = "value") -> str:
        """``value: 152.1 + 9.8*bmi - 3.1*s5 (+ 4 more terms)`` (intercept first)."""
        shown, more = self.terms(n)
        rest = f" (+ {more} more terms)" if more else ""
        return " ".join([f"{value_name}: {self.intercept[n]:.6g}", *shown]) + rest

    def leaf_lines(self, n: int, value_name: str = "value") -> list[str]:
        """The model as box lines: the intercept, one term a line, the count left out, and
        the leaf's training mean (the box's colour)."""
        shown, more = self.terms(n)
        return ([f"{value_name} = {self.intercept[n]:.4g}", *shown]
                + ([f"(+ {more} more terms)"] if more else [])
                + [f"mean {self.value[n]:.4g}"])

    def to_dict(self) -> dict[str, Any]:
        """``RegressionTree.to_dict`` with the leaves' models (read by
        :meth:`from_dict`)."""
        return {**super().to_dict(), "kind": "linear_leaf_tree",
                "regressors": list(self.regressors), "center": self.center.tolist(),
                "scale": self.scale.tolist(), "intercept": self.intercept.tolist(),
                "coef": self.coef.tolist()}

    @classmethod
    def from_dict(cls, data: dict[str, Any], n_features: int | None = None
                  ) -> LinearLeafTree:
        """The tree described by :meth:`to_dict`, checked first (a damaged description
        raises one OptreesInputError naming the problem)."""
        if not isinstance(data, dict) or data.get("kind") != "linear_leaf_tree":
            kind = data.get("kind") if isinstance(data, dict) else type(data).__name__
            raise OptreesInputError(f"not a tree with linear leaves (kind={kind!r})")
        tree = super().from_dict({**data, "kind": "regression_tree"}, n_features)
        width = n_features if n_features is not None else (
            len(tree.feature_names) if tree.feature_names is not None else None)
        regressors = schema.ints(schema.sequence(data, "regressors"), "'regressors'", 0,
                                 width)
        p = len(regressors)
        center = schema.reals(schema.sequence(data, "center", p), "'center'")
        scale = schema.reals(schema.sequence(data, "scale", p), "'scale'")
        intercept = schema.reals(schema.sequence(data, "intercept", tree.n_nodes),
                                 "'intercept'")
        rows = schema.sequence(data, "coef", tree.n_nodes)
        coef = [schema.reals(schema.as_list(r, "'coef' row", p), "'coef'") for r in rows]
        tree.set_models(regressors, np.asarray(center), np.asarray(scale),
                        np.asarray(intercept), np.asarray(coef).reshape(tree.n_nodes, p))
        return tree

    def __repr__(self) -> str:
        return f"LinearLeafTree(depth={self.depth}, leaves={self.n_leaves})"
