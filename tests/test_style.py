"""The code base stays ruff-clean and solver imports stay inside optrees/solvers/."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_clean():
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff not installed")
    result = subprocess.run([ruff, "check", "optrees", "tests", "bench", "examples", "docs"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_solver_imports_only_in_backend():
    offenders = []
    for path in (ROOT / "optrees").rglob("*.py"):
        if "solvers" in path.parts:
            continue
        text = path.read_text()
        if any(f"import {lib}" in text or f"from {lib}" in text
               for lib in ("pyscipopt", "highspy", "gurobipy")):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
