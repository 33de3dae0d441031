"""Load a script of the repository (``simulations/``, ``analysis/``, ``benchmarks/``) as a module,
so a test can call its functions: the one home of the ``spec_from_file_location`` idiom for the
tests that exercise such scripts."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]


def load_script(relpath: str, name: str | None = None) -> ModuleType:
    """The module of ``REPO / relpath``, executed under ``name`` (default: the file's stem)."""
    path = REPO / relpath
    spec = importlib.util.spec_from_file_location(name or path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
