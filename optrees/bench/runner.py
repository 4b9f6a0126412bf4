"""Run a list of tasks locally (joblib) or on a Dask cluster, streaming rows to a CSV.

Every finished row is appended to the CSV and flushed at once, so an interrupted run loses at
most the fits in flight (a fit whose solver caught Ctrl-C, status ``interrupted``, is not
stored: the run stops there). Running again with the same tasks skips every key already in the CSV
(resume); at the end the file is rewritten sorted by key, one row per key, so a resumed run
gives the same file as an uninterrupted one (up to the wall-clock columns
:data:`TIMING_COLUMNS`, and to fits stopped by their time limit).
"""

from __future__ import annotations

import asyncio
import csv
import io
import math
import os
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

import pandas as pd

from .._validation import OptreesInputError
from .tasks import Task, run_task

TIMING_COLUMNS = ("fit_seconds", "solve_seconds", "cg_seconds", "mip_seconds")
"""Columns that depend on the wall clock; compare runs on the other columns."""

INTERRUPTED = "interrupted"
"""Status of a fit stopped by Ctrl-C: never stored, the run stops (and resumes later)."""

DASK_HINT = 'install it with: pip install "optrees[dask]"'

# Dask raises asyncio's TimeoutError, a separate class from the built-in one before Python 3.11
_CONNECT_ERRORS = (OSError, TimeoutError, asyncio.TimeoutError)


# ----------------------------------------------------------------------------- CSV
def _cell(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return ""
    return value


def _read_rows(path: Path, columns: Sequence[str]) -> dict[str, dict[str, str]]:
    """Rows already in ``path`` by key (last occurrence wins); drops a torn last line."""
    if not path.exists() or path.stat().st_size == 0:
        return {}
    text = path.read_text(encoding="utf-8")
    if not text.endswith("\n"):  # interrupted in the middle of a write
        text = text[: text.rfind("\n") + 1]
        path.write_text(text, encoding="utf-8")
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is None:
        return {}
    if list(reader.fieldnames) != list(columns):
        raise OptreesInputError(
            f"{path} was written with other columns ({len(reader.fieldnames)} vs "
            f"{len(columns)} expected); use another output directory or delete the file"
        )
    return {row["key"]: row for row in reader if row.get("key")}


def _rewrite_sorted(path: Path, columns: Sequence[str]) -> None:
    rows = _read_rows(path, columns)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(columns))
        writer.writeheader()
        for key in sorted(rows):
            writer.writerow(rows[key])
    os.replace(tmp, path)


# ----------------------------------------------------------------------------- progress
def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class Progress:
    """``label [#####-----] 12/40 resumed 3 errors 1 elapsed 01:03 ETA 02:30`` on stderr."""

    def __init__(self, total: int, resumed: int, label: str = "",
                 stream: TextIO | None = None, enabled: bool = True) -> None:
        self.total, self.resumed, self.label = total, resumed, label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.done = self.errors = 0
        self.start = time.perf_counter()
        self._last = 0.0
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._show(force=True)

    def update(self, row: dict[str, Any]) -> None:
        self.done += 1
        self.errors += bool(row.get("error"))
        self._show(force=self.done == self.total)

    def _show(self, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if not force and not self._tty and now - self._last < 10:
            return
        self._last = now
        elapsed = now - self.start
        eta = elapsed / self.done * (self.total - self.done) if self.done else math.nan
        width = 20
        filled = width * self.done // self.total if self.total else width
        bar = "#" * filled + "-" * (width - filled)
        line = (f"{self.label} [{bar}] {self.done}/{self.total}"
                f"{f' (+{self.resumed} resumed)' if self.resumed else ''}"
                f"{f' errors {self.errors}' if self.errors else ''}"
                f" elapsed {_clock(elapsed)} ETA {'--:--' if math.isnan(eta) else _clock(eta)}")
        end = "\n" if not self._tty or self.done == self.total else ""
        self.stream.write(("\r" if self._tty else "") + line + end)
        self.stream.flush()

    def close(self) -> None:
        """Nothing to release (the same interface as :class:`TqdmProgress`)."""


class TqdmProgress:
    """The grid's progress as a tqdm bar (fits done, rate, ETA; resumed fits and errors as
    its postfix): used on a terminal when tqdm is installed."""

    def __init__(self, tqdm: Any, total: int, resumed: int, label: str = "",
                 stream: TextIO | None = None) -> None:
        self.resumed, self.errors = resumed, 0
        self.bar = tqdm(total=total, desc=label or None, unit="fit", dynamic_ncols=True,
                        file=stream if stream is not None else sys.stderr)
        self._postfix()

    def _postfix(self) -> None:
        fields = {"resumed": self.resumed} if self.resumed else {}
        if self.errors:
            fields["errors"] = self.errors
        if fields:
            self.bar.set_postfix(fields, refresh=False)

    def update(self, row: dict[str, Any]) -> None:
        if row.get("error"):
            self.errors += 1
            self._postfix()
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()


def progress_bar(total: int, resumed: int, label: str = "", enabled: bool = True,
                 stream: TextIO | None = None) -> Progress | TqdmProgress:
    """A tqdm bar when ``enabled``, the stream (stderr) is a terminal and tqdm is installed;
    otherwise :class:`Progress` (its own bar on a terminal, a line every 10 s elsewhere,
    nothing when not ``enabled``)."""
    stream = stream if stream is not None else sys.stderr
    if enabled and bool(getattr(stream, "isatty", lambda: False)()):
        try:
            from tqdm import tqdm
        except ImportError:
            pass
        else:
            return TqdmProgress(tqdm, total, resumed, label, stream)
    return Progress(total, resumed, label, stream, enabled)


# ----------------------------------------------------------------------------- executors
def _local(tasks: Sequence[Task], jobs: int) -> Iterator[dict[str, Any]]:
    if jobs == 1 or len(tasks) <= 1:
        for task in tasks:
            yield run_task(task)
        return
    from joblib import Parallel, delayed

    try:
        parallel = Parallel(n_jobs=jobs, return_as="generator_unordered", batch_size=1)
    except ValueError:  # joblib < 1.4: results in task order
        parallel = Parallel(n_jobs=jobs, return_as="generator", batch_size=1)
    yield from parallel(delayed(run_task)(task) for task in tasks)


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError as exc:
        raise OptreesInputError(
            f"--scheduler / --dask-local need Dask (dask.distributed), which is not "
            f"installed; {DASK_HINT}"
        ) from exc
    return distributed


def connect(scheduler: str | None = None, dask_local: int | None = None,
            timeout: float = 10.0) -> tuple[Any, Any]:
    """``(client, cluster)`` for a scheduler address or a new local cluster of ``dask_local``
    worker processes; an unreachable scheduler raises :class:`OptreesInputError` after
    ``timeout`` seconds."""
    distributed = _import_distributed()
    if scheduler is not None and dask_local is not None:
        raise OptreesInputError("give either a scheduler address or dask_local, not both")
    if dask_local is not None:
        if int(dask_local) < 1:
            raise OptreesInputError(f"--dask-local needs at least 1 worker, got {dask_local}")
        cluster = distributed.LocalCluster(
            n_workers=int(dask_local), threads_per_worker=1, processes=True,
            dashboard_address=None, silence_logs=40)
        return distributed.Client(cluster, timeout=timeout), cluster
    try:
        client = distributed.Client(scheduler, timeout=timeout)
    except (*_CONNECT_ERRORS, ValueError) as exc:
        raise OptreesInputError(
            f"cannot reach the Dask scheduler at {scheduler!r} within {timeout:g} s "
            f"({type(exc).__name__}: {exc})"
        ) from exc
    try:
        client.wait_for_workers(1, timeout=timeout)
    except _CONNECT_ERRORS as exc:
        client.close()
        raise OptreesInputError(
            f"the Dask scheduler at {scheduler!r} has no workers (waited {timeout:g} s)"
        ) from exc
    return client, None


def _dask(tasks: Sequence[Task], client: Any) -> Iterator[dict[str, Any]]:
    distributed = _import_distributed()
    futures = client.map(run_task, list(tasks), pure=False)
    for future in distributed.as_completed(futures):
        yield future.result()


# ----------------------------------------------------------------------------- driver
def run_tasks(
    tasks: Iterable[Task],
    csv_path: str | os.PathLike[str],
    columns: Sequence[str],
    *,
    jobs: int = 1,
    scheduler: str | None = None,
    dask_local: int | None = None,
    client: Any = None,
    retry_errors: bool = False,
    progress: bool = True,
    label: str = "bench",
    timeout: float = 10.0,
) -> pd.DataFrame:
    """Run the tasks not yet in ``csv_path`` and return the rows of all ``tasks``.

    Execution: sequential (``jobs=1``), joblib processes (``jobs>1``, ``-1`` = all cores),
    or Dask (``scheduler`` address, ``dask_local`` workers, or an existing ``client``).
    ``retry_errors`` re-runs tasks whose stored row has an error. The returned frame is read
    back from the CSV, so resumed and uninterrupted runs return equal frames.
    """
    tasks = list(dict.fromkeys(tasks))  # drop duplicates, keep order
    if "key" not in columns or "error" not in columns:
        raise OptreesInputError("columns must include 'key' and 'error'")
    path = Path(csv_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    stored = _read_rows(path, columns)
    todo = [t for t in tasks
            if t.key not in stored or stored[t.key].get("status") == INTERRUPTED
            or (retry_errors and stored[t.key].get("error"))]
    if todo:
        owned = None
        if client is None and (scheduler is not None or dask_local is not None):
            client, owned = connect(scheduler, dask_local, timeout)
            owned = (client, owned)
        try:
            rows = _dask(todo, client) if client is not None else _local(todo, jobs)
            bar = progress_bar(len(todo), len(tasks) - len(todo), label, enabled=progress)
            new_file = not path.exists() or path.stat().st_size == 0
            try:
                with path.open("a", newline="", encoding="utf-8") as fh:
                    writer = csv.DictWriter(fh, fieldnames=list(columns),
                                            extrasaction="ignore")
                    if new_file:
                        writer.writeheader()
                    for row in rows:
                        if row.get("status") == INTERRUPTED:  # Ctrl-C caught by the solver
                            raise KeyboardInterrupt(f"task {row.get('key')} was interrupted")
                        writer.writerow({k: _cell(v) for k, v in row.items()})
                        fh.flush()
                        bar.update(row)
            finally:
                bar.close()
        finally:
            if owned is not None:
                owned[0].close()
                if owned[1] is not None:
                    owned[1].close()
    if path.exists():
        _rewrite_sorted(path, columns)
    return read_results(path, [t.key for t in tasks])


def read_results(csv_path: str | os.PathLike[str],
                 keys: Sequence[str] | None = None) -> pd.DataFrame:
    """The CSV as a DataFrame (optionally only the rows of ``keys``), sorted by key."""
    path = Path(csv_path)
    if not path.exists():
        return pd.DataFrame()
    df = pd.read_csv(path, keep_default_na=False, na_values=[""], dtype={"error": str})
    df["error"] = df["error"].fillna("")
    if keys is not None:
        df = df[df["key"].isin(set(keys))]
    return df.sort_values("key").reset_index(drop=True)
