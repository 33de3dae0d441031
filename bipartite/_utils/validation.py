"""Input validation shared by every public function: the checks of scalar parameters (options,
seeds, reals, positive numbers, tolerances, ``max_fpr``, time limits) and of finite-support
problems here, and, re-exported so that this module is the one import path of every check, the
array checks (:mod:`bipartite._utils.arrays`), the query-id checks
(:mod:`bipartite._utils.query_ids`), the power-of-two scaling (:mod:`bipartite._utils.scaling`) and
the error classes (:mod:`bipartite._utils.errors`).

Errors name the argument and echo the bad value (STYLE.md habit 2). Undefined quantities (an AUC
for a label with a single class) are not errors: they warn with :class:`UndefinedMetricWarning`
and return NaN.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.arrays import (
    EXACT_FLOAT_INT,
    ROW_SUM_ATOL,
    as_numeric_array,
    as_plain_array,
    check_array,
    check_binary,
    check_consistent_length,
    check_dense_tensor,
    check_finite,
    check_label_matrix,
    check_nonnegative,
    check_probabilities,
    check_row_distributions,
    check_sample_weight,
)
from bipartite._utils.errors import (
    InvalidParameterError,
    UndefinedMetricWarning,
    first_index,
    show_number,
    warn_undefined,
)
from bipartite._utils.query_ids import check_group_ids, check_qid, require_qid, resolve_qid
from bipartite._utils.scaling import pow2_normalise, pow2_scale

__all__ = [
    "EXACT_FLOAT_INT",
    "ROW_SUM_ATOL",
    "InvalidParameterError",
    "ProblemLike",
    "UndefinedMetricWarning",
    "as_numeric_array",
    "as_plain_array",
    "check_dense_tensor",
    "check_positive",
    "check_problem",
    "pow2_normalise",
    "pow2_scale",
    "check_real",
    "check_time_limit",
    "check_tolerance",
    "check_array",
    "check_binary",
    "check_consistent_length",
    "check_finite",
    "check_group_ids",
    "check_label_matrix",
    "check_nonnegative",
    "check_option",
    "check_probabilities",
    "check_row_distributions",
    "check_sample_weight",
    "check_qid",
    "check_random_state",
    "first_index",
    "require_qid",
    "resolve_qid",
    "show_number",
    "warn_undefined",
]


def check_option(value: Any, name: str, options: Iterable[str]) -> str:
    """``value`` must be one of ``options``.

    >>> check_option("cubic", "costs", ["uniform", "linear"])
    Traceback (most recent call last):
    ...
    ValueError: The 'costs' parameter must be one of ['uniform', 'linear'], got 'cubic'.
    """
    options = list(options)
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"The '{name}' parameter must be one of {options}, got {value!r}.")
    return value


def check_random_state(seed: int | np.random.Generator, name: str = "seed") -> np.random.Generator:
    """``None``, a non-negative int, or a ``numpy.random.Generator`` -> Generator."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None:
        return np.random.default_rng()
    if isinstance(seed, int | np.integer) and not isinstance(seed, bool):
        if seed < 0:
            raise ValueError(f"The '{name}' parameter must be a non-negative int, got {seed!r}.")
        return np.random.default_rng(int(seed))
    raise TypeError(
        f"The '{name}' parameter must be None, an int or a numpy.random.Generator, got {seed!r}."
    )


def check_real(value: Any, name: str) -> float:
    """A real number (not bool, not NaN) as a float; ±inf is allowed (callers decide).

    >>> check_real(2, "beta")
    2.0
    >>> check_real(float("nan"), "beta")
    Traceback (most recent call last):
    ...
    ValueError: The 'beta' parameter must not be NaN, got nan.
    """
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise TypeError(f"The '{name}' parameter must be a real number, got {value!r}.")
    v = float(value)
    if math.isnan(v):
        raise ValueError(f"The '{name}' parameter must not be NaN, got {value!r}.")
    return v


def check_positive(value: Any, name: str, *, integer: bool = False,
                   allow_zero: bool = False) -> int | float:
    """A finite number ``> 0`` (``>= 0`` with ``allow_zero``); an ``int`` with ``integer=True``.

    The one check of positive scalar parameters (learning rates, sizes, temperatures, margins).
    Returns ``int(value)`` for integers and ``float(value)`` otherwise; raises
    :class:`InvalidParameterError` (a ``ValueError`` and a ``TypeError``) naming the parameter.

    >>> check_positive(3, "epochs", integer=True)
    3
    >>> check_positive(0.0, "lr")
    Traceback (most recent call last):
    ...
    bipartite._utils.errors.InvalidParameterError: The 'lr' parameter must be a finite number > 0, got 0.0.
    """
    kind = (int, np.integer) if integer else (int, float, np.integer, np.floating)
    ok = isinstance(value, kind) and not isinstance(value, bool | np.bool_)
    ok = ok and bool(np.isfinite(value)) and (value >= 0 if allow_zero else value > 0)
    if not ok:
        what = "an int" if integer else "a finite number"
        bound = ">= 0" if allow_zero else "> 0"
        raise InvalidParameterError(f"The '{name}' parameter must be {what} {bound}, got {value!r}.")
    return int(value) if integer else float(value)


def check_tolerance(value: Any, name: str, *, allow_zero: bool = True) -> float:
    """A tolerance or resolution: a finite real ``>= 0`` (``> 0`` with ``allow_zero=False``).

    NaN, inf, negative values and non-numbers are refused by name: a NaN tolerance makes every
    comparison False and an infinite one makes every point equal, both silently wrong.

    >>> check_tolerance(1e-9, "tol")
    1e-09
    >>> check_tolerance(float("inf"), "tol")
    Traceback (most recent call last):
    ...
    bipartite._utils.errors.InvalidParameterError: The 'tol' parameter must be a finite number >= 0, got inf.
    """
    return check_positive(value, name, allow_zero=allow_zero)


def check_max_fpr(max_fpr: Any) -> float:
    """``max_fpr`` of a partial AUC as a float in (0, 1]: NaN, inf, bools and strings refused by
    name (:func:`bipartite.metrics.partial_auc` and the report's ``max_fpr``, ``--max-fpr``).

    >>> check_max_fpr(0.1)
    0.1
    >>> check_max_fpr(0)
    Traceback (most recent call last):
    ...
    bipartite._utils.errors.InvalidParameterError: The 'max_fpr' parameter must be a number in (0, 1], got 0.
    """
    real = (isinstance(max_fpr, int | float | np.integer | np.floating)
            and not isinstance(max_fpr, bool | np.bool_))
    if not (real and 0.0 < float(max_fpr) <= 1.0):
        raise InvalidParameterError(f"The 'max_fpr' parameter must be a number in (0, 1], got "
                                    f"{max_fpr!r}.")
    return float(max_fpr)


def check_time_limit(value: Any, name: str = "time_limit") -> float | None:
    """``None`` (no limit) or a finite number of seconds ``> 0``."""
    if value is None:
        return None
    return check_positive(value, name)


class ProblemLike(Protocol):
    """What the modules below :mod:`bipartite.population` use of a finite-support problem:
    :class:`bipartite.population.FiniteProblem` has all of it. A structural type, so that this
    base module and :mod:`bipartite.labels` need no import of the population module (not even
    for type checking)."""

    K: int
    mass: np.ndarray
    label_probs: np.ndarray

    @property
    def n(self) -> int: ...

    @property
    def eta(self) -> np.ndarray: ...

    @property
    def pi(self) -> np.ndarray: ...

    def level_probs(self, *, aggregate: str | Callable[[np.ndarray], float] = ...,
                    w: ArrayLike | None = ...) -> tuple[np.ndarray, np.ndarray]: ...


#: Attributes that every finite-support problem (``bipartite.population.FiniteProblem``) has.
_PROBLEM_ATTRIBUTES = ("n", "K", "mass", "eta", "pi", "label_probs", "level_probs")


def check_problem(problem: ProblemLike, name: str = "problem") -> ProblemLike:
    """``problem`` must be a finite-support problem (a :class:`bipartite.population.FiniteProblem`);
    anything else is refused by name instead of failing later with an AttributeError.

    The check is structural (the attributes a FiniteProblem has), so this base module needs no
    import of the population module.
    """
    missing = [a for a in _PROBLEM_ATTRIBUTES if not hasattr(problem, a)]
    if missing:
        raise TypeError(f"The '{name}' parameter must be a FiniteProblem "
                        f"(bipartite.population.FiniteProblem), got {type(problem).__name__}.")
    return problem


def check_problem_aucs_defined(problem: ProblemLike, quantity: str) -> ProblemLike:
    """:func:`check_problem`, and every label must have a prior strictly inside (0, 1): otherwise
    its AUC is undefined, and so is ``quantity`` (named in the error)."""
    check_problem(problem)
    pi = np.asarray(problem.pi)
    bad = (pi <= 0) | (pi >= 1)
    if bad.any():
        k = first_index(bad)
        raise ValueError(f"The 'problem' has label {k} with prior pi={pi[k]:g}: AUC_{k} is "
                         f"undefined, so {quantity} is too.")
    return problem
