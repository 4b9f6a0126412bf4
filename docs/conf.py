"""Sphinx configuration of the optrees documentation (build with ``python docs/build.py``)."""

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

import optrees  # noqa: E402

project = "optrees"
author = "the optrees developers"
copyright = "the optrees developers"  # noqa: A001 - Sphinx's name for it
release = version = optrees.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "optrees_docs",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "README.md"]
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]

# Broken references are errors (the build runs with -W -n); what is left unresolved on purpose
# is only what lives in other projects (no intersphinx: the build must work offline).
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|pandas|matplotlib|sklearn|scipy|pathlib|os|collections\.abc|typing"
               r"|logging)(\..*)?"),
    # the same, named short (or in annotations imported only for type checkers)
    (r"py:class", r"ndarray|DataFrame|Series|Figure|Axes|Path"),
    # private names of optrees (a return annotation such as _OptimalTreeClassifier): no page
    (r"py:class", r"optrees(\.\w+)*\._\w+"),
]

autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "signature"
autodoc_typehints_format = "short"
autodoc_class_signature = "mixed"
napoleon_google_docstring = True
napoleon_numpy_docstring = True
# Parameter types as written (italic), not cross-referenced: numpydoc types such as
# '{"thresholds", "buckets"}, default "thresholds"' are no class names.
napoleon_use_param = False
napoleon_use_rtype = False

html_theme = "alabaster"
html_title = f"optrees {release}"
html_theme_options = {"description": "optimal trees and rule sets", "fixed_sidebar": True}
html_static_path = []
