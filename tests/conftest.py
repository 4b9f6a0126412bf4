"""Test set-up: non-bundled datasets come from ../shared/datasets unless OPTREES_DATA is set."""

import os
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"
if "OPTREES_DATA" not in os.environ and SHARED.is_dir():
    os.environ["OPTREES_DATA"] = str(SHARED)
