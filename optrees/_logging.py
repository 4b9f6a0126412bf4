"""Progress lines through :mod:`logging` (logger ``"optrees"``); silent unless asked for.

``verbose`` levels shared by every estimator: 0 = no output, 1 = compact progress lines
(bound, incumbent, gap, elapsed) on stderr, 2 = also the solver's own log.  An application
that configures logging itself gets the lines through its own handlers instead.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator

logger = logging.getLogger("optrees")
logger.addHandler(logging.NullHandler())


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
    """During a fit: with ``verbose >= 1`` make sure progress lines reach stderr."""
    level = int(verbose)
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


def progress(stage: str, elapsed: float, incumbent: float | None = None,
             bound: float | None = None, gap: float | None = None, **extra: object) -> None:
    """Log one compact line: ``stage  elapsed  incumbent  bound  gap  key=value ...``."""
    if not logger.isEnabledFor(logging.INFO):
        return
    parts = [f"{stage:<8}", f"{elapsed:7.1f}s"]
    if incumbent is not None:
        parts.append(f"incumbent {incumbent:.6g}")
    if bound is not None:
        parts.append(f"bound {bound:.6g}")
    if gap is not None and gap == gap:  # (nan: no proven bound, nothing to show)
        parts.append(f"gap {100 * gap:.2f}%" if gap < 1e6 else "gap inf")
    parts += [f"{k} {v}" for k, v in extra.items()]
    logger.info("  ".join(parts))
