"""The drawing methods every tree model shares: DOT source and a matplotlib picture of the
layout the model's own ``layout`` gives (:mod:`optrees.export`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class Drawn:
    """``to_dot`` and ``plot`` for a tree model with optional feature names."""

    def to_dot(self, feature_names: Sequence[str] | None = None) -> str:
        """Graphviz DOT source of the tree (see :func:`optrees.export.to_dot`)."""
        from ..export import to_dot

        return to_dot(self, None if feature_names is None else list(feature_names))

    def plot(self, feature_names: Sequence[str] | None = None, **kwargs: Any) -> Any:
        """matplotlib Figure of the tree (see :func:`optrees.export.plot_tree`)."""
        from ..export import plot_tree

        return plot_tree(self, None if feature_names is None else list(feature_names), **kwargs)
