"""The package keeps its shape: no import circle between its modules (imports inside
functions and under TYPE_CHECKING count too: they are circles a reader follows), no module
over 600 lines, and estimators built by the shared constructor."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "optrees"
MAX_LINES = 600


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The optrees modules ``name`` imports anywhere in its text (a ``from P import m`` of a
    submodule ``m`` names ``P.m``)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            out.add(target)
            out.update(f"{target}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m in modules and m != name}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circle():
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        # a package's own __init__ importing its submodules (re-exports) and a submodule
        # importing its package's __init__ would always close a loop; edges to a parent
        # package are therefore not followed
        graph[name] = {m for m in _imports(name, path, modules)
                       if not name.startswith(m + ".")}
    assert _cycles(graph) == []


def test_cycle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


LAYERS = {  # room -> what it may import of the trees room
    "optrees.estimators": ("optrees.trees.solve", "optrees.trees.problem", "optrees.trees.mip"),
    "optrees.trees.problem": ("optrees.trees.problem",),
    "optrees.trees.search": ("optrees.trees.search", "optrees.trees.problem"),
    "optrees.trees.mip": ("optrees.trees.mip", "optrees.trees.search", "optrees.trees.problem"),
}
"""The trees room's layers: estimators reach the engines only through the orchestration
(``trees.solve``), the problem and their own MIP class; the problem imports no engine; the
searches no MIP and no orchestration; the MIPs no orchestration."""


@pytest.mark.parametrize("room", sorted(LAYERS))
def test_layers_of_the_trees_room(room):
    modules = _modules()
    allowed = LAYERS[room]
    wrong = {name: sorted(m for m in _imports(name, path, modules)
                          if m.startswith("optrees.trees.") and not m.startswith(allowed))
             for name, path in modules.items() if name == room or name.startswith(room + ".")}
    assert {k: v for k, v in wrong.items() if v} == {}


def test_layer_check_sees_a_wrong_import(tmp_path):
    path = tmp_path / "x.py"
    path.write_text("from optrees.trees.search.binary import kernels\n")
    modules = _modules()
    found = _imports("optrees.estimators.x", path, modules)
    assert "optrees.trees.search.binary.kernels" in found


def test_no_module_over_600_lines():
    long = {str(p.relative_to(ROOT)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_generated_constructors():
    """The tree estimators' constructors come from their ``_defaults``: keyword arguments
    stored unchanged, a real signature, and one clear error naming the class."""
    from optrees import BendOCTClassifier, BinOCTClassifier, FlowOCTClassifier

    sig = inspect.signature(BendOCTClassifier)
    assert sig.parameters["depth"].default == 3 and sig.parameters["lam"].default == 0.01
    assert "penalty" not in sig.parameters  # fixed by BendOCT
    assert "lam" not in inspect.signature(BinOCTClassifier).parameters
    est = FlowOCTClassifier(depth=4, strengthen=True)
    assert (est.depth, est.strengthen, est.lam) == (4, True, 0.0)
    with pytest.raises(TypeError, match="FlowOCTClassifier.*unexpected keyword.*'dept'"):
        FlowOCTClassifier(dept=3)
    with pytest.raises(TypeError, match="BendOCTClassifier.*keyword arguments"):
        BendOCTClassifier(3)


def test_every_estimator_has_a_generated_constructor():
    """One constructor convention: every public model estimator's ``__init__`` is generated from
    its ``_defaults`` (none written by hand, no dataclass); RUX alone takes its ensemble by
    position too, as scikit-learn's meta-estimators do."""
    from sklearn.base import BaseEstimator, TransformerMixin

    import optrees
    from optrees._params import GeneratedInit

    classes = [getattr(optrees, n) for n in optrees.__all__
               if isinstance(getattr(optrees, n), type)
               and issubclass(getattr(optrees, n), BaseEstimator)
               and not issubclass(getattr(optrees, n), TransformerMixin)]  # (Binarizer)
    assert len(classes) >= 15
    for cls in classes:
        assert issubclass(cls, GeneratedInit), cls.__name__
        assert "_defaults" in vars(cls), cls.__name__
        assert cls.__init__.__qualname__ == f"{cls.__name__}.__init__", cls.__name__
        kinds = {p.kind for name, p in inspect.signature(cls).parameters.items()
                 if name != "estimator"}
        assert kinds <= {inspect.Parameter.KEYWORD_ONLY}, cls.__name__
    rux = optrees.RUXClassifier("forest", pen_par=2.0)
    assert (rux.estimator, rux.pen_par, rux.rule_cost) == ("forest", 2.0, "gini")
    with pytest.raises(TypeError, match="RUXClassifier.*multiple values"):
        optrees.RUXClassifier("a", estimator="b")
    with pytest.raises(TypeError, match="RUGClassifier.*keyword arguments"):
        optrees.RUGClassifier(3)
