"""Tests of :mod:`bipartite._utils.scaling`: the power-of-two scaling of weights."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from bipartite._utils.scaling import pow2_normalise, pow2_scale


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(-1074, 1023), st.integers(0, 1100),
       st.sampled_from([None, 0, 1]), st.booleans())
def test_pow2_normalise_is_ldexp_by_the_maximum_exponent(seed, top, spread, axis, fortran):
    """Claim: ``pow2_normalise(x, axis)`` is, bit for bit, ``ldexp(x, −e)`` with ``e`` the
    exponent of the maximum over ``axis`` (``2^(e−1) ≤ max < 2^e``): the same correctly rounded
    ``x · 2^−e`` where the product is subnormal, and where the maximum itself is subnormal (no
    finite factor); every slice with a non-zero maximum then has its maximum in [½, 1); zeros
    and all-zero slices stay as they are; any memory layout."""
    rng = np.random.default_rng(seed)
    # entries 2^k · m, k spread below the top exponent: the scaled ones reach subnormals
    k = top - rng.integers(0, spread + 1, (7, 3))
    x = np.ldexp(rng.uniform(0.5, 1.0, (7, 3)), k)
    x[rng.random((7, 3)) < 0.2] = 0.0
    x[:, 2] *= rng.random() < 0.5  # an all-zero column, sometimes
    if fortran:
        x = np.asfortranarray(x)
    e = np.frexp(np.max(x, axis=axis, keepdims=axis is not None))[1]
    want = np.ldexp(x, -e)
    got = pow2_normalise(x, axis)
    np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))
    top_of = np.max(got, axis=axis)
    assert np.all((top_of == 0) | ((top_of >= 0.5) & (top_of < 1.0)))


def test_pow2_normalise_of_a_subnormal_maximum_and_the_scale():
    """Claim: a maximum below 2^−1024 (its factor 2^−e overflows) is still scaled into [½, 1),
    exactly; ``pow2_scale`` of it is inf (documented), of 0 is 1."""
    x = np.array([5e-324, 2e-323, 0.0])
    got = pow2_normalise(x)
    np.testing.assert_array_equal(got, [0.125, 0.5, 0.0])
    with np.errstate(over="ignore"):
        assert pow2_scale(np.array([2e-323, 0.0, 3.0])).tolist() == [np.inf, 1.0, 0.25]
