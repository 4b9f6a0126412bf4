"""The resolved grid of a benchmark protocol, shared by the protocols and their stages."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Config:
    """A resolved grid: what :func:`optrees.bench.run_protocol` runs."""

    protocol: str
    quick: bool
    datasets: tuple[str, ...]
    methods: tuple[str, ...]
    depths: tuple[int, ...]
    seeds: tuple[int, ...]
    lams: tuple[float, ...]
    time_limit: float | None
    data_dir: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
