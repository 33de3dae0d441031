"""Every public callable of the package: each name in each module's ``__all__`` that is callable
(functions, classes, callable objects; exception and warning classes excluded), keyed by where it
is defined (``module.qualname``), so a re-export is one entry."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import bipartite


def _modules() -> list[str]:
    names = ["bipartite"]
    names += sorted(m.name for m in pkgutil.walk_packages(bipartite.__path__, "bipartite."))
    # private modules (a part starting with "_": bipartite._utils, bipartite.metrics._kernels)
    # are not public API, whatever their __all__ says
    return [n for n in names
            if not n.endswith("__main__") and not any(p.startswith("_") for p in n.split("."))]


def public_callables() -> dict[str, object]:
    """``{canonical name: object}`` over every module's ``__all__``."""
    found: dict[int, tuple[str, object]] = {}
    for modname in _modules():
        mod = importlib.import_module(modname)
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name)
            if not callable(obj):
                continue
            if inspect.isclass(obj) and issubclass(obj, (BaseException,)):
                continue
            home = getattr(obj, "__module__", None)
            qual = getattr(obj, "__qualname__", None)
            if home and qual and home.startswith("bipartite") and inspect.isclass(obj) or (
                    home and qual and home.startswith("bipartite") and inspect.isfunction(obj)):
                key = f"{home}.{qual}"
            else:
                key = f"{modname}.{name}"
            if id(obj) not in found or len(key) < len(found[id(obj)][0]):
                found[id(obj)] = (key, obj)
    return dict(sorted(found.values(), key=lambda kv: kv[0]))


if __name__ == "__main__":
    for k in public_callables():
        print(k)
