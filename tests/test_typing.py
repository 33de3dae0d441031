"""Type hints on the public API (issue 14, item 6: "no ``Any`` where a type is known").

For every public module of :mod:`bipartite` (no ``_private`` part in its name), every name in its
``__all__`` that the package defines -- functions, classes (their ``__init__`` and their public
methods, properties and the generated ``__init__`` of dataclasses and named tuples) -- every
parameter and the return value must be annotated, and no annotation may be exactly ``Any``
(``Any``, ``Any | None``, a union with ``Any`` as a member), unless the place is in
:data:`ALLOWED_ANY` with the reason. ``**kwargs`` passed through to another function may be
``Any``: the values are whatever that function accepts.

Annotations are resolved with :func:`typing.get_type_hints`; where that fails (a name imported only
under ``TYPE_CHECKING``, e.g. ``torch.Tensor`` in a module that loads torch lazily), the annotation
strings are checked instead (``from __future__ import annotations`` makes every annotation one).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import types
import typing
from collections.abc import Callable, Iterator

import pytest

import bipartite

#: ``(module, qualified name, parameter or "return")`` -> why ``Any`` is the right type there.
ALLOWED_ANY: dict[tuple[str, str, str], str] = {
}

#: Modules not imported by the test.
SKIP_MODULES = {"bipartite.__main__"}  # importing it runs the command line


def public_modules() -> list[str]:
    names = ["bipartite"]
    for info in pkgutil.walk_packages(bipartite.__path__, prefix="bipartite."):
        parts = info.name.split(".")
        if any(p.startswith("_") and not p.startswith("__") for p in parts) or info.name in SKIP_MODULES:
            continue
        names.append(info.name)
    return sorted(names)


MODULES = public_modules()


def _defined_here(obj: object) -> bool:
    return (getattr(obj, "__module__", "") or "").split(".")[0] == "bipartite"


def _callables(module: types.ModuleType) -> Iterator[tuple[str, Callable]]:
    """``(qualified name, function)`` for the public functions and methods of ``module``: the
    names in its ``__all__``, or, for a module without one, every name it defines that does not
    start with an underscore."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, o in vars(module).items()
                 if not n.startswith("_") and getattr(o, "__module__", None) == module.__name__]
    for name in names:
        obj = getattr(module, name, None)
        if inspect.isfunction(obj) and _defined_here(obj):
            yield name, obj
        elif inspect.isclass(obj) and _defined_here(obj):
            yield from _methods(obj)


def _methods(cls: type) -> Iterator[tuple[str, Callable]]:
    seen: set[str] = set()
    for klass in cls.__mro__:
        if not _defined_here(klass):
            continue
        for attr, raw in vars(klass).items():
            if attr in seen or (attr.startswith("_") and attr not in ("__init__", "__call__")):
                continue
            seen.add(attr)
            if isinstance(raw, staticmethod | classmethod):
                raw = raw.__func__
            if isinstance(raw, property):
                if raw.fget is not None:
                    yield f"{cls.__name__}.{attr}", raw.fget
                continue
            if inspect.isfunction(raw):
                # a dataclass's or a NamedTuple's generated __init__/__new__ lives in the class too
                yield f"{cls.__name__}.{attr}", raw
    if "__init__" not in seen and "_fields" in vars(cls) and "__new__" in vars(cls):
        yield f"{cls.__name__}.__new__", vars(cls)["__new__"]


def _any_in_hint(hint: object) -> bool:
    if hint is typing.Any:
        return True
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return any(a is typing.Any for a in typing.get_args(hint))
    return False


def _any_in_string(text: str) -> bool:
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return False

    def is_any(n: ast.expr) -> bool:
        return (isinstance(n, ast.Name) and n.id == "Any") or (
            isinstance(n, ast.Attribute) and n.attr == "Any")

    def members(n: ast.expr) -> list[ast.expr]:
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitOr):
            return members(n.left) + members(n.right)
        if isinstance(n, ast.Subscript) and getattr(n.value, "id", getattr(n.value, "attr", "")) in (
                "Optional", "Union"):
            s = n.slice
            return [m for e in (s.elts if isinstance(s, ast.Tuple) else [s]) for m in members(e)]
        return [n]

    return any(is_any(m) for m in members(node))


def _problems(module: str, qualname: str, func: Callable) -> list[str]:
    out = []
    sig = inspect.signature(func)
    raw = dict(getattr(func, "__annotations__", {}))
    try:
        hints: dict[str, object] | None = typing.get_type_hints(func)
    except Exception:  # a TYPE_CHECKING-only name: check the strings
        hints = None
    is_init = qualname.endswith(("__init__", "__new__"))
    params = [p for i, p in enumerate(sig.parameters.values())
              if not (i == 0 and p.name in ("self", "cls"))]
    for p in params:
        where = f"{module}.{qualname}({p.name})"
        if p.name not in raw:
            out.append(f"{where}: no annotation")
            continue
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            continue  # passed through: the values are what the callee accepts
        if (module, qualname, p.name) in ALLOWED_ANY:
            continue
        bad = _any_in_hint(hints[p.name]) if hints is not None else (
            _any_in_string(raw[p.name]) if isinstance(raw[p.name], str) else _any_in_hint(raw[p.name]))
        if bad:
            out.append(f"{where}: annotated Any ({raw[p.name]!s})")
    if "return" not in raw:
        if not is_init:
            out.append(f"{module}.{qualname}: no return annotation")
    elif (module, qualname, "return") not in ALLOWED_ANY:
        ret = raw["return"]
        bad = _any_in_hint(hints["return"]) if hints is not None else (
            _any_in_string(ret) if isinstance(ret, str) else _any_in_hint(ret))
        if bad:
            out.append(f"{module}.{qualname}: returns Any ({ret!s})")
    return out


def _import(name: str) -> types.ModuleType:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:  # an optional dependency is missing here
        if (exc.name or "").split(".")[0] == "bipartite":
            raise
        pytest.skip(f"{name}: {exc}")


@pytest.mark.parametrize("name", MODULES)
def test_public_api_is_typed_without_any(name):
    module = _import(name)
    bad = []
    for qualname, func in _callables(module):
        bad += _problems(func.__module__, qualname, func)
    assert not bad, "\n".join(sorted(set(bad)))


def test_the_allow_list_is_not_stale():
    """Every allow-listed place exists and is still annotated ``Any`` (and has a reason)."""
    stale = []
    for (module, qualname, param), reason in ALLOWED_ANY.items():
        assert reason.strip(), (module, qualname, param)
        obj: object = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part, None)
        if isinstance(obj, property):
            obj = obj.fget
        ann = getattr(obj, "__annotations__", {}).get(param)
        if ann is None or not (_any_in_string(ann) if isinstance(ann, str) else _any_in_hint(ann)):
            stale.append(f"{module}.{qualname}({param}): {ann!r}")
    assert not stale, "allow-listed but no longer Any:\n" + "\n".join(stale)


def test_the_check_can_fail():
    def f(a: typing.Any, b: int | None = None, **kw: typing.Any) -> typing.Any:
        return a

    def g(a, b: str | typing.Any = "x") -> int:
        return 0

    f.__module__ = g.__module__ = "bipartite.fake"
    assert _problems("bipartite.fake", "f", f) == [
        "bipartite.fake.f(a): annotated Any (typing.Any)",
        "bipartite.fake.f: returns Any (typing.Any)",
    ]
    assert len(_problems("bipartite.fake", "g", g)) == 2
    assert _any_in_string("str | Any") and _any_in_string("Optional[Any]")
    assert not _any_in_string("dict[str, Any]") and not _any_in_string("ArrayLike")
