"""How the package reports bad and undefined input: the error and warning classes, NaN with a
warning for an undefined quantity, and the position of the first bad entry that every error message
names (STYLE.md habit 2)."""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["InvalidParameterError", "UndefinedMetricWarning", "first_index", "show_number",
           "warn_undefined"]


class UndefinedMetricWarning(UserWarning):
    """A metric is undefined for this input (for example one class only); NaN is returned."""


class InvalidParameterError(ValueError, TypeError):
    """A parameter has the wrong type or an out-of-range value (as scikit-learn's error of the same
    name, it is both a ``ValueError`` and a ``TypeError``)."""


def warn_undefined(message: str) -> float:
    """Warn with :class:`UndefinedMetricWarning` and return NaN."""
    warnings.warn(message, UndefinedMetricWarning, stacklevel=3)
    return float("nan")


def show_number(value: float) -> str:
    """A bad number as the package's errors print it, the same for NumPy and torch input (the one
    format of the value that :func:`first_index`'s position goes with): an integer value without
    a decimal point (``-1``, whether it came as ``-1``, ``np.int64(-1)``, ``-1.0`` or a tensor's
    ``.item()``); any other float in its shortest exact form at its own precision (``-0.5``,
    ``1.0000001``, ``-1e-300``, ``nan``, ``inf``), never rounded to look like a valid value (as
    ``:g`` prints ``1.0000001`` as ``1``) and never in a dtype wrapper (``np.float64(nan)``).

    >>> show_number(-1), show_number(np.float64(-1.0)), show_number(1.0000001)
    ('-1', '-1', '1.0000001')
    >>> show_number(np.float32(0.1)), show_number(np.float64(np.nan)), show_number(-1e300)
    ('0.1', 'nan', '-1e+300')
    """
    if isinstance(value, int | np.integer):
        return str(int(value))
    x = float(value)
    if x.is_integer() and abs(x) < 2**53:
        return str(int(x))
    return str(value) if isinstance(value, np.floating) else repr(x)


def first_index(mask: ArrayLike) -> int | tuple[int, ...]:
    """The position of the first True entry of ``mask`` (C order): an int for a 1-D mask, a tuple
    of ints otherwise (``()`` for a 0-d one). It indexes the array the mask was made from and reads
    as written in an error message ("at index 3", "at index (1, 2)"): the one home of "the first
    bad position" that the package's errors name. One ``argmax`` (it stops at the first True),
    no array of indices. A mask with no True entry is a ValueError (a caller's bug).

    >>> first_index(np.array([False, True, True]))
    1
    >>> first_index(np.array([[False, False], [False, True]]))
    (1, 1)
    """
    m = np.asarray(mask, dtype=bool)
    flat = int(np.argmax(m)) if m.size else 0
    if m.size == 0 or not m.flat[flat]:
        raise ValueError(f"first_index: the mask has no True entry (shape {m.shape}).")
    if m.ndim == 1:
        return flat
    return tuple(int(i) for i in np.unravel_index(flat, m.shape))
