"""Order keys: the order-preserving integer of a float64 (:func:`float_key`, the one home of that
map: the metrics' coded sorts, the report's packed keys), and float64 keys in the exact order of
64-bit integers, row by row, for data read in pieces (out of core), where the whole column cannot
be ranked at once (:func:`integer_order_key`)."""

from __future__ import annotations

import functools

import numpy as np

from bipartite._utils.compiled import compiled
from bipartite._utils.errors import first_index

__all__ = ["LOW63", "compiled_float_key", "float_key", "integer_order_key",
           "order_key_out_of_range"]

#: The 63 magnitude bits of a float64's bit pattern (as int64).
LOW63 = np.int64(0x7FFF_FFFF_FFFF_FFFF)

#: The bit pattern of float64 infinity: 64-bit integers of this magnitude or more have no
#: order key (:func:`integer_order_key`).
_KEY_LIMIT = 0x7FF0000000000000


def float_key(k):
    """The order-preserving integer of a float64 from its bit pattern ``k`` (int64): the
    magnitude bits flipped where the sign bit is set, so that ascending floats give ascending
    signed keys (−0.0 one below +0.0: callers that tie them add 0.0 first or map −0.0 as +0.0;
    NaNs beyond ±inf). An involution: the key of a key is the bit pattern back.

    One function for both worlds: a NumPy int64 array is mapped **in place** (and returned; one
    temporary of its size); compiled by numba (:func:`bipartite._utils.compiled.compiled`) it
    maps one int64 (the metrics' coded keys, the report's packed keys; an unsigned key of the
    same order is ``uint64(float_key(k)) ^ 2^63``).

    >>> k = float_key(np.array([-2.0, -0.0, 0.0, 1.5]).view(np.int64))
    >>> bool(np.all(k[1:] > k[:-1])), float_key(k).view(np.float64).tolist()
    (True, [-2.0, -0.0, 0.0, 1.5])
    """
    t = k >> 63  # all ones for negatives
    t &= LOW63
    k ^= t
    return k


@functools.cache
def compiled_float_key():
    """:func:`float_key` compiled for one int64 (numba loaded on the first call; one dispatcher
    for every compiled pass that calls it)."""
    return compiled(float_key)


def integer_order_key(v: np.ndarray, name: str) -> np.ndarray:
    """float64 keys in the exact order of 64-bit integers ``v``, distinct for distinct integers,
    row by row (no pass over the whole column: for data read in pieces, out of core).

    The key of ``v ≥ 0`` is the float64 whose bit pattern is ``v`` (non-negative float64 values
    order as their bit patterns read as integers), that of ``v < 0`` minus the key of ``|v|``.
    Exact for ``|v| < 2**63 − 2**52`` (the bit pattern of infinity); larger magnitudes are
    refused by name. In memory the scores are ranked instead (:func:`check_array` with
    ``exact_integers="order"``), which needs the whole column.

    >>> k = integer_order_key(np.array([2**60 + 1, -(2**60), 2**60, 0]), "s")
    >>> np.argsort(k).tolist()
    [1, 3, 2, 0]
    """
    v = np.asarray(v)
    bad = order_key_out_of_range(v)
    if bad.any():
        i = first_index(bad)
        raise ValueError(f"The '{name}' parameter holds the integer {int(v[i])} at row {i}: "
                         f"integer scores must lie strictly between -(2**63 - 2**52) and "
                         f"2**63 - 2**52 to be ranked exactly here (rank them first).")
    if v.dtype.kind == "u":
        mag, neg = v.astype(np.uint64), None
    else:
        v = v.astype(np.int64, copy=False)
        neg = v < 0
        mag = np.abs(v).astype(np.uint64)  # |v| < 2**63 here: no overflow
    key = np.ascontiguousarray(mag, dtype=np.uint64).view(np.float64)
    return key if neg is None else np.where(neg, -key, key)


def order_key_out_of_range(v: np.ndarray) -> np.ndarray:
    """The rows of 64-bit integers ``v`` that have no :func:`integer_order_key` (magnitude
    ``≥ 2**63 − 2**52``), tested exactly in integers (no float64 rounding).

    >>> order_key_out_of_range(np.array([2**63 - 2**52 - 1, 2**63 - 2**52])).tolist()
    [False, True]
    """
    v = np.asarray(v)
    if v.dtype.kind == "u":
        return v >= np.uint64(_KEY_LIMIT)
    v = v.astype(np.int64, copy=False)
    return (v >= _KEY_LIMIT) | (v <= -_KEY_LIMIT)
