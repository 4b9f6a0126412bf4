"""The documentation site builds without a single warning and documents the whole public API.

The build here is the strict one of ``python docs/build.py`` (-W --keep-going -n), with a
stand-in gallery folder instead of running the examples: every example gets a short text and
a 1x1 picture, so the gallery pages, their pictures and the check for missing ones are built
and tested in seconds.  ``docs/build.py`` without ``--no-gallery`` runs the examples for the
real pictures.
"""

from __future__ import annotations

import importlib.util
import inspect
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

pytest.importorskip("sphinx", reason="the docs extra (sphinx, myst-parser) is not installed")
pytest.importorskip("myst_parser", reason="the docs extra (sphinx, myst-parser) is not installed")

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
EXAMPLES = sorted(p.name for p in (ROOT / "examples").glob("*.py"))


def _png_1x1() -> bytes:
    """A valid 1x1 white PNG, the stand-in for the pictures of the examples."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\xff\xff")) + chunk(b"IEND", b""))


PNG_1X1 = _png_1x1()


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = _load("docs_build", DOCS / "build.py")
ext = _load("optrees_docs", DOCS / "_ext" / "optrees_docs.py")
gallery_run = _load("gallery_run", DOCS / "gallery_run.py")


def _stand_in_gallery(folder: Path) -> Path:
    for name in EXAMPLES:
        out = folder / Path(name).stem
        out.mkdir(parents=True)
        (out / "output.txt").write_text(f"(test build: examples/{name} was not run)\n")
        (out / "model.png").write_bytes(PNG_1X1)
        (out / "model.png.caption").write_text(f"stand-in picture of {name}")
    return folder


def _build(out):
    """The strict build into ``out``: (finished process, its output folder)."""
    gallery = _stand_in_gallery(out / "gallery")
    proc = subprocess.run(build.sphinx_command(out, gallery), capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    return proc, out


def _inventory(html: Path) -> set[str]:
    """Names of the Python objects in Sphinx's objects.inv (format version 2)."""
    header_end = 0
    raw = (html / "objects.inv").read_bytes()
    for _ in range(4):  # four header lines, then zlib-compressed "name domain:role ..." lines
        header_end = raw.index(b"\n", header_end) + 1
    lines = zlib.decompress(raw[header_end:]).decode().splitlines()
    return {line.split(" ")[0] for line in lines if line.split(" ")[1].startswith("py:")}


def test_docs_build_without_warnings_with_every_name_and_example(tmp_path):
    """One build (15 s) checked three ways: no warning and the main pages; every public
    name in the API reference; every example's gallery page with its output and picture."""
    proc, out = _build(tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]
    assert "WARNING" not in proc.stderr and "ERROR" not in proc.stderr, proc.stderr[-6000:]
    for page in ("index", "guide/methods", "guide/gap", "guide/outputs", "guide/cli",
                 "guide/data", "guide/benchmarks", "references", "api/estimators",
                 "api/metrics", "gallery/index"):
        assert (out / "html" / f"{page}.html").is_file(), page
    _every_public_name_is_in_the_api_reference(proc, out)
    for script in EXAMPLES:
        _example_has_a_gallery_page_with_its_picture(out, script)


def test_public_names_cover_the_api():
    names = ext.public_names()
    for expected in ("optrees.BendOCTClassifier.fit", "optrees.BendOCTClassifier.predict",
                     "optrees.RUGClassifier.explain", "optrees.BinaryTree.n_leaves",
                     "optrees.RuleSet.export_text", "optrees.Binarizer.transform",
                     "optrees.metrics.dmc_score", "optrees.load_model", "optrees.metrics"):
        assert expected in names
    assert "optrees.BendOCTClassifier.get_params" not in names  # scikit-learn's own
    assert len(names) > 150


@pytest.mark.parametrize("name", ext.public_names())
def test_public_name_has_a_docstring(name):
    obj = sys.modules["optrees"]
    for part in name.split(".")[1:]:
        obj = getattr(obj, part)  # a property of a class is the property: its getter's doc
    assert (inspect.getdoc(obj) or "").strip(), f"{name}: no docstring"


def _every_public_name_is_in_the_api_reference(proc, out):
    assert (out / "html" / "objects.inv").is_file(), proc.stderr[-3000:]
    missing = sorted(set(ext.public_names()) - _inventory(out / "html"))
    assert missing == [], f"not in the API reference: {missing}"


def _example_has_a_gallery_page_with_its_picture(out, script):
    pages = [p for p in (out / "html" / "gallery").glob("*.html")
             if f"examples/{script}" in p.read_text()]
    assert pages, f"no gallery page shows examples/{script}"
    page = pages[0].read_text()
    assert f"test build: examples/{script} was not run" in page  # its printed output
    assert "model.png" in page and f"stand-in picture of {script}" in page
    first_code_line = next(line for line in (ROOT / "examples" / script).read_text()
                           .splitlines() if line.startswith(("import", "from")))
    assert first_code_line.split()[1] in page


def test_gallery_run_draws_the_fitted_models(tmp_path):
    script = tmp_path / "tiny.py"
    script.write_text(
        "from optrees import BendOCTClassifier, load_dataset\n"
        "X, y = load_dataset('monk1')\n"
        "clf = BendOCTClassifier(depth=1, time_limit=30).fit(X, y)\n"
        "alias = clf\n"
        "print('fitted', clf.status_)\n")
    gallery_run.run_one(script, tmp_path / "out")
    files = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert files == ["clf.png", "clf.png.caption", "output.txt"]  # one picture per model
    assert (tmp_path / "out" / "output.txt").read_text() == "fitted optimal\n"
    assert (tmp_path / "out" / "clf.png").read_bytes()[:4] == b"\x89PNG"
    assert "BendOCTClassifier" in (tmp_path / "out" / "clf.png.caption").read_text()


def test_gallery_run_keeps_the_pictures_a_script_writes(tmp_path):
    script = tmp_path / "writes.py"
    script.write_text(
        "import sys\nfrom pathlib import Path\n"
        f"Path(sys.argv[1], 'own.png').write_bytes({PNG_1X1!r})\n")
    gallery_run.run_one(script, tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "output.txt", "own.png", "own.png.caption"]
