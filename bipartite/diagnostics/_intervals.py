"""The one home of the report's interval maths (docs/coverage.md, docs/theory.md §2.6):
Wald (``est ± z se``) and Student-t (``est ± t_{G−1} se``) on a standard error — analytic
(DeLong clustered by query, the delta method: :mod:`bipartite.diagnostics._placement_sums`,
:mod:`bipartite.diagnostics._inference`) or from bootstrap replicates — and percentile and BCa
(bias-corrected and accelerated, the acceleration from the leave-one-unit-out jackknife) on the
replicates; the choice among the methods (``interval``, per configuration: analytic with
``n_boot=0``, bootstrap with ``n_boot > 0``) and the measured coverage behind ``"auto"`` and the
few-queries warning.

Every function here is pure: it takes standard errors or replicates computed elsewhere
(:mod:`bipartite.diagnostics._diagnose`) and returns numbers.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

__all__ = ["AUTO_INTERVAL", "BOOTSTRAP_ONLY", "COVERAGE_TARGET", "INTERVAL_METHODS",
           "MEASURED_COVERAGE", "acceleration", "bca", "bias_correction", "check_interval",
           "configuration", "interval", "jackknife_se", "min_queries", "percentile",
           "queries_needed", "student_t", "t_p_value", "wald", "z_value"]

#: The interval methods of :func:`bipartite.diagnostics.diagnose` (``interval=``, ``--interval``).
INTERVAL_METHODS = ("auto", "wald", "t", "percentile", "bca")
#: The methods that read bootstrap replicates, not a standard error: they need ``n_boot > 0``.
BOOTSTRAP_ONLY = ("percentile", "bca")

#: Nominal-coverage target of the few-queries warning: the report warns when the number of
#: queries is below the smallest measured size from which on the chosen method covers at least
#: this at every measured size.
COVERAGE_TARGET = 0.93

#: Measured coverage of the nominal 95% intervals with query ids, per configuration
#: ``"analytic/<method>"`` (``n_boot=0``: DeLong clustered by query and the delta method) and
#: ``"bootstrap/<method>"`` (``n_boot > 0``: the query bootstrap) → {queries: the lowest
#: coverage over every quantity the report gives an interval for (per-label AUC and gAUC,
#: W_{k>j}, Min and Diff AUC, the paired AUC and gAUC differences)}. Measured by
#: ``python simulations/report_coverage.py`` (1 500, 1 500, 600 and 300 replications at 5, 12,
#: 40 and 200 queries, B = 1000; Monte-Carlo standard errors 0.2 to 1.5 points; the whole
#: table, configuration × queries × quantity, is docs/coverage.md's).
#: Rerun it and paste the ``min_coverage`` lines it prints when the intervals change (a test
#: checks the two agree).
MEASURED_COVERAGE: dict[str, dict[int, float]] = {
    "analytic/wald": {5: 0.833, 12: 0.892, 40: 0.923, 200: 0.935},
    "analytic/t": {5: 0.922, 12: 0.926, 40: 0.931, 200: 0.938},
    "bootstrap/wald": {5: 0.856, 12: 0.898, 40: 0.907, 200: 0.920},
    "bootstrap/t": {5: 0.937, 12: 0.930, 40: 0.926, 200: 0.922},
    "bootstrap/percentile": {5: 0.818, 12: 0.891, 40: 0.921, 200: 0.928},
    "bootstrap/bca": {5: 0.794, 12: 0.824, 40: 0.837, 200: 0.930},
}

#: What ``interval="auto"`` means, per configuration (``n_boot == 0``: "analytic", else
#: "bootstrap"): the method whose measured coverage (above) is closest to nominal, on average
#: over the measured numbers of queries.
AUTO_INTERVAL = {"analytic": "t", "bootstrap": "t"}


def configuration(n_boot: int) -> str:
    """``"analytic"`` (``n_boot == 0``) or ``"bootstrap"``: the key of :data:`AUTO_INTERVAL`
    and the prefix of :data:`MEASURED_COVERAGE`."""
    return "bootstrap" if n_boot else "analytic"


def check_interval(interval: Any, n_boot: int = 0) -> str:
    """The interval method ``interval`` names, with ``"auto"`` resolved for ``n_boot``
    (:data:`AUTO_INTERVAL`); a ``ValueError`` naming the argument and the value otherwise, and
    naming ``n_boot`` too when a method that reads bootstrap replicates (percentile, BCa) is
    asked for without them."""
    if not isinstance(interval, str) or interval not in INTERVAL_METHODS:
        raise ValueError(f"The 'interval' parameter (--interval) must be one of "
                         f"{', '.join(map(repr, INTERVAL_METHODS))}, got {interval!r}.")
    if interval in BOOTSTRAP_ONLY and not n_boot:
        raise ValueError(f"The 'interval' parameter (--interval) = {interval!r} reads bootstrap "
                         f"replicates: it needs 'n_boot' (--n-boot) > 0, got n_boot={n_boot!r} "
                         "(with n_boot=0 the intervals are analytic: 'wald', 't' or 'auto').")
    return AUTO_INTERVAL[configuration(n_boot)] if interval == "auto" else interval


def min_queries(method: str, n_boot: int = 0, target: float = COVERAGE_TARGET) -> float:
    """The smallest measured number of queries from which on ``method`` (resolved, in the
    configuration of ``n_boot``) covers at least ``target`` at every measured size
    (:data:`MEASURED_COVERAGE`; coverage need not grow with the queries: the t quantile of 4
    degrees of freedom over-corrects at 5 queries); ``inf`` when the largest measured size falls
    short."""
    need = math.inf
    for g, c in sorted(MEASURED_COVERAGE[f"{configuration(n_boot)}/{method}"].items(),
                       reverse=True):
        if c < target:
            break
        need = float(g)
    return need


def queries_needed(method: str, queries: int, n_boot: int = 0) -> float | None:
    """The simulated number of queries ``method`` needs to cover :data:`COVERAGE_TARGET`
    (:func:`min_queries`, ``inf`` when no simulated size did) when ``queries`` is below it, else
    None. Past the largest simulated size nothing is known, so nothing is claimed: None."""
    need = min_queries(method, n_boot)
    largest = max(MEASURED_COVERAGE[f"{configuration(n_boot)}/{method}"])
    if queries >= need or (math.isinf(need) and queries > largest):
        return None
    return need


@functools.lru_cache(maxsize=64)
def z_value(level: float) -> float:
    """The two-sided normal quantile ``Φ⁻¹(½ + level/2)`` of a confidence level (cached: the
    report asks for it once per interval, 15 000 times at K = 174)."""
    from scipy.special import ndtri

    return float(ndtri(0.5 + level / 2))


def wald(est: float, se: float, level: float, lo: float = 0.0, hi: float = 1.0
         ) -> tuple[float, float]:
    """``est ± z se`` with ``z = Φ⁻¹(½ + level/2)``, clipped to [lo, hi]; NaN when est or se
    is not finite."""
    if not (np.isfinite(est) and np.isfinite(se)):
        return math.nan, math.nan
    z = z_value(level)
    return max(lo, est - z * se), min(hi, est + z * se)


def student_t(est: float, se: float, df: float, level: float, lo: float = 0.0,
              hi: float = 1.0) -> tuple[float, float]:
    """``est ± t_{df} se`` with the Student-t quantile of ``df`` degrees of freedom (G − 1 for
    G queries: the small-sample interval of a clustered mean), clipped to [lo, hi]; NaN when est
    or se is not finite or df < 1."""
    if not (np.isfinite(est) and np.isfinite(se)) or not df >= 1:
        return math.nan, math.nan
    q = _t_quantile(level, float(df))
    return max(lo, est - q * se), min(hi, est + q * se)


@functools.lru_cache(maxsize=256)
def _t_quantile(level: float, df: float) -> float:
    from scipy.stats import t

    return float(t.ppf(0.5 + level / 2, df))


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


def interval(method: str, est: float, se: float, df: float, level: float,
             reps: np.ndarray | None = None, jack: np.ndarray | None = None,
             lo: float = 0.0, hi: float = 1.0) -> tuple[float, float]:
    """The interval of one estimate by ``method`` (resolved, not ``"auto"``): Wald or Student-t
    (``df`` degrees of freedom) on the standard error ``se`` (analytic or bootstrap), percentile
    or BCa on the bootstrap replicates ``reps`` (BCa's acceleration from the jackknife ``jack``);
    Wald and t are clipped to [lo, hi]."""
    if method == "wald":
        return wald(est, se, level, lo, hi)
    if method == "t":
        return student_t(est, se, df, level, lo, hi)
    if method in BOOTSTRAP_ONLY and reps is None:
        raise ValueError(f"The 'interval' method {method!r} needs bootstrap replicates.")
    if method == "percentile":
        return percentile(reps, level) if np.isfinite(est) else (math.nan, math.nan)
    if method == "bca":
        return bca(est, reps, np.full(2, np.nan) if jack is None else jack, level)
    raise ValueError(f"The 'interval' parameter must be a resolved method, got {method!r}.")
