"""The one conversion of array arguments and the checks of their entries: numbers only (no
complex, datetime, string, masked, sparse or meta-device input), dimensions, finiteness, labels in
{0, 1}, non-negative weights, probabilities and rows of conditional distributions, and equal
lengths. Every error names the argument and the first bad entry (:func:`first_index`).
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from bipartite._utils.errors import InvalidParameterError, first_index, show_number

__all__ = [
    "EXACT_FLOAT_INT",
    "ROW_SUM_ATOL",
    "as_numeric_array",
    "as_plain_array",
    "check_array",
    "check_binary",
    "check_consistent_length",
    "check_dense_tensor",
    "check_finite",
    "check_label_matrix",
    "check_nonnegative",
    "check_probabilities",
    "check_row_distributions",
    "check_sample_weight",
]

#: Largest magnitude below which every integer is exact in float64 (2**53).
EXACT_FLOAT_INT = 2**53

#: ``exact_integers`` modes of :func:`check_array`.
_EXACT_MODES = (None, "order", "shift")


def _refuse(name: str, what: str, hint: str = "") -> InvalidParameterError:
    """The error for input that is not numbers (a ValueError and a TypeError)."""
    return InvalidParameterError(f"The '{name}' parameter must be array-like of real numbers, "
                                 f"got {what}{'; ' + hint if hint else ''}.")


def as_plain_array(x: Any, name: str) -> Any:
    """``x`` without the wrappers whose meaning a plain NumPy conversion would drop or garble;
    every conversion of array input (:func:`check_array`, :func:`check_group_ids`, the tensor
    helpers) goes through it first.

    * A **masked array** with a masked entry is refused by name (the mask is not honoured: pass
      ``x.compressed()`` with the matching rows of the other arguments, or ``x.filled(v)``); one
      with no masked entry is its data.
    * A **torch tensor** is detached and moved to the CPU (its values are exact; a metric needs no
      gradient); one on the ``meta`` device (no values) or in a sparse layout is refused by name.
    * A **sparse matrix or array** (scipy.sparse, torch sparse) is refused by name: its implicit
      zeros are values (pass ``x.toarray()``).

    Anything else is returned as it is. Torch and SciPy are not imported here: a tensor can only
    exist if torch is loaded.
    """
    if isinstance(x, np.ma.MaskedArray):
        mask = np.ma.getmaskarray(x)
        if mask.any():
            raise _refuse(name, f"a masked array with {int(mask.sum())} masked "
                          f"entr{'y' if mask.sum() == 1 else 'ies'} (first at index "
                          f"{first_index(mask)})",
                          "masks are not honoured: drop the masked rows (x.compressed(), with the "
                          "same rows of the other arguments) or fill them (x.filled(value))")
        return np.ma.getdata(x)
    if check_dense_tensor(x, name):
        return x.detach().cpu()
    sparse = sys.modules.get("scipy.sparse")
    if sparse is not None and sparse.issparse(x):
        raise _refuse(name, f"a sparse {type(x).__name__} of shape {x.shape}",
                      "pass x.toarray()")
    return x


def as_numeric_array(x: Any, name: str) -> np.ndarray:
    """``np.asarray(x)`` of input that :func:`as_plain_array` accepts, refusing by name the dtypes
    that are not numbers: complex (a float conversion drops the imaginary part), datetime64,
    timedelta64 (they convert to counts of their unit), structured and string dtypes. Booleans,
    integers, reals and object arrays (checked element by element on conversion) pass."""
    raw = np.asarray(as_plain_array(x, name))
    kind = raw.dtype.kind
    if kind in "cMmVSU":
        what = ("complex numbers (Complex data not supported: a float conversion would drop "
                "the imaginary part)" if kind == "c"
                else "a structured array" if kind == "V" else "strings" if kind in "SU"
                else "datetimes" if kind == "M" else "time differences")
        raise _refuse(name, f"{what} (dtype {raw.dtype})")
    return raw


def check_dense_tensor(x: Any, name: str) -> bool:
    """Whether ``x`` is a torch tensor; a sparse one or one on the ``meta`` device (no values) is
    refused by name. The one check of both, for NumPy conversion (:func:`as_plain_array`) and the
    torch losses (``bipartite._utils.tensor_checks``)."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(x, torch.Tensor):
        return False
    if x.layout != torch.strided:
        raise _refuse(name, f"a sparse torch tensor (layout {x.layout})", "pass x.to_dense()")
    if x.is_meta:
        raise _refuse(name, "a tensor on the 'meta' device (it holds no values)")
    return True


def _exact_integer_values(raw: np.ndarray, name: str, mode: str) -> np.ndarray | None:
    """float64 values of integer input that float64 cannot hold exactly (some |x| > 2**53), for
    an argument used only through its order (``mode="order"``: exact dense ranks, per column of
    a 2-D array) or through its order and differences (``mode="shift"``: ``x − min x``, exact
    while the values span less than 2**53; refused by name otherwise). None when a plain float64
    conversion is exact (or the input holds no integers)."""
    if raw.dtype.kind in "iu":
        if raw.size == 0 or raw.dtype.itemsize < 8:
            return None
        lo, hi = int(raw.min()), int(raw.max())
        vals = raw
    elif raw.dtype == object:
        flat = raw.ravel()
        if not any(isinstance(v, int | np.integer) and not isinstance(v, bool | np.bool_)
                   and abs(int(v)) > EXACT_FLOAT_INT for v in flat):
            return None
        bad = next((i for i, v in enumerate(flat) if not isinstance(v, int | float | np.integer
                                                                      | np.floating)
                    or (isinstance(v, float | np.floating) and not math.isfinite(v))), None)
        if bad is not None:
            raise _refuse(name, f"an object array holding {flat[bad]!r} at index {bad} beside "
                          "integers")
        vals = np.array([Fraction(int(v)) if isinstance(v, int | np.integer) else Fraction(v)
                         for v in flat], dtype=object).reshape(raw.shape)
        lo, hi = min(flat), max(flat)
    else:
        return None
    if max(abs(lo), abs(hi)) <= EXACT_FLOAT_INT:
        return None
    if mode == "shift":
        if hi - lo >= EXACT_FLOAT_INT:
            raise ValueError(
                f"The '{name}' parameter must span less than 2**53 when it holds integers beyond "
                f"2**53 (its differences are used and float64 cannot hold them exactly), got "
                f"values from {lo} to {hi}.")
        if vals.dtype == object:
            return np.array([float(v - Fraction(lo)) for v in vals.ravel()]).reshape(raw.shape)
        if vals.dtype.kind == "u":
            return (vals - np.uint64(lo)).astype(np.float64)
        return (vals.astype(np.int64) - np.int64(lo)).astype(np.float64)
    if vals.ndim <= 1:
        return np.unique(vals.ravel(), return_inverse=True)[1].astype(np.float64).reshape(raw.shape)
    cols = [np.unique(vals[:, j], return_inverse=True)[1] for j in range(vals.shape[1])]
    return np.stack(cols, axis=1).astype(np.float64).reshape(raw.shape)


def check_array(
    x: ArrayLike,
    name: str,
    *,
    ndim: int | tuple[int, ...] | None = None,
    dtype: DTypeLike = np.float64,
    allow_empty: bool = False,
    finite: bool = True,
    exact_integers: str | None = None,
    keep_integers: bool = False,
) -> np.ndarray:
    """Convert ``x`` to an ndarray and check dimensions and finiteness: the one conversion of
    numeric array arguments.

    Accepted: arrays, lists, pandas objects and tensors of booleans, integers and reals (object
    arrays of such numbers included). Refused by name: complex numbers (the imaginary part would
    be dropped), datetime64/timedelta64, structured and string dtypes, masked arrays with masked
    entries, sparse matrices and tensors, and meta-device tensors (:func:`as_plain_array`).
    A tensor that requires grad is detached (the values are exact).

    ``exact_integers`` says how the argument uses its values, for integers beyond 2**53 (which
    float64 would round, making distinct values tie): ``"order"`` (scores, Pareto points: only
    their order, per column) replaces them by their exact ranks; ``"shift"`` (ordinal levels:
    order and differences) subtracts their minimum exactly (refused when they span 2**53 or
    more). ``None``: plain float64 conversion (weights, probabilities, features).
    ``keep_integers``: an integer or boolean array is returned as it is (no float64 copy), for
    an argument whose consumer takes integers (graded relevance).

    >>> check_array([1, 2], "y_score").dtype
    dtype('float64')
    >>> check_array([[1.0]], "y_score", ndim=1)
    Traceback (most recent call last):
    ...
    ValueError: The 'y_score' parameter must be 1-dimensional, got an array of shape (1, 1).
    >>> check_array([2**62, 2**62 + 1], "y_score", exact_integers="order").tolist()
    [0.0, 1.0]
    """
    if exact_integers not in _EXACT_MODES:
        raise ValueError(f"exact_integers must be one of {_EXACT_MODES}, got {exact_integers!r}")
    x = as_plain_array(x, name)
    try:
        raw = as_numeric_array(x, name)
        exact = None if exact_integers is None else _exact_integer_values(raw, name,
                                                                          exact_integers)
        if exact is not None:
            arr = exact
        elif keep_integers and raw.dtype.kind in "biu":
            arr = raw
        else:
            arr = np.asarray(raw, dtype=dtype)
    except (TypeError, ValueError) as exc:
        if str(exc).startswith(f"The '{name}' parameter"):
            raise  # ours, naming the argument
        raise TypeError(
            f"The '{name}' parameter must be array-like of numbers, got {type(x).__name__}: {exc}"
        ) from None
    if arr is None:
        raise InvalidParameterError(
            f"The '{name}' parameter must hold real numbers, got complex values.")
    if any(st < 0 for st in arr.strides):
        arr = arr.copy()  # a negative-stride view (x[::-1]) is valid input; torch cannot wrap it
    if ndim is not None:
        dims = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in dims:
            want = " or ".join(str(d) for d in dims)
            raise ValueError(
                f"The '{name}' parameter must be {want}-dimensional, "
                f"got an array of shape {arr.shape}."
            )
    if not allow_empty and arr.size == 0:
        raise ValueError(f"The '{name}' parameter must not be empty, got shape {arr.shape}.")
    if finite and np.issubdtype(arr.dtype, np.floating):
        check_finite(arr, name)
    return arr


def check_finite(arr: np.ndarray, name: str) -> None:
    """Raise if ``arr`` has NaN or inf, naming the first bad position.

    First one reduction with no temporary: NaN and ±inf propagate through a sum (``inf − inf``
    is NaN), so a finite sum clears the array; only a non-finite sum (a bad entry, or finite
    entries whose sum overflowed: then nothing is found) pays the elementwise pass that locates
    the entry."""
    if arr.size == 0:
        return
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(np.add.reduce(arr, axis=None)):
            return
    bad = ~np.isfinite(arr)
    if bad.any():
        i = first_index(bad)
        raise ValueError(f"The '{name}' parameter must be finite, got {show_number(arr[i])} at "
                         f"index {i}.")


def check_binary(y: ArrayLike, name: str, *, ndim: int | tuple[int, ...] = 1) -> np.ndarray:
    """Labels in {0, 1}; returned as float64.

    >>> check_binary([0, 1, 2], "y_true")
    Traceback (most recent call last):
    ...
    ValueError: The 'y_true' parameter must contain only 0 and 1, got 2 at index 2.
    """
    arr = check_array(y, name, ndim=ndim)
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        i = first_index(bad)
        raise ValueError(
            f"The '{name}' parameter must contain only 0 and 1, got {show_number(arr[i])} at "
            f"index {i}.")
    return arr


def check_label_matrix(Y: ArrayLike, name: str = "Y") -> np.ndarray:
    """A binary label matrix ``(n, K)`` as float64: labels in {0, 1} (:func:`check_binary`), and a
    1-D array taken as one column (``K = 1``). The one check of the ``Y`` of the learners,
    their scorers, the objectives' criterion and the per-query statistics.

    >>> check_label_matrix([0, 1, 1]).shape
    (3, 1)
    >>> check_label_matrix([[0, 1], [1, 2]], "y_true")
    Traceback (most recent call last):
    ...
    ValueError: The 'y_true' parameter must contain only 0 and 1, got 2 at index (1, 1).
    """
    arr = check_binary(Y, name, ndim=(1, 2))
    return arr[:, None] if arr.ndim == 1 else arr


def check_consistent_length(**arrays: Any) -> int:
    """All arrays share the same first dimension; return it.

    >>> check_consistent_length(y_true=[0, 1], y_score=[1.0, 2.0, 3.0])
    Traceback (most recent call last):
    ...
    ValueError: Inconsistent numbers of samples: 'y_true' has 2, 'y_score' has 3.
    """
    lengths = {k: len(v) for k, v in arrays.items() if v is not None}
    if len(set(lengths.values())) > 1:
        desc = ", ".join(f"'{k}' has {v}" for k, v in lengths.items())
        raise ValueError(f"Inconsistent numbers of samples: {desc}.")
    return next(iter(lengths.values())) if lengths else 0


def check_nonnegative(arr: np.ndarray, name: str) -> np.ndarray:
    """Raise if any entry is negative (unsigned and boolean arrays pass unread; otherwise one
    ``min`` first, with no temporary, and the elementwise pass only to locate a bad entry)."""
    if arr.dtype.kind in "ub" or arr.size == 0 or arr.min() >= 0:
        return arr
    bad = arr < 0
    if bad.any():
        i = first_index(bad)
        raise ValueError(f"The '{name}' parameter must be non-negative, got "
                         f"{show_number(arr[i])} at index {i}.")
    return arr


def check_probabilities(
    p: ArrayLike, name: str, *, ndim: int | tuple[int, ...] | None = None, atol: float = 1e-9
) -> np.ndarray:
    """Entries in [0, 1] (up to ``atol``, then clipped)."""
    arr = check_array(p, name, ndim=ndim)
    bad = (arr < -atol) | (arr > 1 + atol)
    if bad.any():
        i = first_index(bad)
        raise ValueError(f"The '{name}' parameter must hold probabilities in [0, 1], got "
                         f"{show_number(arr[i])} at index {i}.")
    return np.clip(arr, 0.0, 1.0)


def check_sample_weight(sample_weight: ArrayLike, n: int) -> np.ndarray:
    """None -> ones; else 1-D, length n, finite and non-negative."""
    if sample_weight is None:
        return np.ones(n)
    w = check_array(sample_weight, "sample_weight", ndim=1)
    if len(w) != n:
        raise ValueError(
            f"Inconsistent numbers of samples: 'sample_weight' has {len(w)}, expected {n}."
        )
    return check_nonnegative(w, "sample_weight")


#: Tolerance on the row sums of conditional distributions (joint label probabilities).
ROW_SUM_ATOL = 1e-8


def check_row_distributions(P: ArrayLike, name: str, *, atol: float = ROW_SUM_ATOL) -> np.ndarray:
    """Rows of probabilities that sum to 1 (to ``atol``): a conditional distribution per row,
    e.g. the joint ``P(Y = v | x)`` over the ``2**K`` label vectors.

    >>> check_row_distributions([[0.5, 0.5], [0.5, 0.6]], "joint")
    Traceback (most recent call last):
    ...
    ValueError: The 'joint' parameter must have rows that sum to 1, got 1.1 in row 1.
    """
    M = check_probabilities(P, name, ndim=2)
    sums = M.sum(axis=1)
    bad = np.abs(sums - 1.0) > atol
    if bad.any():
        i = first_index(bad)
        raise ValueError(f"The '{name}' parameter must have rows that sum to 1, got "
                         f"{float(np.round(sums[i], 12))!r} in row {i}.")
    return M
