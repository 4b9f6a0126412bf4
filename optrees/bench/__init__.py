"""Experiment harness: the papers' protocols as code (``optrees bench PROTOCOL``).

>>> from optrees.bench import run_protocol
>>> result = run_protocol("flow", quick=True, out_dir="bench/results")  # doctest: +SKIP

Each protocol is a grid of :class:`Task` s (one fit each) run locally with joblib or on a
Dask cluster; rows stream to a resumable CSV, then a Markdown summary and figures are written.

This package is the one benchmark room; the scripts of ``bench/`` are entry points over it.
Modules: ``tasks`` (a fit -> a row), ``protocols`` (the grids), ``variants`` (ablation
tables), ``runner`` (local / Dask, resumable CSV), ``run`` (protocol -> CSV, Markdown,
figures), ``report`` and ``plots`` (summaries), ``checks`` (sanity checks of rows), ``peers``
(other packages side by side: pystreed, ruleopt), ``papers`` (published numbers), ``omt``
(penalty selection, refit, Table 1), ``rug`` (RUG vs CART, FairRUG), ``scale`` (OMT's scale
test), ``scripts`` (what the scripts share).
"""

from __future__ import annotations

from .protocols import PROTOCOLS, Config, Protocol, resolve
from .run import BenchResult, run_protocol
from .runner import TIMING_COLUMNS, read_results, run_tasks
from .tasks import METHODS, Task, run_task

__all__ = [
    "METHODS",
    "PROTOCOLS",
    "TIMING_COLUMNS",
    "BenchResult",
    "Config",
    "Protocol",
    "Task",
    "read_results",
    "resolve",
    "run_protocol",
    "run_task",
    "run_tasks",
]
