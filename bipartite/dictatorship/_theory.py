"""Label dictatorship in theory (docs/theory.md §7; LA25 Prop 6.1): the shares of the effective
weights, the dictator under deterministic labels and the priors at which a label becomes one.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import warn_undefined
from bipartite.bayes import effective_weights

__all__ = ["RTOL", "effective_weight_shares", "dictator", "dictator_threshold"]

#: Relative tolerance for "equal" sums of effective weights: α_k and Σ_{j≠k} α_j (or two tier
#: scores) that agree to this relative precision are treated as tied, so that rounding in the
#: floating-point sums never turns an exact tie (no dictator) into a dictator.
RTOL = 1e-12


def effective_weight_shares(pi: ArrayLike, a: ArrayLike | None = None) -> np.ndarray:
    """Shares ``α_k / Σ_j α_j`` of the effective weights of loss aggregation (docs/theory.md §4, §7).

    ``α = effective_weights(pi, a)`` (:func:`bipartite.bayes.effective_weights`). A share above
    ½ means ``α_k > Σ_{j≠k} α_j``: label k dictates under deterministic labels.

    Parameters
    ----------
    pi : array-like of shape (K,), priors strictly inside (0, 1)
    a : array-like of shape (K,), optional non-negative mixing weights (default 1)

    Returns
    -------
    ndarray of shape (K,), summing to 1 — NaN with a warning if every ``a_k`` is 0.

    >>> effective_weight_shares([0.5, 0.1]).round(4).tolist()
    [0.2647, 0.7353]
    """
    alpha = effective_weights(pi, a)
    total = alpha.sum()
    if total <= 0:
        warn_undefined("effective-weight shares are undefined: every mixing weight a_k is 0.")
        return np.full_like(alpha, np.nan)
    return alpha / total


def dictator(pi: ArrayLike, a: ArrayLike | None = None) -> int | None:
    """The dictator label under loss aggregation with deterministic labels, or None (docs/theory.md §7).

    Label ``k`` is returned when ``α_k > Σ_{j≠k} α_j`` (strict; LA25 Prop 6.1) with
    ``α = effective_weights(pi, a)``. At equality the instances (1, 0, ...) and (0, 1, ..., 1) tie,
    which is not dictatorship, so None is returned; sums that agree to a relative 1e-12 count as
    equal. At most one label can satisfy the inequality (it holds for more than half of Σα).

    Parameters
    ----------
    pi : array-like of shape (K,), priors strictly inside (0, 1)
    a : array-like of shape (K,), optional non-negative mixing weights (default 1)

    >>> dictator([0.5, 0.1])  # uniform a: the rarer label has the larger α
    1
    >>> dictator([0.5, 0.5]) is None  # α_1 = α_2: a tie, no dictator
    True
    >>> dictator([0.1, 0.15, 0.2]) is None  # K = 3: 11.1 < 7.8 + 6.25
    True
    """
    alpha = effective_weights(pi, a)
    total = alpha.sum()
    margin = 2.0 * alpha - total  # α_k − Σ_{j≠k} α_j
    k = int(np.argmax(margin))
    return k if margin[k] > RTOL * total else None


def dictator_threshold(pi: ArrayLike, k: int, *, a: ArrayLike | None = None) -> tuple[float, float] | None:
    """Priors of label ``k`` at which it becomes the dictator, the others fixed (docs/theory.md §7).

    Label ``k`` dictates when ``α_k = a_k / (π_k (1 − π_k)) > S = Σ_{j≠k} α_j``, i.e. when
    ``π_k (1 − π_k) < a_k / S``. The boundary solves the quadratic ``π (1 − π) = a_k / S``, with
    roots ``π = (1 ∓ √(1 − 4 a_k / S)) / 2``, symmetric around ½. Returns them as
    ``(lower, upper)``: label ``k`` dictates exactly when ``π_k < lower`` or ``π_k > upper``
    (strictly; at a root the two sides tie).

    Special cases: ``a_k = 0`` gives ``(0.0, 1.0)`` (never a dictator); if ``4 a_k > S`` — and in
    particular if every other ``a_j`` is 0 — there is no root and None is returned: label ``k``
    dictates at every prior. At ``4 a_k = S`` the double root gives ``(0.5, 0.5)``: it dictates at
    every prior except exactly ½, where it ties.

    Parameters
    ----------
    pi : array-like of shape (K,), K ≥ 2
        Priors strictly inside (0, 1). The entry ``pi[k]`` is not used (any value in (0, 1)).
    k : int
        The label.
    a : array-like of shape (K,), optional non-negative mixing weights (default 1)

    >>> lo, hi = dictator_threshold([0.5, 0.3], 1)  # label 1 vs α_0 = 4 (a = 1)
    >>> round(lo, 4), round(hi, 4)
    (0.5, 0.5)
    >>> lo, hi = dictator_threshold([0.5, 0.5, 0.3], 2)  # S = 8: π(1 − π) < 1/8
    >>> round(lo, 4), round(hi, 4)
    (0.1464, 0.8536)
    """
    alpha = effective_weights(pi, a)
    K = len(alpha)
    if K < 2:
        raise ValueError(f"dictator_threshold needs K >= 2 labels, got K={K}.")
    if not isinstance(k, (int, np.integer)) or not 0 <= k < K:
        raise ValueError(f"The 'k' parameter must be a label index in [0, {K}), got {k!r}.")
    # a_k on the scale of alpha (a / max a): effective weights at π = ½ are exactly 4 a
    a_k = float(effective_weights(np.full(K, 0.5), a)[k] / 4.0)
    S = float(np.delete(alpha, k).sum())  # Σ_{j≠k} α_j, independent of pi[k]
    if a_k == 0.0:
        return (0.0, 1.0)
    if S == 0.0 or 4.0 * a_k > S:
        return None
    r = math.sqrt(1.0 - 4.0 * a_k / S)
    return ((1.0 - r) / 2.0, (1.0 + r) / 2.0)
