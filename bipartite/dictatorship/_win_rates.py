"""Label dictatorship on data and on a population (docs/theory.md §2, §7): cross-pair win rates
``W_{k>j}`` and near-tie rates, for one label pair (:func:`cross_pair_win_rate`,
:func:`near_tie_rate`, :func:`population_win_rate`) and for all ``K (K − 1)`` ordered pairs from one
sort (:func:`cross_pair_win_rates`, :func:`near_tie_rates`; the kernel
:func:`pair_rates_checked`).

**Ties** count ½ in every win rate, as in the AUC (docs/theory.md §2); on a finite population a
point's pairing with itself is a tie (self-pairs included).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    check_array,
    check_binary,
    check_consistent_length,
    check_problem,
    check_sample_weight,
    check_tolerance,
    pow2_normalise,
    warn_undefined,
)
from bipartite.metrics import auc, weighted_auc

if TYPE_CHECKING:
    from bipartite.population import FiniteProblem

__all__ = [
    "check_data",
    "check_label_count",
    "cross_pair_win_rate",
    "cross_pair_win_rates",
    "near_tie_rate",
    "near_tie_rates",
    "pair_rates_checked",
    "population_win_rate",
    "warn_empty_pairs",
]


# --------------------------------------------------------------------------------------------
# Checks shared by the win rates and the report
# --------------------------------------------------------------------------------------------
def check_label_count(K: int) -> None:
    """Refuse fewer than two label columns: a win rate compares two labels."""
    if K < 2:
        raise ValueError(f"The 'Y' parameter must have K >= 2 label columns, got {K}.")


def _check_pair(Yb: np.ndarray, k: int, j: int) -> tuple[int, int]:
    K = Yb.shape[1]
    check_label_count(K)
    for name, v in (("k", k), ("j", j)):
        if not isinstance(v, (int, np.integer)) or not 0 <= v < K:
            raise ValueError(f"The '{name}' parameter must be a label index in [0, {K}), got {v!r}.")
    if k == j:
        raise ValueError(f"The 'k' and 'j' parameters must be different labels, got k = j = {k}.")
    return int(k), int(j)


def check_data(Y: ArrayLike, scores: ArrayLike, sample_weight: ArrayLike | None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validated ``Y`` (n, K) 0/1 with K ≥ 2, ``scores`` (n,) and row weights (n,), as given.

    The win-rate kernels take the weights rescaled by :func:`~bipartite._utils.validation.pow2_normalise`
    (exact; 1e-170 weights must not underflow in the products ``w(x) w(x')``)."""
    Yb = check_binary(Y, "Y", ndim=2)
    s = check_array(scores, "scores", ndim=1)
    check_consistent_length(Y=Yb, scores=s)
    check_label_count(Yb.shape[1])
    return Yb, s, check_sample_weight(sample_weight, len(s))


def _cross_sets(
    Y: ArrayLike, scores: ArrayLike, k: int, j: int, sample_weight: ArrayLike | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, int]:
    """Validate; return scores, "k only" mask (y_k = 1, y_j = 0), "j only" mask, weights, k, j."""
    Yb, s, w = check_data(Y, scores, sample_weight)
    k, j = _check_pair(Yb, k, j)
    only_k = (Yb[:, k] == 1) & (Yb[:, j] == 0)
    only_j = (Yb[:, j] == 1) & (Yb[:, k] == 0)
    return s, only_k, only_j, pow2_normalise(w), k, j


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
    t = check_tolerance(tol, "tol")
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


def pair_rates_checked(Yb: np.ndarray, s: np.ndarray, w: np.ndarray, tol: float | None, *,
                       order: np.ndarray | None = None
                       ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """``W_{k>j}`` and (with ``tol``) the near-tie rates of every ordered label pair, from one sort:
    the one all-pairs kernel of :func:`cross_pair_win_rates`, :func:`near_tie_rates`, the report
    and :func:`bipartite.diagnostics.diagnose`.

    For callers that checked their inputs: ``Yb`` 0/1 (n, K), finite ``s``, row weights ``w``
    scaled by a power of two (:func:`~bipartite._utils.validation.pow2_normalise`); NaN where a
    cross set is empty, with no warning here (:func:`warn_empty_pairs` gives one).

    With ``X^k[l, j] = w_l y_lj (1 − y_lk)`` (the weight of row l in "j only" against k) and its
    cumulative sums ``C^k`` in score order, a row i of "k only" (``y_ik = 1, y_ij = 0``) beats
    ``C^k[lt_i, j]`` of that weight and ties ``C^k[le_i, j] − C^k[lt_i, j]`` (``lt``/``le``: the
    number of scores below / not above ``s_i``); within ``tol`` lies ``C^k[hi_i, j] − C^k[lo_i, j]``.
    So row k of the numerators is ``Σ_i w_i y_ik (1 − y_ij) (...)_ij``: O(n K) per label, the
    cumulative sums in blocks of at most :data:`_PAIR_BLOCK` entries. Only ``j > k`` is computed
    (``W_{j>k} = 1 − W_{k>j}``); the near ties of ``(j, k)`` come from the same sums, with the
    tolerance applied around ``f(x')`` as :func:`near_tie_rate` ``(j, k)`` does. Returns
    ``(W, T or None, den)`` with ``den[k, j]`` the weight of the cross pairs (0: undefined, NaN in
    ``W`` and ``T``), each side of the pair scaled by its own power of two (the ratios are
    unchanged; ``N_kj N_jk`` itself may underflow).
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


def warn_empty_pairs(den: np.ndarray, what: str) -> None:
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
    Yb, s, w = check_data(Y, scores, sample_weight)
    W, _, den = pair_rates_checked(Yb, s, pow2_normalise(w), None)
    warn_empty_pairs(den, "the cross-pair win rate W_{k>j}")
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
    Yb, s, w = check_data(Y, scores, sample_weight)
    t = check_tolerance(tol, "tol")
    _, T, den = pair_rates_checked(Yb, s, pow2_normalise(w), t)
    warn_empty_pairs(den, "the near-tie rate")
    return T


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
