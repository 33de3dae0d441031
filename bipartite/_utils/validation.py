"""Input validation shared by every public function.

Errors name the argument and echo the bad value (STYLE.md habit 2). Undefined quantities (an AUC
for a label with a single class) are not errors: they warn with :class:`UndefinedMetricWarning`
and return NaN.
"""

from __future__ import annotations

import math
import sys
import warnings
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

__all__ = [
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
    "check_nonnegative",
    "check_option",
    "check_probabilities",
    "check_row_distributions",
    "check_sample_weight",
    "check_qid",
    "check_random_state",
    "require_qid",
    "resolve_qid",
    "warn_undefined",
]


class UndefinedMetricWarning(UserWarning):
    """A metric is undefined for this input (for example one class only); NaN is returned."""


class InvalidParameterError(ValueError, TypeError):
    """A parameter has the wrong type or an out-of-range value (as scikit-learn's error of the same
    name, it is both a ``ValueError`` and a ``TypeError``)."""


def _show(value: Any, limit: int = 8) -> str:
    """Short repr of a bad value for error messages."""
    arr = np.asarray(value)
    if arr.ndim == 0 or arr.size <= limit:
        return repr(value if arr.ndim == 0 else arr.tolist())
    flat = arr.ravel()[:limit].tolist()
    return f"array of shape {arr.shape} starting {flat}"


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
            idx = tuple(int(i) for i in np.argwhere(mask)[0])
            raise _refuse(name, f"a masked array with {int(mask.sum())} masked "
                          f"entr{'y' if mask.sum() == 1 else 'ies'} (first at index "
                          f"{idx[0] if len(idx) == 1 else idx})",
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
    torch losses (``bipartite._utils.tensors``)."""
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
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        where = idx[0] if len(idx) == 1 else idx
        raise ValueError(
            f"The '{name}' parameter must be finite, got {arr[idx]!r} at index {where}."
        )


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
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        where = idx[0] if len(idx) == 1 else idx
        raise ValueError(
            f"The '{name}' parameter must contain only 0 and 1, got {arr[idx]:g} at index {where}."
        )
    return arr


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


def check_group_ids(groups: ArrayLike, name: str = "groups", *,
                    allow_empty: bool = False) -> np.ndarray:
    """Group (query) ids: a 1-D array of hashable values, returned as an array. Numeric ids must
    be finite: a NaN id equals no other, so its rows would silently become one-row groups. Ids
    of mixed types (``0`` beside ``'0'``) and missing ids (None) are refused by name, as are
    complex, datetime and structured ids and masked arrays with masked entries.

    >>> check_group_ids([0.0, float("nan")], "qid")
    Traceback (most recent call last):
    ...
    ValueError: The 'qid' parameter must be finite, got np.float64(nan) at index 1.
    """
    if isinstance(groups, str | bytes):
        raise TypeError(f"The '{name}' parameter must be a 1-D array-like of group ids, "
                        f"got {groups!r}.")
    plain = as_plain_array(groups, name)
    try:
        g = np.asarray(plain)
    except ValueError as e:  # ragged sequences
        raise ValueError(f"The '{name}' parameter must be a 1-D array-like of group ids "
                         f"(numbers or strings), got {type(groups).__name__} that numpy "
                         f"cannot read as one: {e}") from None
    if g.dtype.kind in "US" and not isinstance(plain, np.ndarray):
        _check_object_ids(np.asarray(plain, dtype=object).ravel(), name)  # [0, '0'] -> '0', '0'
    if g.dtype.kind in "cMmV":
        raise TypeError(f"The '{name}' parameter must hold group ids (integers, reals or "
                        f"strings), got dtype {g.dtype}.")
    if g.ndim != 1:
        raise ValueError(f"The '{name}' parameter must be 1-dimensional, got shape {g.shape}.")
    if g.size == 0 and not allow_empty:
        raise ValueError(f"The '{name}' parameter must not be empty, got shape {g.shape}.")
    if g.dtype.kind in "fc":
        check_finite(g, name)
    elif g.dtype == object:
        _check_object_ids(g, name)
    return g


def resolve_qid(qid: Any, groups: Any, owner: str, *, stacklevel: int = 3) -> tuple[Any, str]:
    """``(query ids, the argument name they came in)`` from ``qid`` and its deprecated keyword
    alias ``groups``: the one home of the ``groups`` → ``qid`` deprecation (the learners since 0.3.0, every
    other signature since 0.4.0; announced for removal in 0.5.0, now to be removed in 0.7.0) for every public signature. ``groups`` alone warns (FutureWarning, naming
    ``owner``); both at once is a TypeError.

    >>> resolve_qid([0, 1], None, "f")
    ([0, 1], 'qid')
    """
    if groups is None:
        return qid, "qid"
    if qid is not None:
        raise TypeError(f"{owner} got both 'qid' and its deprecated alias 'groups'; pass 'qid' only.")
    warnings.warn(
        f"The 'groups' parameter of {owner} is deprecated (to be removed in 0.7.0): pass "
        "the query ids as 'qid=' (XGBoost's name). In scikit-learn model selection, route them "
        "with metadata routing (see bipartite.learners.scoring).",
        FutureWarning,
        stacklevel=stacklevel,
    )
    return groups, "groups"


def check_qid(qid: ArrayLike | None, n: int, name: str = "qid", ref: str = "X", *,
              return_ids: bool = False, dense: bool = True, return_count: bool = False) -> Any:
    """Query ids (any hashable values, finite if numeric, 1-D, length ``n`` = the rows of the
    argument named ``ref``) as codes ``0..G-1`` (int64, each code present), or None for None.
    With ``return_ids``, ``(codes, the sorted distinct ids)``. The one validation of a query id
    at a public entry; internal calls pass the codes on unchecked. The codes may be a read-only
    view of ``qid`` (:func:`_factorize`).

    ``dense=False`` (not with ``return_ids``), for a caller whose per-query sums ignore a query
    with no rows: non-negative integer ids up to ``4 n`` are their own codes (a code may then
    hold no row), with no pass to find which are present; other ids are factorised as with
    ``dense=True``. ``return_count`` (not with ``return_ids``): ``(codes, G)`` with G − 1 the
    largest code (the number of distinct ids, or with ``dense=False`` and ids that are their
    own codes the largest id + 1, found by the check: no further pass). ``(None, 1)`` for
    None.

    >>> check_qid(["b", "a", "b"], 3).tolist()
    [1, 0, 1]
    >>> check_qid([3, 0, 3], 3, dense=False).tolist()
    [3, 0, 3]
    >>> check_qid([3, 0, 3], 3, dense=False, return_count=True)[1]
    4
    """
    if return_ids and (not dense or return_count):
        raise ValueError("check_qid: return_ids needs dense=True and no return_count (ids and "
                         "codes in one order).")
    if qid is None:
        return (None, None) if return_ids else (None, 1) if return_count else None
    q = check_group_ids(qid, name, allow_empty=True)
    check_consistent_length(**{ref: np.empty(n), name: q})
    if not dense and q.size and q.dtype.kind in "biu":
        top = _small_nonnegative(q, 4 * q.size)
        if top is not None:
            codes = _own_codes(q)
            return (codes, top + 1) if return_count else codes
    ids, codes = _factorize(q)
    return (codes, ids) if return_ids else (codes, len(ids)) if return_count else codes


def _small_nonnegative(q: np.ndarray, top: int) -> int | None:
    """The largest of the integers ``q`` when they all lie in ``[0, top]``, else None: a
    bitwise OR (a negative entry sets the sign bit) and ``max``, two passes with no temporary
    (the exact maximum: a bound from the OR alone, up to twice it, would double the tables
    sized by the codes)."""
    if int(np.bitwise_or.reduce(q, axis=None)) < 0:
        return None
    m = int(q.max())
    return m if m <= top else None


def _own_codes(q: np.ndarray) -> np.ndarray:
    """Non-negative integer ids as int64 codes: native int64 ids as a read-only view, no copy
    (a fresh array of the input's size costs page faults that, at 10⁵ rows, weigh as much as a
    sort of two-valued scores; the flag makes a caller's in-place write an error instead of a
    change to the caller's ids), others converted."""
    if q.dtype == np.int64 and q.dtype.isnative:
        codes = q.view()
        codes.flags.writeable = False
        return codes
    return q.astype(np.int64)


def _factorize(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(q, return_inverse=True)`` (codes as int64) without its argsort where one pass
    decides. Integer ids spanning at most 4 n values: a bincount marks the ids present; when
    they are all present the codes are the offsets from the smallest (one array), else a lookup
    table maps each row to its code (in place). Other ids grouped in runs (each id in one run of
    consecutive rows, e.g. sorted): a comparison of neighbours finds the runs, and only the
    runs' ids are sorted. The same ids and codes, in O(n + range) or O(n + runs log runs).
    Ids that are already codes (0..G−1, each present) are their own codes (:func:`_own_codes`:
    no copy of native int64)."""
    if q.size and q.dtype.kind in "iub":
        lo, hi = int(q.min()), int(q.max())
        if hi - lo <= 4 * q.size and -(2**62) < lo and hi < 2**62:
            own = lo == 0 and q.dtype == np.int64 and q.dtype.isnative  # perhaps codes already
            d = q if own else np.subtract(q, lo, dtype=np.int64, casting="unsafe")  # exact
            present = np.bincount(d, minlength=hi - lo + 1) > 0
            if present.all():
                return np.arange(lo, hi + 1).astype(q.dtype), _own_codes(q) if own else d
            if own:
                d = q.copy()  # the lookup below writes in place
            lut = np.cumsum(present) - 1
            np.take(lut, d, out=d, mode="clip")  # in place (indices in range)
            return (np.flatnonzero(present) + lo).astype(q.dtype), d
    if q.size > 1:
        start = np.flatnonzero(q[1:] != q[:-1])
        if len(start) < q.size // 2:  # long runs: sort only the runs' ids
            start += 1
            start = np.concatenate([[0], start])
            ids, inv = np.unique(q[start], return_inverse=True)
            if len(ids) == len(start):  # each id in one run
                return ids, np.repeat(inv.reshape(-1).astype(np.int64),
                                      np.diff(start, append=q.size))
    ids, codes = np.unique(q, return_inverse=True)
    return ids, codes.reshape(-1).astype(np.int64)


def require_qid(qid: Any, groups: Any, owner: str, *, stacklevel: int = 4) -> tuple[Any, str]:
    """:func:`resolve_qid` for a signature where the query ids are required: neither given is a
    TypeError naming ``qid``."""
    q, name = resolve_qid(qid, groups, owner, stacklevel=stacklevel)
    if q is None:
        raise TypeError(f"{owner} missing the required argument 'qid' (the query ids).")
    return q, name

def _short(v: Any, limit: int = 60) -> str:
    r = repr(v)
    return r if len(r) <= limit else r[: limit - 3] + "..."


def _id_kind(t: type) -> str:
    return "number" if issubclass(t, int | float | np.integer | np.floating) else t.__name__


_MISSING_ID_TYPES = ("NoneType", "NAType", "NaTType")


def _check_object_ids(g: np.ndarray, name: str) -> None:
    """Object group ids must be hashable (a dict, list or set is refused by name) and comparable
    with each other (they are sorted): all numbers or all of one other type, none missing
    (None, NaN, pd.NA). ``0`` and ``'0'`` would be one id to a
    reader and two to the code, and cannot be sorted together. One pass over the types; the
    offending index is looked for only on error."""
    vals = g.tolist()
    types = set(map(type, vals))
    if any(t.__hash__ is None for t in types):  # dicts, lists, sets: not ids (equal dicts
        i, v = next((i, v) for i, v in enumerate(vals)  # would be one query, others a crash)
                    if type(v).__hash__ is None)
        raise TypeError(f"The '{name}' parameter must hold hashable ids (numbers or strings), "
                        f"got {_short(v)} ({type(v).__name__}) at index {i}.")
    missing = [t for t in types if t.__name__ in _MISSING_ID_TYPES]
    floats = [v for v in vals if isinstance(v, float)] if float in types else []
    if missing or (floats and not np.isfinite(np.array(floats)).all()):
        i, v = next((i, v) for i, v in enumerate(vals)
                    if type(v).__name__ in _MISSING_ID_TYPES
                    or (isinstance(v, float) and not math.isfinite(v)))
        raise ValueError(f"The '{name}' parameter must not hold missing or non-finite ids, "
                         f"got {v!r} at index {i}.")
    if len({_id_kind(t) for t in types}) > 1:
        first = _id_kind(type(vals[0]))
        i, v = next((i, v) for i, v in enumerate(vals) if _id_kind(type(v)) != first)
        raise TypeError(f"The '{name}' parameter must hold ids of one type (all numbers or "
                        f"all strings, ...), got {vals[0]!r} ({first}) at index 0 and {v!r} "
                        f"({_id_kind(type(v))}) at index {i}.")


def check_nonnegative(arr: np.ndarray, name: str) -> np.ndarray:
    """Raise if any entry is negative (unsigned and boolean arrays pass unread; otherwise one
    ``min`` first, with no temporary, and the elementwise pass only to locate a bad entry)."""
    if arr.dtype.kind in "ub" or arr.size == 0 or arr.min() >= 0:
        return arr
    bad = arr < 0
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        where = idx[0] if len(idx) == 1 else idx
        raise ValueError(
            f"The '{name}' parameter must be non-negative, got {arr[idx]:g} at index {where}."
        )
    return arr


def check_probabilities(
    p: ArrayLike, name: str, *, ndim: int | tuple[int, ...] | None = None, atol: float = 1e-9
) -> np.ndarray:
    """Entries in [0, 1] (up to ``atol``, then clipped)."""
    arr = check_array(p, name, ndim=ndim)
    bad = (arr < -atol) | (arr > 1 + atol)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        where = idx[0] if len(idx) == 1 else idx
        raise ValueError(
            f"The '{name}' parameter must hold probabilities in [0, 1], "
            f"got {arr[idx]:g} at index {where}."
        )
    return np.clip(arr, 0.0, 1.0)


def pow2_scale(top: ArrayLike) -> np.ndarray:
    """The powers of two ``2^−e`` with ``2^(e−1) ≤ top < 2^e`` (1 where ``top`` is 0): scaling
    by them brings the largest weights ``top`` into [½, 1), exactly (the one home of that
    factor; :func:`pow2_normalise` scales an array by the same exponent). A subnormal ``top``
    (below 2^−1022) has no finite factor: inf.

    >>> pow2_scale(np.array([3.0, 0.0])).tolist()
    [0.25, 1.0]
    """
    return np.ldexp(1.0, -np.frexp(top)[1])


def pow2_normalise(x: np.ndarray, axis: int | None = None) -> np.ndarray:
    """``x · 2^−e`` with ``2^(e−1) ≤ max x < 2^e`` (over ``axis``): exact, and then ``max x ∈ [½, 1)``.

    Every AUC and win rate is a ratio of bilinear forms in the weights, so this power of two
    changes nothing and keeps sums and products of weights inside the float64 range (weights of
    1e-170 would otherwise underflow to 0 in ΣP·ΣN). All-zero rows and empty arrays are returned
    as they are.

    A torch tensor (any device; ``axis=None`` only) is scaled on its device, in two power-of-two
    steps so that neither factor overflows.

    >>> pow2_normalise(np.array([3.0, 1.0])).tolist()
    [0.75, 0.25]
    """
    if check_dense_tensor(x, "x"):
        if axis is not None:
            raise ValueError(f"pow2_normalise: a tensor is scaled as a whole, got axis={axis!r}.")
        if x.numel() == 0:
            return x
        e = math.frexp(float(x.max()))[1]
        return x * 2.0 ** (-(e // 2)) * 2.0 ** (e // 2 - e)
    if x.size == 0:
        return x
    # ldexp, not x * pow2_scale(max): for a subnormal maximum the factor 2^−e overflows
    e = np.frexp(np.max(x, axis=axis, keepdims=axis is not None))[1]
    return np.ldexp(x, -e)


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


def warn_undefined(message: str) -> float:
    """Warn with :class:`UndefinedMetricWarning` and return NaN."""
    warnings.warn(message, UndefinedMetricWarning, stacklevel=3)
    return float("nan")


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
    bipartite._utils.validation.InvalidParameterError: The 'lr' parameter must be a finite number > 0, got 0.0.
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
    bipartite._utils.validation.InvalidParameterError: The 'tol' parameter must be a finite number >= 0, got inf.
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
    bipartite._utils.validation.InvalidParameterError: The 'max_fpr' parameter must be a number in (0, 1], got 0.
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
    bad = np.flatnonzero((pi <= 0) | (pi >= 1))
    if bad.size:
        k = int(bad[0])
        raise ValueError(f"The 'problem' has label {k} with prior pi={pi[k]:g}: AUC_{k} is "
                         f"undefined, so {quantity} is too.")
    return problem


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
    bad = np.flatnonzero(np.abs(sums - 1.0) > atol)
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"The '{name}' parameter must have rows that sum to 1, got "
                         f"{float(np.round(sums[i], 12))!r} in row {i}.")
    return M
