"""Progress lines through :mod:`logging` (logger ``"optrees"``); silent unless asked for.

``verbose`` levels shared by every estimator: 0 = no output, 1 = compact progress lines
(bound, incumbent, gap, elapsed) on stderr, 2 = also the solver's own log.  An application
that configures logging itself gets the lines through its own handlers instead.

One line per stage or round of a method (search, start, MIP, column-generation round, master
call), never per inner iteration; the elapsed time of the lines a method room adds is
:func:`since_fit`, the seconds since the estimator's ``fit`` began.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import logging
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

logger = logging.getLogger("optrees")
logger.addHandler(logging.NullHandler())

# perf_counter() when the outermost fit began (None outside a fit)
_FIT_START: contextvars.ContextVar[float | None] = contextvars.ContextVar("optrees_fit_start",
                                                                          default=None)
_QUIET: contextvars.ContextVar[bool] = contextvars.ContextVar("optrees_quiet", default=False)


def _has_real_handler(log: logging.Logger | None) -> bool:
    while log is not None:
        if any(not isinstance(h, logging.NullHandler) for h in log.handlers):
            return True
        if not log.propagate:
            return False
        log = log.parent
    return False


@contextlib.contextmanager
def verbosity(verbose: int | bool) -> Iterator[None]:
    """During a fit: with ``verbose >= 1`` make sure progress lines reach stderr; at every
    level start the fit's clock (:func:`since_fit`)."""
    token = _FIT_START.set(time.perf_counter()) if _FIT_START.get() is None else None
    try:
        with _to_stderr(int(verbose)):
            yield
    finally:
        if token is not None:
            _FIT_START.reset(token)


@contextlib.contextmanager
def _to_stderr(level: int) -> Iterator[None]:
    if level < 1:
        yield
        return
    handler = None
    old_level = logger.level
    if logger.getEffectiveLevel() > logging.INFO:
        logger.setLevel(logging.INFO)
    if not _has_real_handler(logger):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("[optrees] %(message)s"))
        logger.addHandler(handler)
    try:
        yield
    finally:
        if handler is not None:
            logger.removeHandler(handler)
        logger.setLevel(old_level)


def enabled() -> bool:
    """Whether progress lines are logged (compute a number only for a line when True)."""
    return not _QUIET.get() and logger.isEnabledFor(logging.INFO)


def silent(task: Callable[..., Any]) -> Callable[..., Any]:
    """``task`` logging no progress lines (a ``*CV``'s fold task, in a worker or not: the
    selection logs its own line per task); its name kept (Dask names tasks by it)."""

    @functools.wraps(task)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        token = _QUIET.set(True)
        try:
            return task(*args, **kwargs)
        finally:
            _QUIET.reset(token)

    return wrapper


def since_fit(fallback: float | None = None) -> float:
    """Seconds since the current ``fit`` began; outside a fit, since the ``perf_counter()``
    value ``fallback`` (0.0 without one)."""
    start = _FIT_START.get()
    if start is None:
        start = fallback
    return 0.0 if start is None else time.perf_counter() - start


def progress(stage: str, elapsed: float, incumbent: float | None = None,
             bound: float | None = None, gap: float | None = None, **extra: object) -> None:
    """Log one compact line: ``stage  elapsed  incumbent  bound  gap  key value ...``."""
    if not enabled():
        return
    parts = [f"{stage:<8}", f"{elapsed:7.1f}s"]
    if incumbent is not None:
        parts.append(f"incumbent {incumbent:.6g}")
    if bound is not None:
        parts.append(f"bound {bound:.6g}")
    # a gap only beside its bound (nan or no bound: nothing proven, nothing to show)
    if gap is not None and gap == gap and bound is not None:
        parts.append(f"gap {100 * gap:.2f}%" if gap < 1e6 else "gap inf")
    parts += [f"{k} {v}" for k, v in extra.items()]
    logger.info("  ".join(parts))


def solved(stage: str, result: Any) -> None:
    """The progress line of a finished solve (a :class:`~optrees.solvers.base.SolveResult`,
    or None when no solve ran): status, objective, bound and gap as the solver reports them."""
    if not enabled():
        return
    if result is None:
        progress(stage, since_fit(), status="not run (no time left)")
        return
    finite = [v if v is not None and abs(v) < 1e19 else None
              for v in (result.objective, result.bound)]
    progress(stage, since_fit(), finite[0], finite[1],
             result.gap if None not in finite else None, status=result.status,
             nodes=result.nodes)
