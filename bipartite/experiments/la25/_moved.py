"""The module paths LA25 had before it took the shape of the other papers (issue 21), kept for one
release: importing one, or reading a name from it, warns (``FutureWarning``) and forwards to the
new home. Nothing here is used by the package itself."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings

_NEW = "bipartite.experiments.la25"

#: Old module -> the modules that now hold its names, searched in order.
OLD_MODULES: dict[str, tuple[str, ...]] = {
    f"{_NEW}.section7": (f"{_NEW}.studies.section7", f"{_NEW}.figures.section7",
                         "bipartite.data.letor"),
    f"{_NEW}.section7_report": (f"{_NEW}.figures.section7",),
    f"{_NEW}.section7_summary": (f"{_NEW}.run",),
    f"{_NEW}.section7_theory": (f"{_NEW}.studies.theory", f"{_NEW}.figures.section7"),
    f"{_NEW}.section7_gap": ("bipartite.consistency", f"{_NEW}.studies.gap",
                             f"{_NEW}.figures.section7"),
    f"{_NEW}.maxmin": (f"{_NEW}.studies.maxmin", f"{_NEW}.figures.maxmin"),
    f"{_NEW}.learners_vs_bayes": (f"{_NEW}.studies.learners_vs_bayes",
                                  f"{_NEW}.figures.learners_vs_bayes"),
}
#: Names of the old ``la25.studies`` / ``la25.figures`` modules, now in these modules.
OLD_PACKAGE_NAMES: dict[str, tuple[str, ...]] = {
    f"{_NEW}.studies": (f"{_NEW}.studies.sweeps",),
    f"{_NEW}.figures": (f"{_NEW}.figures.sweeps",),
}
#: Old names of ``la25.run``.
OLD_RUN_NAMES = {"la25_configs": "configs", "la25_figures": "figures", "la25_summary": "summary"}


def forward(old: str, homes: tuple[str, ...], name: str) -> object:
    """``name`` of the moved module ``old``, from the first of ``homes`` that has it, with a
    ``FutureWarning`` naming the new path."""
    for home in homes:
        module = importlib.import_module(home)
        if hasattr(module, name):
            warnings.warn(f"{old}.{name} is deprecated; use {home}.{name}.", FutureWarning,
                          stacklevel=3)
            return getattr(module, name)
    raise AttributeError(f"module {old!r} has no attribute {name!r}")


class _MovedModule(types.ModuleType):
    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        return forward(self.__name__, OLD_MODULES[self.__name__], name)


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname in OLD_MODULES:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        warnings.warn(f"{spec.name} is deprecated; its names are now in "
                      f"{', '.join(OLD_MODULES[spec.name])}.", FutureWarning, stacklevel=2)
        return _MovedModule(spec.name)

    def exec_module(self, module):
        module.__doc__ = f"Deprecated: see {', '.join(OLD_MODULES[module.__name__])}."


def install() -> None:
    """Put the finder of the old module paths on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())
