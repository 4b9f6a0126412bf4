"""Timing helpers of the benchmark runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def fastest(fit: Callable[[], tuple[Any, float]], repeat: int) -> tuple[Any, ...]:
    """The result of the fastest of ``repeat`` calls of ``fit`` (which returns
    ``(model, seconds, ...)``)."""
    runs = [fit() for _ in range(max(1, repeat))]
    return min(runs, key=lambda out: out[1])
