"""Run the scripts of examples/ for the gallery: what each prints, and its pictures.

For every script, ``OUT/<name>/`` gets ``output.txt`` (what it printed) and its pictures:
the ones the script writes itself when given an output directory (``optimal_tree.py``
writes ``tree.png``), else one ``<variable>.png`` per fitted optrees estimator the script
left in a variable, drawn with the estimator's own ``plot`` method, each with a
``.caption`` file.  Each script runs in its own process, with OUT/<name>/ as its first
argument and working directory.

Run: python docs/gallery_run.py OUT [SCRIPT ...]   (default: every script of examples/)
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import runpy
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
PICTURES = (".png", ".svg")


def _fitted_estimators(namespace: dict) -> list[tuple[str, object]]:
    """(variable, estimator) of every fitted optrees estimator with a picture, once each."""
    from sklearn.base import BaseEstimator

    seen: set[int] = set()
    found = []
    for var, value in namespace.items():
        if (isinstance(value, BaseEstimator) and type(value).__module__.startswith("optrees")
                and hasattr(value, "plot") and (hasattr(value, "tree_")
                                                or hasattr(value, "rules_"))
                and id(value) not in seen and not var.startswith("_")):
            seen.add(id(value))
            found.append((var, value))
    return found


def run_one(script: Path, out: Path) -> None:
    """Run ``script`` in this process with ``out`` as argument and working directory."""
    out.mkdir(parents=True, exist_ok=True)
    for old in out.iterdir():
        old.unlink()
    printed = io.StringIO()
    argv, cwd = sys.argv, Path.cwd()
    sys.argv = [str(script), str(out)]
    try:
        os.chdir(out)
        with contextlib.redirect_stdout(printed):
            namespace = runpy.run_path(str(script), run_name="__main__")
    finally:
        sys.argv = argv
        os.chdir(cwd)
    (out / "output.txt").write_text(printed.getvalue())
    written = sorted(p for p in out.iterdir() if p.suffix in PICTURES)
    for picture in written:
        (out / f"{picture.name}.caption").write_text(f"{picture.name}, written by the script")
    if written:
        return
    from optrees.export import pyplot

    for var, est in _fitted_estimators(namespace):
        picture = out / f"{var}.png"
        fig = est.plot(picture)
        pyplot().close(fig)
        (out / f"{picture.name}.caption").write_text(
            f"{var}.plot(): the {type(est).__name__} fitted by the script")


def run_all(out: Path, scripts: list[str]) -> None:
    """Run each script in a fresh interpreter (examples stay independent of each other)."""
    for name in scripts:
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, __file__, "--one", name, str(out / Path(name).stem)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(f"gallery: examples/{name} failed:\n{proc.stderr[-3000:]}")
        print(f"gallery: examples/{name} ran in {time.perf_counter() - start:.1f} s",
              file=sys.stderr)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="gallery folder (one sub-folder per script)")
    parser.add_argument("scripts", nargs="*", help="script names (default: all of examples/)")
    parser.add_argument("--one", metavar="SCRIPT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        run_one(EXAMPLES / args.one, args.out.resolve())
        return
    scripts = args.scripts or sorted(p.name for p in EXAMPLES.glob("*.py"))
    run_all(args.out.resolve(), scripts)


if __name__ == "__main__":
    main()
