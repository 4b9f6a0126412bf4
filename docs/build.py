"""Build the documentation site: run the examples for the gallery, then Sphinx, strictly.

Run: python docs/build.py [--out DIR] [--no-gallery]

Writes DIR/gallery/ (what each example printed, and its pictures) and the HTML site in
DIR/html/ (default DIR: docs/_build). Every Sphinx warning is an error (-W --keep-going -n:
a broken reference, an undocumented public name, an example without a gallery page, a
missing gallery picture). ``--no-gallery`` skips running the examples (about a minute) and
builds the pages without their output and pictures, as the test run does.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

DOCS = Path(__file__).resolve().parent


def sphinx_command(out: Path, gallery: Path | None = None) -> list[str]:
    """The strict Sphinx HTML build of docs/ into out/html (doctrees in out/doctrees)."""
    # -E: read every page again, so that warnings of unchanged pages are not skipped
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-E", "-b", "html",
           "-d", str(out / "doctrees"), str(DOCS), str(out / "html")]
    if gallery is not None:
        cmd += ["-D", f"optrees_gallery_dir={gallery.resolve()}"]
    return cmd


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DOCS / "_build",
                        help="output folder (default: docs/_build)")
    parser.add_argument("--no-gallery", action="store_true",
                        help="do not run the examples; pages without output and pictures")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    gallery = None
    if not args.no_gallery:
        gallery = out / "gallery"
        start = time.perf_counter()
        run = subprocess.run([sys.executable, str(DOCS / "gallery_run.py"), str(gallery)])
        if run.returncode != 0:
            return run.returncode
        print(f"gallery: {time.perf_counter() - start:.0f} s", file=sys.stderr)
    start = time.perf_counter()
    code = subprocess.run(sphinx_command(out, gallery)).returncode
    if code == 0:
        print(f"sphinx: {time.perf_counter() - start:.0f} s; open {out / 'html' / 'index.html'}",
              file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
