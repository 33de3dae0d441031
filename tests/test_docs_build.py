"""The documentation builds with warnings as errors (``docs/``, Sphinx).

The build runs on a copy of ``docs/`` in a temporary folder, so that the pages it generates (API
stubs, paper pages, the gallery) and the gallery's run cache never touch the checkout and every
example runs afresh. It needs the ``docs`` extra (``pip install -e ".[docs]"``) and is skipped,
with the missing packages named, without it.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
# the Sphinx extensions and theme that docs/conf.py loads
NEEDED = ("sphinx", "myst_parser", "numpydoc", "sphinx_gallery", "furo")
# generated at build time (see docs/conf.py): never copied from the checkout
GENERATED = ("_build", "generated", "gallery", "__pycache__", ".ipynb_checkpoints")


@pytest.mark.slow
def test_docs_build_with_warnings_as_errors(tmp_path):
    missing = [m for m in NEEDED if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"docs dependencies not installed: {', '.join(missing)} "
                    "(pip install -e '.[docs]')")
    src = tmp_path / "docs"
    shutil.copytree(DOCS, src, ignore=shutil.ignore_patterns(*GENERATED))
    out, doctrees = tmp_path / "html", tmp_path / "doctrees"
    env = {**os.environ, "BIPARTITE_REPO_ROOT": str(REPO), "MPLBACKEND": "Agg"}
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", "-d", str(doctrees),
         str(src), str(out)],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=1200,
    )
    assert proc.returncode == 0, (
        f"sphinx -W failed (exit {proc.returncode}):\n{proc.stderr[-20000:]}"
    )
    # every part of the site is there: theory, API by layer, one page per paper, the gallery
    for page in ("index", "theory", "api/index", "api/core", "api/contrib", "api/studies",
                 "api/experiments", "api/cli", "api/generated/bipartite.cli", "papers/index",
                 "gallery/index"):
        assert (out / f"{page}.html").is_file(), page
    papers = sorted(p.parent.name for p in (REPO / "papers").glob("*/claims*.toml"))
    for paper in set(papers):
        assert (out / "papers" / "generated" / f"{paper}.html").is_file(), paper
    examples = sorted(p.stem for p in (DOCS / "examples").glob("plot_*.py"))
    assert examples
    for name in examples:
        assert (out / "gallery" / f"{name}.html").is_file(), name
