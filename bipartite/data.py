"""Datasets: the synthetic multi-label problem with exact η, Banking, LETOR/MSLR (THEORY §10).

Every loader returns a :class:`sklearn.utils.Bunch`.

* :func:`make_synthetic` / :func:`synthetic_model` — x uniform on the box ``[-1, 1]^d``,
  ``η_k(x) = σ(β(⟨u_k, x⟩ − t_k))``, thresholds ``t_k`` solved so that ``π_k = E[η_k(X)]`` hits the
  target priors, labels coupled by a Gaussian copula with correlation ``ρ``
  (:func:`bipartite.population.gaussian_copula_joint`). The exact ``η``, joint and ``π`` come with
  every sample, and :meth:`SyntheticModel.finite_problem` turns any test set into a
  :class:`bipartite.population.FiniteProblem` on which the Bayes scorers of THEORY §4/§5 are exact.
* :func:`load_banking` — the Bank Personal Loan data (LA25 §7).
* :func:`load_letor` / :func:`load_letor_query` — LETOR/SVMlight files (MSLR-WEB, LETOR 4.0
  MQ2008, LightGBM-style files with a ``.query`` group file), labels ``Y_rel = 1[rel ≥ r]`` and a
  click label, either from the MSLR click features 134–136 or simulated by the position-based
  click model of :func:`simulate_clicks`.
* :func:`make_mslr_like` — writes an MSLR-shaped LETOR file (136 features, graded relevance 0–4,
  click features 134–136 correlated with relevance) for readiness tests at MSLR scale.

Parsing notes. SVMlight features are 1-based (``zero_based=False``), so column ``j`` of ``X`` holds
LETOR feature ``j + 1`` and ``feature_names[j]`` says which (``"f134"``). The feature matrix is
parsed by :func:`sklearn.datasets.load_svmlight_file` with ``query_id=False``; the ``qid:`` column
is read by a separate line scan, because sklearn's ``query_id=True`` grows its qid array with
``np.append`` once per line (quadratic: 200k lines take ~12 s, MSLR-size files would take hours).
The line scan also records the line number of every data row, so that bad values found after
parsing are reported as ``file:line``.
"""

from __future__ import annotations

import bz2
import csv
import functools
import gzip
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy import optimize, special
from sklearn.utils import Bunch

from bipartite._validation import (
    check_array,
    check_option,
    check_random_state,
)

__all__ = [
    "SyntheticModel",
    "synthetic_model",
    "make_synthetic",
    "load_banking",
    "load_letor",
    "load_letor_query",
    "simulate_clicks",
    "make_mslr_like",
    "LETOR_SOURCES",
]

# ================================================================================================
# Synthetic data (THEORY §10)
# ================================================================================================

#: Box on which x is uniform: ``[_LOW, _HIGH]^d``.
_LOW, _HIGH = -1.0, 1.0
#: Fixed seed of the directions for d > 2 (never the sampling seed: the problem is a function of
#: (priors, beta, rho, dim) only).
_DIRECTION_SEED = 20251122
#: Gauss-Legendre nodes per panel and the number of uniform panels of the d = 2 rule.
_GL_NODES = 20
_GL_PANELS = 64
#: log2 of the number of scrambled-Sobol points of the d >= 3 rule.
_QMC_LOG2 = 16


def _directions(K: int, d: int) -> np.ndarray:
    """Unit directions ``u_k`` (K, d) of the synthetic problem (THEORY §10).

    d = 1: every ``u_k = +1`` (nested thresholds on one axis). d = 2: evenly spread angles
    ``θ_k = π k / K`` (K = 2 gives the two coordinate axes). d > 2: i.i.d. standard normal vectors,
    normalised, from a Generator seeded with ``(_DIRECTION_SEED, K, d)`` — fixed, independent of
    any sampling seed.
    """
    if d == 1:
        return np.ones((K, 1))
    if d == 2:
        theta = np.pi * np.arange(K) / K
        return np.column_stack([np.cos(theta), np.sin(theta)])
    G = np.random.default_rng([_DIRECTION_SEED, K, d]).standard_normal((K, d))
    return G / np.linalg.norm(G, axis=1, keepdims=True)


def _sigmoid_mean_1d(c: np.ndarray, a: float, beta: float) -> np.ndarray:
    """``E_{x ~ U[-1,1]} σ(β (a x + c))`` for ``a > 0``, in closed form (vectorised in ``c``).

    ``∫_{-1}^{1} σ(β(a x + c)) dx = [softplus(β(c + a)) − softplus(β(c − a))] / (β a)``; softplus
    via ``logaddexp(0, ·)`` (stable for large arguments). ``β = ∞``: the step function, whose mean
    is ``clip((c + a) / (2a), 0, 1)``.
    """
    if np.isinf(beta):
        return np.clip((c + a) / (2.0 * a), 0.0, 1.0)
    return (np.logaddexp(0.0, beta * (c + a)) - np.logaddexp(0.0, beta * (c - a))) / (2 * beta * a)


def _gauss_legendre_panels(breaks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Composite Gauss-Legendre nodes/weights on [-1, 1] with the given sorted breakpoints;
    weights sum to 1 (a mean over U[-1, 1])."""
    x0, w0 = np.polynomial.legendre.leggauss(_GL_NODES)
    lo, hi = breaks[:-1], breaks[1:]
    half = (hi - lo) / 2.0
    nodes = ((lo + hi) / 2.0)[:, None] + half[:, None] * x0[None, :]
    weights = half[:, None] * w0[None, :] / 2.0
    return nodes.ravel(), weights.ravel()


def _prior_of_threshold(t: float, u: np.ndarray, beta: float, *, fine: bool = True) -> float:
    """``π(t) = E[σ(β(⟨u, X⟩ − t))]`` for X uniform on ``[-1, 1]^d`` (THEORY §10).

    The coordinate with the largest ``|u_j|`` is integrated in closed form
    (:func:`_sigmoid_mean_1d`); the remaining ``d − 1`` coordinates by
    d = 1: nothing left (exact);
    d = 2: composite Gauss-Legendre (``_GL_NODES`` per panel) on uniform panels plus breakpoints at
    the kinks ``u_r x_r − t = ±|a|`` and at geometric offsets ``2^k / (β |u_r|)`` around them
    (``fine=False`` halves the uniform panels: used for the error estimate);
    d ≥ 3: ``2^16`` scrambled Sobol points with a fixed seed (``fine=False``: another scramble).
    """
    j = int(np.argmax(np.abs(u)))
    a = float(abs(u[j]))
    rest = np.delete(u, j)
    d = len(u)
    if d == 1:
        return float(_sigmoid_mean_1d(np.array([-t]), a, beta)[0])
    if d == 2:
        ur = float(rest[0])
        n_panels = _GL_PANELS if fine else _GL_PANELS // 2
        breaks = [np.linspace(_LOW, _HIGH, n_panels + 1)]
        if ur != 0.0:
            kinks = np.array([(t + a) / ur, (t - a) / ur])
            offsets = [0.0]
            if np.isfinite(beta):
                scale = 1.0 / (beta * abs(ur))
                offsets += [s * scale * 2.0**k for k in range(-2, 6) for s in (-1.0, 1.0)]
            breaks.append((kinks[:, None] + np.array(offsets)[None, :]).ravel())
        b = np.unique(np.clip(np.concatenate(breaks), _LOW, _HIGH))
        nodes, weights = _gauss_legendre_panels(b)
        return float(weights @ _sigmoid_mean_1d(ur * nodes - t, a, beta))
    from scipy.stats import qmc

    pts = qmc.Sobol(d - 1, scramble=True, seed=0 if fine else 1).random_base2(_QMC_LOG2)
    pts = _LOW + (_HIGH - _LOW) * pts
    return float(np.mean(_sigmoid_mean_1d(pts @ rest - t, a, beta)))


def _solve_threshold(target: float, u: np.ndarray, beta: float) -> float:
    """``t`` with ``π(t) = target`` by Brent's method; π is decreasing in t."""
    span = float(np.abs(u).sum())
    lo, hi = -span - 1.0, span + 1.0

    def f(t: float) -> float:
        return _prior_of_threshold(t, u, beta) - target

    # Finite β: π(t) is in (0, 1) for every t, so widen the bracket until it changes sign.
    for _ in range(200):
        if f(lo) > 0:
            break
        lo -= 2.0 * (hi - lo)
    for _ in range(200):
        if f(hi) < 0:
            break
        hi += 2.0 * (hi - lo)
    return float(optimize.brentq(f, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps, maxiter=500))


@dataclass(frozen=True, eq=False)
class SyntheticModel:
    """The synthetic multi-label problem of THEORY §10 (exact η, joint and π).

    ``X`` is uniform on ``[-1, 1]^dim``; ``η_k(x) = σ(β(⟨u_k, x⟩ − t_k))`` with unit directions
    ``u_k`` (see ``directions``) and thresholds ``t_k`` solved numerically so that
    ``π_k = E[η_k(X)]`` equals the target prior; the labels are coupled, given x, by a Gaussian
    copula with (equi)correlation ``ρ`` (:func:`bipartite.population.gaussian_copula_joint`).
    Build it with :func:`synthetic_model` (cached); the problem depends on
    ``(priors, beta, rho, dim)`` only — the sampling seed never changes ``η``.

    Attributes
    ----------
    priors : tuple of float, the target priors (K,).
    beta, rho : float; dim : int.
    directions : ndarray (K, dim) unit vectors ``u_k``.
    thresholds : ndarray (K,) ``t_k``.
    pi : ndarray (K,) population priors ``E[η_k(X)]`` under the quadrature rule (equal to the
        targets up to ``prior_error``).
    prior_error : float, ``max_k |π_k − target_k|`` (the root-finding accuracy).
    quadrature_error : float, ``max_k`` of the difference between the quadrature rule and a
        coarser/independent one at ``t_k`` (an estimate of the integration error).

    >>> m = synthetic_model(priors=(0.3, 0.6), beta=8.0)
    >>> m.pi.round(6).tolist(), m.prior_error < 1e-10
    ([0.3, 0.6], True)
    >>> m.eta([[0.0, 0.0]]).round(3).tolist()
    [[0.039, 0.832]]
    """

    priors: tuple[float, ...]
    beta: float
    rho: float
    dim: int
    directions: np.ndarray = field(repr=False)
    thresholds: np.ndarray = field(repr=False)
    pi: np.ndarray = field(repr=False)
    prior_error: float = field(repr=False)
    quadrature_error: float = field(repr=False)

    @property
    def K(self) -> int:
        return len(self.priors)

    @property
    def feature_names(self) -> list[str]:
        return [f"x{j + 1}" for j in range(self.dim)]

    @property
    def label_names(self) -> list[str]:
        return [f"y{k + 1}" for k in range(self.K)]

    def _check_X(self, X: Any) -> np.ndarray:
        A = check_array(X, "X", ndim=2)
        if A.shape[1] != self.dim:
            raise ValueError(
                f"The 'X' parameter must have {self.dim} columns (dim), got shape {A.shape}."
            )
        return A

    def eta(self, X: Any) -> np.ndarray:
        """``η_k(x) = σ(β(⟨u_k, x⟩ − t_k))`` (THEORY §10), shape (n, K); β = ∞ gives
        ``1[⟨u_k, x⟩ > t_k]``."""
        A = self._check_X(X)
        s = A @ self.directions.T - self.thresholds[None, :]
        if np.isinf(self.beta):
            return (s > 0).astype(np.float64)
        return special.expit(self.beta * s)

    def joint(self, X: Any) -> np.ndarray:
        """``P(Y = v_m | x)`` (n, 2**K), rows over ``itertools.product([0, 1], repeat=K)``
        (THEORY §1): the Gaussian copula of ``η(x)`` with correlation ``rho``. With β = ∞ the
        labels are deterministic given x and every copula gives the same joint."""
        from bipartite.population import gaussian_copula_joint, independent_joint

        E = self.eta(X)
        if np.isinf(self.beta):
            return independent_joint(E)
        return gaussian_copula_joint(E, self.rho)

    def sample(self, n: int, seed: Any = 0) -> Bunch:
        """Draw ``n`` i.i.d. pairs ``(X, Y)``; returns the Bunch of :func:`make_synthetic`.

        The Generator from ``seed`` draws ``X`` first (uniform on the box), then one uniform per
        row that picks the label vector from the exact joint (inverse CDF over the ``2**K``
        vectors).
        """
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"The 'n' parameter must be a positive integer, got {n!r}.")
        rng = check_random_state(seed)
        X = rng.uniform(_LOW, _HIGH, size=(int(n), self.dim))
        eta = self.eta(X)
        joint = self.joint(X)
        Y = _draw_label_vectors(joint, self.K, rng)
        return Bunch(
            X=X,
            Y=Y,
            eta=eta,
            joint=joint,
            pi=self.pi.copy(),
            model=self,
            feature_names=self.feature_names,
            label_names=self.label_names,
        )

    def finite_problem(self, X: Any):
        """The :class:`~bipartite.population.FiniteProblem` with uniform mass on the rows of ``X``
        and ``label_probs = joint(X)``: the empirical distribution of x with the exact conditional
        joint, on which the Bayes scorers of THEORY §4/§5 are exact."""
        from bipartite.population import FiniteProblem

        Q = self.joint(X)
        return FiniteProblem(np.full(len(Q), 1.0 / len(Q)), Q)


def _draw_label_vectors(joint: np.ndarray, K: int, rng: np.random.Generator) -> np.ndarray:
    """One label vector per row from the categorical ``joint`` (n, 2**K) by inverse CDF; the
    returned (n, K) int64 rows follow ``itertools.product([0, 1], repeat=K)`` (bit k of the
    category index, most significant first)."""
    cdf = np.cumsum(joint, axis=1)
    u = rng.random(len(joint))[:, None] * cdf[:, -1:]
    m = np.minimum((u >= cdf).sum(axis=1), joint.shape[1] - 1)
    shifts = np.arange(K - 1, -1, -1)
    return ((m[:, None] >> shifts[None, :]) & 1).astype(np.int64)


@functools.lru_cache(maxsize=64)
def _build_model(priors: tuple[float, ...], beta: float, rho: float, dim: int) -> SyntheticModel:
    K = len(priors)
    U = _directions(K, dim)
    t = np.array([_solve_threshold(p, U[k], beta) for k, p in enumerate(priors)])
    pi = np.array([_prior_of_threshold(t[k], U[k], beta) for k in range(K)])
    coarse = np.array([_prior_of_threshold(t[k], U[k], beta, fine=False) for k in range(K)])
    for arr in (U, t, pi):
        arr.setflags(write=False)
    return SyntheticModel(
        priors=priors,
        beta=beta,
        rho=rho,
        dim=dim,
        directions=U,
        thresholds=t,
        pi=pi,
        prior_error=float(np.max(np.abs(pi - np.asarray(priors)))),
        quadrature_error=float(np.max(np.abs(pi - coarse))),
    )


def synthetic_model(
    *, priors: Sequence[float] = (0.5, 0.5), beta: float = 8.0, rho: float = 0.0, dim: int = 2
) -> SyntheticModel:
    """The :class:`SyntheticModel` for ``(priors, beta, rho, dim)`` (THEORY §10); cached.

    Parameters
    ----------
    priors : sequence of K floats in (0, 1), the target ``π_k``.
    beta : float > 0 or ``numpy.inf``, sharpness (``inf``: deterministic labels).
    rho : float in [−1, 1], copula correlation; for K > 2 the equicorrelation matrix must be
        positive semi-definite, i.e. ``rho ≥ −1/(K − 1)``.
    dim : int ≥ 1, dimension of x.

    >>> synthetic_model(priors=(0.2,), beta=4.0, dim=1).thresholds.round(4).tolist()
    [0.656]
    """
    p = check_array(priors, "priors", ndim=1)
    bad = (p <= 0) | (p >= 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"The 'priors' parameter must hold values strictly between 0 and 1, "
            f"got {p[i]:g} at index {i}."
        )
    K = len(p)
    b = _check_real(beta, "beta")
    if not b > 0:
        raise ValueError(f"The 'beta' parameter must be positive (or inf), got {beta!r}.")
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim < 1:
        raise ValueError(f"The 'dim' parameter must be a positive integer, got {dim!r}.")
    r = _check_real(rho, "rho")
    if not -1.0 <= r <= 1.0:
        raise ValueError(f"The 'rho' parameter must lie in [-1, 1], got {rho!r}.")
    if K > 2 and r < -1.0 / (K - 1):
        raise ValueError(
            f"The 'rho' parameter must be >= -1/(K-1) = {-1.0 / (K - 1):.6g} for K={K} labels "
            f"(else the equicorrelation matrix is not positive semi-definite), got {rho!r}."
        )
    R = np.full((K, K), r)
    np.fill_diagonal(R, 1.0)
    if np.linalg.eigvalsh(R).min() < -1e-12:
        raise ValueError(
            f"The 'rho' parameter gives a correlation matrix that is not positive semi-definite "
            f"(K={K}, rho={rho!r})."
        )
    return _build_model(tuple(float(x) for x in p), b, r, int(dim))


def _check_real(value: Any, name: str) -> float:
    """A real number (not bool, not NaN); inf allowed (callers decide)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"The '{name}' parameter must be a real number, got {value!r}.")
    v = float(value)
    if math.isnan(v):
        raise ValueError(f"The '{name}' parameter must not be NaN, got {value!r}.")
    return v


def make_synthetic(
    n: int,
    *,
    priors: Sequence[float] = (0.5, 0.5),
    beta: float = 8.0,
    rho: float = 0.0,
    dim: int = 2,
    seed: Any = 0,
) -> Bunch:
    """Sample the synthetic multi-label problem of THEORY §10 with its exact η, joint and π.

    x is uniform on ``[-1, 1]^dim``; ``η_k(x) = σ(β(⟨u_k, x⟩ − t_k))`` with the directions of
    :class:`SyntheticModel` (d = 2: angles ``π k / K``) and thresholds solved so that
    ``E[η_k(X)] = priors[k]``; given x the labels follow the Gaussian copula with correlation
    ``rho``. ``seed`` only drives sampling: two calls with different seeds share the same problem.

    Returns
    -------
    Bunch with ``X`` (n, dim) float64, ``Y`` (n, K) int64, ``eta`` (n, K) exact ``η(X)``,
    ``joint`` (n, 2**K) exact ``P(Y = v_m | X)`` over ``itertools.product([0, 1], repeat=K)``,
    ``pi`` (K,) population priors, ``model`` (:class:`SyntheticModel`), ``feature_names``,
    ``label_names``.

    >>> d = make_synthetic(1000, priors=(0.3, 0.6), rho=0.5, seed=1)
    >>> d.X.shape, d.Y.shape, d.joint.shape
    ((1000, 2), (1000, 2), (1000, 4))
    >>> d.pi.round(3).tolist(), d.Y.mean(axis=0).round(2).tolist()
    ([0.3, 0.6], [0.29, 0.6])
    """
    model = synthetic_model(priors=priors, beta=beta, rho=rho, dim=dim)
    return model.sample(n, seed=seed)


# ================================================================================================
# Banking (LA25 §7)
# ================================================================================================

_BANK_HEADER = (
    "ID", "Age", "Experience", "Income", "ZIP Code", "Family", "CCAvg", "Education", "Mortgage",
    "Personal Loan", "Securities Account", "CD Account", "Online", "CreditCard",
)  # fmt: skip
_BANK_BINARY = ("Personal Loan", "Securities Account", "CD Account", "Online", "CreditCard")
_BANK_LABEL_NAMES = {
    "Personal Loan": "personal_loan",
    "Securities Account": "securities_account",
    "CD Account": "cd_account",
    "Online": "online",
    "CreditCard": "credit_card",
}
_BANK_SOURCE = (
    "Bank Personal Loan Modelling (UniversalBank), e.g. "
    "https://www.kaggle.com/itsmesunil/bank-loan-modelling; a copy is "
    "../shared/data/bank_personal_loan.csv (see ../shared/data/README.md)"
)


def _missing(path: Path, what: str, how: str) -> FileNotFoundError:
    return FileNotFoundError(f"{what} file '{path}' does not exist. Get it from: {how}.")


def load_banking(path: str | os.PathLike) -> Bunch:
    """Load the Bank Personal Loan data as a two-label problem (THEORY §10, LA25 §7).

    Labels ``Y = [personal_loan, has_mortgage]`` with ``has_mortgage = 1[Mortgage > 0]``.
    Features ``X`` = every column except ``ID``, ``Mortgage`` and ``Personal Loan`` (no label
    leakage): Age, Experience, Income, ZIP Code, Family, CCAvg, Education and the four other binary
    columns. For the five-label comparison (MTRUB) ``Y_all`` holds the five binary columns plus
    ``has_mortgage``; use it with ``X_all``, which also drops those four binary columns.

    The file is a CSV with header ``ID,Age,…,CreditCard`` (CRLF and a UTF-8 BOM are accepted).
    A wrong header, a row with the wrong number of fields, a non-number, or a binary column
    outside {0, 1} raises ``ValueError`` naming ``file:line``.

    Returns
    -------
    Bunch with ``X`` (n, 11) float64, ``Y`` (n, 2) int64, ``feature_names``, ``label_names``,
    ``Y_all`` (n, 6) int64, ``all_label_names``, ``X_all`` (n, 7) float64, ``all_feature_names``,
    ``ids`` (n,) int64, ``mortgage`` (n,) float64.

    >>> import pathlib
    >>> p = pathlib.Path(__file__).resolve().parents[2] / "shared/data/bank_personal_loan.csv"
    >>> d = load_banking(p) if p.exists() else None
    >>> d is None or (d.X.shape, d.Y.sum(axis=0).tolist()) == ((5000, 11), [480, 1538])
    True
    """
    path = Path(path)
    if not path.is_file():
        raise _missing(path, "Banking CSV", _BANK_SOURCE)
    rows: list[list[float]] = []
    with open(path, encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if header is None:
            raise ValueError(f"{path}:1: empty file; expected the header {','.join(_BANK_HEADER)}")
        header = [h.strip() for h in header]
        if tuple(header) != _BANK_HEADER:
            raise ValueError(
                f"{path}:1: unexpected header {header}; expected {list(_BANK_HEADER)}"
            )
        binary_cols = [_BANK_HEADER.index(c) for c in _BANK_BINARY]
        for fields in reader:
            line = reader.line_num
            if not fields or all(not f.strip() for f in fields):
                continue
            if len(fields) != len(_BANK_HEADER):
                raise ValueError(
                    f"{path}:{line}: expected {len(_BANK_HEADER)} fields, got {len(fields)}: "
                    f"{','.join(fields)[:80]!r}"
                )
            values = []
            for name, text in zip(_BANK_HEADER, fields, strict=True):
                try:
                    v = float(text)
                except ValueError:
                    raise ValueError(
                        f"{path}:{line}: column '{name}' must be a number, got {text!r}"
                    ) from None
                if not math.isfinite(v):
                    raise ValueError(f"{path}:{line}: column '{name}' must be finite, got {text!r}")
                values.append(v)
            for j in binary_cols:
                if values[j] not in (0.0, 1.0):
                    raise ValueError(
                        f"{path}:{line}: column '{_BANK_HEADER[j]}' must be 0 or 1, "
                        f"got {fields[j]!r}"
                    )
            rows.append(values)
    if not rows:
        raise ValueError(f"{path}: no data rows after the header")
    A = np.array(rows, dtype=np.float64)
    col = {name: A[:, i] for i, name in enumerate(_BANK_HEADER)}
    has_mortgage = (col["Mortgage"] > 0).astype(np.int64)
    feature_names = [
        c for c in _BANK_HEADER if c not in ("ID", "Mortgage", "Personal Loan")
    ]
    all_feature_names = [c for c in feature_names if c not in _BANK_BINARY]
    all_label_names = [_BANK_LABEL_NAMES[c] for c in _BANK_BINARY] + ["has_mortgage"]
    Y_all = np.column_stack([col[c].astype(np.int64) for c in _BANK_BINARY] + [has_mortgage])
    return Bunch(
        X=np.column_stack([col[c] for c in feature_names]),
        Y=np.column_stack([col["Personal Loan"].astype(np.int64), has_mortgage]),
        feature_names=feature_names,
        label_names=["personal_loan", "has_mortgage"],
        Y_all=Y_all,
        all_label_names=all_label_names,
        X_all=np.column_stack([col[c] for c in all_feature_names]),
        all_feature_names=all_feature_names,
        ids=col["ID"].astype(np.int64),
        mortgage=col["Mortgage"].copy(),
    )


# ================================================================================================
# LETOR / MSLR (THEORY §10)
# ================================================================================================

#: Where to get the learning-to-rank data (used in FileNotFoundError messages).
LETOR_SOURCES = (
    "MSLR-WEB10K/30K: https://www.microsoft.com/en-us/research/project/mslr/ ; "
    "LETOR 4.0 (MQ2007/MQ2008): "
    "https://www.microsoft.com/en-us/research/project/letor-learning-rank-information-retrieval/ ; "
    "copies of MQ2008 S1..S5 and the LightGBM Yahoo sample are in ../shared/data/letor "
    "(see ../shared/data/README.md); an MSLR-shaped synthetic file can be written with "
    "bipartite.data.make_mslr_like"
)
#: LETOR feature ids (1-based) of the MSLR click features: query-url click count, url click
#: count, url dwell time.
MSLR_CLICK_FEATURES = (134, 135, 136)
#: Default base-ranking feature for simulated clicks: BM25 of the whole document (LETOR 4.0
#: feature 25 of 46; MSLR feature 110 of 136).
_BM25_WHOLE = {46: 25, 136: 110}
_CLICK_OPTIONS = ("auto", "feature", "simulated")
_HEAD = re.compile(rb"[ \t\r\f\v]*([^\s#]+)(?:[ \t\r\f\v]+([^\s#]+))?")


def _open_binary(path: Path):
    """Open like sklearn's loader does: gzip / bz2 by extension, else plain binary."""
    if path.suffix == ".gz":
        return gzip.open(path, "rb")
    if path.suffix == ".bz2":
        return bz2.BZ2File(path, "rb")
    return open(path, "rb")


def _scan_rows(path: Path, *, want_qid: bool) -> tuple[np.ndarray | None, np.ndarray]:
    """One pass over the lines as sklearn reads them (text after ``#`` dropped, blank lines
    skipped): the qid of every data row (if ``want_qid``) and its 1-based line number.

    Raises ``ValueError`` naming ``file:line`` for a data row without a valid ``qid:`` token.
    """
    qids: list[int] = []
    lines: list[int] = []
    with _open_binary(path) as fh:
        for lineno, raw in enumerate(fh, 1):
            m = _HEAD.match(raw)
            if m is None:
                continue
            lines.append(lineno)
            if not want_qid:
                continue
            tok = m.group(2)
            if tok is None or not tok.startswith(b"qid"):
                raise ValueError(
                    f"{path}:{lineno}: missing 'qid:' token after the relevance label: "
                    f"{_excerpt(raw)}"
                )
            try:
                qids.append(int(tok.split(b":", 1)[1]))
            except (IndexError, ValueError):
                raise ValueError(
                    f"{path}:{lineno}: malformed qid token {tok.decode(errors='replace')!r}"
                ) from None
    lines_arr = np.asarray(lines, dtype=np.int64)
    return (np.asarray(qids, dtype=np.int64) if want_qid else None), lines_arr


def _excerpt(raw: bytes, limit: int = 80) -> str:
    text = raw.decode(errors="replace").rstrip("\r\n")
    return repr(text if len(text) <= limit else text[:limit] + "...")


def _line_problem(raw: bytes) -> str | None:
    """Full check of one SVMlight line (slow path, used only to locate an error): relevance a
    non-negative integer, optional ``qid:int``, then ``index:value`` tokens with integer indices
    ≥ 1, strictly increasing, and finite float values. Returns a description or None."""
    text = raw.split(b"#", 1)[0]
    parts = text.split()
    if not parts:
        return None
    label = parts[0].decode(errors="replace")
    try:
        rel = float(parts[0])
    except ValueError:
        return f"relevance label {label!r} is not a number"
    if not (math.isfinite(rel) and rel >= 0 and rel == int(rel)):
        return f"relevance label {label!r} is not a non-negative integer"
    feats = parts[1:]
    if feats and feats[0].startswith(b"qid"):
        tok = feats[0].decode(errors="replace")
        bits = feats[0].split(b":", 1)
        if len(bits) != 2 or not bits[1].lstrip(b"-").isdigit():
            return f"malformed qid token {tok!r}"
        feats = feats[1:]
    prev = 0
    for f in feats:
        tok = f.decode(errors="replace")
        bits = f.split(b":", 1)
        if len(bits) != 2:
            return f"feature token {tok!r} is not index:value"
        try:
            idx = int(bits[0])
        except ValueError:
            return f"feature index in {tok!r} is not an integer"
        if idx < 1:
            return f"feature index in {tok!r} must be >= 1 (LETOR features are 1-based)"
        if idx <= prev:
            return f"feature indices must be strictly increasing, got {tok!r} after {prev}"
        try:
            v = float(bits[1])
        except ValueError:
            return f"feature value in {tok!r} is not a number"
        if not math.isfinite(v):
            return f"feature value in {tok!r} is not finite"
        prev = idx
    return None


def _locate_bad_line(path: Path) -> tuple[int, str, bytes] | None:
    with _open_binary(path) as fh:
        for lineno, raw in enumerate(fh, 1):
            problem = _line_problem(raw)
            if problem is not None:
                return lineno, problem, raw
    return None


def _bad_line_error(path: Path, fallback: str) -> ValueError:
    found = _locate_bad_line(path)
    if found is None:
        return ValueError(f"{path}: cannot be parsed as a LETOR/SVMlight file: {fallback}")
    lineno, problem, raw = found
    return ValueError(f"{path}:{lineno}: malformed LETOR line ({problem}): {_excerpt(raw)}")


def _parse_svmlight(path: Path, *, want_qid: bool, dtype: Any, n_features: int | None):
    """Parse one LETOR/SVMlight file -> (CSR X, relevance int64, qid or None, line numbers).

    The relevance must be a non-negative integer and every value finite; violations raise
    ``ValueError`` with ``file:line``.
    """
    from sklearn.datasets import load_svmlight_file

    if not path.is_file():
        raise _missing(path, "LETOR", LETOR_SOURCES)
    qid, lines = _scan_rows(path, want_qid=want_qid)
    try:
        X, y = load_svmlight_file(
            str(path), dtype=dtype, zero_based=False, query_id=False, n_features=n_features
        )
    except ValueError as exc:
        raise _bad_line_error(path, str(exc)) from exc
    if X.shape[0] != len(lines):
        raise ValueError(
            f"{path}: the SVMlight parser read {X.shape[0]} rows but the file has "
            f"{len(lines)} data lines"
        )
    bad = ~np.isfinite(y) | (y < 0) | (y != np.round(y))
    if bad.any():
        raise _bad_line_error(path, f"bad relevance label at row {int(np.argmax(bad))}")
    bad_vals = ~np.isfinite(X.data)
    if bad_vals.any():
        row = int(np.searchsorted(X.indptr, int(np.argmax(bad_vals)), side="right") - 1)
        raise ValueError(
            f"{path}:{lines[row]}: malformed LETOR line (a feature value is not finite)"
        )
    return X, y.astype(np.int64), qid, lines


def _check_dtype(dtype: Any) -> np.dtype:
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"The 'dtype' parameter must be float32 or float64, got {dtype!r}.") from None
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"The 'dtype' parameter must be float32 or float64, got {dtype!r}.")
    return dt


def _check_threshold(relevance_threshold: Any) -> float:
    r = _check_real(relevance_threshold, "relevance_threshold")
    if not (math.isfinite(r) and r > 0):
        raise ValueError(
            "The 'relevance_threshold' parameter must be a positive finite number "
            f"(Y_rel = 1[relevance >= threshold]), got {relevance_threshold!r}."
        )
    return r


def _check_n_features(n_features: Any) -> int | None:
    if n_features is None:
        return None
    if isinstance(n_features, bool) or not isinstance(n_features, (int, np.integer)):
        raise TypeError(f"The 'n_features' parameter must be None or an int, got {n_features!r}.")
    if n_features < 1:
        raise ValueError(f"The 'n_features' parameter must be positive, got {n_features!r}.")
    return int(n_features)


def _check_options(relevance_threshold, click, dtype, n_features, base_feature, base_noise):
    thr = _check_threshold(relevance_threshold)
    click = check_option(click, "click", _CLICK_OPTIONS)
    dt = _check_dtype(dtype)
    nf = _check_n_features(n_features)
    if not (
        base_feature is None
        or base_feature == "auto"
        or (isinstance(base_feature, (int, np.integer)) and not isinstance(base_feature, bool)
            and base_feature >= 1)
    ):
        raise ValueError(
            "The 'base_feature' parameter must be 'auto', None or a LETOR feature id >= 1, "
            f"got {base_feature!r}."
        )
    noise = _check_real(base_noise, "base_noise")
    if not (math.isfinite(noise) and noise >= 0):
        raise ValueError(f"The 'base_noise' parameter must be finite and >= 0, got {base_noise!r}.")
    return thr, click, dt, nf, noise


def _letor_bunch(
    parts: list, files: list[Path], *, threshold: float, click: str, seed: Any, dtype: np.dtype,
    n_features: int | None, base_feature: Any, base_noise: float, click_params: dict | None,
) -> Bunch:
    """Stack parsed files, build the dense X and the labels [relevant, click]."""
    width = n_features or max(X.shape[1] for X, *_ in parts)
    n = sum(X.shape[0] for X, *_ in parts)
    full = np.zeros((n, width), dtype=dtype)
    relevance = np.empty(n, dtype=np.int64)
    qid = np.empty(n, dtype=np.int64)
    file_index = np.empty(n, dtype=np.int64)
    r0 = 0
    for i, (X, y, q, _) in enumerate(parts):
        r1 = r0 + X.shape[0]
        if X.shape[1] < width:
            X = X.__class__((X.data, X.indices, X.indptr), shape=(X.shape[0], width))
        X.toarray(out=full[r0:r1])
        relevance[r0:r1] = y
        qid[r0:r1] = q
        file_index[r0:r1] = i
        r0 = r1
    names = [f"f{j + 1}" for j in range(width)]
    if click == "auto":
        click = "feature" if width == 136 else "simulated"
    if click == "feature":
        if width < max(MSLR_CLICK_FEATURES):
            raise ValueError(
                f"The 'click' parameter 'feature' needs the MSLR click features 134-136 "
                f"(136-feature MSLR-WEB files), but {', '.join(map(str, files))} has only "
                f"{width} features; use click='simulated'."
            )
        cols = [j - 1 for j in MSLR_CLICK_FEATURES]
        click_features = full[:, cols].astype(np.float64)
        y_click = (click_features[:, 0] > 0).astype(np.int64)
        X = np.delete(full, cols, axis=1)
        del full
        names = [nm for j, nm in enumerate(names) if j not in cols]
        source = "feature: Y_click = 1[f134 > 0] (query-url click count); f134-f136 dropped from X"
        params: dict = {"feature": 134, "rule": "f134 > 0", "dropped": list(MSLR_CLICK_FEATURES)}
    else:
        X = full
        click_features = None
        rng = check_random_state(seed)
        bf = _BM25_WHOLE.get(width) if base_feature == "auto" else base_feature
        if bf is not None:
            if bf > width:
                raise ValueError(
                    f"The 'base_feature' parameter {bf} exceeds the number of features {width}."
                )
            base = X[:, bf - 1].astype(np.float64)
            base_desc = f"feature f{bf}"
        else:
            base = relevance + base_noise * rng.standard_normal(n)
            base_desc = f"relevance + N(0, {base_noise:g}^2) noise"
        sim = simulate_clicks(relevance, qid, base, seed=rng, return_details=True,
                              **(click_params or {}))
        y_click = sim.clicks
        params = dict(sim.params, base_ranking=base_desc)
        source = (
            f"simulated: position-based click model over the ranking by {base_desc} "
            f"(see simulate_clicks)"
        )
    Y = np.column_stack([(relevance >= threshold).astype(np.int64), y_click])
    return Bunch(
        X=X,
        Y=Y,
        qid=qid,
        relevance=relevance,
        feature_names=names,
        label_names=["relevant", "click"],
        click_source=source,
        click_params=params,
        click_features=click_features,
        file_index=file_index,
        files=[str(f) for f in files],
        relevance_threshold=threshold,
    )


def load_letor(
    path: str | os.PathLike | Sequence[str | os.PathLike],
    *,
    relevance_threshold: float = 1,
    click: str = "auto",
    seed: Any = 0,
    dtype: Any = np.float64,
    n_features: int | None = None,
    base_feature: Any = "auto",
    base_noise: float = 1.0,
    click_params: dict | None = None,
) -> Bunch:
    """Load LETOR/SVMlight file(s) with ``qid:`` as a two-label problem (THEORY §10).

    Lines are ``rel qid:Q 1:v 2:v … # comment``. Labels ``Y = [Y_rel, Y_click]`` with
    ``Y_rel = 1[relevance ≥ relevance_threshold]`` and the click label by ``click``:

    * ``"feature"``: ``Y_click = 1[f134 > 0]`` (MSLR query-url click count); the click features
      134–136 are removed from ``X`` (returned in ``click_features``).
    * ``"simulated"``: clicks from the position-based model of :func:`simulate_clicks` over a base
      ranking within each query: by LETOR feature ``base_feature`` (``"auto"``: BM25 of the whole
      document, feature 25 for 46-feature LETOR 4.0 files, 110 for 136-feature files; else, or
      with ``None``, by ``relevance + N(0, base_noise²)``), ties broken at random; ``click_params``
      is passed on to :func:`simulate_clicks` (``eta_pos``, ``epsilon_minus``, ``epsilon_plus``,
      ``max_grade``). Seeded by ``seed``.
    * ``"auto"``: ``"feature"`` when the data has exactly 136 features, else ``"simulated"``.

    Parameters
    ----------
    path : path or sequence of paths (e.g. MQ2008 S1..S5, stacked in order; ``file_index`` tells
        which file a row came from). Query ids are kept as written; files with overlapping qids
        would merge groups.
    relevance_threshold : positive number. dtype : float64 (default) or float32 (MSLR size).
    n_features : width of ``X`` before dropping click features (default: largest index seen).

    Returns
    -------
    Bunch with ``X`` (n, p) dense, ``Y`` (n, 2) int64, ``qid`` (n,) int64, ``relevance`` (n,)
    int64, ``feature_names`` (``"f<id>"``), ``label_names`` ``["relevant", "click"]``,
    ``click_source`` (text), ``click_params`` (dict), ``click_features`` ((n, 3) or None),
    ``file_index``, ``files``, ``relevance_threshold``.

    A missing file raises ``FileNotFoundError`` saying where to get the data; a malformed line
    raises ``ValueError`` naming ``file:line``.

    >>> import pathlib
    >>> p = pathlib.Path(__file__).resolve().parents[2] / "shared/data/letor/mq2008_S1.txt"
    >>> d = load_letor(p) if p.exists() else None
    >>> d is None or (d.X.shape, len(set(d.qid)), d.Y[:, 0].sum()) == ((2933, 46), 157, 617)
    True
    """
    thr, click, dt, nf, noise = _check_options(
        relevance_threshold, click, dtype, n_features, base_feature, base_noise
    )
    if isinstance(path, (str, os.PathLike)):
        files = [Path(path)]
    else:
        files = [Path(p) for p in path]
        if not files:
            raise ValueError("The 'path' parameter must name at least one file, got [].")
    for f in files:
        if not f.is_file():
            raise _missing(f, "LETOR", LETOR_SOURCES)
    parts = [_parse_svmlight(f, want_qid=True, dtype=dt, n_features=nf) for f in files]
    return _letor_bunch(
        parts, files, threshold=thr, click=click, seed=seed, dtype=dt, n_features=nf,
        base_feature=base_feature, base_noise=noise, click_params=click_params,
    )


def _read_query_file(path: Path) -> np.ndarray:
    """Group sizes, one positive integer per non-blank line; errors name ``file:line``."""
    sizes = []
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            text = raw.strip()
            if not text:
                continue
            try:
                v = int(text)
            except ValueError:
                raise ValueError(
                    f"{path}:{lineno}: a query file line must be a positive integer group size, "
                    f"got {_excerpt(raw)}"
                ) from None
            if v < 1:
                raise ValueError(
                    f"{path}:{lineno}: a query file line must be a positive integer group size, "
                    f"got {v}"
                )
            sizes.append(v)
    if not sizes:
        raise ValueError(f"{path}: the query file holds no group sizes")
    return np.asarray(sizes, dtype=np.int64)


def load_letor_query(
    data_path: str | os.PathLike,
    query_path: str | os.PathLike,
    *,
    relevance_threshold: float = 1,
    click: str = "auto",
    seed: Any = 0,
    dtype: Any = np.float64,
    n_features: int | None = None,
    base_feature: Any = "auto",
    base_noise: float = 1.0,
    click_params: dict | None = None,
) -> Bunch:
    """Load a LightGBM-style ranking file: SVMlight rows without ``qid:`` plus a query file of
    group sizes (one integer per line, consecutive rows) (THEORY §10).

    The number of data rows must equal the sum of the group sizes (``ValueError`` naming both
    files otherwise). ``qid`` is the group index ``0 … G−1``. Labels, options and the returned
    Bunch are those of :func:`load_letor`, plus ``group_sizes`` (G,).

    >>> import pathlib
    >>> root = pathlib.Path(__file__).resolve().parents[2] / "shared/data/letor"
    >>> f, q = root / "lightgbm_yahoo_rank_test.txt", root / "lightgbm_yahoo_rank_test_query.txt"
    >>> d = load_letor_query(f, q) if f.exists() else None
    >>> d is None or (d.X.shape[0], len(d.group_sizes), d.click_source.split(":")[0])
    (768, 50, 'simulated')
    """
    thr, click, dt, nf, noise = _check_options(
        relevance_threshold, click, dtype, n_features, base_feature, base_noise
    )
    data_path, query_path = Path(data_path), Path(query_path)
    for f in (data_path, query_path):
        if not f.is_file():
            raise _missing(f, "LETOR", LETOR_SOURCES)
    sizes = _read_query_file(query_path)
    X, y, _, lines = _parse_svmlight(data_path, want_qid=False, dtype=dt, n_features=nf)
    if int(sizes.sum()) != X.shape[0]:
        raise ValueError(
            f"{query_path}: {len(sizes)} group sizes summing to {int(sizes.sum())}, but "
            f"{data_path} has {X.shape[0]} data rows; they must match."
        )
    qid = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    out = _letor_bunch(
        [(X, y, qid, lines)], [data_path], threshold=thr, click=click, seed=seed, dtype=dt,
        n_features=nf, base_feature=base_feature, base_noise=noise, click_params=click_params,
    )
    out.group_sizes = sizes
    return out


def _ranks_within_query(qid: np.ndarray, scores: np.ndarray, tiebreak: np.ndarray) -> np.ndarray:
    """1-based rank of each row within its query, by descending score, ties by ``tiebreak``
    (ascending). One lexsort; queries need not be contiguous."""
    order = np.lexsort((tiebreak, -scores, qid))
    sq = qid[order]
    pos = np.arange(len(order))
    start = np.ones(len(order), dtype=bool)
    start[1:] = sq[1:] != sq[:-1]
    first = np.maximum.accumulate(np.where(start, pos, 0))
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = pos - first + 1
    return ranks


def simulate_clicks(
    relevance: Any,
    qid: Any,
    base_scores: Any,
    *,
    eta_pos: float = 1.0,
    epsilon_minus: float = 0.1,
    epsilon_plus: float = 0.9,
    max_grade: int | None = None,
    seed: Any = 0,
    return_details: bool = False,
):
    """Clicks from a position-based click model (PBM) over a base ranking (THEORY §10).

    Within each query the documents are ranked by ``base_scores`` (descending; ties broken
    uniformly at random), giving ranks ``r = 1, 2, …``. A document is clicked with probability

        P(click) = P(examined | r) · P(click | examined, g),
        P(examined | r) = (1 / r)^eta_pos,
        P(click | examined, g) = ε⁻ + (ε⁺ − ε⁻) · g / max_grade,

    with ``g`` the relevance grade (``max_grade`` defaults to the largest grade present, at least
    1). The defaults give ``{0: 0.1, 1: 0.5, 2: 0.9}`` for grades 0–2. The Generator from ``seed``
    draws the tie-breaking keys first, then one uniform per row for the click.

    Parameters
    ----------
    relevance : (n,) non-negative integer grades. qid : (n,) query ids. base_scores : (n,) finite.
    eta_pos : float ≥ 0. epsilon_minus, epsilon_plus : 0 ≤ ε⁻ ≤ ε⁺ ≤ 1. max_grade : int ≥ max
        grade, or None.
    return_details : if True return a Bunch with ``clicks``, ``prob``, ``rank``, ``examination``,
        ``attractiveness`` and ``params``; else the clicks.

    Returns
    -------
    clicks : (n,) int64 in {0, 1} (or the Bunch above).

    >>> rel, q = [2, 0, 1, 0], [7, 7, 7, 7]
    >>> d = simulate_clicks(rel, q, [4.0, 3.0, 2.0, 1.0], return_details=True)
    >>> d.rank.tolist(), d.prob.round(3).tolist()
    ([1, 2, 3, 4], [0.9, 0.05, 0.167, 0.025])
    """
    g = check_array(relevance, "relevance", ndim=1)
    bad = (g < 0) | (g != np.round(g))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"The 'relevance' parameter must hold non-negative integer grades, got {g[i]:g} "
            f"at index {i}."
        )
    q = np.asarray(qid)
    if q.ndim != 1 or len(q) != len(g):
        raise ValueError(
            f"The 'qid' parameter must be 1-dimensional with {len(g)} entries, got shape {q.shape}."
        )
    s = check_array(base_scores, "base_scores", ndim=1)
    if len(s) != len(g):
        raise ValueError(
            f"Inconsistent numbers of samples: relevance has {len(g)}, base_scores has {len(s)}."
        )
    ep = _check_real(eta_pos, "eta_pos")
    if not (math.isfinite(ep) and ep >= 0):
        raise ValueError(f"The 'eta_pos' parameter must be finite and >= 0, got {eta_pos!r}.")
    em, eps = _check_real(epsilon_minus, "epsilon_minus"), _check_real(epsilon_plus, "epsilon_plus")
    if not 0.0 <= em <= eps <= 1.0:
        raise ValueError(
            "The 'epsilon_minus' and 'epsilon_plus' parameters must satisfy "
            f"0 <= epsilon_minus <= epsilon_plus <= 1, got {epsilon_minus!r}, {epsilon_plus!r}."
        )
    top = int(g.max())
    if max_grade is None:
        mg = max(top, 1)
    else:
        if isinstance(max_grade, bool) or not isinstance(max_grade, (int, np.integer)):
            raise TypeError(f"The 'max_grade' parameter must be None or an int, got {max_grade!r}.")
        if max_grade < max(top, 1):
            raise ValueError(
                f"The 'max_grade' parameter must be >= the largest grade {top} (and >= 1), "
                f"got {max_grade!r}."
            )
        mg = int(max_grade)
    rng = check_random_state(seed)
    tiebreak = rng.random(len(g))
    rank = _ranks_within_query(q, s, tiebreak)
    examination = rank.astype(np.float64) ** (-ep)
    attractiveness = em + (eps - em) * g / mg
    prob = examination * attractiveness
    clicks = (rng.random(len(g)) < prob).astype(np.int64)
    if not return_details:
        return clicks
    params = {"model": "PBM", "eta_pos": ep, "epsilon_minus": em, "epsilon_plus": eps,
              "max_grade": mg}
    return Bunch(clicks=clicks, prob=prob, rank=rank, examination=examination,
                 attractiveness=attractiveness, params=params)


# ================================================================================================
# MSLR-shaped generator
# ================================================================================================

#: Approximate MSLR-WEB30K relevance frequencies for grades 0..4.
MSLR_RELEVANCE_PROBS = (0.514, 0.325, 0.134, 0.019, 0.008)
#: Default P(f134 > 0 | grade) of the generator (query-url click count positive).
MSLR_CLICK_RATES = (0.05, 0.15, 0.35, 0.55, 0.70)
#: Decimals written per feature (0: integer-valued count feature, 6: real-valued), MSLR layout.
_MSLR_DECIMALS = np.zeros(136, dtype=np.int64)
for _a, _b in ((6, 10), (16, 20), (36, 125), (130, 130), (136, 136)):
    _MSLR_DECIMALS[_a - 1 : _b] = 6
_MSLR_DECIMALS[96 - 1 : 100] = 0  # boolean model is 0/1


def _mslr_chunk_features(
    rng: np.random.Generator, g: np.ndarray, qrow: np.ndarray, n_q: int, click_rates: np.ndarray
) -> np.ndarray:
    """(m, 136) feature values for ``m`` rows of ``n_q`` queries (``qrow`` = local query index
    per row), following the MSLR feature groups; integer features are integer-valued.

    A latent document quality ``z = 0.8 g + query offset + N(0, 1)`` drives the text-matching
    features; the click features 134-136 depend on the grade (``click_rates``).
    """
    m = len(g)
    F = np.empty((m, 136))
    qlen_q = 1 + rng.binomial(4, 0.4, size=n_q)
    qlen = qlen_q[qrow].astype(np.float64)
    z = 0.8 * g + 0.3 * rng.standard_normal(n_q)[qrow] + rng.standard_normal(m)
    off = np.array([0.5, -1.0, -0.5, -1.5, 0.8])
    cover = rng.binomial(qlen_q[qrow][:, None], special.expit(0.6 * z[:, None] + off[None, :]))
    F[:, 0:5] = cover  # 1-5 covered query term number
    F[:, 5:10] = cover / qlen[:, None]  # 6-10 covered query term ratio
    length = np.column_stack([
        np.floor(rng.lognormal(6.0, 0.8, m)),
        np.floor(rng.lognormal(1.5, 1.5, m)) * (rng.random(m) < 0.7),
        1 + rng.poisson(7, m),
        1 + rng.poisson(5, m),
        np.zeros(m),
    ])
    length[:, 4] = length[:, :4].sum(axis=1)
    F[:, 10:15] = length  # 11-15 stream length
    idf = rng.gamma(2.0, 2.5, size=(n_q, 5))[qrow]
    F[:, 15:20] = idf  # 16-20 IDF
    lam = cover * np.minimum(1 + length / 100.0, 50.0) * np.exp(np.minimum(0.2 * z, 3.0))[:, None]
    tf_sum = rng.poisson(lam).astype(np.float64)
    tf_mean = tf_sum / qlen[:, None]
    u1, u2 = rng.random((m, 5)), rng.random((m, 5))
    tf_min = np.floor(tf_mean * u1)
    tf_max = np.ceil(tf_mean * (1 + u2))
    tf_var = (tf_max - tf_min) ** 2 / 4.0 * u1
    stats5 = (tf_sum, tf_min, tf_max, tf_mean, tf_var)
    for i, a in enumerate(stats5):
        F[:, 20 + 5 * i : 25 + 5 * i] = a  # 21-45 tf sum/min/max/mean/var
        F[:, 45 + 5 * i : 50 + 5 * i] = a / np.maximum(length, 1.0)  # 46-70 normalised tf
        F[:, 70 + 5 * i : 75 + 5 * i] = a * (idf**2 if i == 4 else idf)  # 71-95 tf*idf
    F[:, 95:100] = cover == qlen[:, None]  # 96-100 boolean model
    F[:, 100:105] = special.expit(0.5 * z[:, None] - 1 + rng.standard_normal((m, 5))) * (
        cover / qlen[:, None]
    )  # 101-105 vector space model
    sat = tf_sum / (tf_sum + 1.5)
    F[:, 105:110] = np.maximum(
        3.0 * idf * (cover / qlen[:, None]) * sat + 0.3 * rng.standard_normal((m, 5)), 0.0
    )  # 106-110 BM25
    for i in range(3):  # 111-125 LMIR.ABS / DIR / JM (negative log-likelihoods)
        F[:, 110 + 5 * i : 115 + 5 * i] = -(
            qlen[:, None] * (6.0 + rng.gamma(2.0, 1.0, (m, 5))) - 1.5 * cover * sat
        )
    F[:, 125] = 1 + rng.poisson(2, m)  # 126 slash count
    F[:, 126] = 15 + rng.poisson(35, m)  # 127 url length
    F[:, 127] = np.floor(rng.lognormal(1.0 + 0.3 * np.minimum(z, 6.0), 1.5))  # 128 inlinks
    F[:, 128] = rng.poisson(30, m)  # 129 outlinks
    F[:, 129] = rng.lognormal(3.0, 1.0, m)  # 130 PageRank
    F[:, 130] = rng.poisson(40, m)  # 131 SiteRank
    F[:, 131] = np.clip(np.round(50 + 8 * z + 10 * rng.standard_normal(m)), 0, 255)  # 132
    F[:, 132] = np.clip(np.round(40 + 5 * z + 15 * rng.standard_normal(m)), 0, 255)  # 133
    clicked = rng.random(m) < click_rates[g]
    f134 = clicked * (1 + rng.poisson(1.0 + 0.5 * g))
    F[:, 133] = f134  # 134 query-url click count
    F[:, 134] = f134 + rng.poisson(3.0 * np.exp(np.clip(0.3 * z, -3.0, 3.0)))  # 135 url clicks
    F[:, 135] = f134 * rng.lognormal(3.5 + 0.2 * g, 0.8)  # 136 url dwell time
    return F


def _digit_field(q: np.ndarray, dec: int) -> np.ndarray:
    """Bytes of the integers ``q`` (values scaled by ``10**dec``) written as ``[-]int[.frac]``,
    as an (m, w) uint8 array with 0 marking absent bytes (sign, leading zeros)."""
    m = len(q)
    neg = q < 0
    mag = np.abs(q)
    ip, fp = np.divmod(mag, 10**dec)
    D = len(str(int(ip.max()))) if m else 1
    pw = 10 ** np.arange(D - 1, -1, -1, dtype=np.int64)
    digs = (ip[:, None] // pw) % 10 + 48
    keep = (ip[:, None] >= pw) | (pw == 1)[None, :]
    pieces = [np.where(neg, 45, 0)[:, None], np.where(keep, digs, 0)]
    if dec:
        pwf = 10 ** np.arange(dec - 1, -1, -1, dtype=np.int64)
        pieces += [np.full((m, 1), 46), (fp[:, None] // pwf) % 10 + 48]
    return np.concatenate(pieces, axis=1).astype(np.uint8)


def _const_field(text: bytes, m: int) -> np.ndarray:
    return np.broadcast_to(np.frombuffer(text, dtype=np.uint8), (m, len(text)))


def _format_letor_block(
    relevance: np.ndarray, qid: np.ndarray, values: np.ndarray, decimals: np.ndarray
) -> bytes:
    """LETOR lines ``rel qid:Q 1:v … p:v`` for a block of rows, vectorised.

    Values are rounded to ``decimals[j]`` places (0: written as an integer, else fixed-point with
    exactly that many decimals). Every field is built as fixed-width digit bytes with 0 for absent
    bytes, and the block is compacted in one boolean mask.
    """
    m, p = values.shape
    pieces = [_digit_field(relevance.astype(np.int64), 0), _const_field(b" qid:", m),
              _digit_field(qid.astype(np.int64), 0)]
    for j in range(p):
        d = int(decimals[j])
        scaled = np.rint(values[:, j] * 10.0**d).astype(np.int64)
        pieces += [_const_field(b" %d:" % (j + 1), m), _digit_field(scaled, d)]
    pieces.append(_const_field(b"\n", m))
    buf = np.concatenate(pieces, axis=1)
    return buf[buf != 0].tobytes()


def make_mslr_like(
    path: str | os.PathLike,
    *,
    n_queries: int = 30000,
    docs_per_query: float = 75.7,
    relevance_probs: Sequence[float] = MSLR_RELEVANCE_PROBS,
    click_rates: Sequence[float] = MSLR_CLICK_RATES,
    seed: Any = 0,
    chunk_rows: int = 20000,
) -> Bunch:
    """Write an MSLR-WEB-shaped LETOR file (THEORY §10) for scale tests; returns a summary.

    ``n_queries`` queries with ``qid:1 … qid:n_queries``; query sizes ``1 + NegBin(r=2, mean =
    docs_per_query − 1)`` (the default gives ~2.27M rows for 30000 queries); relevance 0–4
    i.i.d. with ``relevance_probs`` (MSLR-WEB30K frequencies); 136 features following the MSLR
    groups (integer counts written as integers, real-valued features with 6 decimals, LMIR
    features negative), driven by a latent quality that increases with relevance; click features
    134 (query-url click count, positive with probability ``click_rates[g]``), 135 (url click
    count ≥ f134) and 136 (dwell time, 0 iff f134 = 0). Written in chunks of about
    ``chunk_rows`` rows (whole queries), so memory stays ~O(chunk_rows · 136); reproducible for
    given ``(seed, chunk_rows)``.

    Returns
    -------
    Bunch with ``path``, ``n_queries``, ``n_rows``, ``n_bytes``, ``relevance_counts`` (5,),
    ``click_counts`` (5,) rows with f134 > 0 per grade.

    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     s = make_mslr_like(pathlib.Path(tmp) / "m.txt", n_queries=5, seed=0)
    ...     d = load_letor(s.path)
    >>> d.X.shape[1], d.click_source.split(":")[0], len(set(d.qid))
    (133, 'feature', 5)
    """
    if isinstance(n_queries, bool) or not isinstance(n_queries, (int, np.integer)) or n_queries < 1:
        raise ValueError(f"The 'n_queries' parameter must be a positive integer, got {n_queries!r}.")
    dpq = _check_real(docs_per_query, "docs_per_query")
    if not (math.isfinite(dpq) and dpq >= 1):
        raise ValueError(f"The 'docs_per_query' parameter must be >= 1, got {docs_per_query!r}.")
    probs = check_array(relevance_probs, "relevance_probs", ndim=1)
    if len(probs) != 5 or np.any(probs < 0) or abs(probs.sum() - 1) > 1e-6:
        raise ValueError(
            "The 'relevance_probs' parameter must be 5 non-negative numbers summing to 1 "
            f"(grades 0..4), got {list(relevance_probs)!r}."
        )
    rates = check_array(click_rates, "click_rates", ndim=1)
    if len(rates) != 5 or np.any((rates < 0) | (rates > 1)):
        raise ValueError(
            f"The 'click_rates' parameter must be 5 probabilities (grades 0..4), got "
            f"{list(click_rates)!r}."
        )
    if isinstance(chunk_rows, bool) or not isinstance(chunk_rows, (int, np.integer)) or (
        chunk_rows < 1
    ):
        raise ValueError(f"The 'chunk_rows' parameter must be a positive integer, got {chunk_rows!r}.")
    path = Path(path)
    rng = check_random_state(seed)
    extra = dpq - 1.0
    if extra > 0:
        r_nb = 2.0
        sizes = 1 + rng.negative_binomial(r_nb, r_nb / (r_nb + extra), size=int(n_queries))
    else:
        sizes = np.ones(int(n_queries), dtype=np.int64)
    ends = np.cumsum(sizes)
    # Chunk boundaries at whole queries: the last query whose rows end within each chunk_rows.
    cuts = np.unique(np.searchsorted(ends, np.arange(chunk_rows, ends[-1], chunk_rows), "right"))
    bounds = [0, *[int(c) for c in cuts if 0 < c < n_queries], int(n_queries)]
    chunk_rngs = rng.spawn(len(bounds) - 1)
    rel_counts = np.zeros(5, dtype=np.int64)
    click_counts = np.zeros(5, dtype=np.int64)
    n_bytes = 0
    with open(path, "wb") as fh:
        for (q0, q1), crng in zip(zip(bounds[:-1], bounds[1:], strict=True), chunk_rngs, strict=True):
            sz = sizes[q0:q1]
            qrow = np.repeat(np.arange(q1 - q0), sz)
            g = crng.choice(5, size=len(qrow), p=probs / probs.sum())
            F = _mslr_chunk_features(crng, g, qrow, q1 - q0, rates)
            block = _format_letor_block(g, qrow + q0 + 1, F, _MSLR_DECIMALS)
            fh.write(block)
            n_bytes += len(block)
            rel_counts += np.bincount(g, minlength=5)
            click_counts += np.bincount(g[F[:, 133] > 0], minlength=5)
    return Bunch(
        path=str(path),
        n_queries=int(n_queries),
        n_rows=int(sizes.sum()),
        n_bytes=n_bytes,
        relevance_counts=rel_counts,
        click_counts=click_counts,
    )
