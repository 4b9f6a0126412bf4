"""Writing files all or nothing, with the permissions a new file gets (used by the models' ``save``,
:mod:`optrees.io` and the command line)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ._validation import OptreesInputError


def _umask() -> int:
    """The process umask, read without changing it where /proc allows (threads may race
    with ``os.umask`` set-and-restore)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` all or nothing: a temporary file in the same folder,
    renamed over ``path`` once complete (no partial file if anything fails), with the
    permissions a new file gets under the user's umask."""
    path = Path(path)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp creates 0600
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise OptreesInputError(f"cannot write {path}: {exc.strerror or exc}") from exc
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
