"""What the stand-alone scripts of ``bench/`` share (they run from a checkout)."""

from __future__ import annotations

import os
from pathlib import Path


def checkout_data_dir(script: str | os.PathLike[str]) -> Path | None:
    """The data directory of a ``bench/`` script: ``$OPTREES_DATA``, else ``shared/datasets``
    beside the checkout (then exported as ``OPTREES_DATA`` for ``load_dataset``); None when
    there is neither."""
    env = os.environ.get("OPTREES_DATA")
    if env:
        return Path(env)
    shared = Path(script).resolve().parents[2] / "shared" / "datasets"
    if not shared.is_dir():
        return None
    os.environ["OPTREES_DATA"] = str(shared)
    return shared
