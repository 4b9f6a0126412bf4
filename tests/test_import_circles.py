"""No import circle through the model, file, export and command-line modules (issue 41,
item 6): ``models ↔ io ↔ export`` and ``cli ↔ cli_bench ↔ bench/cli`` were circles.
Imports inside functions count too (only ``if TYPE_CHECKING:`` blocks are left out)."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "optrees"
CHECKED = ("optrees.models", "optrees.io", "optrees.export", "optrees.cli",
           "optrees.cli_base", "optrees.cli_bench", "optrees.cli_options",
           "optrees.cli_report", "optrees.bench.cli", "optrees._files")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The optrees modules ``path`` imports anywhere in it, except under TYPE_CHECKING."""
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
            out.update(f"{name}.{a.name}" for a in node.names)  # `from . import io`
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return {m for m in out if m in modules}


def _graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {name: _imports(path, set(files)) - {name} for name, path in files.items()}


def _circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                part.add(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(part)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _is_package(name: str, graph: dict[str, set[str]]) -> bool:
    return any(other.startswith(name + ".") for other in graph)


def test_no_circle_through_models_io_export_or_the_cli():
    graph = _graph()
    # a package's __init__ importing its own modules is not a circle of rooms
    graph = {v: {w for w in ws if not (_is_package(w, graph) and v.startswith(w + "."))}
             for v, ws in graph.items()}
    bad = [sorted(c) for c in _circles(graph)
           if any(m == p or m.startswith(p + ".") for m in c for p in CHECKED)]
    assert bad == []


def test_the_circle_finder_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
