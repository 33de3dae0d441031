"""Sphinx configuration of the ``bipartite`` documentation.

Build (from the repository root; CI runs it with warnings as errors)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

Three parts of the site are generated at build time, none of them committed:

* ``docs/api/generated/`` -- one page per public module (``docs/_ext/apigen.py``);
* ``docs/papers/generated/`` -- one page per paper, from ``papers/<paper>/claims*.toml`` and the
  paper's README (``docs/_ext/paper_pages.py``);
* ``docs/gallery/`` -- the example gallery, made by sphinx-gallery by running
  ``docs/examples/plot_*.py``.

``BIPARTITE_REPO_ROOT`` overrides the repository root (the folder holding ``papers/``), for a build
of a copy of ``docs/`` elsewhere (``tests/test_docs_build.py`` does that).
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from pathlib import Path

import bipartite

DOCS = Path(__file__).resolve().parent
REPO_ROOT = Path(os.environ.get("BIPARTITE_REPO_ROOT", DOCS.parent)).resolve()
sys.path.insert(0, str(DOCS / "_ext"))

# The data folder's default, ``../shared/data`` relative to the working directory
# (bipartite.data.data_dir), assumes the repository root as working directory; the gallery
# scripts run in docs/examples/, so the default is pinned here to ``../shared/data`` beside the
# repository root (CI's layout). ``BIPARTITE_DATA`` still overrides it. A headless matplotlib
# backend keeps the scripts from opening windows.
os.environ.setdefault("BIPARTITE_DATA", str(REPO_ROOT.parent / "shared" / "data"))
os.environ.setdefault("MPLBACKEND", "Agg")

# -- Project -----------------------------------------------------------------------------------
project = "bipartite"
author = "the bipartite authors"
copyright = "the bipartite authors (MIT licence)"
version = release = bipartite.__version__

# -- General -----------------------------------------------------------------------------------
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "apigen",  # docs/_ext/apigen.py: one page per public module, by layer
    "paper_pages",  # docs/_ext/paper_pages.py: one page per paper, from the claims registries
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    "examples",  # gallery sources: sphinx-gallery renders them into gallery/
    "**/.ipynb_checkpoints",
]
templates_path: list[str] = []
nitpicky = False
default_role = "py:obj"  # `name` in docstrings links when it names a documented object
pygments_style = "sphinx"

# -- MyST (docs/theory.md, the paper pages) ------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3  # "#1-setting"-style anchors, as GitHub makes them

# -- autodoc / numpydoc --------------------------------------------------------------------------
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # the numpydoc "Parameters" sections give the types
autodoc_preserve_defaults = True
autosummary_generate = False  # the module pages come from apigen, not from autosummary stubs
numpydoc_show_class_members = False  # autodoc lists the members; no autosummary tables of them
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# -- sphinx-gallery ------------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "gallery",
    "filename_pattern": r"/plot_",  # run every example (all are named plot_*.py)
    "within_subsection_order": "FileNameSortKey",
    "abort_on_example_error": False,  # an example that raises is a build warning (-W: an error)
    "download_all_examples": False,
    "write_computation_times": False,  # no sg_execution_times.rst in the source folder
    "remove_config_comments": True,
    "show_signature": False,
    "reset_modules": ("matplotlib",),
    # figures the package makes without pyplot (docs/_ext/sg_figures.py), then pyplot's
    "image_scrapers": ("sg_figures", "matplotlib"),
    "doc_module": ("bipartite",),
    "backreferences_dir": None,
    "min_reported_time": 1,
}

# -- HTML ----------------------------------------------------------------------------------------
html_theme = "furo"
html_title = f"bipartite {release}"
html_static_path: list[str] = []
html_show_sourcelink = False

# -- apigen and paper_pages ----------------------------------------------------------------------
apigen_package = "bipartite"
paper_pages_root = str(REPO_ROOT / "papers")


# -- Hooks ---------------------------------------------------------------------------------------
_SKLEARN_REQUEST = re.compile(r"^set_\w+_request$")


def _skip_member(app, what, name, obj, skip, options):
    """Skip the ``set_<method>_request`` methods that scikit-learn's metadata routing adds to
    every estimator class: their docstrings are scikit-learn's (they cite its glossary and
    its user guide, which are not part of these pages), not the package's."""
    if _SKLEARN_REQUEST.match(name) and getattr(obj, "__module__", "").startswith("sklearn."):
        return True
    return None


def _forward_numpydoc_warnings():
    """numpydoc reports a malformed docstring (e.g. an unknown section, whose text it then drops
    from the page) as a Python ``UserWarning``, which ``sphinx -W`` does not see. Re-issue those
    as Sphinx warnings (type ``numpydoc``), so that the build fails on them too."""
    from sphinx.util import logging as sphinx_logging

    logger = sphinx_logging.getLogger("numpydoc")
    show = warnings.showwarning

    def showwarning(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, UserWarning) and f"{os.sep}numpydoc{os.sep}" in str(filename):
            logger.warning("numpydoc: %s", message, type="numpydoc")
        else:
            show(message, category, filename, lineno, file, line)

    warnings.showwarning = showwarning


def setup(app):
    app.connect("autodoc-skip-member", _skip_member)
    _forward_numpydoc_warnings()
