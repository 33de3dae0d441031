"""Query ids: the one check of query (group) ids at a public entry and their codes ``0..G-1``,
and the ``groups`` → ``qid`` deprecation."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.arrays import as_plain_array, check_consistent_length, check_finite

__all__ = ["check_group_ids", "check_qid", "require_qid", "resolve_qid"]


def check_group_ids(groups: ArrayLike, name: str = "groups", *,
                    allow_empty: bool = False) -> np.ndarray:
    """Group (query) ids: a 1-D array of hashable values, returned as an array. Numeric ids must
    be finite: a NaN id equals no other, so its rows would silently become one-row groups. Ids
    of mixed types (``0`` beside ``'0'``) and missing ids (None) are refused by name, as are
    complex, datetime and structured ids and masked arrays with masked entries.

    >>> check_group_ids([0.0, float("nan")], "qid")
    Traceback (most recent call last):
    ...
    ValueError: The 'qid' parameter must be finite, got nan at index 1.
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
    view of ``qid`` (:func:`factorize_ids`).

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
    ids, codes = factorize_ids(q)
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


def factorize_ids(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(q, return_inverse=True)`` (codes as int64) without its argsort where one pass
    decides. Integer ids spanning at most 4 n values: a bincount marks the ids present (sorted
    ids: one comparison of neighbours counts their runs, all present when they number the span); when
    they are all present the codes are the offsets from the smallest (one array), else a lookup
    table maps each row to its code (in place). Other ids grouped in runs (each id in one run of
    consecutive rows, e.g. sorted): a comparison of neighbours finds the runs, and only the
    runs' ids are sorted. The same ids and codes, in O(n + range) or O(n + runs log runs).
    Ids that are already codes (0..G−1, each present) are their own codes (:func:`_own_codes`:
    no copy of native int64)."""
    if q.size and q.dtype.kind in "iub":
        ascending = q.size > 1 and q[0] <= q[-1] and bool(np.all(q[:-1] <= q[1:]))
        lo, hi = (int(q[0]), int(q[-1])) if ascending else (int(q.min()), int(q.max()))
        if hi - lo <= 4 * q.size and -(2**62) < lo and hi < 2**62:
            own = lo == 0 and q.dtype == np.int64 and q.dtype.isnative  # perhaps codes already
            d = q if own else np.subtract(q, lo, dtype=np.int64, casting="unsafe")  # exact
            # sorted (a log's usual order): every id present when each step is 0 or 1, i.e.
            # the runs of one id number hi − lo + 1; else a count marks the ids present
            present = (np.ones(hi - lo + 1, dtype=bool)
                       if ascending and np.count_nonzero(q[1:] != q[:-1]) == hi - lo else
                       np.bincount(d, minlength=hi - lo + 1) > 0)
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
