"""Exact scaling of weights by a power of two (the one home of that factor): every AUC and win
rate is a ratio of bilinear forms in the weights, so the factor changes nothing and keeps sums and
products of weights inside the float64 range."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.arrays import check_dense_tensor

__all__ = ["pow2_normalise", "pow2_scale"]


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
    e = np.frexp(np.max(x, axis=axis, keepdims=axis is not None))[1]
    # x times the factor 2^−e: the same correctly rounded x · 2^−e as ldexp (exact unless it
    # is subnormal), at a twentieth of its cost; ldexp only where the factor overflows (a
    # maximum below 2^−1024)
    with np.errstate(over="ignore"):
        f = np.ldexp(1.0, -e)
    return x * f if np.isfinite(f).all() else np.ldexp(x, -e)
