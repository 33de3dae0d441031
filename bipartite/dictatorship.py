"""Label dictatorship: diagnostics in theory and on data (docs/theory.md §7; LA25 §6, Prop 6.1, Fig. 1).

With deterministic labels (η_k ∈ {0, 1}) loss aggregation ranks by ``Σ_k α_k y_k`` with the
effective weights ``α_k = a_k / (π_k (1 − π_k))`` of docs/theory.md §4. Label ``k`` is a **dictator** when
every instance with ``y_k = 1`` is ranked strictly above every instance with ``y_k = 0``, whatever
the other labels say; this happens if ``α_k > Σ_{j≠k} α_j``, and only if when every label
combination has positive mass (LA25 Prop 6.1).

* Theory: :func:`effective_weights` (re-exported from :mod:`bipartite.bayes`, the one
  implementation), :func:`effective_weight_shares`, :func:`dictator`, :func:`dictator_threshold`,
  :func:`label_vector_order` (the partial orders of LA25 Fig. 1 for any K).
* Data: :func:`cross_pair_win_rate` (``W_{k>j}``), :func:`near_tie_rate` (one pair);
  :func:`cross_pair_win_rates`, :func:`near_tie_rates` (all ``K (K − 1)`` ordered pairs, validated
  once, one sort: O(n K²) time, O(n K) memory; K = 174 on CAL500 in milliseconds);
  :func:`report`.
* Population: :func:`population_win_rate` on a :class:`~bipartite.population.FiniteProblem`.

**Ties** count ½ in every win rate, as in the AUC (docs/theory.md §2); on a finite population a point's
pairing with itself is a tie (self-pairs included).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    check_array,
    check_binary,
    check_consistent_length,
    check_nonnegative,
    check_option,
    check_problem,
    check_sample_weight,
    pow2_normalise,
    warn_undefined,
)
from bipartite.bayes import effective_weights, label_aggregation_scores
from bipartite.labels import AGGREGATES, label_vectors
from bipartite.metrics import auc, multilabel_auc, weighted_auc

if TYPE_CHECKING:
    import pandas as pd

    from bipartite.population import FiniteProblem

__all__ = [
    "effective_weights",
    "effective_weight_shares",
    "dictator",
    "dictator_threshold",
    "cross_pair_win_rate",
    "near_tie_rate",
    "cross_pair_win_rates",
    "near_tie_rates",
    "DictatorshipReport",
    "report",
    "population_win_rate",
    "label_vector_order",
    "ORDER_KINDS",
]

#: The kinds of :func:`label_vector_order`: loss aggregation and every tabled ψ
#: (:data:`bipartite.labels.AGGREGATIONS`).
ORDER_KINDS = ("loss", *AGGREGATES)

# Relative tolerance for "equal" sums of effective weights: α_k and Σ_{j≠k} α_j (or two tier
# scores) that agree to this relative precision are treated as tied, so that rounding in the
# floating-point sums never turns an exact tie (no dictator) into a dictator.
_RTOL = 1e-12


# --------------------------------------------------------------------------------------------
# Theory: effective weights, the dictator, the skew threshold
# --------------------------------------------------------------------------------------------
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
    return k if margin[k] > _RTOL * total else None


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


# --------------------------------------------------------------------------------------------
# Data: cross-pair win rates, near ties, the report
# --------------------------------------------------------------------------------------------
def _check_pair(Yb: np.ndarray, k: int, j: int) -> tuple[int, int]:
    K = Yb.shape[1]
    if K < 2:
        raise ValueError(f"The 'Y' parameter must have K >= 2 label columns, got {K}.")
    for name, v in (("k", k), ("j", j)):
        if not isinstance(v, (int, np.integer)) or not 0 <= v < K:
            raise ValueError(f"The '{name}' parameter must be a label index in [0, {K}), got {v!r}.")
    if k == j:
        raise ValueError(f"The 'k' and 'j' parameters must be different labels, got k = j = {k}.")
    return int(k), int(j)


def _check_data(Y: ArrayLike, scores: ArrayLike, sample_weight: ArrayLike | None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validated ``Y`` (n, K) 0/1, ``scores`` (n,) and weights (n,), the weights rescaled by
    :func:`_pair_weights`: 1e-170 weights must not underflow in the products ``w(x) w(x')``."""
    Yb = check_binary(Y, "Y", ndim=2)
    s = check_array(scores, "scores", ndim=1)
    check_consistent_length(Y=Yb, scores=s)
    return Yb, s, _pair_weights(check_sample_weight(sample_weight, len(s)))


def _pair_weights(w: np.ndarray) -> np.ndarray:
    """Checked row weights rescaled by a power of two (exact), their maximum in [½, 1)."""
    return pow2_normalise(w)


def _cross_sets(
    Y: ArrayLike, scores: ArrayLike, k: int, j: int, sample_weight: ArrayLike | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, int]:
    """Validate; return scores, "k only" mask (y_k = 1, y_j = 0), "j only" mask, weights, k, j."""
    Yb, s, w = _check_data(Y, scores, sample_weight)
    k, j = _check_pair(Yb, k, j)
    only_k = (Yb[:, k] == 1) & (Yb[:, j] == 0)
    only_j = (Yb[:, j] == 1) & (Yb[:, k] == 0)
    return s, only_k, only_j, w, k, j


def cross_pair_win_rate(
    Y: ArrayLike, scores: ArrayLike, k: int, j: int, *, sample_weight: ArrayLike | None = None
) -> float:
    """Cross-pair win rate ``W_{k>j}`` of a scorer on labelled data (docs/theory.md §7).

    ``W_{k>j}`` is the fraction of pairs (x, x') with x positive for k but not j
    (``y_k = 1, y_j = 0``) and x' positive for j but not k (``y'_j = 1, y'_k = 0``) in which
    ``f(x) > f(x')``, **ties counted ½**. The other labels are ignored (for K = 2 the two sets are
    the (1, 0) and (0, 1) instances). ½ is even-handed, 1 means k dictates j, and
    ``W_{j>k} = 1 − W_{k>j}``. It is the AUC of "k-only" (positive) against "j-only" (negative)
    rows, computed by :func:`bipartite.metrics.auc` on that subset: O(n log n).

    Parameters
    ----------
    Y : array-like of shape (n, K) with values in {0, 1}, K ≥ 2
    scores : array-like of shape (n,)
    k, j : int, distinct label indices
    sample_weight : array-like of shape (n,), optional; a pair weighs ``w(x) w(x')``

    Returns
    -------
    float — NaN with an :class:`~bipartite.UndefinedMetricWarning` when either set is empty
    (has no positive weight).

    >>> Y = [[1, 0], [1, 0], [0, 1], [0, 1], [1, 1]]
    >>> cross_pair_win_rate(Y, [3.0, 1.0, 2.0, 1.0, 9.0], 0, 1)
    0.625
    """
    s, only_k, only_j, w, k, j = _cross_sets(Y, scores, k, j, sample_weight)
    if not (w[only_k].sum() > 0 and w[only_j].sum() > 0):
        return warn_undefined(
            f"cross-pair win rate W_{{{k}>{j}}} is undefined: no instance is positive for label "
            f"{k if not w[only_k].sum() > 0 else j} only (y_{k} != y_{j})."
        )
    sub = only_k | only_j
    return auc(only_k[sub].astype(np.float64), s[sub], sample_weight=w[sub])


def near_tie_rate(
    Y: ArrayLike, scores: ArrayLike, k: int, j: int, *, tol: float, sample_weight: ArrayLike | None = None
) -> float:
    """Share of cross pairs whose scores are within ``tol`` of each other (docs/theory.md §7).

    Over the same pairs as :func:`cross_pair_win_rate` (x with ``y_k = 1, y_j = 0``; x' with
    ``y'_j = 1, y'_k = 0``): the (weighted) fraction with ``|f(x) − f(x')| ≤ tol``, evaluated as
    ``f(x) − tol ≤ f(x') ≤ f(x) + tol`` (the two forms can differ by rounding exactly at the
    boundary). A win rate near
    ½ produced by near-ties is a fragile "tie": report both. One sort of the j-only scores and two
    ``searchsorted`` calls: O(n log n).

    Parameters
    ----------
    Y, scores, k, j, sample_weight : as :func:`cross_pair_win_rate`
    tol : float ≥ 0 (``tol = 0`` counts exact ties)

    Returns
    -------
    float in [0, 1] — NaN with a warning when either set is empty.

    >>> Y = [[1, 0], [1, 0], [0, 1], [0, 1]]
    >>> near_tie_rate(Y, [1.0, 5.0, 1.05, 3.0], 0, 1, tol=0.1)
    0.25
    """
    s, only_k, only_j, w, k, j = _cross_sets(Y, scores, k, j, sample_weight)
    t = _check_tol(tol)
    # each side scaled by its own power of two: exact, and wk.sum() * wj.sum() cannot underflow
    wk, wj = pow2_normalise(w[only_k]), pow2_normalise(w[only_j])
    if not (wk.sum() > 0 and wj.sum() > 0):
        return warn_undefined(
            f"near-tie rate of labels {k} and {j} is undefined: one cross-pair set is empty."
        )
    order = np.argsort(s[only_j], kind="stable")
    b = s[only_j][order]
    cw = np.concatenate([[0.0], np.cumsum(wj[order])])  # float64 cumulative weights
    a = s[only_k]
    lo = np.searchsorted(b, a - t, side="left")
    hi = np.searchsorted(b, a + t, side="right")
    return float(np.sum(wk * (cw[hi] - cw[lo])) / (wk.sum() * wj.sum()))


#: Most entries of one (rows × labels) block of the all-pairs kernel (bounds its temporaries).
_PAIR_BLOCK = 1 << 21


def _all_pair_rates(Yb: np.ndarray, s: np.ndarray, w: np.ndarray, tol: float | None,
                    order: np.ndarray | None = None
                    ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """``W_{k>j}`` and (with ``tol``) the near-tie rates of every ordered label pair, from one sort.

    With ``X^k[l, j] = w_l y_lj (1 − y_lk)`` (the weight of row l in "j only" against k) and its
    cumulative sums ``C^k`` in score order, a row i of "k only" (``y_ik = 1, y_ij = 0``) beats
    ``C^k[lt_i, j]`` of that weight and ties ``C^k[le_i, j] − C^k[lt_i, j]`` (``lt``/``le``: the
    number of scores below / not above ``s_i``); within ``tol`` lies ``C^k[hi_i, j] − C^k[lo_i, j]``.
    So row k of the numerators is ``Σ_i w_i y_ik (1 − y_ij) (...)_ij``: O(n K) per label, the
    cumulative sums in blocks of at most :data:`_PAIR_BLOCK` entries. Only ``j > k`` is computed
    (``W_{j>k} = 1 − W_{k>j}``); the near ties of ``(j, k)`` come from the same sums, with the
    tolerance applied around ``f(x')`` as :func:`near_tie_rate` ``(j, k)`` does. Returns ``(W, T or None, den)`` with
    ``den[k, j]`` the weight of the cross pairs (0: undefined, NaN in ``W`` and ``T``), each
    side of the pair scaled by its own power of two (the ratios are unchanged; ``N_kj N_jk``
    itself may underflow).
    ``order``: a stable ascending order of ``s``, when the caller has it (one sort saved). The
    rows are walked in score order, so every rank is searched with sorted keys (cache-friendly
    binary searches: 10–50x faster at 10⁶ rows than in row order) and ``lt``/``le`` are the
    tie groups' bounds (no search).
    """
    n, K = Yb.shape
    order = np.argsort(s, kind="stable") if order is None else order
    # every array below is in score order: row i of it is the row order[i] of the input
    ss = s[order]
    A_sorted = np.take(Yb, order, axis=0).astype(np.float64)  # take: 7x faster than Yb[order]
    w_sorted = w[order]
    wA_sorted = w_sorted[:, None] * A_sorted
    den = np.zeros((K, K))  # den[k, j]: the scaled cross-pair weight, N_kj N_jk a_kj a_jk
    new = np.r_[True, ss[1:] != ss[:-1]]  # first row of each tie group
    bounds = np.r_[np.flatnonzero(new), n]
    sizes = np.diff(bounds)
    lt = np.repeat(bounds[:-1], sizes)  # == np.searchsorted(ss, ss, "left")
    le = np.repeat(bounds[1:], sizes)  # == np.searchsorted(ss, ss, "right")
    if tol is not None:
        # x = the row i: f(i) − tol ≤ f(l) ≤ f(i) + tol holds for l in [lo, hi) of score order
        lo = np.searchsorted(ss, ss - tol, side="left")  # sorted keys: cache-friendly
        hi = np.searchsorted(ss, ss + tol, side="right")
        # x = the row l: f(l) − tol ≤ f(i) ≤ f(l) + tol, with the roundings of that side
        # (fl(s ± tol) is non-decreasing in s: the sets are a prefix and a suffix of score order)
        lo_r = np.searchsorted(ss + tol, ss, side="left")
        hi_r = np.maximum(np.searchsorted(ss - tol, ss, side="right"), lo_r)
    num_w = np.zeros((K, K))
    num_t = np.zeros((K, K)) if tol is not None else None
    for k in range(K - 1):
        rows = np.flatnonzero(wA_sorted[:, k] > 0)  # the rows that can be "k only"
        if not rows.size:
            continue
        r = wA_sorted[rows, k]
        zk = w_sorted * (1.0 - A_sorted[:, k])  # w_l (1 − y_lk) in score order
        step = max(1, _PAIR_BLOCK // max(n + 1, len(rows)))
        for j0 in range(k + 1, K, step):
            cols = slice(j0, min(j0 + step, K))
            C = np.zeros((n + 1, cols.stop - j0))
            # each side of each pair scaled by its own power of two (exact; max in [½, 1)):
            # "k only" and "j only" rows may all be light next to heavy rows with both labels
            # or neither (1e-170 against 1), where N_kj N_jk would underflow to 0
            np.cumsum(pow2_normalise(zk[:, None] * A_sorted[:, cols], axis=0), axis=0, out=C[1:])
            # w_i y_ik (1 − y_ij), scaled alike
            gate = pow2_normalise(r[:, None] * (1.0 - A_sorted[rows, cols]), axis=0)
            den[k, cols] = den[cols, k] = gate.sum(axis=0) * C[n]
            below, upto = C[lt[rows]], C[le[rows]]
            num_w[k, cols] = np.sum(gate * (below + 0.5 * (upto - below)), axis=0)
            if num_t is not None:
                num_t[k, cols] = np.sum(gate * (C[hi[rows]] - C[lo[rows]]), axis=0)
                num_t[cols, k] = np.sum(gate * (C[hi_r[rows]] - C[lo_r[rows]]), axis=0)
    ok = np.triu(den > 0, 1)
    W = np.full((K, K), np.nan)
    W[ok] = num_w[ok] / den[ok]
    W.T[ok] = 1.0 - W[ok]
    T = None
    if num_t is not None:
        T = np.full((K, K), np.nan)
        both = ok | ok.T
        T[both] = num_t[both] / den[both]
    return W, T, den


def pair_rates_checked(Yb: np.ndarray, s: np.ndarray, w: np.ndarray, tol: float | None, *,
                       order: np.ndarray | None = None
                       ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """``(W, T, den)`` of :func:`cross_pair_win_rates` and :func:`near_tie_rates` at once, for
    callers that checked their inputs (``Yb`` 0/1 (n, K), finite ``s``, weights scaled by a
    power of two) and may hold the scores' stable ascending ``order``; NaN where a cross set is
    empty (no warning here). The one all-pairs kernel; used by
    :func:`bipartite.diagnostics.diagnose`."""
    return _all_pair_rates(Yb, s, w, tol, order)


def _warn_empty_pairs(den: np.ndarray, what: str) -> None:
    """One warning naming the label pairs without cross pairs (their entries are NaN)."""
    K = len(den)
    bad = [(int(k), int(j)) for k, j in zip(*np.nonzero(np.triu(~(den > 0), 1)), strict=True)]
    if bad:
        shown = ", ".join(f"({k}, {j})" for k, j in bad[:5]) + (" ..." if len(bad) > 5 else "")
        warn_undefined(
            f"{what} is undefined (NaN) for {len(bad)} of the {K * (K - 1) // 2} label pairs "
            f"{{k, j}}: no instance is positive for k but not j, or for j but not k: {shown}.")


def cross_pair_win_rates(Y: ArrayLike, scores: ArrayLike, *,
                         sample_weight: ArrayLike | None = None) -> np.ndarray:
    """All cross-pair win rates ``W_{k>j}`` of a scorer, as a (K, K) matrix (docs/theory.md §7).

    Entry ``[k, j]`` is :func:`cross_pair_win_rate` ``(Y, scores, k, j)`` (ties ½; a pair weighs
    ``w(x) w(x')``); the diagonal is NaN and ``W[j, k] = 1 − W[k, j]``. The inputs are validated
    once and the scores sorted once; each label then costs O(n K) vectorised work (cumulative
    sums of the other labels in score order), O(n K²) in all and O(n K) memory — no Python loop
    over the ``K (K − 1) / 2`` pairs' validation and sorting (CAL500, K = 174: 15 051 pairs).

    Parameters
    ----------
    Y : array-like of shape (n, K) with values in {0, 1}, K ≥ 2
    scores : array-like of shape (n,)
    sample_weight : array-like of shape (n,), optional

    Returns
    -------
    ndarray (K, K) — NaN on the diagonal and, with one
    :class:`~bipartite.UndefinedMetricWarning` for all of them, for the pairs whose cross sets
    are empty (no positive weight).

    >>> Y = [[1, 0], [1, 0], [0, 1], [0, 1], [1, 1]]
    >>> cross_pair_win_rates(Y, [3.0, 1.0, 2.0, 1.0, 9.0]).tolist()
    [[nan, 0.625], [0.375, nan]]
    """
    Yb, s, w = _check_data(Y, scores, sample_weight)
    if Yb.shape[1] < 2:
        raise ValueError(f"The 'Y' parameter must have K >= 2 label columns, got {Yb.shape[1]}.")
    W, _, den = _all_pair_rates(Yb, s, w, None)
    _warn_empty_pairs(den, "the cross-pair win rate W_{k>j}")
    return W


def near_tie_rates(Y: ArrayLike, scores: ArrayLike, *, tol: float,
                   sample_weight: ArrayLike | None = None) -> np.ndarray:
    """All near-tie rates of a scorer, as a (K, K) matrix (docs/theory.md §7).

    Entry ``[k, j]`` is :func:`near_tie_rate` ``(Y, scores, k, j, tol=tol)``: the weighted share
    of the cross pairs of labels k and j whose scores satisfy ``f(x) − tol ≤ f(x') ≤ f(x) + tol``
    (x positive for k only). It is symmetric up to the rounding of ``f ± tol`` at the boundary.
    Validated once, one sort, O(n K²) time and O(n K) memory as :func:`cross_pair_win_rates`.

    Parameters
    ----------
    Y, scores, sample_weight : as :func:`cross_pair_win_rates`
    tol : float ≥ 0

    Returns
    -------
    ndarray (K, K) — NaN on the diagonal and (one warning) where a cross set is empty.

    >>> Y = [[1, 0], [1, 0], [0, 1], [0, 1]]
    >>> near_tie_rates(Y, [1.0, 5.0, 1.05, 3.0], tol=0.1).tolist()
    [[nan, 0.25], [0.25, nan]]
    """
    Yb, s, w = _check_data(Y, scores, sample_weight)
    t = _check_tol(tol)
    if Yb.shape[1] < 2:
        raise ValueError(f"The 'Y' parameter must have K >= 2 label columns, got {Yb.shape[1]}.")
    _, T, den = _all_pair_rates(Yb, s, w, t)
    _warn_empty_pairs(den, "the near-tie rate")
    return T


def _check_tol(tol: float) -> float:
    t = float(check_array(tol, "tol", ndim=0))
    if t < 0:
        raise ValueError(f"The 'tol' parameter must be non-negative, got {t!r}.")
    return t


@dataclass
class DictatorshipReport:
    """Dictatorship diagnostics of one scorer on labelled data (docs/theory.md §7); see :func:`report`.

    Attributes
    ----------
    auc : (K,) per-label AUC of the scorer
    reference_auc : (K,) AUC of the reference scorer of each label (or of the best-served label)
    auc_fraction : (K,) ``auc / reference_auc``
    lift_fraction : (K,) ``(auc − ½) / (reference_auc − ½)``: the share of the achievable lift
        above chance (NaN where the reference has no lift)
    win_rate : (K, K) ``W_{k>j}`` in row k, column j (diagonal NaN)
    near_tie : (K, K) near-tie rate of each label pair (symmetric, diagonal NaN)
    dictatorship_index : ``max_{k≠j} |2 W_{k>j} − 1|`` (NaN-ignoring): 0 even-handed, 1 a dictator
    dominant : (k, j) attaining the index, oriented so that ``W_{k>j} ≥ ½``, or None
    tol : the near-tie tolerance; reference : ``"reference_scores"`` or ``"best label"``
    """

    auc: np.ndarray
    reference_auc: np.ndarray
    auc_fraction: np.ndarray
    lift_fraction: np.ndarray
    win_rate: np.ndarray
    near_tie: np.ndarray
    dictatorship_index: float
    dominant: tuple[int, int] | None
    tol: float
    reference: str
    label_names: list[str] = field(default_factory=list)

    def to_frame(self) -> pd.DataFrame:
        """Per-label table (pandas DataFrame): AUC, reference, fractions, ``W_{k>j}`` columns."""
        import pandas as pd

        names = self.label_names
        df = pd.DataFrame(
            {
                "auc": self.auc,
                "reference_auc": self.reference_auc,
                "auc_fraction": self.auc_fraction,
                "lift_fraction": self.lift_fraction,
            },
            index=pd.Index(names, name="label"),
        )
        # one concat: K = 174 labels give 348 columns, inserted one by one a fragmented frame
        cols = [pd.DataFrame(self.win_rate, index=df.index, columns=[f"W_>{n}" for n in names]),
                pd.DataFrame(self.near_tie, index=df.index,
                             columns=[f"near_tie_{n}" for n in names])]
        return pd.concat([df, *cols], axis=1)

    def __str__(self) -> str:
        names = self.label_names
        width = max(8, *(len(n) for n in names))

        def fmt(x: float) -> str:
            return "   -  " if not np.isfinite(x) else f"{x:6.3f}"

        head = f"{'label':<{width}}  {'AUC':>6}  {'ref':>6}  {'frac':>6}  {'lift':>6}"
        head += "".join(f"  {'W>' + n:>{max(6, len(n) + 2)}}" for n in names)
        lines = [head]
        for k, nk in enumerate(names):
            row = f"{nk:<{width}}  {fmt(self.auc[k])}  {fmt(self.reference_auc[k])}  "
            row += f"{fmt(self.auc_fraction[k])}  {fmt(self.lift_fraction[k])}"
            row += "".join(
                f"  {fmt(self.win_rate[k, j]):>{max(6, len(n) + 2)}}" for j, n in enumerate(names)
            )
            lines.append(row)
        if self.dominant is None:
            dom = "none"
        else:
            dom = f"{names[self.dominant[0]]} over {names[self.dominant[1]]}"
        pairs = list(zip(*np.triu_indices(len(names), 1), strict=True))
        tie_txt = ", ".join(
            f"{names[a]}/{names[b]} {fmt(self.near_tie[a, b]).strip()}" for a, b in pairs
        )
        lines.append(
            f"dictatorship index {fmt(self.dictatorship_index).strip()} ({dom}); "
            f"near-tie rate (tol={self.tol:g}): {tie_txt}; reference: {self.reference}"
        )
        return "\n".join(lines)


def report(
    Y: ArrayLike,
    scores: ArrayLike,
    *,
    tol: float = 1e-6,
    reference_scores: ArrayLike | None = None,
    sample_weight: ArrayLike | None = None,
    label_names: Sequence[str] | None = None,
) -> DictatorshipReport:
    """Dictatorship diagnostics of a scorer on labelled data (docs/theory.md §7).

    * per-label AUC (:func:`bipartite.metrics.multilabel_auc`, one sort, ties ½);
    * its fraction of a reference: with ``reference_scores`` (n, K) — column k the best
      single-label scorer available for label k (η_k on synthetic data, or a per-label model) —
      ``reference_auc_k = AUC_k(reference_scores[:, k])``; without it the reference is the
      best-served label, ``max_j AUC_j(f)`` (so the fractions compare labels with each other).
      Both ``auc / reference`` and the lift share ``(auc − ½)/(reference − ½)`` are given;
    * all cross-pair win rates ``W_{k>j}`` (:func:`cross_pair_win_rates`) and near-tie rates
      (:func:`near_tie_rates` with ``tol``), from one sort (O(n K²); K = 174 works);
    * the dictatorship index ``max_{k≠j} |2 W_{k>j} − 1|``: 0 when every label pair is treated
      even-handedly (W = ½), 1 when some label wins every cross pair against another.

    Undefined entries (a label with one class, an empty cross-pair set) are NaN, with warnings.

    Parameters
    ----------
    Y : array-like (n, K), K ≥ 2;  scores : array-like (n,)
    tol : float ≥ 0, the near-tie tolerance
    reference_scores : array-like (n, K), optional
    sample_weight : array-like (n,), optional
    label_names : sequence of K distinct str, optional (default "y0", "y1", ...)

    Returns
    -------
    DictatorshipReport — ``str()`` gives a table, ``.to_frame()`` a DataFrame.

    >>> r = report([[1, 0], [0, 1], [0, 0], [1, 1]], [2.0, 1.0, 0.0, 3.0])
    >>> float(r.win_rate[0, 1]), r.dictatorship_index, r.dominant
    (1.0, 1.0, (0, 1))
    """
    Yb = check_binary(Y, "Y", ndim=2)
    s = check_array(scores, "scores", ndim=1)
    check_consistent_length(Y=Yb, scores=s)
    n, K = Yb.shape
    if K < 2:
        raise ValueError(f"The 'Y' parameter must have K >= 2 label columns, got {K}.")
    w = check_sample_weight(sample_weight, n)
    t = _check_tol(tol)
    if label_names is None:
        names = [f"y{k}" for k in range(K)]
    else:
        if isinstance(label_names, str | bytes):
            raise TypeError(f"The 'label_names' parameter must be a sequence of {K} names, got "
                            f"the string {label_names!r}.")
        names = [str(x) for x in label_names]
        if len(names) != K:
            raise ValueError(
                f"The 'label_names' parameter must have {K} entries, got {len(names)}."
            )
        dup = next((n for i, n in enumerate(names) if n in names[:i]), None)
        if dup is not None:
            raise ValueError(f"The 'label_names' parameter must hold {K} distinct names (they "
                             f"label the report's rows), got {dup!r} twice in {names}.")
    aucs = multilabel_auc(Yb, s, sample_weight=w)
    if reference_scores is None:
        finite = aucs[np.isfinite(aucs)]
        ref = np.full(K, finite.max() if finite.size else np.nan)
        reference = "best label"
    else:
        R = check_array(reference_scores, "reference_scores", ndim=2)
        if R.shape != Yb.shape:
            raise ValueError(
                f"The 'reference_scores' parameter must have shape {Yb.shape}, got {R.shape}."
            )
        ref = np.array(
            [weighted_auc(R[:, k], (w * Yb[:, k])[:, None], (w * (1 - Yb[:, k]))[:, None])[0]
             for k in range(K)]
        )
        reference = "reference_scores"
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = aucs / ref
        lift = np.where(ref == 0.5, np.nan, (aucs - 0.5) / (ref - 0.5))
    W, T, den = _all_pair_rates(Yb, s, _pair_weights(w), t)
    _warn_empty_pairs(den, "the cross-pair win rate and the near-tie rate")
    dev = np.abs(2.0 * W - 1.0)
    if np.all(np.isnan(dev)):
        index, dominant = float("nan"), None
    else:
        index = float(np.nanmax(dev))
        kk, jj = np.unravel_index(np.nanargmax(np.where(W >= 0.5, dev, -1.0)), W.shape)
        dominant = (int(kk), int(jj)) if index > 0 else None
    return DictatorshipReport(
        auc=aucs, reference_auc=ref, auc_fraction=frac, lift_fraction=lift, win_rate=W,
        near_tie=T, dictatorship_index=index, dominant=dominant, tol=t,
        reference=reference, label_names=names,
    )


# --------------------------------------------------------------------------------------------
# Population counterparts
# --------------------------------------------------------------------------------------------
def population_win_rate(problem: FiniteProblem, scores: ArrayLike, k: int, j: int) -> float:
    """Exact population cross-pair win rate ``W_{k>j}`` on a finite problem (docs/theory.md §2, §7).

    ``W_{k>j} = P(f(X) > f(X') | Y_k = 1, Y_j = 0, Y'_j = 1, Y'_k = 0) + ½ P(tie | ...)`` for
    independent draws. On finite support, with ``u_i = p_i P(Y_k=1, Y_j=0 | x_i)`` and
    ``v_i = p_i P(Y_j=1, Y_k=0 | x_i)``: ``W = Σ_{i,l} u_i v_l s(f_i, f_l) / (Σu Σv)``, self-pairs
    (``i = l``) included as ties, through the same kernel as the population AUC.

    Returns NaN with a warning when either event has probability 0.

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem([0.5, 0.5], [[0, 0, 1, 0], [0, 1, 0, 0]])  # (1,0) and (0,1) points
    >>> population_win_rate(P, [1.0, 0.0], 0, 1), population_win_rate(P, [1.0, 0.0], 1, 0)
    (1.0, 0.0)
    """
    check_problem(problem)
    f = problem.check_scores(scores)
    k, j = _check_pair(problem.label_vectors, k, j)
    V = problem.label_vectors
    u = problem.mass * problem.label_probs[:, (V[:, k] == 1) & (V[:, j] == 0)].sum(axis=1)
    v = problem.mass * problem.label_probs[:, (V[:, j] == 1) & (V[:, k] == 0)].sum(axis=1)
    val = weighted_auc(f, u[:, None], v[:, None])[0]
    if np.isnan(val):
        return warn_undefined(
            f"population win rate W_{{{k}>{j}}} is undefined: P(Y_{k} != Y_{j}) is 0 on one side."
        )
    return float(val)


# --------------------------------------------------------------------------------------------
# LA25 Fig. 1: the partial orders over label vectors
# --------------------------------------------------------------------------------------------
def label_vector_order(
    kind: str | Callable[[np.ndarray], float],
    *,
    pi: ArrayLike | None = None,
    a: ArrayLike | None = None,
    K: int | None = None,
    w: ArrayLike | None = None,
) -> list[list[tuple[int, ...]]]:
    """The weak order that a Bayes scorer induces on the label vectors, deterministic labels
    (docs/theory.md §7; LA25 Fig. 1 a–d).

    With η_k(x) = y_k, evaluate the Bayes-optimal scorer on each of the ``2**K`` label vectors
    and group equal scores into tiers:

    * ``"loss"`` — loss aggregation, ``f* = Σ_k α_k y_k`` with ``α = effective_weights(pi, a)``
      (:func:`bipartite.bayes.effective_weights`);
    * a ψ of :data:`bipartite.labels.AGGREGATIONS` (or a callable ψ) — label aggregation with linear costs,
      ``f* = E[ψ(Y) | x] = ψ(y)`` (:func:`bipartite.bayes.label_aggregation_scores`; ``w``
      for a weighted sum). For the binary aggregates any positive costs give the same scorer.

    Scores equal to a relative 1e-12 are tied.

    Parameters
    ----------
    kind : "loss", a name of :data:`bipartite.labels.AGGREGATIONS` (:data:`ORDER_KINDS`) or callable
    pi : array-like (K,), required for ``"loss"``
    a : array-like (K,), optional mixing weights for ``"loss"``
    K : int, optional — number of labels (default ``len(pi)``, or 2)
    weights : array-like (K,), optional weights of ``"sum"``

    Returns
    -------
    list of tiers from the **lowest-ranked to the highest-ranked**; each tier a list of label
    vectors (tuples) with equal scores, in ``itertools.product`` order.

    >>> label_vector_order("loss", pi=[0.1, 0.5])  # α_1 > α_2 (LA25 Fig. 1a)
    [[(0, 0)], [(0, 1)], [(1, 0)], [(1, 1)]]
    >>> label_vector_order("sum")  # Fig. 1c
    [[(0, 0)], [(0, 1), (1, 0)], [(1, 1)]]
    >>> label_vector_order("product")  # Fig. 1d
    [[(0, 0), (0, 1), (1, 0)], [(1, 1)]]
    """
    if not callable(kind):
        check_option(kind, "kind", ORDER_KINDS)
    if K is None:
        K = len(np.atleast_1d(check_array(pi, "pi", allow_empty=True))) if pi is not None else 2
        if K < 1:
            raise ValueError("The 'pi' parameter must have at least one label, got an empty array.")
    if not isinstance(K, (int, np.integer)) or K < 1:
        raise ValueError(f"The 'K' parameter must be a positive integer, got {K!r}.")
    V = label_vectors(int(K))
    if kind == "loss":
        if pi is None:
            raise ValueError("The 'pi' parameter is required for kind='loss'.")
        alpha = effective_weights(pi, a)
        if len(alpha) != K:
            raise ValueError(f"The 'pi' parameter must have K={K} entries, got {len(alpha)}.")
        f = V @ alpha
    else:
        if a is not None:
            raise ValueError(f"The 'a' parameter is only used with kind='loss', got kind={kind!r}.")
        if w is not None:
            check_nonnegative(check_array(w, "w", ndim=1), "w")
        onehot = np.eye(len(V))  # deterministic labels: P(Y = v_m | x_m) = 1
        f = label_aggregation_scores(
            V.astype(np.float64), onehot, aggregate=kind, w=w, costs="linear"
        )
    return _tiers(f, [tuple(int(x) for x in v) for v in V])


def _tiers(f: np.ndarray, items: list) -> list[list]:
    """Group items into tiers of equal scores (relative tolerance), lowest tier first."""
    order = np.argsort(f, kind="stable")
    scale = max(1.0, float(np.max(np.abs(f))))
    tiers: list[list] = []
    last = None
    for m in order:
        if last is None or f[m] - last > _RTOL * scale:
            tiers.append([])
            last = f[m]
        tiers[-1].append(items[m])
    return [sorted(t) for t in tiers]


# --------------------------------------------------------------------------------------------
# One-shot tables for the CLI (`bipartite frontier`, `bipartite dictatorship`)
# --------------------------------------------------------------------------------------------


def _dense_rank_desc(scores: np.ndarray) -> np.ndarray:
    """Rank 1 = highest score; equal scores (to a relative 1e-12) share a rank."""
    f = np.asarray(scores, dtype=np.float64)
    scale = max(1.0, float(np.max(np.abs(f))))
    order = np.argsort(-f, kind="stable")
    ranks = np.empty(len(f), dtype=np.int64)
    rank, last = 0, None
    for i in order:
        if last is None or last - f[i] > 1e-12 * scale:
            rank += 1
            last = f[i]
        ranks[i] = rank
    return ranks


def dictatorship_tables(problem: FiniteProblem, *, a: ArrayLike | None = None
                        ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Label table and point-order table of a finite problem (docs/theory.md §4, §5, §7).

    Returns ``(labels, orders)``: ``labels`` has per label k the prior π_k, the mixing weight
    a_k, the effective weight α_k (:func:`bipartite.bayes.effective_weights`), its share
    (:func:`bipartite.dictatorship.effective_weight_shares`), whether it is the dictator for
    deterministic labels (:func:`bipartite.dictatorship.dictator`) and the priors below / above
    which it would dictate (:func:`bipartite.dictatorship.dictator_threshold`); ``orders`` has
    per point its mass, η, and its score and rank (1 = top, ties share a rank) under loss
    aggregation (:func:`bipartite.bayes.loss_aggregation`) and label aggregation by sum and by
    product (:func:`bipartite.bayes.label_aggregation_scores`).

    >>> from bipartite.population import FiniteProblem
    >>> P = FiniteProblem.from_eta([0.25] * 4, [[0, 0], [0, 1], [1, 0], [1, 1]])
    >>> labels, orders = dictatorship_tables(P, a=[1.0, 3.0])
    >>> labels["dictator"].tolist(), orders["rank_loss"].tolist(), orders["rank_sum"].tolist()
    ([False, True], [4, 2, 3, 1], [3, 2, 2, 1])
    """
    check_problem(problem)
    import pandas as pd

    from bipartite.bayes import effective_weights, label_aggregation_scores, loss_aggregation
    from bipartite.dictatorship import dictator, dictator_threshold, effective_weight_shares

    pi = problem.pi
    K = problem.K
    a_vec = np.ones(K) if a is None else np.asarray(a, dtype=np.float64)
    if a_vec.shape != (K,):
        raise ValueError(f"The 'a' parameter must have K = {K} entries, got {a_vec.tolist()}.")
    alpha = effective_weights(pi, a_vec)
    shares = effective_weight_shares(pi, a_vec)
    dic = dictator(pi, a_vec)
    rows = []
    for k in range(K):
        thr = dictator_threshold(pi, k, a=a_vec) if K >= 2 else None
        rows.append({"label": k + 1, "pi": pi[k], "a": a_vec[k], "alpha": alpha[k],
                     "alpha_share": shares[k], "dictator": dic == k,
                     "dictates_below_pi": np.nan if thr is None else thr[0],
                     "dictates_above_pi": np.nan if thr is None else thr[1]})
    labels = pd.DataFrame(rows)
    loss = loss_aggregation(problem.eta, pi, a_vec)
    total = label_aggregation_scores(problem.eta, problem.label_probs, aggregate="sum")
    orders = {"point": np.arange(1, problem.n + 1), "mass": problem.mass}
    for k in range(K):
        orders[f"eta_{k + 1}"] = problem.eta[:, k]
    orders.update({"score_loss": loss, "rank_loss": _dense_rank_desc(loss),
                   "score_sum": total, "rank_sum": _dense_rank_desc(total)})
    if K >= 2:
        prod = label_aggregation_scores(problem.eta, problem.label_probs, aggregate="product")
        orders.update({"score_product": prod, "rank_product": _dense_rank_desc(prod)})
    return labels, pd.DataFrame(orders)
