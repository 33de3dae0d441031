"""Inference for the diagnostics (docs/theory.md §2.3): DeLong's variance and paired test from
the grouped engine's placements (:meth:`bipartite.metrics.QuerySegments.placements`), the delta
method for Min and Diff AUC (:func:`min_diff_delta`, docs/theory.md §2.6), the bootstrap
variance and the paired z test; the interval formulas themselves are
:mod:`bipartite.diagnostics._intervals`. The bootstrap replicates are the per-unit placement
sums' (:meth:`bipartite.diagnostics._placement_sums.PlacementSums.boot_auc`, ``boot_gauc``)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from bipartite._utils.validation import (
    UndefinedMetricWarning,
    check_array,
    check_binary,
    check_consistent_length,
    check_sample_weight,
    pow2_normalise,
)
from bipartite.diagnostics._intervals import wald
from bipartite.diagnostics._placement_sums import influence_var, placement_sums

__all__ = ["boot_var", "check_level",
           "delong_auc_variance", "delong_paired_test", "delong_terms", "holm",
           "min_diff_delta", "paired_min_delta", "paired_z"]


def delong_terms(s: np.ndarray, pos: np.ndarray, neg: np.ndarray) -> tuple[float, np.ndarray]:
    """AUC and DeLong's scaled placement terms (n,) of one positive / negative weight pair
    (n,), rows as units (:meth:`bipartite.diagnostics._placement_sums.PlacementSums.terms`, the one home
    of DeLong's variance: ``var = Σ t²``, two scorers' ``cov = Σ t_a t_b``); NaN terms where the
    variance is undefined, a NaN AUC when a class is empty."""
    ps = placement_sums(s, np.asarray(pos, dtype=np.float64)[None],
                        np.asarray(neg, dtype=np.float64)[None], within=False)
    return float(ps.auc()[0]), ps.terms()[0]


def min_diff_delta(theta: np.ndarray, terms: np.ndarray) -> tuple[float, float, str | None]:
    """Delta-method variances (docs/theory.md §2.6) of Min AUC ``min_k θ_k`` and Diff AUC
    ``max_k θ_k − min_k θ_k``
    of the (defined) AUCs ``theta`` (k,), from their scaled influence terms ``terms`` (k, U)
    on common units (``var θ_k = Σ_u t_ku²``, ``cov(θ_k, θ_j) = Σ_u t_ku t_ju``: DeLong's,
    clustered by query with query ids; :meth:`bipartite.diagnostics._placement_sums.PlacementSums.terms`).

    Where the minimum is attained by one label k, Min AUC is differentiable with gradient
    ``e_k``: ``var = var θ_k``; Diff AUC with the maximum at label l has gradient ``e_l − e_k``:
    ``var = var θ_l + var θ_k − 2 cov``. Returns ``(var_min, var_diff, note)``.

    **Ties.** Where two or more AUCs tie for the minimum (or the maximum) — equal to 1e-12 —
    the function is not differentiable there: its directional derivative is ``min_{k∈T} h_k``
    over the tied set T, and the limit law is that of ``min_{k∈T} Z_k``, not a normal. The
    function then takes, among the tied labels (pairs of tied labels for Diff), the one whose
    linearisation has the **largest variance**, and says so in ``note``. This widens the
    interval to the least favourable one-sided linearisation; it does not correct the
    downward bias of a minimum (upward of a maximum) of noisy estimates, which near a tie —
    AUCs within about one s.e., not only exactly equal — makes the Wald interval of Min AUC
    sit too high and that of Diff AUC too far from 0: compare the labels' own intervals
    there. A single label: Diff is 0 with variance 0."""
    theta = np.asarray(theta, dtype=np.float64)
    T = np.asarray(terms, dtype=np.float64)
    at_min, at_max = _tied(theta, theta.min()), _tied(theta, theta.max())
    var = influence_var(T)
    vmin = float(np.max(var[at_min]))
    D = T[at_max][:, None, :] - T[at_min][None, :, :]  # (max label, min label, units)
    vdiff = 0.0 if len(theta) == 1 else float(np.max(influence_var(D)))
    note = None
    if len(theta) > 1 and (len(at_min) > 1 or len(at_max) > 1):
        note = ("AUCs tie for the " + " and the ".join(
            w for w, tied in (("minimum", at_min), ("maximum", at_max)) if len(tied) > 1)
            + ": Min/Diff AUC are not differentiable there; the delta method takes the tied "
            "label with the largest variance (widest), and the limit law is not normal")
    return vmin, vdiff, note


def _tied(theta: np.ndarray, value: float) -> np.ndarray:
    """The labels whose AUC equals ``value`` to 1e-12 (the tie rule of :func:`min_diff_delta`)."""
    return np.flatnonzero(np.abs(theta - value) <= 1e-12)


def paired_min_delta(theta_a: np.ndarray, terms_a: np.ndarray, theta_b: np.ndarray,
                     terms_b: np.ndarray) -> tuple[float, str | None]:
    """Delta-method variance (docs/theory.md §2.6) of the paired difference of Min AUC,
    ``min_k θ_ak − min_j θ_bj``, of two scorers' defined AUCs ``theta_a`` (k,) and ``theta_b``
    (j,) from their scaled influence terms (k, U) and (j, U) on the same units (rows, or
    queries): with the minima at labels k and j the gradient is ``e_ak − e_bj`` and
    ``var = Σ_u (t_ak,u − t_bj,u)²`` (the minimum of each scorer is found on its own labels, so
    the two may differ). At a tie for a minimum (to 1e-12) the pair of tied labels whose
    linearisation has the largest variance is taken, as :func:`min_diff_delta` does, and
    ``note`` says so. Returns ``(var, note)``.

    >>> t = np.array([[0.1, -0.1], [0.2, 0.0]])
    >>> var, note = paired_min_delta(np.array([0.7, 0.9]), t, np.array([0.8, 0.6]), t)
    >>> round(var, 12), note  # a's minimum at label 0, b's at label 1: (0.1 − 0.2)² + (−0.1)²
    (0.02, None)
    """
    Ta, Tb = np.asarray(terms_a, dtype=np.float64), np.asarray(terms_b, dtype=np.float64)
    ka, kb = _tied(theta_a, np.min(theta_a)), _tied(theta_b, np.min(theta_b))
    D = Ta[ka][:, None, :] - Tb[kb][None, :, :]  # (a's tied labels, b's tied labels, units)
    var = float(np.max(influence_var(D)))
    note = None if len(ka) == 1 and len(kb) == 1 else (
        "AUCs tie for a scorer's minimum: the paired Min AUC difference is not differentiable "
        "there; the delta method takes the tied labels with the largest variance (widest)")
    return var, note


def boot_var(reps: np.ndarray, units: int) -> tuple[float, float]:
    """(variance, share of undefined replicates) of bootstrap replicates over ``units`` resampled
    units, times ``units/(units − 1)``: resampling G clusters gives a mean's variance times
    (G − 1)/G, so the factor removes that bias (it matters with few queries)."""
    ok = reps[np.isfinite(reps)]
    bad = 1.0 - len(ok) / max(len(reps), 1)
    var = float(ok.var(ddof=1)) * units / (units - 1) if len(ok) > 1 and units > 1 else np.nan
    return var, bad


# --------------------------------------------------------------------------------------------
# DeLong: public entry points
# --------------------------------------------------------------------------------------------
def _check_binary_scores(y_true: ArrayLike, scores: Sequence[ArrayLike], sample_weight: ArrayLike | None):
    y = check_binary(y_true, "y_true")
    ss = [check_array(s, name, ndim=1, exact_integers="order") for name, s in scores]
    check_consistent_length(y_true=y, **dict(zip([n for n, _ in scores], ss, strict=True)))
    w = check_sample_weight(sample_weight, len(y))
    return y, ss, pow2_normalise(w)  # exact: 1e-170 weights must not underflow


def delong_auc_variance(y_true: ArrayLike, y_score: ArrayLike, *, sample_weight: ArrayLike | None = None
                        ) -> tuple[float, float]:
    """The AUC (ties ½) and DeLong's estimate of its variance (docs/theory.md §2.3).

    ``var = S10/m + S01/n`` with the placement values ``V10_i`` (the share of negatives scored
    below positive i, ties ½) and ``V01_j`` (of positives above negative j), and
    ``S10 = Σ_i (V10_i − AUC)² / (m − 1)`` (DeLong, DeLong & Clarke-Pearson, Biometrics 1988).
    With ``sample_weight``, weighted placements and the linearisation (sandwich) variance, equal
    to DeLong's for unit weights. One sort: O(n log n). NaN (with a warning) when a class is
    empty; the variance is NaN when a class has a single row.

    >>> auc, var = delong_auc_variance([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> auc, round(var, 12)  # V10 = (0.5, 1), V01 = (1, 0.5): S10/2 + S01/2 = 0.125/2 + 0.125/2
    (0.75, 0.125)
    """
    y, (s,), w = _check_binary_scores(y_true, [("y_score", y_score)], sample_weight)
    theta, t = delong_terms(s, w * y, w * (1 - y))
    if not np.isfinite(theta):
        warnings.warn("AUC is undefined: y_true has only one class (with positive weight).",
                      UndefinedMetricWarning, stacklevel=2)
        return float("nan"), float("nan")
    return theta, float(t @ t)


def check_level(level: Any) -> float:
    """A confidence level: a real number strictly inside (0, 1)."""
    if (isinstance(level, bool) or not isinstance(level, float | int | np.floating | np.integer)
            or not 0 < level < 1):
        raise ValueError(f"The 'level' parameter must be a number in (0, 1), got {level!r}.")
    return float(level)


def delong_paired_test(y_true: ArrayLike, score_a: ArrayLike, score_b: ArrayLike, *, sample_weight: ArrayLike | None = None,
                       level: float = 0.95) -> dict[str, float]:
    """DeLong's paired test of ``AUC(a) = AUC(b)`` on the same rows (docs/theory.md §2.3).

    ``var(AUC_a − AUC_b) = var_a + var_b − 2 cov_ab`` from both scorers' placement values
    (:func:`delong_auc_variance`); returns ``auc_a``, ``auc_b``, ``diff``, ``se``, the Wald
    ``ci_low``/``ci_high`` at ``level``, ``z`` and the two-sided ``p_value`` (1 when identical).

    >>> r = delong_paired_test([0, 0, 1, 1, 0, 1], [1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6])
    >>> r["diff"], r["p_value"]
    (0.0, 1.0)
    """
    check_level(level)
    y, (sa, sb), w = _check_binary_scores(
        y_true, [("score_a", score_a), ("score_b", score_b)], sample_weight)
    ta, da = delong_terms(sa, w * y, w * (1 - y))
    tb, db = delong_terms(sb, w * y, w * (1 - y))
    if not np.isfinite(ta):
        warnings.warn("AUC is undefined: y_true has only one class (with positive weight).",
                      UndefinedMetricWarning, stacklevel=2)
    # a row is positive or negative, for both scorers alike: Σ (t_a − t_b)² is
    # var_a + var_b − 2 cov_ab
    return {"auc_a": ta, "auc_b": tb, "diff": ta - tb,
            **paired_z(ta - tb, float(np.sum((da - db) ** 2)), level)}


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's (1979) step-down adjusted p-values of one family of tests: with the m defined
    p-values sorted, ``p̃_(i) = max_{j ≤ i} min(1, (m − j + 1) p_(j))``; NaN p-values stay NaN
    and do not count in m. Rejecting where ``p̃ ≤ α`` keeps the family-wise error ≤ α."""
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    if ok.size:
        order = ok[np.argsort(p[ok], kind="stable")]
        m = len(order)
        adj = np.minimum(1.0, (m - np.arange(m)) * p[order])
        out[order] = np.maximum.accumulate(adj)
    return out.tolist()


def paired_z(diff: float, var: float, level: float) -> dict[str, float]:
    """se, Wald interval, z and two-sided normal p-value of a difference with variance var
    (identical rankings: se = 0, z = 0, p = 1)."""
    from scipy.stats import norm

    nan = float("nan")
    if not (np.isfinite(var) and np.isfinite(diff)):
        return {"se": nan, "ci_low": nan, "ci_high": nan, "z": nan, "p_value": nan}
    se = math.sqrt(max(var, 0.0))
    lo, hi = wald(diff, se, level, -1.0)
    if se <= 1e-15:
        z, p = (0.0, 1.0) if abs(diff) <= 1e-15 else (math.copysign(math.inf, diff), 0.0)
    else:
        z, p = diff / se, float(2 * norm.sf(abs(diff / se)))
    return {"se": se, "ci_low": lo, "ci_high": hi, "z": z, "p_value": p}

