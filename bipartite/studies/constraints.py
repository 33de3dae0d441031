"""Constraints on the parameters of a study function, declared at registration.

:func:`~bipartite.studies.register_study` takes ``constraints={"n": Range(1, integer=True),
"prior": Range(0, 1, low_open=True, high_open=True)}``; the config check
(:func:`~bipartite.studies.resolve_config`) applies them to every value of ``[params]``,
``[grid]`` and ``[[cases]]`` before any task runs, so ``n = -100`` is refused with the file,
the key and the line instead of failing in every task.

A constraint is any object with ``problem(value) -> str | None`` (why the value is refused, or
``None``) and ``describe() -> str``; :class:`Range`, :class:`OneOf` and :class:`Each` cover
numbers, choices and lists. ``None`` is never checked (an optional parameter's default).
"""


from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Protocol

#: ``Constraint`` is the structural type these satisfy (any object with ``problem`` and
#: ``describe``); it is not exported, as a Protocol has no constructor to document.
__all__ = ["Each", "OneOf", "Range", "check_constraints"]


class Constraint(Protocol):
    def problem(self, value: object) -> str | None: ...

    def describe(self) -> str: ...


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


@dataclasses.dataclass(frozen=True)
class Range:
    """A number in an interval: ``low <= x <= high`` (either bound ``None``: unbounded; an open
    bound is strict), finite, and an integer when ``integer``.

    >>> Range(0, 1, low_open=True, high_open=True).problem(1.5)
    'must be a number in (0, 1), got 1.5'
    >>> Range(1, integer=True).problem(-100)
    'must be an integer >= 1, got -100'
    >>> Range(1, integer=True).problem(3) is None
    True
    """

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    integer: bool = False

    def __post_init__(self):
        for name in ("low", "high"):
            bound = getattr(self, name)
            if bound is not None and (not _is_number(bound) or math.isnan(bound)):
                raise ValueError(f"The '{name}' parameter must be a number or None, got "
                                 f"{bound!r}.")
        if self.low is not None and self.high is not None and self.low > self.high:
            raise ValueError(f"Range: low {self.low!r} is above high {self.high!r}.")

    def describe(self) -> str:
        what = "an integer" if self.integer else "a number"
        if self.low is not None and self.high is not None:
            return (f"{what} in {'(' if self.low_open else '['}{self.low:g}, {self.high:g}"
                    f"{')' if self.high_open else ']'}")
        if self.low is not None:
            return f"{what} {'>' if self.low_open else '>='} {self.low:g}"
        if self.high is not None:
            return f"{what} {'<' if self.high_open else '<='} {self.high:g}"
        return f"a finite {'integer' if self.integer else 'number'}"

    def problem(self, value: object) -> str | None:
        ok = _is_number(value) and (not self.integer or isinstance(value, int))
        if ok and isinstance(value, float):
            ok = math.isfinite(value)
        if ok and self.low is not None:
            ok = value > self.low if self.low_open else value >= self.low
        if ok and self.high is not None:
            ok = value < self.high if self.high_open else value <= self.high
        return None if ok else f"must be {self.describe()}, got {value!r}"


@dataclasses.dataclass(frozen=True)
class OneOf:
    """One of a fixed set of values (strings, numbers).

    >>> OneOf(("xgb", "mlp")).problem("svm")
    "must be one of ['xgb', 'mlp'], got 'svm'"
    """

    values: tuple

    def __post_init__(self):
        if isinstance(self.values, str) or not isinstance(self.values, Sequence | frozenset | set):
            raise ValueError(f"The 'values' parameter must be a sequence of choices, got "
                             f"{self.values!r}.")
        object.__setattr__(self, "values", tuple(self.values))

    def describe(self) -> str:
        return f"one of {list(self.values)}"

    def problem(self, value: object) -> str | None:
        if any(value == v and type(value) is type(v) for v in self.values) or (
                _is_number(value) and any(_is_number(v) and value == v for v in self.values)):
            return None
        return f"must be {self.describe()}, got {value!r}"


@dataclasses.dataclass(frozen=True)
class Each:
    """Every element of a list satisfies ``inner`` (and the list has at least ``min_len``).

    >>> Each(Range(1, integer=True)).problem([10, 0])
    'element #1 must be an integer >= 1, got 0'
    """

    inner: Constraint
    min_len: int = 0

    def describe(self) -> str:
        return f"a list of {self.inner.describe()}" + (
            f" (at least {self.min_len})" if self.min_len else "")

    def problem(self, value: object) -> str | None:
        if not isinstance(value, list | tuple):
            return f"must be {self.describe()}, got {value!r}"
        if len(value) < self.min_len:
            return f"must have at least {self.min_len} element(s), got {len(value)}"
        for i, v in enumerate(value):
            reason = self.inner.problem(v) if v is not None else None
            if reason is not None:
                return f"element #{i} {reason}"
        return None


def check_constraints(constraints: object, parameters: Sequence[str], where: str) -> dict:
    """The ``constraints`` mapping of a registration, checked: names of parameters of the
    function (not ``seed``), each value a constraint object. Raises ``TypeError``."""
    if constraints is None:
        return {}
    if not isinstance(constraints, dict):
        raise TypeError(f"{where}: 'constraints' must be a dict (parameter -> constraint), got "
                        f"{type(constraints).__name__}.")
    for name, c in constraints.items():
        if name not in parameters or name == "seed":
            raise TypeError(f"{where}: constraint on {name!r}, which is not a parameter of the "
                            f"function (parameters: {sorted(p for p in parameters if p != 'seed')}).")
        if not (callable(getattr(c, "problem", None)) and callable(getattr(c, "describe", None))):
            raise TypeError(f"{where}: constraint on {name!r} must have problem() and describe() "
                            f"(Range, OneOf, Each), got {c!r}.")
    return dict(constraints)
