"""Sphinx extension: one API page per public module of a package, grouped by layer.

At ``builder-inited`` it imports every public module of ``apigen_package`` (no path part starting
with ``_``) and writes ``api/generated/<module>.rst`` (only when the text changed, so incremental
builds stay incremental). Each page is an ``automodule`` with ``:members:``.

**One canonical place per object.** A function or class is often exported by several modules: the
module that defines it and the package that re-exports it (``bipartite.data.load_banking`` is
``bipartite.data.bank_personal_loan.load_banking``). Documenting it twice would give two targets for one
name, so each object is documented once, in the *shallowest* public module that exports it (the
name users import, and the one the docstrings cite: ``bipartite.pareto.exact_frontier``); ties go
to the defining module. The other modules list it under "Documented elsewhere" with a link.

Exports are a module's ``__all__`` or, without one, the public functions and classes it defines
(what ``automodule :members:`` documents). A module that cannot be imported is reported as a Sphinx
warning (a ``-W`` build fails) and gets a page saying so.

References to an object under a name it is not documented under (a short name in the module that
defines it, or the defining module's full name of a re-exported object) are resolved to the
documented name at ``missing-reference``.

The layer pages (``api/core.rst`` ...) include ``api/generated/<layer>.inc``, a toctree of the
layer's module pages with a one-line summary table, so that a new module appears without editing
them. Layers: ``contrib``, ``studies``, ``experiments``, ``cli`` by their sub-package; everything else
is ``core``, in the package's ``_SUBMODULES`` order (the order of the theory).
"""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import sys
import traceback
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

LAYERS = ("core", "contrib", "studies", "experiments", "cli")
_OUT = ("api", "generated")
#: id of each documented function or class -> the full name it is documented under
_CANONICAL: dict[int, str] = {}


def layer_of(module: str, package: str) -> str:
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in LAYERS[1:]:
        return parts[1]
    return "core"


def public_modules(package: str) -> list[str]:
    """The package and every sub-module with no private path part, in import-walk order."""
    pkg = importlib.import_module(package)
    names = [package]
    errors: list[str] = []
    for info in pkgutil.walk_packages(pkg.__path__, package + ".", onerror=errors.append):
        if any(p.startswith("_") for p in info.name.split(".")):
            continue
        names.append(info.name)
    for name in errors:
        if not any(p.startswith("_") for p in name.split(".")):
            names.append(name)  # a sub-package whose import failed: reported by _import
    return list(dict.fromkeys(names))


def _sort_key(module: str, package: str, order: tuple[str, ...]) -> tuple:
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else ""
    rank = order.index(top) if top in order else len(order)
    return (LAYERS.index(layer_of(module, package)), rank, parts)


def _import(name: str):
    try:
        return importlib.import_module(name), None
    except Exception:  # noqa: BLE001 - any import error is reported, not raised
        return None, traceback.format_exc(limit=-4)


def exports(mod) -> list[str]:
    """Names of the functions and classes that ``automodule :members:`` documents for ``mod``."""
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n, o in vars(mod).items()
                 if not n.startswith("_") and getattr(o, "__module__", None) == mod.__name__]
    out = []
    for n in names:
        obj = getattr(mod, n, None)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            out.append(n)
    return out


def _title(text: str, char: str = "=") -> str:
    return f"{text}\n{char * len(text)}\n"


def _cli_help(module) -> str:
    """``--help`` of every command of ``module.build_parser()`` as literal blocks."""
    import argparse

    build = getattr(module, "build_parser", None)
    if build is None:
        return ""
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"
    try:
        blocks: list[tuple[str, str]] = []

        def walk(parser: argparse.ArgumentParser, name: str) -> None:
            blocks.append((name, parser.format_help()))
            for action in parser._actions:  # argparse keeps sub-parsers here only
                if isinstance(action, argparse._SubParsersAction):
                    for sub_name, sub in action.choices.items():
                        walk(sub, f"{name} {sub_name}")

        walk(build(), "bipartite")
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old
    out = ["", _title("Command-line help", "-"),
           "The ``--help`` text of every command, as printed by the installed version.", ""]
    for name, text in blocks:
        out += [f".. rubric:: ``{name}``", "", ".. code-block:: text", ""]
        out += ["   " + line if line.strip() else "" for line in text.rstrip().splitlines()]
        out.append("")
    return "\n".join(out)


def render_module(name: str, mod, error: str | None, canonical: dict[int, str],
                  children: list[str]) -> str:
    lines = [f".. _api-{name}:", "", _title(name)]
    if mod is None:
        lines += [".. warning::", "", f"   ``{name}`` could not be imported when these pages "
                  "were built, so it is not documented here.", ""]
        return "\n".join(lines)
    excluded, elsewhere = [], []
    for n in exports(mod):
        home = canonical.get(id(getattr(mod, n)))
        if home is not None and home != name:
            excluded.append(n)
            elsewhere.append(f"{home}.{n}")
    lines += [f".. automodule:: {name}", "   :members:"]
    if excluded:
        lines.append(f"   :exclude-members: {', '.join(excluded)}")
    lines.append("")
    if elsewhere:
        lines += [".. rubric:: Documented elsewhere", "",
                  f"Also exported by ``{name}``; documented where users import them:", ""]
        lines += [f"* :py:obj:`{target}`" for target in elsewhere]
        lines.append("")
    if children:
        # full names in the table, so the current module (set by automodule) must not prefix them
        lines += [".. rubric:: Submodules", "", ".. py:currentmodule:: None", "",
                  ".. autosummary::", ""]
        lines += [f"   {c}" for c in children]
        lines.append("")
    if name.endswith(".cli"):
        lines.append(_cli_help(mod))
    return "\n".join(lines)


def render_layer(modules: list[str]) -> str:
    lines = [".. autosummary::", ""]
    lines += [f"   {m}" for m in modules]
    lines += ["", ".. toctree::", "   :hidden:", ""]
    lines += [f"   generated/{m}" for m in modules]
    return "\n".join(lines) + "\n"


def _write(path: Path, text: str) -> None:
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def generate(app: Sphinx) -> None:
    package = app.config.apigen_package
    pkg = importlib.import_module(package)
    order = tuple(getattr(pkg, "_SUBMODULES", ()))
    names = sorted(public_modules(package), key=lambda m: _sort_key(m, package, order))
    loaded = {}
    for name in names:
        mod, error = _import(name)
        if error:
            logger.warning("apigen: cannot import %s:\n%s", name, error, type="apigen")
        loaded[name] = (mod, error)

    # canonical module of each function/class: the shallowest exporter, then its definer
    candidates: dict[int, list[tuple[int, int, str]]] = {}
    for name, (mod, _) in loaded.items():
        if mod is None:
            continue
        for n in exports(mod):
            obj = getattr(mod, n)
            defined_here = getattr(obj, "__module__", None) == name
            candidates.setdefault(id(obj), []).append((name.count("."), 0 if defined_here else 1,
                                                       name))
    canonical = {k: min(v)[2] for k, v in candidates.items()}
    _CANONICAL.clear()
    for name, (mod, _) in loaded.items():
        if mod is not None:
            for n in exports(mod):
                if canonical.get(id(getattr(mod, n))) == name:
                    _CANONICAL[id(getattr(mod, n))] = f"{name}.{n}"

    out = Path(app.srcdir).joinpath(*_OUT)
    wanted = set()
    for name, (mod, error) in loaded.items():
        children = [c for c in names if c.rsplit(".", 1)[0] == name]
        _write(out / f"{name}.rst", render_module(name, mod, error, canonical, children))
        wanted.add(f"{name}.rst")
    for layer in LAYERS:
        mods = [n for n in names if layer_of(n, package) == layer and n != package]
        _write(out / f"{layer}.inc", render_layer(mods))
        wanted.add(f"{layer}.inc")
    for stale in out.glob("*"):
        if stale.name not in wanted:  # a module that was removed or renamed
            stale.unlink()


def _locate(name: str):
    """The object a dotted name denotes, looked up from an already imported module (nothing is
    imported here), with the full name of the documented object it belongs to; or None."""
    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):
        mod = sys.modules.get(".".join(parts[:i]))
        if mod is None:
            continue
        obj, home, rest = mod, None, []
        for attr in parts[i:]:
            obj = getattr(obj, attr, None)
            if obj is None:
                return None
            if home is not None:
                rest.append(attr)
            elif id(obj) in _CANONICAL:
                home = _CANONICAL[id(obj)]
        return ".".join([home, *rest]) if home else None
    return None


def resolve_reexported(app: Sphinx, env, node, contnode):
    """``missing-reference``: a Python reference to a function or class (or one of its members)
    under a name it is not documented under -- a short name inside the module that defines it
    (``pareto_filter`` in ``bipartite.pareto.dominance``), or the defining module's full name of
    a re-exported object -- is resolved to its documented (canonical) name."""
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "").lstrip(".~")
    modname = node.get("py:module")
    clsname = node.get("py:class")
    candidates = [f"{modname}.{clsname}.{target}"] if modname and clsname else []
    candidates += [f"{modname}.{target}"] if modname else []
    candidates.append(target)
    for name in candidates:
        full = _locate(name)
        if full and full != name:
            domain = env.get_domain("py")
            return domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], full,
                                       node, contnode)
    return None


def setup(app: Sphinx) -> dict:
    app.add_config_value("apigen_package", "", "env")
    app.connect("builder-inited", generate)
    app.connect("missing-reference", resolve_reexported)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
