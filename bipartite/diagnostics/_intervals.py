"""Confidence intervals of the report from bootstrap and jackknife replicates (docs/coverage.md):
Wald (``est ± z se``), Student-t (``est ± t_{G−1} se``), percentile and BCa (bias-corrected
and accelerated, the acceleration from the leave-one-unit-out jackknife), the leave-one-row-out
AUCs that give the jackknife without query ids, the choice among the methods (``interval``) and
the measured coverage behind ``"auto"`` and the few-queries warning.

Every function here is pure: it takes replicates computed elsewhere
(:mod:`bipartite.diagnostics._diagnose`) and returns numbers.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["AUTO_INTERVAL", "COVERAGE_TARGET", "INTERVAL_METHODS", "MEASURED_COVERAGE",
           "acceleration", "bca", "bias_correction", "boot_interval", "check_interval",
           "jackknife_se", "loo_auc", "min_queries", "percentile", "queries_needed", "student_t", "t_p_value",
           "wald"]

#: The interval methods of :func:`bipartite.diagnostics.diagnose` (``interval=``, ``--interval``).
INTERVAL_METHODS = ("auto", "wald", "t", "percentile", "bca")

#: Nominal-coverage target of the few-queries warning: the report warns when the number of
#: queries is below the smallest measured size at which the chosen method covers at least this.
COVERAGE_TARGET = 0.93

#: Measured coverage of the nominal 95% intervals with query ids: method → {queries: the lowest
#: coverage over every quantity the report gives an interval for (per-label AUC and gAUC,
#: W_{k>j}, Min and Diff AUC, the paired AUC and gAUC differences)}. Measured by
#: ``python simulations/report_coverage.py`` (the full size: 500, 500, 250 and 60 replications
#: at 5, 12, 40 and 200 queries, B = 500; Monte-Carlo standard errors 0.5 to 3 points); the
#: whole table, method × queries × quantity, is docs/coverage.md's. Rerun it and paste the
#: ``min_coverage`` lines it prints when the intervals change (a test checks the two agree).
MEASURED_COVERAGE: dict[str, dict[int, float]] = {
    "wald": {5: 0.864, 12: 0.891, 40: 0.916, 200: 0.925},
    "t": {5: 0.939, 12: 0.917, 40: 0.928, 200: 0.933},
    "percentile": {5: 0.823, 12: 0.883, 40: 0.906, 200: 0.917},
    "bca": {5: 0.799, 12: 0.828, 40: 0.842, 200: 0.908},
}

#: What ``interval="auto"`` means: the method whose measured coverage (above) is closest to
#: nominal at few queries.
AUTO_INTERVAL = "t"


def check_interval(interval: Any) -> str:
    """The interval method ``interval`` names, with ``"auto"`` resolved (:data:`AUTO_INTERVAL`);
    a ``ValueError`` naming the argument and the value otherwise."""
    if not isinstance(interval, str) or interval not in INTERVAL_METHODS:
        raise ValueError(f"The 'interval' parameter (--interval) must be one of "
                         f"{', '.join(map(repr, INTERVAL_METHODS))}, got {interval!r}.")
    return AUTO_INTERVAL if interval == "auto" else interval


def min_queries(method: str, target: float = COVERAGE_TARGET) -> float:
    """The smallest measured number of queries from which on ``method`` covers at least
    ``target`` at every measured size (:data:`MEASURED_COVERAGE`; coverage need not grow with
    the queries: the t quantile of 4 degrees of freedom over-corrects at 5 queries); ``inf``
    when the largest measured size falls short."""
    need = math.inf
    for g, c in sorted(MEASURED_COVERAGE[method].items(), reverse=True):
        if c < target:
            break
        need = float(g)
    return need


def queries_needed(method: str, queries: int) -> float | None:
    """The simulated number of queries ``method`` needs to cover :data:`COVERAGE_TARGET`
    (:func:`min_queries`, ``inf`` when no simulated size did) when ``queries`` is below it, else
    None. Past the largest simulated size nothing is known, so nothing is claimed: None."""
    need = min_queries(method)
    if queries >= need or (math.isinf(need) and queries > max(MEASURED_COVERAGE[method])):
        return None
    return need


def _q(level: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(0.5 + level / 2))


def wald(est: float, se: float, level: float, lo: float = 0.0, hi: float = 1.0
         ) -> tuple[float, float]:
    """``est ± z se`` with ``z = Φ⁻¹(½ + level/2)``, clipped to [lo, hi]; NaN when est or se
    is not finite."""
    if not (np.isfinite(est) and np.isfinite(se)):
        return math.nan, math.nan
    z = _q(level)
    return max(lo, est - z * se), min(hi, est + z * se)


def student_t(est: float, se: float, df: float, level: float, lo: float = 0.0,
              hi: float = 1.0) -> tuple[float, float]:
    """``est ± t_{df} se`` with the Student-t quantile of ``df`` degrees of freedom (G − 1 for
    G resampled queries: the small-sample interval of a clustered mean), clipped to [lo, hi];
    NaN when est or se is not finite or df < 1."""
    from scipy.stats import t

    if not (np.isfinite(est) and np.isfinite(se)) or not df >= 1:
        return math.nan, math.nan
    q = float(t.ppf(0.5 + level / 2, df))
    return max(lo, est - q * se), min(hi, est + q * se)


def t_p_value(z: float, df: float) -> float:
    """Two-sided p-value ``2 P(T_df > |z|)`` of a t statistic (the test that matches
    :func:`student_t`); 1 at z = 0, NaN when z is NaN or df < 1."""
    from scipy.stats import t

    if np.isnan(z) or not df >= 1:
        return math.nan
    return float(2 * t.sf(abs(z), df))


def percentile(reps: np.ndarray, level: float) -> tuple[float, float]:
    """The ``(1 − level)/2`` and ``(1 + level)/2`` quantiles of the finite replicates (linear
    interpolation, as ``np.quantile`` and ``scipy.stats.bootstrap``); NaN with fewer than two."""
    ok = np.asarray(reps, dtype=np.float64)
    ok = ok[np.isfinite(ok)]
    if len(ok) < 2:
        return math.nan, math.nan
    lo, hi = np.quantile(ok, [0.5 - level / 2, 0.5 + level / 2])
    return float(lo), float(hi)


def bias_correction(est: float, reps: np.ndarray) -> float:
    """BCa's ``z0 = Φ⁻¹(p)``, ``p`` the share of finite replicates below ``est`` (ties ½, as
    ``scipy.stats.bootstrap``); ±inf when every replicate is on one side."""
    from scipy.special import ndtri

    ok = np.asarray(reps, dtype=np.float64)
    ok = ok[np.isfinite(ok)]
    p = (np.count_nonzero(ok < est) + np.count_nonzero(ok <= est)) / (2 * len(ok))
    return float(ndtri(p))


def acceleration(jack: np.ndarray) -> float:
    """BCa's acceleration from the jackknife values ``θ_(i)`` (the estimate without unit i):
    ``a = Σ d_i³ / (6 (Σ d_i²)^{3/2})`` with ``d_i = θ̄ − θ_(i)`` (Efron & Tibshirani 1993,
    Eq. 14.15), over the finite values; 0 when they are all equal (no skewness to correct),
    NaN with fewer than two."""
    j = np.asarray(jack, dtype=np.float64)
    j = j[np.isfinite(j)]
    if len(j) < 2:
        return math.nan
    d = j.mean() - j
    den = float(np.sum(d * d))
    return 0.0 if den <= 0 else float(np.sum(d ** 3) / (6 * den ** 1.5))


def jackknife_se(jack: np.ndarray) -> float:
    """The jackknife standard error ``√((m − 1)/m Σ (θ_(i) − θ̄)²)`` of m finite jackknife
    values; NaN with fewer than two."""
    j = np.asarray(jack, dtype=np.float64)
    j = j[np.isfinite(j)]
    m = len(j)
    return math.sqrt((m - 1) / m * float(np.sum((j - j.mean()) ** 2))) if m > 1 else math.nan


def bca(est: float, reps: np.ndarray, jack: np.ndarray, level: float) -> tuple[float, float]:
    """The BCa interval (Efron 1987; Efron & Tibshirani 1993, §14.3): the replicates' quantiles
    at ``Φ(z0 + (z0 + z_α)/(1 − a (z0 + z_α)))`` for ``z_α = Φ⁻¹((1 ∓ level)/2)``, with ``z0``
    from :func:`bias_correction` and ``a`` from :func:`acceleration` of the leave-one-unit-out
    jackknife ``jack``. Equal to ``scipy.stats.bootstrap(..., method="BCa")`` given the same
    replicates and jackknife. NaN when the estimate, ``z0`` or ``a`` is not finite (every
    replicate on one side of the estimate, fewer than two jackknife values)."""
    from scipy.special import ndtr, ndtri

    ok = np.asarray(reps, dtype=np.float64)
    ok = ok[np.isfinite(ok)]
    if len(ok) < 2 or not np.isfinite(est):
        return math.nan, math.nan
    z0, a = bias_correction(est, ok), acceleration(jack)
    if not (np.isfinite(z0) and np.isfinite(a)):
        return math.nan, math.nan
    out = []
    for alpha in (0.5 - level / 2, 0.5 + level / 2):
        za = float(ndtri(alpha))
        out.append(float(np.quantile(ok, float(ndtr(z0 + (z0 + za) / (1 - a * (z0 + za)))))))
    return out[0], out[1]


def boot_interval(method: str, est: float, reps: np.ndarray, jack: np.ndarray | None,
                  se: float, units: int, level: float, lo: float = 0.0, hi: float = 1.0
                  ) -> tuple[float, float]:
    """The interval of one estimate by ``method`` (resolved, not ``"auto"``): Wald or Student-t
    (``units − 1`` degrees of freedom) on the bootstrap standard error ``se``, percentile or BCa
    on the replicates ``reps`` (BCa's acceleration from the jackknife ``jack``)."""
    if method == "wald":
        return wald(est, se, level, lo, hi)
    if method == "t":
        return student_t(est, se, units - 1, level, lo, hi)
    if method == "percentile":
        return percentile(reps, level) if np.isfinite(est) else (math.nan, math.nan)
    if method == "bca":
        return bca(est, reps, np.full(2, np.nan) if jack is None else jack, level)
    raise ValueError(f"The 'interval' parameter must be a resolved method, got {method!r}.")


def loo_auc(pos: np.ndarray, neg: np.ndarray, below: np.ndarray, above: np.ndarray
            ) -> np.ndarray:
    """The AUC with each row left out in turn (n,), from DeLong's placements of the full sample
    (``below``: the negative mass under each row, ``above``: the positive mass over it, ties ½;
    :meth:`bipartite.metrics.QuerySegments.placements`) and the rows' positive and negative
    weights: ``θ_(r) = (Σ pos·below − pos_r below_r − neg_r above_r) / ((P − pos_r)(N − neg_r))``
    (a 0/1 label puts each row on one side only). NaN where a class loses all its weight."""
    pos, neg = np.asarray(pos, dtype=np.float64), np.asarray(neg, dtype=np.float64)
    num = float(np.sum(pos * below))
    P, N = pos.sum(), neg.sum()
    den = (P - pos) * (N - neg)
    return np.divide(num - pos * below - neg * above, den, out=np.full(len(pos), np.nan),
                     where=den > 0)
