"""The one home of moved public names: a module or name that moves keeps its old path for one
release, and using the old path warns (``FutureWarning``) and forwards to the new home.

Two forms:

* :func:`forward`: one name read from an old module (a module ``__getattr__`` calls it), under
  the same name or, with ``new_name``, a renamed one;
* :func:`register`: old module paths that no longer exist as files. A finder on
  ``sys.meta_path`` creates each on import (with a ``FutureWarning``), and every name read from it
  is forwarded to the first of its new homes that has it.

Nothing here is used by the package itself, except to answer old paths.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings

#: Old module path -> the modules that now hold its names, searched in order.
_OLD_MODULES: dict[str, tuple[str, ...]] = {}
#: ``"old.module.name"`` -> the name it has in its new home, for names renamed as they moved.
_RENAMED: dict[str, str] = {}


def forward(old: str, homes: tuple[str, ...], name: str, *, new_name: str | None = None,
            stacklevel: int = 3) -> object:
    """``name`` of the moved module ``old``, from the first of ``homes`` that has it (as
    ``new_name`` when the name itself changed), with a ``FutureWarning`` naming the new path;
    ``AttributeError`` when no home has it."""
    new = name if new_name is None else new_name
    for home in homes:
        module = importlib.import_module(home)
        if hasattr(module, new):
            warnings.warn(f"{old}.{name} is deprecated; use {home}.{new}.", FutureWarning,
                          stacklevel=stacklevel)
            return getattr(module, new)
    raise AttributeError(f"module {old!r} has no attribute {name!r}")


class _MovedModule(types.ModuleType):
    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        return forward(self.__name__, _OLD_MODULES[self.__name__], name,
                       new_name=_RENAMED.get(f"{self.__name__}.{name}"))


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname in _OLD_MODULES:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        warnings.warn(f"{spec.name} is deprecated; its names are now in "
                      f"{', '.join(_OLD_MODULES[spec.name])}.", FutureWarning, stacklevel=2)
        return _MovedModule(spec.name)

    def exec_module(self, module):
        homes = _OLD_MODULES[module.__name__]
        module.__doc__ = f"Deprecated: see {', '.join(homes)}."
        # ``from old import *``: the homes' public names, and the old names of renamed ones
        names = {n for h in homes for n in getattr(importlib.import_module(h), "__all__", ())}
        prefix = f"{module.__name__}."
        names |= {k[len(prefix):] for k in _RENAMED if k.startswith(prefix)}
        names -= {v for k, v in _RENAMED.items() if k.startswith(prefix)}
        module.__all__ = sorted(names)


def register(old_modules: dict[str, tuple[str, ...]],
             renamed: dict[str, str] | None = None) -> None:
    """Answer each old module path of ``old_modules`` (old path -> new homes, searched in order)
    with a forwarding module; puts the finder on ``sys.meta_path`` once. ``renamed`` maps an old
    dotted name (``"old.module.name"``) to the name it has in its new home."""
    _OLD_MODULES.update(old_modules)
    _RENAMED.update(renamed or {})
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())

