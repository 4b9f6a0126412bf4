"""Sphinx extension of the optrees docs: gallery pages, CLI help, and the completeness checks.

- ``.. optrees-example:: NAME.py`` renders one script of ``examples/``: its docstring, its code,
  and, when ``optrees_gallery_dir`` is set (``docs/build.py`` sets it after running the
  examples with ``docs/gallery_run.py``), the text it printed and its pictures.  Without a
  gallery directory (the fast build of the test run) the page says where they come from.
- ``.. optrees-cli:: [SUBCOMMAND]`` is the ``--help`` text of the command line, taken from
  :func:`optrees.cli.build_parser`, so the CLI page cannot drift from the code.
- When the documents are read, the build warns (an error under ``-W``) about every example
  without a gallery page, every gallery picture that is missing, and every public name of
  :func:`public_names` that the API reference does not document.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import io
import os
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

import optrees

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
PICTURE_SUFFIXES = (".png", ".svg")
logger = logging.getLogger(__name__)


# ------------------------------------------------------------------------ public names
def public_members(cls: type) -> list[str]:
    """Public methods and properties of ``cls`` that optrees itself defines (in ``cls`` or a
    base class of the package), in ``dir`` order; scikit-learn's inherited API is left out."""
    names = []
    for name in dir(cls):
        if name.startswith("_"):
            continue
        owner = next(base for base in cls.__mro__ if name in vars(base))
        if not owner.__module__.startswith("optrees"):
            continue
        member = vars(owner)[name]
        if isinstance(member, property | classmethod | staticmethod) or inspect.isfunction(member):
            names.append(name)
    return names


def public_names() -> list[str]:
    """Full names that the API reference must document: every name of ``optrees.__all__``,
    the public methods and properties of its classes, and the functions of its modules."""
    names = []
    for name in optrees.__all__:
        obj = getattr(optrees, name)
        full = f"optrees.{name}"
        names.append(full)
        if inspect.ismodule(obj):
            names += [f"{full}.{f}" for f, v in vars(obj).items()
                      if inspect.isfunction(v) and v.__module__ == obj.__name__
                      and not f.startswith("_")]
        elif inspect.isclass(obj):
            names += [f"{full}.{m}" for m in public_members(obj)]
    return names


def skip_foreign_members(app, what, name, obj, skip, options):
    """autodoc: document the members of a class that optrees defines (in the class or in a
    base class of the package), not scikit-learn's (``get_params``, ``set_output``,
    metadata-routing requests) or the builtins' (``with_traceback``)."""
    if what not in ("class", "exception"):
        return None
    func = getattr(obj, "fget", None) or getattr(obj, "__func__", None) or obj
    return None if (getattr(func, "__module__", None) or "").startswith("optrees") else True


def resolve_short_name(app: Sphinx, env, node, contnode):
    """Resolve ``:class:`BinaryTree``` and the like written in any module's docstring: a
    Python reference without a module that names exactly one documented object of optrees
    (e.g. ``optrees.BinaryTree``) goes there; anything else stays unresolved (a warning)."""
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip(".~")
    if not target or target.startswith("optrees."):
        return None
    domain = env.get_domain("py")
    matches = [name for name, entry in domain.objects.items()
               if name.endswith(f".{target}") and name.startswith("optrees.")
               and not entry.aliased]
    if len(matches) != 1:
        return None
    return domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], matches[0],
                               node, contnode)


# ------------------------------------------------------------------------ gallery
def example_docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text())) or ""


def gallery_outputs(gallery_dir: Path, stem: str) -> tuple[str | None, list[Path]]:
    """What ``docs/gallery_run.py`` left for one example: its printed text and pictures."""
    folder = gallery_dir / stem
    text_file = folder / "output.txt"
    text = text_file.read_text() if text_file.is_file() else None
    pictures = sorted(p for p in folder.glob("*") if p.suffix in PICTURE_SUFFIXES)
    return text, pictures


class ExampleDirective(SphinxDirective):
    """One example script with its docstring, code, printed output and pictures."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0]
        path = EXAMPLES / name
        if not path.is_file():
            raise self.error(f"optrees-example: no such script examples/{name}")
        self.env.note_dependency(str(path))
        self.env.optrees_examples[self.env.docname] = name
        result: list[nodes.Node] = []

        intro = nodes.Element()  # the docstring is reST (``literals``)
        self.state.nested_parse(StringList(example_docstring(path).splitlines(), str(path)),
                                self.content_offset, intro)
        result += intro.children

        code = path.read_text()
        block = nodes.literal_block(code, code, language="python", linenos=False)
        block["source"] = str(path)
        result += [nodes.rubric(text=f"examples/{name}"), block]

        gallery = self.config.optrees_gallery_dir
        if not gallery:
            note = nodes.note()
            note += nodes.paragraph(text=(
                "The printed output and the pictures of this script are added by the full "
                "build, python docs/build.py, which runs it first."))
            return [*result, note]

        stem = Path(name).stem
        text, pictures = gallery_outputs(Path(gallery), stem)
        if text is None or not pictures:
            logger.warning("gallery: examples/%s has no %s in %s (run docs/gallery_run.py)",
                           name, "output" if text is None else "picture", Path(gallery) / stem,
                           location=self.get_location())
        if text is not None:
            output = nodes.literal_block(text, text, language="text")
            result += [nodes.rubric(text="Output"), output]
        here = Path(self.env.doc2path(self.env.docname)).parent
        for picture in pictures:
            result.append(nodes.rubric(text=_caption(Path(gallery) / stem, picture)))
            uri = Path(os.path.relpath(picture, here)).as_posix()
            result.append(nodes.image(uri=uri, alt=picture.name))
        return result


def _caption(folder: Path, picture: Path) -> str:
    """The caption ``gallery_run.py`` wrote next to a picture, else its file name."""
    caption = folder / f"{picture.name}.caption"
    return caption.read_text().strip() if caption.is_file() else picture.name


# ------------------------------------------------------------------------ CLI help
class CliDirective(SphinxDirective):
    """``optrees [SUBCOMMAND] --help`` as a literal block."""

    optional_arguments = 1
    option_spec = {"width": directives.positive_int}

    def run(self) -> list[nodes.Node]:
        from optrees.cli import build_parser

        argv = [*self.arguments, "--help"]
        out = io.StringIO()
        old = os.environ.get("COLUMNS")
        os.environ["COLUMNS"] = str(self.options.get("width", 90))
        try:
            with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
                build_parser().parse_args(argv)
        finally:
            if old is None:
                del os.environ["COLUMNS"]
            else:
                os.environ["COLUMNS"] = old
        text = out.getvalue()
        if not text.startswith("usage:"):
            raise self.error(f"optrees-cli: no help text for {' '.join(argv)!r}")
        return [nodes.literal_block(text, text, language="text")]


# ------------------------------------------------------------------------ checks
def init_env(app: Sphinx, env, docnames) -> None:
    if not hasattr(env, "optrees_examples"):
        env.optrees_examples = {}


def purge_doc(app: Sphinx, env, docname: str) -> None:
    getattr(env, "optrees_examples", {}).pop(docname, None)


def check_consistency(app: Sphinx, env) -> None:
    """Warn about examples without a gallery page and undocumented public names."""
    pages = set(getattr(env, "optrees_examples", {}).values())
    for script in sorted(p.name for p in EXAMPLES.glob("*.py")):
        if script not in pages:
            logger.warning("gallery: examples/%s has no page (add '.. optrees-example:: %s' "
                           "in docs/gallery/)", script, script)
    documented = set(env.get_domain("py").objects)
    for name in public_names():
        if name not in documented:
            logger.warning("API reference: %s is not documented (no docstring, or missing "
                           "from docs/api/)", name)


def setup(app: Sphinx) -> dict[str, object]:
    app.add_config_value("optrees_gallery_dir", "", "env", types=[str])
    app.add_directive("optrees-example", ExampleDirective)
    app.add_directive("optrees-cli", CliDirective)
    app.connect("env-before-read-docs", init_env)
    app.connect("env-purge-doc", purge_doc)
    app.connect("env-check-consistency", check_consistency)
    app.connect("autodoc-skip-member", skip_foreign_members)
    app.connect("missing-reference", resolve_short_name)
    return {"version": "1", "parallel_read_safe": False, "parallel_write_safe": True}
