"""Tests of :func:`bipartite._utils.order_keys.float_key`, the one home of the float64 order key
(the metrics' coded sorts and the report's packed keys call it, in NumPy and compiled)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from bipartite._utils.order_keys import compiled_float_key, float_key

FLOATS = st.floats(allow_nan=False, allow_infinity=True, allow_subnormal=True, width=64)


def _reference(x: float) -> tuple:
    """A key of x by its value, spelled out: the float itself, −0.0 just below +0.0."""
    return (x, 0 if (x == 0 and np.signbit(x)) else 1)


@settings(max_examples=200, deadline=None)
@given(arrays(np.float64, st.integers(1, 60), elements=FLOATS))
def test_keys_order_as_the_floats(x):
    """Claim: the keys of any finite or infinite floats order as the floats do (signed int64
    comparison), −0.0 one below +0.0; the map is an involution; the compiled map of one int64
    gives the same key as the NumPy map of the array."""
    k = float_key(x.view(np.int64).copy())
    ref = sorted(range(len(x)), key=lambda i: _reference(float(x[i])))
    assert np.all(k[ref][1:] >= k[ref][:-1])  # (not np.diff: it overflows int64)
    for i in range(len(x) - 1):
        a, b = _reference(float(x[i])), _reference(float(x[i + 1]))
        assert (k[i] < k[i + 1]) == (a < b) and (k[i] == k[i + 1]) == (a == b)
    assert np.array_equal(float_key(k.copy()), x.view(np.int64))
    one = compiled_float_key()
    assert [int(one(np.int64(v))) for v in x.view(np.int64)] == k.tolist()


def test_in_place_for_arrays_new_for_scalars():
    """A NumPy array is mapped in place (the callers pass their own copy); a scalar is not."""
    a = np.array([-1.0, 2.0]).view(np.int64)
    out = float_key(a)
    assert out is a and a[0] == np.array([-1.0]).view(np.int64)[0] ^ np.int64(2**63 - 1)
    s = np.array([-1.0]).view(np.int64)[0]
    assert float_key(s) != s and s == np.array([-1.0]).view(np.int64)[0]
