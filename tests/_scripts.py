"""Load a script of the repository (``simulations/``, ``analysis/``, ``benchmarks/``, ``papers/``,
the repository's ``conftest.py``) as a module, so a test can call its functions: the one home of
the ``spec_from_file_location`` idiom for the tests that exercise such scripts."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]


def load_script(relpath: str, name: str | None = None) -> ModuleType:
    """The module of ``REPO / relpath``, executed under ``name`` (default: the file's stem).

    The module is put in ``sys.modules`` under ``name`` before it runs (dataclasses and
    ``typing`` resolve a module's annotations through ``sys.modules``), replacing an earlier load
    under that name, and taken out again if running it raises."""
    path = REPO / relpath
    name = name or path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return mod
