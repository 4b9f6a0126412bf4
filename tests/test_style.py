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


def _runtime_imports(path: Path) -> set[str]:
    """The optrees modules ``path`` imports at run time (relative imports resolved; imports
    under ``if TYPE_CHECKING:`` left out)."""
    import ast

    tree = ast.parse(path.read_text())
    package = list(path.relative_to(ROOT).with_suffix("").parts[:-1])
    skip = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
            and getattr(node.test, "id", "") == "TYPE_CHECKING" for n in ast.walk(node)}
    out = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            name = ".".join(base + ([node.module] if node.module else []))
            out.add(name)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return {m for m in out if m.startswith("optrees")}


@pytest.mark.parametrize("room,forbidden", [
    ("export", ("optrees.models", "optrees.estimators")),  # models call export, not back
    ("models", ("optrees.estimators", "optrees.trees", "optrees.omt", "optrees.cgh",
                "optrees.rug", "optrees.solvers")),
    ("encoding", ("optrees.models", "optrees.estimators", "optrees.solvers")),
])
def test_layers_import_downwards(room, forbidden):
    """The arrows of docs/architecture.md: no room imports a layer above it at run time."""
    offenders = [f"{path.relative_to(ROOT)}: {m}"
                 for path in (ROOT / "optrees" / room).rglob("*.py")
                 for m in _runtime_imports(path) if m.startswith(forbidden)]
    assert offenders == []


def test_method_estimators_import_nothing_from_solvers():
    """Estimators validate, encode, call a room's solve function and store its result; only
    their shared base makes the fit's Deadline."""
    offenders = [f"{path.name}: {m}" for path in (ROOT / "optrees" / "estimators").glob("*.py")
                 if path.name != "_base.py"
                 for m in _runtime_imports(path) if m.startswith("optrees.solvers")]
    assert offenders == []
