"""Where the tests find the non-bundled datasets: ``OPTREES_DATA`` if set, else
``../shared/datasets`` beside the repository; None when neither exists (a plain clone)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

_SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"


def _data_dir() -> Path | None:
    env = os.environ.get("OPTREES_DATA")
    if env:
        return Path(env)
    return _SHARED if _SHARED.is_dir() else None


DATA_DIR = _data_dir()
"""The data directory the tests use, or None."""

NO_DATA_REASON = ("needs the data directory (not bundled): set OPTREES_DATA to the folder of "
                  "shared/datasets to run it")

needs_data = pytest.mark.skipif(DATA_DIR is None, reason=NO_DATA_REASON)
"""Mark a test that reads files of the data directory directly (not through load_dataset)."""
